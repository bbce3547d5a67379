//! LCS speed on a 50k × 50k character page pair. Ignored by default (debug builds are
//! slow); run with `cargo test -p canopy-score --profile testing --test speed -- --ignored`.

use std::time::Instant;

use canopy_score::score_page;

fn pseudo_text(seed: u64, chars: usize) -> String {
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "news",
        "report",
        "said",
        "market",
        "people",
        "world",
        "über",
        "東京",
        "data",
        "year",
        "government",
        "police",
        "city",
        "game",
        "team",
        "new",
    ];
    let mut x = seed;
    let mut s = String::new();
    while s.chars().count() < chars {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
        s.push(if x.is_multiple_of(11) { '\n' } else { ' ' });
    }
    s
}

#[test]
#[ignore]
fn lcs_50k_by_50k_under_a_second() {
    let a = pseudo_text(1, 60_000); // ~50k non-whitespace characters each
    let b = pseudo_text(2, 60_000);
    let start = Instant::now();
    let s = score_page(&a, &b);
    let took = start.elapsed();
    eprintln!("50k x 50k page pair: {took:?}, lcs {:?}", s.lcs);
    assert!(s.lcs.f1 > 0.0 && s.lcs.f1 < 1.0);
    assert!(took.as_secs_f64() < 1.0, "took {took:?}");
}
