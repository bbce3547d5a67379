#!/usr/bin/env bash
# Makes target/spark-venv with PySpark from PyPI (Spark needs Java 17 or newer:
# `java -version`). Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/spark-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pyspark' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'pyspark>=4,<5' >&2
fi
echo "$venv/bin/python"
