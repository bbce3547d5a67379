#!/usr/bin/env bash
# Canopy on Slurm: an array job of `canopy partition` ranks, an array job of
# `canopy extract` buckets that starts when every rank has succeeded, and a
# `canopy merge` job after that (docs/scale-out.md).
#
#   scripts/slurm/submit.sh WORK OUT RANKS BUCKETS INPUT...
#
# WORK and OUT must be on a file system every node mounts, and CANOPY (default
# target/release/canopy, made absolute here) must run on every node. Extra
# sbatch options (partition, account, time) go in SBATCH_ARGS. A requeued or
# resubmitted task whose rank or bucket is already done does nothing.
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,11p' "$0"; exit 2; }
work=$(realpath -m "$1") out=$(realpath -m "$2") ranks=$3 buckets=$4
shift 4
canopy=$(realpath "${CANOPY:-target/release/canopy}")
inputs=$(for i in "$@"; do printf '%q ' "$(realpath "$i")"; done)
mkdir -p "$work/slurm-logs"
# Exit code 1 (some records rejected) is a successful task for Slurm.
ok='rc=0; "$@" || rc=$?; [ "$rc" -le 1 ]'

part=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=canopy-partition \
  --array=0-$((ranks - 1)) --cpus-per-task=1 --output="$work/slurm-logs/partition-%a.log" \
  --wrap="set -- $canopy partition $inputs --work $work --rank \$SLURM_ARRAY_TASK_ID --world-size $ranks --buckets $buckets; $ok")
extr=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=canopy-extract --dependency=afterok:"$part" \
  --array=0-$((buckets - 1)) --cpus-per-task=2 --output="$work/slurm-logs/extract-%a.log" \
  --wrap="set -- $canopy extract --work $work --bucket \$SLURM_ARRAY_TASK_ID --out $out --threads 2; $ok")
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=canopy-merge --dependency=afterok:"$extr" \
  --output="$work/slurm-logs/merge.log" \
  --wrap="set -- $canopy merge --work $work --out $out; $ok")
echo "submitted: partition $part, extract $extr, merge $merge"
