"""Page level: canopy.extract against `canopy page`, settings, batches and
the GIL."""

import json
import subprocess
import threading
import time

import pytest

import canopy
from conftest import SAMPLE, canopy_bin, corpus, manifest


def cli_page(path, url, *flags):
    proc = subprocess.run(
        [str(canopy_bin()), "page", str(path), "--url", url, "--format", "json", *flags],
        capture_output=True, text=True,
    )
    if proc.returncode == 1:
        return None
    assert proc.returncode == 0, proc.stderr
    article = json.loads(proc.stdout)
    # The command names the file it read; bytes handed to extract come
    # from no file. Everything else is the same.
    assert article.pop("source") == {"file": str(path), "offset": None}
    return article


def extract(html, **kwargs):
    article = canopy.extract(html, **kwargs)
    if article is not None:
        assert article.pop("source") is None
    return article


def sample_pages(name, n):
    rows = manifest(name)
    step = max(len(rows) // n, 1)
    return [(corpus(name) / r["html"], r["url"]) for r in rows[::step][:n]]


@pytest.mark.parametrize("name", ["big9", "dragnet"])
def test_extract_equals_canopy_page(name):
    pages = sample_pages(name, 12)
    for path, url in pages:
        expected = cli_page(path, url)
        got = extract(path.read_bytes(), url=url)
        assert got == expected, path
    assert any(cli_page(p, u) for p, u in pages), "no page gave an article: the comparison is empty"


def test_formats_and_method_as_the_cli():
    path, url = sample_pages("dragnet", 3)[1]
    html = path.read_bytes()
    expected = cli_page(path, url, "--method", "page")
    assert extract(html, url=url, method="page") == expected
    md = canopy.extract(html, url=url, run={"formats": ["text", "markdown", "html"]})
    assert md["markdown"] and md["html"] and md["text"] == expected["text"]


def test_str_input_is_utf8():
    # A str is decoded already: its <meta charset> must not re-decode it.
    html = "<html><head><meta charset='iso-8859-1'><title>Ünïcödé</title></head><body><article><h1>Ünïcödé</h1>" + (
        "<p>Grüße aus Köln, ein ziemlich langer Absatz mit vielen Wörtern darin. </p>" * 20
    ) + "</article></body></html>"
    article = canopy.extract(html, url="https://example.com/a")
    assert article is not None
    assert "Grüße aus Köln" in article["text"]


def test_settings_change_the_result_and_bad_ones_raise():
    path, url = sample_pages("dragnet", 3)[0]
    html = path.read_bytes()
    with pytest.raises(ValueError, match="residu"):
        canopy.extract(html, url=url, extract={"residu": False})
    with pytest.raises(ValueError, match="nosuchsection"):
        canopy.extract(html, url=url, nosuchsection={"a": 1})
    with pytest.raises(ValueError):
        canopy.extract(html, url=url, extract={"residue": "yes"})
    with pytest.raises(ValueError):
        canopy.extract(html, url=url, method="no-such-method")
    with pytest.raises(TypeError):
        canopy.extract(html, url=url, extract={"residue": object()})


def test_config_file_then_keywords(tmp_path):
    path, url = sample_pages("dragnet", 3)[2]
    config = tmp_path / "c.toml"
    config.write_text('[run]\nformats = ["text", "markdown"]\n')
    article = canopy.extract(path.read_bytes(), url=url, config=config)
    assert "markdown" in article
    both = canopy.extract(path.read_bytes(), url=url, config=str(config), run={"formats": ["text"]})
    assert "markdown" not in both
    bad = tmp_path / "bad.toml"
    bad.write_text("[extract]\nnot_a_key = 1\n")
    with pytest.raises(ValueError, match="not_a_key"):
        canopy.extract(b"<p>x", config=bad)
    canopy.check_settings(extract={"residue": False})
    with pytest.raises(ValueError):
        canopy.check_settings(extract={"residue": 1.5})


def test_extract_many_equals_extract():
    pages = [(p.read_bytes(), u) for p, u in sample_pages("big9", 8)]
    pages.append((b"", "https://example.com/empty"))
    many = canopy.extract_many(pages)
    assert len(many) == len(pages)
    for (html, url), got in zip(pages, many):
        if isinstance(got, canopy.CanopyError):
            with pytest.raises(canopy.CanopyError):
                canopy.extract(html, url=url)
        else:
            assert got == canopy.extract(html, url=url)
    assert canopy.extract_many(pages[:3], threads=1) == many[:3]


def test_gil_is_released_during_extraction():
    # A page of ~6 MB takes Canopy a while; a Python thread counting
    # meanwhile only gets to run if extract lets go of the GIL (holding
    # it, the call would leave the counter still: a C call is not
    # interrupted at the switch interval).
    path, url = sample_pages("dragnet", 3)[0]
    html = path.read_bytes()
    body = html * max(1, 6_000_000 // len(html))
    done = threading.Event()
    ticks = 0

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0)

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.05)
    start_ticks = ticks
    t0 = time.perf_counter()
    canopy.extract(body, url=url)
    elapsed = time.perf_counter() - t0
    during = ticks - start_ticks
    done.set()
    t.join()
    assert elapsed > 0.05, "the page was too quick to tell"
    assert during > 200, f"only {during} ticks in {elapsed:.2f}s: the GIL was held"


def test_site_key():
    assert canopy.site_key("https://www.example.com/a/b?c") == "example.com"
    assert canopy.site_key("http://m.example.com/") == "example.com"
    assert canopy.site_key("http://news.example.com/") == "news.example.com"


def test_read_warc_streams_records():
    path = SAMPLE / "warc" / "warcfile.warc.gz"
    records = canopy.read_warc(path)
    first = next(records)
    assert first["kind"] in ("page", "feed", "reject")
    rest = list(records)
    pages = [r for r in [first, *rest] if r["kind"] == "page"]
    assert len(pages) == 16
    for p in pages:
        assert set(p) >= {"url", "html", "record_id", "date", "status", "charset", "content_language", "source"}
        assert isinstance(p["html"], str) and p["source"]["file"].endswith("warcfile.warc.gz")
    assert next(records, None) is None
