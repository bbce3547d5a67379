#!/usr/bin/env bash
# Checks that the scale-out paths give the same bytes as one `canopy run`:
# the dev corpora are split into WARC shards, then
#   1. canopy run SHARDS                                  (the reference)
#   2. scripts/scale-out-local.sh (xargs -P over ranks and buckets)
#   3. scripts/spark/canopy_spark.py in local[2] mode     (SKIP_SPARK=1 skips it)
# and the output files of 2 and 3 must equal those of 1, byte for byte
# (stats.json in its counts).
# Prints each path's wall time (the overhead figures of docs/scale-out.md).
set -euo pipefail
cd "$(dirname "$0")/.."
canopy=${CANOPY:-target/release/canopy}
[ -x "$canopy" ] || cargo build --release -p canopy-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shards=${SHARDS:-3} ranks=${RANKS:-3} buckets=${BUCKETS:-16}

python3 scripts/split_warc.py --shards "$shards" --out "$tmp/shards" \
  ../shared/corpora/big9/big9.warc.gz ../shared/corpora/dragnet/dragnet.warc.gz
# A second copy of the first shard, read by another rank than the first:
# its pages are duplicates, and which copy is kept must not depend on ranks.
first=$(ls "$tmp/shards" | head -1)
cp "$tmp/shards/$first" "$tmp/shards/zz-copy-of-$first"

# Runs a command, accepting exit code 1 (records rejected), and prints its wall time.
timed() {
  local name=$1 start rc=0
  shift
  start=$EPOCHREALTIME
  "$@" >/dev/null 2>"$tmp/$name.log" || rc=$?
  [ "$rc" -le 1 ] || { cat "$tmp/$name.log"; echo "$name failed ($rc)"; exit 1; }
  awk -v n="$name" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%-28s %6.1f s\n", n, b - a }'
}

same() {
  for f in articles.jsonl wrappers.jsonl summary.csv rejects.jsonl duplicates.jsonl prior.tsv; do
    cmp "$tmp/run/$f" "$1/$f" || { echo "FAIL: $1/$f differs from canopy run's"; exit 1; }
  done
  # stats.json: its counts (its measured part is each run's own).
  python3 -c 'import json, sys; c = [json.load(open(p))["counts"] for p in sys.argv[1:]]; sys.exit(c[0] != c[1])' \
    "$tmp/run/stats.json" "$1/stats.json" || { echo "FAIL: $1/stats.json's counts differ from canopy run's"; exit 1; }
  echo "ok: $(wc -l < "$1/articles.jsonl") articles, $(wc -l < "$1/wrappers.jsonl") wrappers, $(wc -l < "$1/duplicates.jsonl") duplicates identical to canopy run"
}

timed "canopy run (2 threads)" "$canopy" run "$tmp/shards" --out "$tmp/run" --threads 2
timed "xargs -P 2" env CANOPY="$canopy" scripts/scale-out-local.sh \
  "$tmp/work-xargs" "$tmp/xargs" "$ranks" "$buckets" 2 "$tmp/shards"
same "$tmp/xargs"

if [ "${SKIP_SPARK:-0}" = 1 ]; then
  echo "SKIP: Spark path (SKIP_SPARK=1)"
else
  py=$(scripts/spark/setup.sh)
  timed "spark local[2]" "$py" scripts/spark/canopy_spark.py --master 'local[2]' \
    --canopy "$canopy" --work "$tmp/work-spark" --out "$tmp/spark" \
    --ranks "$ranks" --buckets "$buckets" "$tmp/shards"
  same "$tmp/spark"
fi
echo "scale-out: all paths identical"
