//! Agreement with the Python reference implementation, `scripts/peers/score_ref.py`.
//!
//! The expected numbers were produced by that script (Python 3.11) and are stored here, so
//! this test does not need Python. `data/reference_pairs.tsv` was made with
//!
//! ```text
//! { python3 scripts/peers/score_ref.py --pairs ../shared/corpora/big9 10;
//!   python3 scripts/peers/score_ref.py --pairs ../shared/corpora/dragnet 10 | tail -n +2; } \
//!   > crates/score/tests/data/reference_pairs.tsv
//! ```
//!
//! and holds only page ids and scores: the texts are read from the shared corpora.

use canopy_score::{score_page, Prf};

const TOLERANCE: f64 = 1e-9;

fn assert_close(what: &str, got: Prf, want: &[f64]) {
    let got_v = [got.precision, got.recall, got.f1];
    for (g, w) in got_v.iter().zip(want) {
        assert!(
            (g - w).abs() <= TOLERANCE,
            "{what}: Rust {got_v:?} vs Python {want:?}"
        );
    }
}

#[test]
fn agrees_with_python_on_handmade_unicode_cases() {
    // (output, gold, bigram [P, R, F1], token [P, R, F1]) as printed by score_ref.py.
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, &str, [f64; 3], [f64; 3])] = &[
        // "İ" lowercases to "i" + U+0307 (a mark, not \w): tokens i, stanbul.
        (
            "Straße İstanbul ΟΔΟΣ café",
            "strasse istanbul οδος cafe",
            [0.0, 0.0, 0.0],
            [0.2, 0.25, 0.22222222222222224],
        ),
        (
            "東京タワーは東京にあります。",
            "東京の塔は高い。タワー！",
            [0.2727272727272727, 0.3333333333333333, 0.3],
            [0.46153846153846156, 0.6, 0.5217391304347826],
        ),
        (
            "한국어 텍스트 입니다 한국어",
            "한국어 텍스트",
            [0.3333333333333333, 1.0, 0.5],
            [0.5, 1.0, 0.6666666666666666],
        ),
        (
            "x² 3½ a_b-c naïve",
            "X² 3 ½ a_b c nai\u{308}ve",
            [0.25, 0.16666666666666666, 0.2],
            [0.6, 0.42857142857142855, 0.5],
        ),
        (
            "ｶﾀｶﾅ and 日本 mixed_日本text",
            "カタカナ and 日本 mixed 日本 text",
            [0.3333333333333333, 0.3333333333333333, 0.3333333333333333],
            [0.5454545454545454, 0.5454545454545454, 0.5454545454545454],
        ),
        (
            "one",
            "one two",
            [1.0, 0.5, 0.6666666666666666],
            [1.0, 0.5, 0.6666666666666666],
        ),
        ("...", "word", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        (
            "Привет, мир! Привет",
            "привет мир",
            [0.5, 1.0, 0.6666666666666666],
            [0.6666666666666666, 1.0, 0.8],
        ),
    ];
    for (out, gold, bigram, token) in cases {
        let s = score_page(out, gold);
        assert_close(&format!("bigram {out:?} vs {gold:?}"), s.bigram, bigram);
        assert_close(&format!("token {out:?} vs {gold:?}"), s.token, token);
    }
}

#[test]
fn agrees_with_python_on_gold_pairs() {
    let corpora = canopy_test_support::corpora();
    let table = include_str!("data/reference_pairs.tsv");
    let mut checked = 0;
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 8, "bad fixture line {line:?}");
        let read = |id: &str| {
            let corpus = id.split('-').next().unwrap();
            let path = corpora.join(corpus).join("gold").join(format!("{id}.txt"));
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        };
        let nums: Vec<f64> = f[2..].iter().map(|x| x.parse().unwrap()).collect();
        let s = score_page(&read(f[0]), &read(f[1]));
        assert_close(
            &format!("bigram {} vs {}", f[0], f[1]),
            s.bigram,
            &nums[0..3],
        );
        assert_close(&format!("token {} vs {}", f[0], f[1]), s.token, &nums[3..6]);
        checked += 1;
    }
    assert_eq!(checked, 20);
}
