//! `canopy eval`: runs the pipeline over an evaluation corpus and scores
//! every page against its gold text, optionally side by side with the
//! outputs of peer tools (`scripts/peers/run_peers.py`).
//!
//! A corpus folder holds `manifest.tsv` (`id url record_id site group lang
//! html gold orig_id`), `gold/<id>.txt`, one `<name>.warc.gz` and, for feed
//! signifiers, `feeds/*.rss` (see `shared/corpora/README.md`). Articles are
//! matched to pages by `record_id`; a page without an article scores 0.
//!
//! Writes `eval.csv` (one row per page per method) and `eval.md` (mean
//! scores per method, then bigram F1 per site and per template group) into
//! the output folder, and prints the main table.
//!
//! A corpus folder with `snippets.jsonl` instead of gold texts (trafbench) is
//! scored by trafilatura's snippet rule: see `snippets.rs`.
//!
//! Methods that read feeds are left out, with a note, on a corpus without a
//! `feeds/` folder.

mod clusters;
mod snippets;

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use canopy_score::{mean, score_page, tokens, PageScore};
use serde::Deserialize;

use canopy_site::{Config, Method, SignifierSource};
use canopy_types::Decision;

/// Why an evaluation could not be done.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A run of a method that failed.
    #[error(transparent)]
    Canopy(#[from] canopy::Error),
    /// Settings that cannot be used.
    #[error(transparent)]
    Settings(#[from] canopy_site::Error),
    /// A corpus, peer or output file or folder that cannot be read or
    /// written, or is not as `../shared/corpora/README.md` describes it:
    /// where and why.
    #[error("{0}")]
    Corpus(String),
}

/// A `Result` of this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// What was being done when something failed, said before why.
trait Context<T> {
    fn context(self, what: impl std::fmt::Display) -> Result<T>;
    fn with_context<D: std::fmt::Display>(self, what: impl FnOnce() -> D) -> Result<T>;
}

impl<T, E: std::fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl std::fmt::Display) -> Result<T> {
        self.map_err(|e| Error::Corpus(format!("{what}: {e}")))
    }

    fn with_context<D: std::fmt::Display>(self, what: impl FnOnce() -> D) -> Result<T> {
        self.map_err(|e| Error::Corpus(format!("{}: {e}", what())))
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, what: impl std::fmt::Display) -> Result<T> {
        self.ok_or_else(|| Error::Corpus(what.to_string()))
    }

    fn with_context<D: std::fmt::Display>(self, what: impl FnOnce() -> D) -> Result<T> {
        self.ok_or_else(|| Error::Corpus(what().to_string()))
    }
}

/// Returns `Err(Error::Corpus(format!(...)))` unless `$cond`.
macro_rules! ensure {
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err(Error::Corpus(format!($($arg)+)));
        }
    };
}

/// Returns `Err(Error::Corpus(format!(...)))`.
macro_rules! bail {
    ($($arg:tt)+) => {
        return Err(Error::Corpus(format!($($arg)+)))
    };
}

/// Sites with fewer pages than this are left out of the per-site table of a
/// corpus with more than [`MANY_SITES`] sites (the means still cover them).
const MIN_SITE_PAGES: usize = 5;
const MANY_SITES: usize = 20;

/// What `canopy eval` evaluates, where (its flags).
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Corpus folder: manifest.tsv, gold/, one *.warc.gz, feeds/.
    pub corpus: PathBuf,
    /// Method to evaluate, repeat for several; "all" for every method
    /// (default: forest, forest-feeds).
    pub methods: Vec<String>,
    /// Where signifiers come from (default: the config's, "tfidf").
    pub signifiers: Option<SignifierSource>,
    /// Output folder for eval.csv and eval.md.
    pub out: PathBuf,
    /// Peer outputs: `DIR/<tool>/<id>.txt` and `DIR/<tool>/timing.json`.
    pub peers: Option<PathBuf>,
    /// Settings file overlaid on configs/default.toml.
    pub config: Option<PathBuf>,
    /// Worker threads (default: one per core).
    pub threads: Option<usize>,
}

/// One line of `manifest.tsv` (other columns are ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct ManifestPage {
    pub id: String,
    pub record_id: String,
    pub site: String,
    pub group: String,
    pub gold: String,
}

/// A manifest page with its gold text.
pub struct GoldPage {
    pub page: ManifestPage,
    pub gold: String,
}

/// The result of one method (or peer tool) over the corpus: each page's
/// score `S` (bigram scores against a gold text, or snippet counts).
pub struct MethodResult<S = PageScore> {
    /// `forest`, `wlr`, … or `peer:<tool>`.
    pub name: String,
    /// Per manifest page, in manifest order: the score and what served it.
    pub pages: Vec<(S, String)>,
    /// Throughput; `None` when unknown.
    pub pages_per_s: Option<f64>,
    /// A version note for peers (`trafilatura 2.3.1`).
    pub version: Option<String>,
    /// Where a site-level method put each page (empty for others).
    pub clusters: Clusters,
}

impl<S> MethodResult<S> {
    /// Scores `outputs` (in manifest order) page by page: `score(i, text)`
    /// for the `i`th page's output.
    fn scored(outputs: Outputs, score: impl Fn(usize, &str) -> S) -> MethodResult<S> {
        let pages = outputs
            .pages
            .into_iter()
            .enumerate()
            .map(|(i, (text, by))| (score(i, &text), by))
            .collect();
        MethodResult {
            name: outputs.name,
            pages,
            pages_per_s: outputs.pages_per_s,
            version: outputs.version,
            clusters: outputs.clusters,
        }
    }

    fn no_output(&self) -> usize {
        self.pages.iter().filter(|(_, by)| by == "none").count()
    }
}

impl MethodResult {
    fn mean(&self) -> PageScore {
        let scores: Vec<PageScore> = self.pages.iter().map(|(s, _)| *s).collect();
        mean(&scores)
    }
}

/// The rows of `dir/manifest.tsv` (a header line, tab-separated, no
/// quoting), read as `T`: the columns it names, the others ignored.
fn manifest_rows<T: serde::de::DeserializeOwned>(dir: &Path) -> Result<Vec<T>> {
    let path = dir.join("manifest.tsv");
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .from_path(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let rows = reader
        .deserialize::<T>()
        .collect::<std::result::Result<Vec<T>, _>>()
        .with_context(|| format!("bad line in {}", path.display()))?;
    ensure!(!rows.is_empty(), "{} lists no pages", path.display());
    Ok(rows)
}

/// Reads `dir/manifest.tsv` and every page's gold text.
pub fn read_manifest(dir: &Path) -> Result<Vec<GoldPage>> {
    let mut pages = Vec::new();
    for page in manifest_rows::<ManifestPage>(dir)? {
        let gold_path = dir.join(&page.gold);
        let gold = std::fs::read_to_string(&gold_path)
            .with_context(|| format!("cannot read gold file {}", gold_path.display()))?;
        pages.push(GoldPage { page, gold });
    }
    Ok(pages)
}

/// The one `*.warc.gz` directly inside the corpus folder.
fn corpus_warc(dir: &Path) -> Result<PathBuf> {
    let mut warcs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    warcs.sort();
    match warcs.len() {
        1 => Ok(warcs.remove(0)),
        0 => bail!("no *.warc.gz in {}", dir.display()),
        n => bail!("{n} *.warc.gz files in {}, expected one", dir.display()),
    }
}

/// `<urn:uuid:…>` and `urn:uuid:…` name the same record.
fn record_key(id: &str) -> &str {
    id.trim().trim_start_matches('<').trim_end_matches('>')
}

/// The articles of a run's `articles.jsonl`.
fn read_articles(path: &Path) -> Result<Vec<canopy_types::Article>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .map(|l| serde_json::from_str(l).with_context(|| format!("{}", path.display())))
        .collect()
}

/// What one method (or peer tool) output for each page of a corpus.
pub struct Outputs {
    /// `forest`, `wlr`, … or `peer:<tool>`.
    pub name: String,
    /// Per page, in the order asked for: the text ("" for none) and what
    /// served it (`none`: no output).
    pub pages: Vec<(String, String)>,
    /// Throughput; `None` when unknown.
    pub pages_per_s: Option<f64>,
    /// A version note for peers (`trafilatura 2.3.1`).
    pub version: Option<String>,
    /// The run's clusters (empty for peers).
    pub clusters: Clusters,
}

/// The template clusters of a run: each page's, and each cluster's
/// wrapper check (`summary.csv`'s `check`).
#[derive(Debug, Clone, Default)]
pub struct Clusters {
    /// Per page, in the order asked for: its cluster ("" for none).
    pub of_page: Vec<String>,
    /// Per cluster with a checked wrapper: the decision.
    pub checks: HashMap<String, Decision>,
}

/// Runs `method` over the corpus in process: the output for each of
/// `record_ids` (`WARC-Record-ID`s).
pub fn run_outputs(
    dir: &Path,
    record_ids: &[&str],
    config: &Config,
    method: Method,
) -> Result<Outputs> {
    let mut inputs = vec![corpus_warc(dir)?];
    if canopy_site::needs_feeds(config, method) {
        let feeds = dir.join("feeds");
        ensure!(
            feeds.is_dir(),
            "{} needs feeds but {} is missing",
            method.name(),
            feeds.display()
        );
        inputs.push(feeds);
    }
    let out_dir = tempfile::tempdir().context("cannot create a temporary folder")?;
    // A scratch work folder of its own: nothing is reused, so the settings
    // it records are never compared.
    let expect = canopy::fingerprint::extraction_settings(config, method, None)?;
    let (_, seconds) = canopy::run::run_all(
        &inputs,
        out_dir.path(),
        None,
        config,
        method,
        None,
        &expect,
        &canopy::Progress::hidden(),
    )
    .with_context(|| format!("method {}", method.name()))?;
    let out_articles = read_articles(&out_dir.path().join("articles.jsonl"))?;
    let articles: HashMap<&str, &canopy_types::Article> = out_articles
        .iter()
        .map(|a| (record_key(&a.record_id), a))
        .collect();
    let texts = record_ids
        .iter()
        .map(|id| match articles.get(record_key(id)) {
            Some(a) => (a.text.clone(), a.method.clone()),
            None => (String::new(), "none".to_string()),
        })
        .collect();
    let clusters = Clusters {
        of_page: record_ids
            .iter()
            .map(|id| {
                articles
                    .get(record_key(id))
                    .map(|a| a.cluster.clone())
                    .unwrap_or_default()
            })
            .collect(),
        checks: read_checks(&out_dir.path().join("summary.csv"))?,
    };
    // Coverage with feed signifiers is not the default coverage: say so.
    let name = if config.signifiers.source == SignifierSource::Feeds
        && method.is_site_level()
        && method != Method::ForestFeeds
    {
        format!("{}+feeds", method.name())
    } else {
        method.name().to_string()
    };
    Ok(Outputs {
        name,
        pages: texts,
        pages_per_s: Some(out_articles.len() as f64 / seconds.max(1e-9)),
        version: None,
        clusters,
    })
}

/// Each checked cluster's decision, from a run's `summary.csv`.
fn read_checks(path: &Path) -> Result<HashMap<String, Decision>> {
    #[derive(Deserialize)]
    struct Row {
        cluster: String,
        check: Option<Decision>,
    }
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut checks = HashMap::new();
    for row in reader.deserialize::<Row>() {
        let row = row.with_context(|| format!("invalid row in {}", path.display()))?;
        if let Some(check) = row.check {
            checks.insert(row.cluster, check);
        }
    }
    Ok(checks)
}

/// Scores `outputs` (in manifest order) against the gold texts.
fn score_outputs(outputs: Outputs, pages: &[GoldPage]) -> MethodResult {
    MethodResult::scored(outputs, |i, text| score_page(text, &pages[i].gold))
}

/// Runs `method` over the corpus in process and scores every page.
pub fn run_method(
    dir: &Path,
    pages: &[GoldPage],
    config: &Config,
    method: Method,
) -> Result<MethodResult> {
    let ids: Vec<&str> = pages.iter().map(|p| p.page.record_id.as_str()).collect();
    Ok(score_outputs(
        run_outputs(dir, &ids, config, method)?,
        pages,
    ))
}

/// Scores every peer tool found in `dir` (one sub-folder per tool).
pub fn score_peers(dir: &Path, pages: &[GoldPage]) -> Result<Vec<MethodResult>> {
    let ids: Vec<&str> = pages.iter().map(|p| p.page.id.as_str()).collect();
    let outputs = peer_outputs(dir, &ids)?;
    Ok(outputs
        .into_iter()
        .map(|o| score_outputs(o, pages))
        .collect())
}

/// The outputs of every peer tool found in `dir` (one sub-folder per tool,
/// `<id>.txt` per page; a missing file is no output) for the pages `ids`.
pub fn peer_outputs(dir: &Path, ids: &[&str]) -> Result<Vec<Outputs>> {
    let mut tools: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read peers folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    tools.sort();
    let mut results = Vec::new();
    for tool_dir in tools {
        let tool = tool_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (pages_per_s, version) = read_timing(&tool_dir.join("timing.json"));
        let texts = ids
            .iter()
            .map(|id| {
                let text = std::fs::read(tool_dir.join(format!("{id}.txt")))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                let by = if tokens(&text).is_empty() {
                    "none".to_string()
                } else {
                    tool.clone()
                };
                (text, by)
            })
            .collect();
        results.push(Outputs {
            name: format!("peer:{tool}"),
            pages: texts,
            pages_per_s,
            version: version.map(|v| format!("{tool} {v}")),
            clusters: Clusters::default(),
        });
    }
    Ok(results)
}

/// `pages_per_s` and `version` from a peer's `timing.json`, if readable.
fn read_timing(path: &Path) -> (Option<f64>, Option<String>) {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("canopy: no timing for peer: cannot read {}", path.display());
        return (None, None);
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => (
            v.get("pages_per_s").and_then(|x| x.as_f64()),
            v.get("version")
                .and_then(|x| x.as_str())
                .map(str::to_string),
        ),
        Err(e) => {
            eprintln!("canopy: invalid {}: {e}", path.display());
            (None, None)
        }
    }
}

/// Writes `eval.csv`: one row per page per method.
pub fn write_csv(dir: &Path, pages: &[GoldPage], results: &[MethodResult]) -> io::Result<()> {
    canopy_output::write_atomic(dir, "eval.csv", |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record([
            "method",
            "id",
            "site",
            "group",
            "bigram_p",
            "bigram_r",
            "bigram_f1",
            "token_f1",
            "lcs_f1",
            "served_by",
        ])?;
        for r in results {
            for (p, (s, by)) in pages.iter().zip(&r.pages) {
                csv.write_record([
                    r.name.as_str(),
                    &p.page.id,
                    &p.page.site,
                    &p.page.group,
                    &format!("{:.4}", s.bigram.precision),
                    &format!("{:.4}", s.bigram.recall),
                    &format!("{:.4}", s.bigram.f1),
                    &format!("{:.4}", s.token.f1),
                    &format!("{:.4}", s.lcs.f1),
                    by,
                ])?;
            }
        }
        csv.flush()
    })
}

/// The table of mean scores, one row per method.
pub fn main_table(results: &[MethodResult]) -> String {
    let mut t = String::from(
        "| method | bigram P | bigram R | bigram F1 | token F1 | LCS F1 | no output | pages/s |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in results {
        let m = r.mean();
        let speed = r
            .pages_per_s
            .map_or_else(|| "?".to_string(), |s| format!("{s:.0}"));
        t.push_str(&format!(
            "| {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {speed} |\n",
            r.name,
            m.bigram.precision,
            m.bigram.recall,
            m.bigram.f1,
            m.token.f1,
            m.lcs.f1,
            r.no_output(),
        ));
    }
    t
}

/// Mean bigram F1 per value of `key` (site or group), one column per method.
fn breakdown_table(
    pages: &[GoldPage],
    results: &[MethodResult],
    label: &str,
    key: impl Fn(&ManifestPage) -> &str,
    min_pages: usize,
) -> (String, usize) {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, p) in pages.iter().enumerate() {
        groups.entry(key(&p.page)).or_default().push(i);
    }
    let mut t = format!("| {label} | pages |");
    let mut rule = String::from("|---|---:|");
    for r in results {
        t.push_str(&format!(" {} |", r.name));
        rule.push_str("---:|");
    }
    t.push('\n');
    t.push_str(&rule);
    t.push('\n');
    let mut shown = 0;
    for (name, idx) in groups.iter().filter(|(_, idx)| idx.len() >= min_pages) {
        shown += 1;
        t.push_str(&format!("| {name} | {} |", idx.len()));
        for r in results {
            let f1 = idx.iter().map(|&i| r.pages[i].0.bigram.f1).sum::<f64>() / idx.len() as f64;
            t.push_str(&format!(" {f1:.3} |"));
        }
        t.push('\n');
    }
    (t, shown)
}

/// Renders `eval.md`: the main table, then bigram F1 per site and per group.
pub fn render_markdown(corpus: &str, pages: &[GoldPage], results: &[MethodResult]) -> String {
    let sites: std::collections::BTreeSet<&str> =
        pages.iter().map(|p| p.page.site.as_str()).collect();
    let groups: std::collections::BTreeSet<&str> =
        pages.iter().map(|p| p.page.group.as_str()).collect();
    let mut md = format!(
        "## {corpus}\n\n{} pages, {} sites, {} template groups. Scores are means over all \
         pages (a page with no output scores 0); \"no output\" counts those pages.\n\n",
        pages.len(),
        sites.len(),
        groups.len()
    );
    md.push_str(&main_table(results));
    md.push_str(&peers_note(results));
    md.push_str(&clusters::section(pages, results));

    let min = if sites.len() > MANY_SITES {
        MIN_SITE_PAGES
    } else {
        1
    };
    let (table, shown) = breakdown_table(pages, results, "site", |p| &p.site, min);
    md.push_str("\n### Bigram F1 per site\n\n");
    if min > 1 {
        md.push_str(&format!(
            "Only the {shown} sites with at least {min} pages (of {}) are listed.\n\n",
            sites.len()
        ));
    }
    md.push_str(&table);

    md.push_str("\n### Bigram F1 per template group\n\n");
    let pairs: std::collections::BTreeSet<(&str, &str)> = pages
        .iter()
        .map(|p| (p.page.site.as_str(), p.page.group.as_str()))
        .collect();
    if pairs.len() == sites.len() && pairs.len() == groups.len() {
        md.push_str("One template group per site: see the per-site table.\n");
    } else {
        let (table, _) = breakdown_table(pages, results, "group", |p| &p.group, 1);
        md.push_str(&table);
    }
    md
}

/// Resolves the settings and the list of methods from the flags.
fn settings(args: &EvalOptions) -> Result<(Config, Vec<Method>)> {
    let mut config = Config::load(args.config.as_deref())?;
    if let Some(s) = args.signifiers {
        config.signifiers.source = s;
    }
    if let Some(t) = args.threads {
        config.run.threads = t;
    }
    let mut names: Vec<&str> = Vec::new();
    for m in &args.methods {
        match m.as_str() {
            "all" => names.extend(Method::ALL),
            m => names.push(m),
        }
    }
    if names.is_empty() {
        names = vec!["forest", "forest-feeds"];
    }
    let mut methods: Vec<Method> = Vec::new();
    for name in names {
        let m: Method = name.parse().map_err(Error::Corpus)?;
        let m = m.with_signifiers(config.signifiers.source);
        if !methods.contains(&m) {
            methods.push(m);
        }
    }
    Ok((config, methods))
}

/// The flags resolved: what to evaluate, on which corpus, and where.
struct Setup {
    config: Config,
    /// The methods to run, those the corpus cannot serve left out.
    methods: Vec<Method>,
    /// A paragraph for `eval.md` naming the methods left out; empty if none.
    skipped: String,
    /// The corpus folder (canonical) and its name.
    corpus: PathBuf,
    name: String,
    out_dir: PathBuf,
    peers: Option<PathBuf>,
}

fn setup(args: &EvalOptions) -> Result<Setup> {
    let (config, methods) = settings(args)?;
    let corpus = args
        .corpus
        .canonicalize()
        .with_context(|| format!("corpus folder {}", args.corpus.display()))?;
    let name = corpus
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "corpus".into());
    let out_dir = args.out.clone();
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let (methods, skipped) = runnable(&corpus, &config, methods);
    Ok(Setup {
        config,
        methods,
        skipped,
        corpus,
        name,
        out_dir,
        peers: args.peers.clone(),
    })
}

/// Leaves out the methods that read feeds when the corpus has no `feeds/`
/// folder (trafbench), saying so on stderr; returns the methods to run and a
/// note for `eval.md` (empty when none is left out).
fn runnable(corpus: &Path, config: &Config, methods: Vec<Method>) -> (Vec<Method>, String) {
    if corpus.join("feeds").is_dir() {
        return (methods, String::new());
    }
    let (run, skip): (Vec<Method>, Vec<Method>) = methods
        .into_iter()
        .partition(|&m| !canopy_site::needs_feeds(config, m));
    if skip.is_empty() {
        return (run, String::new());
    }
    let names: Vec<&str> = skip.iter().map(|m| m.name()).collect();
    let names = names.join(", ");
    eprintln!(
        "canopy: not running {names}: no feeds/ folder in {}",
        corpus.display()
    );
    let note = format!("\nNot run, for want of a `feeds/` folder: {names}.\n");
    (run, note)
}

/// Runs the methods (in the global rayon pool, which the caller sizes
/// from `config.run.threads`), scores them and writes `eval.csv` and
/// `eval.md`.
pub fn eval(args: &EvalOptions) -> Result<()> {
    let s = setup(args)?;
    if s.corpus.join(snippets::SNIPPETS).is_file() {
        return snippets::eval(&s);
    }
    let pages = read_manifest(&s.corpus)?;

    let mut results = Vec::new();
    for &method in &s.methods {
        let r = run_method(&s.corpus, &pages, &s.config, method)?;
        eprintln!(
            "canopy: {} {}: bigram F1 {:.3}",
            s.name,
            r.name,
            r.mean().bigram.f1
        );
        results.push(r);
    }
    if let Some(peers) = &s.peers {
        results.extend(score_peers(peers, &pages)?);
    }

    let mut md = render_markdown(&s.name, &pages, &results);
    md.push_str(&s.skipped);
    report(
        &s,
        pages.len(),
        |dir| write_csv(dir, &pages, &results),
        &md,
        &main_table(&results),
    )
}

/// The note under a table naming the peers' versions ("" without peers).
fn peers_note<S>(results: &[MethodResult<S>]) -> String {
    let versions: Vec<&str> = results
        .iter()
        .filter_map(|r| r.version.as_deref())
        .collect();
    if versions.is_empty() {
        return String::new();
    }
    format!(
        "\nPeers: {}. Their pages/s come from their own timing.json.\n",
        versions.join(", ")
    )
}

/// Writes `eval.csv` (with `csv`) and `eval.md` into the output folder, and
/// prints the main table.
fn report(
    s: &Setup,
    pages: usize,
    csv: impl FnOnce(&Path) -> io::Result<()>,
    md: &str,
    table: &str,
) -> Result<()> {
    let out_dir = &s.out_dir;
    let ctx = || format!("cannot write into {}", out_dir.display());
    csv(out_dir).with_context(ctx)?;
    canopy_output::write_atomic(out_dir, "eval.md", |w| w.write_all(md.as_bytes()))
        .with_context(ctx)?;
    println!("{}: {pages} pages\n{table}", s.name);
    eprintln!("canopy: wrote {}/eval.csv and eval.md", out_dir.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(id: &str, site: &str, group: &str) -> GoldPage {
        GoldPage {
            page: ManifestPage {
                id: id.into(),
                record_id: format!("<urn:{id}>"),
                site: site.into(),
                group: group.into(),
                gold: format!("gold/{id}.txt"),
            },
            gold: "a b c".into(),
        }
    }

    #[test]
    fn manifest_missing_gold_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("manifest.tsv"),
            "id\turl\trecord_id\tsite\tgroup\tlang\thtml\tgold\torig_id\n\
             p1\thttp://x/\t<urn:1>\tx\tx@1\ten\thtml/p1.html\tgold/p1.txt\t\"q (1)\n",
        )
        .unwrap();
        let err = read_manifest(dir.path()).err().unwrap();
        assert!(format!("{err:#}").contains("gold/p1.txt"), "{err:#}");
        std::fs::create_dir(dir.path().join("gold")).unwrap();
        std::fs::write(dir.path().join("gold/p1.txt"), "a b").unwrap();
        let pages = read_manifest(dir.path()).unwrap();
        assert_eq!(
            (pages[0].page.record_id.as_str(), pages[0].gold.as_str()),
            ("<urn:1>", "a b")
        );
    }

    #[test]
    fn clusters_are_compared_with_the_page_level_path_and_the_groups() {
        // Three pages of one template group: the run put two in cluster
        // s1/0 (a checked wrapper) and one in s1/1.
        let pages = vec![
            page("p1", "s1", "s1@1"),
            page("p2", "s1", "s1@1"),
            page("p3", "s1", "s1@1"),
        ];
        let result = |name: &str, texts: [&str; 3], clusters: Clusters| MethodResult {
            name: name.into(),
            pages: texts
                .iter()
                .map(|t| (score_page(t, "a b c"), name.to_string()))
                .collect(),
            pages_per_s: None,
            version: None,
            clusters,
        };
        let forest = result(
            "forest",
            ["a b", "a b c", "a b c"],
            Clusters {
                of_page: vec!["s1/0".into(), "s1/0".into(), "s1/1".into()],
                checks: [("s1/0".to_string(), Decision::Agree)].into(),
            },
        );
        let page_level = result("page", ["a b c", "a b c", "x"], Clusters::default());
        let md = render_markdown("c", &pages, &[forest, page_level]);
        // s1/0: the wrapper's mean F1 (0.5 + 1) / 2 against the page-level
        // path's 1.
        assert!(md.contains("on 1 it is lower"), "{md}");
        assert!(
            md.contains("| s1/0 | 2 | agree | 0.833 | 1.000 | -0.167 |"),
            "{md}"
        );
        // One group over two clusters: purity 1, completeness 2/3.
        assert!(md.contains("purity 1.000"), "{md}");
        assert!(md.contains("completeness 0.667"), "{md}");
        assert!(md.contains("- s1@1 on s1: s1/0 2, s1/1 1"), "{md}");
    }

    #[test]
    fn tables_list_methods_and_breakdowns() {
        let pages = vec![page("p1", "s1", "s1@1"), page("p2", "s1", "s1@2")];
        let results = vec![MethodResult {
            name: "forest".into(),
            pages: vec![
                (score_page("a b c", "a b c"), "forest".into()),
                (PageScore::ZERO, "none".into()),
            ],
            pages_per_s: Some(10.0),
            version: None,
            clusters: Clusters::default(),
        }];
        let md = render_markdown("c", &pages, &results);
        assert!(
            md.contains("| forest | 0.500 | 0.500 | 0.500 | 0.500 | 0.500 | 1 | 10 |"),
            "{md}"
        );
        assert!(md.contains("| s1 | 2 | 0.500 |"), "{md}");
        assert!(md.contains("| s1@2 | 1 | 0.000 |"), "{md}");
        assert_eq!(record_key("<urn:1>"), record_key("urn:1"));
    }
}
