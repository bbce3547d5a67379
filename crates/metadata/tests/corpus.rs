//! Metadata of real pages from `../shared/corpora`. Every expected value
//! below was read in the page's HTML (the tag it comes from is named).

use canopy_dom::{Document, DomOptions};
use canopy_metadata::{base_url, Capture, PageMeta};
use canopy_test_support::{corpora, manifest};

/// Every page of a corpus: (id, url, html).
fn pages(corpus: &str) -> Vec<(String, String, String)> {
    let dir = corpora().join(corpus);
    manifest(corpus)
        .into_iter()
        .map(|row| {
            let bytes = std::fs::read(dir.join(&row["html"])).unwrap();
            (
                row["id"].clone(),
                row["url"].clone(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        })
        .collect()
}

/// The page's URL as its capture (the corpora's WARC-Dates are not
/// read here: no upper bound on dates).
fn capture(url: &str) -> Capture<'_> {
    Capture {
        url: Some(url),
        warc_date: None,
    }
}

fn meta_of(corpus: &str, id: &str) -> PageMeta {
    let (_, url, html) = pages(corpus)
        .into_iter()
        .find(|(i, _, _)| i == id)
        .unwrap_or_else(|| panic!("{id} not in {corpus}"));
    let doc = Document::parse(&html, &DomOptions::default());
    PageMeta::extract(&doc, base_url(&doc, &url).as_ref(), &[], &capture(&url))
}

#[test]
fn json_ld_news_articles_of_big9() {
    // Fox News 2017: JSON-LD NewsArticle with a Java-style date and an
    // author object; og:site_name, og:image, <link rel=canonical>.
    let m = meta_of("big9", "big9-00153");
    assert_eq!(m.date.as_deref(), Some("2017-04-06T01:42:00"));
    assert_eq!(m.authors, ["FoxNews.com"]);
    assert_eq!(m.site_name.as_deref(), Some("Fox News"));
    assert_eq!(
        m.canonical_url.as_deref(),
        Some("http://www.foxnews.com/politics/2017/04/06/bannon-reportedly-threatened-to-leave-white-house-after-nsc-shakeup.html")
    );
    assert_eq!(
        m.top_image.as_deref(),
        Some("http://a57.foxnews.com/media2.foxnews.com/BrightCove/694940094001/2017/04/05/0/0/694940094001_5386415263001_5386397555001-vs.jpg?ve=1")
    );
    // BBC 2017: "datePublished": "2017-03-28T08:31:53+01:00", "author": "Dave Lee".
    let m = meta_of("big9", "big9-00155");
    assert_eq!(m.date.as_deref(), Some("2017-03-28T08:31:53+01:00"));
    assert_eq!(m.authors, ["Dave Lee"]);
    assert_eq!(m.site_name.as_deref(), Some("BBC News"));
    assert_eq!(
        m.canonical_url.as_deref(),
        Some("http://www.bbc.com/news/technology-39416231")
    );
}

#[test]
fn open_graph_and_article_tags_of_dragnet() {
    // <meta property="article:published_time" content="2012-07-19T00:00:00+01:00"/>
    let m = meta_of("dragnet", "dragnet-00005");
    assert_eq!(m.date.as_deref(), Some("2012-07-19T00:00:00+01:00"));
    assert_eq!(m.site_name.as_deref(), Some("BBC Future"));
    assert_eq!(
        m.top_image.as_deref(),
        Some("http://ichef.bbci.co.uk/wwfuture/130_73/images/live/p0/0w/88/p00w889v.jpg")
    );
    // A local time: content="2012-07-24T00:26:15".
    let m = meta_of("dragnet", "dragnet-00018");
    assert_eq!(m.date.as_deref(), Some("2012-07-24T00:26:15"));
    assert_eq!(m.site_name.as_deref(), Some("msnbc.com"));
    assert_eq!(
        m.canonical_url.as_deref(),
        Some("http://www.msnbc.msn.com/id/48294366/ns/technology_and_science-science/t/searchers-find-no-sign-amelia-earharts-plane/")
    );
    // CNET: no author <meta>; the byline is <a rel="author">Lance Whitney</a>
    // (an earlier rel=author link holds only the author's photo).
    let m = meta_of("dragnet", "dragnet-00090");
    assert_eq!(m.authors, ["Lance Whitney"]);
    assert_eq!(m.site_name.as_deref(), Some("CNET"));
}

/// On every page of both corpora: dates parse as ISO 8601 and URLs are
/// absolute http(s), whatever the page holds.
#[test]
fn every_page_gives_well_formed_fields() {
    let mut with = [0usize; 4];
    let mut total = 0;
    for corpus in ["big9", "dragnet"] {
        for (id, url, html) in pages(corpus) {
            let doc = Document::parse(&html, &DomOptions::default());
            let m = PageMeta::extract(&doc, base_url(&doc, &url).as_ref(), &[], &capture(&url));
            total += 1;
            if let Some(d) = &m.date {
                with[0] += 1;
                let ok = chrono::DateTime::parse_from_rfc3339(d).is_ok()
                    || chrono::NaiveDateTime::parse_from_str(d, "%Y-%m-%dT%H:%M:%S").is_ok()
                    || chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok();
                assert!(ok, "{id}: date {d}");
            }
            for u in [&m.canonical_url, &m.top_image].into_iter().flatten() {
                let parsed = url::Url::parse(u).unwrap_or_else(|e| panic!("{id}: {u}: {e}"));
                assert!(matches!(parsed.scheme(), "http" | "https"), "{id}: {u}");
            }
            with[1] += usize::from(m.canonical_url.is_some());
            with[2] += usize::from(m.site_name.is_some());
            with[3] += usize::from(!m.authors.is_empty());
            for a in &m.authors {
                assert!(
                    !a.is_empty() && a.chars().count() <= 80,
                    "{id}: author {a:?}"
                );
            }
        }
    }
    eprintln!(
        "{total} pages: date {}, canonical {}, site name {}, authors {}",
        with[0], with[1], with[2], with[3]
    );
}

/// Pages of dragnet that trafilatura dates and that had no date before the
/// URL's date path, hAtom, more `<meta>` names and datelines were read
/// (`scripts/dates_vs_trafilatura.py`); each value was checked in the page.
#[test]
fn dates_of_dragnet_pages_without_date_markup() {
    let date = |id: &str| meta_of("dragnet", id).date;
    // Only the URL: http://paulocoelhoblog.com/2012/06/25/getting-through-just-one-night/
    assert_eq!(date("dragnet-00007").as_deref(), Some("2012-06-25"));
    // hAtom: <abbr class="published" title="2012-07-21">.
    assert_eq!(date("dragnet-00002").as_deref(), Some("2012-07-21"));
    // <meta name="OriginalPublicationDate" content="2012/07/24 10:50:16"/>
    assert_eq!(
        date("dragnet-00022").as_deref(),
        Some("2012-07-24T10:50:16")
    );
    // Typepad's footer: "Posted by <a rel=author>Seth Godin</a> on July 19, 2012".
    assert_eq!(date("dragnet-00004").as_deref(), Some("2012-07-19"));
    // CNET: <time class="datestamp"> July 24, 2012 4:00 AM PDT </time>, no datetime.
    assert_eq!(date("dragnet-00015").as_deref(), Some("2012-07-24"));
    // CNET again, with a product review's <time datetime="2012-03-07"> further
    // down: the article's <time> without datetime comes first.
    assert_eq!(date("dragnet-00090").as_deref(), Some("2012-07-24"));
    // BBC Sport: <meta name="DCTERMS.created" content="2012/07/24T14:41:54+00:00" />,
    // ISO 8601 with slashes; related stories below say "23 May 2012".
    assert_eq!(
        date("dragnet-00006").as_deref(),
        Some("2012-07-24T14:41:54Z")
    );
    // Typepad: <h2 class="date-header">November 01, 2012</h2> above the post.
    assert_eq!(date("dragnet-00312").as_deref(), Some("2012-11-01"));
    // <div class="singleinfo">by Jennifer Dancy on May 3, 2012</div>
    assert_eq!(date("dragnet-00302").as_deref(), Some("2012-05-03"));
}
