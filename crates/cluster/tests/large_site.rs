//! Template grouping of a site larger than `max_sample`, on real pages:
//! big9's 200 pages (11 sites, four template years each) taken as one site.

use canopy_cluster::{group_count, group_site_templates, group_templates, Signature};
use canopy_dom::{Document, DomOptions};
use canopy_test_support::{corpora, manifest};

const THRESHOLD: f64 = 0.3;

fn big9_signatures() -> Vec<Signature> {
    let dir = corpora().join("big9");
    manifest("big9")
        .iter()
        .map(|row| {
            let bytes = std::fs::read(dir.join(&row["html"])).unwrap();
            let html = String::from_utf8_lossy(&bytes);
            Signature::of(&Document::parse(&html, &DomOptions::default()))
        })
        .collect()
}

/// Pages in the group of `b` that most of their group of `a` went to, and
/// the other way round: whichever is fewer (merging every group into one,
/// or splitting each, agrees one way only).
fn agreeing(a: &[usize], b: &[usize]) -> usize {
    one_way(a, b).min(one_way(b, a))
}

fn one_way(a: &[usize], b: &[usize]) -> usize {
    let mut counts = std::collections::HashMap::new();
    for (&x, &y) in a.iter().zip(b) {
        *counts.entry((x, y)).or_insert(0) += 1;
    }
    let mut best = std::collections::HashMap::new();
    for (&(x, _), &n) in &counts {
        let b: &mut usize = best.entry(x).or_insert(0);
        *b = (*b).max(n);
    }
    best.values().sum()
}

/// Labels numbered in the order of each group's first page: 0, then at
/// most one more than any label before.
fn numbered_by_first_page(labels: &[usize]) -> bool {
    let mut next = 0;
    labels.iter().all(|&l| {
        if l == next {
            next += 1;
        }
        l < next
    })
}

#[test]
fn a_site_within_the_sample_is_grouped_exactly() {
    let pages = big9_signatures();
    let exact = group_templates(&pages, THRESHOLD);
    assert_eq!(
        group_site_templates(&pages[..], THRESHOLD, pages.len()).unwrap(),
        exact
    );
    assert_eq!(
        group_site_templates(&pages[..], THRESHOLD, 0).unwrap(),
        exact
    );
}

#[test]
fn a_sampled_site_keeps_the_exact_groups() {
    let pages = big9_signatures();
    let exact = group_templates(&pages, THRESHOLD);
    // A quarter of the pages grouped exactly, the rest assigned.
    let sampled = group_site_templates(&pages[..], THRESHOLD, 50).unwrap();
    assert_eq!(sampled.len(), pages.len());
    assert!(numbered_by_first_page(&sampled));
    assert!(group_count(&exact) > 20, "big9 has many templates");
    let agree = agreeing(&exact, &sampled);
    assert!(
        agree >= 190,
        "{agree} of 200 pages keep their exact group ({} exact groups, {} sampled)",
        group_count(&exact),
        group_count(&sampled)
    );
}

#[test]
fn pages_like_no_sampled_template_are_grouped_among_themselves() {
    // One page a round: each round's template takes the pages like it, the
    // pages like none go to the next round.
    let pages = big9_signatures();
    let exact = group_templates(&pages, THRESHOLD);
    let sampled = group_site_templates(&pages[..], THRESHOLD, 1).unwrap();
    assert!(numbered_by_first_page(&sampled));
    // No two exact groups of different sites end up as one: a page joins
    // a group only when it is like its pages.
    let agree = agreeing(&exact, &sampled);
    assert!(agree >= 190, "{agree} of 200 pages keep their exact group");
}

/// A site's signatures that count how many are loaded: the work of
/// grouping them, a comparison or so each.
struct Counted<'a> {
    pages: &'a [Signature],
    loaded: std::sync::atomic::AtomicUsize,
}

impl canopy_cluster::SignatureSource for Counted<'_> {
    fn len(&self) -> usize {
        self.pages.len()
    }

    fn load(&self, indices: &[usize]) -> std::io::Result<Vec<std::borrow::Cow<'_, Signature>>> {
        self.loaded
            .fetch_add(indices.len(), std::sync::atomic::Ordering::Relaxed);
        self.pages.load(indices)
    }
}

#[test]
fn a_site_of_pages_like_no_other_is_grouped_in_bounded_work() {
    // Every page a layout of its own (no tag path in common): each round
    // groups its sample into templates of one page, and no page joins them.
    let n = 10_000;
    let pages: Vec<Signature> = (0..n as u64)
        .map(|i| Signature::from_hashes((i * 64..i * 64 + 40).collect()))
        .collect();
    let site = Counted {
        pages: &pages,
        loaded: Default::default(),
    };
    let max_sample = 100;
    let labels = group_site_templates(&site, THRESHOLD, max_sample).unwrap();
    assert_eq!(group_count(&labels), n, "each page a template of its own");
    assert!(numbered_by_first_page(&labels));
    // Each page is loaded once a round, and there are as many rounds as it
    // takes to try MAX_TEMPLATES_TRIED templates (one per page sampled):
    // without that bound, n / max_sample rounds.
    let rounds = canopy_cluster::MAX_TEMPLATES_TRIED.div_ceil(max_sample);
    let loaded = site.loaded.into_inner();
    assert!(loaded <= rounds * n, "{loaded} signatures loaded");
}

#[test]
fn a_large_site_of_real_templates_is_grouped_before_the_bound() {
    // big9 fifty times over as one site (as scripts/bench_memory.sh's
    // site10k): every page has 49 copies, so a page left a template of its
    // own by the bound on templates tried would show.
    let big9 = big9_signatures();
    let pages: Vec<Signature> = (0..50).flat_map(|_| big9.iter().cloned()).collect();
    let labels = group_site_templates(&pages[..], THRESHOLD, 200).unwrap();
    let mut sizes = vec![0usize; group_count(&labels)];
    for &l in &labels {
        sizes[l] += 1;
    }
    assert!(sizes.iter().all(|&s| s >= 50), "{sizes:?}");
}
