#!/usr/bin/env python3
"""Writes one site of many small template clusters: the long tail of a crawl.

    python3 scripts/make_small_clusters.py OUT.warc.gz TEMPLATES PAGES

Every page is on the host tail.example. Template t (0 ≤ t < TEMPLATES) has
its own ids and class names (letters: the template grouping drops digits
from names), its own nesting around the article and its own navigation and
sidebar texts; its PAGES pages differ in their six paragraphs, drawn from a
vocabulary of 5,000 made-up words. The same arguments give the same bytes.

With PAGES below 5, every cluster is small and counts up to 20 of the site's
other pages in its idf (docs/algorithms.md): what docs/performance.md's
row on background pages measures.
"""
import argparse
import gzip
import random
import uuid

TAGS = ["div", "section", "article", "main"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def name(t):
    return LETTERS[t % 26] + LETTERS[t // 26 % 26] + "x"


def page(words, t, p):
    n, rng, fixed = name(t), random.Random(t * 1000 + p), random.Random(t)
    depth = 2 + t % 4
    opens = "".join(f'<{TAGS[(t + i) % 4]} class="{n}-l{LETTERS[i]}">' for i in range(depth))
    closes = "".join(f"</{TAGS[(t + i) % 4]}>" for i in reversed(range(depth)))
    nav = "".join(
        f'<li class="{n}-item"><a class="{n}-link" href="/s{t}/{k}">'
        f'{" ".join(fixed.choice(words) for _ in range(2))}</a></li>'
        for k in range(25)
    )
    paras = "".join(
        f'<p class="{n}-para">'
        + " ".join(rng.choice(words) for _ in range(rng.randint(40, 90)))
        + ".</p>"
        for _ in range(6)
    )
    side = "".join(
        f'<p class="{n}-side">{" ".join(fixed.choice(words) for _ in range(12))}</p>'
        for _ in range(5)
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><title>Story {t}-{p}</title></head><body>'
        f'<ul id="nav{n}">{nav}</ul>{opens}<h1 class="{n}-head">Story {t} {p}</h1>{paras}'
        f'{closes}<div id="side{n}">{side}</div><footer class="{n}-foot">Footer {t}</footer>'
        "</body></html>"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("templates", type=int)
    ap.add_argument("pages", type=int)
    args = ap.parse_args()
    rng = random.Random(7)
    words = [
        "".join(rng.choice(LETTERS) for _ in range(rng.randint(3, 9))) for _ in range(5000)
    ]
    with gzip.GzipFile(args.out, "wb", mtime=0) as f:
        for t in range(args.templates):
            for p in range(args.pages):
                html = page(words, t, p).encode()
                http = (
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                    b"Content-Length: " + str(len(html)).encode() + b"\r\n\r\n" + html
                )
                head = (
                    "WARC/1.0\r\nWARC-Type: response\r\n"
                    f"WARC-Target-URI: http://tail.example/t{t}/story-{p}.html\r\n"
                    "WARC-Date: 2024-01-01T00:00:00Z\r\n"
                    f"WARC-Record-ID: <urn:uuid:{uuid.UUID(int=t * 1000 + p)}>\r\n"
                    "Content-Type: application/http; msgtype=response\r\n"
                    f"Content-Length: {len(http)}\r\n\r\n"
                )
                f.write(head.encode() + http + b"\r\n\r\n")


if __name__ == "__main__":
    main()
