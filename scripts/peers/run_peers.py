#!/usr/bin/env python3
"""Run peer main-content extractors over an evaluation corpus, one core, sequentially.

Usage (after `bash scripts/peers/setup.sh`):

    scripts/peers/.venv/bin/python scripts/peers/run_peers.py \
        --corpus ../shared/corpora/big9 --out /tmp/peers/big9 [--tools trafilatura,justext]

Reads CORPUS/manifest.tsv (columns id, ..., html, gold, ...) and runs every selected tool
over every page's raw HTML bytes (CORPUS/<html column>; a manifest without an `html` column,
such as trafbench's, has its pages at CORPUS/html/<id>.html). Writes

    OUT/<tool>/<id>.txt      extracted text, UTF-8 (an empty file when the tool failed or
                             returned nothing; failures are counted in timing.json)
    OUT/<tool>/timing.json   {"tool", "version", "pages", "seconds", "pages_per_s",
                              "errors", "empty", "error_ids", "cpu"}

`seconds` is the sum of wall-clock time spent inside the tool's extraction call(s) for each
page (file reading and writing excluded). Tools are independent: an exception or a per-page
timeout (--timeout, default 120 s) on one page leaves that page's file empty and the run
goes on.

How each tool is called (raw bytes wherever the tool accepts bytes, so it sniffs the
charset itself):

- trafilatura:  trafilatura.extract(bytes, include_comments=False), other options default.
- resiliparse:  HTMLTree.parse_from_bytes(bytes, detect_encoding(bytes)), then
                extract_plain_text(tree, main_content=True).
- readability:  readability.Document(bytes).summary(), then the text of that HTML with
                block-level elements separated by newlines.
- boilerpy3:    extractors.ArticleExtractor().get_content(str). boilerpy3 takes only str,
                so the bytes are decoded with resiliparse's detect_encoding/bytes_to_str.
- justext:      justext.justext(bytes, get_stoplist("English")), the paragraphs that are
                not boilerplate, one a line.

One core: thread-count variables are set to 1 before any import, and the process is pinned
to one CPU (--cpu, default the lowest CPU this process may run on).
"""

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "RAYON_NUM_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from importlib.metadata import PackageNotFoundError, version  # noqa: E402

ALL_TOOLS = ["trafilatura", "resiliparse", "readability", "boilerpy3", "justext"]

DIST_NAME = {
    "trafilatura": "trafilatura",
    "resiliparse": "resiliparse",
    "readability": "readability-lxml",
    "boilerpy3": "boilerpy3",
    "justext": "justext",
}

# Elements after which readability's summary HTML gets a line break.
BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "div", "dl", "dt",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody", "td", "th",
    "thead", "tfoot", "tr", "ul", "body", "html",
}


def decode_bytes(data):
    """Bytes to str with resiliparse's charset detection (for tools that need str)."""
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding

    return bytes_to_str(data, detect_encoding(data))


def html_to_block_text(html):
    """Text of an HTML fragment, block-level elements separated by newlines."""
    import lxml.html

    if not html or not html.strip():
        return ""
    root = lxml.html.fromstring(html)
    parts = []
    brk = "\x00"  # block boundary; source newlines are ordinary whitespace in HTML

    def walk(el):
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in ("script", "style"):
            if el.tail:
                parts.append(el.tail)
            return
        block = tag.lower() in BLOCK_TAGS
        if block:
            parts.append(brk)
        if el.text and isinstance(el.tag, str):
            parts.append(el.text)
        for child in el:
            walk(child)
        if block:
            parts.append(brk)
        if el.tail:
            parts.append(el.tail)

    walk(root)
    lines = (" ".join(line.split()) for line in "".join(parts).split(brk))
    return "\n".join(line for line in lines if line)


def make_extractor(tool):
    """Returns a function bytes -> str for the tool (imports happen here, untimed)."""
    if tool == "trafilatura":
        import trafilatura

        def run(data):
            return trafilatura.extract(data, include_comments=False) or ""

        return run
    if tool == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import detect_encoding
        from resiliparse.parse.html import HTMLTree

        def run(data):
            tree = HTMLTree.parse_from_bytes(data, detect_encoding(data))
            return extract_plain_text(tree, main_content=True) or ""

        return run
    if tool == "readability":
        from readability import Document

        def run(data):
            return html_to_block_text(Document(data).summary())

        return run
    if tool == "boilerpy3":
        from boilerpy3 import extractors

        extractor = extractors.ArticleExtractor()

        def run(data):
            return extractor.get_content(decode_bytes(data)) or ""

        return run
    if tool == "justext":
        import justext

        stoplist = justext.get_stoplist("English")

        def run(data):
            paragraphs = justext.justext(data, stoplist)
            return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

        return run
    raise ValueError(f"unknown tool {tool!r}; known: {', '.join(ALL_TOOLS)}")


class PageTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise PageTimeout()


def read_manifest(corpus):
    with open(os.path.join(corpus, "manifest.tsv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def run_tool(tool, corpus, rows, out, timeout):
    tool_dir = os.path.join(out, tool)
    os.makedirs(tool_dir, exist_ok=True)
    extract = make_extractor(tool)
    try:
        tool_version = version(DIST_NAME[tool])
    except PackageNotFoundError:
        tool_version = None
    seconds = 0.0
    errors = []
    empty = 0
    for row in rows:
        page_id = row["id"]
        html_path = row["html"] if "html" in row else os.path.join("html", page_id + ".html")
        with open(os.path.join(corpus, html_path), "rb") as f:
            data = f.read()
        text = ""
        signal.alarm(timeout)
        start = time.perf_counter()
        try:
            text = extract(data)
        except BaseException as err:  # noqa: BLE001 - any failure is one failed page
            if isinstance(err, KeyboardInterrupt):
                raise
            errors.append(page_id)
            kind = "timeout" if isinstance(err, PageTimeout) else type(err).__name__
            print(f"{tool}: {page_id}: {kind}: {err}", file=sys.stderr)
            text = ""
        finally:
            seconds += time.perf_counter() - start
            signal.alarm(0)
        if not text.strip():
            empty += 1
        with open(os.path.join(tool_dir, page_id + ".txt"), "w", encoding="utf-8") as f:
            f.write(text)
    timing = {
        "tool": tool,
        "package": DIST_NAME[tool],
        "version": tool_version,
        "corpus": os.path.abspath(corpus),
        "pages": len(rows),
        "seconds": round(seconds, 3),
        "pages_per_s": round(len(rows) / seconds, 2) if seconds > 0 else None,
        "errors": len(errors),
        "empty": empty,
        "error_ids": errors,
        "cpu": sorted(os.sched_getaffinity(0)),
        "python": sys.version.split()[0],
    }
    with open(os.path.join(tool_dir, "timing.json"), "w", encoding="utf-8") as f:
        json.dump(timing, f, indent=2)
        f.write("\n")
    return timing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True, help="corpus folder with manifest.tsv")
    ap.add_argument("--out", required=True, help="output folder (OUT/<tool>/<id>.txt)")
    ap.add_argument("--tools", default=",".join(ALL_TOOLS), help="comma-separated subset")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per page per tool")
    ap.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default lowest)")
    ap.add_argument("--limit", type=int, default=None, help="first N pages only")
    args = ap.parse_args()

    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    for t in tools:
        if t not in ALL_TOOLS:
            ap.error(f"unknown tool {t!r}; known: {', '.join(ALL_TOOLS)}")
    cpu = args.cpu if args.cpu is not None else min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    signal.signal(signal.SIGALRM, _on_alarm)

    rows = read_manifest(args.corpus)
    if args.limit is not None:
        rows = rows[: args.limit]
    for tool in tools:
        try:
            timing = run_tool(tool, args.corpus, rows, args.out, args.timeout)
        except Exception as err:  # noqa: BLE001 - e.g. the tool is not installed
            print(f"{tool}: could not run: {type(err).__name__}: {err}", file=sys.stderr)
            continue
        print(
            f"{tool} {timing['version']}: {timing['pages']} pages, {timing['seconds']:.1f} s, "
            f"{timing['pages_per_s']} pages/s, {timing['errors']} errors, "
            f"{timing['empty']} empty",
            flush=True,
        )


if __name__ == "__main__":
    main()
