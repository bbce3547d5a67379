#!/usr/bin/env python3
"""Copies seed inputs for the fuzz targets from ../shared/corpora into
crates/fuzz/corpus/<target>/ (gitignored; corpus data is never committed).

    python3 crates/fuzz/seed.py [CORPORA]   # default: <worktree>/../shared/corpora

warc: the small WARC/ARC files as they are, and the first 100 records of every
      WARC file on their own (plain), up to 64 KiB each
http: the HTTP block (status line, headers, body) of response records (100 a file)
dom:  the first 64 KiB of HTML pages from big9 and dragnet
feed: every feed file (RSS, Atom, JSON Feed) under 256 KiB
"""
import gzip
import hashlib
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
CORPORA = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared" / "corpora"
OUT = HERE / "corpus"
SMALL = 64 << 10


def save(target, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def read_maybe_gzip(path):
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError):
            return None  # truncated: kept whole as a warc seed only
    return raw


def records(data):
    """(header, block) of each WARC record; stops at the first broken one."""
    pos = 0
    while True:
        start = data.find(b"WARC/1.", pos)
        if start < 0:
            return
        m = re.compile(rb"\r?\n\r?\n").search(data, start)
        if not m:
            return
        header = data[start:m.start()]
        length = re.search(rb"(?im)^content-length:\s*(\d+)", header)
        if not length:
            return
        end = m.end() + int(length.group(1))
        yield data[start:end + 4], header, data[m.end():end]
        pos = end


def main():
    counts = {}
    warcs = sorted(p for p in CORPORA.rglob("*") if p.is_file() and re.search(r"\.w?arc(\.gz)?$", p.name))
    for path in warcs:
        if path.stat().st_size <= 1 << 20:
            save("warc", path.read_bytes())
            counts["warc"] = counts.get("warc", 0) + 1
        data = read_maybe_gzip(path)
        if data is None:
            continue
        http = kept = 0
        for record, header, block in records(data):
            if len(record) <= SMALL and kept < 100:
                kept += 1
                save("warc", record)
                counts["warc"] = counts.get("warc", 0) + 1
            if b"msgtype=response" in header and len(block) <= SMALL and http < 100:
                save("http", block)
                counts["http"] = counts.get("http", 0) + 1
                http += 1
    for name in ("big9", "dragnet"):
        pages = sorted((CORPORA / name / "html").rglob("*"))
        for path in [p for p in pages if p.is_file()][:150]:
            save("dom", path.read_bytes()[:SMALL])
            counts["dom"] = counts.get("dom", 0) + 1
    for path in sorted(CORPORA.rglob("*")):
        if path.is_file() and "feeds" in path.parts and path.stat().st_size <= 256 << 10:
            save("feed", path.read_bytes())
            counts["feed"] = counts.get("feed", 0) + 1
    for target, n in sorted(counts.items()):
        print(f"{target}: {n} seeds -> {OUT / target}")


if __name__ == "__main__":
    main()
