#!/usr/bin/env bash
# Canopy's patched crates (vendor/html5ever, vendor/whatlang: their
# CANOPY-PATCH.md) against the releases they patch: on every page of the dev
# corpora and on generated pages and texts, html5ever's tokens and trees and
# whatlang's detections must be the same (vendor/patch-check). Exit 1 if any differ.
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=../shared/corpora
CARGO_TARGET_DIR=target/patch-check cargo build --release --quiet \
  --manifest-path vendor/patch-check/Cargo.toml
target/patch-check/release/patch-check \
  "$corpora/big9/html" "$corpora/dragnet/html" "$corpora/trafbench/html"
