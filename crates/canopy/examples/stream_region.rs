//! The streaming pass of a fast path for pages of a known template
//! (docs/performance.md, "The streaming pass"; issue #40): can one lol_html
//! pass over a page find its wrapper's region and evidence of its template,
//! and what does it cost beside the whole parse?
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
//! - **the tree**: `Document::parse_within`, the wrapper applied to it
//!   (`Wrapper::apply`), the page's template signature (`Signature::of`);
//! - **the stream**: one lol_html pass with a handler on every element that
//!   keeps its own stack of open elements with the tree builder's commonest
//!   rules (a block start closes an open `<p>`; `<li>`, `<dd>`, `<option>`,
//!   cells and rows close their open kin; a row or cell straight in a table
//!   opens its section and row; content straight in a table goes before it;
//!   a form in a table is empty; an end tag does not close past a block),
//!   leaves out what the tree leaves out whatever its names (scripts,
//!   styles, hidden elements, ...), and gives each element's level and tag
//!   paths, and the byte range of every match of the wrapper's pattern;
//!   then an html5ever parse of those ranges alone.
//!
//! The same stack is also driven by [`scan`], a tag scan of the example's
//! own that reads only what the stack needs: what a pass without a general
//! lexer would cost, and whether it finds what the tree finds.
//!
//! A page the stream cannot follow (an `<a>` or a formatting element
//! closed around a block, which the tree builder's adoption agency
//! restructures; an end tag the tree ignores but lol_html honours; nesting
//! past the tree's depth cap; a `dfs`-typed pattern) needs the full path
//! and is counted with why. For the others it prints how many give the
//! region text of the tree, the tree's signature, and the tree's template
//! decision (containment of the saved sketch at the reuse threshold), and
//! how many fit a sketch made the same way from the stream's own paths of
//! the cluster's pages (what a wrapper would save for a streaming check);
//! then the CPU time of both ways and of the pass alone, lol_html's bare
//! lexing and the scan's pass, best of `--reps`. `--show` lists the pages
//! whose region text differs.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use canopy::{Event, Settings};
use canopy_cluster::{path_hash, step_label, Signature};
use canopy_dom::{Deadline, Document, DomOptions};
use canopy_forest::{tolerant_form, ElementType, Pattern, Wrapper};
use canopy_ingest::{read_warc_split, IngestOptions, SplitItem};
use canopy_reuse::{containment, template_sketch, SavedWrappers, Thresholds};

/// A page a saved wrapper served.
struct Served<'a> {
    record_id: &'a str,
    html: &'a str,
    wrapper: usize,
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

    // Both ways, timed.
    let (mut tree_cpu, mut stream_cpu) = (Vec::new(), Vec::new());
    let (mut pass_cpu, mut floor_cpu, mut scan_cpu) = (Vec::new(), Vec::new(), Vec::new());
    let mut scans = Vec::new();
    let (mut trees, mut passes) = (Vec::new(), Vec::new());
    let pages = || served.iter().zip(&patterns);
    for _ in 0..reps.max(1) {
        trees = timed(&mut tree_cpu, || {
            pages()
                .map(|(page, pattern)| tree_way(page.html, pattern, options))
                .collect()
        });
        passes = timed(&mut stream_cpu, || {
            pages()
                .map(|(page, pattern)| stream_way(page.html, pattern, options))
                .collect()
        });
        timed(&mut pass_cpu, || {
            for (page, pattern) in pages() {
                std::hint::black_box(stream(page.html, pattern, options.max_depth).ok());
            }
        });
        timed(&mut floor_cpu, || {
            served.iter().for_each(|p| lol_html_floor(p.html))
        });
        scans = timed(&mut scan_cpu, || {
            pages()
                .map(|(page, pattern)| stream_scan(page.html, pattern, options.max_depth))
                .collect()
        });
    }

    // The stream's own template: a sketch of the stream's paths of the
    // cluster's pages, as a wrapper learnt from them would save.
    let mut stream_sigs: BTreeMap<usize, Vec<&Signature>> = BTreeMap::new();
    for (page, pass) in served.iter().zip(&passes) {
        if let Ok((_, _, sig, _)) = pass {
            stream_sigs.entry(page.wrapper).or_default().push(sig);
        }
    }
    let stream_sketches: BTreeMap<usize, Vec<u64>> = stream_sigs
        .iter()
        .map(|(&w, sigs)| (w, template_sketch(sigs, saved.get(w).paths)))
        .collect();

    // The scan against the tree: the region's text and the template
    // decision.
    let thresholds = Thresholds::default();
    let (mut scan_followed, mut scan_same_text, mut scan_same_decision) = (0, 0, 0);
    let mut scan_full_path: BTreeMap<&'static str, usize> = BTreeMap::new();
    for ((page, tree), scanned) in served.iter().zip(&trees).zip(&scans) {
        let pass = match scanned {
            Ok(pass) => pass,
            Err(why) => {
                *scan_full_path.entry(why).or_default() += 1;
                continue;
            }
        };
        let wrapper = saved.get(page.wrapper);
        let fits = |sig: &Signature| {
            containment(&wrapper.sketch, wrapper.paths, sig) >= thresholds.page_containment
        };
        let text = region_text(page.html, &pass.regions, options);
        let sig = Signature::from_parts(pass.full.clone(), pass.own.clone());
        scan_followed += 1;
        scan_same_text += usize::from(text == tree.0);
        scan_same_decision += usize::from(fits(&sig) == fits(&tree.1));
        if show && text != tree.0 {
            println!("scan differs: {}", page.record_id);
        }
    }
    let mut count = Counts::default();
    for ((page, tree), pass) in served.iter().zip(&trees).zip(&passes) {
        let wrapper = saved.get(page.wrapper);
        let fits = |sketch: &[u64], sig: &Signature| {
            containment(sketch, wrapper.paths, sig) >= thresholds.page_containment
        };
        let (regions, _, stream_sig, stream_text) = match pass {
            Ok(found) => found,
            Err(why) => {
                *count.full_path.entry(why).or_default() += 1;
                continue;
            }
        };
        let (tree_text, tree_sig) = tree;
        let same_text = stream_text == tree_text;
        count.followed += 1;
        count.same_text += usize::from(same_text);
        count.same_signature += usize::from(stream_sig == tree_sig);
        count.tree_fits += usize::from(fits(&wrapper.sketch, tree_sig));
        count.same_decision +=
            usize::from(fits(&wrapper.sketch, stream_sig) == fits(&wrapper.sketch, tree_sig));
        count.fits_stream_template +=
            usize::from(fits(&stream_sketches[&page.wrapper], stream_sig));
        if show && !same_text {
            println!(
                "differs: {} {} ({} regions): tree {} chars, stream {}",
                page.record_id,
                wrapper.record.cluster,
                regions,
                tree_text.len(),
                stream_text.len()
            );
        }
    }
    let needing: usize = count.full_path.values().sum();
    println!(
        "{}: {} pages served by a wrapper; the stream follows {}, {} need the full path {:?}",
        warc.display(),
        served.len(),
        count.followed,
        needing,
        count.full_path
    );
    println!(
        "of those the stream follows: the tree's region text {}, the tree's signature {}, the tree's template decision {} (the tree fits {} to the saved template), fit the stream's own template {}",
        count.same_text, count.same_signature, count.same_decision, count.tree_fits, count.fits_stream_template
    );
    let bytes: usize = served.iter().map(|p| p.html.len()).sum();
    let region_bytes: usize = passes
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .map(|found| found.1)
        .sum();
    let per_page = |t: &[Duration]| {
        let best = t.iter().min().copied().unwrap_or_default();
        best.as_secs_f64() * 1e6 / served.len().max(1) as f64
    };
    println!(
        "CPU, best of {reps}: the tree (parse, wrapper, signature) {:.0} µs/page; the stream (pass, region parse) {:.0} µs/page; regions {:.1} % of the bytes",
        per_page(&tree_cpu),
        per_page(&stream_cpu),
        100.0 * region_bytes as f64 / bytes.max(1) as f64
    );
    println!(
        "of which the pass {:.0} µs/page; lol_html with a handler on every element that does nothing {:.0} µs/page",
        per_page(&pass_cpu),
        per_page(&floor_cpu)
    );
    println!(
        "the pass driven by a scan of Canopy's own: {:.0} µs/page; it follows {} pages ({:?}), of which the tree's region text {}, the tree's template decision {}",
        per_page(&scan_cpu),
        scan_followed,
        scan_full_path,
        scan_same_text,
        scan_same_decision
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
    fits_stream_template: usize,
}

/// The selection's text and the page's signature, from the whole tree.
#[inline(never)]
fn tree_way(html: &str, pattern: &Pattern, options: &DomOptions) -> (String, Signature) {
    let doc = Document::parse_within(html, options, Deadline::after(None))
        .expect("a page the run parsed");
    let wrapper = Wrapper {
        pattern: pattern.clone(),
        relevance: 0.0,
        dfs: Vec::new(),
    };
    let text: Vec<String> = wrapper
        .apply(&doc)
        .into_iter()
        .map(|n| doc.inner_text(n))
        .collect();
    (collapse(&text.join(" ")), Signature::of(&doc))
}

/// The number of regions, their bytes, the stream's signature and the
/// regions' text.
#[inline(never)]
fn stream_way(
    html: &str,
    pattern: &Pattern,
    options: &DomOptions,
) -> Result<(usize, usize, Signature, String), &'static str> {
    let pass = stream(html, pattern, options.max_depth)?;
    let text = region_text(html, &pass.regions, options);
    Ok((
        pass.regions.len(),
        pass.regions.iter().map(ExactSizeIterator::len).sum(),
        Signature::from_parts(pass.full, pass.own),
        text,
    ))
}

/// The text of an html5ever parse of each region alone, joined.
fn region_text(html: &str, regions: &[Range<usize>], options: &DomOptions) -> String {
    let text: Vec<String> = regions
        .iter()
        .map(|r| {
            let region = Document::parse_within(
                html.get(r.clone()).unwrap_or(""),
                options,
                Deadline::after(None),
            )
            .expect("a region of a page the run parsed");
            region.inner_text(region.body())
        })
        .collect();
    collapse(&text.join(" "))
}

/// A tag [`scan`] found: a start tag (its attributes and where it starts)
/// or an end tag (its byte range), with its lowercase name.
enum Tag<'t, 'a> {
    Start(&'t str, &'t Attrs<'a>, usize),
    End(&'t str, Range<usize>),
}

/// Elements whose content is text to the tokenizer, not markup (with
/// scripting on, as Canopy parses): the scan skips to their end tag.
fn raw_text(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
            | "plaintext"
    )
}

fn is_void(tag: &str) -> bool {
    matches!(
        tag,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "basefont"
            | "bgsound"
            | "frame"
            | "keygen"
            | "image"
    )
}

/// A scan of `html`'s tags for the stream (a study of what a pass of
/// Canopy's own would cost beside lol_html's): `<` found with memchr,
/// comments, doctypes and processing instructions skipped, raw-text
/// elements skipped to their end tag, names lowercased, attribute values
/// borrowed (unquoted, single- or double-quoted).
fn scan<'a>(html: &'a str, mut on: impl FnMut(Tag<'_, 'a>)) {
    let bytes = html.as_bytes();
    let mut at = 0;
    let mut attrs = Attrs::default();
    while let Some(lt) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + lt;
        let rest = &bytes[start + 1..];
        match rest.first() {
            Some(b'!') => {
                at = if rest.starts_with(b"!--") {
                    memchr::memmem::find(&bytes[start + 4..], b"-->")
                        .map_or(bytes.len(), |e| start + 4 + e + 3)
                } else {
                    memchr::memchr(b'>', rest).map_or(bytes.len(), |e| start + 1 + e + 1)
                };
            }
            Some(b'?') => {
                at = memchr::memchr(b'>', rest).map_or(bytes.len(), |e| start + 1 + e + 1);
            }
            Some(b'/') if rest.get(1).is_some_and(u8::is_ascii_alphabetic) => {
                let name_end = name_end(bytes, start + 2);
                let end = memchr::memchr(b'>', &bytes[name_end..])
                    .map_or(bytes.len(), |e| name_end + e + 1);
                let name = html
                    .get(start + 2..name_end)
                    .unwrap_or("")
                    .to_ascii_lowercase();
                on(Tag::End(&name, start..end));
                at = end;
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let name_end = name_end(bytes, start + 1);
                let name = html
                    .get(start + 1..name_end)
                    .unwrap_or("")
                    .to_ascii_lowercase();
                attrs.all.clear();
                let end = read_attrs(html, name_end, &mut attrs);
                on(Tag::Start(&name, &attrs, start));
                at = end;
                if raw_text(&name) {
                    // To `</name`, case ignored.
                    let mut from = at;
                    loop {
                        let Some(e) = memchr::memmem::find(&bytes[from..], b"</") else {
                            at = bytes.len();
                            break;
                        };
                        let close = from + e;
                        let candidate = bytes.get(close + 2..close + 2 + name.len());
                        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes())) {
                            at = close;
                            break;
                        }
                        from = close + 2;
                    }
                }
            }
            _ => at = start + 1,
        }
        if at >= bytes.len() {
            break;
        }
    }
}

fn name_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'))
        .map_or(bytes.len(), |p| from + p)
}

/// Reads a start tag's attributes from `at` to its `>`; returns the offset
/// after the `>`.
fn read_attrs<'a>(html: &'a str, mut at: usize, attrs: &mut Attrs<'a>) -> usize {
    let bytes = html.as_bytes();
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= bytes.len() {
            return bytes.len();
        }
        if bytes[at] == b'>' {
            return at + 1;
        }
        let name_start = at;
        at += 1;
        while at < bytes.len()
            && !(bytes[at].is_ascii_whitespace() || matches!(bytes[at], b'>' | b'/' | b'='))
        {
            at += 1;
        }
        let name = html.get(name_start..at).unwrap_or("");
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let mut value = "";
        if bytes.get(at) == Some(&b'=') {
            at += 1;
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            match bytes.get(at) {
                Some(&q) if q == b'"' || q == b'\'' => {
                    let end =
                        memchr::memchr(q, &bytes[at + 1..]).map_or(bytes.len(), |e| at + 1 + e);
                    value = html.get(at + 1..end).unwrap_or("");
                    at = (end + 1).min(bytes.len());
                }
                _ => {
                    let start = at;
                    while at < bytes.len()
                        && !(bytes[at].is_ascii_whitespace() || bytes[at] == b'>')
                    {
                        at += 1;
                    }
                    value = html.get(start..at).unwrap_or("");
                }
            }
        }
        attrs.all.push((name, value));
    }
}

/// The stream's pass driven by [`scan`] instead of lol_html: an end tag
/// closes the innermost open element of its name (lol_html's rule).
fn stream_scan(html: &str, pattern: &Pattern, max_depth: u32) -> Result<Pass, &'static str> {
    if matches!(pattern.ty, ElementType::Dfs { .. }) {
        return Err("a dfs-typed pattern");
    }
    let mut state = State::new(pattern, max_depth, html.len());
    scan(html, |tag| match tag {
        Tag::Start(name, attrs, at) => {
            if let Some(id) = state.start_tag(name, attrs, at) {
                if is_void(name) {
                    state.pop_to(id, at, at);
                }
            }
        }
        // `</body>` and `</html>` close nothing: what follows them is the
        // body's (and lol_html is given no handler for them).
        Tag::End("body" | "html" | "head", _) => {}
        Tag::End(name, range) => {
            if let Some(id) = state
                .stack
                .iter()
                .rev()
                .find(|o| o.tag == name)
                .map(|o| o.id)
            {
                state.end_tag(id, range.start, range.end);
            }
        }
    });
    state.finish(html.len())
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

/// What the stream found.
struct Pass {
    regions: Vec<Range<usize>>,
    full: Vec<u64>,
    own: Vec<u64>,
}

/// An open element of the stream's stack.
struct Open {
    id: u32,
    tag: String,
    level: u32,
    /// Its index in `State::elements`, or `NONE` (`<html>`, the head).
    element: u32,
    /// Not in the tree: a dropped tag or a hidden element, or inside one.
    dropped: bool,
    /// Whether it has the type of the pattern's anchor (`Anchored`).
    anchor: bool,
    /// Start offset, when it is a match of the pattern.
    region: Option<usize>,
}

struct State {
    pattern: Pattern,
    max_depth: u32,
    stack: Vec<Open>,
    next_id: u32,
    in_body: bool,
    open_matches: usize,
    regions: Vec<Range<usize>>,
    /// Every element of the body's tree, in document order: its parent's
    /// index and the range of its step label in `labels`, and where its
    /// tag ends in it. Hashed into paths at the end, once `<body>`'s label
    /// is known (a later `<body>` tag gives the body its attributes).
    elements: Vec<Element>,
    labels: String,
    unusual: Option<&'static str>,
}

const NONE: u32 = u32::MAX;

struct Element {
    parent: u32,
    label: Range<u32>,
    tag_end: u32,
}

/// The attributes of a start tag the stream reads, borrowed from the page.
#[derive(Default)]
struct Attrs<'a> {
    all: Vec<(&'a str, &'a str)>,
}

impl<'a> Attrs<'a> {
    fn get(&self, name: &str) -> Option<&'a str> {
        self.all
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, v)| v)
    }

    /// Whether a browser would not render it (`canopy_dom`'s rule).
    fn hidden(&self) -> bool {
        self.all.iter().any(|&(name, value)| {
            if name.eq_ignore_ascii_case("hidden") {
                true
            } else if name.eq_ignore_ascii_case("aria-hidden") {
                value.trim().eq_ignore_ascii_case("true")
            } else if name.eq_ignore_ascii_case("style") {
                let style: String = value
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .flat_map(char::to_lowercase)
                    .collect();
                style.contains("display:none") || style.contains("visibility:hidden")
            } else {
                false
            }
        })
    }

    /// Whether they hold every attribute of an `Attrs` type.
    fn have(&self, want: &[(String, String)]) -> bool {
        want.iter()
            .all(|(name, value)| self.get(name).is_some_and(|v| tolerant_form(v) == *value))
    }
}

fn stream(html: &str, pattern: &Pattern, max_depth: u32) -> Result<Pass, &'static str> {
    use lol_html::{element, end_tag, HtmlRewriter, Settings};
    if matches!(pattern.ty, ElementType::Dfs { .. }) {
        return Err("a dfs-typed pattern");
    }
    let state = Rc::new(RefCell::new(State::new(pattern, max_depth, html.len())));
    let handler_state = Rc::clone(&state);
    let mut attrs: Attrs = Attrs::default();
    let settings = Settings::new().append_element_content_handler(element!("*", move |el| {
        let tag = el.tag_name();
        let at = el.source_location().bytes().start;
        attrs.all.clear();
        for a in el.attributes() {
            let Some(name) = a.name_source_location() else {
                continue;
            };
            let value = a
                .value_source_location()
                .map_or("", |v| html.get(v.bytes()).unwrap_or(""));
            attrs
                .all
                .push((html.get(name.bytes()).unwrap_or(""), value));
        }
        let id = handler_state.borrow_mut().start_tag(&tag, &attrs, at);
        if let Some(id) = id {
            if el.can_have_content() {
                let end_state = Rc::clone(&handler_state);
                el.on_end_tag(end_tag!(move |end| {
                    let range = end.source_location().bytes();
                    end_state.borrow_mut().end_tag(id, range.start, range.end);
                    Ok(())
                }))?;
            } else {
                handler_state.borrow_mut().pop_to(id, at, at);
            }
        }
        Ok(())
    }));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter
        .write(html.as_bytes())
        .map_err(|_| "a lol_html error")?;
    rewriter.end().map_err(|_| "a lol_html error")?;
    let mut s = state.borrow_mut();
    s.finish(html.len())
}

fn in_head(tag: &str) -> bool {
    matches!(
        tag,
        "base"
            | "link"
            | "meta"
            | "title"
            | "script"
            | "style"
            | "noscript"
            | "template"
            | "head"
            | "html"
            | "basefont"
            | "bgsound"
    )
}

/// Start tags that close an open `<p>` (in button scope).
fn closes_p(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "center"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "header"
            | "hgroup"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "search"
            | "section"
            | "summary"
            | "ul"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "listing"
            | "form"
            | "plaintext"
            | "table"
            | "hr"
            | "xmp"
            | "li"
            | "dd"
            | "dt"
    )
}

/// The HTML standard's special elements.
fn is_special(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "applet"
            | "area"
            | "article"
            | "aside"
            | "base"
            | "basefont"
            | "bgsound"
            | "blockquote"
            | "body"
            | "br"
            | "button"
            | "caption"
            | "center"
            | "col"
            | "colgroup"
            | "dd"
            | "details"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "embed"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frame"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "iframe"
            | "img"
            | "input"
            | "keygen"
            | "li"
            | "link"
            | "listing"
            | "main"
            | "marquee"
            | "menu"
            | "meta"
            | "nav"
            | "noembed"
            | "noframes"
            | "noscript"
            | "object"
            | "ol"
            | "p"
            | "param"
            | "plaintext"
            | "pre"
            | "script"
            | "search"
            | "section"
            | "select"
            | "source"
            | "style"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "template"
            | "textarea"
            | "tfoot"
            | "th"
            | "thead"
            | "title"
            | "tr"
            | "track"
            | "ul"
            | "wbr"
            | "xmp"
    )
}

fn is_formatting(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// `canopy_dom`'s tags dropped with their subtree.
fn is_dropped(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "iframe"
            | "object"
            | "embed"
            | "canvas"
            | "svg"
            | "math"
            | "select"
            | "datalist"
            | "rt"
            | "rp"
    )
}

fn button_scope(tag: &str) -> bool {
    matches!(
        tag,
        "applet"
            | "caption"
            | "html"
            | "table"
            | "td"
            | "th"
            | "marquee"
            | "object"
            | "template"
            | "button"
    )
}

fn in_table(tag: &str) -> bool {
    matches!(tag, "table" | "tbody" | "thead" | "tfoot" | "tr")
}

impl State {
    fn new(pattern: &Pattern, max_depth: u32, len: usize) -> State {
        State {
            // lol_html's end-tag handlers, which reach the state, must be
            // `'static`: the state holds its own copy.
            pattern: pattern.clone(),
            max_depth,
            stack: vec![Open {
                id: NONE,
                tag: "html".into(),
                level: 0,
                element: NONE,
                dropped: false,
                anchor: false,
                region: None,
            }],
            next_id: 0,
            in_body: false,
            open_matches: 0,
            regions: Vec::new(),
            elements: Vec::with_capacity(len / 64),
            labels: String::with_capacity(len / 4),
            unusual: None,
        }
    }

    /// Closes what is still open at the page's end (`len`); what the pass
    /// found, or why the page needs the full path.
    fn finish(&mut self, len: usize) -> Result<Pass, &'static str> {
        while self.stack.len() > 1 {
            self.pop(len);
        }
        if let Some(why) = self.unusual {
            return Err(why);
        }
        let (full, own) = self.paths();
        Ok(Pass {
            regions: std::mem::take(&mut self.regions),
            full,
            own,
        })
    }

    /// A start tag: the stack's implied closes, then the element pushed
    /// (its id returned), or `None` for a tag the tree ignores.
    fn start_tag(&mut self, tag: &str, attrs: &Attrs, at: usize) -> Option<u32> {
        if !self.in_body {
            // In the head, what a `<noscript>` (raw text to the tree, with
            // scripting on) or a `<template>` holds is not the body's.
            let head_raw = self.stack.last().is_some_and(|o| o.dropped);
            if tag != "body" && (in_head(tag) || head_raw) {
                if tag == "html" || tag == "head" {
                    return None;
                }
                return Some(self.push_unseen(tag));
            }
            self.in_body = true;
            while self.stack.len() > 1 {
                self.stack.pop();
            }
            let body_attrs = if tag == "body" {
                attrs
            } else {
                &Attrs::default()
            };
            self.push("body", body_attrs, at);
            if tag == "body" {
                return None;
            }
        } else if matches!(tag, "html" | "head" | "frameset") {
            return None;
        } else if tag == "body" {
            // The tree gives `<body>` the attributes it lacks.
            if let Some(body) = self.elements.first_mut() {
                if body.label.len() == "body".len() {
                    let start = self.labels.len() as u32;
                    step_label(
                        "body",
                        attrs.get("id"),
                        attrs.get("class"),
                        &mut self.labels,
                    );
                    body.label = start..self.labels.len() as u32;
                    body.tag_end = start + 4;
                }
            }
            return None;
        }
        if tag == "a" {
            // The adoption agency for an `<a>` left open: with no block
            // opened inside it, it only closes it.
            if let Some(i) = self.stack.iter().rposition(|o| o.tag == "a") {
                if self.stack[i + 1..]
                    .iter()
                    .any(|o| is_special(&o.tag) && !o.dropped)
                {
                    self.unusual = Some("an <a> left open around a block");
                } else {
                    while self.stack.len() > i {
                        self.pop(at);
                    }
                }
            }
        }
        if in_table(self.top()) && tag == "form" {
            // A form in a table is an empty element of the table.
            let id = self.push(tag, attrs, at);
            self.pop_to(id, at, at);
            return None;
        }
        if closes_p(tag) && self.in_scope("p", button_scope) {
            self.close("p", at);
        }
        match tag {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                if matches!(self.top(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
                    self.pop(at);
                }
            }
            "li" => self.close_list_item(|t| t == "li", at),
            "dd" | "dt" => self.close_list_item(|t| matches!(t, "dd" | "dt"), at),
            "option" | "optgroup" if self.top() == "option" => self.pop(at),
            "td" | "th" => {
                let table_scope = |t: &str| matches!(t, "table" | "html" | "template");
                if self.in_scope("td", table_scope) {
                    self.close("td", at);
                } else if self.in_scope("th", table_scope) {
                    self.close("th", at);
                }
                if matches!(self.top(), "table" | "tbody" | "thead" | "tfoot") {
                    if self.top() == "table" {
                        self.push("tbody", &Attrs::default(), at);
                    }
                    self.push("tr", &Attrs::default(), at);
                }
            }
            "tr" => {
                while matches!(self.top(), "td" | "th" | "tr") {
                    self.pop(at);
                }
                if self.top() == "table" {
                    self.push("tbody", &Attrs::default(), at);
                }
            }
            "tbody" | "thead" | "tfoot" => {
                while matches!(self.top(), "td" | "th" | "tr" | "tbody" | "thead" | "tfoot") {
                    self.pop(at);
                }
            }
            _ => {}
        }
        if self.stack.len() as u32 > self.max_depth {
            self.unusual = Some("nesting past the tree's depth cap");
        }
        Some(self.push(tag, attrs, at))
    }

    /// The full and own-label path hashes of the body's elements
    /// (`Signature::of`).
    fn paths(&self) -> (Vec<u64>, Vec<u64>) {
        let mut full = Vec::with_capacity(self.elements.len());
        let mut tags = Vec::with_capacity(self.elements.len());
        let mut own = Vec::with_capacity(self.elements.len());
        for e in &self.elements {
            let label = self
                .labels
                .get(e.label.start as usize..e.label.end as usize)
                .unwrap_or("");
            let tag = self
                .labels
                .get(e.label.start as usize..e.tag_end as usize)
                .unwrap_or("");
            // `<body>`'s paths start from nothing.
            let (parent_path, parent_tags) = match e.parent {
                NONE => (0, 0),
                p => (full[p as usize], tags[p as usize]),
            };
            full.push(path_hash(parent_path, label));
            tags.push(path_hash(parent_tags, tag));
            own.push(path_hash(parent_tags, label));
        }
        (full, own)
    }

    /// An element of the head, never in the body's tree.
    fn push_unseen(&mut self, tag: &str) -> u32 {
        self.next_id += 1;
        self.stack.push(Open {
            id: self.next_id,
            tag: tag.to_string(),
            level: 1,
            element: NONE,
            dropped: true,
            anchor: false,
            region: None,
        });
        self.next_id
    }

    fn close_list_item(&mut self, item: impl Fn(&str) -> bool, at: usize) {
        for i in (0..self.stack.len()).rev() {
            let tag = self.stack[i].tag.as_str();
            if item(tag) {
                while self.stack.len() > i {
                    self.pop(at);
                }
                return;
            }
            if is_special(tag) && !matches!(tag, "address" | "div" | "p") {
                return;
            }
        }
    }

    fn top(&self) -> &str {
        self.stack.last().map_or("", |o| o.tag.as_str())
    }

    fn in_scope(&self, tag: &str, scope: impl Fn(&str) -> bool) -> bool {
        for o in self.stack.iter().rev() {
            if o.tag == tag {
                return true;
            }
            if scope(&o.tag) {
                return false;
            }
        }
        false
    }

    /// Pops up to and including the innermost open `tag`.
    fn close(&mut self, tag: &str, at: usize) {
        while let Some(o) = self.stack.last() {
            let done = o.tag == tag;
            self.pop(at);
            if done {
                break;
            }
        }
    }

    fn push(&mut self, tag: &str, attrs: &Attrs, at: usize) -> u32 {
        let top = self.stack.len() - 1;
        let table_content = matches!(
            tag,
            "caption"
                | "colgroup"
                | "col"
                | "tbody"
                | "thead"
                | "tfoot"
                | "tr"
                | "td"
                | "th"
                | "table"
                | "style"
                | "script"
                | "template"
        ) || (tag == "input"
            && attrs
                .get("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("hidden")));
        // Content straight in a table goes before it (foster parenting).
        let parent_at = if in_table(&self.stack[top].tag) && !table_content {
            self.stack
                .iter()
                .rposition(|o| o.tag == "table")
                .map_or(top, |t| t.saturating_sub(1))
        } else {
            top
        };
        let parent = &self.stack[parent_at];
        let level = parent.level + u32::from(parent.tag != "tbody");
        let dropped = parent.dropped || is_dropped(tag) || attrs.hidden();
        let (mut element, mut anchor, mut region) = (NONE, false, None);
        if !dropped {
            let start = self.labels.len() as u32;
            step_label(tag, attrs.get("id"), attrs.get("class"), &mut self.labels);
            element = self.elements.len() as u32;
            self.elements.push(Element {
                parent: parent.element,
                label: start..self.labels.len() as u32,
                tag_end: start + tag.len() as u32,
            });
            let (is_match, is_anchor) = self.types(tag, attrs, level, parent_at);
            anchor = is_anchor;
            if is_match && self.open_matches == 0 {
                region = Some(at);
                self.open_matches += 1;
            }
        }
        self.next_id += 1;
        self.stack.push(Open {
            id: self.next_id,
            tag: tag.to_string(),
            level,
            element,
            dropped,
            anchor,
            region,
        });
        self.next_id
    }

    /// Whether an element is a match of the pattern, and whether it has
    /// the type of the pattern's anchor.
    fn types(&self, tag: &str, attrs: &Attrs, level: u32, parent_at: usize) -> (bool, bool) {
        match &self.pattern.ty {
            ElementType::Attrs {
                tag: want,
                attrs: want_attrs,
            } => (
                level == self.pattern.level && tag == want && attrs.have(want_attrs),
                false,
            ),
            ElementType::Dfs { .. } => (false, false),
            ElementType::Anchored { anchor, path } => {
                let is_anchor = match anchor.as_deref() {
                    Some(ElementType::Attrs {
                        tag: want,
                        attrs: want_attrs,
                    }) => tag == want && attrs.have(want_attrs),
                    Some(_) => false,
                    None => tag == "body",
                };
                let is_match = level == self.pattern.level
                    && path.last().is_some_and(|own| own == tag)
                    && level
                        .checked_sub(path.len() as u32)
                        .is_some_and(|anchor_level| {
                            self.stack[..=parent_at]
                                .iter()
                                .any(|o| o.anchor && o.level == anchor_level && o.tag != "tbody")
                        });
                (is_match, is_anchor && tag != "tbody")
            }
        }
    }

    fn pop(&mut self, end: usize) {
        if let Some(o) = self.stack.pop() {
            if let Some(start) = o.region {
                self.regions.push(start..end);
                self.open_matches -= 1;
            }
        }
    }

    /// Pops up to and including element `id`, which ends at `end`; what
    /// it holds still open ends at `at`.
    fn pop_to(&mut self, id: u32, at: usize, end: usize) {
        let Some(i) = self.stack.iter().rposition(|o| o.id == id) else {
            return;
        };
        while self.stack.len() > i + 1 {
            self.pop(at);
        }
        self.pop(end);
    }

    /// An end tag lol_html matched to element `id` (its innermost open
    /// element of that name).
    fn end_tag(&mut self, id: u32, start: usize, end: usize) {
        let Some(i) = self.stack.iter().rposition(|o| o.id == id) else {
            // Closed already by an implied close.
            return;
        };
        let tag = self.stack[i].tag.as_str();
        let block_inside = self.stack[i + 1..]
            .iter()
            .any(|o| is_special(&o.tag) && !o.dropped);
        if block_inside {
            if is_formatting(tag) {
                self.unusual = Some("a formatting element closed around a block");
                return;
            }
            if !is_special(tag) {
                // The tree ignores this end tag; lol_html has closed what is
                // inside, whose own end tags it will no longer match.
                self.unusual = Some("an end tag the tree ignores");
                return;
            }
        }
        self.pop_to(id, start, end);
    }
}
