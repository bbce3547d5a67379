#!/usr/bin/env bash
# Throughput benchmark (not a test): Canopy end to end vs. resiliparse and trafilatura.
#
#   bash scripts/bench.sh                 # from the repository root (or anywhere)
#
# For every corpus (default: ../shared/corpora/big9 and ../shared/corpora/dragnet, each a
# folder with <name>.warc.gz, manifest.tsv and html/<id>.html):
#
#   - canopy run <name>.warc.gz --out DIR --threads 1   (pinned: taskset -c 0)
#   - canopy run <name>.warc.gz --out DIR --threads 2   (pinned: taskset -c 0,1)
#   - canopy wrappers apply <name>.warc.gz --wrappers W --out DIR --threads 1   (pinned:
#     taskset -c 0): the nightly path, with the wrappers W that one `canopy run` of the
#     same WARC learned before the repetitions (not timed)
#   - resiliparse main content  (HTMLTree.parse_from_bytes(b, detect_encoding(b)) then
#     extract_plain_text(tree, main_content=True))       (pinned: taskset -c 0)
#   - trafilatura.extract(html, include_comments=False)  (pinned: taskset -c 0)
#
# The peers read the same pages from manifest.tsv + html/<id>.html (as
# scripts/peers/run_peers.py does) in the venv scripts/peers/.venv (bash
# scripts/peers/setup.sh). Every run is measured as a whole process: wall time from the
# nanosecond clock around it, user+sys CPU and peak RSS from /usr/bin/time -v; the peers
# also report the time inside their parse + extract calls. Repetitions are interleaved
# (rep 1 of everything, then rep 2, ...) so that the noise of a shared machine hits every
# tool alike; the tables give medians. Only the
# ratios measured in one run are meaningful. MB = bytes of input HTML (html/<id>.html).
#
# Environment:
#   REPS=5            repetitions of the Canopy runs and of resiliparse
#   PEER_REPS=3       repetitions of trafilatura (slow)
#   CORPORA="DIR..."  corpus folders (default: big9 and dragnet under ../shared/corpora)
#   BENCH_OUT=DIR     where raw results go (default /tmp/canopy-bench); results.tsv, table.md
#   NO_BUILD=1        skip the build (`bash scripts/build-pgo.sh`: the profile-guided
#                     release binary, ≈ 15 min; with PLAIN=1 `cargo build --release
#                     -p canopy-cli`)
#   PLAIN=1           benchmark the plain release build (target/release/canopy) instead
#   CANOPY=PATH       binary to benchmark (default target/pgo/release/canopy, or
#                     target/release/canopy with PLAIN=1; copied first so that a concurrent
#                     rebuild cannot change it mid-run)
#   SKIP_TRAFILATURA=1 / SKIP_RESILIPARSE=1
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

REPS="${REPS:-5}"
PEER_REPS="${PEER_REPS:-3}"
BENCH_OUT="${BENCH_OUT:-/tmp/canopy-bench}"
CORPORA="${CORPORA:-$ROOT/../shared/corpora/big9 $ROOT/../shared/corpora/dragnet}"
VENV_PY="$ROOT/scripts/peers/.venv/bin/python"
HELPER="$ROOT/scripts/bench_peers.py"

die() { echo "bench.sh: $*" >&2; exit 1; }

# --- prerequisites --------------------------------------------------------------------
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    die "GNU time (/usr/bin/time -v) is missing: apt-get install -y time"
fi
command -v taskset >/dev/null || die "taskset is missing: apt-get install -y util-linux"
[ -x "$VENV_PY" ] || die "no peers venv at $VENV_PY: run bash scripts/peers/setup.sh"
"$VENV_PY" -c 'import resiliparse, trafilatura' 2>/dev/null \
    || die "resiliparse/trafilatura not importable in $VENV_PY: run bash scripts/peers/setup.sh"
NCPU="$(nproc)"
[ "$NCPU" -ge 2 ] || echo "bench.sh: warning: only $NCPU CPU; the 2-thread run shares one core" >&2

DEFAULT_BIN="$ROOT/target/pgo/release/canopy"
[ -n "${PLAIN:-}" ] && DEFAULT_BIN="$ROOT/target/release/canopy"
if [ -z "${NO_BUILD:-}" ] && [ -z "${CANOPY:-}" ]; then
    if [ -n "${PLAIN:-}" ]; then
        cargo build --release -p canopy-cli >&2
    else
        bash "$ROOT/scripts/build-pgo.sh" >/dev/null
    fi
fi
mkdir -p "$BENCH_OUT"
cp "${CANOPY:-$DEFAULT_BIN}" "$BENCH_OUT/canopy"
BIN="$BENCH_OUT/canopy"

for c in $CORPORA; do
    name="$(basename "$c")"
    [ -f "$c/$name.warc.gz" ] || die "missing $c/$name.warc.gz"
    [ -f "$c/manifest.tsv" ] || die "missing $c/manifest.tsv"
done

RESULTS="$BENCH_OUT/results.tsv"
printf 'corpus\tlabel\trep\tpages\tbytes\twall_s\tuser_s\tsys_s\tmaxrss_kb\textract_s\n' > "$RESULTS"

# pages and input-HTML bytes of a corpus (from its manifest)
corpus_size() {
    python3 - "$1" <<'EOF'
import csv, os, sys
c = sys.argv[1]
with open(os.path.join(c, "manifest.tsv"), newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
print(len(rows), sum(os.path.getsize(os.path.join(c, r["html"])) for r in rows))
EOF
}

# timed CORPUS LABEL REP PAGES BYTES EXTRACT_JSON -- CMD...  (appends one row to RESULTS)
timed() {
    local corpus="$1" label="$2" rep="$3" pages="$4" bytes="$5" json="$6"
    shift 7
    local tf="$BENCH_OUT/time.txt" start end
    # Wall time from the nanosecond clock: GNU time prints it to 10 ms, a
    # twentieth of a two-thread big9 run. CPU and peak RSS come from GNU time.
    start="$(date +%s%N)"
    if ! /usr/bin/time -v -o "$tf" "$@" >"$BENCH_OUT/last.stdout" 2>"$BENCH_OUT/last.stderr"; then
        cat "$BENCH_OUT/last.stderr" >&2
        die "failed: $*"
    fi
    end="$(date +%s%N)"
    local wall user sys rss ext=""
    wall="$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", (b - a) / 1e9}')"
    user="$(awk -F': ' '/User time \(seconds\)/ {print $2}' "$tf")"
    sys="$(awk -F': ' '/System time \(seconds\)/ {print $2}' "$tf")"
    rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tf")"
    if [ -n "$json" ]; then
        ext="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["extract_seconds"])' "$json")"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$corpus" "$label" "$rep" "$pages" "$bytes" "$wall" "$user" "$sys" "$rss" "$ext" >> "$RESULTS"
    printf '  %-8s %-20s rep %s: wall %7.3f s  cpu %6.2f s  rss %6d KB%s\n' \
        "$corpus" "$label" "$rep" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$rss" \
        "${ext:+  (extract $ext s)}" >&2
}

echo "bench.sh: $(date -u +%FT%TZ), $NCPU CPUs, binary $(sha256sum "$BIN" | cut -c1-12), reps $REPS (trafilatura $PEER_REPS)" >&2
declare -A PAGES BYTES
for c in $CORPORA; do
    name="$(basename "$c")"
    read -r p b < <(corpus_size "$c")
    PAGES[$name]="$p"; BYTES[$name]="$b"
    echo "  $name: $p pages, $b bytes of HTML, $(stat -c %s "$c/$name.warc.gz") bytes of WARC.gz" >&2
done

# Warm-up (page cache, venv imports), not recorded.
for c in $CORPORA; do
    name="$(basename "$c")"
    rm -rf "$BENCH_OUT/out"; "$BIN" run "$c/$name.warc.gz" --out "$BENCH_OUT/out" --threads 1 2>/dev/null
    cat "$c"/html/* > /dev/null
done
"$VENV_PY" -c 'import resiliparse.extract.html2text, trafilatura'

# The wrappers the apply path reuses: one run of each corpus, learned once.
for c in $CORPORA; do
    name="$(basename "$c")"
    rm -rf "$BENCH_OUT/learned-$name"
    "$BIN" run "$c/$name.warc.gz" --out "$BENCH_OUT/learned-$name" --threads 1 2>/dev/null
done
APPLY_LABEL="canopy wrappers apply --threads 1"

MAXREPS=$(( REPS > PEER_REPS ? REPS : PEER_REPS ))
PAIR_LABEL="canopy --threads 1, two processes"
for rep in $(seq 1 "$MAXREPS"); do
    for c in $CORPORA; do
        name="$(basename "$c")"
        p="${PAGES[$name]}"; b="${BYTES[$name]}"
        if [ "$rep" -le "$REPS" ]; then
            for t in 1 2; do
                cpus=0; [ "$t" -ge 2 ] && cpus="0-$(( t - 1 ))"
                rm -rf "$BENCH_OUT/out"
                timed "$name" "canopy --threads $t" "$rep" "$p" "$b" "" -- \
                    taskset -c "$cpus" "$BIN" run "$c/$name.warc.gz" --out "$BENCH_OUT/out" --threads "$t"
                n="$(wc -l < "$BENCH_OUT/out/articles.jsonl")"
                [ "$n" -eq "$p" ] || echo "  note: canopy wrote $n articles for $p pages" >&2
            done
            rm -rf "$BENCH_OUT/out"
            # Exit 1 (some saved lines or records rejected, the rest
            # extracted) is a finished run, as `canopy run`'s is.
            timed "$name" "$APPLY_LABEL" "$rep" "$p" "$b" "" -- \
                bash -c '"$@"; rc=$?; [ "$rc" -le 1 ]' apply \
                taskset -c 0 "$BIN" wrappers apply "$c/$name.warc.gz" \
                --wrappers "$BENCH_OUT/learned-$name/wrappers.jsonl" --out "$BENCH_OUT/out" --threads 1
            n="$(wc -l < "$BENCH_OUT/out/articles.jsonl")"
            [ "$n" -eq "$p" ] || echo "  note: canopy wrappers apply wrote $n articles for $p pages" >&2
            # This machine's ceiling for two threads: two independent one-thread
            # runs at once, one per core (nothing shared but the hardware). Counted
            # as one run of twice the pages.
            if [ "$NCPU" -ge 2 ]; then
                rm -rf "$BENCH_OUT/out" "$BENCH_OUT/out2"
                timed "$name" "$PAIR_LABEL" "$rep" "$(( 2 * p ))" "$(( 2 * b ))" "" -- \
                    bash -c 'taskset -c 0 "$0" run "$1" --out "$2" --threads 1 & first=$!
                             taskset -c 1 "$0" run "$1" --out "$3" --threads 1 || exit
                             wait "$first"' \
                    "$BIN" "$c/$name.warc.gz" "$BENCH_OUT/out" "$BENCH_OUT/out2"
            fi
            if [ -z "${SKIP_RESILIPARSE:-}" ]; then
                timed "$name" "resiliparse" "$rep" "$p" "$b" "$BENCH_OUT/peer.json" -- \
                    taskset -c 0 "$VENV_PY" "$HELPER" run --tool resiliparse --corpus "$c" --json "$BENCH_OUT/peer.json"
            fi
        fi
        if [ "$rep" -le "$PEER_REPS" ] && [ -z "${SKIP_TRAFILATURA:-}" ]; then
            timed "$name" "trafilatura" "$rep" "$p" "$b" "$BENCH_OUT/peer.json" -- \
                taskset -c 0 "$VENV_PY" "$HELPER" run --tool trafilatura --corpus "$c" --json "$BENCH_OUT/peer.json"
        fi
    done
done

{
    echo "Benchmark $(date -u +%FT%TZ) on $(hostname): $NCPU CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ {printf "%.1f GB", $2/1048576}' /proc/meminfo) RAM"
    echo "resiliparse $("$VENV_PY" -c 'from importlib.metadata import version as v; print(v("resiliparse"))'), trafilatura $("$VENV_PY" -c 'from importlib.metadata import version as v; print(v("trafilatura"))'), $("$VENV_PY" -V)"
    echo
    python3 "$HELPER" table --results "$RESULTS"
} | tee "$BENCH_OUT/table.md"
