//! HTML files as pages: a folder saved by `wget -r` (`HOST/PATH`) or by a
//! fetcher that writes each page's URL beside it (`PAGE.html.url`).
//!
//! A page's URL decides its site and the base of its links, so a file
//! without one is a reject (stage `url`), not a page of an unknown site:
//!
//! 1. the first line of the sidecar file `NAME.url`, if there is one;
//! 2. else the path from the nearest folder named like a host name (a
//!    dot, and a last label of letters: `www.example.com`, not `v1.2`):
//!    `…/www.example.com/news/a.html` is `http://www.example.com/news/a.html`.

use std::io::Read;
use std::path::{Component, Path};

use canopy_ingest::IngestOptions;
use canopy_types::{PageRecord, Reject, SourceRef, Stage};

/// Whether `path` is named like an HTML page.
pub fn is_html_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.ends_with(".html") || name.ends_with(".htm")
}

/// The page of the HTML file at `path`, or why it is not one.
pub fn read_page(path: &Path, options: &IngestOptions) -> Result<PageRecord, Box<Reject>> {
    let name = path.display().to_string();
    let reject = |stage: Stage, reason: String| {
        Box::new(Reject {
            source: SourceRef {
                file: name.clone(),
                offset: None,
            },
            record_id: None,
            url: None,
            stage,
            reason,
        })
    };
    let url = url_of(path).ok_or_else(|| {
        reject(
            Stage::Url,
            "an HTML file without a URL: give it a sidecar NAME.url, or keep it under a \
             folder named like its host (HOST/PATH, as wget -r saves pages)"
                .into(),
        )
    })?;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| {
            f.take(options.max_page_bytes as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(|e| reject(Stage::Input, format!("cannot read: {e}")))?;
    if bytes.len() > options.max_page_bytes {
        return Err(reject(
            Stage::Http,
            format!("larger than {} bytes", options.max_page_bytes),
        ));
    }
    canopy_ingest::page_record(url.clone(), format!("<{url}>"), name, &bytes, None)
}

/// The URL of the page saved at `path` (module documentation).
fn url_of(path: &Path) -> Option<String> {
    let mut sidecar = path.as_os_str().to_owned();
    sidecar.push(".url");
    if let Ok(text) = std::fs::read_to_string(&sidecar) {
        let line = text.lines().next().unwrap_or("").trim();
        return canopy_ingest::is_remote(line).then(|| line.to_string());
    }
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let host = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .rposition(|p| looks_like_host(p))?;
    let url = format!("http://{}", parts.get(host..)?.join("/"));
    url::Url::parse(&url).ok().map(String::from)
}

/// Whether a folder's name is a host name: labels of letters, digits and
/// hyphens, at least two, the last of letters only.
fn looks_like_host(name: &str) -> bool {
    let labels: Vec<&str> = name.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels
            .last()
            .is_some_and(|l| l.len() >= 2 && l.chars().all(|c| c.is_ascii_alphabetic()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_from_a_host_folder() {
        assert_eq!(
            url_of(Path::new("/data/mirror/www.example.com/news/a.html")).as_deref(),
            Some("http://www.example.com/news/a.html")
        );
        assert_eq!(url_of(Path::new("/data/v1.2/page.html")), None);
        assert_eq!(url_of(Path::new("/data/pages/page.html")), None);
        assert!(!looks_like_host("index.html.bak1"));
        assert!(looks_like_host("blog.example.co.uk"));
    }
}
