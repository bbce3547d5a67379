#!/usr/bin/env python3
"""Runs Canopy on Spark: partition tasks, then one extract task per bucket, then merge.

Forest needs all pages of a site together, so a crawl is shuffled by site.
Canopy does the shuffle through files (docs/scale-out.md): `canopy partition`
writes each rank's pages into per-site-hash bucket files under WORK, and
`canopy extract` processes one bucket. Spark only schedules the two steps;
WORK and OUT must be on a file system every executor sees (local disk in
local mode; NFS, Lustre or a FUSE mount on a cluster), and the `canopy`
binary must be on every executor at the same path.

    spark-submit scripts/spark/canopy_spark.py --canopy target/release/canopy \
        --work /shared/work --out /shared/out --ranks 8 --buckets 64 CRAWL/*.warc.gz

or, with PySpark from PyPI, `python3 scripts/spark/canopy_spark.py --master local[2] ...`.

Each task runs the binary and fails with its stderr if the binary exits with 2
(bad usage, unreadable work folder); exit code 1 (some records rejected) is a
normal outcome. A failed task is retried by Spark: completion markers make a
rerun of a finished rank or bucket a no-op, and every file appears atomically.
"""

import argparse
import subprocess
import sys


def run_step(argv):
    """Runs one canopy step; returns (exit code, stderr's last line)."""
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()}")
    last = proc.stderr.strip().splitlines()[-1:] or [""]
    return proc.returncode, last[0]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--canopy", required=True, help="path of the canopy binary on every executor")
    p.add_argument("--work", required=True, help="work folder shared by all tasks")
    p.add_argument("--out", required=True, help="output folder of the merged run")
    p.add_argument("--ranks", type=int, default=0, help="partition tasks (default: Spark's default parallelism)")
    p.add_argument("--buckets", type=int, default=64, help="site buckets, one extract task each")
    p.add_argument("--master", default=None, help="Spark master when run with python (e.g. local[2])")
    p.add_argument("--config", default=None, help="canopy settings file, passed to every step")
    p.add_argument("--threads", type=int, default=1, help="canopy threads per extract task")
    p.add_argument("inputs", nargs="+", help="WARC files, feed files or folders (as for canopy run)")
    args = p.parse_args()

    from pyspark.sql import SparkSession  # imported late so --help works without Spark

    builder = SparkSession.builder.appName("canopy")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    ranks = args.ranks or sc.defaultParallelism
    config = ["--config", args.config] if args.config else []

    def partition(rank):
        return run_step(
            [args.canopy, "partition", *args.inputs, "--work", args.work, "--rank", str(rank),
             "--world-size", str(ranks), "--buckets", str(args.buckets), *config]
        )

    def extract(bucket):
        return run_step(
            [args.canopy, "extract", "--work", args.work, "--bucket", str(bucket), "--out", args.out,
             "--threads", str(args.threads), *config]
        )

    # One Spark partition per task, so Spark runs them as separate tasks.
    rejected = sum(code for code, _ in sc.parallelize(range(ranks), ranks).map(partition).collect())
    codes = sc.parallelize(range(args.buckets), args.buckets).map(extract).collect()
    rejected += sum(code for code, _ in codes)
    spark.stop()

    code, summary = run_step([args.canopy, "merge", "--work", args.work, "--out", args.out])
    print(f"canopy on spark: {ranks} partition tasks, {args.buckets} extract tasks; merge: {summary}",
          file=sys.stderr)
    return 1 if code or rejected else 0


if __name__ == "__main__":
    sys.exit(main())
