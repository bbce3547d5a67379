"""Site level: extract_site equals `canopy run` for every site of big9 and
dragnet; saved wrappers; canopy.run as the command."""

import csv
import subprocess
from collections import defaultdict

import pytest

import canopy
from conftest import SAMPLE, canopy_bin, cli_run, corpus, read_jsonl


def pages_by_site(warcs):
    """Each site's pages in read order (files in canopy run's sorted order)."""
    sites = defaultdict(list)
    for warc in sorted(warcs):
        for record in canopy.read_warc(warc):
            if record["kind"] == "page":
                sites[canopy.site_key(record["url"])].append(record)
    return sites


def by_site(records):
    out = defaultdict(list)
    for r in records:
        out[r["site"]].append(r)
    return out


def test_extract_site_equals_canopy_run_on_every_site(corpora_run):
    warcs, out = corpora_run
    run_articles = by_site(read_jsonl(out / "articles.jsonl"))
    run_wrappers = by_site(read_jsonl(out / "wrappers.jsonl"))
    with open(out / "summary.csv", newline="", encoding="utf-8") as f:
        run_summary = by_site(csv.DictReader(f))
    sites = pages_by_site(warcs)
    assert len(sites) >= 200, "big9 and dragnet have 266 sites"
    differ = []
    for site, pages in sorted(sites.items()):
        result = canopy.extract_site(pages)
        # As the CSV writes them: None (no check) is an empty cell.
        summary = [{k: "" if v is None else str(v) for k, v in row.items()} for row in result.summary]
        if (
            result.articles != run_articles.get(site, [])
            or result.wrappers != run_wrappers.get(site, [])
            or summary != run_summary.get(site, [])
        ):
            differ.append(site)
    assert not differ, f"{len(differ)} of {len(sites)} sites differ from canopy run: {differ[:10]}"
    # Every site of the run was seen.
    assert set(run_articles) <= set(sites)


def test_extract_site_takes_tuples_and_keeps_order():
    pages = [r for r in canopy.read_warc(SAMPLE / "warc" / "clueweb-quirk.warc.gz") if r["kind"] == "page"]
    from_dicts = canopy.extract_site(pages)
    assert len(from_dicts.articles) > 0 and from_dicts.summary
    # Tuples of (url, html str): the same pages, decoded already.
    from_tuples = canopy.extract_site([(p["url"], p["html"]) for p in pages])
    assert [a["url"] for a in from_tuples.articles] == [a["url"] for a in from_dicts.articles]
    assert [a["text"] for a in from_tuples.articles] == [a["text"] for a in from_dicts.articles]


def test_duplicates_are_listed():
    pages = [r for r in canopy.read_warc(SAMPLE / "warc" / "clueweb-quirk.warc.gz") if r["kind"] == "page"]
    twice = pages + [dict(pages[0], record_id="<urn:uuid:copy>")]
    result = canopy.extract_site(twice)
    assert len(result.duplicates) == 1
    assert len(result.articles) == len(canopy.extract_site(pages).articles)


def test_saved_wrappers_apply_as_the_command(tmp_path):
    warc = corpus("big9") / "big9.warc.gz"
    out = cli_run([warc], tmp_path / "learn")
    applied = tmp_path / "applied"
    proc = subprocess.run(
        [str(canopy_bin()), "wrappers", "apply", "--wrappers", str(out / "wrappers.jsonl"), str(warc),
         "--out", str(applied)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    expected = {a["url"]: a for a in read_jsonl(applied / "articles.jsonl")}
    wrappers = canopy.Wrappers.load(out / "wrappers.jsonl")
    compared = same = 0
    for record in canopy.read_warc(warc):
        if record["kind"] != "page" or record["url"] not in expected:
            continue
        got = wrappers.apply(record["url"], record["html"])
        want = expected[record["url"]]
        assert got is not None, record["url"]
        compared += 1
        if got["wrapper"] is None and want["wrapper"] is not None:
            # Alone, a page may not fit its saved template well enough
            # (the reuse rules are shares of a cluster's pages): the
            # page-level path serves it, never another wrapper.
            assert got["method"] == "page", record["url"]
            continue
        same += 1
        for key in ("method", "wrapper"):
            assert got[key] == want[key], (record["url"], key)
        # Without its cluster's pages the template residue (lines on half
        # of them) and the title's site-name part cannot be told: nearly
        # all the command's lines are there, and maybe a few more.
        have = set(got["text"].splitlines())
        lines = want["text"].splitlines()
        assert sum(l in have for l in lines) >= 0.9 * len(lines), record["url"]
    # Measured: 175 of 200 big9 pages get the command's wrapper alone.
    assert compared >= 190 and same >= 0.8 * compared, (compared, same)
    # A site's pages together are extracted as the command extracts them.
    pages = defaultdict(list)
    for record in canopy.read_warc(warc):
        if record["kind"] == "page":
            pages[canopy.site_key(record["url"])].append(record)
    applied_articles = by_site(read_jsonl(applied / "articles.jsonl"))
    for site, site_pages in pages.items():
        assert wrappers.apply_site(site_pages).articles == applied_articles.get(site, []), site
    with pytest.raises(canopy.CanopyError):
        canopy.Wrappers.load(tmp_path / "missing.jsonl")


def test_run_writes_what_the_command_writes(tmp_path):
    cli = cli_run([SAMPLE], tmp_path / "cli")
    counts = canopy.run([SAMPLE], tmp_path / "py")
    assert counts["articles"] > 0
    for name in ("articles.jsonl", "wrappers.jsonl", "summary.csv", "rejects.jsonl", "duplicates.jsonl"):
        assert (tmp_path / "py" / name).read_bytes() == (cli / name).read_bytes(), name
    with pytest.raises(canopy.CanopyError):
        canopy.run([tmp_path / "no-such-input"], tmp_path / "none")
