#!/usr/bin/env python3
"""Writes a smaller evaluation corpus: the first N pages of every template group.

Usage: python3 scripts/subset_corpus.py SRC_DIR OUT_DIR N

SRC_DIR is a corpus folder as `canopy eval --corpus` reads it (manifest.tsv,
gold/, one <name>.warc.gz). OUT_DIR gets the same layout with the first N pages
(in manifest order) of each (site, group), groups with fewer than N pages left
out, and the WARC's warcinfo and its records for those pages' URLs (gzip
members copied as they are). With N = 2 every wrapper is learned from two pages,
as on a crawl of small sites (issue #36, class 1):

    python3 scripts/subset_corpus.py ../shared/corpora/big9 /tmp/big9x2 2
    canopy eval --corpus /tmp/big9x2 --method forest --method page --out /tmp/ev

OUT_DIR holds copies of research data: keep it out of the repository.
"""

import collections
import shutil
import sys
import zlib
from pathlib import Path

from split_warc import members

# Bytes of a member inflated to read its WARC header (headers are a few
# hundred bytes; a WARC header line longer than this is not a subset's
# concern).
HEADER_BYTES = 16384


def warc_header(member):
    """The WARC-Type and WARC-Target-URI of one gzip member's record."""
    start = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(member, HEADER_BYTES)
    head = start.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace")
    fields = {}
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return fields.get("warc-type"), fields.get("warc-target-uri")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, out, per = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    lines = (src / "manifest.tsv").read_text(encoding="utf-8").rstrip("\n").split("\n")
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:]]
    site, group, url = header.index("site"), header.index("group"), header.index("url")
    taken = collections.Counter()
    keep = []
    for row in rows:
        key = (row[site], row[group])
        if taken[key] < per:
            taken[key] += 1
            keep.append(row)
    keep = [row for row in keep if taken[(row[site], row[group])] == per]
    (out / "gold").mkdir(parents=True, exist_ok=True)
    with open(out / "manifest.tsv", "w", encoding="utf-8") as manifest:
        manifest.write(lines[0] + "\n")
        for row in keep:
            manifest.write("\t".join(row) + "\n")
            shutil.copy(src / "gold" / f"{row[0]}.txt", out / "gold")
    (warc,) = sorted(src.glob("*.warc.gz"))
    urls = {row[url] for row in keep}
    records = 0
    with open(out / warc.name, "wb") as written:
        for member in members(warc.read_bytes()):
            kind, uri = warc_header(member)
            if kind == "warcinfo" or uri in urls:
                written.write(member)
                records += 1
    groups = len(keep) // per if per else 0
    print(f"{len(keep)} pages of {groups} groups, {records} records -> {out}")


if __name__ == "__main__":
    main()
