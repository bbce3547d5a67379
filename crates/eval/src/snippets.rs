//! `canopy eval` on a snippet corpus (trafbench): the gold of a page is a few
//! text snippets its main content must contain (`with`) and must not
//! (`without`), scored by trafilatura's rule ([`canopy_score::snippet_counts`]):
//! precision, recall and F over the snippets of the whole corpus.
//!
//! The folder holds `manifest.tsv` (only `id`, `record_id` and `site` are
//! read), `snippets.jsonl` (`{"id", "url", "with": [...], "without": [...]}`
//! per page) and one `*.warc.gz`. Writes `eval.csv` (one row per page per
//! method: the four counts and what served the page) and `eval.md` (the
//! table of summed counts per method), and prints the table.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use anyhow::Context;
use canopy_score::{snippet_counts, SnippetCounts};
use serde::Deserialize;

use super::{
    manifest_rows, peer_outputs, peers_note, report, run_outputs, MethodResult, Outputs, Setup,
};

/// The file whose presence makes a corpus a snippet corpus.
pub const SNIPPETS: &str = "snippets.jsonl";

/// One page: its manifest line and its snippets.
pub struct SnippetPage {
    pub id: String,
    pub record_id: String,
    pub site: String,
    pub with: Vec<String>,
    pub without: Vec<String>,
}

/// The columns of `manifest.tsv` read here (others are ignored).
#[derive(Deserialize)]
struct ManifestRow {
    id: String,
    record_id: String,
    site: String,
}

/// One line of `snippets.jsonl` (other fields are ignored).
#[derive(Deserialize)]
struct SnippetLine {
    id: String,
    #[serde(default)]
    with: Vec<String>,
    #[serde(default)]
    without: Vec<String>,
}

/// Reads `dir/manifest.tsv` and `dir/snippets.jsonl`; every manifest page
/// must have a line of snippets.
pub fn read_pages(dir: &Path) -> anyhow::Result<Vec<SnippetPage>> {
    let path = dir.join(SNIPPETS);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut snippets: HashMap<String, SnippetLine> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let s: SnippetLine = serde_json::from_str(line)
            .with_context(|| format!("bad line {} in {}", n + 1, path.display()))?;
        snippets.insert(s.id.clone(), s);
    }

    let mut pages = Vec::new();
    for row in manifest_rows::<ManifestRow>(dir)? {
        let s = snippets
            .remove(&row.id)
            .with_context(|| format!("{} has no snippets for page {}", path.display(), row.id))?;
        pages.push(SnippetPage {
            id: row.id,
            record_id: row.record_id,
            site: row.site,
            with: s.with,
            without: s.without,
        });
    }
    Ok(pages)
}

/// The snippet counts of one method (or peer tool) over the corpus.
pub type SnippetResult = MethodResult<SnippetCounts>;

/// Scores `outputs` (in manifest order) against the pages' snippets.
fn score_outputs(outputs: Outputs, pages: &[SnippetPage]) -> SnippetResult {
    MethodResult::scored(outputs, |i, text| {
        snippet_counts(text, &pages[i].with, &pages[i].without)
    })
}

impl SnippetResult {
    /// The counts summed over the corpus.
    fn total(&self) -> SnippetCounts {
        self.pages.iter().map(|(c, _)| *c).sum()
    }
}

/// Writes `eval.csv`: one row per page per method.
fn write_csv(dir: &Path, pages: &[SnippetPage], results: &[SnippetResult]) -> io::Result<()> {
    canopy_output::write_atomic(dir, "eval.csv", |w| {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(["method", "id", "site", "tp", "fn", "fp", "tn", "served_by"])?;
        for r in results {
            for (p, (c, by)) in pages.iter().zip(&r.pages) {
                let counts = [c.tp, c.fn_, c.fp, c.tn].map(|n| n.to_string());
                csv.write_record(
                    [r.name.as_str(), &p.id, &p.site]
                        .into_iter()
                        .chain(counts.iter().map(String::as_str))
                        .chain([by.as_str()]),
                )?;
            }
        }
        csv.flush()
    })
}

/// The table of snippet scores over the corpus, one row per method.
pub fn main_table(results: &[SnippetResult]) -> String {
    let mut t = String::from(
        "| method | snippet P | snippet R | snippet F | TP | FN | FP | TN | no output | pages/s |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in results {
        let c = r.total();
        let s = c.prf();
        let speed = r
            .pages_per_s
            .map_or_else(|| "?".to_string(), |s| format!("{s:.0}"));
        t.push_str(&format!(
            "| {} | {:.3} | {:.3} | {:.3} | {} | {} | {} | {} | {} | {speed} |\n",
            r.name,
            s.precision,
            s.recall,
            s.f1,
            c.tp,
            c.fn_,
            c.fp,
            c.tn,
            r.no_output(),
        ));
    }
    t
}

/// Renders `eval.md`: what was scored and how, then the table.
pub fn render_markdown(
    corpus: &str,
    pages: &[SnippetPage],
    results: &[SnippetResult],
    skipped: &str,
) -> String {
    let sites: std::collections::BTreeSet<&str> = pages.iter().map(|p| p.site.as_str()).collect();
    let with: usize = pages.iter().map(|p| p.with.len()).sum();
    let without: usize = pages.iter().map(|p| p.without.len()).sum();
    let mut md = format!(
        "## {corpus}\n\n{} pages, {} sites; {with} `with` and {without} `without` snippets. \
         Scored by trafilatura's snippet rule: a `with` snippet found in the \
         whitespace-normalised output is a true positive (else a false negative), a \
         `without` snippet found is a false positive (else a true negative); precision, \
         recall and F are over all the corpus's snippets, not means per page. A page with no \
         output finds nothing; \"no output\" counts those pages.\n\n",
        pages.len(),
        sites.len(),
    );
    md.push_str(&main_table(results));
    md.push_str(&peers_note(results));
    md.push_str(skipped);
    md
}

/// `canopy eval` on a snippet corpus.
pub(super) fn eval(s: &Setup) -> anyhow::Result<()> {
    let pages = read_pages(&s.corpus)?;
    let record_ids: Vec<&str> = pages.iter().map(|p| p.record_id.as_str()).collect();
    let mut results = Vec::new();
    for &method in &s.methods {
        let r = score_outputs(
            run_outputs(&s.corpus, &record_ids, &s.config, method)?,
            &pages,
        );
        eprintln!(
            "canopy: {} {}: snippet F {:.3}",
            s.name,
            r.name,
            r.total().prf().f1
        );
        results.push(r);
    }
    if let Some(peers) = &s.peers {
        let ids: Vec<&str> = pages.iter().map(|p| p.id.as_str()).collect();
        for outputs in peer_outputs(peers, &ids)? {
            results.push(score_outputs(outputs, &pages));
        }
    }

    report(
        s,
        pages.len(),
        |dir| write_csv(dir, &pages, &results),
        &render_markdown(&s.name, &pages, &results, &s.skipped),
        &main_table(&results),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-page snippet corpus (no WARC) and a peer folder with one tool
    /// that has output for the first page only.
    fn tiny_corpus(dir: &Path) {
        std::fs::write(
            dir.join("manifest.tsv"),
            "id\turl\trecord_id\tsite\tfile\n\
             p1\thttp://a/\t<urn:1>\ta.de\ta.html\n\
             p2\thttp://b/\t<urn:2>\tb.de\tb.html\n",
        )
        .unwrap();
        std::fs::write(
            dir.join(SNIPPETS),
            "{\"id\": \"p2\", \"url\": \"http://b/\", \"with\": [\"Zweiter Text\"], \"without\": [\"Impressum\"]}\n\
             {\"id\": \"p1\", \"url\": \"http://a/\", \"with\": [\"Der erste\\tText\", \"fehlt\"], \"without\": [\"Menü\", \"Kontakt\"]}\n",
        )
        .unwrap();
        let tool = dir.join("peers/tool");
        std::fs::create_dir_all(&tool).unwrap();
        std::fs::write(tool.join("p1.txt"), "Der erste\nText.\u{a0}Kontakt").unwrap();
        std::fs::write(
            tool.join("timing.json"),
            r#"{"pages_per_s": 12.4, "version": "1.0"}"#,
        )
        .unwrap();
    }

    #[test]
    fn scores_a_tiny_snippet_corpus() {
        let dir = tempfile::tempdir().unwrap();
        tiny_corpus(dir.path());
        let pages = read_pages(dir.path()).unwrap();
        assert_eq!(
            pages
                .iter()
                .map(|p| (p.id.as_str(), p.record_id.as_str(), p.with.len()))
                .collect::<Vec<_>>(),
            [("p1", "<urn:1>", 2), ("p2", "<urn:2>", 1)]
        );

        let ids: Vec<&str> = pages.iter().map(|p| p.id.as_str()).collect();
        let results: Vec<SnippetResult> = peer_outputs(&dir.path().join("peers"), &ids)
            .unwrap()
            .into_iter()
            .map(|o| score_outputs(o, &pages))
            .collect();
        // p1: "Der erste Text" found, "fehlt" not; "Kontakt" found, "Menü" not.
        // p2: no output: nothing found. Sums: TP 1, FN 2, FP 1, TN 2:
        // P = 1/2, R = 1/3, F = 2·(1/6)/(5/6) = 0.4.
        let r = &results[0];
        assert_eq!(r.name, "peer:tool");
        assert_eq!(
            r.pages
                .iter()
                .map(|(_, by)| by.as_str())
                .collect::<Vec<_>>(),
            ["tool", "none"]
        );
        assert_eq!(
            r.total(),
            SnippetCounts {
                tp: 1,
                fn_: 2,
                fp: 1,
                tn: 2
            }
        );
        let md = render_markdown("tiny", &pages, &results, "");
        assert!(
            md.contains("2 pages, 2 sites; 3 `with` and 3 `without`"),
            "{md}"
        );
        assert!(
            md.contains("| peer:tool | 0.500 | 0.333 | 0.400 | 1 | 2 | 1 | 2 | 1 | 12 |"),
            "{md}"
        );
        assert!(md.contains("Peers: tool 1.0."), "{md}");

        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        write_csv(&out, &pages, &results).unwrap();
        let csv = std::fs::read_to_string(out.join("eval.csv")).unwrap();
        assert_eq!(
            csv,
            "method,id,site,tp,fn,fp,tn,served_by\n\
             peer:tool,p1,a.de,1,1,1,1,tool\n\
             peer:tool,p2,b.de,0,1,0,1,none\n"
        );
    }

    #[test]
    fn a_page_without_snippets_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        tiny_corpus(dir.path());
        std::fs::write(
            dir.path().join(SNIPPETS),
            "{\"id\": \"p1\", \"with\": [\"a\"], \"without\": []}\n",
        )
        .unwrap();
        let err = read_pages(dir.path()).err().unwrap();
        assert!(
            format!("{err:#}").contains("no snippets for page p2"),
            "{err:#}"
        );
    }
}
