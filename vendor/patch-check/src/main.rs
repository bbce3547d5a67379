//! Canopy's patched crates against the releases they patch, on the same
//! inputs:
//!
//! - html5ever: every input's token stream, from 0.40.1 as published and
//!   from the patched copy (adjacent character tokens joined: the patch may
//!   cut text differently, never change it). Each input fed whole, in
//!   16 KiB slices (as `canopy_dom` feeds it) and in slices of 1 to 7 bytes
//!   (runs cut at every place), and so are generated pages of names,
//!   quotes, NULs, CRs, upper case, non-ASCII and broken markup. And the
//!   tree each build's tree builder makes of every input (`tree.rs`), fed
//!   whole, in 16 KiB slices and in slices of 7 bytes.
//! - whatlang: `detect` (language, script, confidence to the bit,
//!   reliability) on samples of every input's text (its first 1024 and
//!   2000 characters, as Canopy samples, and pieces of 20 to 600
//!   characters across it), and on generated mixes of words of many
//!   languages and scripts.
//!
//!     patch-check FILE_OR_FOLDER...   every .html file, as UTF-8 (lossy)
//!
//! Exit 1 if any input differs, printing the first difference of each.

use std::path::Path;

macro_rules! recorder {
    ($name:ident, $h:ident) => {
        mod $name {
            use std::cell::RefCell;
            use $h::tendril::StrTendril;
            use $h::tokenizer::states::RawKind;
            use $h::tokenizer::{
                BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
            };

            #[derive(Default)]
            pub struct Rec {
                pub out: RefCell<Vec<String>>,
                text: RefCell<String>,
            }

            impl Rec {
                fn flush(&self) {
                    let mut text = self.text.borrow_mut();
                    if !text.is_empty() {
                        self.out.borrow_mut().push(format!("text {:?}", *text));
                        text.clear();
                    }
                }
            }

            impl TokenSink for Rec {
                type Handle = ();
                fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<()> {
                    match token {
                        Token::CharacterTokens(t) => self.text.borrow_mut().push_str(&t),
                        Token::NullCharacterToken => self.text.borrow_mut().push('\0'),
                        Token::TagToken(tag) => {
                            self.flush();
                            // Switch to raw text where a tree builder would.
                            let raw = match &*tag.name {
                                _ if tag.kind != TagKind::StartTag => None,
                                "script" => Some(RawKind::ScriptData),
                                "title" | "textarea" => Some(RawKind::Rcdata),
                                "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                                    Some(RawKind::Rawtext)
                                }
                                _ => None,
                            };
                            self.out.borrow_mut().push(format!(
                                "tag {:?} {} {:?} {} line {line}",
                                tag.kind,
                                &*tag.name,
                                tag.attrs
                                    .iter()
                                    .map(|a| (a.name.local.to_string(), a.value.to_string()))
                                    .collect::<Vec<_>>(),
                                tag.self_closing
                            ));
                            if let Some(kind) = raw {
                                return TokenSinkResult::RawData(kind);
                            }
                        }
                        Token::CommentToken(c) => {
                            self.flush();
                            self.out
                                .borrow_mut()
                                .push(format!("comment {:?}", c.as_ref()));
                        }
                        Token::DoctypeToken(d) => {
                            self.flush();
                            self.out.borrow_mut().push(format!("doctype {:?}", d.name));
                        }
                        Token::ParseError(e) => {
                            self.flush();
                            self.out.borrow_mut().push(format!("error {e}"));
                        }
                        Token::EOFToken => {
                            self.flush();
                            self.out.borrow_mut().push(format!("eof line {line}"));
                        }
                    }
                    TokenSinkResult::Continue
                }
            }

            pub fn tokens(html: &str, slice: usize) -> Vec<String> {
                let tok = Tokenizer::new(Rec::default(), TokenizerOpts::default());
                let queue = BufferQueue::default();
                let mut rest = html;
                while !rest.is_empty() {
                    let mut n = slice.min(rest.len());
                    while !rest.is_char_boundary(n) {
                        n += 1;
                    }
                    queue.push_back(StrTendril::from_slice(&rest[..n]));
                    let _ = tok.feed(&queue);
                    rest = &rest[n..];
                }
                tok.end();
                let sink = tok.sink;
                sink.flush();
                sink.out.into_inner()
            }
        }
    };
}

recorder!(up, upstream);
recorder!(pa, patched);

mod tree;

/// The tree `$h` builds of `html`, fed in slices of `slice` bytes, written
/// out ([`tree::Tree::written`]).
macro_rules! tree_of {
    ($name:ident, $h:ident) => {
        fn $name(html: &str, slice: usize) -> Vec<String> {
            use $h::tendril::{StrTendril, TendrilSink};
            let mut parser = $h::parse_document(tree::Tree::new(), Default::default());
            let mut rest = html;
            while !rest.is_empty() {
                let mut n = slice.min(rest.len());
                while !rest.is_char_boundary(n) {
                    n += 1;
                }
                parser.process(StrTendril::from_slice(&rest[..n]));
                rest = &rest[n..];
            }
            parser.finish().written()
        }
    };
}

tree_of!(up_tree, upstream);
tree_of!(pa_tree, patched);

/// The text of a page: its character tokens, joined.
fn text_of(html: &str) -> String {
    up::tokens(html, usize::MAX)
        .iter()
        .filter_map(|t| t.strip_prefix("text "))
        .filter_map(|t| t.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Both builds of whatlang agree on every sample of `text`.
fn check_lang(name: &str, text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut samples: Vec<String> = vec![
        chars.iter().take(1024).collect(),
        chars.iter().take(2000).collect(),
    ];
    for len in [20, 60, 200, 600] {
        let mut start = 0;
        while start < chars.len() {
            samples.push(
                chars[start..(start + len).min(chars.len())]
                    .iter()
                    .collect(),
            );
            start += 977;
        }
    }
    for s in &samples {
        let a = whatlang_upstream::detect(s).map(|i| {
            (
                format!("{:?} {:?}", i.lang(), i.script()),
                i.confidence().to_bits(),
                i.is_reliable(),
            )
        });
        let b = whatlang_patched::detect(s).map(|i| {
            (
                format!("{:?} {:?}", i.lang(), i.script()),
                i.confidence().to_bits(),
                i.is_reliable(),
            )
        });
        if a != b {
            eprintln!("{name}: whatlang differs on {s:?}");
            eprintln!("  upstream: {a:?}");
            eprintln!("  patched:  {b:?}");
            return false;
        }
    }
    true
}

/// A text of words of many languages and scripts, at random.
fn generated_text(rng: &mut fastrand::Rng) -> String {
    const WORDS: &[&str] = &[
        "the",
        "and",
        "of",
        "der",
        "und",
        "die",
        "le",
        "la",
        "et",
        "de",
        "el",
        "los",
        "que",
        "il",
        "che",
        "di",
        "och",
        "att",
        "het",
        "een",
        "ja",
        "się",
        "nie",
        "és",
        "a",
        "ve",
        "bir",
        "și",
        "în",
        "и",
        "в",
        "не",
        "на",
        "що",
        "і",
        "да",
        "у",
        "και",
        "το",
        "του",
        "في",
        "من",
        "على",
        "که",
        "را",
        "और",
        "के",
        "है",
        "का",
        "में",
        "של",
        "את",
        "הוא",
        "日本語",
        "中文",
        "한국어",
        "ไทย",
        "ქართული",
        "հայերեն",
        "ng",
        "sa",
        "na",
        "ang",
        "Straße",
        "naïve",
        "façade",
        "żółć",
        "čšž",
        "ñ",
        "ü",
        "ø",
        "å",
        "42",
        "!",
        ",",
        ".",
    ];
    let n = rng.usize(1..300);
    (0..n)
        .map(|_| WORDS[rng.usize(..WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

fn check(name: &str, html: &str) -> bool {
    for slice in [usize::MAX, 16 * 1024, 1, 2, 3, 5, 7] {
        let (a, b) = (up::tokens(html, slice), pa::tokens(html, slice));
        if a != b {
            let i = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            eprintln!("{name} (slices of {slice} bytes): token {i} differs");
            eprintln!("  upstream: {:?}", a.get(i));
            eprintln!("  patched:  {:?}", b.get(i));
            return false;
        }
    }
    for slice in [usize::MAX, 16 * 1024, 7] {
        let (a, b) = (up_tree(html, slice), pa_tree(html, slice));
        if a != b {
            let i = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            eprintln!("{name} (slices of {slice} bytes): tree line {i} differs");
            eprintln!("  upstream: {:?}", a.get(i));
            eprintln!("  patched:  {:?}", b.get(i));
            return false;
        }
    }
    true
}

/// A page of the pieces the patch treats apart, at random.
fn generated(rng: &mut fastrand::Rng) -> String {
    const PIECES: &[&str] = &[
        "<",
        ">",
        "</",
        "/>",
        "<DIV",
        "<div",
        " CLASS=",
        "class=",
        "=",
        "\"",
        "'",
        "\0",
        "\r",
        "\r\n",
        "\n",
        "\t",
        "\x0C",
        " ",
        "&amp;",
        "&",
        "é",
        "中",
        "<p",
        "<a href=x",
        "data-X",
        "<!--",
        "-->",
        "<!DOCTYPE html>",
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<title>",
        "</title>",
        "<textarea>",
        "</textarea>",
        "<pre>",
        "\npre",
        "<Svg",
        "<math",
        "xlink:href",
        "aB",
        "Zz9",
        "-",
        "_",
        ":",
        ".",
        "?",
        "!",
        "`",
        "<tr",
        "<td",
        "<table>",
    ];
    let n = rng.usize(1..400);
    (0..n).map(|_| PIECES[rng.usize(..PIECES.len())]).collect()
}

/// A page of tags with many attributes (up to 3 × `DUPLICATE_SCAN_MAX`
/// of the patch and more), drawn from a few names in both cases so that
/// duplicates come before, at and after the point where the patch starts
/// keeping a tag's names in a set.
fn wide_tags(rng: &mut fastrand::Rng) -> String {
    const NAMES: &[&str] = &[
        "a", "B", "c", "id", "Class", "x-y", "data-k", "href", "é", "z",
    ];
    let mut page = String::new();
    for _ in 0..rng.usize(1..6) {
        page.push_str(if rng.bool() { "<div" } else { "</P" });
        for _ in 0..rng.usize(0..60) {
            page.push(' ');
            page.push_str(NAMES[rng.usize(..NAMES.len())]);
            if rng.bool() {
                page.push_str(&rng.usize(..40).to_string());
            }
            match rng.usize(..3) {
                0 => {}
                1 => page.push_str("=v"),
                _ => page.push_str("=\"q\""),
            }
        }
        page.push_str(if rng.bool() { ">text" } else { "/>" });
    }
    page
}

/// A page of tags written as pages write them, with each part drawn from
/// its usual forms and a few unusual ones (upper case, newlines, form
/// feeds, CRs, NULs, character references, quotes and backticks where
/// they are errors, duplicates, end tags with attributes, `/>`), so that
/// the patch's whole-tag path (`plain_tag`) takes most tags and hands the
/// others back to the states at every kind of place.
fn plain_tags(rng: &mut fastrand::Rng) -> String {
    const NAMES: &[&str] = &["div", "A", "span", "img", "Br", "p", "svg", "x-y", "td"];
    const ATTRS: &[&str] = &["class", "ID", "href", "data-x", "src", "alt", "class", "on:click"];
    const SPACES: &[&str] = &[" ", " ", " ", "  ", "\n", "\n  ", "\t", "\x0C", "\r\n", ""];
    const VALUES: &[&str] = &[
        "x", "a b", "", "/path/to?q=1", "é中", "line\nbreak", "a&amp;b", "a&b", "\0", "x\ry",
        "q\"", "it's", "`", "<", "=", "a/",
    ];
    let mut page = String::new();
    for _ in 0..rng.usize(1..40) {
        page.push('<');
        if rng.usize(..4) == 0 {
            page.push('/');
        }
        page.push_str(NAMES[rng.usize(..NAMES.len())]);
        for _ in 0..rng.usize(0..5) {
            page.push_str(SPACES[rng.usize(..SPACES.len())]);
            page.push_str(ATTRS[rng.usize(..ATTRS.len())]);
            if rng.usize(..5) == 0 {
                continue;
            }
            page.push_str(SPACES[rng.usize(..SPACES.len())].trim_start_matches(' '));
            page.push('=');
            if rng.usize(..6) == 0 {
                page.push_str(SPACES[rng.usize(..SPACES.len())]);
            }
            let value = VALUES[rng.usize(..VALUES.len())];
            match rng.usize(..4) {
                0 => page.push_str(value),
                1 => {
                    page.push('\'');
                    page.push_str(value);
                    page.push('\'');
                }
                _ => {
                    page.push('"');
                    page.push_str(value);
                    page.push('"');
                }
            }
        }
        page.push_str(SPACES[rng.usize(..SPACES.len())]);
        page.push_str(match rng.usize(..8) {
            0 => "/>",
            1 => "/ >",
            _ => ">",
        });
        page.push_str(match rng.usize(..4) {
            0 => "text",
            1 => "\n",
            _ => "",
        });
    }
    page
}

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        collect(Path::new(&arg), &mut files);
    }
    files.sort();
    let mut failed = 0;
    for f in &files {
        let bytes = std::fs::read(f).expect("readable input");
        let html = String::from_utf8_lossy(&bytes);
        let name = f.display().to_string();
        if !check(&name, &html) || !check_lang(&name, &text_of(&html)) {
            failed += 1;
        }
    }
    let mut rng = fastrand::Rng::with_seed(40);
    let generated_pages = 20_000;
    for i in 0..generated_pages {
        if !check(&format!("generated page {i}"), &generated(&mut rng)) {
            failed += 1;
        }
        if !check_lang(&format!("generated text {i}"), &generated_text(&mut rng)) {
            failed += 1;
        }
    }
    let wide_pages = 2_000;
    for i in 0..wide_pages {
        if !check(&format!("page of wide tags {i}"), &wide_tags(&mut rng)) {
            failed += 1;
        }
    }
    let tag_pages = 20_000;
    for i in 0..tag_pages {
        if !check(&format!("page of tags {i}"), &plain_tags(&mut rng)) {
            failed += 1;
        }
    }
    println!(
        "{} files, {generated_pages} generated pages and texts, {wide_pages} pages of wide tags and {tag_pages} of tags as pages write them (tokens: each page fed whole and in slices of 16 KiB and 1, 2, 3, 5, 7 bytes; trees: whole, 16 KiB and 7 bytes; languages: samples of each text): {failed} that differ",
        files.len()
    );
    std::process::exit(i32::from(failed > 0));
}

fn collect(path: &Path, files: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("readable folder") {
            collect(&entry.expect("folder entry").path(), files);
        }
    } else if path.extension().is_some_and(|e| e == "html" || e == "htm") {
        files.push(path.to_path_buf());
    }
}
