//! Groups pages by site, then by template inside a site.
//!
//! - [`site_key`]: the host, lowercased, without a leading `www.` or `m.`
//!   (so `www.bbc.co.uk` and `m.bbc.co.uk` are one site) and without port.
//! - [`Signature`]: a page's structure, as the set of its tag paths, each
//!   step of a path written `tag#id.class` with id and class in tolerant
//!   form (first token, digits dropped), hashed with a stable hash
//!   ([`path_hash`]: xxHash64, seed 0), so signatures can be saved to disk
//!   and compared with tonight's pages by any later build.
//! - [`group_templates`]: average-linkage agglomerative clustering of a
//!   site's pages by the Jaccard similarity of their signatures, merging
//!   while the best pair of groups is at least `threshold` similar.

use std::hash::Hasher;

use canopy_dom::{Document, NodeData};

/// The site a URL belongs to: lowercase host without `www.`/`m.` and port.
/// URLs without a host (or unparsable ones) form the site `""`.
pub fn site_key(url: &str) -> String {
    let host = url::Url::parse(url.trim())
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default();
    let host = host.trim_end_matches('.');
    host.strip_prefix("www.")
        .or_else(|| host.strip_prefix("m."))
        .unwrap_or(host)
        .to_string()
}

/// The hash of a tag path: xxHash64 (seed 0) of the parent path's hash
/// (8 bytes, little endian; 0 for `<body>`) followed by the step label's
/// UTF-8 bytes. xxHash64 is a fixed, published algorithm, so the value does
/// not depend on the Rust version or the build, unlike `DefaultHasher`:
/// saved wrappers (`docs/wrappers.md`) keep their template signatures.
pub fn path_hash(parent: u64, label: &str) -> u64 {
    let mut h = twox_hash::XxHash64::with_seed(0);
    h.write(&parent.to_le_bytes());
    h.write(label.as_bytes());
    h.finish()
}

/// A page's structure: the sorted, distinct hashes of its tag paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signature(Vec<u64>);

/// `tag#id.class`, id and class in tolerant form.
fn step_label(tag: &str, id: Option<&str>, class: Option<&str>, out: &mut String) {
    out.clear();
    out.push_str(tag);
    let tolerant = |v: &str| -> String {
        v.split_whitespace()
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect()
    };
    if let Some(id) = id {
        out.push('#');
        out.push_str(&tolerant(id));
    }
    if let Some(class) = class {
        out.push('.');
        out.push_str(&tolerant(class));
    }
}

impl Signature {
    /// The signature of a page's `<body>`.
    pub fn of(doc: &Document) -> Signature {
        let body = doc.body();
        let end = doc.node(body).end;
        // Path hash of each element, indexed relative to body.
        let mut paths = vec![0u64; end - body];
        let mut label = String::new();
        let mut hashes = Vec::new();
        for n in body..end {
            let NodeData::Element(e) = &doc.node(n).data else {
                continue;
            };
            step_label(&e.tag, doc.attr(n, "id"), doc.attr(n, "class"), &mut label);
            let parent = doc
                .node(n)
                .parent
                .filter(|&p| p >= body)
                .map_or(0, |p| paths[p - body]);
            let hash = path_hash(parent, &label);
            paths[n - body] = hash;
            hashes.push(hash);
        }
        hashes.sort_unstable();
        hashes.dedup();
        Signature(hashes)
    }

    /// Builds a signature from raw hashes (tests, saved wrappers).
    pub fn from_hashes(mut hashes: Vec<u64>) -> Signature {
        hashes.sort_unstable();
        hashes.dedup();
        Signature(hashes)
    }

    /// Jaccard similarity of two signatures (1 for two empty ones).
    pub fn jaccard(&self, other: &Signature) -> f64 {
        let (a, b) = (&self.0, &other.0);
        if a.is_empty() && b.is_empty() {
            return 1.0;
        }
        let (mut i, mut j, mut common) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    common += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        common as f64 / (a.len() + b.len() - common) as f64
    }

    /// The hashes.
    pub fn hashes(&self) -> &[u64] {
        &self.0
    }
}

/// Groups pages by template: returns, for each page, the index of its group.
/// Groups are numbered by their first page, so the result depends only on
/// the order of `pages`.
pub fn group_templates(pages: &[Signature], threshold: f64) -> Vec<usize> {
    let n = pages.len();
    let mut sim = vec![0.0f64; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let s = pages[i].jaccard(&pages[j]);
            sim[i * n + j] = s;
            sim[j * n + i] = s;
        }
    }
    // Average linkage: groups as lists of members; merge the best pair.
    let mut groups: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    loop {
        let mut best: Option<(f64, usize, usize)> = None;
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                let mut total = 0.0;
                for &i in &groups[a] {
                    for &j in &groups[b] {
                        total += sim[i * n + j];
                    }
                }
                let avg = total / (groups[a].len() * groups[b].len()) as f64;
                if best.is_none_or(|(s, _, _)| avg > s) {
                    best = Some((avg, a, b));
                }
            }
        }
        match best {
            Some((s, a, b)) if s >= threshold => {
                let merged = groups.remove(b);
                groups[a].extend(merged);
            }
            _ => break,
        }
    }
    let mut label = vec![0; n];
    let mut order: Vec<(usize, &Vec<usize>)> = groups
        .iter()
        .map(|g| (*g.iter().min().unwrap_or(&0), g))
        .collect();
    order.sort();
    for (k, (_, g)) in order.iter().enumerate() {
        for &i in *g {
            label[i] = k;
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    #[test]
    fn site_keys_drop_www_m_port_and_case() {
        assert_eq!(site_key("http://www.BBC.co.uk:8080/news/1"), "bbc.co.uk");
        assert_eq!(site_key("https://m.example.com/"), "example.com");
        assert_eq!(site_key("https://blog.example.com/x"), "blog.example.com");
        assert_eq!(site_key("not a url"), "");
    }

    fn sig(html: &str) -> Signature {
        Signature::of(&Document::parse(html, &DomOptions::default()))
    }

    #[test]
    fn jaccard_of_tag_path_sets() {
        let a = sig("<body><div class='post x1'><p>a</p></div></body>");
        let b = sig("<body><div class='post x2'><p>b</p><p>c</p></div></body>");
        let c = sig("<body><table><tr><td>a</td></tr></table></body>");
        assert_eq!(
            a.jaccard(&b),
            1.0,
            "tolerant classes and repeated paths collapse"
        );
        // body, table, tbody, tr, td vs body, div, p: only body is shared.
        assert!((a.jaccard(&c) - 1.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn path_hashes_are_stable_xxhash64() {
        // The reference xxHash64 of the empty input with seed 0.
        let mut h = twox_hash::XxHash64::with_seed(0);
        h.write(b"");
        assert_eq!(h.finish(), 0xef46_db37_51d8_e999);
        // Pinned values: a change here invalidates every saved signature
        // (bump the wrappers format version, docs/wrappers.md).
        assert_eq!(path_hash(0, "body"), {
            let mut h = twox_hash::XxHash64::with_seed(0);
            h.write(&[0; 8]);
            h.write(b"body");
            h.finish()
        });
        let s = sig("<body><div id=main><p>x</p></div></body>");
        let body = path_hash(0, "body");
        let div = path_hash(body, "div#main");
        let p = path_hash(div, "p");
        assert_eq!(s, Signature::from_hashes(vec![body, div, p]));
    }

    #[test]
    fn groups_split_two_layouts() {
        let pages = [
            sig("<body><div id=main><p>1</p></div></body>"),
            sig("<body><table><tr><td>2</td></tr></table></body>"),
            sig("<body><div id=main><p>3</p><ul><li>x</li></ul></div></body>"),
            sig("<body><table><tr><td>4</td><td>5</td></tr></table></body>"),
        ];
        assert_eq!(group_templates(&pages, 0.5), [0, 1, 0, 1]);
        assert_eq!(group_templates(&pages, 0.0), [0, 0, 0, 0]);
    }
}
