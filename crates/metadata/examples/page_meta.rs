//! The metadata of one HTML file, as `canopy run` reads it (without an
//! article selection): `cargo run --release -p canopy-metadata --example
//! page_meta -- page.html http://example.com/2012/07/02/story [WARC-Date]`.

use canopy_dom::{Document, DomOptions};
use canopy_metadata::{base_url, Capture, PageMeta};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(path), Some(url)) = (args.first(), args.get(1)) else {
        eprintln!("usage: page_meta <file.html> <url> [warc-date]");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).expect("readable file");
    let doc = Document::parse(&String::from_utf8_lossy(&bytes), &DomOptions::default());
    let capture = Capture {
        url: Some(url),
        warc_date: args.get(2).map(String::as_str),
    };
    let meta = PageMeta::extract(&doc, base_url(&doc, url).as_ref(), &[], &capture);
    println!("{meta:#?}");
}
