//! What an element's names say about it, learned from wrappers.
//!
//! Pages name their blocks (`class="entry-content"`, `id="sidebar"`,
//! `class="share-buttons"`), and across sites the same words recur for the
//! same roles. A wrapper that Forest learns on a site's sibling pages says
//! which of those blocks hold the article: the nodes it selects and what
//! their cleaning keeps are article, the rest of the page is not. Counted
//! over many sites, each word of a name gets a weight: how much more often
//! it names article blocks than other blocks ([`Prior`]). That is the
//! prior the page-level extractor ranks its candidates and prunes its
//! selection with, on pages of sites too small to learn a wrapper of their
//! own.
//!
//! The counts ([`PriorCounts`]) are per site: a word counts once for a site
//! whose article blocks it names, once for a site whose other blocks it
//! names, however many pages and elements the site has, so that one large
//! site weighs as much as a small one. Counts add up: the default prior
//! (`configs/prior.tsv`, learned from the dev corpora by
//! `scripts/learn-prior.sh`) plus what tonight's wrappers show.

use std::collections::{BTreeMap, BTreeSet};

use canopy_dom::{is_taxonomy_class, local_name, Document, NodeId};
use rustc_hash::FxHashMap;

/// Most words taken from one element's names: a utility-class soup
/// (`flex items-center px-4 …`) says little, and bounds the work.
const MAX_WORDS: usize = 12;

/// A word must have been seen on this many sites before it weighs anything:
/// a word of one or two sites is that site's vocabulary, not a convention.
/// Three is the smallest count for which the two kinds of evidence can
/// disagree and still leave a majority.
const MIN_SITES: u32 = 3;

/// The largest weight one element's names add up to, either way, in
/// natural-log odds: e^3 ≈ 20 to 1. No name is surer than that.
const MAX_NAME_WEIGHT: f64 = 3.0;

/// The words of an element's `id` and `class`: each token split at
/// punctuation, digits and lower-to-upper case changes (`entry-content`,
/// `articleBody`, `post_text2` → entry, content, article, body, post,
/// text), lowercased, ASCII words of two letters or more, each once, at
/// most [`MAX_WORDS`]. Class tokens naming the post's topics (`tag-*`,
/// `category-*`), as the DOM's drop list skips them, are left out.
pub(crate) fn name_words(doc: &Document, n: NodeId, out: &mut NameWords) {
    out.text.clear();
    out.ends.clear();
    let id = doc.attr_named(n, &local_name!("id")).unwrap_or("");
    let class = doc.attr_named(n, &local_name!("class")).unwrap_or("");
    let tokens = std::iter::once(id).chain(
        class
            .split_ascii_whitespace()
            .filter(|t| !is_taxonomy_class(t)),
    );
    for token in tokens {
        split_words(token, out);
        if out.ends.len() >= MAX_WORDS {
            break;
        }
    }
}

/// Adds the lowercase words of `token` to `out`.
fn split_words(token: &str, out: &mut NameWords) {
    let mut prev_lower = false;
    // Bytes, not characters: a non-ASCII character's bytes are none of
    // them letters, and each ends the word as the character would.
    for b in token.bytes() {
        if b.is_ascii_alphabetic() {
            if b.is_ascii_uppercase() && prev_lower {
                out.end_word();
            }
            prev_lower = b.is_ascii_lowercase();
            out.text.push(char::from(b.to_ascii_lowercase()));
        } else {
            prev_lower = false;
            out.end_word();
        }
    }
    out.end_word();
}

/// The words of one element's names ([`name_words`]), written into one
/// buffer that the next element's reuse: the names of every element of a
/// page are read, and a `String` a word cost an allocation each.
#[derive(Debug, Default)]
pub(crate) struct NameWords {
    /// The words one after another, then the word being written.
    text: String,
    /// Where each word ends in `text`.
    ends: Vec<usize>,
}

impl NameWords {
    /// The words, in the order the names give them.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            // ASCII letters only: every index is a character's boundary.
            let word = self.text.get(start..end).unwrap_or_default();
            start = end;
            word
        })
    }

    /// Ends the word being written: kept when it has two letters or more,
    /// is not among the words already kept and there is room for it.
    fn end_word(&mut self) {
        let start = self.ends.last().copied().unwrap_or(0);
        let word = self.text.get(start..).unwrap_or_default();
        let kept =
            word.len() >= 2 && self.ends.len() < MAX_WORDS && !self.iter().any(|w| w == word);
        if kept {
            self.ends.push(self.text.len());
        } else {
            self.text.truncate(start);
        }
    }
}

/// Per-site counts of the words naming article blocks and other blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriorCounts {
    /// Sites counted.
    pub sites: u32,
    /// Per word: sites where it named an article block, another block, and
    /// an element holding the article (the layout around it).
    pub words: BTreeMap<String, [u32; 3]>,
}

impl PriorCounts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &PriorCounts) {
        self.sites += other.sites;
        for (word, c) in &other.words {
            let counts = self.words.entry(word.clone()).or_default();
            for (mine, theirs) in counts.iter_mut().zip(c) {
                *mine += theirs;
            }
        }
    }

    /// The counts as a TSV: a `#` comment line with the number of sites,
    /// a header, then `word article other holder` per word, sorted by word.
    pub fn to_tsv(&self) -> String {
        let mut out = format!("# sites\t{}\nword\tarticle\tother\tholder\n", self.sites);
        for (word, [a, o, h]) in &self.words {
            out.push_str(&format!("{word}\t{a}\t{o}\t{h}\n"));
        }
        out
    }

    /// Reads [`PriorCounts::to_tsv`]'s format back.
    pub fn from_tsv(text: &str) -> Result<PriorCounts, String> {
        let mut counts = PriorCounts::default();
        for (i, line) in text.lines().enumerate() {
            let fields: Vec<&str> = line.split('\t').collect();
            let number = |f: &str| {
                f.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("line {}: {f:?} is not a count", i + 1))
            };
            match fields.as_slice() {
                ["# sites", n] => counts.sites = number(n)?,
                ["word", "article", "other", "holder"] => {}
                [word, a, o, h] if !word.is_empty() => {
                    counts
                        .words
                        .insert(word.to_string(), [number(a)?, number(o)?, number(h)?]);
                }
                [""] => {}
                _ => {
                    return Err(format!(
                        "line {}: expected word, article, other, holder",
                        i + 1
                    ))
                }
            }
        }
        Ok(counts)
    }
}

/// One site's evidence: the words naming its article blocks and its other
/// blocks, on the pages its wrappers served.
#[derive(Debug, Clone, Default)]
pub struct SiteEvidence {
    article: BTreeSet<String>,
    other: BTreeSet<String>,
    holder: BTreeSet<String>,
}

impl SiteEvidence {
    /// Adds a page whose article a wrapper selected: `roots`, of which
    /// `kept` says which nodes the cleaning kept. An element with text and
    /// names is an article block when at least four fifths of its text is
    /// kept article text, another block when at most a fifth is (outside
    /// the selection, or cleaned out of it: a share bar, a related list);
    /// the selection's ancestors, which hold both, say nothing.
    pub fn add_page(&mut self, doc: &Document, roots: &[NodeId], kept: &dyn Fn(NodeId) -> bool) {
        let len = doc.len();
        // Characters of text, and of kept article text, per subtree.
        let mut chars = vec![0u32; len];
        let mut article = vec![0u32; len];
        let mut inside = vec![false; len];
        let mut dropped = vec![false; len];
        for n in 0..len {
            let parent = doc.node(n).parent;
            inside[n] = roots.contains(&n) || parent.is_some_and(|p| inside[p]);
            dropped[n] = inside[n] && (parent.is_some_and(|p| dropped[p]) || !kept(n));
        }
        for n in (0..len).rev() {
            if let Some(t) = doc.text(n) {
                let c = crate::text_counts::non_white_chars(t);
                chars[n] = c;
                if inside[n] && !dropped[n] {
                    article[n] = c;
                }
            }
            if let Some(p) = doc.node(n).parent {
                chars[p] += chars[n];
                article[p] += article[n];
            }
        }
        let mut words = NameWords::default();
        for n in 0..len {
            if chars[n] == 0 || doc.element(n).is_none() {
                continue;
            }
            let (a, c) = (u64::from(article[n]), u64::from(chars[n]));
            let holds = roots.iter().any(|&r| doc.contains(n, r) && n != r);
            let side = if holds {
                &mut self.holder
            } else if 5 * a >= 4 * c {
                &mut self.article
            } else if 5 * a <= c {
                &mut self.other
            } else {
                continue;
            };
            name_words(doc, n, &mut words);
            side.extend(words.iter().map(str::to_string));
        }
    }

    /// Adds another part of the same site's evidence.
    pub fn merge(&mut self, other: SiteEvidence) {
        self.article.extend(other.article);
        self.other.extend(other.other);
        self.holder.extend(other.holder);
    }

    /// The site's counts: one site, each word once per side.
    pub fn counts(&self) -> PriorCounts {
        let mut counts = PriorCounts {
            sites: u32::from(!self.article.is_empty() || !self.other.is_empty()),
            words: BTreeMap::new(),
        };
        for (side, words) in [&self.article, &self.other, &self.holder]
            .into_iter()
            .enumerate()
        {
            for w in words {
                counts.words.entry(w.clone()).or_default()[side] += 1;
            }
        }
        counts
    }
}

/// What a prior knows of a word.
#[derive(Debug, Clone, Copy, PartialEq)]
struct WordStats {
    /// Log odds of naming an article block rather than another, smoothed
    /// towards all words' ([`SMOOTHING`]), less all words' log odds: above
    /// 0, a word names article blocks more often than words do.
    weight: f64,
    /// Whether it also names elements that hold articles (the layout:
    /// `row`, `container`, `wrapper`) on [`LAYOUT_SHARE`] of its sites.
    layout: bool,
}

/// Word weights: how much a word in an element's names raises or lowers
/// the odds that the element is article rather than the rest of the page,
/// and which words name blocks that are almost never article ("share",
/// "related", "sidebar": [`Prior::is_role_word`]).
#[derive(Debug, Clone, Default)]
pub struct Prior {
    words: FxHashMap<String, WordStats>,
    /// The role words (weight at most [`ROLE_WEIGHT`], not layout) of
    /// [`MIN_ROLE_SUBWORD`] letters or more, longest first: also looked
    /// for inside compound words the prior does not know (`relatedposts`,
    /// `sharedaddy`).
    role_words: Vec<String>,
}

/// A word names a role that is not the article when its weight is at most
/// this: odds of naming article text at most a fifth of any word's
/// (e^-1.6). In the default prior "share", "sidebar", "social",
/// "navigation" and "related" are below it, "title", "meta" and "author"
/// above. Chosen on trafbench among -0.7, -1.0, -1.3, -1.6 and -2.0
/// (docs/quality-log.md): higher, article boxes go; lower, boilerplate
/// stays.
const ROLE_WEIGHT: f64 = -1.6;

/// How many sites' worth of evidence a word's counts are pulled towards the
/// base share with: two, so that a word seen on three sites moves its
/// weight by at most about half of what the same share on many sites would.
const SMOOTHING: f64 = 2.0;

/// A word that names the elements holding the article on this share of
/// the sites that use it is layout, not a role ("row", "col", "wrapper",
/// "container"): about one in seven. "sidebar" (9 of 76 sites, where a
/// page's wrapper is called `has-sidebar`) is just a role at 0.12.
const LAYOUT_SHARE: f64 = 0.15;

impl WordStats {
    fn is_role(&self) -> bool {
        self.weight <= ROLE_WEIGHT && !self.layout
    }
}

/// Shortest role word looked for inside a longer unknown word: shorter
/// ones ("ad", "nav", "bar") hide inside too many words.
const MIN_ROLE_SUBWORD: usize = 5;

impl Prior {
    /// The prior of `counts`: words seen on `MIN_SITES` sites or more.
    pub fn from_counts(counts: &PriorCounts) -> Prior {
        Prior::from_weighted(&[(counts, 1.0)])
    }

    /// The prior of several sets of counts, each counted `weight` times
    /// (a crawl's own counts weighed down to as many sites as the shipped
    /// prior's: [`Prior::with_crawl`]).
    pub fn from_weighted(parts: &[(&PriorCounts, f64)]) -> Prior {
        let mut sums: BTreeMap<&str, [f64; 3]> = BTreeMap::new();
        for (counts, weight) in parts {
            for (word, c) in &counts.words {
                let sum = sums.entry(word.as_str()).or_default();
                for (s, n) in sum.iter_mut().zip(c) {
                    *s += weight * f64::from(*n);
                }
            }
        }
        let (total_a, total_o) = sums
            .values()
            .fold((0.0, 0.0), |(a, o), c| (a + c[0], o + c[1]));
        // The share of named blocks that are article, over all words: what
        // a word says nothing beyond.
        let base = (total_a + 1.0) / (total_a + total_o + 2.0);
        let base_odds = (base / (1.0 - base)).ln();
        let words: FxHashMap<String, WordStats> = sums
            .iter()
            .filter(|(_, c)| c[0] + c[1] + c[2] >= f64::from(MIN_SITES))
            .map(|(w, &[a, o, h])| {
                // Smoothed towards the base share: a word seen on few sites
                // says little either way.
                let a_s = a + SMOOTHING * base;
                let o_s = o + SMOOTHING * (1.0 - base);
                let stats = WordStats {
                    weight: (a_s / o_s).ln() - base_odds,
                    layout: h >= LAYOUT_SHARE * (a + o + h),
                };
                (w.to_string(), stats)
            })
            .collect();
        let mut role_words: Vec<String> = words
            .iter()
            .filter(|(w, s)| s.is_role() && w.len() >= MIN_ROLE_SUBWORD)
            .map(|(w, _)| w.clone())
            .collect();
        role_words.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        Prior { words, role_words }
    }

    /// The prior of `shipped` plus what a crawl's wrappers taught
    /// (`crawl`), the crawl's counts weighed down to at most as many sites
    /// as `shipped` has: a word's weight settles as its sites add up, and a
    /// large crawl would otherwise turn every word that its own wrappers
    /// never selected into a role word, however its pages differ from the
    /// ones the prior is used on (measured in docs/quality-log.md).
    pub fn with_crawl(shipped: &PriorCounts, crawl: &PriorCounts) -> Prior {
        let weight = if crawl.sites > shipped.sites && shipped.sites > 0 {
            f64::from(shipped.sites) / f64::from(crawl.sites)
        } else {
            1.0
        };
        Prior::from_weighted(&[(shipped, 1.0), (crawl, weight)])
    }

    /// What the prior knows of `word`: its own stats if it knows it; for an
    /// unknown word holding a role word, that role word's (`relatedposts`
    /// weighs as `related`); nothing for other unknown words.
    fn stats(&self, word: &str) -> Option<WordStats> {
        self.words.get(word).copied().or_else(|| {
            self.role_words
                .iter()
                .find(|r| word.contains(r.as_str()))
                .map(|r| self.words[r])
        })
    }

    /// A word's weight (`Prior::stats`; 0 for a word the prior knows
    /// nothing of).
    pub fn word(&self, word: &str) -> f64 {
        self.stats(word).map_or(0.0, |s| s.weight)
    }

    /// Whether `word` names blocks that are almost never article: a role
    /// word (weight at most `ROLE_WEIGHT`, not layout), or an unknown
    /// word holding one of `MIN_ROLE_SUBWORD` letters or more.
    pub fn is_role_word(&self, word: &str) -> bool {
        self.stats(word).is_some_and(|s| s.is_role())
    }

    /// The weight of element `n`'s names: the sum of its words' weights,
    /// within ±[`MAX_NAME_WEIGHT`], and whether they name a role that is
    /// not the article: one of them is a role word
    /// ([`Prior::is_role_word`]) and the others do not outweigh it
    /// (`related_post`, not `post hentry cat-news`).
    pub(crate) fn element(
        &self,
        doc: &Document,
        n: NodeId,
        words: &mut NameScratch,
    ) -> (f64, bool) {
        if self.words.is_empty() {
            return (0.0, false);
        }
        name_words(doc, n, &mut words.words);
        let (mut sum, mut role) = (0.0, false);
        for w in words.words.iter() {
            // A page repeats its names (`menu-item` a hundred times): each
            // word is looked up, and searched for role words, once.
            let (weight, is_role) = match words.seen.get(w) {
                Some(&known) => known,
                None => {
                    let stats = self.stats(w);
                    let known = (
                        stats.map_or(0.0, |s| s.weight),
                        stats.is_some_and(|s| s.is_role()),
                    );
                    words.seen.insert(w.to_string(), known);
                    known
                }
            };
            sum += weight;
            role |= is_role;
        }
        (
            sum.clamp(-MAX_NAME_WEIGHT, MAX_NAME_WEIGHT),
            role && sum < 0.0,
        )
    }
}

/// Scratch space of [`Prior::element`] for one page: the words of the
/// element at hand, and what the prior said of each word seen so far.
#[derive(Default)]
pub(crate) struct NameScratch {
    words: NameWords,
    seen: FxHashMap<String, (f64, bool)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    fn words_of(html: &str) -> Vec<String> {
        let doc = Document::parse(html, &DomOptions::default());
        let div = (0..doc.len()).find(|&n| doc.tag(n) == "div").unwrap();
        let mut out = NameWords::default();
        name_words(&doc, div, &mut out);
        out.iter().map(str::to_string).collect()
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(
            words_of("<div id=articleBody class='entry-content post_text2 x tag-sport'>"),
            ["article", "body", "entry", "content", "post", "text"]
        );
        assert_eq!(
            words_of("<div class='c-entry-content'>"),
            ["entry", "content"]
        );
        assert!(words_of("<div class='x12 — é'>").is_empty());
        // Each word once; a non-ASCII letter ends a word as punctuation does.
        assert_eq!(
            words_of("<div id=postPost class='post-body BODY caféNoir'>"),
            ["post", "body", "caf", "noir"]
        );
        // At most MAX_WORDS, the first ones.
        let many: Vec<String> = (b'a'..=b'n')
            .map(|c| format!("w{}{}", c as char, c as char))
            .collect();
        let words = words_of(&format!("<div class='{}'>", many.join(" ")));
        assert_eq!(words, many[..MAX_WORDS]);
    }

    #[test]
    fn counts_round_trip_and_add() {
        let mut a = PriorCounts {
            sites: 2,
            ..PriorCounts::default()
        };
        a.words.insert("entry".into(), [2, 0, 0]);
        a.words.insert("sidebar".into(), [0, 2, 0]);
        let back = PriorCounts::from_tsv(&a.to_tsv()).unwrap();
        assert_eq!(back, a);
        let mut b = back.clone();
        b.add(&a);
        assert_eq!((b.sites, b.words["entry"]), (4, [4, 0, 0]));
        assert!(PriorCounts::from_tsv("entry\tx\t1\n").is_err());
    }

    #[test]
    fn a_wrapper_page_teaches_which_names_are_article() {
        let doc = Document::parse(
            "<body><div id=page><div class=entry-content><p>Story text here, a sentence of the \
             post, long beside its share bar.</p>\
             <div class=share-bar>Share</div></div>\
             <div class=sidebar><p>Other things.</p></div></div></body>",
            &DomOptions::default(),
        );
        let entry = (0..doc.len())
            .find(|&n| doc.attr_named(n, &local_name!("class")) == Some("entry-content"))
            .unwrap();
        let share = (0..doc.len())
            .find(|&n| doc.attr_named(n, &local_name!("class")) == Some("share-bar"))
            .unwrap();
        let mut site = SiteEvidence::default();
        site.add_page(&doc, &[entry], &|n| !doc.contains(share, n));
        let counts = site.counts();
        assert_eq!(counts.words["entry"], [1, 0, 0]);
        assert_eq!(counts.words["share"], [0, 1, 0]);
        assert_eq!(counts.words["sidebar"], [0, 1, 0]);
        // The page wrapper holds the article: layout.
        assert_eq!(counts.words["page"], [0, 0, 1]);
        // Three sites like it: the prior trusts the words.
        let mut three = PriorCounts::default();
        for _ in 0..3 {
            three.add(&counts);
        }
        let prior = Prior::from_counts(&three);
        assert!(prior.word("entry") > 0.0 && prior.word("sidebar") < 0.0);
        assert_eq!(prior.word("unknown"), 0.0);
    }
}
