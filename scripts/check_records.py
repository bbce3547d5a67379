#!/usr/bin/env python3
"""Record accounting checked with an independent WARC reader (warcio).

For every WARC file given (folders are searched), and for damaged WARC
files generated here (a Content-Length too long or too short, a gzip
member that is not a WARC record, junk before, between and after records;
each plain, gzipped per record and gzipped whole), runs `canopy run` on it
alone and checks:

- canopy's own figures add up: its summary's "N records read: A articles,
  F feeds, V revisits, S skipped (D duplicates), R rejected" has N = A + F
  + V + S + R (S counts the duplicates),
  and A, D and R are the lines of articles.jsonl, duplicates.jsonl and
  rejects.jsonl;
- every record warcio reads (until it gives up, as it does on damaged
  files) is accounted for: an HTML response or resource with a 2xx status
  and a body is an article, a duplicate or a reject (by WARC-Record-ID),
  and the other
  records warcio reads are no more than canopy's feeds, revisits and skips;
- in the generated files, every good record is an article.

Usage: check_records.py --canopy target/release/canopy PATH...
"""

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import uuid

from warcio.archiveiterator import ArchiveIterator

SUMMARY = re.compile(
    r"(\d+) records read: (\d+) articles, (\d+) feeds, (\d+) revisits, "
    r"(\d+) skipped \((\d+) duplicates\), (\d+) rejected"
)
WARC_NAMES = (".warc", ".warc.gz", ".arc", ".arc.gz")


def run_canopy(canopy, path, out):
    proc = subprocess.run(
        [canopy, "run", path, "--out", out], capture_output=True, text=True
    )
    if proc.returncode not in (0, 1):
        sys.exit(f"{path}: canopy exited {proc.returncode}: {proc.stderr}")
    found = SUMMARY.search(proc.stderr)
    if not found:
        sys.exit(f"{path}: no records line in canopy's summary: {proc.stderr}")
    records, articles, feeds, revisits, skipped, duplicates, rejected = map(
        int, found.groups()
    )

    def lines(name):
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    got_articles, got_rejects = lines("articles.jsonl"), lines("rejects.jsonl")
    got_duplicates = lines("duplicates.jsonl")
    problems = []
    if records != articles + feeds + revisits + skipped + rejected:
        problems.append(f"figures do not add up: {found.group(0)}")
    if articles != len(got_articles) or rejected != len(got_rejects):
        problems.append(
            f"{articles} articles and {rejected} rejects counted, "
            f"{len(got_articles)} and {len(got_rejects)} written"
        )
    if duplicates != len(got_duplicates):
        problems.append(
            f"{duplicates} duplicates counted, {len(got_duplicates)} listed"
        )
    arc = path.endswith((".arc", ".arc.gz"))
    key = "url" if arc else "record_id"
    # A page left out as a duplicate of another is accounted as the
    # article it duplicates.
    ids = {a[key] for a in got_articles} | {d[key] for d in got_duplicates}
    rejected_ids = {r[key] for r in got_rejects if r.get(key)}
    return problems, ids, rejected_ids, feeds + revisits + skipped - duplicates


def warcio_records(path):
    """(record id, whether canopy must make it an article or a reject) for
    every record warcio reads before it stops."""
    seen = []
    try:
        with open(path, "rb") as f:
            for record in ArchiveIterator(f, arc2warc=True):
                rid = record.rec_headers.get_header("WARC-Record-ID")
                if path.endswith((".arc", ".arc.gz")):
                    # ARC records have no id (warcio makes one up): the URL.
                    rid = record.rec_headers.get_header("WARC-Target-URI")
                wanted = False
                if record.rec_type in ("response", "resource"):
                    status = 200
                    ctype = record.rec_headers.get_header("Content-Type") or ""
                    if record.http_headers is not None:
                        ctype = record.http_headers.get_header("Content-Type") or ""
                        try:
                            status = int(record.http_headers.get_statuscode())
                        except (TypeError, ValueError):
                            status = 0
                    body = record.content_stream().read()
                    wanted = (
                        "html" in ctype.lower()
                        and 200 <= status < 300
                        and body.strip() != b""
                    )
                seen.append((rid, wanted))
    except Exception:  # warcio stops at damage canopy reads past
        pass
    return seen


def check(canopy, path, good_ids=()):
    with tempfile.TemporaryDirectory() as tmp:
        problems, ids, rejected_ids, others = run_canopy(canopy, path, tmp)
    seen = warcio_records(path)
    unaccounted = [
        rid for rid, wanted in seen if wanted and rid not in ids and rid not in rejected_ids
    ]
    if unaccounted:
        problems.append(f"records warcio reads that canopy lost: {unaccounted[:5]}")
    not_wanted = sum(1 for rid, wanted in seen if not wanted and rid not in ids | rejected_ids)
    if not_wanted > others:
        problems.append(
            f"warcio reads {not_wanted} records that are no article nor reject; "
            f"canopy counts {others} feeds, revisits and skips"
        )
    lost = [rid for rid in good_ids if rid not in ids]
    if lost:
        problems.append(f"good records that are no article: {lost}")
    return problems, len(seen)


def page(n):
    body = "".join(f"<p>Sentence {k} of page {n}, long enough to be an article.</p>" for k in range(12))
    return f"<html><head><title>Page {n}</title></head><body><article><h1>Page {n}</h1>{body}</article></body></html>".encode()


def record(n, length_off=0, version=b"WARC/1.0"):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + page(n)
    rid = f"<urn:uuid:{uuid.UUID(int=n)}>"
    head = version + (
        f"\r\nWARC-Type: response\r\nWARC-Target-URI: http://site{n}.example/p{n}\r\n"
        f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: {rid}\r\n"
        f"Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http) + length_off}\r\n\r\n"
    ).encode()
    return rid, head + http + b"\r\n\r\n"


def damaged_files(folder):
    """(path, ids of the good records) of each generated damaged file."""
    http_alone = (None, b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + page(90) + b"\r\n\r\n")
    # Each case: its records, the one damaged (not expected as an article).
    cases = {
        "long": ([record(1), record(2, 600), record(3), record(4)], 2),
        "long-by-a-few": ([record(1), record(2, 7), record(3)], 2),
        "long-to-the-end": ([record(1), record(2, 10**9), record(3)], 2),
        "short": ([record(1), record(2, -50), record(3)], None),
        "http-alone": ([record(1), http_alone, record(3)], None),
        "warc-2.0": ([record(1), record(2, version=b"WARC/2.0"), record(3)], 2),
        "lower-case": ([record(1), record(2, version=b"warc/1.0"), record(3)], 2),
        "junk-first": ([http_alone, record(1), record(3)], None),
        "junk-last": ([record(1), record(3), (None, b"trailing junk\r\n")], None),
    }
    for name, (recs, damaged) in cases.items():
        bad = f"<urn:uuid:{uuid.UUID(int=damaged)}>" if damaged else None
        good = [rid for rid, _ in recs if rid and rid != bad]
        blobs = [blob for _, blob in recs]
        for layout, data in (
            ("warc", b"".join(blobs)),
            ("member-per-record.warc.gz", b"".join(gzip.compress(b) for b in blobs)),
            ("one-member.warc.gz", gzip.compress(b"".join(blobs))),
        ):
            path = os.path.join(folder, f"{name}.{layout}")
            with open(path, "wb") as f:
                f.write(data)
            yield path, good


def warc_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.endswith(WARC_NAMES):
                        yield os.path.join(root, name)
        else:
            yield path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--canopy", required=True)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    failures, files, records = 0, 0, 0
    with tempfile.TemporaryDirectory() as gen:
        todo = [(p, ()) for p in warc_files(args.paths)] + list(damaged_files(gen))
        for path, good in todo:
            problems, seen = check(args.canopy, path, good)
            files += 1
            records += seen
            for problem in problems:
                failures += 1
                print(f"FAIL {path}: {problem}")
    print(f"check_records: {files} files, {records} records read by warcio, {failures} problems")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
