"""The datatrove steps, run for real: a LocalPipelineExecutor reading the
sample's WARCs with datatrove's own WarcReader."""

import json
from collections import defaultdict

import pytest

pytest.importorskip("datatrove")

from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402

import canopy  # noqa: E402
from canopy.datatrove import CanopyExtractor, CanopySiteExtractor  # noqa: E402
from conftest import SAMPLE  # noqa: E402


@pytest.fixture(scope="module")
def warcs(tmp_path_factory):
    """The sample's pages as one WARC datatrove reads whole: WarcReader
    decodes only UTF-8 (or what cchardet guesses) and skips the ClueWeb
    shop's EUC-JP pages, so each page is written again as UTF-8, with its
    WARC-Record-ID, URL and date, site after site (the clueweb shop: 29
    pages of one site, whose wrapper is learned)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter
    import io

    folder = tmp_path_factory.mktemp("warc")
    with open(folder / "sample.warc.gz", "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for name in ("warcfile.warc.gz", "clueweb-quirk.warc.gz"):
            for r in canopy.read_warc(SAMPLE / "warc" / name):
                if r["kind"] != "page":
                    continue
                http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
                record = writer.create_warc_record(
                    r["url"], "response", payload=io.BytesIO(r["html"].encode("utf-8")), http_headers=http,
                    warc_headers_dict={"WARC-Record-ID": r["record_id"], "WARC-Date": r["date"] or "2020-01-01T00:00:00Z",
                                       "WARC-Identified-Payload-Type": "text/html"},
                )
                writer.write_record(record)
    return str(folder)


def run_pipeline(warcs, step, out):
    executor = LocalPipelineExecutor(
        pipeline=[
            WarcReader(warcs),
            step,
            JsonlWriter(str(out), output_filename="docs.jsonl", compression=None),
        ],
        tasks=1,
        workers=1,
        logging_dir=str(out / "logs"),
    )
    executor.run()
    with open(out / "docs.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_docs(warcs):
    """The Documents WarcReader gives (the HTML as datatrove decodes it)."""
    return list(WarcReader(warcs).run())


def test_page_step_equals_canopy_extract(warcs, tmp_path):
    docs = read_docs(warcs)
    assert len(docs) == 45, "the sample holds 45 pages"
    expected = {}
    for d in docs:
        try:
            article = canopy.extract(d.text, url=d.metadata["url"])
        except canopy.CanopyError:
            article = None
        if article and article["text"]:
            expected[d.id] = article
    out = run_pipeline(warcs, CanopyExtractor(), tmp_path)
    assert {d["id"] for d in out} == set(expected)
    for d in out:
        article = expected[d["id"]]
        assert d["text"] == article["text"]
        assert d["metadata"]["title"] == article["title"]
        assert d["metadata"]["lang"] == article["lang"]
        assert d["metadata"]["url"] == article["url"]
    stats = json.loads((tmp_path / "logs" / "stats.json").read_text())
    assert any("Canopy" in s["name"] for s in stats)


def test_page_step_is_a_trafilatura_drop_in(warcs):
    # datatrove's extractor interface: text in, text out.
    step = CanopyExtractor(timeout=5, method="page")
    doc = read_docs(warcs)[0]
    assert isinstance(step.extract(doc.text), str)
    with pytest.raises(ValueError):
        CanopyExtractor(extract={"no_such_key": 1})


def test_site_step_equals_extract_site(warcs, tmp_path):
    docs = read_docs(warcs)
    sites = defaultdict(list)
    for d in docs:
        sites[canopy.site_key(d.metadata["url"])].append(
            {"url": d.metadata["url"], "html": d.text, "record_id": d.id, "date": d.metadata.get("date")}
        )
    expected = {}
    for pages in sites.values():
        for a in canopy.extract_site(pages).articles:
            if a["text"]:
                expected[a["record_id"]] = a
    # The clueweb shop is one site of 29 pages: its wrapper is learned.
    assert any(a["wrapper"] for a in expected.values())
    out = run_pipeline(warcs, CanopySiteExtractor(), tmp_path)
    assert {d["id"] for d in out} == set(expected)
    for d in out:
        assert d["text"] == expected[d["id"]]["text"]
        assert d["metadata"]["method"] == expected[d["id"]]["method"]
