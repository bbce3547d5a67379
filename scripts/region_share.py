#!/usr/bin/env python3
"""How much of a wrapper-served page its wrapper's region is (a benchmark helper, not a test).

    region_share.py CORPUS_DIR OUT_DIR

For every article of OUT_DIR/articles.jsonl (a `canopy run` of CORPUS_DIR's WARC) extracted
by a wrapper (`method` "forest"), the page's raw HTML (CORPUS_DIR/manifest.tsv +
html/<id>.html, as scripts/bench_peers.py reads it) is parsed with lxml and the wrapper's
XPath evaluated on it; the region's size is the serialised size of the elements it selects.
Prints the share of the HTML bytes the regions hold, over all such pages and its median and
90th percentile per page: what a fragment parse of the region alone would parse
(docs/performance.md, "The parse wall"). lxml's tree is not Canopy's (Canopy drops scripts,
styles and hidden elements), so a wrapper that selects nothing in lxml is counted apart.
Needs lxml (the peers' venv has it: scripts/peers/.venv/bin/python).
"""

import csv
import json
import os
import sys

import lxml.etree
import lxml.html


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    with open(os.path.join(corpus, "manifest.tsv"), newline="", encoding="utf-8") as f:
        rows = {r["record_id"]: r for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}
    served = unmatched = 0
    page_bytes = region_bytes = 0
    shares = []
    with open(os.path.join(out, "articles.jsonl"), encoding="utf-8") as f:
        for line in f:
            article = json.loads(line)
            row = rows.get(article["record_id"])
            if row is None or article.get("method") != "forest" or not article.get("wrapper"):
                continue
            served += 1
            with open(os.path.join(corpus, row["html"]), "rb") as page:
                data = page.read()
            try:
                found = lxml.html.fromstring(data).xpath(article["wrapper"])
            except (lxml.etree.LxmlError, ValueError):
                found = []
            elements = [e for e in found if isinstance(e, lxml.etree._Element)]
            if not elements:
                unmatched += 1
                continue
            size = sum(len(lxml.etree.tostring(e, encoding="utf-8", with_tail=False)) for e in elements)
            page_bytes += len(data)
            region_bytes += size
            shares.append(size / len(data))
    shares.sort()
    if not shares:
        sys.exit("no wrapper-served page whose wrapper selects something in lxml")
    print(
        f"{corpus}: {served} wrapper-served pages, {unmatched} whose wrapper selects nothing in lxml; "
        f"region bytes {region_bytes / page_bytes:.3f} of the HTML, per page median "
        f"{shares[len(shares) // 2]:.3f}, 90th percentile {shares[int(len(shares) * 0.9)]:.3f}"
    )


if __name__ == "__main__":
    main()
