//! The parse wall (docs/performance.md, "The parse wall"): what each step
//! of reading and parsing a WARC's pages costs on one thread, against the
//! whole `canopy run --threads 1` of the same file, and what a streaming
//! pass over the same bytes (lol_html, html5gum) would cost instead.
//!
//! ```sh
//! cargo build --release -p canopy-cli
//! cargo build --release -p canopy --example parse_wall --features parse-wall   # Linux
//! taskset -c 0 target/release/examples/parse_wall ../shared/corpora/dragnet/dragnet.warc.gz \
//!     --reps 7 --canopy target/release/canopy --resiliparse scripts/peers/.venv/bin/python
//! ```
//!
//! Every step runs over the same pages, those `canopy run` reads (the
//! WARC's HTML responses, [`Event::Page`]), in file order, and each is
//! repeated `--reps` times; the table gives the best and the median
//! repetition of its CPU time and its best wall time. `--canopy BIN` also
//! times `BIN run FILE --out DIR --threads 1` as a child process, as many
//! times, for the share of a whole run;
//! `--resiliparse PYTHON` times resiliparse's main-content extraction of
//! the same pages as `scripts/bench.sh` does (`scripts/bench_peers.py run`
//! with that interpreter, the time inside its parse + extract calls), in
//! the same repetitions, so that load on a shared machine hits both alike.
//! The steps are functions of their own (`step_*`, never inlined), so that
//! a `valgrind --tool=callgrind` run with `--reps 1` gives each step's
//! instructions as that function's inclusive count.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use canopy::{Event, Settings};
use canopy_dom::{Deadline, Document, DomOptions};
use canopy_ingest::{read_warc_split, IngestOptions, Payload, SplitItem};
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer};
use html5ever::{local_name, TokenizerResult};

/// Bytes handed to html5ever at a time: `canopy_dom`'s `PARSE_SLICE`, so
/// that the tokenizer alone is fed as the whole parse is.
const PARSE_SLICE: usize = 16 << 10;

/// One step's times over the repetitions: CPU time (this thread's,
/// or a child's user + system time), which a loaded machine inflates far
/// less than wall time, and wall time.
struct Step {
    name: &'static str,
    cpu: Vec<Duration>,
    wall: Vec<Duration>,
}

impl Step {
    fn new(name: &'static str) -> Step {
        Step {
            name,
            cpu: Vec::new(),
            wall: Vec::new(),
        }
    }

    /// Runs `f` once, timed.
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (cpu, wall) = (thread_cpu(), Instant::now());
        let out = f();
        self.wall.push(wall.elapsed());
        self.cpu.push(thread_cpu().saturating_sub(cpu));
        out
    }

    fn best(&self) -> Duration {
        best(&self.cpu)
    }
}

fn best(times: &[Duration]) -> Duration {
    times.iter().copied().min().unwrap_or_default()
}

fn median(times: &[Duration]) -> Duration {
    let mut times = times.to_vec();
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// This thread's CPU time, to the nanosecond (`getrusage` counts a
/// running thread's time only up to its last scheduler tick).
fn thread_cpu() -> Duration {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("the thread's CPU clock");
    Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32)
}

/// User + system time of the children waited for so far.
fn children_cpu() -> Duration {
    cpu_of(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
}

fn cpu_of(who: nix::sys::resource::UsageWho) -> Duration {
    let usage = nix::sys::resource::getrusage(who).expect("getrusage");
    let micros = |t: nix::sys::time::TimeVal| t.tv_sec() as u64 * 1_000_000 + t.tv_usec() as u64;
    Duration::from_micros(micros(usage.user_time()) + micros(usage.system_time()))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut warc = None;
    let mut reps = 5usize;
    let mut canopy_bin: Option<PathBuf> = None;
    let mut python: Option<PathBuf> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--reps" => reps = args.next().and_then(|n| n.parse().ok()).expect("--reps N"),
            "--canopy" => canopy_bin = Some(args.next().expect("--canopy BIN").into()),
            "--resiliparse" => python = Some(args.next().expect("--resiliparse PYTHON").into()),
            _ => warc = Some(PathBuf::from(arg)),
        }
    }
    let warc = warc.expect("usage: parse_wall FILE.warc.gz [--reps N] [--canopy BIN]");
    let settings = Settings::default();
    let site = canopy_site::SiteSettings::new(&settings.config, settings.method)
        .expect("the default settings");
    let ingest = ingest_options(&settings);

    let mut read = Step::new("read + inflate the WARC (fastwarc, zlib-rs)");
    let mut decode = Step::new("decode the payloads (HTTP, charset → UTF-8)");
    let mut tokenize = Step::new("html5ever tokenizer alone (a sink that does nothing)");
    let mut parse =
        Step::new("html5ever tokenizer + tree builder + arena (`Document::parse_within`)");
    let mut lol_all = Step::new("lol_html, handlers on every element and text (`*`)");
    let mut lol_none = Step::new("lol_html, no handlers");
    let mut gum = Step::new("html5gum tokenizer, callbacks that do nothing");
    let mut run = Step::new("canopy run --threads 1 (whole process)");
    let mut resiliparse = Step::new("resiliparse, parse + main-content extraction");
    let mut pages = Vec::new();
    for _ in 0..reps {
        let payloads = read.time(|| step_read(&warc, &ingest));
        pages = decode.time(|| step_decode(payloads, &ingest));
        tokenize.time(|| step_tokenize(&pages));
        parse.time(|| step_parse(&pages, &site.dom, site.page_budget));
        lol_all.time(|| step_lol_html_all(&pages));
        lol_none.time(|| step_lol_html_none(&pages));
        gum.time(|| step_html5gum(&pages));
        if let Some(bin) = &canopy_bin {
            let (cpu, wall) = time_run(bin, &warc);
            run.cpu.push(cpu);
            run.wall.push(wall);
        }
        if let Some(python) = &python {
            let (cpu, wall) = time_resiliparse(python, &warc);
            resiliparse.cpu.push(cpu);
            resiliparse.wall.push(wall);
        }
    }

    let bytes: usize = pages.iter().map(String::len).sum();
    println!(
        "{}: {} pages, {:.1} MB of HTML (decoded to UTF-8), {} repetitions",
        warc.display(),
        pages.len(),
        bytes as f64 / 1e6,
        reps
    );
    println!();
    println!(
        "| step | CPU ms, best | CPU ms, median | wall ms, best | µs/page (CPU) | MB/s (CPU) | share of the run (CPU) |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|");
    let whole = (!run.cpu.is_empty()).then(|| run.best());
    let mut steps = vec![&read, &decode, &tokenize, &parse, &lol_all, &lol_none, &gum];
    if whole.is_some() {
        steps.push(&run);
    }
    if !resiliparse.cpu.is_empty() {
        steps.push(&resiliparse);
    }
    for step in steps {
        let best = step.best().as_secs_f64();
        let share = whole
            .map(|w| format!("{:.1} %", 100.0 * best / w.as_secs_f64()))
            .unwrap_or_else(|| "–".into());
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {} |",
            step.name,
            best * 1e3,
            median(&step.cpu).as_secs_f64() * 1e3,
            self::best(&step.wall).as_secs_f64() * 1e3,
            best * 1e6 / pages.len() as f64,
            bytes as f64 / 1e6 / best,
            share
        );
    }
    if !resiliparse.cpu.is_empty() {
        // Issue #40's target for pages served by a reused wrapper.
        println!();
        println!(
            "twice resiliparse's speed: {:.0} µs/page",
            resiliparse.best().as_secs_f64() * 1e6 / pages.len() as f64 / 2.0
        );
    }
}

/// The reading limits `canopy run` reads with (`records::ingest_options`),
/// inflating on this thread: on one thread, `canopy run`'s inflating in
/// segments on the pool does the same work.
fn ingest_options(settings: &Settings) -> IngestOptions {
    let ingest = &settings.config.ingest;
    IngestOptions {
        max_page_bytes: ingest.max_page_bytes,
        max_decoded_bytes: ingest.max_decoded_bytes,
        max_feed_bytes: ingest.max_feed_bytes,
        feed_budget: (settings.config.run.page_budget_ms > 0)
            .then(|| Duration::from_millis(settings.config.run.page_budget_ms)),
        ..IngestOptions::default()
    }
}

/// Step 1: every record read and inflated, its payload kept undecoded.
#[inline(never)]
fn step_read(warc: &Path, options: &IngestOptions) -> Vec<Payload> {
    let mut payloads = Vec::new();
    read_warc_split(warc, options, &mut |item| {
        if let SplitItem::Payload(payload) = item {
            payloads.push(payload);
        }
    })
    .expect("a readable WARC");
    payloads
}

/// Step 2: the payloads decoded as the partition decodes them (de-chunked,
/// content-decoded, classified, charset-decoded); the HTML of the pages.
#[inline(never)]
fn step_decode(payloads: Vec<Payload>, options: &IngestOptions) -> Vec<String> {
    payloads
        .into_iter()
        .filter_map(|payload| match payload.decode(options) {
            Ok(Event::Page(page)) => Some(page.html),
            _ => None,
        })
        .collect()
}

/// Step 3: html5ever's tokenizer with a sink that keeps nothing.
#[inline(never)]
fn step_tokenize(pages: &[String]) {
    for page in pages {
        let tokenizer = Tokenizer::new(NoSink, Default::default());
        let queue = BufferQueue::default();
        for slice in slices(page) {
            queue.push_back(slice.into());
            while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
        }
        tokenizer.end();
    }
}

/// Step 4: the parse a run does for each page (`canopy_site`'s pages:
/// `Document::parse_within` with the settings' limits and page budget).
#[inline(never)]
fn step_parse(pages: &[String], options: &DomOptions, budget: Option<Duration>) {
    for page in pages {
        let doc = Document::parse_within(page, options, Deadline::after(budget));
        std::hint::black_box(doc.map(|d| d.len()).unwrap_or(0));
    }
}

/// Step 6a: lol_html with a handler on every element and every text chunk
/// that does nothing, output thrown away: every tag and text is lexed.
#[inline(never)]
fn step_lol_html_all(pages: &[String]) {
    use lol_html::{element, text, HtmlRewriter, Settings};
    for page in pages {
        let settings = Settings::new()
            .append_element_content_handler(element!("*", |_el| Ok(())))
            .append_element_content_handler(text!("*", |_t| Ok(())));
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter.write(page.as_bytes()).expect("lol_html rewrites");
        rewriter.end().expect("lol_html ends");
    }
}

/// Step 6b: lol_html with no handlers (its tag scanner alone).
#[inline(never)]
fn step_lol_html_none(pages: &[String]) {
    use lol_html::{HtmlRewriter, Settings};
    for page in pages {
        let mut rewriter = HtmlRewriter::new(Settings::new(), |_: &[u8]| {});
        rewriter.write(page.as_bytes()).expect("lol_html rewrites");
        rewriter.end().expect("lol_html ends");
    }
}

/// Step 6c: html5gum's tokenizer (WHATWG, like html5ever's) with its
/// callback emitter (names, attributes and text borrowed, not allocated
/// per token) and a callback that does nothing; it switches into raw text
/// at `script`, `style`, ... by itself (`naively_switch_states`), as the
/// sink of step 3 does.
#[inline(never)]
fn step_html5gum(pages: &[String]) {
    use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
    use html5gum::{Span, Tokenizer};
    for page in pages {
        let mut emitter = CallbackEmitter::new(
            |_: CallbackEvent<'_>, _: Span<()>| -> Option<std::convert::Infallible> { None },
        );
        emitter.naively_switch_states(true);
        // The callback yields nothing: the iterator runs the tokenizer to
        // the end of the page and yields no token.
        std::hint::black_box(Tokenizer::new_with_emitter(page.as_str(), emitter).count());
    }
}

/// `bin run warc --out DIR --threads 1`, timed as a whole process: its
/// user + system time and its wall time.
fn time_run(bin: &Path, warc: &Path) -> (Duration, Duration) {
    let out = std::env::temp_dir().join(format!("parse_wall_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let (cpu, start) = (children_cpu(), Instant::now());
    let status = Command::new(bin)
        .arg("run")
        .arg(warc)
        .arg("--out")
        .arg(&out)
        .args(["--threads", "1"])
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("canopy runs");
    let took = (children_cpu().saturating_sub(cpu), start.elapsed());
    assert!(status.success(), "canopy run failed: {status}");
    let _ = std::fs::remove_dir_all(&out);
    took
}

/// resiliparse's parse + extract calls over the pages of the corpus
/// folder that holds `warc` (its `manifest.tsv` and `html/`), as
/// `scripts/bench.sh` times them: the process CPU time and the wall time
/// inside those calls.
fn time_resiliparse(python: &Path, warc: &Path) -> (Duration, Duration) {
    let corpus = warc.parent().expect("the WARC's corpus folder");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench_peers.py");
    let json = std::env::temp_dir().join(format!("parse_wall_{}.json", std::process::id()));
    let status = Command::new(python)
        .arg(script)
        .args(["run", "--tool", "resiliparse", "--corpus"])
        .arg(corpus)
        .arg("--json")
        .arg(&json)
        .status()
        .expect("python runs");
    assert!(status.success(), "bench_peers.py failed: {status}");
    let text = std::fs::read_to_string(&json).expect("bench_peers.py's JSON");
    let _ = std::fs::remove_file(&json);
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let seconds =
        |key: &str| Duration::from_secs_f64(value[key].as_f64().expect("a number of seconds"));
    (seconds("extract_cpu_seconds"), seconds("extract_seconds"))
}

/// `page` in slices of about [`PARSE_SLICE`] bytes, cut at characters.
fn slices(page: &str) -> impl Iterator<Item = &str> {
    let mut rest = page;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut cut = rest.len().min(PARSE_SLICE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (slice, tail) = rest.split_at(cut);
        rest = tail;
        Some(slice)
    })
}

/// A token sink that keeps nothing. It only switches the tokenizer into
/// the raw-text states at the start tags where html5ever's tree builder
/// does (`script`, `style`, `title`, ...: `tree_builder/rules.rs`, with
/// scripting on, as Canopy parses), so that a script's text is lexed as
/// text, as in the full parse, not as markup.
struct NoSink;

impl TokenSink for NoSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        // A self-closing flag does not stop a raw-text element in HTML.
        if tag.kind != TagKind::StartTag {
            return TokenSinkResult::Continue;
        }
        match tag.name {
            local_name!("title") | local_name!("textarea") => {
                TokenSinkResult::RawData(RawKind::Rcdata)
            }
            local_name!("style")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript") => TokenSinkResult::RawData(RawKind::Rawtext),
            local_name!("script") => TokenSinkResult::RawData(RawKind::ScriptData),
            local_name!("plaintext") => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}
