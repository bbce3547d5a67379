"""Hostile input: an error or None for that input, never a crash, and the
interpreter goes on."""

import zlib

import pytest

import canopy
from conftest import SAMPLE


def outcome(html, url="https://example.com/x"):
    """None, a dict, or the CanopyError: anything else fails the test."""
    try:
        return canopy.extract(html, url=url)
    except canopy.CanopyError as e:
        assert e.reason and str(e) == e.reason
        return e


@pytest.mark.parametrize(
    "html",
    [
        b"",
        "",
        b"\x00" * 1000,
        bytes(range(256)) * 400,
        b"\xff\xfe" + b"\x00\xd8" * 5000,  # UTF-16 BOM, lone surrogates
        b"<" * 100_000,
        b"<div>" * 50_000,
        b"<p " + b"a" * 100 + b'="' + b"x" * 8_000_000 + b'">text</p>',
        b"<html><body>" + b"<table><tr><td>" * 3000 + b"deep",
        b"<?xml version='1.0'?><rss><channel></channel></rss>",
    ],
    ids=["empty", "empty-str", "nul", "binary", "utf16-garbage", "lt", "divs", "huge-attribute", "deep", "feed"],
)
def test_garbage_gives_none_or_an_error(html):
    result = outcome(html)
    assert result is None or isinstance(result, (dict, canopy.CanopyError))


@pytest.mark.parametrize("url", [None, "", "not a url", "file:///etc/passwd", "http://", "https://exa mple.com/"])
def test_odd_urls(url):
    html = b"<html><body><article>" + b"<p>Quite a few words in a paragraph of text. </p>" * 20 + b"</article></body></html>"
    result = outcome(html, url)
    assert result is None or isinstance(result, (dict, canopy.CanopyError))


def test_wrong_types_raise_type_errors():
    with pytest.raises(TypeError):
        canopy.extract(12345)
    with pytest.raises(TypeError):
        canopy.extract_site([12345])
    with pytest.raises(TypeError):
        canopy.extract_site([("https://a.com/", 5)])
    with pytest.raises(TypeError):
        canopy.extract_many([b"no url"])
    with pytest.raises(ValueError):
        canopy.extract_site([{"html": "<p>no url"}])


def test_bad_settings_raise_value_errors():
    for settings in (
        {"extract": {"residue": "no"}},
        {"extract": {"no_such_key": 1}},
        {"no_such_section": {}},
        {"run": 5},
        {"dom": {"max_depth": -1}},
        {"method": "nonsense"},
    ):
        with pytest.raises(ValueError):
            canopy.extract(b"<p>x", **settings)
        with pytest.raises(ValueError):
            canopy.extract_site([], **settings)
    with pytest.raises((TypeError, ValueError)):
        canopy.extract(b"<p>x", extract={"residue": None})
    with pytest.raises(OSError):
        canopy.extract(b"<p>x", config="/no/such/config.toml")


def test_empty_and_odd_sites():
    empty = canopy.extract_site([])
    assert empty.articles == [] and empty.wrappers == []
    odd = canopy.extract_site([("https://a.com/1", b""), ("https://a.com/2", bytes(range(256)) * 100)])
    assert len(odd.articles) + len(odd.rejects) + len(odd.duplicates) <= 2


def test_binary_bytes_are_rejected_as_canopy_run_rejects_them():
    noise = bytes(range(256)) * 100
    with pytest.raises(canopy.CanopyError) as e:
        canopy.extract(noise, url="https://a.com/photo")
    assert e.value.stage == "http" and e.value.reason.startswith("binary content")
    assert e.value.url == "https://a.com/photo"
    page = b"<html><body><article>" + b"<p>Quite a few words in a paragraph of text. </p>" * 20 + b"</article></body></html>"
    site = canopy.extract_site([("https://a.com/1", page), ("https://a.com/2", noise)])
    assert [a["url"] for a in site.articles] == ["https://a.com/1"]
    assert [(r["url"], r["stage"]) for r in site.rejects] == [("https://a.com/2", "http")]


def test_unreadable_files(tmp_path):
    with pytest.raises(canopy.CanopyError):
        canopy.read_warc(tmp_path / "missing.warc.gz")
    junk = tmp_path / "junk.warc"
    junk.write_bytes(bytes(range(256)) * 1000)
    try:
        records = list(canopy.read_warc(junk))
    except canopy.CanopyError as e:
        assert e.reason
    else:
        assert all(r["kind"] == "reject" and r["reason"] for r in records)
    bad = tmp_path / "wrappers.jsonl"
    bad.write_text("{not json\n")
    try:
        w = canopy.Wrappers.load(bad)
    except canopy.CanopyError as e:
        assert e.reason
    else:
        # Its one line is no wrapper: the page gets the page-level path.
        article = w.apply("https://a.com/", b"<p>x</p>")
        assert article is None or article["wrapper"] is None


def test_truncated_warc_keeps_the_records_before(tmp_path):
    data = (SAMPLE / "warc" / "warcfile.warc.gz").read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) // 2])
    records = list(canopy.read_warc(cut))
    assert any(r["kind"] == "page" for r in records)


def test_a_corrupt_gzip_member_spoils_its_record_only(tmp_path):
    """Reading resumes at the next member (docs/robustness.md, "A corrupt
    member or a broken header spoils one record")."""
    data = (SAMPLE / "warc" / "warcfile.warc.gz").read_bytes()
    starts, pos = [], 0
    while pos < len(data):
        inflate = zlib.decompressobj(31)
        inflate.decompress(data[pos:])
        starts.append(pos)
        pos = len(data) - len(inflate.unused_data)
    middle = starts[len(starts) // 2]
    spoilt = bytearray(data)
    for i in range(middle + 30, middle + 60):
        spoilt[i] ^= 0x5A
    path = tmp_path / "spoilt.warc.gz"
    path.write_bytes(bytes(spoilt))
    whole = [r for r in canopy.read_warc(SAMPLE / "warc" / "warcfile.warc.gz") if r["kind"] == "page"]
    records = list(canopy.read_warc(path))
    pages = [r["record_id"] for r in records if r["kind"] == "page"]
    rejects = [r for r in records if r["kind"] == "reject"]
    assert [r["record_id"] for r in whole if r["source"]["offset"] != middle] == pages
    assert len(rejects) == 1 and rejects[0]["source"]["offset"] == middle
    assert "skipped to the next record" in rejects[0]["reason"]
