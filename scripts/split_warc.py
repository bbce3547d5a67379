#!/usr/bin/env python3
"""Splits gzipped WARC files into shards, record by record, for scale-out tests.

A `.warc.gz` written one gzip member per record (as crawlers and Common Crawl
write them) can be cut at member boundaries without recompressing: member i of
the input goes to shard i mod N. Records of one site thus land in several
shards, which is what a real crawl looks like to `canopy partition`.

    python3 scripts/split_warc.py --shards 4 --out DIR A.warc.gz [B.warc.gz ...]

writes DIR/<stem>-00000.warc.gz ... DIR/<stem>-00003.warc.gz for each input.
"""

import argparse
import sys
import zlib
from pathlib import Path


def members(data: bytes):
    """Yields the compressed bytes of each gzip member of `data`."""
    start = 0
    while start < len(data):
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        d.decompress(data[start:])
        if not d.eof:
            raise ValueError(f"truncated gzip member at byte {start}")
        end = len(data) - len(d.unused_data)
        yield data[start:end]
        start = end


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("inputs", nargs="+", type=Path)
    args = p.parse_args()
    if args.shards < 1:
        p.error("--shards must be at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.inputs:
        stem = path.name.removesuffix(".gz").removesuffix(".warc")
        shards = [bytearray() for _ in range(args.shards)]
        count = 0
        for i, member in enumerate(members(path.read_bytes())):
            shards[i % args.shards] += member
            count += 1
        for i, shard in enumerate(shards):
            (args.out / f"{stem}-{i:05d}.warc.gz").write_bytes(shard)
        print(f"{path}: {count} gzip members into {args.shards} shards", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
