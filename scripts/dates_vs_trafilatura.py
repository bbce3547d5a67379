#!/usr/bin/env python3
"""Canopy's article dates against trafilatura's, page by page.

Usage (from the repository root, with trafilatura installed, e.g. the
peers' venv of scripts/peers/setup.sh):

    ./target/release/canopy run ../shared/corpora/dragnet/dragnet.warc.gz --out /tmp/d
    scripts/peers/.venv/bin/python scripts/dates_vs_trafilatura.py \
        ../shared/corpora/dragnet /tmp/d/articles.jsonl --out target/dates

Reference: `trafilatura.extract_metadata(html_bytes, default_url=url).date`
with trafilatura's default settings (htmldate's `find_date` with
`original_date=True, extensive_search=True`, `max_date` today). Its dates are
cached in `<out>/trafilatura-<corpus>.tsv` (delete the file to recompute).

For each page of the corpus's manifest.tsv (joined to articles.jsonl by
`record_id`, else by `url`), it compares the two dates to the day and prints:

- coverage: pages trafilatura dates where Canopy gives a date too;
- agreement: of those, the share whose day is the same;
- the pages Canopy misses or dates differently, each with where in the page
  trafilatura's day is written (see `locate`), counted by place.

Writes `<out>/dates-<corpus>.tsv`: id, url, trafilatura, canopy, verdict, place.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

MONTHS = [
    "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december",
]


def trafilatura_dates(corpus: Path, rows: list[dict], cache: Path) -> dict[str, str]:
    """id -> trafilatura's date ('' when it finds none), cached in `cache`."""
    if cache.exists():
        with cache.open() as f:
            return {r[0]: r[1] for r in csv.reader(f, delimiter="\t")}
    import trafilatura  # noqa: PLC0415 (only needed when not cached)

    out = {}
    for i, row in enumerate(rows):
        html = (corpus / row.get("html", f"html/{row['id']}.html")).read_bytes()
        try:
            meta = trafilatura.extract_metadata(html, default_url=row["url"])
            out[row["id"]] = (meta.date or "") if meta else ""
        except Exception as e:  # noqa: BLE001 (a peer's failure is a missing date)
            print(f"{row['id']}: {e}", file=sys.stderr)
            out[row["id"]] = ""
        if i % 100 == 0:
            print(f"trafilatura: {i}/{len(rows)}", file=sys.stderr)
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("w", newline="") as f:
        csv.writer(f, delimiter="\t").writerows(sorted(out.items()))
    return out


def spellings(day: str) -> list[tuple[str, str]]:
    """(kind, regex) for the ways a page may write the ISO day `day`."""
    y, m, d = day[:4], int(day[5:7]), int(day[8:10])
    month = MONTHS[m - 1]
    mon = month[:3]
    md = rf"(?:{month}|{mon}\.?)"
    return [
        ("iso", rf"{y}-{m:02d}-{d:02d}"),
        ("ymd-slash", rf"{y}/{m:02d}/{d:02d}"),
        ("month-name", rf"{md}\s+0?{d}(?:st|nd|rd|th)?,?\s+{y}"),
        ("month-name", rf"0?{d}(?:st|nd|rd|th)?\s+(?:of\s+)?{md},?\s+{y}"),
        ("numeric", rf"0?{m}[/.-]0?{d}[/.-](?:{y}|{y[2:]})\b"),
        ("numeric", rf"0?{d}[/.-]0?{m}[/.-](?:{y}|{y[2:]})\b"),
        ("compact", rf"{y}{m:02d}{d:02d}"),
    ]


def locate(html: bytes, url: str, day: str) -> str:
    """Where the page writes `day` (first match in this order):

    url-path       the page URL holds it (/2012/07/02/, 2012-07-02, 20120702)
    meta:<name>    a <meta> tag's content
    json-ld        a <script type=application/ld+json>
    attr:<tag>.<a> another attribute (title of <abbr>, datetime, data-*)
    text:<kind>    visible text (month names, numeric), with the
                   class/id of the nearest marked ancestor
    script         only inside other scripts
    nowhere        not found in any of these spellings
    """
    import lxml.html  # noqa: PLC0415

    pats = [(k, re.compile(p, re.I)) for k, p in spellings(day)]
    y, m, d = day[:4], day[5:7], day[8:10]
    if re.search(rf"{y}[/_-]?{m}[/_-]?{d}", url) or re.search(
        rf"/{y}/{int(m)}/{int(d)}/", url
    ):
        return "url-path"
    try:
        tree = lxml.html.fromstring(html)
    except Exception:  # noqa: BLE001
        return "unparsed"
    for el in tree.iter("meta"):
        content = el.get("content") or ""
        if any(p.search(content) for _, p in pats):
            name = el.get("property") or el.get("name") or el.get("itemprop") or "?"
            return f"meta:{name.lower()}"
    for el in tree.iter("script"):
        if (el.get("type") or "").lower() == "application/ld+json" and any(
            p.search(el.text or "") for _, p in pats
        ):
            return "json-ld"
    for el in tree.iter():
        if not isinstance(el.tag, str) or el.tag in ("meta", "script"):
            continue
        for a, v in el.attrib.items():
            if a in ("href", "src"):
                continue
            if any(p.search(v) for _, p in pats):
                return f"attr:{el.tag}.{a}"
    for el in tree.iter():
        if not isinstance(el.tag, str) or el.tag in ("script", "style"):
            continue
        for t in (el.text, el.tail):
            for kind, p in pats:
                if t and p.search(t):
                    owner = el if t is el.text else el.getparent()
                    return f"text:{kind}" + marked_ancestor(owner)
    text = html.decode("utf-8", "replace")
    if any(p.search(text) for _, p in pats):
        return "script"
    return "nowhere"


def marked_ancestor(el) -> str:
    """` <tag.class>` of the nearest ancestor with a class or id, for context."""
    while el is not None:
        cls = (el.get("class") or el.get("id") or "").strip()
        if cls:
            return f" <{el.tag}.{cls.split()[0][:30]}>"
        el = el.getparent()
    return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path, help="corpus folder (manifest.tsv, html/)")
    ap.add_argument("articles", type=Path, help="canopy's articles.jsonl")
    ap.add_argument("--out", type=Path, default=Path("target/dates"))
    ap.add_argument("--show", type=int, default=0, help="print this many misses")
    args = ap.parse_args()

    name = args.corpus.resolve().name
    with (args.corpus / "manifest.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    traf = trafilatura_dates(args.corpus, rows, args.out / f"trafilatura-{name}.tsv")

    by_record, by_url = {}, {}
    with args.articles.open() as f:
        for line in f:
            a = json.loads(line)
            by_record[a.get("record_id")] = a.get("date")
            by_url[a["url"]] = a.get("date")

    counts = {"traf": 0, "covered": 0, "agree": 0, "canopy_only": 0, "canopy": 0}
    places: dict[str, int] = {}
    table = []
    for row in rows:
        t = traf.get(row["id"], "")
        c = by_record.get(row["record_id"], by_url.get(row["url"])) or ""
        counts["canopy"] += bool(c)
        if not t:
            counts["canopy_only"] += bool(c)
            table.append((row["id"], row["url"], t, c, "no-reference", ""))
            continue
        counts["traf"] += 1
        if c:
            counts["covered"] += 1
        if c and c[:10] == t[:10]:
            counts["agree"] += 1
            table.append((row["id"], row["url"], t, c, "agree", ""))
            continue
        place = locate((args.corpus / row.get("html", f"html/{row['id']}.html")).read_bytes(), row["url"], t[:10])
        verdict = "differs" if c else "missing"
        places[f"{verdict} {place}"] = places.get(f"{verdict} {place}", 0) + 1
        table.append((row["id"], row["url"], t, c, verdict, place))

    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"dates-{name}.tsv"
    with out.open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["id", "url", "trafilatura", "canopy", "verdict", "place"])
        w.writerows(table)

    n, cov, agr = counts["traf"], counts["covered"], counts["agree"]
    print(f"{name}: {len(rows)} pages; trafilatura dates {n}, canopy dates {counts['canopy']}")
    print(f"coverage  {cov}/{n} = {cov / max(n, 1):.1%} (canopy dated where trafilatura is)")
    print(f"agreement {agr}/{cov} = {agr / max(cov, 1):.1%} (same day, of those)")
    print(f"canopy dates {counts['canopy_only']} pages trafilatura does not")
    print("misses and differences, by where trafilatura's day is in the page:")
    for k, v in sorted(places.items(), key=lambda kv: -kv[1]):
        print(f"  {v:4}  {k}")
    if args.show:
        shown = [r for r in table if r[4] in ("missing", "differs")][: args.show]
        for r in shown:
            print("  ", *r, sep="\t")
    print(f"per page: {out}")


if __name__ == "__main__":
    main()
