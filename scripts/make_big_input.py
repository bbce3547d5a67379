#!/usr/bin/env python3
"""Writes a large WARC input for the memory benchmark (scripts/bench_memory.sh).

    python3 scripts/make_big_input.py OUT_DIR SIZE_MB [--one-site HOST] [WARC...]

Repeats the dev WARCs (default: ../shared/corpora/big9/big9.warc.gz and
../shared/corpora/dragnet/dragnet.warc.gz) until OUT_DIR holds at least
SIZE_MB megabytes (10^6 bytes) of .warc.gz files. Copy N is written as
OUT_DIR/copy-NNNNN-<name>.warc.gz with every WARC-Target-URI's host prefixed
by "cN-" (http://www.bbc.co.uk/x -> http://cN-www.bbc.co.uk/x), so that each
copy is a new set of sites: sites multiply, pages per site do not. With
--one-site HOST, every page becomes a page of the one site HOST instead
(http://www.bbc.co.uk/x -> http://HOST/cN/www.bbc.co.uk/x): a site as large
as the input, its templates those of all the copied sites. Only that header
line changes, so every record's Content-Length stays right.

Speed: the text between two WARC-Target-URI lines is compressed once, as its
own gzip member, and every copy concatenates those members with a small
member for each rewritten URI line. A file of concatenated gzip members is
one gzip stream (RFC 1952 §2.2), so readers see the same bytes as if the
copy had been compressed whole; making 2 GB takes seconds, not half an hour.
"""
import argparse
import gzip
import os
import re
import zlib

URI = re.compile(rb"^WARC-Target-URI:[ \t]*<?[A-Za-z][A-Za-z0-9+.-]*://", re.M)


def member(data: bytes, level: int = 6) -> bytes:
    comp = zlib.compressobj(level, zlib.DEFLATED, 31)  # wbits 31: gzip container
    return comp.compress(data) + comp.flush()


def split(raw: bytes):
    """The text between URI lines, compressed, and the URI line heads."""
    static, heads, start = [], [], 0
    for m in URI.finditer(raw):
        static.append(member(raw[start : m.start()]))
        heads.append(m.group(0))
        start = m.end()
    static.append(member(raw[start:]))
    return static, heads


def main() -> None:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out_dir")
    parser.add_argument("size_mb", type=float)
    parser.add_argument("--one-site", metavar="HOST", help="every page a page of this one site")
    parser.add_argument(
        "warcs",
        nargs="*",
        metavar="WARC",
        default=[
            os.path.join(root, "../shared/corpora/big9/big9.warc.gz"),
            os.path.join(root, "../shared/corpora/dragnet/dragnet.warc.gz"),
        ],
    )
    # Intermixed: the usage puts --one-site between the sizes and the WARCs.
    args = parser.parse_intermixed_args()
    out_dir, size_mb, warcs = args.out_dir, args.size_mb, args.warcs
    one_site = args.one_site.encode() if args.one_site else None
    os.makedirs(out_dir, exist_ok=True)
    sources = []
    for path in warcs:
        with gzip.open(path, "rb") as f:
            raw = f.read()
        name = os.path.basename(path).split(".")[0]
        sources.append((name, split(raw)))
    target = size_mb * 1e6
    total, copy = 0, 0
    while total < target:
        for name, (static, heads) in sources:
            prefix = one_site + b"/c%d/" % copy if one_site else b"c%d-" % copy
            path = os.path.join(out_dir, "copy-%05d-%s.warc.gz" % (copy, name))
            with open(path, "wb") as f:
                for i, head in enumerate(heads):
                    f.write(static[i])
                    f.write(member(head + prefix, 1))
                f.write(static[-1])
                total += f.tell()
        copy += 1
    print(f"{out_dir}: {copy} copies, {total / 1e6:.0f} MB in {copy * len(sources)} files")


if __name__ == "__main__":
    main()
