//! What a parsed page costs on disk and to read back, against parsing its
//! HTML again (docs/performance.md, "Memory"): every `.html` file of a
//! folder is parsed, encoded ([`Document::encode`]), LZ4-compressed,
//! decompressed and decoded, each step timed over the whole folder.
//!
//! ```sh
//! cargo run --release -p canopy-dom --example codec_cost -- ../shared/corpora/dragnet/html
//! ```

use std::time::{Duration, Instant};

use canopy_dom::{Document, DomOptions};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: codec_cost <folder of .html files>");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("a readable folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    paths.sort();
    let pages: Vec<String> = paths
        .iter()
        .map(|p| String::from_utf8_lossy(&std::fs::read(p).expect("readable")).into_owned())
        .collect();
    let options = DomOptions::default();
    let [mut parse, mut encode, mut compress, mut inflate, mut decode] = [Duration::ZERO; 5];
    let (mut html, mut encoded, mut compressed) = (0, 0, 0);
    let (mut bytes, mut block, mut inflated) = (Vec::new(), Vec::new(), Vec::new());
    for page in &pages {
        // Each step's output is dropped before the next page, as in a run.
        let start = Instant::now();
        let doc = Document::parse(page, &options);
        parse += start.elapsed();

        bytes.clear();
        let start = Instant::now();
        doc.encode(&mut bytes);
        encode += start.elapsed();

        block.resize(lz4_flex::block::get_maximum_output_size(bytes.len()), 0);
        let start = Instant::now();
        let n = lz4_flex::block::compress_into(&bytes, &mut block).expect("room for the block");
        compress += start.elapsed();

        inflated.resize(bytes.len(), 0);
        let start = Instant::now();
        lz4_flex::block::decompress_into(&block[..n], &mut inflated).expect("the block just made");
        inflate += start.elapsed();

        let start = Instant::now();
        let back = Document::decode(&inflated).expect("the bytes just encoded");
        decode += start.elapsed();
        assert_eq!(back.len(), doc.len());

        html += page.len();
        encoded += bytes.len();
        compressed += n;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let share = |n: usize| 100.0 * n as f64 / html as f64;
    println!(
        "{} pages, {:.1} MB of HTML; encoded {:.1} MB ({:.0} %), LZ4 {:.1} MB ({:.0} %)",
        pages.len(),
        html as f64 / 1e6,
        encoded as f64 / 1e6,
        share(encoded),
        compressed as f64 / 1e6,
        share(compressed)
    );
    println!(
        "parse {:.0} ms; written: encode {:.0} ms, LZ4 {:.0} ms; read back: LZ4 {:.0} ms, \
         decode {:.0} ms ({:.1} % of the parse)",
        ms(parse),
        ms(encode),
        ms(compress),
        ms(inflate),
        ms(decode),
        100.0 * (inflate + decode).as_secs_f64() / parse.as_secs_f64()
    );
}
