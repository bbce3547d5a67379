//! Behaviour of the public API: stop words, stemmers by language, language
//! detection, tf-idf on hand-computed cases, determinism.

use canopy_signifiers::{detect_language, top_k_tfidf, Analyzer, Language, TermId};
use rust_stemmers::{Algorithm, Stemmer};

fn stems(analyzer: &mut Analyzer, text: &str, lang: Language) -> Vec<String> {
    let mut out = Vec::new();
    analyzer.analyze(text, lang, &mut out);
    out.iter().map(|&id| analyzer.term(id).to_owned()).collect()
}

#[test]
fn english_stop_words_removed_and_stemmed_like_rust_stemmers() {
    let mut a = Analyzer::new();
    let got = stems(
        &mut a,
        "The runner is RUNNING into the Connected networks, and it was generously funded.",
        Language::English,
    );
    assert_eq!(
        got,
        ["runner", "run", "connect", "network", "generous", "fund"]
    );
    let english = Stemmer::create(Algorithm::English);
    for word in [
        "runner",
        "running",
        "connected",
        "networks",
        "generously",
        "funded",
    ] {
        assert!(got.contains(&english.stem(word).into_owned()), "{word}");
    }
    // Only stop words: nothing.
    assert!(stems(&mut a, "The, AND; it IS: to be", Language::English).is_empty());
}

#[test]
fn each_language_gets_its_stemmer_and_stop_list() {
    let mut a = Analyzer::new();
    // French: "les" and "et" are stop words; Snowball French stems.
    assert_eq!(
        stems(
            &mut a,
            "Les chanteuses et les continuellement",
            Language::French
        ),
        ["chanteux", "continuel"]
    );
    // German: "die" and "und" are stop words; umlauts are kept, plural stripped.
    assert_eq!(
        stems(&mut a, "Die Häuser und Katzen", Language::German),
        ["haus", "katz"]
    );
    // Russian: "и" (stop word, and 1 char), "в" dropped; Cyrillic lowercased.
    assert_eq!(
        stems(&mut a, "Книги и журналы в библиотеке", Language::Russian),
        ["книг", "журнал", "библиотек"]
    );
    // The same words through the English pipeline are not stemmed alike.
    assert_ne!(
        stems(&mut a, "Häuser Katzen", Language::English),
        ["haus", "katz"]
    );
    // Greek has a stemmer but no tantivy stop list.
    let greek = Stemmer::create(Algorithm::Greek);
    assert_eq!(
        stems(&mut a, "Καλημέρα", Language::Greek),
        [greek.stem("καλημέρα").into_owned()]
    );
    // Other: lowercase only.
    assert_eq!(
        stems(&mut a, "The Running Dogs", Language::Other),
        ["the", "running", "dogs"]
    );
}

const GERMAN: &str = "Die Bundesregierung hat am Mittwoch beschlossen, dass die \
    Steuern für kleine und mittlere Unternehmen im kommenden Jahr gesenkt werden \
    sollen. Der Finanzminister erklärte, man wolle damit die Wirtschaft stärken.";
const FRENCH: &str = "Le gouvernement a annoncé mercredi une baisse des impôts pour \
    les petites et moyennes entreprises, afin de soutenir la croissance de \
    l'économie pendant l'année prochaine.";

#[test]
fn detect_language_uses_html_lang_then_whatlang() {
    // No lang attribute: detection.
    assert_eq!(detect_language(None, GERMAN), Language::German);
    assert_eq!(detect_language(None, FRENCH), Language::French);
    // A known lang attribute wins over the text.
    assert_eq!(detect_language(Some("en-GB"), GERMAN), Language::English);
    assert_eq!(detect_language(Some("fr"), GERMAN), Language::French);
    // An unknown or unsupported attribute falls back to detection.
    assert_eq!(detect_language(Some("x-klingon"), GERMAN), Language::German);
    assert_eq!(detect_language(Some(""), FRENCH), Language::French);
    // Nothing reliable: English.
    assert_eq!(detect_language(None, ""), Language::English);
    assert_eq!(detect_language(Some("zz"), "ok"), Language::English);
    // A reliable detection of a language without stemmer: Other.
    let polish = "Rząd postanowił w środę obniżyć podatki dla małych i średnich \
        przedsiębiorstw, aby wesprzeć wzrost gospodarczy w przyszłym roku.";
    assert_eq!(detect_language(None, polish), Language::Other);
    assert_eq!(Language::German.code(), "de");
    assert_eq!(Language::Other.code(), "und");
}

fn ids(analyzer: &mut Analyzer, texts: &[&str]) -> Vec<Vec<TermId>> {
    texts
        .iter()
        .map(|text| {
            let mut out = Vec::new();
            analyzer.analyze(text, Language::Other, &mut out);
            out
        })
        .collect()
}

type Named = Vec<Vec<(String, f64)>>;

fn named(analyzer: &Analyzer, top: Vec<Vec<(TermId, f64)>>) -> Named {
    top.into_iter()
        .map(|page| {
            page.into_iter()
                .map(|(id, w)| (analyzer.term(id).to_owned(), w))
                .collect()
        })
        .collect()
}

const PAGES: [&str; 3] = [
    "apple apple banana cherry",
    "banana cherry date",
    "cherry date elder elder",
];

#[test]
fn tfidf_hand_computed() {
    let mut a = Analyzer::new();
    let pages = ids(&mut a, &PAGES);
    let bags: Vec<&[TermId]> = pages.iter().map(Vec::as_slice).collect();
    let top = named(&a, top_k_tfidf(&bags, &a, 10));

    // n = 3; idf(df=1) = ln 3, idf(df=2) = ln(3/2), idf(df=3) = 0:
    // "cherry" is on every page, weighs 0 and is no signifier.
    let idf1 = 3f64.ln();
    let idf2 = 1.5f64.ln();
    let expected: [&[(&str, f64)]; 3] = [
        &[("apple", 2.0 / 4.0 * idf1), ("banana", idf2 / 4.0)],
        // banana and date tie: by string.
        &[("banana", idf2 / 3.0), ("date", idf2 / 3.0)],
        &[("elder", 2.0 / 4.0 * idf1), ("date", idf2 / 4.0)],
    ];
    for (got, want) in top.iter().zip(expected) {
        let got_terms: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        let want_terms: Vec<&str> = want.iter().map(|(t, _)| *t).collect();
        assert_eq!(got_terms, want_terms);
        for ((_, g), (_, w)) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{g} vs {w}");
        }
    }
    // Spot value: ½ · ln 3.
    assert!((top[0][0].1 - 0.549_306_144_334_054_8).abs() < 1e-12);

    // k cuts, ties still by string; k = 0 and empty pages give nothing.
    let top1 = named(&a, top_k_tfidf(&bags, &a, 1));
    assert_eq!(top1[1].len(), 1);
    assert_eq!(top1[1][0].0, "banana");
    assert!(top_k_tfidf(&bags, &a, 0).iter().all(Vec::is_empty));
    let with_empty: Vec<&[TermId]> = vec![bags[0], &[]];
    assert!(top_k_tfidf(&with_empty, &a, 10)[1].is_empty());
    assert!(top_k_tfidf(&[], &a, 10).is_empty());
}

#[test]
fn tfidf_single_page_ranks_by_tf() {
    let mut a = Analyzer::new();
    let pages = ids(&mut a, &["beta alpha gamma beta gamma beta"]);
    let top = named(&a, top_k_tfidf(&[&pages[0]], &a, 10));
    let terms: Vec<&str> = top[0].iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(terms, ["beta", "gamma", "alpha"]);
    assert!((top[0][0].1 - 0.5).abs() < 1e-12);
}

#[test]
fn tfidf_deterministic_whatever_the_id_order() {
    // Same pages; a second analyzer sees the words in reverse order first, so
    // every term gets another id.
    let mut a = Analyzer::new();
    let pages_a = ids(&mut a, &PAGES);
    let mut b = Analyzer::new();
    let mut warm = Vec::new();
    b.analyze("elder date cherry banana apple", Language::Other, &mut warm);
    let pages_b = ids(&mut b, &PAGES);
    assert_ne!(pages_a, pages_b);

    let bags_a: Vec<&[TermId]> = pages_a.iter().map(Vec::as_slice).collect();
    let bags_b: Vec<&[TermId]> = pages_b.iter().map(Vec::as_slice).collect();
    for k in [1, 2, 10] {
        let ta = named(&a, top_k_tfidf(&bags_a, &a, k));
        let tb = named(&b, top_k_tfidf(&bags_b, &b, k));
        // Bit-identical weights, same order.
        let bits = |t: &Named| -> Vec<Vec<(String, u64)>> {
            t.iter()
                .map(|p| p.iter().map(|(s, w)| (s.clone(), w.to_bits())).collect())
                .collect()
        };
        assert_eq!(bits(&ta), bits(&tb), "k = {k}");
    }

    // Many ties: ten terms once each on one page rank alphabetically.
    let mut c = Analyzer::new();
    let words = [
        "kilo", "echo", "juliet", "alpha", "golf", "delta", "india", "bravo", "hotel", "foxtrot",
    ];
    let page = ids(&mut c, &[&words.join(" ")]).remove(0);
    let top = named(&c, top_k_tfidf(&[&page], &c, 4));
    let terms: Vec<&str> = top[0].iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(terms, ["alpha", "bravo", "delta", "echo"]);
}
