//! tf-idf weights and the top-k terms of each page.

use std::cmp::Ordering;

use crate::analyzer::{Analyzer, TermId};

/// For each page (its bag of terms), the top `k` terms by tf-idf computed
/// over `pages`, best first, with their weights.
///
/// `tf(t, p) = count(t, p) / |p|`, `idf(t) = ln(n / df(t))` (1 for a single
/// page), weight `tf * idf` (see the crate documentation). Terms of weight 0
/// (on every page: the template's words) are never signifiers. Equal weights are ordered
/// by the term's string, ascending, so the result is the same whatever the
/// order in which `analyzer` gave out ids. A page with fewer than `k`
/// distinct terms gets all of them; an empty page gets none.
///
/// # Panics
///
/// If a page holds a [`TermId`] that `analyzer` did not give out.
pub fn top_k_tfidf(pages: &[&[TermId]], analyzer: &Analyzer, k: usize) -> Vec<Vec<(TermId, f64)>> {
    top_k_tfidf_among(pages, &Background::default(), analyzer, k)
}

/// Pages that count in a cluster's document frequencies without being
/// ranked (other pages of the same site: [`top_k_tfidf_among`]): how many
/// there are, and on how many of them each of an analyzer's terms occurs.
/// Only the terms of the ranked pages are ever looked up, so the
/// background's own vocabulary need not be interned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Background {
    /// How many background pages there are.
    pub pages: usize,
    /// `df[t]`: on how many of them term `t` occurs (a term past the end:
    /// on none).
    pub df: Vec<u32>,
}

impl Background {
    /// The background of the pages whose bags are `bags`.
    #[cfg(test)]
    fn of_bags(bags: &[&[TermId]]) -> Background {
        let mut background = Background::default();
        for bag in bags {
            background.add_page(count_terms(bag).into_iter().map(|(t, _)| t));
        }
        background
    }

    /// Counts one page more, whose distinct terms are `terms`.
    pub fn add_page(&mut self, terms: impl IntoIterator<Item = TermId>) {
        self.pages += 1;
        for TermId(t) in terms {
            let t = t as usize;
            if self.df.len() <= t {
                self.df.resize(t + 1, 0);
            }
            self.df[t] += 1;
        }
    }

    fn df(&self, t: TermId) -> u32 {
        self.df.get(t.0 as usize).copied().unwrap_or(0)
    }
}

/// [`top_k_tfidf`] with document frequencies counted over `pages` and
/// `background` together: other pages of the same site, so that the idf of
/// a small cluster says what is the site's template and what is one
/// page's, which two pages alone cannot (with two, every term on one page
/// only weighs the same, a sidebar's headlines as the article's words).
/// Only `pages` are ranked.
pub fn top_k_tfidf_among(
    pages: &[&[TermId]],
    background: &Background,
    analyzer: &Analyzer,
    k: usize,
) -> Vec<Vec<(TermId, f64)>> {
    // Each page's (term, count), sorted by term id.
    let counts: Vec<Vec<(TermId, u32)>> = pages.iter().map(|page| count_terms(page)).collect();

    let mut df = vec![0u32; analyzer.num_terms()];
    for page in &counts {
        for &(term, _) in page {
            df[term.0 as usize] += 1;
        }
    }
    for (t, d) in df.iter_mut().enumerate() {
        *d += background.df(TermId(t as u32));
    }

    let n = (pages.len() + background.pages) as f64;
    counts
        .iter()
        .zip(pages)
        .map(|(page, terms)| {
            let len = terms.len() as f64;
            let mut weighted: Vec<(TermId, f64)> = page
                .iter()
                .map(|&(term, count)| {
                    let tf = f64::from(count) / len;
                    // The classic idf: a term on every page of the cluster
                    // is the template's, not the page's (forest.md §3.1).
                    let idf = if n > 1.0 {
                        (n / f64::from(df[term.0 as usize])).ln()
                    } else {
                        1.0
                    };
                    (term, tf * idf)
                })
                .filter(|&(_, w)| w > 0.0)
                .collect();
            let by_rank = |a: &(TermId, f64), b: &(TermId, f64)| -> Ordering {
                b.1.total_cmp(&a.1)
                    .then_with(|| analyzer.term(a.0).cmp(analyzer.term(b.0)))
            };
            if weighted.len() > k {
                if k > 0 {
                    weighted.select_nth_unstable_by(k - 1, by_rank);
                }
                weighted.truncate(k);
            }
            weighted.sort_unstable_by(by_rank);
            weighted
        })
        .collect()
}

/// The distinct terms of a page with their counts, by ascending id.
fn count_terms(terms: &[TermId]) -> Vec<(TermId, u32)> {
    let mut sorted = terms.to_vec();
    sorted.sort_unstable();
    let mut counts: Vec<(TermId, u32)> = Vec::new();
    for term in sorted {
        match counts.last_mut() {
            Some((last, count)) if *last == term => *count += 1,
            _ => counts.push((term, 1)),
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_clusters_idf_counts_the_sites_other_pages() {
        // Two pages about one storm, each with its own sidebar headline.
        // Alone, the two pages make "storm" the template's (idf 0) and the
        // sidebar's words the signifiers; among the site's pages, most
        // about other things, "storm" is what the two are about.
        let mut analyzer = Analyzer::new();
        let mut bag = |text: &str| {
            let mut terms = Vec::new();
            analyzer.analyze(text, crate::Language::English, &mut terms);
            terms
        };
        let a = bag("storm storm storm coast menu lottery");
        let b = bag("storm storm storm river menu election");
        let others: Vec<Vec<TermId>> = ["bank rates menu", "school menu", "festival crowds menu"]
            .iter()
            .map(|t| bag(t))
            .collect();
        let top = |ranked: &[(TermId, f64)]| analyzer.term(ranked[0].0).to_string();
        let alone = top_k_tfidf(&[&a, &b], &analyzer, 1);
        assert_ne!(top(&alone[0]), "storm");
        let others: Vec<&[TermId]> = others.iter().map(Vec::as_slice).collect();
        let among = top_k_tfidf_among(&[&a, &b], &Background::of_bags(&others), &analyzer, 1);
        assert_eq!(top(&among[0]), "storm");
        assert_eq!(top(&among[1]), "storm");
    }

    #[test]
    fn counts() {
        let t = |i| TermId(i);
        assert_eq!(
            count_terms(&[t(3), t(1), t(3), t(0), t(3)]),
            [(t(0), 1), (t(1), 1), (t(3), 3)]
        );
        assert!(count_terms(&[]).is_empty());
    }
}
