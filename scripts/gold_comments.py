#!/usr/bin/env python3
"""Diagnostic: how much dragnet's gold files that include reader comments weigh.

The corpus README says dragnet's gold excludes user comments, but some gold files go on
after Dragnet's "!@#$%^&*() COMMENTS" marker with the comments themselves. This scores a
run's articles.jsonl twice with the reference scorer (score_ref.py): against the gold as
it is (the official figure) and with those files cut at the marker. A diagnostic only:
the evaluation (docs/evaluation.md) keeps the gold as it is.

Usage: scripts/gold_comments.py CORPUS_DIR RUN_DIR
   (CORPUS_DIR: ../shared/corpora/dragnet; RUN_DIR: the --out folder of canopy run)
"""
import collections
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "peers"))
import score_ref  # noqa: E402

MARKER = "&*() COMMENTS"


def main():
    corpus, run = sys.argv[1], sys.argv[2]
    with open(os.path.join(corpus, "manifest.tsv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    texts = {}
    with open(os.path.join(run, "articles.jsonl"), encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            texts[a["record_id"]] = a["text"]
    pages = collections.Counter(r["site"] for r in rows)
    scores = {"gold as is": ([], []), "comments cut": ([], [])}
    cut_ids = []
    for r in rows:
        with open(os.path.join(corpus, r["gold"]), encoding="utf-8") as f:
            gold = f.read()
        at = gold.find(MARKER)
        cut = gold if at < 0 else gold[: gold.rfind("\n", 0, at) + 1]
        if at >= 0:
            cut_ids.append(r["id"])
        for name, g in (("gold as is", gold), ("comments cut", cut)):
            f1 = score_ref.score(texts.get(r["record_id"], ""), g)[0][2]
            scores[name][0].append(f1)
            if pages[r["site"]] >= 5:
                scores[name][1].append(f1)
    print("gold files with the comments marker:", len(cut_ids), " ".join(cut_ids))
    for name, (every, big) in scores.items():
        print(f"{name}: all {sum(every) / len(every):.4f} ({len(every)} pages), "
              f"sites with >= 5 pages {sum(big) / len(big):.4f} ({len(big)} pages)")


if __name__ == "__main__":
    main()
