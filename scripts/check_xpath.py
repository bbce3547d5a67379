#!/usr/bin/env python3
"""Checks Canopy's portable XPath wrappers with an independent engine (lxml).

For every page of a corpus that a wrapper served, evaluates the wrapper's
`xpath_portable` on the page's raw HTML with lxml (libxml2's parser and XPath
1.0 engine, which share nothing with Canopy's html5ever DOM) and compares the
text of the selected elements with the text Canopy extracted.

Usage: check_xpath.py CORPUS_DIR CANOPY_OUT_DIR [--min-agreement 0.95]
Exits 1 when fewer pages than --min-agreement agree.
"""

import argparse
import csv
import json
import re
import sys
import tomllib
from pathlib import Path

import lxml.etree
import lxml.html

# Elements Canopy drops before extraction (crates/dom): their text is not
# article text in either engine.
DROPPED = ["script", "style", "noscript", "template", "iframe", "object", "embed",
           "canvas", "svg", "math", "select", "datalist", "rt", "rp"]


# Canopy's default drop lists (configs/default.toml, [dom]): an element whose id or one
# of whose class tokens (but taxonomy tokens: tag-*, category-*) holds a drop_id_class
# string goes with its subtree (crates/dom `Document::parse`).
with open(Path(__file__).resolve().parent.parent / "configs" / "default.toml", "rb") as f:
    DOM = tomllib.load(f)["dom"]
DROP_ID_CLASS = [d.lower() for d in DOM["drop_id_class"]]
SECTION_ANCHORS = [d.lower() for d in DOM["section_anchors"]]


def names_role(name):
    return any(d in name.lower() for d in DROP_ID_CLASS)


def is_dropped_by_name(el):
    tokens = (el.get("class") or "").split()
    return names_role(el.get("id") or "") or any(
        names_role(t) for t in tokens if not t.lower().startswith(("tag-", "category-")))


def drop_like_canopy(root):
    drop_comment_sections(root)
    for el in list(root.iter(DROPPED)):
        el.drop_tree()
    for el in list(root.iter()):
        if not isinstance(el.tag, str) or el.getparent() is None or el.tag == "body":
            continue
        if is_dropped_by_name(el):
            el.drop_tree()


# Canopy's comment sections (crates/dom `comment_section_starts`): an empty
# <a> without href whose id or name holds a SECTION_ANCHORS string drops its
# heading or inline wrapper and every later sibling, text included.
SECTION_WRAPPERS = {"h1", "h2", "h3", "h4", "h5", "h6", "span", "b", "strong", "em", "font", "p"}


def drop_comment_sections(root):
    starts = []
    for a in root.iter("a"):
        if len(a) or a.text or a.get("href") is not None:
            continue
        names = [(a.get(k) or "").lower() for k in ("id", "name") if a.get(k) is not None]
        if not any(d in v for v in names for d in SECTION_ANCHORS):
            continue
        start = a
        while start.getparent() is not None and start.getparent().tag in SECTION_WRAPPERS:
            start = start.getparent()
        starts.append(start)
    for start in starts:
        parent = start.getparent()
        if parent is None:
            continue
        siblings = list(parent)
        if start not in siblings:
            continue  # already removed with an earlier section
        for sib in siblings[siblings.index(start):]:
            sib.tail = None
            parent.remove(sib)


def words(text):
    return re.findall(r"\w+", text.lower())


def bigrams(ws):
    return set(zip(ws, ws[1:])) if len(ws) > 1 else set(ws)


def f1(a, b):
    A, B = bigrams(words(a)), bigrams(words(b))
    if not A and not B:
        return 1.0
    if not A or not B:
        return 0.0
    i = len(A & B)
    return 2 * i / (len(A) + len(B))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--min-agreement", type=float, default=0.95)
    args = ap.parse_args()

    manifest = {r["record_id"]: r for r in csv.DictReader(open(f"{args.corpus}/manifest.tsv"), delimiter="\t")}
    checked = agreed = 0
    failures = []
    for line in open(f"{args.out}/articles.jsonl", encoding="utf-8"):
        art = json.loads(line)
        xpath = art.get("wrapper")
        if not xpath or art["record_id"] not in manifest:
            continue
        raw = open(f"{args.corpus}/{manifest[art['record_id']]['html']}", "rb").read()
        root = lxml.html.fromstring(raw)
        drop_like_canopy(root)
        nodes = root.xpath(xpath)
        lx_text = "\n".join(n.text_content() for n in nodes if isinstance(n, lxml.etree._Element))
        # Canopy's text starts with the title line, which the wrapper may not hold.
        canopy_text = art["text"]
        title = art.get("title") or ""
        if title and canopy_text.startswith(title):
            canopy_text = canopy_text[len(title):]
        score = f1(lx_text, canopy_text)
        checked += 1
        if score >= 0.9:
            agreed += 1
        else:
            failures.append((score, len(nodes), art["url"], xpath))
    share = agreed / checked if checked else 0.0
    print(f"{args.corpus}: {agreed}/{checked} wrapper-served pages agree with lxml ({share:.3f})")
    for score, n, url, xpath in sorted(failures)[:10]:
        print(f"  F1 {score:.2f} lxml matched {n}: {url} {xpath[:160]}")
    return 0 if checked and share >= args.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
