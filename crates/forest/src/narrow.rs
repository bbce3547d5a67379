//! Narrowing a wrapper to the elements of its pattern that carry the article.
//!
//! A type is a tag and the *tolerant* form of its identity attributes (first
//! token, digits removed: [`crate::tolerant_form`]), so that it repeats
//! across pages. Old table layouts then give one type to several columns:
//! the story's `<td valign="top" width="426">` and the right rail's
//! `<td valign="top" width="328">` are both `td {valign: top, width: ""}`,
//! and a wrapper on the story's column selects the rail as well, with its
//! promotions. The paper's wrapper keeps to the `dfs` positions its
//! pattern was seen at on significant paths (forest.md §3.4); positions do
//! not carry over to pages whose layouts shift by one element, but the
//! whole value of an attribute does. So where, on every learning page, the
//! match holding the most signifier occurrences has one whole value of an
//! attribute of the type that some other match lacks, and the matches
//! without it hold little of the signifiers, the wrapper also requires that
//! value ([`crate::Pattern::exact`]).

use canopy_dom::NodeId;

use crate::element_type::{normalized_space, ElementType};
use crate::rank::PageInput;
use crate::wrapper::Wrapper;

/// `forest.narrow`'s default: the matches a narrowed wrapper leaves out may
/// hold at most a fifth of the signifier occurrences of all its matches on
/// the learning pages. A second segment of a split article holds about its
/// share of the text; a rail or a list of promotions beside the article
/// holds a few stray signifiers. On big9 and dragnet, 0.2 to 0.5 narrow the
/// same eight wrappers, 0.1 seven (not brooklynvegan's, whose "recently"
/// and other modules hold 12 % of them) and 0.03 five;
/// `docs/evaluation.md`.
pub const DEFAULT_SHARE: f64 = 0.2;

/// One match of the wrapper on a learning page.
struct Match {
    /// Occurrences of the page's signifiers in its text.
    signifiers: usize,
    /// The whole value of each of the type's attributes, by position.
    values: Vec<Option<String>>,
}

/// The attribute and whole value that narrow `wrapper` on `pages` (module
/// documentation), the one that leaves out the most matches; `None` when
/// no value tells the matches apart, or when those it leaves out hold more
/// than `max_share` of the signifier occurrences.
pub(crate) fn exact_value(
    pages: &[PageInput<'_>],
    wrapper: &Wrapper,
    max_share: f64,
) -> Option<(String, String)> {
    let ElementType::Attrs { attrs, .. } = &wrapper.pattern.ty else {
        return None;
    };
    if attrs.is_empty() || max_share <= 0.0 {
        return None;
    }
    let nodes: Vec<Vec<NodeId>> = pages.iter().map(|p| wrapper.apply(p.doc)).collect();
    // Nothing to leave out where the wrapper selects one element a page.
    if nodes.iter().all(|n| n.len() < 2) {
        return None;
    }
    let matches: Vec<Vec<Match>> = pages
        .iter()
        .zip(&nodes)
        .map(|(page, nodes)| page_matches(page, nodes, attrs))
        .collect();
    // On each page, the match holding the most signifiers (the first of
    // equals); pages where none holds any say nothing.
    let carriers: Vec<&Match> = matches
        .iter()
        .filter_map(|m| {
            m.iter()
                .rev()
                .max_by_key(|m| m.signifiers)
                .filter(|m| m.signifiers > 0)
        })
        .collect();
    let total: usize = matches.iter().flatten().map(|m| m.signifiers).sum();
    // (attribute, its value, matches left out)
    let mut best: Option<(usize, &String, usize)> = None;
    for i in 0..attrs.len() {
        let Some(value) = carriers.first().and_then(|c| c.values[i].as_ref()) else {
            continue;
        };
        if carriers.iter().any(|c| c.values[i].as_ref() != Some(value)) {
            continue;
        }
        let left_out = || {
            matches
                .iter()
                .flatten()
                .filter(|m| m.values[i].as_ref() != Some(value))
        };
        let count = left_out().count();
        let signifiers: usize = left_out().map(|m| m.signifiers).sum();
        if count > 0
            && signifiers as f64 <= max_share * total as f64
            && best.is_none_or(|(_, _, most)| count > most)
        {
            best = Some((i, value, count));
        }
    }
    let (i, value, _) = best?;
    Some((attrs[i].0.clone(), value.clone()))
}

/// The wrapper's matches `nodes` on one page.
fn page_matches(page: &PageInput<'_>, nodes: &[NodeId], attrs: &[(String, String)]) -> Vec<Match> {
    let doc = page.doc;
    // As ranking reads them: the first 64.
    let sigs = &page.signifiers[..page.signifiers.len().min(64)];
    nodes
        .iter()
        .map(|&m| Match {
            signifiers: page
                .terms
                .of_range(m, doc.node(m).end)
                .iter()
                .filter(|t| sigs.iter().any(|s| s.0 == **t))
                .count(),
            values: attrs
                .iter()
                .map(|(name, _)| doc.attr(m, name).map(normalized_space))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use canopy_dom::{Document, DomOptions};

    use crate::{learn, ForestOptions, NodeTerms, PageInput};

    /// Learns from `pages`, each word's id its first byte and `a` the only
    /// signifier.
    fn learned(pages: &[&str], options: &ForestOptions) -> crate::Wrapper {
        let docs: Vec<Document> = pages
            .iter()
            .map(|p| Document::parse(p, &DomOptions::default()))
            .collect();
        let terms: Vec<NodeTerms> = docs
            .iter()
            .map(|d| {
                NodeTerms::build(d, |t, out| {
                    out.extend(t.split_whitespace().map(|w| u32::from(w.as_bytes()[0])))
                })
            })
            .collect();
        let sigs = [(u32::from(b'a'), 1.0)];
        let inputs: Vec<PageInput> = docs
            .iter()
            .zip(&terms)
            .map(|(doc, terms)| PageInput {
                doc,
                terms,
                signifiers: &sigs,
            })
            .collect();
        learn(&inputs, options).unwrap()
    }

    fn page(story: &str, rail: &str) -> String {
        format!(
            "<body><div id=nav>home news sport weather</div><table><tr>\
             <td valign=top width=426>{story}</td>\
             <td valign=top width=328>{rail} deals on trips</td></tr></table></body>"
        )
    }

    #[test]
    fn a_rail_sharing_the_story_columns_type_is_left_out() {
        let pages = [
            page("apple about ants apes arcs", "buy boats"),
            page("apple cider acorns axes avid arts", "cheap cars, apple"),
        ];
        let pages: Vec<&str> = pages.iter().map(String::as_str).collect();
        let wrapper = learned(&pages, &ForestOptions::default());
        assert_eq!(
            wrapper.pattern.exact,
            Some(("width".to_string(), "426".to_string()))
        );
        assert!(wrapper.xpath().contains("normalize-space(@width)='426'"));
        assert!(wrapper
            .xpath_portable()
            .unwrap()
            .ends_with("[normalize-space(@width)='426']"));
        let doc = Document::parse(pages[1], &DomOptions::default());
        let selected: Vec<String> = wrapper
            .apply(&doc)
            .into_iter()
            .map(|n| doc.inner_text(n))
            .collect();
        assert_eq!(selected, ["apple cider acorns axes avid arts"]);

        let off = ForestOptions {
            narrow: 0.0,
            ..ForestOptions::default()
        };
        let wide = learned(&pages, &off);
        assert_eq!(wide.pattern.exact, None);
        assert_eq!(wide.apply(&doc).len(), 2, "both columns");
    }

    #[test]
    fn a_column_holding_a_good_share_of_the_signifiers_is_kept() {
        // The article goes on in a narrower column: a third of its
        // signifiers, more than the fifth a narrowed wrapper may leave out.
        let page = |story: &str, more: &str| {
            format!(
                "<body><div id=nav>home news sport weather</div><table><tr>\
                 <td valign=top width=426>{story}</td><td valign=top width=200>{more}</td>\
                 <td valign=top width=328>deals on trips, buy boats, cheap cars</td>\
                 </tr></table></body>"
            )
        };
        let pages = [
            page("apple about ants apes", "arcs axes"),
            page("apple cider acorns axes", "avid arts"),
        ];
        let pages: Vec<&str> = pages.iter().map(String::as_str).collect();
        let wrapper = learned(&pages, &ForestOptions::default());
        assert!(wrapper.xpath().starts_with("//td["), "{}", wrapper.xpath());
        assert_eq!(wrapper.pattern.exact, None);
        let narrower = ForestOptions {
            narrow: 0.4,
            ..ForestOptions::default()
        };
        assert_eq!(
            learned(&pages, &narrower).pattern.exact,
            Some(("width".to_string(), "426".to_string()))
        );
    }

    #[test]
    fn a_value_that_changes_from_page_to_page_does_not_narrow() {
        let pages = [
            "<body><div id=nav>home news sport</div><div class='post p1'>apple about ants</div>\
             <div class='post side'>boats</div></body>",
            "<body><div id=nav>home news sport</div><div class='post p2'>apple cider acorns</div>\
             <div class='post side'>cars</div></body>",
        ];
        let wrapper = learned(&pages, &ForestOptions::default());
        assert!(
            wrapper.xpath().starts_with("//div[contains(@class,'post')"),
            "{}",
            wrapper.xpath()
        );
        assert_eq!(wrapper.pattern.exact, None);
    }
}
