//! The page-level fallback's choice among its methods' selections: the
//! article's heading anchors it.
//!
//! WLR and R4 score text density, and on a page whose article is short (a
//! photo post, a three-paragraph news item) a sidebar's author bio, a
//! blog's "about" box or a footer's fine print can be denser than the
//! article. The union of the two methods then holds that block too, or
//! only it. The page itself says where the article is: its headline, the
//! `<h1>`–`<h3>` that the page's `<title>` confirms, stands at the top of
//! the article, inside the article's container. So:
//!
//! - of the methods' selections, those nearest the heading (the deepest
//!   common ancestor with it) are kept, and a selection in another branch
//!   of the page goes;
//! - when none of them is near the heading but BlockExtractor's text blocks
//!   after it are nearer (WLR and R4 both chose a sidebar), those blocks
//!   join the selection;
//! - the heading's own block (a standfirst, a byline) joins a selection
//!   that misses it, and the article's container replaces a selection that
//!   lies wholly elsewhere on the page.
//!
//! A page without a confirmed heading keeps the union as it was.

use canopy_dom::{is_heading, Document, NodeId};
use canopy_extract::TextCounts;

pub use canopy_extract::outermost;

/// How near `n` is to `heading`: the depth of their deepest common ancestor.
fn nearness(doc: &Document, heading: NodeId, n: NodeId) -> usize {
    std::iter::once(n)
        .chain(doc.ancestors(n))
        .find(|&a| doc.contains(a, heading))
        .map_or(0, |a| doc.ancestors(a).count())
}

/// The nodes of `nodes` nearest `heading`, and that nearness.
fn nearest(doc: &Document, heading: NodeId, nodes: &[NodeId]) -> (Vec<NodeId>, usize) {
    let near: Vec<usize> = nodes.iter().map(|&n| nearness(doc, heading, n)).collect();
    let best = near.iter().copied().max().unwrap_or(0);
    let kept = nodes
        .iter()
        .zip(&near)
        .filter(|&(_, &d)| d == best)
        .map(|(&n, _)| n)
        .collect();
    (kept, best)
}

/// The fallback's selection anchored at the article's heading: of the
/// methods' outermost nodes `selected`, those nearest `heading`; plus the
/// blocks of `blocks` (BlockExtractor's) that start after the heading, are
/// not headings themselves, and are nearer to it than any selected node;
/// then the heading's own block, or the article's container, where the
/// selection misses them ([`with_heading_block`]). `counts` are the page's.
pub fn anchored(
    doc: &Document,
    counts: &TextCounts,
    heading: NodeId,
    selected: Vec<NodeId>,
    blocks: impl FnOnce() -> Vec<NodeId>,
) -> Vec<NodeId> {
    if selected.is_empty() {
        return selected;
    }
    let (mut kept, near) = nearest(doc, heading, &selected);
    let after = doc.node(heading).end;
    let blocks: Vec<NodeId> = outermost(doc, blocks())
        .into_iter()
        .filter(|&n| n >= after && !is_heading(doc.tag(n)))
        .collect();
    let (extra, extra_near) = nearest(doc, heading, &blocks);
    if extra_near > near {
        kept.extend(extra);
    }
    with_heading_block(doc, counts, heading, outermost(doc, kept))
}

/// The lowest ancestor of `heading` with at least `min` characters of text
/// outside links besides the heading's own.
fn heading_container(
    doc: &Document,
    heading: NodeId,
    counts: &TextCounts,
    min: u32,
) -> Option<NodeId> {
    doc.ancestors(heading).find(|&a| {
        counts
            .prose_chars(a)
            .saturating_sub(counts.prose_chars(heading))
            >= min
    })
}

/// The heading's own block and the article's container, where the
/// selection misses them. The article's container (the heading's lowest
/// ancestor with a paragraph's worth of text outside links besides it, 100
/// characters) replaces a selection that holds less than half of its text:
/// the methods chose a block elsewhere on the page (a sidebar's "about"
/// box) and not even BlockExtractor found a text block near the heading, or
/// they chose one paragraph of the article (a quote). Otherwise the
/// heading's block (its lowest ancestor with a line of text besides it, 20
/// characters: a standfirst, a byline) joins a selection that holds nothing
/// of it.
fn with_heading_block(
    doc: &Document,
    counts: &TextCounts,
    heading: NodeId,
    selected: Vec<NodeId>,
) -> Vec<NodeId> {
    let touches = |c: NodeId| {
        selected
            .iter()
            .any(|&n| doc.contains(c, n) || doc.contains(n, c))
    };
    if let Some(container) = heading_container(doc, heading, counts, 100) {
        // The selection's text inside the container (all of it when a
        // selected node holds the container).
        let covered: u64 = if selected.iter().any(|&n| doc.contains(n, container)) {
            u64::MAX
        } else {
            selected
                .iter()
                .filter(|&&n| doc.contains(container, n))
                .map(|&n| u64::from(counts.prose_chars(n)))
                .sum()
        };
        let besides_heading = counts.prose_chars(container) - counts.prose_chars(heading);
        if covered.saturating_mul(2) < u64::from(besides_heading) {
            return vec![container];
        }
    }
    match heading_container(doc, heading, counts, 20) {
        Some(block) if !touches(block) => outermost(doc, [selected, vec![block]].concat()),
        _ => selected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::{collapse_whitespace, DomOptions};
    use canopy_metadata::page_heading;

    fn find(doc: &Document, tag: &str, id: &str) -> NodeId {
        (0..doc.len())
            .find(|&n| doc.tag(n) == tag && doc.attr(n, "id") == Some(id))
            .unwrap()
    }

    const PAGE: &str = "<body><div id=main><div id=post><h2>Mars rover finds water</h2>\
        <p id=a>Short post.</p></div><div id=next><p id=n>Next post teaser.</p></div></div>\
        <div id=side><p id=bio>About me: a long and dense biography.</p></div></body>";

    #[test]
    fn selections_far_from_the_heading_go_nearer_blocks_join() {
        let doc = Document::parse(PAGE, &DomOptions::default());
        let counts = TextCounts::of(&doc);
        let h2 = (0..doc.len()).find(|&n| doc.tag(n) == "h2").unwrap();
        let (a, n, bio) = (
            find(&doc, "p", "a"),
            find(&doc, "p", "n"),
            find(&doc, "p", "bio"),
        );
        // The post's paragraph is nearer the heading than the next post's,
        // and both than the sidebar's bio.
        assert_eq!(anchored(&doc, &counts, h2, vec![a, bio], Vec::new), vec![a]);
        assert_eq!(anchored(&doc, &counts, h2, vec![n, bio], Vec::new), vec![n]);
        // Only the bio selected: a nearer block after the heading joins it;
        // the heading itself does not.
        assert_eq!(
            anchored(&doc, &counts, h2, vec![bio], || vec![h2, a]),
            vec![a, bio]
        );
        // A block no nearer than the selection does not.
        assert_eq!(anchored(&doc, &counts, h2, vec![a], || vec![n]), vec![a]);
    }

    #[test]
    fn the_heading_block_joins_the_article_container_replaces() {
        let doc = Document::parse(
            "<body><div id=main><div id=head><h1>Mars rover finds water</h1>\
             <p id=dek>The standfirst of the story.</p></div>\
             <div id=body><p id=a>The story's body, long enough to be a paragraph of its own \
             and then some more words to pass one hundred characters.</p></div></div>\
             <div id=side><p id=bio>About me: a long and dense biography, longer than the \
             story itself by quite a few words, to be chosen by density.</p></div></body>",
            &DomOptions::default(),
        );
        let counts = TextCounts::of(&doc);
        let h1 = (0..doc.len()).find(|&n| doc.tag(n) == "h1").unwrap();
        let (head, a, bio) = (
            find(&doc, "div", "head"),
            find(&doc, "p", "a"),
            find(&doc, "p", "bio"),
        );
        let main = find(&doc, "div", "main");
        // The body selected: the heading's block (heading and standfirst)
        // joins it.
        assert_eq!(
            anchored(&doc, &counts, h1, vec![a], Vec::new),
            vec![head, a]
        );
        // Only the sidebar selected, nothing near the heading: the
        // article's container replaces it; so it does a selection of less
        // than half of the container's text.
        assert_eq!(anchored(&doc, &counts, h1, vec![bio], Vec::new), vec![main]);
        let dek = find(&doc, "p", "dek");
        assert_eq!(anchored(&doc, &counts, h1, vec![dek], Vec::new), vec![main]);
    }

    /// Single-page sites of the dragnet corpus whose short article loses
    /// to a denser block elsewhere in WLR's and R4's union: a site menu and
    /// a video sidebar, a publisher's blurb, a comment policy, an author's
    /// bio. Anchored at the heading, the union holds the article's opening
    /// and not the sidebar.
    #[test]
    fn on_real_pages_the_heading_anchors_the_union() {
        let dir = canopy_test_support::corpora().join("dragnet/html");
        let manifest = canopy_test_support::manifest("dragnet");
        // Only the comment names dropped: the default list's promo, menu
        // and footer names would drop some of these sidebars before the
        // union sees them, and the anchor is what this test is about.
        let options = DomOptions {
            drop_id_class: vec!["comment".into(), "disqus".into()],
            ..DomOptions::default()
        };
        for (id, article, sidebar) in [
            (
                "dragnet-00187",
                "Despite making over $2 billion at the box office",
                Some("Hansel & Gretel Red Band Trailer"),
            ),
            (
                "dragnet-00625",
                "Take a visit inside the leather works studio",
                Some("Titelmedia is a wholly independent publisher"),
            ),
            (
                "dragnet-00688",
                "Put those to good use in this cool drink",
                None,
            ),
            ("dragnet-00633", "Max Jacob Newport", None),
            (
                "dragnet-00263",
                "No matter how long I stare at this",
                Some("Paul Overton is a prolific blogger"),
            ),
            (
                "dragnet-00676",
                "Whichever it means that when DC says",
                Some("just a dreadful little site"),
            ),
            (
                "dragnet-00232",
                "takes his students through the video creation process",
                Some("full time teacher, global collaborator"),
            ),
        ] {
            let bytes = std::fs::read(dir.join(format!("{id}.html"))).unwrap();
            let doc = Document::parse(&String::from_utf8_lossy(&bytes), &options);
            let counts = TextCounts::of(&doc);
            // The titles the pipeline passes: `og:title` (else `<title>`),
            // `<title>`, and the first cleaned of the site's name.
            let title = doc.title();
            let raw = doc.meta("og:title").unwrap_or(&title).to_string();
            let url = &manifest.iter().find(|r| r["id"] == id).unwrap()["url"];
            let cleaned = crate::title::clean_title(&raw, &canopy_cluster::site_key(url), &[]);
            let heading = page_heading(&doc, &[&raw, &title, &cleaned]).expect(id);
            let wlr = canopy_extract::wlr(&doc, canopy_extract::WlrVariant::Wlr);
            let union = outermost(&doc, [wlr, canopy_extract::r4(&doc)].concat());
            // Cleaned as the fallback's text is (link-dense blocks go).
            let clean = canopy_extract::CleanOptions {
                residue: false,
                ..canopy_extract::CleanOptions::default()
            };
            let text = |nodes: &[NodeId]| -> String {
                let t = canopy_extract::clean_text(&doc, nodes, &Default::default(), &clean);
                collapse_whitespace(&t)
            };
            let before = text(&union);
            let after = text(&anchored(&doc, &counts, heading, union, || {
                canopy_extract::blockextractor(&doc, &[])
            }));
            assert!(after.contains(article), "{id}: {after}");
            assert!(
                !before.contains(article) || sidebar.is_some_and(|s| before.contains(s)),
                "{id}: the union alone was already right: {before}"
            );
            if let Some(sidebar) = sidebar {
                assert!(!after.contains(sidebar), "{id}: {after}");
            }
        }
    }
}
