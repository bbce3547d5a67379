"""The output set's `articles.parquet` (`--format parquet`) read with
pyarrow, as the Hugging Face and Spark tools read it, and `stats.json`."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

import canopy
from conftest import SAMPLE, cli_run, corpus, read_jsonl

# The columns of articles.parquet without --format html/markdown, in order:
# the fields of an articles.jsonl line (docs/usage.md, "stats.json and
# articles.parquet").
COLUMNS = [
    ("url", pa.string(), False),
    ("record_id", pa.string(), False),
    ("site", pa.string(), False),
    ("cluster", pa.string(), False),
    ("method", pa.string(), False),
    ("wrapper", pa.string(), True),
    ("title", pa.string(), False),
    ("text", pa.string(), False),
    ("lang", pa.string(), False),
    ("authors", pa.list_(pa.field("item", pa.string(), nullable=False)), True),
    ("date", pa.string(), True),
    ("site_name", pa.string(), True),
    ("canonical_url", pa.string(), True),
    ("top_image", pa.string(), True),
    ("warc_date", pa.string(), True),
    (
        "source",
        pa.struct([pa.field("file", pa.string(), nullable=False), pa.field("offset", pa.uint64())]),
        True,
    ),
]


def counts(out):
    return json.loads((out / "stats.json").read_text())["counts"]


def test_cli_parquet_is_articles_jsonl_in_typed_columns(tmp_path):
    warc = corpus("big9") / "big9.warc.gz"
    out = cli_run([warc], tmp_path / "out", "--format", "parquet")
    table = pq.read_table(out / "articles.parquet")
    want = pa.schema([pa.field(n, t, nullable=null) for n, t, null in COLUMNS])
    assert table.schema.remove_metadata() == want
    assert table.to_pylist() == read_jsonl(out / "articles.jsonl")
    assert table.num_rows == counts(out)["articles"] == 200
    assert "articles.parquet" in (out / "_SUCCESS").read_text()


def test_run_writes_parquet_and_stats_as_the_command(tmp_path):
    out = tmp_path / "py"
    result = canopy.run([SAMPLE], out, run={"formats": ["markdown", "parquet"]})
    table = pq.read_table(out / "articles.parquet")
    assert table.column_names == [n for n, _, _ in COLUMNS] + ["markdown"]
    assert table.to_pylist() == read_jsonl(out / "articles.jsonl")
    cli = cli_run([SAMPLE], tmp_path / "cli", "--format", "markdown,parquet", "--threads", "1")
    assert (out / "articles.parquet").read_bytes() == (cli / "articles.parquet").read_bytes()
    got = counts(out)
    assert got == counts(cli)
    for key in ("records", "articles", "feeds", "revisits", "duplicates", "wrappers", "clusters"):
        assert got[key] == result[key], key
    assert got["records"] == (
        got["articles"] + got["feeds"] + got["revisits"] + got["skipped"]
        + got["rejected"] + got["left_out_by_language"]
    )
    measured = json.loads((out / "stats.json").read_text())["measured"]
    assert measured["seconds"] > 0 and measured["peak_memory_bytes"] > 0
