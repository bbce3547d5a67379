#!/usr/bin/env bash
# Creates scripts/peers/.venv with pinned versions of the peer extractors used for
# side-by-side evaluation (see run_peers.py). Idempotent: re-running only installs
# what is missing or at the wrong version.
#
# Usage: bash scripts/peers/setup.sh   (uses $PYTHON, default python3)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
PYTHON="${PYTHON:-python3}"

# Pinned versions (PyPI, checked 2026-11 with `pip index versions NAME`).
PIP_VERSION=26.3
PINS=(
  "trafilatura==2.3.1"
  "readability-lxml==0.9"
  "resiliparse==2.0.1"
  "boilerpy3==1.0.7"
  "justext==3.0.2"
  "lxml==6.1.3"
  "lxml_html_clean==0.4.6"
)

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi

# pip honours PIP_FIND_LINKS (e.g. /opt/wheels) if set; a missing directory is ignored
# by pip with a warning only, so no special handling is needed.
if "$VENV/bin/python" - "${PINS[@]}" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
ok = True
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    try:
        have = version(name)
    except PackageNotFoundError:
        have = None
    if have != want:
        ok = False
sys.exit(0 if ok else 1)
PY
then
  echo "peers venv up to date: $VENV"
else
  # The pip bundled with older Pythons (23.x) trips over lxml[html_clean] extras
  # (resolver AssertionError), so bring pip itself to a pinned recent version first.
  "$VENV/bin/python" -m pip install --quiet "pip==$PIP_VERSION"
  "$VENV/bin/python" -m pip install --quiet "${PINS[@]}"
  echo "installed peers into $VENV"
fi
"$VENV/bin/python" -m pip freeze | grep -i -E '^(trafilatura|readability-lxml|resiliparse|boilerpy3|justext|lxml|lxml.html.clean|lxml_html_clean)=='
