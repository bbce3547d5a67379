//! Signifiers of real news pages: the gold article texts of the big9 corpus
//! (`shared/corpora/big9`, beside the repository; read in place, never copied).
//!
//! A page's top-10 tf-idf terms, computed over the 10 pages of its site-year
//! group, should be about what the article is about: most of them should occur
//! in the article's lead (its title, the gold's first line, and its first
//! paragraph, the second line).

use std::collections::{BTreeMap, HashSet};

use canopy_signifiers::{detect_language, top_k_tfidf, Analyzer, Language, TermId};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpora/big9");

struct Page {
    group: String,
    lang: String,
    gold: String,
}

fn read_corpus() -> Vec<Page> {
    let manifest = std::fs::read_to_string(format!("{CORPUS}/manifest.tsv"))
        .expect("shared/corpora/big9 must sit beside the repository");
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).expect(name);
    let (group, lang, gold) = (col("group"), col("lang"), col("gold"));
    lines
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            Page {
                group: cols[group].to_owned(),
                lang: cols[lang].to_owned(),
                gold: std::fs::read_to_string(format!("{CORPUS}/{}", cols[gold]))
                    .expect("gold text"),
            }
        })
        .collect()
}

/// The pages of each site-year group, groups in name order.
fn groups(corpus: &[Page]) -> Vec<Vec<&Page>> {
    let mut groups: BTreeMap<&str, Vec<&Page>> = BTreeMap::new();
    for page in corpus {
        groups.entry(&page.group).or_default().push(page);
    }
    groups.into_values().collect()
}

/// A page's top-10 (stem, weight bits) and the stems of its lead.
type PageSignifiers = (Vec<(String, u64)>, HashSet<String>);

/// One group's signifiers: per page, its top-10 (stem, weight bits), and its
/// lead's stems (title and first paragraph).
fn signifiers(pages: &[&Page]) -> Vec<PageSignifiers> {
    let mut analyzer = Analyzer::new();
    let mut bags = Vec::new();
    let mut leads = Vec::new();
    for page in pages {
        let lang = detect_language(Some(&page.lang), &page.gold);
        // One call per line, as Forest calls it per text node.
        let mut bag = Vec::new();
        for line in page.gold.lines() {
            analyzer.analyze(line, lang, &mut bag);
        }
        let mut lead: Vec<TermId> = Vec::new();
        for line in page.gold.lines().take(2) {
            analyzer.analyze(line, lang, &mut lead);
        }
        bags.push(bag);
        leads.push(lead);
    }
    let slices: Vec<&[TermId]> = bags.iter().map(Vec::as_slice).collect();
    top_k_tfidf(&slices, &analyzer, 10)
        .into_iter()
        .zip(leads)
        .map(|(top, lead)| {
            let top = top
                .into_iter()
                .map(|(t, w)| (analyzer.term(t).to_owned(), w.to_bits()))
                .collect();
            let lead = lead.iter().map(|&t| analyzer.term(t).to_owned()).collect();
            (top, lead)
        })
        .collect()
}

#[test]
fn big9_signifiers_are_in_the_lead() {
    let corpus = read_corpus();
    assert_eq!(corpus.len(), 200);
    let mut own = [0usize; 11];
    let mut other_total = 0;
    for pages in groups(&corpus) {
        let sig = signifiers(&pages);
        for (i, (top, lead)) in sig.iter().enumerate() {
            assert_eq!(top.len(), 10);
            own[top.iter().filter(|(t, _)| lead.contains(t)).count()] += 1;
            // Control: the lead of the next page of the same group.
            let other_lead = &sig[(i + 1) % sig.len()].1;
            other_total += top.iter().filter(|(t, _)| other_lead.contains(t)).count();
        }
    }
    let n = 200.0;
    let own_total: usize = own
        .iter()
        .enumerate()
        .map(|(found, pages)| found * pages)
        .sum();
    let at_least = |k: usize| own.iter().skip(k).sum::<usize>();
    eprintln!(
        "pages by number of top-10 terms in their lead: {own:?}; mean {:.2}, \
         in another page's lead: mean {:.2}",
        own_total as f64 / n,
        other_total as f64 / n
    );
    // Measured (classic idf): mean 4.46 in the own lead; 164/200 pages have
    // >= 3 of their top 10 in it, 101/200 have >= 5; mean 0.15 in another
    // page's lead.
    assert!(own_total as f64 / n >= 4.2);
    assert!(at_least(3) >= 155, "{own:?}");
    assert!(at_least(5) >= 90, "{own:?}");
    // The signifiers are the page's own, not the group's: another article's
    // lead holds far fewer of them.
    assert!(other_total * 4 <= own_total, "{other_total} vs {own_total}");
}

#[test]
fn big9_signifiers_same_on_any_thread_and_order() {
    let corpus = read_corpus();
    let groups = groups(&corpus);
    let sequential: Vec<_> = groups.iter().map(|pages| signifiers(pages)).collect();
    // Again, each group on its own thread, groups started in reverse order
    // and pages analyzed in reverse order (so every term gets another id).
    let parallel: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .iter()
            .rev()
            .map(|pages| {
                scope.spawn(|| {
                    let reversed: Vec<&Page> = pages.iter().rev().copied().collect();
                    let mut result = signifiers(&reversed);
                    result.reverse();
                    result
                })
            })
            .collect();
        let mut results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        results.reverse();
        results
    });
    for (s, p) in sequential.iter().zip(&parallel) {
        let s: Vec<_> = s.iter().map(|(top, _)| top).collect();
        let p: Vec<_> = p.iter().map(|(top, _)| top).collect();
        assert_eq!(s, p);
    }
}

/// Ids renumbered 0, 1, … by first appearance, and the old id of each new one
/// (what `NodeTerms::renumber` does for a page).
fn renumber(ids: &[TermId]) -> (Vec<usize>, Vec<TermId>) {
    let mut order: Vec<TermId> = Vec::new();
    let renumbered = ids
        .iter()
        .map(|id| match order.iter().position(|o| o == id) {
            Some(n) => n,
            None => {
                order.push(*id);
                order.len() - 1
            }
        })
        .collect();
    (renumbered, order)
}

#[test]
fn pages_analyzed_apart_and_adopted_in_order_get_one_analyzers_ids() {
    let corpus = read_corpus();
    let langs: Vec<Language> = corpus
        .iter()
        .map(|p| detect_language(Some(&p.lang), &p.gold))
        .collect();
    // The thread's analyzer first sees the pages backwards, so that its
    // ids are not the ones a single pass gives.
    for (page, &lang) in corpus.iter().zip(&langs).rev() {
        Analyzer::with_thread_analyzer(|a| a.analyze(&page.gold, lang, &mut Vec::new()));
    }
    let mut one_pass = Analyzer::new();
    let mut adopting = Analyzer::new();
    for (page, &lang) in corpus.iter().zip(&langs) {
        let mut want = Vec::new();
        one_pass.analyze(&page.gold, lang, &mut want);
        let (renumbered, stems) = Analyzer::with_thread_analyzer(|a| {
            let mut ids = Vec::new();
            a.analyze(&page.gold, lang, &mut ids);
            let (renumbered, order) = renumber(&ids);
            (renumbered, a.stems(order))
        });
        let ids = adopting.adopt(&stems);
        let got: Vec<TermId> = renumbered.iter().map(|&n| ids[n]).collect();
        assert_eq!(got, want, "{}", page.group);
    }
    assert!(corpus.len() >= 100, "{} pages", corpus.len());
}
