//! Near duplicates of article texts (`dedup.mode = "near"`): MinHash
//! signatures over word shingles, and LSH bands to find the candidate
//! pairs, after datatrove's `MinhashDedupSignature` and
//! `MinhashDedupBuckets` (`minhash.py`: 5-word shingles, 14 bands of 8
//! hashes, 32-bit minima).
//!
//! A text's words are its maximal runs of alphanumeric characters
//! (`char::is_alphanumeric`, any script), lowercased, and each CJK
//! character alone (scripts without spaces between words, as the
//! signifiers and the index take them: a run of them is a whole clause,
//! and a clause with one character changed would be another word):
//! punctuation, symbols and whitespace only separate words, so case,
//! punctuation and spacing changes do not count. Its shingles are the runs of
//! `ngram` consecutive words (a text of fewer words is one shingle of all
//! of them). Each shingle is hashed once (XXH64 of its words' XXH64s);
//! hash `i` of the signature is the multiply-add-shift hash
//! `(a_i·x + b_i) mod 2^64 >> 32` of it (32 bits, datatrove's default
//! precision), and the signature holds each hash's minimum over the
//! shingles. Two texts' signatures agree at each
//! position with probability their shingle sets' Jaccard similarity, so
//! the fraction of positions that agree estimates it ([`similarity`]).
//!
//! The hashing is the `twox-hash` crate's XXH64, already the workspace's
//! hash (templates, buckets): one XXH64 per word and per shingle, then
//! one multiplication per shingle and hash, far cheaper than 112 seeded
//! XXH64s of each shingle (the shingle's XXH64 is already uniform, so a
//! 2-universal family over it is enough). The `a_i`, `b_i` are XXH64s of
//! `i` (fixed seeds), the same in every run, rank and thread.

use canopy_extract::is_cjk;
use twox_hash::XxHash64;

/// Hash `(a, b)` of the family applied to a shingle's hash `x`: the high
/// 32 bits of `a·x + b` mod 2^64, `a` odd (Dietzfelbinger's
/// multiply-add-shift). One multiplication, where datatrove's
/// `(a·x + b) mod (2^61 − 1)` needs a 128-bit product and its folding,
/// which cost about twice as much CPU in a run (dragnet, one CPU: +0.09 s
/// over `exact` against +0.05 s; docs/usage.md, "Near duplicates").
fn permuted(a: u64, b: u64, x: u64) -> u32 {
    (a.wrapping_mul(x).wrapping_add(b) >> 32) as u32
}

/// The signatures of one setting of `[dedup]`: `ngram` words a shingle,
/// `bands` bands of `rows` hashes.
#[derive(Debug, Clone)]
pub struct MinHash {
    ngram: usize,
    bands: usize,
    rows: usize,
    /// The hash family's (a_i, b_i), one per position of a signature.
    params: Vec<(u64, u64)>,
}

impl MinHash {
    /// `ngram` ≥ 1 words a shingle, `bands` × `rows` ≥ 1 hashes.
    pub fn new(ngram: usize, bands: usize, rows: usize) -> MinHash {
        let params = (0..(bands * rows) as u64)
            .map(|i| {
                let a = XxHash64::oneshot(2 * i, b"canopy minhash a") | 1;
                let b = XxHash64::oneshot(2 * i + 1, b"canopy minhash b");
                (a, b)
            })
            .collect();
        MinHash {
            ngram: ngram.max(1),
            bands,
            rows,
            params,
        }
    }

    /// Hashes in a signature (bands × rows).
    pub fn len(&self) -> usize {
        self.params.len()
    }

    /// Whether signatures are empty (no band).
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The signature of `text`; `None` when it has no word.
    pub fn signature(&self, text: &str) -> Option<Vec<u32>> {
        let words = word_hashes(text);
        if words.is_empty() {
            return None;
        }
        let n = self.ngram.min(words.len());
        let mut mins = vec![u32::MAX; self.params.len()];
        let mut bytes = Vec::with_capacity(8 * n);
        for shingle in words.windows(n) {
            bytes.clear();
            for w in shingle {
                bytes.extend_from_slice(&w.to_le_bytes());
            }
            let x = XxHash64::oneshot(0, &bytes);
            for (min, &(a, b)) in mins.iter_mut().zip(&self.params) {
                *min = (*min).min(permuted(a, b, x));
            }
        }
        Some(mins)
    }

    /// The keys of `signature`'s bands: band `j`'s `rows` hashes, hashed
    /// with `j` as the seed, so that equal hashes in two different bands
    /// make two different keys. Two signatures are candidates when one
    /// key is the same.
    pub fn band_keys<'a>(&'a self, signature: &'a [u32]) -> impl Iterator<Item = u64> + 'a {
        signature
            .chunks(self.rows)
            .take(self.bands)
            .enumerate()
            .map(|(j, band)| {
                let bytes: Vec<u8> = band.iter().flat_map(|h| h.to_le_bytes()).collect();
                XxHash64::oneshot(j as u64, &bytes)
            })
    }
}

/// The XXH64 of each word of `text` (module doc: runs of alphanumeric
/// characters, lowercased; each CJK character alone), in order.
fn word_hashes(text: &str) -> Vec<u64> {
    let mut hashes = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        let cjk = is_cjk(c);
        if c.is_alphanumeric() && !cjk {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
            hashes.push(XxHash64::oneshot(0, word.as_bytes()));
            word.clear();
        }
        if cjk {
            hashes.push(XxHash64::oneshot(0, c.encode_utf8(&mut [0; 4]).as_bytes()));
        }
    }
    if !word.is_empty() {
        hashes.push(XxHash64::oneshot(0, word.as_bytes()));
    }
    hashes
}

/// The MinHash estimate of the Jaccard similarity of two signatures' texts
/// (shingle sets): the fraction of positions where they agree.
pub fn similarity(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    let same = a.iter().zip(b).filter(|(x, y)| x == y).count();
    same as f64 / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A real article's text from the corpora (dragnet's gold), of many
    /// words.
    fn article() -> String {
        let dir = canopy_test_support::corpora().join("dragnet/gold");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .find(|t| t.split_whitespace().count() > 600)
            .expect("a gold text of more than 600 words")
    }

    /// The exact Jaccard similarity of two texts' 5-word shingle sets.
    fn jaccard(a: &str, b: &str) -> f64 {
        let shingles = |t: &str| -> HashSet<Vec<u64>> {
            word_hashes(t).windows(5).map(<[u64]>::to_vec).collect()
        };
        let (a, b) = (shingles(a), shingles(b));
        a.intersection(&b).count() as f64 / a.union(&b).count() as f64
    }

    #[test]
    fn the_estimate_follows_the_jaccard_similarity_of_real_text() {
        let minhash = MinHash::new(5, 14, 8);
        let text = article();
        let words: Vec<&str> = text.split_whitespace().collect();
        let sig = minhash.signature(&text).unwrap();
        assert_eq!(sig.len(), 112);
        // Case, punctuation and spacing do not count.
        let shouted: String = text
            .to_uppercase()
            .replace(['.', ',', '"'], " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("  ");
        assert_eq!(minhash.signature(&shouted).unwrap(), sig);
        // Every 10th word changed, then every 30th, then every 4th: the
        // estimate is within 0.1 of the shingle sets' exact Jaccard
        // (the standard error of 112 hashes is at most 0.05).
        for every in [10, 30, 4] {
            let changed: String = words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if i % every == every / 2 {
                        format!("changed{i}")
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            let exact = jaccard(&text, &changed);
            let estimate = similarity(&sig, &minhash.signature(&changed).unwrap());
            eprintln!("every {every}th word changed: Jaccard {exact:.3}, estimate {estimate:.3}");
            assert!(
                (estimate - exact).abs() < 0.1,
                "every {every}th word: estimate {estimate}, Jaccard {exact}"
            );
        }
        // Another real text shares (almost) nothing.
        let other = words[words.len() / 2..].join(" ");
        let first = words[..words.len() / 2].join(" ");
        let estimate = similarity(
            &minhash.signature(&first).unwrap(),
            &minhash.signature(&other).unwrap(),
        );
        assert!(estimate < 0.1, "{estimate}");
    }

    /// Regression: a run of CJK characters was one word, a whole clause,
    /// so a Chinese article with one character in 60 changed shared a
    /// third of its shingles with itself (estimate 0.35 on this page) and
    /// was no near duplicate; with each character a word, 0.86.
    #[test]
    fn a_chinese_article_with_a_few_characters_changed_is_a_near_duplicate() {
        let path = canopy_test_support::corpora().join("trafbench/html/trafbench-00016.html");
        let html = std::fs::read_to_string(path).unwrap();
        let doc = canopy_dom::Document::parse(&html, &canopy_dom::DomOptions::default());
        let text = doc.inner_text(doc.body());
        let han = text.chars().filter(|&c| is_cjk(c)).count();
        assert!(han > 1500, "{han} CJK characters");
        // Every 60th CJK character becomes another one.
        let mut k = 0;
        let changed: String = text
            .chars()
            .map(|c| {
                if !is_cjk(c) {
                    return c;
                }
                k += 1;
                if k % 60 == 30 {
                    char::from_u32(0x4E00 + (u32::from(c) * 7 + 13) % 0x5000).unwrap()
                } else {
                    c
                }
            })
            .collect();
        let minhash = MinHash::new(5, 14, 8);
        let estimate = similarity(
            &minhash.signature(&text).unwrap(),
            &minhash.signature(&changed).unwrap(),
        );
        let exact = jaccard(&text, &changed);
        eprintln!("Jaccard {exact:.3}, estimate {estimate:.3}");
        assert!((estimate - exact).abs() < 0.1, "{estimate} against {exact}");
        // Over the default threshold (`dedup.threshold`, 0.8).
        assert!(estimate >= 0.8, "{estimate}");
    }

    #[test]
    fn bands_of_equal_signatures_agree_and_short_texts_are_one_shingle() {
        let minhash = MinHash::new(5, 14, 8);
        let a = minhash.signature("Breaking: the river rose").unwrap();
        let b = minhash.signature("breaking the river... rose!").unwrap();
        assert_eq!(a, b);
        let keys: Vec<u64> = minhash.band_keys(&a).collect();
        assert_eq!(keys.len(), 14);
        assert_eq!(keys, minhash.band_keys(&b).collect::<Vec<_>>());
        assert!(minhash.signature(" — ").is_none());
    }
}
