//! Extracts every site of a WARC file in process, as `canopy run` would,
//! and prints one line per site.
//!
//! ```text
//! cargo run --release -p canopy --example site -- data/warc/warcfile.warc.gz
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use canopy::{Event, PageRecord, Settings};

fn main() -> Result<(), canopy::Error> {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: site FILE.warc.gz");
        std::process::exit(2);
    };
    let settings = Settings::default();
    let mut sites: BTreeMap<String, Vec<PageRecord>> = BTreeMap::new();
    for event in canopy::read_warc(&path, &settings)? {
        match event {
            Event::Page(page) => sites
                .entry(canopy::site_key(&page.url))
                .or_default()
                .push(page),
            Event::Reject(reject) => eprintln!("rejected: {}", reject.reason),
            Event::Feed { .. } => {}
        }
    }
    for (site, pages) in sites {
        let result = canopy::extract_site(pages, &settings)?;
        let by_wrapper = result
            .articles
            .iter()
            .filter(|a| a.wrapper.is_some())
            .count();
        println!(
            "{site}: {} articles, {by_wrapper} by {} wrappers",
            result.articles.len(),
            result.wrappers.len()
        );
    }
    Ok(())
}
