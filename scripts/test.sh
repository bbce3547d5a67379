#!/usr/bin/env bash
# Every test of the project, Rust and Python: the workspace's Rust tests,
# the vendored crates' patches against the published releases, then the
# Python package built from the same target folder and `testing`
# profile (Cargo.toml) (so only pyo3 and the binding compile again) and its pytest
# suite (crates/python/tests: the API, the datatrove steps, the Spark job).
# The Python tools come from PyPI into target/py-venv. CI runs this script.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: cargo test --workspace --profile testing"
cargo test --workspace --profile testing

echo "== the patched crates (html5ever, whatlang) give the published releases' results"
bash scripts/check-patches.sh

echo "== Python: the canopy package (maturin) and its tests (pytest)"
venv=target/py-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  'maturin>=1.9.4,<2' pytest 'datatrove[io]' 'pyspark>=4,<5' pyarrow
rm -rf target/py-wheel
# canopy/clap: the features `cargo test --workspace` builds the library
# with (canopy-cli asks for them), so that cargo reuses its canopy and
# canopy-site instead of building a second variant; they only add the
# command line's derives to the settings enums.
"$venv/bin/maturin" build --profile testing -m crates/python/Cargo.toml -i "$venv/bin/python" --out target/py-wheel \
  --features canopy/clap
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps target/py-wheel/*.whl
# The binary the Python results are compared with (built by the Rust tests already).
cargo build --profile testing -p canopy-cli
cd crates/python
CANOPY_BIN="$PWD/../../target/testing/canopy" "../../$venv/bin/python" -m pytest tests -q
