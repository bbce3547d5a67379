//! The streaming pass of the fast path for pages of a known template
//! (docs/performance.md, "A streaming pass over the pages of a known
//! template"; issue #40), measured on the pages a reused wrapper serves:
//! does `canopy_stream`'s pass find the wrapper's region and the page's
//! template as the tree does, and what does it cost beside the whole parse?
//!
//! ```sh
//! cargo build --release -p canopy-cli
//! target/release/canopy run ../shared/corpora/dragnet/dragnet.warc.gz --out /tmp/dn
//! cargo build --release -p canopy --example stream_region --features parse-wall
//! taskset -c 0 target/release/examples/stream_region ../shared/corpora/dragnet/dragnet.warc.gz /tmp/dn --reps 7
//! ```
//!
//! For every page of the run's output that a saved wrapper served
//! (`method` "forest"), the page (decoded as the run decodes it) goes two
//! ways:
//!
//! - **the tree**: `Document::parse_within` with the run's options, the
//!   wrapper applied to it (`Wrapper::apply`), the page's template
//!   signature (`Signature::of`);
//! - **the stream**: `canopy_stream::follow` with the patterns of all the
//!   site's saved wrappers (a page's template, so its wrapper, is known
//!   only once its cluster is), then an html5ever parse of the byte ranges
//!   of the served wrapper's matches alone, told the page's text length the
//!   pass counted (`DomOptions::page_text`).
//!
//! It prints how many pages the pass follows (and why the others need the
//! full path), how many of those give the tree's region text, the tree's
//! signature and the tree's template decision (containment of the saved
//! sketch at the reuse threshold); then the CPU time of both ways, of the
//! pass alone and of lol_html with a do-nothing handler on every element,
//! best of `--reps`. `--show` lists the pages whose region text differs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use canopy::{Event, Settings};
use canopy_cluster::Signature;
use canopy_dom::{Deadline, Document, DomOptions};
use canopy_forest::{Pattern, Wrapper};
use canopy_ingest::{read_warc_split, IngestOptions, SplitItem};
use canopy_reuse::{containment, SavedWrappers, Thresholds};
use canopy_stream::{follow, Unfollowed};

/// A page a saved wrapper served.
struct Served<'a> {
    record_id: &'a str,
    html: &'a str,
    wrapper: usize,
}

/// What the stream way found on a page it follows.
struct Streamed {
    /// The chosen pattern's regions.
    regions: usize,
    /// The bytes of the page of the regions alone.
    skeleton_bytes: usize,
    signature: Signature,
    text: String,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut warc, mut run, mut reps, mut show) = (None, None, 3usize, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--reps" => reps = args.next().and_then(|n| n.parse().ok()).expect("--reps N"),
            "--show" => show = true,
            _ if warc.is_none() => warc = Some(PathBuf::from(arg)),
            _ => run = Some(PathBuf::from(arg)),
        }
    }
    let usage = "usage: stream_region FILE.warc.gz RUN_DIR [--reps N] [--show]";
    let (warc, run) = (warc.expect(usage), run.expect(usage));
    let settings = Settings::default();
    let site = canopy_site::SiteSettings::new(&settings.config, settings.method)
        .expect("the default settings");
    let options = &site.dom;
    let (saved, _) = SavedWrappers::load(&run.join("wrappers.jsonl")).expect("wrappers.jsonl");
    let by_cluster: HashMap<&str, usize> = (0..saved.len())
        .map(|i| (saved.get(i).record.cluster.as_str(), i))
        .collect();
    let clusters = served_clusters(&run);
    let pages = read_pages(&warc, &settings);
    let served: Vec<Served> = pages
        .iter()
        .filter_map(|(record_id, html)| {
            let cluster = clusters.get(record_id)?;
            Some(Served {
                record_id,
                html,
                wrapper: *by_cluster.get(cluster.as_str())?,
            })
        })
        .collect();
    let patterns: Vec<&Pattern> = served
        .iter()
        .map(|p| &saved.get(p.wrapper).pattern)
        .collect();
    // Each page's site's patterns, and where its wrapper's is among them.
    let site_patterns: Vec<(Vec<&Pattern>, usize)> = served
        .iter()
        .map(|p| {
            let of_site = saved.of_site(&saved.get(p.wrapper).record.site);
            let chosen = of_site.iter().position(|&w| w == p.wrapper).unwrap_or(0);
            let patterns = of_site.iter().map(|&w| &saved.get(w).pattern).collect();
            (patterns, chosen)
        })
        .collect();

    // Both ways, timed.
    let (mut tree_cpu, mut stream_cpu) = (Vec::new(), Vec::new());
    let (mut pass_cpu, mut floor_cpu) = (Vec::new(), Vec::new());
    let (mut trees, mut streams) = (Vec::new(), Vec::new());
    let pages = || served.iter().zip(&patterns);
    for _ in 0..reps.max(1) {
        trees = timed(&mut tree_cpu, || {
            pages()
                .map(|(page, pattern)| tree_way(page.html, pattern, options))
                .collect()
        });
        streams = timed(&mut stream_cpu, || {
            served
                .iter()
                .zip(&site_patterns)
                .map(|(page, (patterns, chosen))| stream_way(page.html, patterns, *chosen, options))
                .collect()
        });
        timed(&mut pass_cpu, || {
            for (page, (patterns, _)) in served.iter().zip(&site_patterns) {
                let pass = follow(page.html, patterns, options);
                std::hint::black_box(pass.ok());
            }
        });
        timed(&mut floor_cpu, || {
            served.iter().for_each(|p| lol_html_floor(p.html))
        });
    }

    let thresholds = Thresholds::default();
    let mut count = Counts::default();
    for ((page, tree), streamed) in served.iter().zip(&trees).zip(&streams) {
        let wrapper = saved.get(page.wrapper);
        let fits = |sketch: &[u64], sig: &Signature| {
            containment(sketch, wrapper.paths, sig) >= thresholds.page_containment
        };
        let s = match streamed {
            Ok(s) => s,
            Err(why) => {
                *count.full_path.entry(why.as_str()).or_default() += 1;
                continue;
            }
        };
        let (tree_text, tree_sig) = tree;
        let same_text = s.text == *tree_text;
        count.followed += 1;
        count.same_text += usize::from(same_text);
        count.same_signature += usize::from(s.signature == *tree_sig);
        count.tree_fits += usize::from(fits(&wrapper.sketch, tree_sig));
        count.same_decision +=
            usize::from(fits(&wrapper.sketch, &s.signature) == fits(&wrapper.sketch, tree_sig));
        count.skeleton_bytes += s.skeleton_bytes;
        count.followed_bytes += page.html.len();
        if show && !same_text {
            println!(
                "differs: {} {} ({} regions): tree {} chars, stream {}",
                page.record_id,
                wrapper.record.cluster,
                s.regions,
                tree_text.len(),
                s.text.len()
            );
            let common = tree_text
                .char_indices()
                .zip(s.text.chars())
                .find(|((_, a), b)| a != b)
                .map_or(tree_text.len().min(s.text.len()), |((i, _), _)| i);
            let tail = |t: &str| {
                t.get(common..)
                    .unwrap_or("")
                    .chars()
                    .take(160)
                    .collect::<String>()
            };
            println!(
                "  tree:   …{}\n  stream: …{}",
                tail(tree_text),
                tail(&s.text)
            );
        }
    }
    let needing: usize = count.full_path.values().sum();
    let matched: usize = site_patterns.iter().map(|(p, _)| p.len()).sum();
    println!(
        "{}: {} pages served by a wrapper; the pass follows {}, {} need the full path {:?}; {:.2} patterns (the site's saved wrappers) a pass",
        warc.display(),
        served.len(),
        count.followed,
        needing,
        count.full_path,
        matched as f64 / served.len().max(1) as f64
    );
    println!(
        "of those the pass follows: the tree's region text {}, the tree's signature {}, the tree's template decision {} (the tree fits {} to the saved template)",
        count.same_text, count.same_signature, count.same_decision, count.tree_fits
    );
    let per_page = |t: &[Duration]| {
        let best = t.iter().min().copied().unwrap_or_default();
        best.as_secs_f64() * 1e6 / served.len().max(1) as f64
    };
    println!(
        "CPU, best of {reps}: the tree (parse, wrapper, signature) {:.0} µs/page; the stream (pass, skeleton parse, wrapper, signature) {:.0} µs/page; skeletons {:.1} % of the bytes",
        per_page(&tree_cpu),
        per_page(&stream_cpu),
        100.0 * count.skeleton_bytes as f64 / count.followed_bytes.max(1) as f64
    );
    println!(
        "of which the pass {:.0} µs/page; lol_html with a handler on every element that does nothing {:.0} µs/page",
        per_page(&pass_cpu),
        per_page(&floor_cpu)
    );
}

#[derive(Default)]
struct Counts {
    followed: usize,
    full_path: BTreeMap<&'static str, usize>,
    same_text: usize,
    same_signature: usize,
    same_decision: usize,
    tree_fits: usize,
    skeleton_bytes: usize,
    followed_bytes: usize,
}

/// The selection's text and the page's signature, from the whole tree.
#[inline(never)]
fn tree_way(html: &str, pattern: &Pattern, options: &DomOptions) -> (String, Signature) {
    let doc = Document::parse_within(html, options, Deadline::after(None))
        .expect("a page the run parsed");
    (selected_text(&doc, pattern), Signature::of(&doc))
}

/// The text `pattern`'s wrapper selects on `doc`, white space collapsed.
fn selected_text(doc: &Document, pattern: &Pattern) -> String {
    let wrapper = Wrapper {
        pattern: pattern.clone(),
        relevance: 0.0,
        dfs: Vec::new(),
    };
    let text: Vec<String> = wrapper
        .apply(doc)
        .into_iter()
        .map(|n| doc.inner_text(n))
        .collect();
    collapse(&text.join(" "))
}

/// The pass with all of `patterns`, then the page of their regions alone
/// (`Pass::skeleton`) parsed, and pattern `chosen` applied to it.
#[inline(never)]
fn stream_way(
    html: &str,
    patterns: &[&Pattern],
    chosen: usize,
    options: &DomOptions,
) -> Result<Streamed, Unfollowed> {
    let pass = follow(html, patterns, options)?;
    // The drop list's guard weighs a named element against the whole
    // page's text, which the pass counted.
    let options = &DomOptions {
        page_text: Some(pass.text_bytes),
        ..options.clone()
    };
    let skeleton = pass.skeleton(html);
    let doc = Document::parse_within(&skeleton, options, Deadline::after(None))
        .expect("the skeleton of a page the run parsed");
    Ok(Streamed {
        signature: pass.signature(),
        regions: pass.regions[chosen].len(),
        skeleton_bytes: skeleton.len(),
        text: selected_text(&doc, patterns[chosen]),
    })
}

/// lol_html with a handler on every element that does nothing: the floor
/// of any pass that sees every element through it.
#[inline(never)]
fn lol_html_floor(html: &str) {
    use lol_html::{element, HtmlRewriter, Settings};
    let settings = Settings::new().append_element_content_handler(element!("*", |_el| Ok(())));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html.as_bytes()).expect("lol_html rewrites");
    rewriter.end().expect("lol_html ends");
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs `f`, adding its CPU time to `times`.
fn timed<T>(times: &mut Vec<Duration>, f: impl FnOnce() -> T) -> T {
    let started = thread_cpu();
    let out = f();
    times.push(thread_cpu() - started);
    out
}

fn thread_cpu() -> Duration {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("the thread's CPU clock");
    Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32)
}

/// Record id → cluster of every article a wrapper served.
fn served_clusters(run: &Path) -> HashMap<String, String> {
    let text = std::fs::read_to_string(run.join("articles.jsonl")).expect("articles.jsonl");
    text.lines()
        .filter_map(|line| {
            let a: serde_json::Value = serde_json::from_str(line).ok()?;
            (a["method"] == "forest").then(|| {
                (
                    a["record_id"].as_str().unwrap_or_default().to_string(),
                    a["cluster"].as_str().unwrap_or_default().to_string(),
                )
            })
        })
        .collect()
}

/// Record id and HTML of the WARC's pages, decoded as the partition
/// decodes them.
fn read_pages(warc: &Path, settings: &Settings) -> Vec<(String, String)> {
    let ingest = &settings.config.ingest;
    let options = IngestOptions {
        max_page_bytes: ingest.max_page_bytes,
        max_decoded_bytes: ingest.max_decoded_bytes,
        max_feed_bytes: ingest.max_feed_bytes,
        ..IngestOptions::default()
    };
    let mut pages = Vec::new();
    read_warc_split(warc, &options, &mut |item| {
        if let SplitItem::Payload(payload) = item {
            if let Ok(Event::Page(page)) = payload.decode(&options) {
                pages.push((page.record_id, page.html));
            }
        }
    })
    .expect("a readable WARC");
    pages
}
