#!/usr/bin/env python3
"""Helper of scripts/bench.sh (a benchmark, not a test).

Two sub-commands:

    bench_peers.py run --tool resiliparse|trafilatura --corpus DIR --json OUT.json
        Runs one peer extractor over every page of CORPUS/manifest.tsv (the raw HTML bytes
        of CORPUS/<html column>, exactly as scripts/peers/run_peers.py does), in this one
        process, and writes {"tool", "version", "pages", "bytes", "extract_seconds",
        "extract_cpu_seconds", "read_seconds", "errors", "empty"}. `extract_seconds` is the
        wall-clock time spent inside the tool's calls (parse + extract), `extract_cpu_seconds`
        the process CPU time spent there; the whole process (interpreter start,
        imports, file reading) is timed from outside by bench.sh with /usr/bin/time -v.
        Must run with the peers' venv (scripts/peers/.venv/bin/python); bench.sh pins it
        to one core with taskset.

    bench_peers.py table --results RESULTS.tsv
        Reads the per-repetition rows bench.sh collected and prints the markdown tables
        (medians over repetitions) and the ratios. Standard library only.
"""

import argparse
import csv
import json
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"


def read_manifest(corpus):
    with open(os.path.join(corpus, "manifest.tsv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def make_extractor(tool):
    if tool == "trafilatura":
        import trafilatura

        def run(data):
            return trafilatura.extract(data, include_comments=False) or ""

        return run, "trafilatura"
    if tool == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import detect_encoding
        from resiliparse.parse.html import HTMLTree

        def run(data):
            tree = HTMLTree.parse_from_bytes(data, detect_encoding(data))
            return extract_plain_text(tree, main_content=True) or ""

        return run, "resiliparse"
    raise SystemExit(f"unknown tool {tool!r} (resiliparse, trafilatura)")


def cmd_run(args):
    from importlib.metadata import version

    extract, dist = make_extractor(args.tool)
    rows = read_manifest(args.corpus)
    extract_s = 0.0
    extract_cpu_s = 0.0
    read_s = 0.0
    nbytes = 0
    errors = 0
    empty = 0
    for row in rows:
        t0 = time.perf_counter()
        with open(os.path.join(args.corpus, row["html"]), "rb") as f:
            data = f.read()
        t1 = time.perf_counter()
        read_s += t1 - t0
        nbytes += len(data)
        c1 = time.process_time()
        try:
            text = extract(data)
        except Exception:  # noqa: BLE001 - a failed page counts, the run goes on
            errors += 1
            text = ""
        extract_s += time.perf_counter() - t1
        extract_cpu_s += time.process_time() - c1
        if not text.strip():
            empty += 1
    out = {
        "tool": args.tool,
        "version": version(dist),
        "pages": len(rows),
        "bytes": nbytes,
        "extract_seconds": round(extract_s, 4),
        "extract_cpu_seconds": round(extract_cpu_s, 4),
        "read_seconds": round(read_s, 4),
        "errors": errors,
        "empty": empty,
        "cpu": sorted(os.sched_getaffinity(0)),
    }
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(out, f)
        f.write("\n")


# Two independent one-thread runs at once, one per core (bench.sh).
PAIR = "canopy --threads 1, two processes"
APPLY = "canopy wrappers apply --threads 1"


def fmt(x, nd=1):
    return "–" if x is None else f"{x:.{nd}f}"


def cmd_table(args):
    with open(args.results, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    # Group: (corpus, label) -> list of reps, in first-seen order.
    groups = {}
    for r in rows:
        groups.setdefault((r["corpus"], r["label"]), []).append(r)

    def med(reps, key):
        vals = [float(r[key]) for r in reps if r[key] not in ("", "NA")]
        return statistics.median(vals) if vals else None

    stats = {}
    for (corpus, label), reps in groups.items():
        pages = int(reps[0]["pages"])
        mb = int(reps[0]["bytes"]) / 1e6
        wall = med(reps, "wall_s")
        cpu = statistics.median(float(r["user_s"]) + float(r["sys_s"]) for r in reps)
        rss = statistics.median(float(r["maxrss_kb"]) for r in reps) / 1024
        ext = med(reps, "extract_s")
        stats[(corpus, label)] = dict(
            pages=pages, mb=mb, wall=wall, cpu=cpu, rss=rss, ext=ext, n=len(reps),
            walls=sorted(float(r["wall_s"]) for r in reps),
            ext_min=min((float(r["extract_s"]) for r in reps if r["extract_s"] not in ("", "NA")),
                        default=None),
        )

    corpora = list(dict.fromkeys(c for c, _ in groups))
    print("| corpus | run | pages | HTML MB | reps | wall s (median) | pages/s | MB/s "
          "| CPU s user+sys | pages/CPU-s | peak RSS MB |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for corpus in corpora:
        for (c, label), s in stats.items():
            if c != corpus:
                continue
            print(f"| {c} | {label} (whole process) | {s['pages']} | {s['mb']:.1f} | {s['n']} "
                  f"| {s['wall']:.3f} | {s['pages'] / s['wall']:.1f} | {s['mb'] / s['wall']:.2f} "
                  f"| {s['cpu']:.2f} | {s['pages'] / s['cpu']:.1f} | {s['rss']:.0f} |")
            if s["ext"] is not None:
                print(f"| {c} | {label} (parse + extract only) | {s['pages']} | {s['mb']:.1f} "
                      f"| {s['n']} | {s['ext']:.3f} | {s['pages'] / s['ext']:.1f} "
                      f"| {s['mb'] / s['ext']:.2f} | – | – | – |")

    def pps(corpus, label, extract_only=False):
        s = stats.get((corpus, label))
        if s is None:
            return None
        t = s["ext"] if extract_only else s["wall"]
        return s["pages"] / t if t else None

    def ratio(a, b):
        return None if a is None or b is None or b == 0 else a / b

    def met(x, target):
        return "?" if x is None else ("met" if x >= target else "NOT met")

    print()
    print("Ratios of pages/s (medians of this run). Canopy is always timed as a whole process "
          "(WARC.gz read, parse, cluster, extract, JSON written); the peer is timed as a whole "
          "process and, in brackets, inside its parse + extract calls only.")
    print()
    print("| corpus | Canopy 1t ÷ resiliparse | Canopy 1t ÷ trafilatura "
          "| Canopy 2t ÷ Canopy 1t | two 1t processes ÷ one (ceiling) "
          "| target 1t ≥1.1× resiliparse | target 1t ≥15× trafilatura | target 2t ≥1.8× 1t |")
    print("|---|--:|--:|--:|--:|---|---|---|")
    for corpus in corpora:
        c1 = pps(corpus, "canopy --threads 1")
        c2 = pps(corpus, "canopy --threads 2")
        rw = ratio(c1, pps(corpus, "resiliparse"))
        re_ = ratio(c1, pps(corpus, "resiliparse", True))
        tw = ratio(c1, pps(corpus, "trafilatura"))
        te = ratio(c1, pps(corpus, "trafilatura", True))
        sc = ratio(c2, c1)
        ceiling = ratio(pps(corpus, PAIR), c1)
        print(f"| {corpus} | {fmt(rw, 2)} ({fmt(re_, 2)}) | {fmt(tw, 1)} ({fmt(te, 1)}) "
              f"| {fmt(sc, 2)} | {fmt(ceiling, 2)} | {met(min(filter(None, [rw, re_]), default=None), 1.1)} "
              f"| {met(min(filter(None, [tw, te]), default=None), 15.0)} | {met(sc, 1.8)} |")
    print()
    print("The nightly path, `canopy wrappers apply --threads 1` with the wrappers a run of the same "
          "WARC learned (whole process; pages no saved wrapper fits go to the page-level path):")
    print()
    print("| corpus | apply 1t ÷ resiliparse | apply 1t ÷ trafilatura | apply 1t ÷ run 1t "
          "| target apply ≥2× resiliparse |")
    print("|---|--:|--:|--:|---|")
    for corpus in corpora:
        a1 = pps(corpus, APPLY)
        if a1 is None:
            continue
        rw = ratio(a1, pps(corpus, "resiliparse"))
        re_ = ratio(a1, pps(corpus, "resiliparse", True))
        tw = ratio(a1, pps(corpus, "trafilatura"))
        te = ratio(a1, pps(corpus, "trafilatura", True))
        print(f"| {corpus} | {fmt(rw, 2)} ({fmt(re_, 2)}) | {fmt(tw, 1)} ({fmt(te, 1)}) "
              f"| {fmt(ratio(a1, pps(corpus, 'canopy --threads 1')), 2)} "
              f"| {met(min(filter(None, [rw, re_]), default=None), 2.0)} |")
    print()
    print("(\"met\" requires both the whole-process and the extract-only ratio to reach the target. "
          "The ceiling: pages/s of two independent one-thread runs at once, one per core, over "
          "one run alone; what two threads could reach if nothing in Canopy were serial or shared.)")
    print()
    print("The same ratios on the fastest repetition of each (best-of-N wall time: the least "
          "disturbed by other load; whole processes, peers in brackets inside parse + extract):")
    print()
    print("| corpus | Canopy 1t ÷ resiliparse (best) | Canopy 1t ÷ trafilatura (best) "
          "| Canopy 2t ÷ Canopy 1t (best) | two 1t processes ÷ one (best) |")
    print("|---|--:|--:|--:|--:|")

    def best(corpus, label, extract_only=False):
        s = stats.get((corpus, label))
        if s is None:
            return None
        t = s["ext_min"] if extract_only else s["walls"][0]
        return s["pages"] / t if t else None

    for corpus in corpora:
        c1 = best(corpus, "canopy --threads 1")
        print(f"| {corpus} | {fmt(ratio(c1, best(corpus, 'resiliparse')), 2)} "
              f"({fmt(ratio(c1, best(corpus, 'resiliparse', True)), 2)}) "
              f"| {fmt(ratio(c1, best(corpus, 'trafilatura')), 1)} "
              f"({fmt(ratio(c1, best(corpus, 'trafilatura', True)), 1)}) "
              f"| {fmt(ratio(best(corpus, 'canopy --threads 2'), c1), 2)} "
              f"| {fmt(ratio(best(corpus, PAIR), c1), 2)} |")
    print()
    print("The same one-thread ratios on CPU time (pages per user+sys CPU second, whole "
          "processes; less sensitive to other load on a shared machine than wall time):")
    print()
    print("| corpus | Canopy 1t ÷ resiliparse (CPU) | Canopy 1t ÷ trafilatura (CPU) "
          "| Canopy 2t CPU s ÷ 1t CPU s |")
    print("|---|--:|--:|--:|")

    def ppc(corpus, label):
        s = stats.get((corpus, label))
        return None if s is None or not s["cpu"] else s["pages"] / s["cpu"]

    for corpus in corpora:
        c1 = ppc(corpus, "canopy --threads 1")
        c2 = ppc(corpus, "canopy --threads 2")
        print(f"| {corpus} | {fmt(ratio(c1, ppc(corpus, 'resiliparse')), 2)} "
              f"| {fmt(ratio(c1, ppc(corpus, 'trafilatura')), 1)} | {fmt(ratio(c1, c2), 2)} |")
    print()
    print("Wall seconds of every repetition (sorted):")
    print()
    for (c, label), s in stats.items():
        print(f"- {c} / {label}: " + ", ".join(f"{w:.3f}" for w in s["walls"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--tool", required=True)
    r.add_argument("--corpus", required=True)
    r.add_argument("--json", required=True)
    t = sub.add_parser("table")
    t.add_argument("--results", required=True)
    args = ap.parse_args()
    if args.cmd == "run":
        cmd_run(args)
    else:
        cmd_table(args)


if __name__ == "__main__":
    sys.exit(main())
