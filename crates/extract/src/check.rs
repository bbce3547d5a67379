//! A wrapper checked against the page-level path on pages of its cluster.
//!
//! Most of the time the two extract the same article, cleaned a little
//! differently, and the wrapper serves: it was learned from the site's
//! sibling pages. When they select different blocks, the evidence only a
//! site has decides: an article is text that no sibling page repeats and
//! that is not links, while a wrong choice is either a block that repeats
//! from page to page (the page-level path taking in a whole column) or a
//! list of links to other pages (a wrapper that learned a "related" list
//! or a "more news" stream, whose headlines differ on every page).

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use canopy_dom::collapse_whitespace;
use canopy_types::{Decision, WrapperCheck};

/// One page's extraction, by the wrapper or by the page-level path.
#[derive(Debug, Clone, Copy)]
pub struct Extraction<'a> {
    /// The cleaned text ("" for none).
    pub text: &'a str,
    /// The share of the selected elements' text that is link text.
    pub link_share: f64,
}

/// Mean agreement below which the two extractions are of different
/// blocks, not of one block cleaned two ways. On the dev corpora the
/// clusters whose wrapper and page-level path take the same article agree
/// at 0.63 or more (most at 0.9 or more); those where the page-level path
/// took in a whole column agree at 0.31 or less.
const AGREEMENT: f64 = 0.5;

/// How many times the wrapper's article-like characters the page-level
/// path's must reach for it to serve the cluster instead. The wrapper
/// holds the evidence of the site's siblings, so it keeps the benefit of
/// the doubt: the page-level path replaces it only when the wrapper's text
/// is mostly links, or lines its siblings repeat, beside an article. On the
/// dev corpora's disagreeing clusters the ratio is 0.8–1.3 where the
/// wrapper is right, and a wrapper on a list of related posts has none.
const PAGE_MARGIN: f64 = 2.0;

/// The check of a wrapper whose extractions of some pages of its cluster
/// are `wrapper`, against the page-level path's of the same pages, `page`
/// (in the same order).
pub fn check_wrapper(wrapper: &[Extraction<'_>], page: &[Extraction<'_>]) -> WrapperCheck {
    let pages = wrapper.len().min(page.len());
    let agreement = if pages == 0 {
        1.0
    } else {
        wrapper
            .iter()
            .zip(page)
            .map(|(w, p)| agreement(w.text, p.text))
            .sum::<f64>()
            / pages as f64
    };
    let wrapper_chars = article_chars(&wrapper[..pages]);
    let page_chars = article_chars(&page[..pages]);
    let decision = if agreement >= AGREEMENT {
        Decision::Agree
    } else if page_chars as f64 >= PAGE_MARGIN * wrapper_chars as f64 && page_chars > 0 {
        Decision::Page
    } else {
        Decision::Wrapper
    };
    WrapperCheck {
        pages,
        agreement: (agreement * 1000.0).round() / 1000.0,
        wrapper_chars,
        page_chars,
        decision,
    }
}

/// The words of a text, lowercased, with their counts. An ASCII word
/// already in lower case (most) is borrowed, not copied.
fn words(text: &str) -> FxHashMap<Cow<'_, str>, u32> {
    let mut out = FxHashMap::default();
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let lower = if w.is_ascii() && !w.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Borrowed(w)
        } else {
            Cow::Owned(w.to_lowercase())
        };
        *out.entry(lower).or_insert(0) += 1;
    }
    out
}

/// The words two texts have in common (counted with repeats), over the
/// longer one's words; 1 when both are empty.
fn agreement(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    let total = |w: &FxHashMap<Cow<'_, str>, u32>| w.values().map(|&c| u64::from(c)).sum::<u64>();
    let longer = total(&a).max(total(&b));
    if longer == 0 {
        return 1.0;
    }
    let common: u64 = a
        .iter()
        .map(|(w, &c)| u64::from(c.min(b.get(w).copied().unwrap_or(0))))
        .sum();
    common as f64 / longer as f64
}

/// The characters of `side`'s texts in lines that no other of its pages
/// has, less each page's share of link text: what looks like the pages'
/// own articles.
fn article_chars(side: &[Extraction<'_>]) -> usize {
    let lines = |text: &'_ str| -> Vec<String> {
        text.lines()
            .map(collapse_whitespace)
            .filter(|l| !l.is_empty())
            .collect()
    };
    let per_page: Vec<Vec<String>> = side.iter().map(|e| lines(e.text)).collect();
    // On how many pages each line stands.
    let mut pages_with: FxHashMap<&str, usize> = FxHashMap::default();
    for page in &per_page {
        let mut distinct: Vec<&str> = page.iter().map(String::as_str).collect();
        distinct.sort_unstable();
        distinct.dedup();
        for l in distinct {
            *pages_with.entry(l).or_insert(0) += 1;
        }
    }
    let mut total = 0.0;
    for (page, e) in per_page.iter().zip(side) {
        let own: usize = page
            .iter()
            .filter(|l| pages_with[l.as_str()] < 2)
            .map(|l| l.chars().count())
            .sum();
        total += own as f64 * (1.0 - e.link_share.clamp(0.0, 1.0));
    }
    total.round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(text: &str, link_share: f64) -> Extraction<'_> {
        Extraction { text, link_share }
    }

    #[test]
    fn one_block_cleaned_two_ways_agrees() {
        let a = "The council voted on Monday to close the old bridge.\nIt reopens in May.";
        let b = "By A. Writer\nThe council voted on Monday to close the old bridge.\nIt reopens in May.";
        let check = check_wrapper(&[ex(a, 0.0)], &[ex(b, 0.0)]);
        assert_eq!(check.decision, Decision::Agree);
        assert!(check.agreement > 0.8, "{check:?}");
    }

    #[test]
    fn a_wrapper_on_a_list_of_headlines_gives_way() {
        // Each page's wrapper text is a different list of headlines, all
        // links: no line repeats, but nothing of it is an article's.
        let w1 = "Storm hits the coast\nMayor resigns\nNew stadium opens";
        let w2 = "Rates rise again\nSchool year starts\nFestival draws crowds";
        let p1 = "The storm that hit the coast on Sunday left thousands without power.";
        let p2 = "The central bank raised its rates for the third time this year.";
        let check = check_wrapper(&[ex(w1, 1.0), ex(w2, 1.0)], &[ex(p1, 0.0), ex(p2, 0.0)]);
        assert_eq!(check.decision, Decision::Page, "{check:?}");
        assert_eq!(check.wrapper_chars, 0);
    }

    #[test]
    fn a_page_path_that_takes_in_a_column_does_not_win() {
        // The page-level path's text is mostly the column both pages
        // share; the wrapper's is each page's own article.
        let column = "About this blog\nArchives\nJanuary\nFebruary\nMarch\nApril\n\
                      Subscribe to the newsletter for the weekly digest of posts";
        let w1 = "A short post about bridges.";
        let w2 = "A short post about rivers.";
        let p1 = format!("{w1}\n{column}");
        let p2 = format!("{w2}\n{column}");
        let check = check_wrapper(&[ex(w1, 0.0), ex(w2, 0.0)], &[ex(&p1, 0.1), ex(&p2, 0.1)]);
        assert!(check.agreement < AGREEMENT, "{check:?}");
        assert_eq!(check.decision, Decision::Wrapper, "{check:?}");
    }
}
