"""The in-process PySpark job (canopy.spark) on big9 and dragnet: its
articles and wrappers equal `canopy run`'s, its summary.csv byte for byte."""

import os
import sys

import pytest

pytest.importorskip("pyspark")

from canopy.spark import run_job  # noqa: E402
from conftest import read_jsonl  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The executors' Python is this one, with canopy installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("canopy-test")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_spark_job_equals_canopy_run(spark, corpora_run, tmp_path):
    warcs, cli = corpora_run
    out = tmp_path / "spark"
    counts = run_job(spark.sparkContext, [str(w) for w in warcs], str(out), partitions=4)
    articles = read_jsonl(out / "articles.jsonl")
    wrappers = read_jsonl(out / "wrappers.jsonl")
    assert counts["articles"] == len(articles) > 900
    assert articles == read_jsonl(cli / "articles.jsonl")
    assert wrappers == read_jsonl(cli / "wrappers.jsonl")
    assert (out / "summary.csv").read_bytes() == (cli / "summary.csv").read_bytes()
    assert len(read_jsonl(out / "duplicates.jsonl")) == len(read_jsonl(cli / "duplicates.jsonl"))
