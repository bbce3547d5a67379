#!/usr/bin/env python3
"""Copies seed inputs for the fuzz targets from ../shared/corpora into
crates/fuzz/corpus/<target>/ (gitignored; corpus data is never committed).

    python3 crates/fuzz/seed.py [CORPORA]   # default: <worktree>/../shared/corpora

warc: the small WARC/ARC files as they are, each ARC file also decoded, and the
      first 100 records of every WARC file on their own (plain), up to 64 KiB each
http: the HTTP block (status line, headers, body) of response records (100 a file)
dom:  the first 64 KiB of HTML pages from big9 and dragnet
site: a byte choosing one, two or three pages, then the first 64 KiB of an HTML
      page from trafbench, big9 or dragnet
feed: every feed file (RSS, Atom, JSON Feed) under 256 KiB
Besides, generated seeds for paths the corpora do not reach (generated()):
http: a page in UTF-16LE/BE and UTF-32LE/BE, declared in the header or by a
      BOM, and a feed response served by another site than its items';
feed: item text of entities, scripts and comments.
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


def generated():
    """(target, seed) pairs for charsets and feed text the corpora lack."""
    page = "<!DOCTYPE html><html><head><title>Größe</title></head><body><p>café 日本語 😀</p></body></html>"
    for label, codec, bom in [
        ("utf-16le", "utf-16-le", False), ("utf-16be", "utf-16-be", False),
        ("utf-16", "utf-16-le", True), ("utf-16", "utf-16-be", True),
        ("utf-32", "utf-32-le", False), ("utf-32be", "utf-32-be", False),
        (None, "utf-32-le", True), (None, "utf-32-be", True),
    ]:
        body = ("\ufeff" + page if bom else page).encode(codec)
        charset = f"; charset={label}" if label else ""
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html{charset}\r\n\r\n".encode()
        yield "http", head + body
    items = "".join(
        f"<item><title>t{i} &amp;&#38;&#x26;&lt;script&gt;x&lt;/script&gt;</title>"
        f"<link>http://other.example/{i}</link>"
        f"<description><![CDATA[<SCRIPT>a</script><style>b</style><!-- c -->&amp &nbsp;d]]></description></item>"
        for i in range(3)
    )
    feed = f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{items}</channel></rss>'.encode()
    yield "feed", feed
    yield "http", b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n" + feed


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
        if re.search(r"\.arc(\.gz)?$", path.name) and len(data) <= SMALL:
            # The ARC decoded, so that mutations reach its header lines.
            save("warc", data)
            counts["warc"] += 1
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
    site = 0
    for name, n in (("trafbench", 150), ("big9", 50), ("dragnet", 50)):
        pages = sorted((CORPORA / name / "html").rglob("*"))
        for path in [p for p in pages if p.is_file()][:n]:
            save("site", bytes([site % 3]) + path.read_bytes()[:SMALL])
            counts["site"] = counts.get("site", 0) + 1
            site += 1
    for path in sorted(CORPORA.rglob("*")):
        if path.is_file() and "feeds" in path.parts and path.stat().st_size <= 256 << 10:
            save("feed", path.read_bytes())
            counts["feed"] = counts.get("feed", 0) + 1
    for target, data in generated():
        save(target, data)
        counts[target] = counts.get(target, 0) + 1
    for target, n in sorted(counts.items()):
        print(f"{target}: {n} seeds -> {OUT / target}")


if __name__ == "__main__":
    main()
