//! Which of a page's short dated texts is its dateline: the one nearest
//! the article's selection that the page marks as one, not an item of a
//! list (`PageMeta`'s last source of a date, htmldate's rule). The texts
//! are read from a page's tree ([`page_datelines`]) and weighed by their
//! positions among its nodes ([`nearest_dateline`]).

use std::ops::Range;

use canopy_dom::{local_name, Document, NodeId};

use crate::byline_text;
use crate::dateline::{self, DateBounds, Written};

/// Longest text read as a dateline, in characters. A dateline is a few
/// words around the date ("Posted by Ann Smith on Tuesday, October 30,
/// 2012 at 9:46 AM" is 62, and 120 leaves room for a longer name or a
/// place); a longer text is a sentence of the article or of a comment,
/// whose dates are those of the events it tells of.
const MAX_DATELINE_CHARS: usize = 120;

/// Two datelines of different days in the same markup (their parents' tag
/// and class), this many nodes apart or closer, outside the article, are
/// items of a list (recent or popular posts, archives, comments), each
/// dated for itself. A list item with a link and a date is some ten nodes
/// (dragnet's everywhereist.com "popular posts": 11 apart); 20 leaves room
/// for an item with a thumbnail or an excerpt, while an article's own
/// dateline is dozens of nodes from any other date.
const LIST_GAP_NODES: usize = 20;

/// Words in the `class`, `id` or `itemprop` of a dateline's element (or of
/// its parent or grandparent) that say it holds a date or a byline:
/// htmldate's cues, lowercase, matched as substrings ("post-date",
/// "entry-meta", "byline", "submitted", German "datum", Spanish "fecha").
const DATELINE_CUES: &[&str] = &[
    "date",
    "time",
    "publish",
    "posted",
    "byline",
    "meta",
    "submitted",
    "author",
    "datum",
    "fecha",
    "info",
];

/// Words of a dateline's own text that say it is one ("Posted by Ann on
/// July 2, 2012", "Veröffentlicht am 2. Juli 2012"), lowercase.
const DATELINE_WORDS: &[&str] = &[
    "posted",
    "published",
    "by ",
    "veröffentlicht",
    "publié",
    "publicado",
];

/// A short text of a page that may be its dateline: what
/// [`dateline_date`] weighs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatelineText {
    /// Its position among the page's nodes, in document order.
    pub node: usize,
    /// Numeric dates in it that tell their order: month first, day first
    /// (`dateline::TextDates::orders`).
    pub orders: (u32, u32),
    /// The date it writes, if any.
    pub written: Option<Written>,
    /// Whether it, or the element around it, speaks of a change
    /// ("Updated: …"): not a publication date.
    pub change: bool,
    /// Whether it is marked as a dateline by its words or its elements'
    /// names ([`DATELINE_WORDS`], [`DATELINE_CUES`]).
    pub cued: bool,
    /// Its parent's tag and class, when it writes a date: items of a list
    /// repeat them.
    pub markup: Option<(String, Option<String>)>,
}

/// The texts of `doc` that may be its dateline, in document order: text
/// nodes short enough ([`MAX_DATELINE_CHARS`]) that hold a digit.
pub(crate) fn page_datelines(doc: &Document) -> Vec<DatelineText> {
    let mut lines = Vec::new();
    for n in 0..doc.len() {
        let Some(text) = doc.text(n) else { continue };
        let text = text.trim();
        if !may_be_dateline(text) {
            continue;
        }
        let dates = dateline::TextDates::read(text);
        let written = dates.written;
        // The change may be named in the text or in the element around it
        // ("<b>Updated:</b> July 3, 2012").
        let change = written.is_some()
            && (dateline::speaks_of_change(text)
                || doc
                    .node(n)
                    .parent
                    .and_then(|p| byline_text(doc, p))
                    .is_some_and(|around| dateline::speaks_of_change(&around)));
        let cued_by_names = || {
            doc.ancestors(n).take(3).any(|a| {
                ["class", "id", "itemprop"]
                    .iter()
                    .any(|k| doc.attr(a, k).is_some_and(names_dateline))
            })
        };
        lines.push(DatelineText {
            node: n,
            orders: dates.orders,
            written,
            change,
            cued: written.is_some() && (words_dateline(text) || cued_by_names()),
            markup: written.and(doc.node(n).parent).map(|p| {
                (
                    doc.tag(p).to_string(),
                    doc.attr_named(p, &local_name!("class")).map(str::to_string),
                )
            }),
        });
    }
    lines
}

/// Whether a text (trimmed) is short enough to be a dateline and holds a
/// digit.
pub fn may_be_dateline(text: &str) -> bool {
    text.len() <= 4 * MAX_DATELINE_CHARS
        && text.bytes().any(|b| b.is_ascii_digit())
        && text.chars().count() <= MAX_DATELINE_CHARS
}

/// Whether a dateline's own text says it is one ([`DATELINE_WORDS`]).
pub fn words_dateline(text: &str) -> bool {
    let lower = text.to_lowercase();
    DATELINE_WORDS.iter().any(|w| lower.contains(w))
}

/// Whether an element's `class`, `id` or `itemprop` value says it holds
/// a date or a byline ([`DATELINE_CUES`]).
pub fn names_dateline(value: &str) -> bool {
    let value = value.to_ascii_lowercase();
    DATELINE_CUES.iter().any(|c| value.contains(c))
}

/// The nodes an article's selection spans (`start..end`), or those of the
/// page's first `<h1>` when there is no selection; `0..0` when neither.
fn anchor(doc: &Document, article: &[NodeId]) -> Range<NodeId> {
    let start = article.iter().copied().min();
    let end = article.iter().map(|&r| doc.node(r).end).max();
    if let (Some(start), Some(end)) = (start, end) {
        return start..end;
    }
    (0..doc.len())
        .find(|&n| doc.tag(n) == "h1")
        .map_or(0..0, |h| h..doc.node(h).end)
}

/// The date of the dateline nearest the article. Candidates are texts
/// short enough to be a dateline ([`MAX_DATELINE_CHARS`]) that hold a date
/// within `bounds` and do not speak of a change ("Updated: …"); those
/// marked as datelines ([`DatelineText::cued`]) are preferred to the
/// others. Among them, the first within the article's selection, else the
/// one fewest nodes before or after it (a byline above the title, "Posted
/// by … on …" below the text) that is not an item of a list
/// ([`LIST_GAP_NODES`]).
pub(crate) fn dateline_date(
    doc: &Document,
    article: &[NodeId],
    bounds: &DateBounds,
) -> Option<String> {
    nearest_dateline(&page_datelines(doc), anchor(doc, article), bounds)
}

/// [`dateline_date`] of a page's dateline texts ([`page_datelines`]),
/// `span` being the nodes of the article's selection.
pub fn nearest_dateline(
    texts: &[DatelineText],
    span: Range<usize>,
    bounds: &DateBounds,
) -> Option<String> {
    // Numeric dates of the page that tell their order (month or day first).
    let month_first: u32 = texts.iter().map(|t| t.orders.0).sum();
    let day_first: u32 = texts.iter().map(|t| t.orders.1).sum();
    let lines: Vec<&DatelineText> = texts
        .iter()
        .filter(|t| {
            let admitted = match t.written {
                Some(Written::Day(d)) => bounds.admit(d),
                Some(Written::EitherWay(a, b)) => bounds.admit(a) || bounds.admit(b),
                None => false,
            };
            admitted && !t.change
        })
        .collect();
    // A date that could be read either way is read the way the page's other
    // numeric dates are written, when they all agree; else it stays
    // unread.
    let days: Vec<Option<chrono::NaiveDate>> = lines
        .iter()
        .map(|t| {
            let day = match t.written {
                Some(Written::Day(d)) => Some(d),
                Some(Written::EitherWay(m, _)) if month_first > 0 && day_first == 0 => Some(m),
                Some(Written::EitherWay(_, d)) if day_first > 0 && month_first == 0 => Some(d),
                _ => None,
            };
            day.filter(|&d| bounds.admit(d))
        })
        .collect();
    let listed = |i: usize| {
        let (n, day) = (lines[i].node, days[i]);
        let near = |j: usize| {
            lines.get(j).is_some_and(|m| {
                days[j] != day
                    && m.node.abs_diff(n) <= LIST_GAP_NODES
                    && m.markup == lines[i].markup
            })
        };
        near(i + 1) || i.checked_sub(1).is_some_and(near)
    };
    let distance = |n: usize| {
        if span.contains(&n) {
            0
        } else if n < span.start {
            span.start - n
        } else {
            n - span.end
        }
    };
    let best = |marked: bool| {
        (0..lines.len())
            .filter(|&i| lines[i].cued || !marked)
            .filter(|&i| span.contains(&lines[i].node) || !listed(i))
            .min_by_key(|&i| (distance(lines[i].node), i))
    };
    // A dateline left unread (either way round) is the page's all the
    // same: it stands for it, and a farther one would be another post's.
    best(true)
        .or_else(|| best(false))
        .and_then(|i| days[i])
        .map(|d| d.format("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    /// What a page's dateline texts say of themselves, and the one the
    /// article's position picks: read from the tree, the same texts give
    /// the same date wherever their positions come from.
    #[test]
    fn dateline_texts_and_the_nearest_one() {
        let html = r#"<body><p class="byline">Posted on July 19, 2012</p>
            <div id="post"><p>The post's text, 2 paragraphs of it.</p></div>
            <p><b>Updated:</b> July 21, 2012</p>
            <ul><li><span class="wpp-date">June 27, 2012</span></li>
            <li><span class="wpp-date">May 9, 2012</span></li></ul></body>"#;
        let doc = Document::parse(html, &DomOptions::default());
        let texts = page_datelines(&doc);
        let summary: Vec<(bool, bool, bool)> = texts
            .iter()
            .map(|t| (t.written.is_some(), t.cued, t.change))
            .collect();
        // The byline (cued by its words and its class), the post's own
        // number (no date), the change, the list's two items (cued by
        // their class).
        assert_eq!(
            summary,
            [
                (true, true, false),
                (false, false, false),
                (true, false, true),
                (true, true, false),
                (true, true, false)
            ]
        );
        assert!(texts.windows(2).all(|w| w[0].node < w[1].node));
        let bounds = DateBounds::new(Some("2012-12-01"));
        let post = (0..doc.len())
            .find(|&n| doc.attr_named(n, &local_name!("id")) == Some("post"))
            .expect("the post");
        assert_eq!(
            nearest_dateline(&texts, post..doc.node(post).end, &bounds).as_deref(),
            Some("2012-07-19")
        );
        // Without the byline, the list's items, of different days in the
        // same markup, date nothing.
        let rest: Vec<DatelineText> = texts.into_iter().skip(1).collect();
        assert_eq!(
            nearest_dateline(&rest, post..doc.node(post).end, &bounds),
            None
        );
    }
}
