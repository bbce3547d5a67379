//! `canopy page`: one page's article, as trafilatura's command line gives
//! it. The page goes through the site path as a site of one page, so it
//! gets exactly what a single-page site of a crawl gets (the page-level
//! extractor, cleaned as the fallback is, with the shipped prior).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use canopy::{Format, Method, PageMethod};
use canopy_ingest::Fetched;

/// What `canopy page` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PageFormat {
    /// The article's text (its title first).
    Text,
    /// The article as Markdown.
    Markdown,
    /// The article as clean HTML.
    Html,
    /// One line of `articles.jsonl`: text, title, metadata.
    Json,
}

#[derive(clap::Args)]
pub struct PageArgs {
    /// An HTML file, an http(s) URL, or `-` for standard input.
    #[arg(default_value = "-")]
    input: String,
    /// The page's URL, for a file or standard input (the base of its links,
    /// its site); an http(s) input is its own URL.
    #[arg(long)]
    url: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value = "text")]
    format: PageFormat,
    /// A page-level method (default: page, Canopy's own).
    #[arg(long, default_value = "page")]
    method: PageMethod,
    /// Settings file overlaid on configs/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// Exit 0 with the article printed, 1 when the page gave none (the reason
/// on stderr), 2 when it could not be read or the flags are wrong.
pub fn command(args: PageArgs) -> anyhow::Result<ExitCode> {
    let out = match extract(&args)? {
        Ok(out) => out,
        Err(reason) => {
            eprintln!("canopy: no article: {reason}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`| head`) is not the page's fault.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write the article")
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The printed article, or why the page gave none.
fn extract(args: &PageArgs) -> anyhow::Result<Result<String, String>> {
    let formats: &[Format] = match args.format {
        PageFormat::Html => &[Format::Html],
        PageFormat::Markdown => &[Format::Markdown],
        PageFormat::Text | PageFormat::Json => &[],
    };
    let method = Method::Page(args.method);
    let (config, method) = crate::settings::resolve_settings(
        args.config.as_deref(),
        None,
        None,
        Some(1),
        method,
        formats,
    )?;
    let (page, url) = read_input(args, config.ingest.max_page_bytes)?;
    let mut record = match canopy::page_record(&url, &page.bytes, page.content_type.as_deref()) {
        Ok(record) => record,
        Err(reject) => return Ok(Err(reject.reason)),
    };
    record.content_language = page.content_language;
    record.source.file.clone_from(&args.input);
    let article = match canopy::extract_page(record, &canopy::Settings::new(config, method)) {
        Ok(article) => article,
        Err(reject) => return Ok(Err(reject.reason.clone())),
    };
    let mut printed = match args.format {
        PageFormat::Text => article.text,
        PageFormat::Markdown => article.markdown.unwrap_or_default(),
        PageFormat::Html => article.html.unwrap_or_default(),
        PageFormat::Json => serde_json::to_string(&article)?,
    };
    if !printed.ends_with('\n') {
        printed.push('\n');
    }
    Ok(Ok(printed))
}

/// The page (with its `Content-Type` and `Content-Language` if it came
/// over http) and its URL.
fn read_input(args: &PageArgs, max_bytes: usize) -> anyhow::Result<(Fetched, String)> {
    let input = args.input.as_str();
    if canopy_ingest::is_remote(input) {
        let page =
            canopy_ingest::fetch(input, &canopy_ingest::RemoteOptions::default(), max_bytes)?;
        let url = args.url.clone().unwrap_or_else(|| input.to_string());
        return Ok((page, url));
    }
    let mut bytes = Vec::new();
    let read = if input == canopy::inputs::STDIN {
        std::io::stdin()
            .lock()
            .take(max_bytes as u64 + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(input)
            .and_then(|f| f.take(max_bytes as u64 + 1).read_to_end(&mut bytes))
    };
    read.with_context(|| format!("cannot read {input}"))?;
    anyhow::ensure!(
        bytes.len() <= max_bytes,
        "{input} is larger than ingest.max_page_bytes ({max_bytes} bytes)"
    );
    let url = match &args.url {
        Some(url) => url.clone(),
        None if input == canopy::inputs::STDIN => String::new(),
        None => url::Url::from_file_path(std::path::absolute(input)?)
            .map_or_else(|()| String::new(), String::from),
    };
    let page = Fetched {
        bytes,
        content_type: None,
        content_language: None,
    };
    Ok((page, url))
}
