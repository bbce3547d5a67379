"""Shared fixtures: the repository's paths, the `canopy` binary the Python
results are compared with, and the corpora beside the repository."""

import csv
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CORPORA = Path(os.environ.get("CANOPY_CORPORA", REPO.parent / "shared" / "corpora"))
SAMPLE = REPO / "data"


def canopy_bin() -> Path:
    """The command-line binary of this checkout (scripts/test.sh builds it)."""
    path = Path(os.environ.get("CANOPY_BIN", REPO / "target" / "testing" / "canopy"))
    if not path.exists():
        pytest.skip(f"no canopy binary at {path}: build it with `cargo build --profile testing -p canopy-cli`")
    return path


def corpus(name: str) -> Path:
    """A corpus folder of ../shared/corpora, or a skip saying it is absent."""
    path = CORPORA / name
    if not (path / f"{name}.warc.gz").exists():
        pytest.skip(f"{path} is absent: the corpora sit beside the repository (../shared/corpora)")
    return path


def manifest(name: str):
    with open(corpus(name) / "manifest.tsv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_jsonl(path: Path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def cli_run(inputs, out: Path, *flags: str) -> Path:
    """`canopy run INPUTS --out OUT FLAGS`; exit 1 (some records rejected) is normal."""
    proc = subprocess.run(
        [str(canopy_bin()), "run", *map(str, inputs), "--out", str(out), *flags],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return out


@pytest.fixture(scope="session")
def corpora_run(tmp_path_factory):
    """`canopy run` on big9 and dragnet together, once per session: the
    reference of extract_site and of the Spark job."""
    warcs = [corpus("big9") / "big9.warc.gz", corpus("dragnet") / "dragnet.warc.gz"]
    out = cli_run(warcs, tmp_path_factory.mktemp("cli") / "out")
    return warcs, out
