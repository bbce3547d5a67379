//! Every gold text of the shared corpora scores 1 against itself.

use std::path::PathBuf;

use canopy_score::score_page;

fn gold_dir(corpus: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpora")
        .join(corpus)
        .join("gold");
    assert!(
        dir.is_dir(),
        "gold folder not found at {} (the shared corpora must sit at ../shared/corpora \
         beside the repository)",
        dir.display()
    );
    dir
}

fn check_self_scores(corpus: &str, expected_pages: usize) {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(gold_dir(corpus))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), expected_pages, "{corpus}: gold file count");
    for path in paths {
        let gold = std::fs::read_to_string(&path).unwrap();
        let s = score_page(&gold, &gold);
        for (name, prf) in [("bigram", s.bigram), ("token", s.token), ("lcs", s.lcs)] {
            assert!(
                prf.precision == 1.0 && prf.recall == 1.0 && prf.f1 == 1.0,
                "{}: {name} self-score {prf:?}",
                path.display()
            );
        }
    }
}

#[test]
fn big9_gold_scores_one_against_itself() {
    check_self_scores("big9", 200);
}

#[test]
fn big9_gold_with_reflowed_whitespace_still_scores_one() {
    // Whitespace and line breaks do not matter to any of the three scores.
    let dir = gold_dir("big9");
    let gold = std::fs::read_to_string(dir.join("big9-00001.txt")).unwrap();
    let reflowed = gold.split_whitespace().collect::<Vec<_>>().join("  \n ");
    let s = score_page(&reflowed, &gold);
    assert_eq!((s.bigram.f1, s.token.f1, s.lcs.f1), (1.0, 1.0, 1.0));
}
