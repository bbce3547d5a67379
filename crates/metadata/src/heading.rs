//! The article's heading: the `<h1>`–`<h3>` inside the article's selection
//! or just before it that the page's title confirms.
//!
//! `<title>` and `og:title` often carry more than the headline ("Section |
//! Headline | Site") or a shortened one; the heading on the page is the
//! headline as its readers see it. A heading is taken only when it equals
//! a title, contains it or makes up at least half of it, so neither a
//! "Latest news" box heading nor a blog's name in an `<h1>` is.

use canopy_dom::{collapse_whitespace, Document, NodeId};

/// The letters and digits of `s`, lower-cased: what a heading and a title
/// are compared by.
fn normalized_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
}

fn normalized(s: &str) -> String {
    normalized_chars(s).collect()
}

/// Shortest normalised heading or title (in characters) that can confirm
/// the other by containing it: shorter ones ("News") are contained in too
/// many titles.
const MIN_CHARS: usize = 12;

/// Shortest normalised heading equal to a title that confirms it: a short
/// headline ("Plejaden, M45", "Gefällt mir") is the page's own when the
/// cleaned title says exactly that; below it, a lone word ("News", "Blog")
/// says little. Chosen on trafbench among 1, 5, 8 (the same there) and 12
/// (four snippets fewer).
const MIN_EXACT_CHARS: usize = 5;

/// Most letters and digits a heading may hold and still be read as one.
/// A headline is a line: the longest heading holding a page's title on
/// big9, dragnet and trafbench has 309 (one whose inline style's text is
/// counted), so 1,000 spares every real one. Longer ones are blocks that
/// malformed markup left inside a heading element (an unclosed `<h1>`);
/// reading each of them whole made the work and the memory grow with the
/// number of nested headings times the page (250 nested headings over 9 MB
/// of text: 9 s and 1.6 GB).
const MAX_HEADING_CHARS: usize = 1_000;

/// [`normalized`] of a heading's text, read from its text nodes (the same
/// letters and digits as its inner text) and given up past
/// [`MAX_HEADING_CHARS`].
fn normalized_heading(doc: &Document, h: NodeId) -> Option<String> {
    let out: String = doc
        .text_nodes(h)
        .flat_map(|(_, text)| normalized_chars(text))
        .take(MAX_HEADING_CHARS + 1)
        .collect();
    (out.chars().count() <= MAX_HEADING_CHARS).then_some(out)
}

pub(crate) fn is_heading(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3")
}

/// The heading of the article selected by `roots` that one of `titles`
/// (the page's title, raw and cleaned) confirms, whitespace collapsed.
pub fn article_heading(doc: &Document, roots: &[NodeId], titles: &[&str]) -> Option<String> {
    // Inside the selection, in page order; then the nearest headings before it.
    let inside = roots
        .iter()
        .flat_map(|&r| (r..doc.node(r).end).filter(|&n| is_heading(doc.tag(n))));
    let before = roots.first().into_iter().flat_map(|&first| {
        (0..first)
            .rev()
            .filter(move |&n| is_heading(doc.tag(n)) && !doc.contains(n, first))
            .take(3)
    });
    confirmed(doc, inside.chain(before), titles).map(|h| collapse_whitespace(&doc.inner_text(h)))
}

/// The page's `<h1>`–`<h3>` that one of `titles` confirms (the headline,
/// wherever it stands): the anchor of the page-level fallback.
pub fn page_heading(doc: &Document, titles: &[&str]) -> Option<NodeId> {
    let body = doc.body();
    confirmed(
        doc,
        (body..doc.node(body).end).filter(|&n| is_heading(doc.tag(n))),
        titles,
    )
}

/// The first of `candidates` that one of `titles` confirms.
fn confirmed(
    doc: &Document,
    candidates: impl Iterator<Item = NodeId>,
    titles: &[&str],
) -> Option<NodeId> {
    let titles: Vec<String> = titles
        .iter()
        .map(|t| normalized(t))
        .filter(|t| t.chars().count() >= MIN_EXACT_CHARS)
        .collect();
    if titles.is_empty() {
        return None;
    }
    let candidates: Vec<(NodeId, String)> = candidates
        .filter_map(|h| Some((h, normalized_heading(doc, h)?)))
        .filter(|(_, n)| n.chars().count() >= MIN_EXACT_CHARS)
        .collect();
    // A heading equal to a title wins over one that only contains it
    // ("Posts related to <title>").
    let exact = candidates
        .iter()
        .find(|(_, n)| titles.iter().any(|t| t == n));
    let long = |s: &str| s.chars().count() >= MIN_CHARS;
    let titles: Vec<&String> = titles.iter().filter(|t| long(t)).collect();
    let candidates: Vec<&(NodeId, String)> = candidates.iter().filter(|(_, n)| long(n)).collect();
    // A heading inside the title must be most of it: a short one is the
    // title's site or blog name ("Today, I only care… | Peter Shankman"
    // and an `<h1>` "PETER SHANKMAN").
    // Halves in characters: in bytes, a Greek or Chinese heading inside a
    // title that ends in a Latin site name weighed two or three times its
    // share.
    let chars = |s: &str| s.chars().count();
    let confirmed = || {
        candidates.iter().copied().find(|(_, n)| {
            titles.iter().any(|t| {
                (t.contains(n.as_str()) && 2 * chars(n) >= chars(t)) || n.contains(t.as_str())
            })
        })
    };
    exact.or_else(confirmed).map(|&(h, _)| h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    fn first(doc: &Document, tag: &str) -> NodeId {
        (0..doc.len()).find(|&n| doc.tag(n) == tag).unwrap()
    }

    #[test]
    fn the_heading_the_title_confirms() {
        let doc = Document::parse(
            "<body><h2>Latest news</h2><h1>Mars rover  finds water</h1>\
             <div id=a><p>Text.</p><h3>Related: Mars</h3>\
             <h3>Posts related to Mars rover finds water</h3></div></body>",
            &DomOptions::default(),
        );
        let div = first(&doc, "div");
        // Found before the selection; the box heading is not confirmed.
        // An exact heading wins over one holding the title and more.
        assert_eq!(
            article_heading(&doc, &[div], &["Science | Mars rover finds water | Planet"]),
            Some("Mars rover finds water".to_string())
        );
        assert_eq!(
            article_heading(&doc, &[div], &["Mars rover finds water"]),
            Some("Mars rover finds water".to_string())
        );
        assert_eq!(
            article_heading(&doc, &[div], &["Other story entirely"]),
            None
        );
        assert_eq!(article_heading(&doc, &[div], &["News"]), None);
        // Less than half of the title: a site name, not the headline.
        assert_eq!(
            article_heading(
                &doc,
                &[div],
                &["A much longer headline here | Mars rover finds water"]
            ),
            None
        );
    }

    #[test]
    fn the_page_heading_is_the_confirmed_one_wherever_it_stands() {
        let doc = Document::parse(
            "<body><div id=side><h3>About this blog</h3></div>\
             <div id=post><h2>Mars rover finds water</h2><p>Short post.</p></div></body>",
            &DomOptions::default(),
        );
        assert_eq!(
            page_heading(&doc, &["Mars rover finds water | Blog"]),
            Some(first(&doc, "h2"))
        );
        assert_eq!(page_heading(&doc, &["Blog"]), None);
        assert_eq!(page_heading(&doc, &["Venus probe lands safely"]), None);
    }

    /// "At least half of the title" is counted in characters: the site's
    /// name in Greek (two bytes a letter) is a third of the title's
    /// characters and more than half of its bytes.
    #[test]
    fn half_the_title_is_counted_in_characters() {
        let doc = Document::parse(
            "<body><h1>Η Καθημερινή Ειδήσεις</h1><p>Text.</p></body>",
            &DomOptions::default(),
        );
        let title = "Greek economy grows again this year | Η Καθημερινή Ειδήσεις";
        assert_eq!(page_heading(&doc, &[title]), None);
        let doc = Document::parse(
            "<body><h1>Η ελληνική οικονομία αναπτύσσεται</h1><p>Text.</p></body>",
            &DomOptions::default(),
        );
        let title = "Η ελληνική οικονομία αναπτύσσεται | Kathimerini";
        assert_eq!(page_heading(&doc, &[title]), Some(first(&doc, "h1")));
    }

    /// A short headline equal to the cleaned title is confirmed; inside a
    /// longer title it is not (it could be the site's name), and a lone
    /// word equal to the title says too little.
    /// A "heading" holding more than a headline's worth of text is a block
    /// malformed markup left inside a heading element: not read whole, and
    /// no headline, even when it holds the title.
    #[test]
    fn a_block_left_inside_a_heading_is_no_headline() {
        let title = "A headline long enough to confirm";
        let page = |words: usize| {
            let body = "word ".repeat(words);
            let html = format!(
                "<html><head><title>{title}</title></head><body>\
                 <h1>{title}<div><p>{body}</p></div></h1></body></html>"
            );
            Document::parse(&html, &DomOptions::default())
        };
        let short = page(100);
        assert_eq!(page_heading(&short, &[title]), Some(first(&short, "h1")));
        assert_eq!(page_heading(&page(300), &[title]), None);
    }

    #[test]
    fn a_short_headline_equal_to_the_title_is_confirmed() {
        let doc = Document::parse(
            "<body><h2>Blog</h2><h1>Plejaden, M45</h1><p>Text.</p></body>",
            &DomOptions::default(),
        );
        let raw = "Plejaden, M45 - Abenteuer Astronomie";
        assert_eq!(
            page_heading(&doc, &[raw, "Plejaden, M45"]),
            Some(first(&doc, "h1"))
        );
        assert_eq!(page_heading(&doc, &[raw]), None);
        assert_eq!(page_heading(&doc, &["Blog"]), None);
        // The real page: its `<h1>` under the site's header, its sidebar's
        // widget holding more prose than the post.
        let path = canopy_test_support::corpora().join("trafbench/html/trafbench-00043.html");
        let html = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let doc = Document::parse(&html, &DomOptions::default());
        let h = page_heading(&doc, &[raw, "Plejaden, M45"]).expect("the post's heading");
        assert_eq!(doc.tag(h), "h1");
        assert_eq!(collapse_whitespace(&doc.inner_text(h)), "Plejaden, M45");
    }
}
