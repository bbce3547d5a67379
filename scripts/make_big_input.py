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
import gzip
import os
import re
import sys
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
    args = sys.argv[1:]
    one_site = None
    if "--one-site" in args:
        at = args.index("--one-site")
        if at + 1 >= len(args):
            sys.exit(__doc__)
        one_site = args[at + 1].encode()
        del args[at : at + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    out_dir, size_mb = args[0], float(args[1])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    warcs = args[2:] or [
        os.path.join(root, "../shared/corpora/big9/big9.warc.gz"),
        os.path.join(root, "../shared/corpora/dragnet/dragnet.warc.gz"),
    ]
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
