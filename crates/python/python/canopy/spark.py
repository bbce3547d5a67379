"""Canopy on Spark, in process: a PySpark job that reads WARC files with
:func:`canopy.read_warc`, repartitions the pages by :func:`canopy.site_key`
and extracts each partition's sites with :func:`canopy.extract_site`, in
the Python workers (no ``canopy`` binary, no shared work folder).

    python -m canopy.spark --master 'local[2]' --out OUT CRAWL/*.warc.gz
    spark-submit scripts/spark/canopy_spark_inprocess.py --out OUT ...

OUT gets ``articles.jsonl``, ``wrappers.jsonl`` and ``summary.csv`` (the
records of ``canopy run``'s files of the same name, in its order),
``rejects.jsonl`` and ``duplicates.jsonl``. Every executor needs the ``canopy`` package
(``pip install ./crates/python``); the input paths must be readable from
every executor. Feed files are not read: pages are extracted with tf-idf
signifiers (the default ``signifiers.source``).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from typing import Any, Dict, Iterable, Iterator, List, Tuple

import canopy

# The key of a reading reject in the shuffle: no site's key is empty.
_NO_SITE = ""


def _line(record: Dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# The columns of summary.csv, in canopy run's order.
SUMMARY_COLUMNS = ("site", "cluster", "pages", "wrapper_matches", "fallbacks", "wrapper", "check")


def _csv_row(values: Iterable[Any]) -> str:
    """One CSV line as canopy run writes it (quoted only where needed, no
    line terminator)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(values)
    return buffer.getvalue()


def read_file(indexed: Tuple[int, str], settings: Dict[str, Any]) -> Iterator[Tuple[str, Tuple]]:
    """(site key, (position, record)) for each page and reject of one
    input file; position = (file index, offset) orders a site's pages as
    one reader of the whole input would see them."""
    index, path = indexed
    for seq, record in enumerate(canopy.read_warc(path, **settings)):
        kind = record["kind"]
        if kind == "page":
            yield canopy.site_key(record["url"]), ((index, seq), record)
        elif kind == "reject":
            yield _NO_SITE, ((index, seq), record)


def extract_partition(
    items: Iterable[Tuple[str, Tuple]], settings: Dict[str, Any]
) -> Iterator[Tuple[Tuple, str]]:
    """Extracts every site of one partition; yields ((output, sort key),
    JSON line) for the output files."""
    sites: Dict[str, List[Tuple]] = {}
    for site, item in items:
        sites.setdefault(site, []).append(item)
    for site in sorted(sites):
        records = [record for _, record in sorted(sites.pop(site), key=lambda i: i[0])]
        if site == _NO_SITE:
            for r in records:
                yield ("rejects", _reject_key(r)), _line({k: v for k, v in r.items() if k != "kind"})
            continue
        try:
            result = canopy.extract_site(records, **settings)
        except canopy.CanopyError as e:
            # The site's pages become rejects with the reason; the job goes on.
            for r in records:
                reject = {"source": r["source"], "record_id": r["record_id"], "url": r["url"],
                          "stage": "extract", "reason": e.reason}
                yield ("rejects", _reject_key(reject)), _line(reject)
            continue
        for name in ("articles", "wrappers", "duplicates"):
            for i, record in enumerate(getattr(result, name)):
                yield (name, (site, i)), _line(record)
        for i, row in enumerate(result.summary):
            yield ("summary", (site, i)), _csv_row(row[c] for c in SUMMARY_COLUMNS)
        for r in result.rejects:
            yield ("rejects", _reject_key(r)), _line(r)


def _reject_key(r: Dict[str, Any]) -> Tuple:
    # canopy run's order of rejects: (file, offset, record id, reason).
    source = r.get("source") or {}
    offset = source.get("offset")
    return (source.get("file") or "", -1 if offset is None else offset, r.get("record_id") or "", r["reason"])


def run_job(sc: Any, inputs: List[str], out: str, partitions: int = 0, **settings: Any) -> Dict[str, int]:
    """Runs the job on SparkContext ``sc``; writes OUT's files and returns
    their line counts."""
    canopy.check_settings(**settings)
    files = sorted(inputs)
    partitions = partitions or max(sc.defaultParallelism, 1)
    records = sc.parallelize(list(enumerate(files)), max(len(files), 1)).flatMap(
        lambda f: read_file(f, settings)
    )
    lines = (
        records.partitionBy(partitions, canopy_partition)
        .mapPartitions(lambda items: extract_partition(items, settings))
        .sortByKey()
    )
    os.makedirs(out, exist_ok=True)
    files = {n: f"{n}.jsonl" for n in ("articles", "wrappers", "rejects", "duplicates")}
    files["summary"] = "summary.csv"
    counts = dict.fromkeys(files, 0)
    handles = {n: open(os.path.join(out, f + ".tmp"), "w", encoding="utf-8", newline="") for n, f in files.items()}
    handles["summary"].write(_csv_row(SUMMARY_COLUMNS) + "\n")
    try:
        # Streamed to the driver one partition at a time, in key order.
        for (name, _), line in lines.toLocalIterator():
            handles[name].write(line + "\n")
            counts[name] += 1
    finally:
        for h in handles.values():
            h.close()
    for f in files.values():
        os.replace(os.path.join(out, f + ".tmp"), os.path.join(out, f))
    return counts


def canopy_partition(site: str) -> int:
    """The shuffle's hash of a site key: stable across processes (Python's
    own str hash is salted per process)."""
    import zlib

    return zlib.crc32(site.encode("utf-8"))


def main(argv: List[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="output folder (written by the driver)")
    p.add_argument("--master", default=None, help="Spark master when run with python (e.g. local[2])")
    p.add_argument("--partitions", type=int, default=0, help="site partitions (default: Spark's default parallelism)")
    p.add_argument("--config", default=None, help="canopy settings file (TOML, as --config)")
    p.add_argument("--method", default=None, help="extraction method, as canopy run --method")
    p.add_argument("inputs", nargs="+", help="WARC or ARC files")
    args = p.parse_args(argv)
    settings: Dict[str, Any] = {}
    if args.config:
        settings["config"] = args.config
    if args.method:
        settings["method"] = args.method

    from pyspark.sql import SparkSession  # late, so --help works without Spark

    builder = SparkSession.builder.appName("canopy-inprocess")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    try:
        counts = run_job(spark.sparkContext, args.inputs, args.out, args.partitions, **settings)
    finally:
        spark.stop()
    print("canopy on spark (in process): " + ", ".join(f"{v} {k}" for k, v in counts.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
