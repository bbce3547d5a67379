"""Canopy in process: clean article text and per-site XPath wrappers from
web pages and crawls (WARC), the same code and output as the ``canopy``
command line.

>>> import canopy
>>> article = canopy.extract(html_bytes, url="https://example.com/news/1")
>>> article["title"], article["text"]

Page level: :func:`extract`, :func:`extract_many`. Site level (wrappers
learned across a site's pages): :func:`extract_site`. Input and whole runs:
:func:`read_warc`, :func:`run`, :func:`site_key`, :class:`Wrappers`.
Settings are keyword arguments named after the sections of
``configs/default.toml`` (``extract={"residue": False}``), plus ``config``
(a TOML file), ``method`` and ``threads``; docs/python.md has the details.
Recipes: :mod:`canopy.datatrove` (datatrove steps), :mod:`canopy.spark`
(a PySpark job).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List

from ._canopy import (
    CanopyError,
    WarcRecords,
    Wrappers,
    __version__,
    check_settings,
    extract,
    extract_many,
    read_warc,
    run,
    site_key,
)
from ._canopy import extract_site as _extract_site

__all__ = [
    "CanopyError",
    "SiteResult",
    "WarcRecords",
    "Wrappers",
    "__version__",
    "check_settings",
    "extract",
    "extract_many",
    "extract_site",
    "read_warc",
    "run",
    "site_key",
]


@dataclass
class SiteResult:
    """What :func:`extract_site` gives for one site: each list holds the
    records ``canopy run`` writes for it, one dict per line of the file of
    the same name (``summary``: the rows of summary.csv), in the run's
    order."""

    articles: List[Dict[str, Any]] = field(default_factory=list)
    wrappers: List[Dict[str, Any]] = field(default_factory=list)
    summary: List[Dict[str, Any]] = field(default_factory=list)
    rejects: List[Dict[str, Any]] = field(default_factory=list)
    duplicates: List[Dict[str, Any]] = field(default_factory=list)


def extract_site(pages: Iterable[Any], **settings: Any) -> SiteResult:
    """All pages of one site through everything ``canopy run`` does to a
    site, in process: exact duplicates left out, template groups, a wrapper
    learned and checked for each, the page-level path for the pages no
    wrapper serves.

    ``pages``: ``(url, html)`` or ``(url, html, content_type)`` tuples
    (html as bytes or str), page dicts of :func:`read_warc` (their feeds
    and rejects are passed over), or dicts ``{"url", "html"}`` with
    optional ``content_type``, ``record_id`` and ``date``; in read order
    (it decides which of two identical pages is kept). The GIL is released
    while the site is processed, on rayon's pool.

    Raises :class:`CanopyError` when the site cannot be processed and
    ValueError for bad settings; a page that cannot be used is one of
    ``rejects``, and the others go on.
    """
    return SiteResult(**_extract_site(pages, **settings))
