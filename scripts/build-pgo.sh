#!/usr/bin/env bash
# Builds the `canopy` binary for nightly runs with profile-guided optimisation (PGO).
#
#   bash scripts/build-pgo.sh            # prints the binary's path: target/pgo/release/canopy
#
# 1. builds an instrumented binary (`--release`, `-Cprofile-generate`) in target/pgo-gen;
# 2. runs it on the sample in data/ (the README's first command, every output format, one and
#    two threads), which records how often each branch and call is taken;
# 3. merges the counts with the toolchain's llvm-profdata (rustup's llvm-tools component,
#    installed if missing) and builds `--release` again with `-Cprofile-use` in
#    target/pgo.
#
# The optimiser then lays out and inlines the code for the paths real pages take; html5ever's
# tokenizer, most of a run, gains most (docs/performance.md). The outputs are the same bytes
# as the plain release build's: PGO changes
# code layout, not what the code does. The training input is the shipped sample, not the
# benchmark corpora. Two full builds: ≈ 15 minutes on 2 cores. Separate target folders keep
# the RUSTFLAGS of these builds from invalidating the usual `target/release`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

WORK="$ROOT/target/pgo-data"
rm -rf "$WORK"
mkdir -p "$WORK"

PROFDATA="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
    rustup component add llvm-tools >&2
fi
[ -x "$PROFDATA" ] || { echo "build-pgo.sh: no llvm-profdata at $PROFDATA" >&2; exit 1; }

RUSTFLAGS="-Cprofile-generate=$WORK/raw" \
    cargo build --release -p canopy-cli --target-dir target/pgo-gen >&2

# Exit code 1 (some records rejected) is a finished run, and a fine profile.
for threads in 1 2; do
    target/pgo-gen/release/canopy run data/ --out "$WORK/out-$threads" --threads "$threads" \
        --format text,html,markdown >&2 || [ $? -eq 1 ]
done

"$PROFDATA" merge -o "$WORK/canopy.profdata" "$WORK/raw"

RUSTFLAGS="-Cprofile-use=$WORK/canopy.profdata" \
    cargo build --release -p canopy-cli --target-dir target/pgo >&2

echo "$ROOT/target/pgo/release/canopy"
