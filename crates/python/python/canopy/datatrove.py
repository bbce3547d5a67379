"""Canopy as datatrove pipeline steps (``pip install datatrove``).

- :class:`CanopyExtractor`: page level, a drop-in for datatrove's
  ``Trafilatura`` step: each Document's text (the HTML, as ``WarcReader``
  reads it) becomes its article's text.
- :class:`CanopySiteExtractor`: site level, for input already grouped by
  site (the Documents of one site one after another, e.g. a WARC written
  site by site, or a shard produced by a shuffle on :func:`canopy.site_key`):
  each run of Documents of one site goes through :func:`canopy.extract_site`,
  so pages of a template share a learned wrapper.

Both add the article's fields to ``doc.metadata`` (``title``, ``lang``,
``authors``, ``published`` (the article's date; ``date`` stays the
WARC-Date), ``site``, ``cluster``, ``method``, ``wrapper``,
``site_name``, ``canonical_url``, ``top_image``; absent when the page has
none) and drop Documents without an article, counted in the step's stats.

Unlike datatrove's extractors, these do not run each page in a sandbox
process: Canopy bounds a page's time itself (``run.page_budget_ms``, or
``timeout`` here) and reports a page it cannot use as an error of that page
(counted as ``rejected_<stage>``), never a crash.
"""

from __future__ import annotations

from typing import Any, Iterable, List

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.base import PipelineStep
from datatrove.pipeline.extractors.base import BaseExtractor
from datatrove.utils.logging import logger
from datatrove.utils.typeshelper import StatHints

import canopy

# Article fields copied to doc.metadata, as (article key, metadata key).
_METADATA = [
    ("title", "title"),
    ("lang", "lang"),
    ("authors", "authors"),
    ("date", "published"),
    ("site", "site"),
    ("cluster", "cluster"),
    ("method", "method"),
    ("wrapper", "wrapper"),
    ("site_name", "site_name"),
    ("canonical_url", "canonical_url"),
    ("top_image", "top_image"),
]


def _settings(timeout: float | None, settings: dict) -> dict:
    settings = dict(settings)
    if timeout:
        run = dict(settings.get("run", {}))
        run["page_budget_ms"] = max(1, int(timeout * 1000))
        settings["run"] = run
    # Bad settings fail when the pipeline is built, not in its tasks.
    canopy.check_settings(**settings)
    return settings


def _fill(doc: Document, article: dict) -> None:
    doc.text = article["text"]
    for key, meta in _METADATA:
        value = article.get(key)
        if value is not None:
            doc.metadata[meta] = value


class CanopyExtractor(BaseExtractor):
    """Canopy's page-level extraction (``canopy page``) of each Document.

    Args:
        timeout: a page's time budget in seconds (Canopy's own
            ``run.page_budget_ms``; default 60 s).
        **settings: Canopy's settings, as for :func:`canopy.extract`
            (``method="page"``, ``extract={"residue": False}``, ...).
    """

    name = "🌳 Canopy"
    _requires_dependencies = []

    def __init__(self, timeout: float | None = None, **settings: Any):
        super().__init__(timeout=timeout or 0)
        self.settings = _settings(timeout, settings)

    def extract(self, text: str) -> str:
        """The article text of one page (no URL): datatrove's extractor interface."""
        article = canopy.extract(text, **self.settings)
        return article["text"] if article else ""

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        for doc in data:
            self.stat_update(StatHints.total)
            with self.track_time():
                try:
                    article = canopy.extract(doc.text, url=doc.metadata.get("url"), **self.settings)
                except canopy.CanopyError as e:
                    self.stat_update(f"rejected_{e.stage or 'error'}")
                    logger.debug(f"canopy: {doc.id}: {e.reason}")
                    continue
            if article and article["text"]:
                _fill(doc, article)
                self.stat_update("extracted", StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc
            else:
                self.stat_update(StatHints.dropped)


class CanopySiteExtractor(PipelineStep):
    """Canopy's site-level extraction (what ``canopy run`` does to a site)
    of each run of consecutive Documents of one site.

    Documents must come grouped by site (:func:`canopy.site_key` of
    ``metadata["url"]``): a site whose Documents are split in two runs is
    processed as two sites. A site's Documents are held until it ends.

    Args:
        **settings: Canopy's settings, as for :func:`canopy.extract_site`.
    """

    type = "🛢 - EXTRAC"
    name = "🌳 Canopy (site)"

    def __init__(self, **settings: Any):
        super().__init__()
        self.settings = _settings(None, settings)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        site: List[Document] = []
        key = None
        for doc in data:
            self.stat_update(StatHints.total)
            k = canopy.site_key(doc.metadata.get("url") or "")
            if site and k != key:
                yield from self._site(site)
                site = []
            key = k
            site.append(doc)
        if site:
            yield from self._site(site)

    def _site(self, docs: List[Document]) -> Iterable[Document]:
        # Each Document's id is its page's record_id, so each article finds
        # its Document, duplicates included (same URL, different captures).
        pages = [
            {"url": d.metadata.get("url") or "", "html": d.text, "record_id": d.id, "date": d.metadata.get("date")}
            for d in docs
        ]
        with self.track_time():
            try:
                result = canopy.extract_site(pages, **self.settings)
            except canopy.CanopyError as e:
                self.stat_update("site_error", value=len(docs))
                logger.warning(f"canopy: site {canopy.site_key(pages[0]['url'])}: {e.reason}")
                return
        self.stat_update("sites")
        articles = {a["record_id"]: a for a in result.articles}
        self.stat_update("duplicates", value=len(result.duplicates))
        for reject in result.rejects:
            self.stat_update(f"rejected_{reject['stage']}")
        for doc in docs:
            article = articles.get(doc.id)
            if article and article["text"]:
                _fill(doc, article)
                self.stat_update("extracted", StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc
            else:
                self.stat_update(StatHints.dropped)
