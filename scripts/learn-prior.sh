#!/usr/bin/env bash
# Regenerates configs/prior.tsv, the page-level extractor's default prior:
# the per-site word counts that the wrappers Canopy learns on the dev
# corpora (big9 and dragnet) teach about the names of article blocks
# (crates/extract/src/page/names.rs). The file is this script's output,
# never edited by hand.
#
# Usage: bash scripts/learn-prior.sh   (CORPORA, default ../shared/corpora;
#        CANOPY, default target/release/canopy, built if missing)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CORPORA="${CORPORA:-../shared/corpora}"
CANOPY="${CANOPY:-target/release/canopy}"
if [ ! -x "$CANOPY" ]; then
  cargo build --release -p canopy-cli
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# One run over both corpora: prior.tsv holds what its wrappers taught. The
# prior the run itself extracts single pages with plays no part in it.
# Four pages of each cluster teach it (a nightly run takes two: the cost is
# paid once here).
printf '[extract]\nprior_pages = 4\n' > "$out.toml"
trap 'rm -rf "$out" "$out.toml"' EXIT
rc=0
"$CANOPY" run "$CORPORA/big9/big9.warc.gz" "$CORPORA/dragnet/dragnet.warc.gz" --out "$out" \
  --config "$out.toml" || rc=$?
[ "$rc" -le 1 ] || { echo "canopy run failed ($rc)" >&2; exit 1; }
cp "$out/prior.tsv" configs/prior.tsv
echo "wrote configs/prior.tsv: $(head -1 configs/prior.tsv | cut -f2) sites, $(($(wc -l < configs/prior.tsv) - 2)) words"
