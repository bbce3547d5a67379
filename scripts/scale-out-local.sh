#!/usr/bin/env bash
# Canopy's two scale-out steps on one machine with xargs -P: the shell path of
# docs/scale-out.md, and the template for any scheduler that runs commands.
#
#   scripts/scale-out-local.sh WORK OUT RANKS BUCKETS JOBS INPUT...
#
# runs RANKS `canopy partition` tasks, then BUCKETS `canopy extract` tasks,
# JOBS at a time, then `canopy merge`. CANOPY names the binary (default
# target/release/canopy); CANOPY_ARGS adds flags to every partition and extract
# (e.g. "--config my.toml"). Exit code: 0, or 1 when records were rejected, as
# `canopy run`; 2 when a step failed.
set -euo pipefail
[ $# -ge 6 ] || { sed -n '2,12p' "$0"; exit 2; }
work=$1 out=$2 ranks=$3 buckets=$4 jobs=$5
shift 5
canopy=${CANOPY:-target/release/canopy}
extra=${CANOPY_ARGS:-}

# A step exits 0 or 1 (some records rejected); only 2 and up is a failure.
# xargs stops on exit 255 only, so each step maps its failure to 255.
step() { "$@" || { rc=$?; [ "$rc" -le 1 ] || { echo "failed ($rc): $*" >&2; exit 255; }; }; }
export -f step

seq 0 $((ranks - 1)) | xargs -P "$jobs" -I{} bash -c \
  "step \"$canopy\" partition $(printf '%q ' "$@") --work \"$work\" --rank {} --world-size $ranks --buckets $buckets $extra"
seq 0 $((buckets - 1)) | xargs -P "$jobs" -I{} bash -c \
  "step \"$canopy\" extract --work \"$work\" --bucket {} --out \"$out\" --threads 1 $extra"
"$canopy" merge --work "$work" --out "$out"
