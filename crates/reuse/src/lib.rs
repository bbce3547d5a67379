//! Wrapper reuse across crawls: the saved wrappers of an earlier run, the
//! template signature that finds the one fitting a cluster of tonight's
//! pages, and the drift check that decides whether it still works.
//!
//! - [`template_sketch`]: a cluster's template signature, a bottom-k sample
//!   (smallest hashes) of the tag paths that at least half of its pages
//!   share, [`SKETCH_SIZE`] hashes at most.
//! - [`containment`]: the share of a sketch's paths a page has; a page
//!   fits a template when it has most of them.
//! - [`SavedWrappers`]: `wrappers.jsonl` read back (bad lines become
//!   rejects), indexed by site, with [`SavedWrappers::best_match`].
//! - [`check_drift`]: a saved wrapper has drifted when too few of tonight's
//!   pages fit its template, or what it extracts falls well below its
//!   learn-time [`WrapperQuality`].
//!
//! The file format is described in `docs/wrappers.md`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::Path;

use canopy_cluster::Signature;
use canopy_forest::Pattern;
use canopy_types::{
    Reject, SourceRef, Stage, WrapperQuality, WrapperRecord, WRAPPER_FORMAT_VERSION,
};

/// Hashes kept in a template sketch. Measured on big9's template years
/// (`docs/wrappers.md`): pages of the saved template contain 0.52–1.00 of
/// them, another year's pages at most 0.41; a line is about 3 kB.
pub const SKETCH_SIZE: usize = 128;

/// Which of a page's tag paths a template sketch samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplatePaths {
    /// Full paths: tag, id and class of every step from `<body>` down.
    Full,
    /// Own-label paths: the ancestors' bare tags, then the element's own
    /// label. For a template whose pages share no full path: a `<body>`
    /// (or an outer box) with an id or class of each page's own
    /// (`<body id="theLostBattalionPage">`) makes every full path differ.
    Own,
}

impl TemplatePaths {
    /// The hashes of `page` of this kind.
    pub fn of(self, page: &Signature) -> &[u64] {
        match self {
            TemplatePaths::Full => page.hashes(),
            TemplatePaths::Own => page.own_hashes(),
        }
    }

    /// The `template_paths` value of a `wrappers.jsonl` line (none for
    /// full paths, so that their lines are as before).
    pub fn name(self) -> Option<&'static str> {
        match self {
            TemplatePaths::Full => None,
            TemplatePaths::Own => Some("own"),
        }
    }

    fn parse(name: Option<&str>) -> Result<TemplatePaths, String> {
        match name {
            None => Ok(TemplatePaths::Full),
            Some("own") => Ok(TemplatePaths::Own),
            Some(other) => Err(format!("unknown template paths {other:?}")),
        }
    }
}

/// A cluster's template: the sketch of its full paths
/// ([`template_sketch`]), or of its own-label paths when no two of its
/// pages share a full path (a sketch of full paths would then hold paths
/// of one page each, which no other page has).
pub fn cluster_template(pages: &[&Signature]) -> (TemplatePaths, Vec<u64>) {
    let paths = if pages.len() >= 2 && !shares_a_path(pages, TemplatePaths::Full) {
        TemplatePaths::Own
    } else {
        TemplatePaths::Full
    };
    (paths, template_sketch(pages, paths))
}

/// Whether two of `pages` have a path of the kind `paths` in common.
fn shares_a_path(pages: &[&Signature], paths: TemplatePaths) -> bool {
    let mut seen: HashSet<u64> = HashSet::new();
    pages.iter().any(|page| {
        // A page's hashes are a sorted set: each once.
        let hashes = paths.of(page);
        let shared = hashes.iter().any(|h| seen.contains(h));
        seen.extend(hashes);
        shared
    })
}

/// A cluster's template signature: of the tag-path hashes (of the kind
/// `paths`) found on at least half of its pages, the [`SKETCH_SIZE`]
/// smallest, sorted. Taking the smallest values of a good hash is a uniform
/// sample (bottom-k MinHash), so the sketch is small and any build
/// computes the same one.
pub fn template_sketch(pages: &[&Signature], paths: TemplatePaths) -> Vec<u64> {
    let mut count: HashMap<u64, usize> = HashMap::new();
    for page in pages {
        for &h in paths.of(page) {
            *count.entry(h).or_default() += 1;
        }
    }
    let quorum = pages.len().div_ceil(2).max(1);
    let mut shared: Vec<u64> = count
        .into_iter()
        .filter(|&(_, c)| c >= quorum)
        .map(|(h, _)| h)
        .collect();
    shared.sort_unstable();
    shared.truncate(SKETCH_SIZE);
    shared
}

/// The share of `sketch`'s paths (of the kind `paths`) found on `page` (0
/// for an empty sketch).
pub fn containment(sketch: &[u64], paths: TemplatePaths, page: &Signature) -> f64 {
    if sketch.is_empty() {
        return 0.0;
    }
    let hashes = paths.of(page);
    let found = sketch
        .iter()
        .filter(|h| hashes.binary_search(h).is_ok())
        .count();
    found as f64 / sketch.len() as f64
}

/// The Jaccard similarity of the two templates, estimated from their
/// sketches: of the [`SKETCH_SIZE`] smallest hashes of their union, the
/// share found in both (the bottom-k MinHash estimator). Symmetric, so a
/// template with few shared paths does not match every cluster.
pub fn sketch_similarity(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut taken, mut both) = (0, 0, 0usize, 0usize);
    while taken < SKETCH_SIZE && (i < a.len() || j < b.len()) {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                both += 1;
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => i += 1,
            (Some(_), None) => i += 1,
            _ => j += 1,
        }
        taken += 1;
    }
    if taken == 0 {
        0.0
    } else {
        both as f64 / taken as f64
    }
}

/// A sketch as written in `wrappers.jsonl`: 16 hex digits per hash (JSON
/// numbers above 2^53 lose precision in many readers).
pub fn encode_sketch(sketch: &[u64]) -> Vec<String> {
    sketch.iter().map(|h| format!("{h:016x}")).collect()
}

fn decode_sketch(hex: &[String]) -> Result<Vec<u64>, String> {
    let mut out = hex
        .iter()
        .map(|s| u64::from_str_radix(s, 16).map_err(|e| format!("template hash {s:?}: {e}")))
        .collect::<Result<Vec<u64>, String>>()?;
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The learn-time figures of a wrapper on `pages` pages, given the length
/// in characters of the text it selected on each page it matched.
pub fn quality(pages: usize, matched_chars: &[usize]) -> WrapperQuality {
    let mut sorted = matched_chars.to_vec();
    sorted.sort_unstable();
    let quantile = |q: usize| -> usize {
        // Nearest rank: the smallest value with at least q% at or below it.
        if sorted.is_empty() {
            return 0;
        }
        let rank = (sorted.len() * q).div_ceil(100).max(1);
        sorted[rank - 1]
    };
    WrapperQuality {
        match_rate: if pages == 0 {
            0.0
        } else {
            matched_chars.len() as f64 / pages as f64
        },
        text_chars_p25: quantile(25),
        text_chars_median: quantile(50),
    }
}

/// The drift check's bars (`[reuse]` in `configs/default.toml`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// A page fits a template when it has at least this share of the
    /// template's sketch.
    pub page_containment: f64,
    /// A saved wrapper is a candidate for a cluster when at least this
    /// share of the cluster's pages fit its template.
    pub min_template_share: f64,
    /// Drifted when tonight's match rate is below this share of the
    /// learn-time match rate.
    pub min_match_ratio: f64,
    /// Drifted when tonight's median text length is below this share of
    /// the learn-time median.
    pub min_length_ratio: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            page_containment: 0.6,
            min_template_share: 0.5,
            min_match_ratio: 0.8,
            min_length_ratio: 0.5,
        }
    }
}

/// Why a saved wrapper was not reused for a cluster.
#[derive(Debug, Clone, PartialEq)]
pub enum Drift {
    /// Too few of tonight's pages fit the saved template.
    Template { fit: usize, pages: usize },
    /// The wrapper selects text on too few pages.
    MatchRate { now: f64, then: f64 },
    /// The text it selects is much shorter than at learn time.
    TextLength { now: usize, then: usize },
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drift::Template { fit, pages } => {
                write!(f, "{fit} of {pages} pages fit the saved template")
            }
            Drift::MatchRate { now, then } => {
                write!(f, "match rate {now:.2}, {then:.2} at learn time")
            }
            Drift::TextLength { now, then } => {
                write!(f, "median text {now} characters, {then} at learn time")
            }
        }
    }
}

/// Checks what a saved wrapper extracted tonight (`now`) against its
/// learn-time figures. The template check comes first (see
/// [`SavedWrappers::best_match`]); this one catches a template that kept its
/// structure but moved or emptied the article's element.
pub fn check_drift(
    saved: &WrapperQuality,
    now: &WrapperQuality,
    thresholds: &Thresholds,
) -> Option<Drift> {
    if now.match_rate < saved.match_rate * thresholds.min_match_ratio {
        return Some(Drift::MatchRate {
            now: now.match_rate,
            then: saved.match_rate,
        });
    }
    if (now.text_chars_median as f64) < saved.text_chars_median as f64 * thresholds.min_length_ratio
    {
        return Some(Drift::TextLength {
            now: now.text_chars_median,
            then: saved.text_chars_median,
        });
    }
    None
}

/// One saved wrapper, decoded.
#[derive(Debug, Clone)]
pub struct Saved {
    pub record: WrapperRecord,
    pub pattern: Pattern,
    pub sketch: Vec<u64>,
    /// The paths `sketch` samples.
    pub paths: TemplatePaths,
}

/// The best saved wrapper of a site for a cluster.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    /// Index into [`SavedWrappers::get`].
    pub index: usize,
    /// Pages of the cluster that fit the saved template.
    pub fit: usize,
    /// [`sketch_similarity`] of the saved template and the cluster's.
    pub score: f64,
}

/// The wrappers of an earlier run, by site.
#[derive(Debug, Clone, Default)]
pub struct SavedWrappers {
    wrappers: Vec<Saved>,
    by_site: BTreeMap<String, Vec<usize>>,
}

impl SavedWrappers {
    /// Reads `wrappers.jsonl`. A line that is not a wrapper of the current
    /// format version becomes a reject (stage `wrappers`, byte offset of the
    /// line); the others are kept. Fails only when the file cannot be read.
    pub fn load(path: &Path) -> std::io::Result<(SavedWrappers, Vec<Reject>)> {
        let text = std::fs::read_to_string(path)?;
        let file = path.display().to_string();
        let mut records = Vec::new();
        let mut rejects = Vec::new();
        let mut offset = 0u64;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len() as u64;
            if line.trim().is_empty() {
                continue;
            }
            match decode_line(line) {
                Ok(saved) => records.push(saved),
                Err(reason) => rejects.push(Reject {
                    source: SourceRef {
                        file: file.clone(),
                        offset: Some(start),
                    },
                    record_id: None,
                    url: None,
                    stage: Stage::Wrappers,
                    reason,
                }),
            }
        }
        Ok((SavedWrappers::new(records), rejects))
    }

    /// Indexes decoded wrappers (kept in the given order).
    pub fn new(wrappers: Vec<Saved>) -> SavedWrappers {
        let mut by_site: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, w) in wrappers.iter().enumerate() {
            by_site.entry(w.record.site.clone()).or_default().push(i);
        }
        SavedWrappers { wrappers, by_site }
    }

    pub fn len(&self) -> usize {
        self.wrappers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.wrappers.is_empty()
    }

    pub fn get(&self, index: usize) -> &Saved {
        &self.wrappers[index]
    }

    /// The indices of a site's saved wrappers.
    pub fn of_site(&self, site: &str) -> &[usize] {
        self.by_site.get(site).map_or(&[], Vec::as_slice)
    }

    /// The site's saved wrapper whose template is most similar to the
    /// cluster's ([`sketch_similarity`]; ties to the earlier line), with
    /// the number of the cluster's pages that fit it; `None` when the site
    /// has none.
    pub fn best_match(
        &self,
        site: &str,
        pages: &[&Signature],
        thresholds: &Thresholds,
    ) -> Option<Match> {
        let ids = self.of_site(site);
        if ids.is_empty() {
            return None;
        }
        // Tonight's sketch of each kind a saved wrapper of the site has.
        let mut tonight_sketches: [Option<Vec<u64>>; 2] = [None, None];
        let mut best: Option<Match> = None;
        for &index in ids {
            let saved = &self.wrappers[index];
            let slot = usize::from(saved.paths == TemplatePaths::Own);
            let tonight =
                tonight_sketches[slot].get_or_insert_with(|| template_sketch(pages, saved.paths));
            let score = sketch_similarity(&saved.sketch, tonight);
            if best.is_none_or(|b| score > b.score) {
                best = Some(Match {
                    index,
                    fit: 0,
                    score,
                });
            }
        }
        best.map(|mut m| {
            let saved = &self.wrappers[m.index];
            m.fit = pages
                .iter()
                .filter(|p| {
                    containment(&saved.sketch, saved.paths, p) >= thresholds.page_containment
                })
                .count();
            m
        })
    }

    /// The records of the sites for which `seen` is false, unchanged, in
    /// file order: tonight's run carries them over.
    pub fn unseen_sites(&self, seen: impl Fn(&str) -> bool) -> Vec<WrapperRecord> {
        self.by_site
            .iter()
            .filter(|(site, _)| !seen(site))
            .flat_map(|(_, ids)| ids.iter().map(|&i| self.wrappers[i].record.clone()))
            .collect()
    }
}

/// Decodes one line of `wrappers.jsonl`.
fn decode_line(line: &str) -> Result<Saved, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(WRAPPER_FORMAT_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "wrapper format version {v}, this build reads version {WRAPPER_FORMAT_VERSION}"
            ))
        }
        None => {
            return Err(format!(
                "no wrapper format version (written before version {WRAPPER_FORMAT_VERSION})"
            ))
        }
    }
    let record: WrapperRecord =
        serde_json::from_value(value).map_err(|e| format!("not a wrapper: {e}"))?;
    let pattern: Pattern = serde_json::from_value(record.pattern.clone())
        .map_err(|e| format!("unreadable pattern: {e}"))?;
    let sketch = decode_sketch(&record.template)?;
    if sketch.is_empty() {
        return Err("empty template signature".into());
    }
    let paths = TemplatePaths::parse(record.template_paths.as_deref())?;
    Ok(Saved {
        record,
        pattern,
        sketch,
        paths,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::{Document, DomOptions};

    fn sig(html: &str) -> Signature {
        Signature::of(&Document::parse(html, &DomOptions::default()))
    }

    #[test]
    fn sketch_keeps_paths_of_half_the_pages_and_containment_counts_them() {
        let a = sig("<body><div id=main><p>1</p></div><div id=ad>x</div></body>");
        let b = sig("<body><div id=main><p>2</p></div></body>");
        let c = sig("<body><div id=main><p>3</p><ul><li>x</li></ul></div></body>");
        let sketch = template_sketch(&[&a, &b, &c], TemplatePaths::Full);
        // body, div#main, p: on all three; the ad and the list on one only.
        assert_eq!(sketch.len(), 3);
        assert!(sketch.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(containment(&sketch, TemplatePaths::Full, &c), 1.0);
        let other = sig("<body><table><tr><td>x</td></tr></table></body>");
        assert!((containment(&sketch, TemplatePaths::Full, &other) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(decode_sketch(&encode_sketch(&sketch)).unwrap(), sketch);
        assert_eq!(sketch_similarity(&sketch, &sketch), 1.0);
        let other_sketch = template_sketch(&[&other], TemplatePaths::Full);
        // Union body, div#main, p, table, tbody, tr, td: body in both.
        assert!((sketch_similarity(&sketch, &other_sketch) - 1.0 / 7.0).abs() < 1e-9);
        assert_eq!(sketch_similarity(&[], &[]), 0.0);
    }

    #[test]
    fn pages_whose_body_is_named_for_each_page_get_an_own_path_template() {
        // Each page's <body id> is its own, so the pages share no full path
        // and a full-path sketch would be empty; their own-label paths
        // (bare ancestors, own label) are the template's.
        let page = |id: &str, text: &str| {
            sig(&format!(
                "<body id={id}><div id=main><p>{text}</p></div><div class=side>x</div></body>"
            ))
        };
        let (a, b, c) = (
            page("OnePage", "1"),
            page("TwoPage", "2"),
            page("ThreePage", "3"),
        );
        assert!(template_sketch(&[&a, &b, &c], TemplatePaths::Full).is_empty());
        let (paths, sketch) = cluster_template(&[&a, &b, &c]);
        assert_eq!(paths, TemplatePaths::Own);
        // div#main, p, div.side; not the body, whose label differs.
        assert_eq!(sketch.len(), 3);
        let d = page("FourPage", "4");
        assert_eq!(containment(&sketch, paths, &d), 1.0);
        assert_eq!(containment(&sketch, TemplatePaths::Full, &d), 0.0);
        let other = sig("<body id=HomePage><table><tr><td>x</td></tr></table></body>");
        assert_eq!(containment(&sketch, paths, &other), 0.0);
        // A template whose pages share full paths keeps them.
        let named = |text: &str| sig(&format!("<body class=post><p>{text}</p></body>"));
        assert_eq!(
            cluster_template(&[&named("1"), &named("2")]).0,
            TemplatePaths::Full
        );
    }

    #[test]
    fn a_saved_own_path_template_is_read_back_and_matches_tonight_pages() {
        let page = |id: &str| sig(&format!("<body id={id}><div id=main><p>t</p></div></body>"));
        let (a, b, c) = (page("OnePage"), page("TwoPage"), page("ThreePage"));
        let (paths, sketch) = cluster_template(&[&a, &b, &c]);
        let mut line = record("a.com", WRAPPER_FORMAT_VERSION, encode_sketch(&sketch));
        line["template_paths"] = paths.name().into();
        let mut unknown = line.clone();
        unknown["template_paths"] = "deep".into();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wrappers.jsonl");
        std::fs::write(&path, format!("{line}\n{unknown}\n")).unwrap();
        let (saved, rejects) = SavedWrappers::load(&path).unwrap();
        assert_eq!(saved.len(), 1);
        assert_eq!(saved.get(0).paths, TemplatePaths::Own);
        assert!(
            rejects[0].reason.contains("unknown template paths"),
            "{rejects:?}"
        );
        let (d, e) = (page("FourPage"), page("FivePage"));
        let m = saved
            .best_match("a.com", &[&d, &e], &Thresholds::default())
            .unwrap();
        assert_eq!((m.index, m.fit), (0, 2));
    }

    #[test]
    fn quality_quantiles_by_nearest_rank() {
        let q = quality(5, &[400, 100, 300, 200]);
        assert_eq!(q.match_rate, 0.8);
        assert_eq!((q.text_chars_p25, q.text_chars_median), (100, 200));
        assert_eq!(quality(0, &[]), WrapperQuality::default());
    }

    #[test]
    fn drift_on_match_rate_or_text_length() {
        let t = Thresholds::default();
        let then = quality(10, &[1000; 10]);
        assert_eq!(check_drift(&then, &quality(10, &[900; 9]), &t), None);
        assert!(matches!(
            check_drift(&then, &quality(10, &[1000; 5]), &t),
            Some(Drift::MatchRate { .. })
        ));
        assert!(matches!(
            check_drift(&then, &quality(10, &[300; 10]), &t),
            Some(Drift::TextLength { .. })
        ));
    }

    fn record(site: &str, version: u32, template: Vec<String>) -> serde_json::Value {
        serde_json::json!({
            "version": version, "site": site, "cluster": format!("{site}/0"),
            "xpath": "//div", "xpath_portable": "//div", "relevance": 1.0,
            "pages": 2, "matched": 2, "signifiers": "tfidf",
            "pattern": {"ty": {"kind": "attrs", "tag": "div", "attrs": [["id", "main"]]}, "level": 2},
            "template": template, "learned_on": null,
            "quality": {"match_rate": 1.0, "text_chars_p25": 10, "text_chars_median": 20},
        })
    }

    #[test]
    fn load_keeps_good_lines_and_rejects_bad_ones_with_their_offset() {
        let a = sig("<body><div id=main><p>1</p></div></body>");
        let b = sig("<body><table><tr><td>x</td></tr></table></body>");
        let good = record(
            "a.com",
            WRAPPER_FORMAT_VERSION,
            encode_sketch(&template_sketch(&[&a], TemplatePaths::Full)),
        );
        let tables = record(
            "a.com",
            WRAPPER_FORMAT_VERSION,
            encode_sketch(&template_sketch(&[&b], TemplatePaths::Full)),
        );
        let old = record("b.com", WRAPPER_FORMAT_VERSION + 1, vec!["00".into()]);
        let lines = [
            good.to_string(),
            "{not json".to_string(),
            old.to_string(),
            tables.to_string(),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wrappers.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (saved, rejects) = SavedWrappers::load(&path).unwrap();
        assert_eq!(saved.len(), 2);
        assert_eq!(rejects.len(), 2);
        assert_eq!(rejects[0].source.offset, Some(lines[0].len() as u64 + 1));
        assert!(
            rejects[1].reason.contains("version"),
            "{}",
            rejects[1].reason
        );
        // The table page finds the table template, not the div one.
        let m = saved
            .best_match("a.com", &[&b], &Thresholds::default())
            .unwrap();
        assert_eq!((m.index, m.fit), (1, 1));
        assert!(saved
            .best_match("b.com", &[&b], &Thresholds::default())
            .is_none());
        assert_eq!(saved.unseen_sites(|s| s == "a.com").len(), 0);
        assert_eq!(saved.unseen_sites(|_| false).len(), 2);
    }
}
