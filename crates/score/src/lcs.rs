//! Character-level longest common subsequence, bit-parallel.

use std::collections::HashMap;

/// Texts longer than this many characters (after whitespace removal) are truncated to
/// their first `LCS_MAX_CHARS` characters for the LCS score only.
///
/// The bit-parallel algorithm costs about `n·m/64` word operations, so the cap bounds one
/// page pair to roughly `300_000² / 64 ≈ 1.4·10⁹` operations (a second or two). Every gold
/// text of the big9 and dragnet corpora is below it (the longest is ~246k characters).
pub const LCS_MAX_CHARS: usize = 300_000;

/// The characters the LCS score compares: every `char` of `text` that is not whitespace
/// (`char::is_whitespace`), in order, case kept, capped at [`LCS_MAX_CHARS`].
pub(crate) fn lcs_chars(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .take(LCS_MAX_CHARS)
        .collect()
}

/// Length of the longest common subsequence of `a` and `b` (by `char`).
///
/// Bit-parallel (Allison–Dix / Hyyrö 2004): the shorter sequence is the bit vector, the
/// longer one is scanned; `O(n·⌈m/64⌉)` time and `O(σ·⌈m/64⌉)` memory for σ distinct
/// characters in the shorter sequence. No cap is applied here.
///
/// ```
/// use canopy_score::lcs_len;
/// let a: Vec<char> = "thedogjumps".chars().collect();
/// let b: Vec<char> = "thefoxjumps".chars().collect();
/// assert_eq!(lcs_len(&a, &b), 9); // "the" + "o" + "jumps"
/// ```
pub fn lcs_len(a: &[char], b: &[char]) -> usize {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = short.len();
    if m == 0 {
        return 0;
    }
    let words = m.div_ceil(64);

    // Match masks: bit i of mask(c) is set when short[i] == c. ASCII goes through a
    // direct table, other characters through a map; both index into one flat buffer.
    let mut ascii: [u32; 128] = [u32::MAX; 128];
    let mut other: HashMap<char, u32> = HashMap::new();
    let mut masks: Vec<u64> = Vec::new();
    for (i, &c) in short.iter().enumerate() {
        let slot = if (c as u32) < 128 {
            &mut ascii[c as usize]
        } else {
            other.entry(c).or_insert(u32::MAX)
        };
        if *slot == u32::MAX {
            *slot = (masks.len() / words) as u32;
            masks.resize(masks.len() + words, 0);
        }
        masks[*slot as usize * words + i / 64] |= 1u64 << (i % 64);
    }

    let mut v = vec![u64::MAX; words];
    for &c in long {
        let slot = if (c as u32) < 128 {
            ascii[c as usize]
        } else {
            other.get(&c).copied().unwrap_or(u32::MAX)
        };
        if slot == u32::MAX {
            // No match anywhere: U = 0, so V' = V + 0 | V = V.
            continue;
        }
        let mask = &masks[slot as usize * words..(slot as usize + 1) * words];
        let mut carry = false;
        for (vk, &mk) in v.iter_mut().zip(mask) {
            let u = *vk & mk;
            let (s1, c1) = vk.overflowing_add(u);
            let (s2, c2) = s1.overflowing_add(carry as u64);
            carry = c1 || c2;
            *vk = s2 | (*vk & !mk);
        }
    }

    // LCS = number of zero bits among the first m bits of V.
    let mut ones = 0usize;
    for (k, &vk) in v.iter().enumerate() {
        let bits = if k + 1 == words && m % 64 != 0 {
            vk & ((1u64 << (m % 64)) - 1)
        } else {
            vk
        };
        ones += bits.count_ones() as usize;
    }
    m - ones
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dp(a: &[char], b: &[char]) -> usize {
        let mut prev = vec![0usize; b.len() + 1];
        let mut cur = vec![0usize; b.len() + 1];
        for &x in a {
            for (j, &y) in b.iter().enumerate() {
                cur[j + 1] = if x == y {
                    prev[j] + 1
                } else {
                    cur[j].max(prev[j + 1])
                };
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[b.len()]
    }

    /// A small deterministic generator (xorshift) so the test needs no extra crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn matches_quadratic_dp() {
        let alphabet: Vec<char> = "abcdé漢 x".chars().collect();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..300 {
            let la = (rng.next() % 200) as usize;
            let lb = (rng.next() % 200) as usize;
            let sigma = 1 + (round % alphabet.len());
            let a: Vec<char> = (0..la)
                .map(|_| alphabet[(rng.next() % sigma as u64) as usize])
                .collect();
            let b: Vec<char> = (0..lb)
                .map(|_| alphabet[(rng.next() % sigma as u64) as usize])
                .collect();
            assert_eq!(lcs_len(&a, &b), dp(&a, &b), "a={a:?} b={b:?}");
        }
    }

    #[test]
    fn paper_example() {
        // The text-density-graph paper's example pair. The paper quotes "the jumps over
        // the brown " (25 chars) as the LCSequence, but the true LCS is 28 chars, as the
        // quadratic DP confirms.
        let a: Vec<char> = "the dog jumps over the brown fox".chars().collect();
        let b: Vec<char> = "the fox jumps over the brown dog".chars().collect();
        assert_eq!(dp(&a, &b), 28);
        assert_eq!(lcs_len(&a, &b), 28);
    }

    #[test]
    fn word_boundaries() {
        for n in [1usize, 63, 64, 65, 127, 128, 129] {
            let a: Vec<char> = std::iter::repeat_n('a', n).collect();
            assert_eq!(lcs_len(&a, &a), n);
            let mut b = a.clone();
            b.push('b');
            assert_eq!(lcs_len(&a, &b), n);
            assert_eq!(lcs_len(&b, &a), n);
        }
        assert_eq!(lcs_len(&[], &['a']), 0);
    }
}
