#!/usr/bin/env python3
"""Python `canopy.extract` against the command line, per page, one thread
(docs/python.md, "Overhead").

    RAYON_NUM_THREADS=1 target/py-venv/bin/python scripts/bench_python.py \
        --canopy target/release/canopy ../shared/corpora/dragnet

CLI: `canopy run CORPUS.warc.gz --method page --threads 1` wall time over
the corpus's pages (reading, charset decoding, extraction and writing
included). Python: `canopy.extract(html_bytes, url=url)` over the same
pages' original bytes (html/*.html, read into memory first), timed as one
loop. Best of --repeat for each.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import canopy


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--canopy", required=True, help="the canopy binary")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("corpus", help="a corpus folder with manifest.tsv, html/ and CORPUS.warc.gz")
    args = p.parse_args()
    corpus = Path(args.corpus)
    with open(corpus / "manifest.tsv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    pages = [((corpus / r["html"]).read_bytes(), r["url"]) for r in rows]
    n = len(pages)

    cli = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            proc = subprocess.run(
                [args.canopy, "run", str(corpus / f"{corpus.name}.warc.gz"), "--method", "page",
                 "--threads", "1", "--out", os.path.join(tmp, "out")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            cli.append(time.perf_counter() - t0)
            assert proc.returncode in (0, 1), proc.returncode

    canopy.extract(pages[0][0], url=pages[0][1], method="page")  # settings parsed once, outside the timing
    py = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for html, url in pages:
            try:
                canopy.extract(html, url=url, method="page")
            except canopy.CanopyError:
                pass
        py.append(time.perf_counter() - t0)

    c, q = min(cli) / n * 1000, min(py) / n * 1000
    print(f"{n} pages; CLI {c:.2f} ms/page (best {min(cli):.2f} s); "
          f"Python extract {q:.2f} ms/page (best {min(py):.2f} s); overhead {100 * (q / c - 1):+.1f} %")
    print(f"RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'unset')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
