use canopy_dom::{Document, DomOptions};
use canopy_extract::{ble_ie_blocks, blockextractor};
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let html = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
    let doc = Document::parse(&html, &DomOptions::default());
    let nodes = blockextractor(&doc, &[]);
    println!("{} nodes", nodes.len());
    for n in &nodes {
        println!(
            "== {} <{}> {:?}",
            n,
            doc.tag(*n),
            doc.inner_text(*n).chars().take(200).collect::<String>()
        );
    }
    if std::env::args().nth(2).is_some() {
        for b in ble_ie_blocks(&doc) {
            let t: String = b
                .children
                .iter()
                .map(|&c| doc.inner_text(c))
                .collect::<Vec<_>>()
                .join(" | ");
            println!(
                "BLOCK root {} <{}> {:?}",
                b.root,
                doc.tag(b.root),
                t.chars().take(150).collect::<String>()
            );
        }
    }
}
