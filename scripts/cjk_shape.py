#!/usr/bin/env python3
"""How the page-level path fares when a page's language is written in Chinese
characters, measured on trafbench's real layouts.

trafbench's pages are nearly all in alphabetic scripts. This script writes
each page twice into a work folder, as HTML files with `.html.url` sidecars:
`base/`, the page as lxml reads and writes it back, and `cjk/`, the same
with every word of its text (a run of letters and digits, in the text, the
`<title>`, `alt` and `title` attributes and the title and description
`<meta>`s) replaced by ceil(letters / R) ideographs, the same ones for the
same word, and the white space between two words removed. Scripts, styles,
tags and the rest of the markup stay. The snippets are rewritten the same
way. It then runs `canopy run --method page` on both folders and prints:

- the snippet scores of each run, with white space removed on both sides
  (so that a snippet that spans two elements still matches);
- "lost": the `with` snippets that the base run's article holds and the
  cjk run's does not, though the base article rewritten holds them. These
  are the extractor's choices, not the rewriting's artefacts: a snippet
  whose words the page splits across elements rewrites differently, and is
  left out of the count.

R = 3 is about Chinese (a word of five letters becomes two characters), 2
about Japanese. `--script hangul` writes the words in Hangul syllables
instead and keeps the spaces between them, as Korean does; R = 2 is about
Korean (a syllable block writes two or three letters). Needs lxml
(scripts/peers/setup.sh's venv has it):

    scripts/peers/.venv/bin/python scripts/cjk_shape.py \
        --canopy target/release/canopy --corpus ../shared/corpora/trafbench \
        --ratio 3 --work /tmp/cjk
"""

import argparse
import csv
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys

import lxml.html

WORD = re.compile(r"\w+", re.U)
BETWEEN_IDEOGRAPHS = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
SPACE = re.compile(r"\s+")


# The first code point and the size of each script's block of characters.
SCRIPTS = {"han": (0x4E00, 0x5000), "hangul": (0xAC00, 11172)}
SCRIPT = "han"


def ideographs(word, ratio):
    first, size = SCRIPTS[SCRIPT]
    n = max(1, math.ceil(len(word) / ratio))
    h = hashlib.blake2b(word.lower().encode(), digest_size=16).digest()
    return "".join(
        chr(first + ((h[2 * i % 16] << 8 | h[(2 * i + 1) % 16]) + i) % size) for i in range(n)
    )


def shaped(text, ratio):
    if not text:
        return text
    text = WORD.sub(lambda m: ideographs(m.group(0), ratio), CONTROL.sub("", text))
    # Chinese and Japanese run their words together; Korean spaces them.
    return BETWEEN_IDEOGRAPHS.sub("", text) if SCRIPT == "han" else text


def decode(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = re.search(rb"charset=[\"']?([\w-]+)", raw[:4096], re.I)
    try:
        return raw.decode(m.group(1).decode() if m else "cp1252", errors="replace")
    except LookupError:
        return raw.decode("cp1252", errors="replace")


def declare_utf8(doc):
    for m in doc.iter("meta"):
        if m.get("charset"):
            m.set("charset", "utf-8")
        if (m.get("http-equiv") or "").lower() == "content-type":
            m.set("content", "text/html; charset=utf-8")


def reshape(doc, ratio):
    for el in doc.iter():
        if isinstance(el.tag, str) and el.tag not in ("script", "style") and el.text:
            el.text = shaped(el.text, ratio)
        if el.tail:
            el.tail = shaped(el.tail, ratio)
        if not isinstance(el.tag, str):
            continue
        named = (el.get("property") or "") + (el.get("name") or "")
        if el.tag == "meta" and el.get("content") and re.search("title|description", named, re.I):
            el.set("content", shaped(el.get("content"), ratio))
        for attr in ("alt", "title"):
            if el.get(attr):
                el.set(attr, shaped(el.get(attr), ratio))


def write_pages(corpus, work, ratio):
    """The two folders; the ids of the pages written."""
    pages = list(csv.DictReader(open(f"{corpus}/manifest.tsv"), delimiter="\t"))
    for kind in ("base", "cjk"):
        shutil.rmtree(f"{work}/{kind}", ignore_errors=True)
        os.makedirs(f"{work}/{kind}")
    written = []
    for page in pages:
        raw = open(f"{corpus}/html/{page['id']}.html", "rb").read()
        try:
            doc = lxml.html.document_fromstring(decode(raw))
        except Exception:
            continue
        declare_utf8(doc)
        for kind in ("base", "cjk"):
            if kind == "cjk":
                reshape(doc, ratio)
            html = lxml.html.tostring(doc, encoding="unicode", method="html", doctype="<!DOCTYPE html>")
            with open(f"{work}/{kind}/{page['id']}.html", "w", encoding="utf-8") as f:
                f.write(html)
            with open(f"{work}/{kind}/{page['id']}.html.url", "w") as f:
                f.write(page["url"] + "\n")
        written.append(page["id"])
    return written


def articles(canopy, folder, out, corpus):
    """Each page's article text by id, white space removed."""
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([canopy, "run", folder, "--out", out, "--method", "page"],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ids = {r["url"]: r["id"] for r in csv.DictReader(open(f"{corpus}/manifest.tsv"), delimiter="\t")}
    texts = {}
    for line in open(f"{out}/articles.jsonl"):
        a = json.loads(line)
        if a["url"] in ids:
            texts[ids[a["url"]]] = a["text"]
    return texts


def score(texts, snippets, rewrite):
    tp = fn = fp = 0
    for pid, s in snippets.items():
        text = SPACE.sub("", texts.get(pid, ""))
        for x in s["with"]:
            if SPACE.sub("", rewrite(x)) in text:
                tp += 1
            else:
                fn += 1
        fp += sum(SPACE.sub("", rewrite(x)) in text for x in s["without"])
    p, r = tp / max(1, tp + fp), tp / max(1, tp + fn)
    return f"TP {tp} FN {fn} FP {fp} P {p:.3f} R {r:.3f} F {2 * p * r / max(1e-9, p + r):.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--canopy", required=True)
    ap.add_argument("--corpus", required=True, help="trafbench's folder")
    ap.add_argument("--ratio", type=float, default=3.0, help="letters a character stands for")
    ap.add_argument("--work", required=True)
    ap.add_argument("--script", choices=sorted(SCRIPTS), default="han")
    a = ap.parse_args()
    global SCRIPT
    SCRIPT = a.script
    ids = write_pages(a.corpus, a.work, a.ratio)
    snippets = {}
    for line in open(f"{a.corpus}/snippets.jsonl"):
        s = json.loads(line)
        if s["id"] in ids:
            snippets[s["id"]] = s
    base = articles(a.canopy, f"{a.work}/base", f"{a.work}/out-base", a.corpus)
    cjk = articles(a.canopy, f"{a.work}/cjk", f"{a.work}/out-cjk", a.corpus)
    def rewrite(x):
        return shaped(x, a.ratio)
    print(f"pages {len(ids)} of {len(list(open(a.corpus + '/manifest.tsv'))) - 1}")
    print("base", score(base, snippets, lambda x: x))
    print("cjk ", score(cjk, snippets, rewrite))
    held = lost = 0
    for pid, s in snippets.items():
        b = SPACE.sub("", base.get(pid, ""))
        b_shaped = SPACE.sub("", rewrite(base.get(pid, "")))
        c = SPACE.sub("", cjk.get(pid, ""))
        for x in s["with"]:
            want = SPACE.sub("", rewrite(x))
            if SPACE.sub("", x) in b and want in b_shaped:
                held += 1
                lost += want not in c
    print(f"lost {lost} of the {held} with snippets the base article holds")


if __name__ == "__main__":
    sys.exit(main())
