//! Groups pages by site, then by template inside a site.
//!
//! - [`site_key`]: the host, lowercased, without a leading `www.` or `m.`
//!   (so `www.bbc.co.uk` and `m.bbc.co.uk` are one site) and without port;
//!   [`page_site`]: the same for a page, or why its URL names no site.
//! - [`Signature`]: a page's structure, as the set of its tag paths, each
//!   step of a path written `tag#id.class` with id and class in tolerant
//!   form (first token, digits dropped), hashed with a stable hash
//!   ([`path_hash`]: xxHash64, seed 0), so signatures can be saved to disk
//!   and compared with tonight's pages by any later build; and the same
//!   paths with the ancestors by tag alone (see [`Signature::similarity`]).
//! - [`group_templates`]: average-linkage agglomerative clustering of a
//!   site's pages by [`Signature::similarity`], merging while the best pair
//!   of groups is at least `threshold` similar. Quadratic in memory and
//!   cubic in time, so [`group_site_templates`] runs it on a sample of at
//!   most `max_sample` pages of a large site and assigns the other pages to
//!   the groups found, reading the signatures through [`SignatureSource`] a
//!   chunk at a time (a site too large to hold them keeps them in a file).

use std::borrow::{Borrow, Cow};
use std::io;

use canopy_dom::{local_name, Document, NodeData};
use rayon::prelude::*;

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

/// The site of a page at `url` ([`site_key`]), or why the URL names no web
/// site. A page belongs to a site only when its URL is `http` or `https`
/// with a host: a record with no `WARC-Target-URI`, or with a `file:`,
/// `javascript:`, `data:` or unparsable one, would otherwise join every
/// other such record in one site `""` and be clustered, learned and
/// extracted as its pages.
pub fn page_site(url: &str) -> Result<String, String> {
    let url = url.trim();
    if url.is_empty() {
        return Err("no URL (WARC-Target-URI missing or empty)".into());
    }
    let parsed = url::Url::parse(url).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "not a web page's URL: scheme {:?}, not http or https",
            parsed.scheme()
        ));
    }
    let site = site_key(url);
    if site.is_empty() {
        return Err("the URL's host names no site".into());
    }
    Ok(site)
}

/// The hash of a tag path: xxHash64 (seed 0) of the parent path's hash
/// (8 bytes, little endian; 0 for `<body>`) followed by the step label's
/// UTF-8 bytes. xxHash64 is a fixed, published algorithm, so the value does
/// not depend on the Rust version or the build, unlike `DefaultHasher`:
/// saved wrappers (`docs/wrappers.md`) keep their template signatures.
pub fn path_hash(parent: u64, label: &str) -> u64 {
    // One call over the parent's bytes and the label together: the same
    // hash as writing them one after the other, without the streaming
    // hasher's buffer (labels are short; a long one takes the heap).
    let mut short = [0u8; 64];
    let len = 8 + label.len();
    let mut long = Vec::new();
    let bytes: &mut [u8] = if len <= short.len() {
        &mut short[..len]
    } else {
        long.resize(len, 0);
        &mut long
    };
    bytes[..8].copy_from_slice(&parent.to_le_bytes());
    bytes[8..].copy_from_slice(label.as_bytes());
    twox_hash::XxHash64::oneshot(0, bytes)
}

/// A page's structure, seen two ways: the sorted, distinct hashes of its
/// tag paths with every step's id and class (`full`), and of its paths with
/// only the last step's (`own`: ancestors by tag alone). The second view
/// exists because one section class high up (`div.education` vs
/// `div.sport` around the same layout) makes every full path below it
/// differ between two pages of one template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signature {
    full: Vec<u64>,
    own: Vec<u64>,
}

/// Appends an element's step label to `out`: `tag#id.class`, id and class
/// in tolerant form (their first token, digits removed). A tag path's hash
/// ([`path_hash`]) is over these labels.
pub fn step_label(tag: &str, id: Option<&str>, class: Option<&str>, out: &mut String) {
    out.push_str(tag);
    // The first token, without its digits.
    let tolerant = |v: &str, out: &mut String| {
        let token = v.split_whitespace().next().unwrap_or("");
        out.extend(token.chars().filter(|c| !c.is_ascii_digit()));
    };
    if let Some(id) = id {
        out.push('#');
        tolerant(id, out);
    }
    if let Some(class) = class {
        out.push('.');
        tolerant(class, out);
    }
}

impl Signature {
    /// The signature of a page's `<body>`.
    pub fn of(doc: &Document) -> Signature {
        let body = doc.body();
        let end = doc.node(body).end;
        // Full path hash and bare tag path hash of each element, indexed
        // relative to body.
        let mut paths = vec![0u64; end - body];
        let mut tag_paths = vec![0u64; end - body];
        let mut label = String::new();
        let mut full = Vec::new();
        let mut own = Vec::new();
        for n in body..end {
            let NodeData::Element(e) = &doc.node(n).data else {
                continue;
            };
            label.clear();
            step_label(
                &e.tag,
                doc.attr_named(n, &local_name!("id")),
                doc.attr_named(n, &local_name!("class")),
                &mut label,
            );
            let parent = doc.node(n).parent.filter(|&p| p >= body);
            let (parent_path, parent_tags) =
                parent.map_or((0, 0), |p| (paths[p - body], tag_paths[p - body]));
            paths[n - body] = path_hash(parent_path, &label);
            tag_paths[n - body] = path_hash(parent_tags, &e.tag);
            full.push(paths[n - body]);
            own.push(path_hash(parent_tags, &label));
        }
        Signature {
            full: sorted_set(full),
            own: sorted_set(own),
        }
    }

    /// A signature from its two views' hashes, computed elsewhere (a
    /// streaming pass over the page's tags).
    pub fn from_parts(full: Vec<u64>, own: Vec<u64>) -> Signature {
        Signature {
            full: sorted_set(full),
            own: sorted_set(own),
        }
    }

    /// Builds a signature from raw full-path hashes (tests, saved wrappers).
    pub fn from_hashes(hashes: Vec<u64>) -> Signature {
        let full = sorted_set(hashes);
        Signature {
            own: full.clone(),
            full,
        }
    }

    /// How similar two pages' structures are: the Jaccard similarity of
    /// their full paths or of their own-label paths, whichever is higher
    /// (two pages share a template if either view says so).
    pub fn similarity(&self, other: &Signature) -> f64 {
        jaccard(&self.full, &other.full).max(jaccard(&self.own, &other.own))
    }

    /// Jaccard similarity of the full tag paths (1 for two empty ones).
    pub fn jaccard(&self, other: &Signature) -> f64 {
        jaccard(&self.full, &other.full)
    }

    /// The full-path hashes (what a saved template sketch holds).
    pub fn hashes(&self) -> &[u64] {
        &self.full
    }

    /// The own-label path hashes: each element's ancestors as bare tags,
    /// then its own label (what a sketch holds for a template whose pages
    /// share no full path, `canopy_reuse::TemplatePaths::Own`).
    pub fn own_hashes(&self) -> &[u64] {
        &self.own
    }

    /// Appends the signature's bytes to `out`, for [`Signature::decode`]:
    /// the two set sizes (u32), then the hashes (u64), little endian.
    pub fn encode(&self, out: &mut Vec<u8>) {
        for set in [&self.full, &self.own] {
            out.extend_from_slice(&(set.len() as u32).to_le_bytes());
        }
        for h in self.full.iter().chain(&self.own) {
            out.extend_from_slice(&h.to_le_bytes());
        }
    }

    /// The signature [`Signature::encode`] wrote as `bytes`; `None` when
    /// they are not one.
    pub fn decode(bytes: &[u8]) -> Option<Signature> {
        let len = |at: usize| -> Option<usize> {
            let b = bytes.get(at..at + 4)?;
            Some(u32::from_le_bytes(b.try_into().ok()?) as usize)
        };
        let (full, own) = (len(0)?, len(4)?);
        let hashes = bytes.get(8..)?;
        if hashes.len() != (full + own) * 8 {
            return None;
        }
        let mut words = hashes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
        Some(Signature {
            full: words.by_ref().take(full).collect(),
            own: words.collect(),
        })
    }
}

/// Where [`group_site_templates`] reads a site's signatures from: a slice
/// in memory, or (the pipeline's large sites) a file.
pub trait SignatureSource: Sync {
    /// How many pages the site has.
    fn len(&self) -> usize;

    /// Whether the site has no page.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The signatures of the pages at `indices`, in that order.
    fn load(&self, indices: &[usize]) -> io::Result<Vec<Cow<'_, Signature>>>;
}

impl SignatureSource for [Signature] {
    fn len(&self) -> usize {
        <[Signature]>::len(self)
    }

    fn load(&self, indices: &[usize]) -> io::Result<Vec<Cow<'_, Signature>>> {
        Ok(indices.iter().map(|&i| Cow::Borrowed(&self[i])).collect())
    }
}

fn sorted_set(mut hashes: Vec<u64>) -> Vec<u64> {
    hashes.sort_unstable();
    hashes.dedup();
    // A page's elements share a few hundred distinct paths; without this, a
    // signature keeps room for a hash per element, for every page of a site
    // (bench_memory.sh's 10 000-page site peaked at 243 MiB, 193 with it).
    hashes.shrink_to_fit();
    hashes
}

/// Jaccard similarity of two sorted hash sets (1 for two empty ones).
fn jaccard(a: &[u64], b: &[u64]) -> f64 {
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

/// Groups pages by template: returns, for each page, the index of its group.
/// Groups are numbered by their first page, so the result depends only on
/// the order of `pages`.
pub fn group_templates<S: Borrow<Signature>>(pages: &[S], threshold: f64) -> Vec<usize> {
    let n = pages.len();
    let mut sim = vec![0.0f64; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let s = pages[i].borrow().similarity(pages[j].borrow());
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
    for (k, g) in groups.iter().enumerate() {
        for &i in g {
            label[i] = k;
        }
    }
    by_first_page(&label)
}

/// Groups a site's pages by template in bounded time and memory. A site
/// of at most `max_sample` pages (or any site, when it is 0) is grouped
/// exactly ([`group_templates`]). A larger one is grouped exactly on
/// `max_sample` of its pages evenly spaced in page order; every other page
/// then joins the group whose pages it is on average most like, if at least
/// `threshold`, and the pages like none are grouped the same way among
/// themselves, until they have been compared with [`MAX_TEMPLATES_TRIED`]
/// templates: each page still left is then a group of its own, so a page
/// costs at most that many comparisons. Groups are numbered by their first
/// page; the result depends only on the order of `pages`, not on the
/// thread count. At most
/// `max_sample` + 1024 signatures are loaded at once; an error
/// only when `pages` cannot load them.
pub fn group_site_templates<S: SignatureSource + ?Sized>(
    pages: &S,
    threshold: f64,
    max_sample: usize,
) -> io::Result<Vec<usize>> {
    let all: Vec<usize> = (0..pages.len()).collect();
    if max_sample == 0 || pages.len() <= max_sample {
        return Ok(group_templates(&pages.load(&all)?, threshold));
    }
    const UNGROUPED: usize = usize::MAX;
    let mut group = vec![UNGROUPED; pages.len()];
    let mut groups = 0;
    let mut left = all;
    // Templates each page left has been compared with, in earlier rounds.
    let mut tried = 0;
    // Each round groups its whole sample, so the rounds end.
    while !left.is_empty() {
        if tried >= MAX_TEMPLATES_TRIED {
            // Like none of that many templates: each its own group.
            for i in left {
                group[i] = groups;
                groups += 1;
            }
            break;
        }
        let sample = evenly_spaced(&left, max_sample);
        let signatures = pages.load(&sample)?;
        let labels = group_templates(&signatures, threshold);
        for (&i, &l) in sample.iter().zip(&labels) {
            group[i] = groups + l;
        }
        let templates = Templates::new(&signatures, &labels, threshold);
        let rest: Vec<usize> = left
            .into_iter()
            .filter(|&i| group[i] == UNGROUPED)
            .collect();
        left = Vec::new();
        for chunk in rest.chunks(ASSIGN_CHUNK) {
            let nearest: Vec<Option<usize>> = pages
                .load(chunk)?
                .par_iter()
                .map(|page| templates.nearest(page))
                .collect();
            for (&i, g) in chunk.iter().zip(nearest) {
                match g {
                    Some(g) => group[i] = groups + g,
                    None => left.push(i),
                }
            }
        }
        groups += templates.groups.len();
        tried += templates.groups.len();
    }
    Ok(by_first_page(&group))
}

/// Templates a page of a large site is compared with, over all rounds of
/// [`group_site_templates`], before it is left a template of its own. Each
/// round compares every page left with each template its sample found, so
/// a site whose pages share no template (every page a layout of its own: a
/// spam host, generated markup) cost the square of its pages: 20,000 such
/// pages took 97 s (100,000: some 40 minutes). A page like none of 1,024
/// templates (five rounds of the default `cluster.max_group_pages`) is
/// unlike the site's other pages; the page-level path it then gets is what
/// a template of one page gets anyway. No site of the dev corpora has more
/// than `max_group_pages` pages, so none is sampled.
pub const MAX_TEMPLATES_TRIED: usize = 1024;

/// Pages outside the sample whose signatures are read at once to join a
/// group (≈ 3 KB each on the dev corpora).
const ASSIGN_CHUNK: usize = 1024;

/// At most `max` of `items` (all when `max` is 0), evenly spaced in their
/// order, the first included: the deterministic sample a large site is
/// grouped on, and a large cluster's wrapper learned from.
pub fn evenly_spaced<T: Copy>(items: &[T], max: usize) -> Vec<T> {
    if max == 0 || items.len() <= max {
        return items.to_vec();
    }
    (0..max).map(|i| items[i * items.len() / max]).collect()
}

/// The number of groups in a labelling whose labels are `0..n`.
pub fn group_count(labels: &[usize]) -> usize {
    labels.iter().max().map_or(0, |m| m + 1)
}

/// Group labels renumbered in the order of each group's first page.
fn by_first_page(labels: &[usize]) -> Vec<usize> {
    let mut number = vec![usize::MAX; group_count(labels)];
    let mut next = 0;
    labels
        .iter()
        .map(|&l| {
            if number[l] == usize::MAX {
                number[l] = next;
                next += 1;
            }
            number[l]
        })
        .collect()
}

/// Pages of a group that a page is compared with to join it: enough for a
/// fair average, few enough that assigning a page costs about as much as
/// grouping a small site.
const REPRESENTATIVES: usize = 16;

/// The groups found on a sample of a site's pages, each kept as up to
/// [`REPRESENTATIVES`] of its pages evenly spaced, for the site's other
/// pages to join.
struct Templates<'a> {
    groups: Vec<Vec<&'a Signature>>,
    threshold: f64,
}

impl<'a> Templates<'a> {
    /// The groups of `sample` labelled by [`group_templates`].
    fn new(sample: &'a [Cow<'a, Signature>], labels: &[usize], threshold: f64) -> Templates<'a> {
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); group_count(labels)];
        for (i, &l) in labels.iter().enumerate() {
            members[l].push(i);
        }
        let groups = members
            .iter()
            .map(|m| {
                evenly_spaced(m, REPRESENTATIVES)
                    .into_iter()
                    .map(|i| &*sample[i])
                    .collect()
            })
            .collect();
        Templates { groups, threshold }
    }

    /// The group `page` is most like: the highest average similarity to a
    /// group's representatives (average linkage, as the grouping merges),
    /// the first group on a tie; `None` when it is below the threshold.
    ///
    /// The same answer as averaging over every group, in a fraction of the
    /// comparisons (they were a tenth of a large site's run): groups are
    /// tried in order of their first representative's similarity, so the
    /// group a page joins is usually among the first, and another group is
    /// left as soon as its average could not beat the best one or the
    /// threshold even if all its members left were identical to the page.
    fn nearest(&self, page: &Signature) -> Option<usize> {
        let mut order: Vec<(f64, usize)> = self
            .groups
            .iter()
            .enumerate()
            .map(|(g, members)| (page.similarity(members[0]), g))
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut best: Option<(f64, usize)> = None;
        'groups: for (first, g) in order {
            let members = &self.groups[g];
            let n = members.len();
            let bar = best.map_or(self.threshold, |(s, _)| s.max(self.threshold));
            // Summed in member order from 0.0, as a plain average would be,
            // so that the averages compared are the same numbers.
            let mut total = 0.0 + first;
            for (k, member) in members.iter().enumerate().skip(1) {
                // Each similarity is at most 1; the margin covers rounding.
                let ceiling = (total + (n - k) as f64) / n as f64;
                if ceiling + CEILING_MARGIN < bar {
                    continue 'groups;
                }
                total += page.similarity(member);
            }
            let avg = total / n as f64;
            if best.is_none_or(|(s, b)| avg > s || (avg == s && g < b)) {
                best = Some((avg, g));
            }
        }
        best.filter(|&(s, _)| s >= self.threshold).map(|(_, g)| g)
    }
}

/// Rounding allowance of [`Templates::nearest`]'s bound: far above the
/// error of summing 16 similarities, far below any difference that matters.
const CEILING_MARGIN: f64 = 1e-9;

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;
    use std::hash::Hasher;

    #[test]
    fn a_signature_rebuilt_from_its_hashes_in_any_order_is_the_same() {
        let html = "<body class=a><div id=n1><p>x</p><p>y</p></div><ul><li>z</li></ul></body>";
        let sig = Signature::of(&Document::parse(html, &DomOptions::default()));
        let mut full: Vec<u64> = sig.hashes().iter().rev().copied().collect();
        full.extend_from_slice(sig.hashes());
        let own: Vec<u64> = sig.own_hashes().iter().rev().copied().collect();
        assert_eq!(Signature::from_parts(full, own), sig);
        assert_ne!(
            Signature::from_parts(sig.hashes().to_vec(), Vec::new()),
            sig
        );
    }

    #[test]
    fn samples_are_evenly_spaced_and_keep_small_inputs_whole() {
        let pages: Vec<u32> = (0..10).collect();
        assert_eq!(evenly_spaced(&pages, 0), pages);
        assert_eq!(evenly_spaced(&pages, 10), pages);
        assert_eq!(evenly_spaced(&pages, 4), vec![0, 2, 5, 7]);
        assert_eq!(evenly_spaced(&pages, 1), vec![0]);
    }

    #[test]
    fn site_keys_drop_www_m_port_and_case() {
        assert_eq!(site_key("http://www.BBC.co.uk:8080/news/1"), "bbc.co.uk");
        assert_eq!(site_key("https://m.example.com/"), "example.com");
        assert_eq!(site_key("https://blog.example.com/x"), "blog.example.com");
        assert_eq!(site_key("not a url"), "");
    }

    #[test]
    fn only_http_urls_with_a_host_name_a_pages_site() {
        assert_eq!(
            page_site(" https://www.Example.com/a ").unwrap(),
            "example.com"
        );
        assert_eq!(page_site("http://[::1]:8080/").unwrap(), "[::1]");
        for (url, reason) in [
            ("", "no URL"),
            ("  ", "no URL"),
            ("not a url", "not a URL"),
            ("file:///etc/passwd", "scheme \"file\""),
            ("javascript:alert(1)", "scheme \"javascript\""),
            ("data:text/html,<p>x</p>", "scheme \"data\""),
            ("ftp://example.com/x", "scheme \"ftp\""),
            ("http://./x", "names no site"),
        ] {
            let err = page_site(url).unwrap_err();
            assert!(err.contains(reason), "{url:?}: {err}");
        }
    }

    fn sig(html: &str) -> Signature {
        Signature::of(&Document::parse(html, &DomOptions::default()))
    }

    #[test]
    fn a_signature_decodes_from_its_encoding_and_nothing_else() {
        let s = sig("<body><div id=main class=post><p>a</p><ul><li>b</li></ul></div></body>");
        let mut bytes = Vec::new();
        s.encode(&mut bytes);
        assert_eq!(Signature::decode(&bytes), Some(s.clone()));
        // Both views are kept: the own-label paths are not the full ones.
        assert_ne!(s.full, s.own);
        for cut in [0, 4, 8, bytes.len() - 1] {
            assert_eq!(Signature::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Signature::decode(&longer), None);
        let mut empty = Vec::new();
        Signature::default().encode(&mut empty);
        assert_eq!(Signature::decode(&empty), Some(Signature::default()));
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
        // Labels past the short buffer hash the same way.
        let long = "div#main.".to_string() + &"a".repeat(100);
        assert_eq!(path_hash(7, &long), {
            let mut h = twox_hash::XxHash64::with_seed(0);
            h.write(&7u64.to_le_bytes());
            h.write(long.as_bytes());
            h.finish()
        });
        let s = sig("<body><div id=main><p>x</p></div></body>");
        let body = path_hash(0, "body");
        let div = path_hash(body, "div#main");
        let p = path_hash(div, "p");
        assert_eq!(
            s.hashes(),
            Signature::from_hashes(vec![body, div, p]).hashes()
        );
    }

    #[test]
    fn a_section_class_high_up_does_not_split_one_layout() {
        // One layout, two sections: every full path below the section's
        // wrapper differs, the paths by own label do not.
        let layout = |section: &str| {
            format!(
                "<body><div id=main><div class={section}><div id=header><h2>h</h2></div>\
                 <div id=story><h1>t</h1><p>a</p><p>b</p></div>\
                 <div id=footer><ul><li>x</li></ul></div></div></div></body>"
            )
        };
        let (a, b) = (sig(&layout("education")), sig(&layout("science")));
        assert!(a.jaccard(&b) < 0.3, "full paths: {}", a.jaccard(&b));
        assert!(a.similarity(&b) > 0.8, "own labels: {}", a.similarity(&b));
        assert_eq!(group_templates(&[a, b], 0.3), [0, 0]);
        // Another layout stays apart by both views.
        let c = sig("<body><table><tr><td>2</td></tr></table></body>");
        assert!(sig(&layout("education")).similarity(&c) < 0.3);
    }

    /// [`Templates::nearest`] as first written: every group averaged whole.
    fn nearest_by_whole_averages(t: &Templates<'_>, page: &Signature) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (g, members) in t.groups.iter().enumerate() {
            let total: f64 = members.iter().map(|m| page.similarity(m)).sum();
            let avg = total / members.len() as f64;
            if best.is_none_or(|(s, _)| avg > s) {
                best = Some((avg, g));
            }
        }
        best.filter(|&(s, _)| s >= t.threshold).map(|(_, g)| g)
    }

    #[test]
    fn the_nearest_template_is_found_with_fewer_comparisons_and_the_same_answer() {
        // Pages of five layouts: some of a layout's 60 paths each, and
        // paths shared by all layouts (xorshift: a fixed sequence).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let pages: Vec<Signature> = (0..400u64)
            .map(|i| {
                let layout = i % 5;
                let mut hashes: Vec<u64> = (0..60u64)
                    .filter(|_| next() % 4 != 0)
                    .map(|k| layout * 1000 + k)
                    .collect();
                let shared = next() % 40;
                hashes.extend((0..shared).map(|_| 10_000 + next() % 60));
                Signature::from_hashes(hashes)
            })
            .collect();
        let sample: Vec<Cow<'_, Signature>> = pages[..100].iter().map(Cow::Borrowed).collect();
        let mut answers = Vec::new();
        for threshold in [0.0, 0.3, 0.5, 0.7, 0.9] {
            let labels = group_templates(&sample, threshold);
            let templates = Templates::new(&sample, &labels, threshold);
            for page in &pages[100..] {
                let found = templates.nearest(page);
                assert_eq!(found, nearest_by_whole_averages(&templates, page));
                answers.push(found);
            }
        }
        // Both kinds of answer occur: a group, and none above the threshold.
        assert!(answers.iter().any(Option::is_some));
        assert!(answers.iter().any(Option::is_none));
        // Groups of the same pages tie on every page: the first one wins.
        let twice: Vec<Cow<'_, Signature>> =
            sample[..50].iter().chain(&sample[..50]).cloned().collect();
        let labels: Vec<usize> = (0..100).map(|i| (i / 50) * 5 + i % 5).collect();
        let templates = Templates::new(&twice, &labels, 0.3);
        for page in &pages[100..] {
            let found = templates.nearest(page);
            assert_eq!(found, nearest_by_whole_averages(&templates, page));
            assert!(found.is_none_or(|g| g < 5), "{found:?}");
        }
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
