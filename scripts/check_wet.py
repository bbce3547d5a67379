#!/usr/bin/env python3
"""Read a WET file written by `canopy run --wet` with two independent WARC
readers, warcio and FastWARC, and check it against the run's articles.jsonl.

    python scripts/check_wet.py OUT/articles.warc.gz OUT/articles.jsonl

Checks, with each reader: the file starts with a `warcinfo` record, then holds
one `conversion` record per article, in the order of articles.jsonl, with
`WARC-Target-URI` = the article's url, `WARC-Refers-To` = its record_id,
`Content-Type: text/plain`, a valid `WARC-Block-Digest`, and a block equal to
the article's text. Needs `pip install warcio fastwarc`. Exits 1 on the first
difference, after printing it.
"""

import argparse
import json
import sys

from fastwarc.warc import ArchiveIterator as FastIterator
from warcio.archiveiterator import ArchiveIterator as WarcioIterator


def read_warcio(path):
    """(type, headers dict, block bytes) per record; digests checked by warcio."""
    out = []
    with open(path, "rb") as f:
        for record in WarcioIterator(f, check_digests="raise"):
            headers = dict(record.rec_headers.headers)
            out.append((record.rec_type, headers, record.content_stream().read()))
    return out


def read_fastwarc(path):
    """(type, headers dict, block bytes) per record; digests checked by FastWARC."""
    out = []
    for record in FastIterator(path, parse_http=False):
        if not record.verify_block_digest():
            raise ValueError(f"FastWARC: bad block digest in {record.record_id}")
        headers = dict(record.headers)
        block = record.reader.read()
        # str() of a WarcRecordType is its WARC-Type name ("conversion").
        out.append((str(record.record_type), headers, block))
    return out


def check(reader_name, records, articles):
    if not records or records[0][0] != "warcinfo":
        return f"{reader_name}: the first record is not warcinfo"
    conversions = records[1:]
    if len(conversions) != len(articles):
        return f"{reader_name}: {len(conversions)} conversion records for {len(articles)} articles"
    for i, ((kind, headers, block), article) in enumerate(zip(conversions, articles)):
        where = f"{reader_name}: record {i + 1} ({article['url']})"
        if kind != "conversion":
            return f"{where}: type {kind}"
        if headers.get("WARC-Target-URI") != article["url"]:
            return f"{where}: WARC-Target-URI {headers.get('WARC-Target-URI')!r}"
        if headers.get("WARC-Refers-To") != article["record_id"]:
            return f"{where}: WARC-Refers-To {headers.get('WARC-Refers-To')!r}"
        if headers.get("Content-Type") != "text/plain":
            return f"{where}: Content-Type {headers.get('Content-Type')!r}"
        if block.decode("utf-8") != article["text"]:
            return f"{where}: text differs from articles.jsonl"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wet")
    parser.add_argument("articles")
    args = parser.parse_args()
    with open(args.articles, encoding="utf-8") as f:
        articles = [json.loads(line) for line in f if line.strip()]
    for name, read in (("warcio", read_warcio), ("FastWARC", read_fastwarc)):
        try:
            records = read(args.wet)
        except Exception as e:  # any reader failure is a failed check
            print(f"{name}: cannot read {args.wet}: {e}", file=sys.stderr)
            return 1
        problem = check(name, records, articles)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        print(f"{name}: {len(records) - 1} conversion records match articles.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
