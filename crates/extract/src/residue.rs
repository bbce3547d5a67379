//! Site-level cleaning of a wrapper's selection (issue "Quality"): what the
//! sibling pages show to be template, and link-dense blocks.
//!
//! A wrapper selects the element that holds the article, but that element
//! often also holds share bars, related links or a "most read" box. Two
//! kinds of evidence remove them without any rule about one site:
//!
//! - **Template residue.** A text that occurs on at least half the pages of
//!   the cluster (and on two pages at least) is the template's, not the
//!   article's: "Share this", "Bookmark with:", "Related stories".
//! - **Link density.** A block element (list, list item, division, table
//!   row…) at least `link_density` of whose text is link text is a link
//!   list; a paragraph, which is prose even with links in it, only when
//!   `paragraph_link_density` of its text is links.
//! - **Labelled boxes.** A block element whose first text is a box's
//!   label, template residue ("Also in Lifestyle", "New & Notable") or a
//!   heading that is one link ("More Africa stories", to the section), and
//!   at least half of `link_density` of whose text is links is a box of
//!   headlines with bylines and blurbs, unless it holds half of the
//!   selection's text outside links or more.
//! - **Meta lines.** A block without blocks inside (lines split by `<br>`
//!   aside) whose text outside links is all template residue ("Posted in:
//!   &lt;News&gt; | <3> comments", "Tags: &lt;a&gt;, &lt;b&gt;", a trackback
//!   header); a URL written out counts as a link ("TrackBack URL for this
//!   entry:<br>http://…").
//! - **Media text.** Text that belongs to media rather than to the
//!   article: `<figcaption>`, and elements whose `id` or a class token
//!   names a caption (`wp-caption`, `media__caption`) or an embedded post
//!   (`twitter-tweet`, the embed code's blockquote), which reference texts
//!   leave out, unless it holds half of the selection's text (a photo
//!   essay, a slideshow, a post that is one embedded tweet), a caption
//!   repeated word for word (one credit under every photo) counted once.
//! - **Attributions stay.** A short block of a few words of its own and
//!   then one link to another host ("via <fubiz.net>", "Source: &lt;Reuters&gt;")
//!   names where a quoted post comes from: it is neither a link list nor a
//!   meta line, although it has their shape (a category line "Posted in:
//!   &lt;News&gt;" links into the site itself).

use std::cell::OnceCell;
use std::ops::Range;

use rustc_hash::{FxHashMap, FxHashSet};

use canopy_dom::{
    collapse_whitespace, contains_any, is_block, is_collapsed, is_heading, local_name, text_key,
    Document, NodeId,
};

use crate::TextCounts;

/// What to remove from a selection.
#[derive(Debug, Clone)]
pub struct CleanOptions {
    /// Drop texts that recur on at least half the cluster's pages.
    pub residue: bool,
    /// Drop block elements whose share of link text is at least this
    /// (1.0 or more turns the rule off).
    pub link_density: f64,
    /// The same for paragraphs, which are prose even with a few links: only
    /// a paragraph that is nearly all links ("« Older | Home | Newer »")
    /// goes.
    pub paragraph_link_density: f64,
    /// Drop media text (`<figcaption>`, or an element whose `id` or a
    /// class token contains one of these lowercase names: captions,
    /// embedded posts), unless it holds half of the selection's text or more
    /// (a photo essay, a slideshow whose slides are the article).
    pub media_text: Vec<String>,
    /// Most bytes of text before the article's title line that go when the
    /// title is among the first three lines of the selection's text (a date
    /// or a comment count above the headline); 0 keeps them. Applied where
    /// the title line is put, by the pipeline.
    pub title_lead: usize,
    /// Drop a page's notice: an element of at most 300 characters whose text
    /// opens with a copyright sign or "Copyright" and a year or sign
    /// ("© 2012 CBS Interactive Inc. All Rights Reserved…").
    pub notices: bool,
    /// Drop forms (`<form>`: a newsletter sign-up, a price-quote request)
    /// unless they hold half of the selection's text (a page whose whole
    /// layout sits in one form).
    pub forms: bool,
    /// Keep attributions that the link-density and meta-line rules would
    /// drop: a block of at most `ATTRIBUTION_WORDS` words, words of its
    /// own and then one link to a host other than the page's ("via
    /// <fubiz.net>").
    pub attributions: bool,
    /// Keep a link-dense block whose links are the post's own list of
    /// other sites' pages (deals, a roundup of news): at least two thirds
    /// of its link text points to hosts other than the page's, and its
    /// links average at least `OFFSITE_LINK_CHARS` characters (titles,
    /// not "Facebook", "Tweet"), and it opens with its first link (a box
    /// under a label of its own is a promotion). Related-post lists link
    /// into the site.
    pub offsite_lists: bool,
    /// Drop a label whose box of links the other rules dropped: a short
    /// line ending in a colon (a paragraph, `div`, `dt` or heading), after
    /// which nothing is kept up to the next label while two links or more
    /// went ("Related posts:" over a list of links that went).
    pub orphan_labels: bool,
}

impl Default for CleanOptions {
    fn default() -> Self {
        CleanOptions {
            residue: true,
            link_density: 0.5,
            paragraph_link_density: 0.8,
            media_text: ["caption", "twitter-tweet", "instagram-media"]
                .map(String::from)
                .to_vec(),
            title_lead: 150,
            notices: true,
            forms: true,
            attributions: true,
            offsite_lists: true,
            orphan_labels: true,
        }
    }
}

impl CleanOptions {
    /// Every rule off: the selection's text as it is (page-level methods,
    /// and comparing whole selections).
    pub fn none() -> Self {
        CleanOptions {
            residue: false,
            link_density: f64::INFINITY,
            paragraph_link_density: f64::INFINITY,
            media_text: Vec::new(),
            title_lead: 0,
            notices: false,
            forms: false,
            attributions: false,
            offsite_lists: false,
            orphan_labels: false,
        }
    }
}

/// The texts that recur across a cluster's pages, by key
/// (`canopy_dom::text_key`).
#[derive(Debug, Clone, Default)]
pub struct Residue {
    common: FxHashSet<u64>,
}

impl Residue {
    /// Learns the recurring texts of a cluster (its text nodes, whitespace
    /// collapsed, counted once per page).
    pub fn learn(docs: &[&Document]) -> Residue {
        let keys: Vec<Vec<u64>> = docs.iter().map(|doc| doc.text_keys()).collect();
        Residue::learn_keys(&keys.iter().map(Vec::as_slice).collect::<Vec<_>>())
    }

    /// [`Residue::learn`] from the keys of each page's text nodes, each key
    /// once a page (`Document::text_keys`, or a streaming pass's).
    pub fn learn_keys(pages: &[&[u64]]) -> Residue {
        let need = pages.len().div_ceil(2).max(2);
        if pages.len() < need {
            // A single page: no text can recur.
            return Residue::default();
        }
        let mut counts: FxHashMap<u64, usize> = FxHashMap::default();
        for &key in pages.iter().copied().flatten() {
            *counts.entry(key).or_default() += 1;
        }
        Residue {
            common: counts
                .into_iter()
                .filter(|&(_, c)| c >= need)
                .map(|(key, _)| key)
                .collect(),
        }
    }

    /// Whether `text` recurs across the cluster.
    pub fn contains(&self, text: &str) -> bool {
        if self.common.is_empty() {
            return false;
        }
        // Most text nodes are collapsed already: hash them as they are
        // rather than copy each one (this runs for every text node of
        // every page a cluster extracts).
        let key = if is_collapsed(text) {
            text_key(text)
        } else {
            text_key(&collapse_whitespace(text))
        };
        self.common.contains(&key)
    }
}

/// The heading (`h1`–`h6`) whose text is all link text and holds text node
/// `t`: a box's label that links to the section its teasers come from
/// ("More Africa stories"). The heading is looked for within three levels
/// above the text: the link, one inline element inside or around it
/// (`<a><span>`, `<strong><a>`), the heading.
fn linked_heading(doc: &Document, counts: &TextCounts, t: NodeId) -> Option<NodeId> {
    doc.ancestors(t)
        .take(3)
        .find(|&a| is_heading(doc.tag(a)))
        .filter(|&h| counts.link_chars(h) == counts.chars(h))
}

/// Whether element `n` holds media text: `<figcaption>`, an `id` or
/// class token naming one of `names`, or an image's caption by its place
/// ([`is_image_caption`]).
fn is_media_text(
    doc: &Document,
    n: NodeId,
    names: &[String],
    chars: &dyn Fn(NodeId) -> u32,
) -> bool {
    if names.is_empty() {
        return false;
    }
    let Some(element) = doc.element(n) else {
        return false;
    };
    &*element.tag == "figcaption"
        || doc.attrs(n).any(|(name, value)| {
            matches!(&**name, "id" | "class")
                && value
                    .split_ascii_whitespace()
                    .any(|token| contains_any(token, names))
        })
        || is_image_caption(doc, n, chars)
}

/// Longest caption set beside its image, in characters: a line or two
/// ("Figure: …", a photo credit). Chosen on trafbench among 150, 300 and
/// 600.
const CAPTION_CHARS: u32 = 300;

/// Whether `n` is an image's caption by its place, where the markup has
/// no `<figcaption>`: it comes right after an image (line breaks aside)
/// and holds all the text of its parent, so the parent is the image and
/// its caption (`<div><img><span>Figure: …</span></div>`,
/// `<p><img><br><em>(Credit: …)</em></p>`).
fn is_image_caption(doc: &Document, n: NodeId, text_chars: &dyn Fn(NodeId) -> u32) -> bool {
    let chars = text_chars(n);
    let Some(parent) = doc.node(n).parent else {
        return false;
    };
    if chars == 0 || chars > CAPTION_CHARS || text_chars(parent) != chars {
        return false;
    }
    let mut previous = None;
    for c in doc.children(parent) {
        if c == n {
            break;
        }
        let blank = doc.text(c).is_some_and(|t| t.trim().is_empty()) || doc.tag(c) == "br";
        if !blank {
            previous = Some(c);
        }
    }
    previous.is_some_and(|p| matches!(doc.tag(p), "img" | "picture"))
}

/// Whether a text opens a copyright notice: "©", "(c) 2012", "Copyright
/// 2012", "Copyright ©" (not a sentence that opens with the word).
fn opens_notice(text: &str) -> bool {
    let t = text.trim_start();
    if t.starts_with('\u{a9}') {
        return true;
    }
    // Every element's first text is asked: most open with neither word,
    // and that is known before lowercasing (which allocates).
    if !matches!(t.as_bytes().first(), Some(b'c' | b'C' | b'(')) {
        return false;
    }
    // "copyright" and a year or sign fit in the first 24 characters.
    let head: String = t.chars().take(24).flat_map(char::to_lowercase).collect();
    let after = if let Some(rest) = head.strip_prefix("copyright") {
        rest.trim_start()
    } else if let Some(rest) = head.strip_prefix("(c)") {
        rest.trim_start()
    } else {
        return false;
    };
    after.starts_with('\u{a9}')
        || after.starts_with("(c)")
        || after.chars().take(4).filter(char::is_ascii_digit).count() == 4
}

/// Most words (white-space separated, the link's included) of an
/// attribution line: "via fubiz.net", "Source: Associated Press".
const ATTRIBUTION_WORDS: usize = 6;

/// Most characters (white space aside) of an attribution line.
const ATTRIBUTION_CHARS: u32 = 160;

/// Shortest average link text, in characters, of a list of other sites'
/// pages ([`CleanOptions::offsite_lists`]): titles and product names, not
/// share buttons.
const OFFSITE_LINK_CHARS: u32 = 20;

/// The host an absolute `http(s)` link points to, without a leading `www.`;
/// `None` for relative links (which stay on the page's host).
fn link_host(href: &str) -> Option<String> {
    let href = href.trim();
    let host = match plain_host(href) {
        Some(host) => host,
        None => {
            let url = url::Url::parse(href).ok()?;
            if !matches!(url.scheme(), "http" | "https") {
                return None;
            }
            // The url crate lowercases the hosts of http(s) URLs.
            url.host_str()?.to_string()
        }
    };
    Some(match host.strip_prefix("www.") {
        Some(rest) => rest.to_string(),
        None => host,
    })
}

/// The host of a link `http(s)://host` followed by nothing, `/`, `?` or
/// `#`, read without the url crate's whole parse (which costs a page with
/// hundreds of links more than the rest of its cleaning), lower-cased as
/// the url crate would. Only a host the url crate would take as it stands
/// is read here: labels of ASCII letters, digits and hyphens, none empty,
/// none punycode (`xn--`, which it validates), the last one not starting
/// with a digit (which it may read as an IPv4 address); no user, port or
/// other delimiter. Any other link is `None` here and goes to the url crate.
fn plain_host(href: &str) -> Option<String> {
    let head = |scheme: &str| {
        href.get(..scheme.len())
            .filter(|h| h.eq_ignore_ascii_case(scheme))
            .and_then(|_| href.get(scheme.len()..))
    };
    let rest = head("http://").or_else(|| head("https://"))?;
    let host = rest.split(['/', '?', '#']).next()?;
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
    };
    let last = host.rsplit('.').next()?;
    (host.split('.').all(label_ok) && !last.starts_with(|c: char| c.is_ascii_digit()))
        .then(|| host.to_ascii_lowercase())
}

/// Whether two hosts share their last two labels (`guitar.about.com` and
/// `home.about.com`): one organisation's sites, whose cross-links are its
/// related-post lists. Hosts under a two-label public suffix (`co.uk`)
/// then all count as one, which only keeps fewer lists.
fn same_domain(a: &str, b: &str) -> bool {
    a.rsplit('.').take(2).eq(b.rsplit('.').take(2))
}

/// The page's own host as its links show it ([`page_host_of`] of its
/// links), or as the document was told it, when it is a part of the page
/// (`canopy_dom::DomOptions::page_link_host`).
fn page_host(doc: &Document) -> Option<String> {
    if let Some(host) = doc.page_link_host() {
        return Some(host.to_string());
    }
    page_host_of(
        (0..doc.len())
            .filter(|&n| doc.tag(n) == "a")
            .filter_map(|n| doc.attr_named(n, &local_name!("href"))),
    )
}

/// The page's own host as its links (the `href`s of its `<a>` elements)
/// show it: the host most of its absolute links point to (its
/// navigation, its posts' permalinks); ties go to the smaller name. `None`
/// when no link is absolute. Not the record's URL: an archived capture
/// (big9's Wayback pages) or a mirror links through its own host, and
/// every link would look off-site against the original's.
pub fn page_host_of<'a>(hrefs: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut counts: FxHashMap<String, usize> = FxHashMap::default();
    for host in hrefs.into_iter().filter_map(link_host) {
        *counts.entry(host).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|(a, x), (b, y)| x.cmp(y).then_with(|| b.cmp(a)))
        .map(|(host, _)| host)
}

/// Longest notice block, in characters: a longer block that opens with
/// one is more than a notice.
const NOTICE_CHARS: u32 = 300;

fn is_list_block(tag: &str) -> bool {
    matches!(
        tag,
        "ul" | "ol"
            | "li"
            | "dl"
            | "dd"
            | "dt"
            | "div"
            | "section"
            | "table"
            | "tr"
            | "td"
            | "nav"
            | "aside"
            | "footer"
            | "header"
    )
}

/// The subtrees [`Kept`] reads for a selection of `roots`, sorted, none
/// inside another: for each root, the subtree of the nearest block at or
/// above its parent. The keep rule weighs a text against its block
/// ([`Kept::keeps`]), which is never above the nearest block at or above
/// the root; everything else it reads is inside the roots, except a
/// root's parent, which an image caption is weighed against
/// ([`is_image_caption`]). Counted here once, the parent is not counted
/// again for each root: a selection of thousands of paragraphs in one
/// deep container cost the square of the page.
fn cleaning_region(doc: &Document, roots: &[NodeId]) -> Vec<Range<NodeId>> {
    let mut tops: Vec<NodeId> = roots
        .iter()
        .map(|&root| {
            let mut top = doc.node(root).parent.unwrap_or(root);
            while !is_block(doc.tag(top)) {
                match doc.node(top).parent {
                    Some(p) => top = p,
                    None => break,
                }
            }
            top
        })
        .collect();
    tops.sort_unstable();
    let mut region: Vec<Range<NodeId>> = Vec::with_capacity(tops.len());
    for top in tops {
        // Sorted by start, subtrees nest or are apart: one that starts
        // inside the last is inside it.
        if region.last().is_none_or(|last| top >= last.end) {
            region.push(top..doc.node(top).end);
        }
    }
    region
}

/// Characters of `n`'s text: from `counts` inside `region`, counted over
/// its subtree outside it.
fn region_chars(doc: &Document, region: &[Range<NodeId>], counts: &TextCounts, n: NodeId) -> u32 {
    // Sorted and apart: the one range that can hold `n` is the first that
    // ends after it.
    let i = region.partition_point(|r| r.end <= n);
    if region.get(i).is_some_and(|r| r.contains(&n)) {
        counts.chars(n)
    } else {
        TextCounts::of_subtree(doc, n).0
    }
}

/// Longest label, in characters: a box's title ("Read also:", "More on
/// this topic") is a line, not a sentence. Here ([`Kept::orphan_labels`])
/// and for the page-level extractor's bold labels (`page::prune`). Chosen
/// on trafbench among 60 and 100 for the bold labels (one snippet apart,
/// docs/quality-log.md).
pub(crate) const LABEL_CHARS: u32 = 100;

/// Most nodes in a label's subtree: a line's text and the few elements
/// around it (`<p><em><strong>Related content:</strong></em></p>` is 4).
/// Not tuned: no label of the dev corpora comes near it.
const LABEL_NODES: usize = 32;

/// Fewest links that make a box of links under a label
/// ([`Kept::orphan_labels`]): a list. One link is what the label names ("The
/// paper is here:" over its PDF), which the gold of trafbench keeps.
const BOX_LINKS: usize = 2;

/// Which nodes of a selection [`clean_text`] keeps: everything but
/// template residue and link-dense blocks. Renderers of the article's HTML
/// use it so that they show exactly the nodes the text came from.
pub struct Kept<'a> {
    doc: &'a Document,
    options: CleanOptions,
    /// The subtrees the rule reads ([`cleaning_region`]), which the
    /// counts below cover.
    region: Vec<Range<NodeId>>,
    /// Characters of text and of text inside links, per node's subtree.
    counts: TextCounts,
    /// Characters of residue text, per node's subtree.
    residue_chars: Vec<u32>,
    /// Whether a node's first text (in document order) is a box's label:
    /// template residue ("Also in Lifestyle", "Most popular") or a heading
    /// inside the node that is one link ("More Africa stories", to the
    /// section its teasers come from).
    labelled: Vec<bool>,
    /// Whether a node is a notice block ([`CleanOptions::notices`]).
    notice: Vec<bool>,
    /// The selection the kept nodes are read from.
    roots: Vec<NodeId>,
    /// Whether media text is dropped: it holds less than half of the
    /// selection's text.
    drop_media_text: bool,
    /// The page's own host ([`page_host`]), found when an attribution is
    /// first looked at.
    host: OnceCell<Option<String>>,
    /// Elements left out whatever the rules say, sorted: what the
    /// page-level extractor prunes from its selection ([`crate::PageSelection`]),
    /// the furniture inside a wrapper's, and the labels whose boxes went.
    pruned: Vec<NodeId>,
    /// Whether a rule read the page past the selection: the links after a
    /// label that ends it ([`Kept::reads_past_selection`]).
    read_past: bool,
}

impl<'a> Kept<'a> {
    /// Counts what the keep rule needs, over the subtrees around `roots`
    /// that it reads: for each root, the subtree of the nearest block at or
    /// above it. The elements of `pruned` are left out whatever the rules
    /// say, and then the labels whose boxes went ([`CleanOptions::orphan_labels`]).
    pub fn new(
        doc: &'a Document,
        roots: &[NodeId],
        residue: &Residue,
        options: &CleanOptions,
        pruned: &[NodeId],
    ) -> Kept<'a> {
        let region = cleaning_region(doc, roots);
        Kept::with_region(doc, roots, residue, options, region).with_pruned(pruned)
    }

    /// [`Kept::new`] with the counts made over `region`, which must hold
    /// the subtrees [`cleaning_region`] names (the whole page: `0..len`).
    fn with_region(
        doc: &'a Document,
        roots: &[NodeId],
        residue: &Residue,
        options: &CleanOptions,
        region: Vec<Range<NodeId>>,
    ) -> Kept<'a> {
        let counts = TextCounts::of_subtrees(doc, &region);
        let chars = |n: NodeId| region_chars(doc, &region, &counts, n);
        let mut residue_chars = vec![0u32; doc.len()];
        let mut labelled = vec![false; doc.len()];
        let mut notice = vec![false; doc.len()];
        for range in &region {
            // One pass, children before parents: the first non-blank text
            // at or after `n` inside the range (`usize::MAX`: none), whose
            // residue count is final once it is passed (a text has no
            // children), opens `n` when it lies inside it.
            let mut first = usize::MAX;
            // The heading that `first` is the link text of, if any.
            let mut first_heading = None;
            for n in range.clone().rev() {
                if let Some(t) = doc.text(n) {
                    if options.residue && residue.contains(t) {
                        residue_chars[n] = counts.chars(n);
                    }
                    if !t.trim().is_empty() {
                        first = n;
                        first_heading = linked_heading(doc, &counts, n);
                    }
                }
                let end = doc.node(n).end;
                labelled[n] = first < end
                    && (residue_chars[first] > 0 || first_heading.is_some_and(|h| h > n));
                notice[n] = options.notices
                    && doc.element(n).is_some()
                    && counts.chars(n) <= NOTICE_CHARS
                    && first < end
                    && doc.text(first).is_some_and(opens_notice);
                if n != range.start {
                    if let Some(p) = doc.node(n).parent {
                        residue_chars[p] += residue_chars[n];
                    }
                }
            }
        }
        // Over the whole selection, as the option says: an article spread
        // over several roots keeps its captions only when they are half of
        // all of its text, not of the one root they stand in. A caption
        // that repeats an earlier one word for word (one credit under every
        // photo) counts once, and its copies are left out of the whole: an
        // essay's captions each say something of their own.
        let (mut media_chars, mut all_chars) = (0u32, 0u32);
        let mut captions = FxHashSet::default();
        for &root in roots {
            all_chars += counts.chars(root);
            let mut n = root;
            while n < doc.node(root).end {
                if is_media_text(doc, n, &options.media_text, &chars) {
                    let text = collapse_whitespace(&doc.inner_text(n));
                    if captions.insert(text_key(&text)) {
                        media_chars += counts.chars(n);
                    } else {
                        all_chars = all_chars.saturating_sub(counts.chars(n));
                    }
                    n = doc.node(n).end;
                } else {
                    n += 1;
                }
            }
        }
        let drop_media_text = 2 * media_chars < all_chars;
        Kept {
            doc,
            options: options.clone(),
            region,
            counts,
            residue_chars,
            labelled,
            notice,
            roots: roots.to_vec(),
            drop_media_text,
            host: OnceCell::new(),
            pruned: Vec::new(),
            read_past: false,
        }
    }

    /// Whether a rule read the page past the selection (the links after a
    /// label that ends it): a part of the page that holds the selection
    /// alone (a streaming pass's skeleton) may not clean it as the page
    /// does.
    pub fn reads_past_selection(&self) -> bool {
        self.read_past
    }

    /// Characters of `n`'s text: counted ahead inside the region, counted
    /// here outside it.
    fn chars(&self, n: NodeId) -> u32 {
        region_chars(self.doc, &self.region, &self.counts, n)
    }

    /// The same rule, with `pruned` left out too, and then the labels
    /// whose boxes went.
    fn with_pruned(mut self, pruned: &[NodeId]) -> Kept<'a> {
        self.pruned = pruned.to_vec();
        self.pruned.sort_unstable();
        if self.options.orphan_labels {
            let (orphans, read_past) = self.orphan_labels();
            self.read_past = read_past;
            if !orphans.is_empty() {
                self.pruned.extend(orphans);
                self.pruned.sort_unstable();
            }
        }
        self
    }

    /// Labels whose box the rules dropped: a block whose whole text is one
    /// short line ending in a colon ("Related posts:", "Like this:",
    /// "Lesen Sie auch:"), after which nothing is kept up to the next
    /// label while [`BOX_LINKS`] links or more went: the box of links it
    /// titled. Its title alone says nothing. A label that introduces a
    /// photo, a video or a caption stays, as does one over a single link
    /// (a document to download) or over kept text.
    /// Whether it read the page past the selection is said with them.
    fn orphan_labels(&self) -> (Vec<NodeId>, bool) {
        let doc = self.doc;
        let mut out = Vec::new();
        // The label read last, and the links dropped after it.
        let mut open: Option<(NodeId, usize)> = None;
        let close = |open: Option<(NodeId, usize)>, out: &mut Vec<NodeId>| {
            if let Some((label, _)) = open.filter(|&(_, links)| links >= BOX_LINKS) {
                out.push(label);
            }
        };
        for &root in &self.roots {
            let end = doc.node(root).end;
            // Elements found kept, each inside the one before: the
            // ancestors of where the walk is that need no keep test again.
            let mut kept_chain = vec![root];
            let mut n = root + 1;
            while n < end {
                if open.is_none() {
                    // Nothing to settle: on to the next label the rules
                    // keep (what lies before it needs no keep test).
                    let Some(label) = (n..end).find(|&d| self.is_label(d)) else {
                        break;
                    };
                    while kept_chain.last().is_some_and(|&a| doc.node(a).end <= label) {
                        kept_chain.pop();
                    }
                    let top = kept_chain.last().copied().unwrap_or(root);
                    let mut path: Vec<NodeId> = std::iter::once(label)
                        .chain(doc.ancestors(label).take_while(|&a| a != top))
                        .collect();
                    path.reverse();
                    // Tested from the outermost down, as the walk below
                    // tests them: a dropped one is skipped whole.
                    n = doc.node(label).end;
                    open = Some((label, 0));
                    for a in path {
                        if !self.keeps(a) {
                            n = doc.node(a).end;
                            open = None;
                            break;
                        }
                        kept_chain.push(a);
                    }
                    continue;
                }
                if !self.keeps(n) {
                    // Captions and embedded posts are what a label
                    // introduces ("… in one graph:"), not its box.
                    let media = is_media_text(doc, n, &self.options.media_text, &|m| self.chars(m));
                    if let Some((_, links)) = open.as_mut().filter(|_| !media) {
                        *links += (n..doc.node(n).end)
                            .filter(|&d| doc.tag(d) == "a" && self.chars(d) > 0)
                            .count();
                    }
                    n = doc.node(n).end;
                    continue;
                }
                // A photo or a player right after the label is what it
                // introduces. The parse leaves players out (`<iframe>`,
                // `<object>`), so a paragraph left empty stands for one.
                let introduced =
                    is_media_element(doc.tag(n)) || doc.tag(n) == "p" && doc.node(n).end == n + 1;
                if introduced && open.is_some_and(|(_, links)| links == 0) {
                    open = None;
                }
                if self.is_label(n) {
                    close(open.take(), &mut out);
                    open = Some((n, 0));
                    n = doc.node(n).end;
                    continue;
                }
                if doc.text(n).is_some_and(|t| !t.trim().is_empty()) {
                    open = None;
                }
                n += 1;
            }
        }
        // A label that ends the selection titles what follows it on the
        // page: the list of links the selection left out ("Lesen Sie
        // auch:" above its teasers).
        let mut read_past = false;
        if let (Some((label, links)), Some(&last)) = (open, self.roots.last()) {
            read_past = true;
            open = self
                .links_after(doc.node(last).end)
                .map(|more| (label, links + more));
        }
        close(open, &mut out);
        (out, read_past)
    }

    /// The links that come first on the page from node `from` on, before
    /// any text outside a link (a label's, a heading's, prose); `None`
    /// when a photo or a video comes first.
    fn links_after(&self, from: NodeId) -> Option<usize> {
        let doc = self.doc;
        let mut links = 0;
        let mut n = from;
        while n < doc.len() {
            let tag = doc.tag(n);
            if is_media_element(tag) {
                return (links > 0).then_some(links);
            }
            if tag == "a" {
                links += usize::from(self.chars(n) > 0);
                n = doc.node(n).end;
                continue;
            }
            if doc.text(n).is_some_and(|t| !t.trim().is_empty()) {
                break;
            }
            n += 1;
        }
        Some(links)
    }

    /// Whether element `n` is a label: a paragraph, a `div`, a `dt` or a
    /// heading of at most [`LABEL_CHARS`] whose text ends in a colon
    /// (a heading without one is a section's title more often than a
    /// box's: a standfirst over the story's first box).
    fn is_label(&self, n: NodeId) -> bool {
        let doc = self.doc;
        let tag = doc.tag(n);
        // A line's markup is a few elements; the bound also keeps the
        // search for its last text short.
        if !(is_heading(tag) || matches!(tag, "p" | "div" | "dt"))
            || doc.node(n).end - n > LABEL_NODES
            || self.chars(n) == 0
            || self.chars(n) > LABEL_CHARS
        {
            return false;
        }
        let last = (n + 1..doc.node(n).end)
            .rev()
            .find_map(|d| doc.text(d).map(str::trim_end).filter(|t| !t.is_empty()));
        last.is_some_and(|t| t.ends_with(':') || t.ends_with('\u{ff1a}'))
    }

    /// Whether link-dense block `n` is a list of other sites' pages
    /// ([`CleanOptions::offsite_lists`]).
    fn is_offsite_list(&self, n: NodeId) -> bool {
        let doc = self.doc;
        let (mut links, mut link_chars, mut offsite_chars) = (0u32, 0u32, 0u32);
        // A box under a label of its own ("From our partners", "Link
        // Love") is a promotion, whatever its links: a list opens with its
        // first link.
        let mut labelled = false;
        let mut d = n + 1;
        while d < doc.node(n).end {
            if doc.tag(d) != "a" {
                if links == 0
                    && doc
                        .text(d)
                        .is_some_and(|t| t.chars().any(char::is_alphanumeric))
                {
                    labelled = true;
                }
                d += 1;
                continue;
            }
            let chars = self.counts.chars(d);
            if chars > 0 {
                links += 1;
                link_chars += chars;
                let host = doc.attr_named(d, &local_name!("href")).and_then(link_host);
                let own = self.host.get_or_init(|| page_host(doc));
                if host.is_some_and(|h| own.as_ref().is_some_and(|o| !same_domain(o, &h))) {
                    offsite_chars += chars;
                }
            }
            d = doc.node(d).end;
        }
        links > 0
            && !labelled
            && 3 * offsite_chars >= 2 * link_chars
            && link_chars >= OFFSITE_LINK_CHARS * links
    }

    /// Whether block `n` is an attribution ([`CleanOptions::attributions`]):
    /// at most [`ATTRIBUTION_WORDS`] words, no block inside, words of its
    /// own and then its one link, which points to another host than the
    /// page's.
    fn is_attribution(&self, n: NodeId) -> bool {
        // Six words are never this long: a big block is not read through.
        if self.counts.chars(n) > ATTRIBUTION_CHARS {
            return false;
        }
        let doc = self.doc;
        let inside = n + 1..doc.node(n).end;
        if inside.clone().any(|d| is_block(doc.tag(d))) {
            return false;
        }
        let mut links = inside.clone().filter(|&d| doc.tag(d) == "a");
        let (Some(link), None) = (links.next(), links.next()) else {
            return false;
        };
        let text = doc.inner_text(n);
        if text.split_whitespace().count() > ATTRIBUTION_WORDS {
            return false;
        }
        let words = |t: &str| t.chars().any(char::is_alphanumeric);
        let (mut before, mut after) = (String::new(), String::new());
        for d in inside.filter(|&d| !doc.contains(link, d)) {
            if let Some(t) = doc.text(d) {
                let side = if d < link { &mut before } else { &mut after };
                side.push_str(t);
            }
        }
        if !words(&before) || words(&after) || !words(&doc.inner_text(link)) {
            return false;
        }
        let Some(host) = doc
            .attr_named(link, &local_name!("href"))
            .and_then(link_host)
        else {
            return false;
        };
        self.host
            .get_or_init(|| page_host(doc))
            .as_ref()
            .is_some_and(|own| *own != host)
    }

    /// The nearest block element holding `n`.
    fn block_of(&self, mut n: NodeId) -> NodeId {
        while let Some(p) = self.doc.node(n).parent {
            n = p;
            if is_block(self.doc.tag(n)) {
                break;
            }
        }
        n
    }

    /// The line text node `n` stands on inside its block, if it is one of
    /// its own: the child of the block that holds `n`, when the inline
    /// elements around it have nothing but line breaks, rules, blocks or
    /// white space on either side. Old layouts put a whole column in one
    /// cell and separate its lines with `<br>`: there a line is what a
    /// block is elsewhere.
    fn own_line(&self, n: NodeId, block: NodeId) -> Option<NodeId> {
        let doc = self.doc;
        let mut top = n;
        while let Some(p) = doc.node(top).parent {
            if p == block {
                break;
            }
            top = p;
        }
        if doc.node(top).parent != Some(block) {
            return None;
        }
        // Siblings found through the arena's depth-first layout (a subtree
        // is a range), not by listing the block's children: a column of
        // many lines would make that quadratic.
        let next = |s: NodeId| {
            let e = doc.node(s).end;
            (e < doc.node(block).end).then_some(e)
        };
        let prev = |s: NodeId| {
            let mut p = s - 1;
            if p == block {
                return None;
            }
            while doc.node(p).parent != Some(block) {
                p = doc.node(p).parent?;
            }
            Some(p)
        };
        let blank = |s: NodeId| doc.text(s).is_some_and(|t| t.trim().is_empty());
        let separates = |s: NodeId| {
            doc.text(s).is_none() && (matches!(doc.tag(s), "br" | "hr") || is_block(doc.tag(s)))
        };
        let mut before = prev(top);
        while let Some(s) = before.filter(|&s| blank(s)) {
            before = prev(s);
        }
        let mut after = next(top);
        while let Some(s) = after.filter(|&s| blank(s)) {
            after = next(s);
        }
        (before.is_none_or(separates) && after.is_none_or(separates)).then_some(top)
    }

    /// The index in the selection of the root that holds `n`.
    fn root_of(&self, n: NodeId) -> Option<usize> {
        self.roots.iter().position(|&r| self.doc.contains(r, n))
    }

    /// Whether node `n` is kept (its ancestors are tested separately: a
    /// node under a dropped one is dropped with it).
    pub fn keeps(&self, n: NodeId) -> bool {
        let doc = self.doc;
        if self.pruned.binary_search(&n).is_ok() {
            return false;
        }
        match doc.text(n) {
            // A recurring text is template only when it is its block's
            // whole text, or its line's. A recurring name linked inside a
            // sentence ("…, Michael Fabiano and …"), or a recurring
            // fragment of one ("'s" after a name in bold), is the
            // article's.
            Some(_) if self.residue_chars[n] > 0 => {
                let block = self.block_of(n);
                let all_residue = |e: NodeId| self.residue_chars[e] >= self.chars(e);
                !all_residue(block)
                    && self
                        .own_line(n, block)
                        .is_none_or(|line| !all_residue(line))
            }
            Some(_) => true,
            None if is_media_text(doc, n, &self.options.media_text, &|m| self.chars(m)) => {
                !self.drop_media_text
            }
            None if self.notice[n] && !self.roots.contains(&n) => false,
            None if self.options.forms && doc.tag(n) == "form" => self
                .root_of(n)
                .is_some_and(|i| 2 * self.counts.chars(n) >= self.counts.chars(self.roots[i])),
            None => {
                let limit = match doc.tag(n) {
                    "p" => self.options.paragraph_link_density,
                    tag if is_list_block(tag) => self.options.link_density,
                    _ => return true,
                };
                let share = |part: u32, whole: u32| f64::from(part) / f64::from(whole.max(1));
                let (chars, links) = (self.counts.chars(n), self.counts.link_chars(n));
                let dense = chars > 0
                    && share(links, chars) >= limit
                    && !(self.options.offsite_lists && self.is_offsite_list(n));
                // A box that opens with a label and is partly links ("Also
                // in Lifestyle" + headlines, authors, blurbs) is the
                // template's too, unless it holds most of the selection's
                // prose, its text outside links (an article under a "Filed
                // by" line, next to lists of headlines; a short post that
                // opens with "via <link>"). A link-density rule, off with
                // it (a limit of 1.0 or more), though half that limit
                // could still be met.
                let labelled_box = limit < 1.0
                    && is_list_block(doc.tag(n))
                    && self.labelled[n]
                    && share(links, chars) >= limit / 2.0
                    && self.root_of(n).is_some_and(|i| {
                        let root = self.roots[i];
                        share(self.counts.prose_chars(n), self.counts.prose_chars(root)) < 0.5
                    });
                // A line of template words around links ("Posted in: <News> |
                // <3> comments", "Tags: <a>, <b>"): all its text outside
                // links recurs across the cluster. A URL written out counts
                // as a link, which it is in all but markup ("TrackBack URL
                // for this entry:<br>http://…"); a line break splits the
                // line, not the block.
                let meta_line = self.residue_chars[n] > 0
                    && !self.roots.contains(&n)
                    && !(n + 1..doc.node(n).end)
                        .any(|d| doc.tag(d) != "br" && is_block(doc.tag(d)))
                    && {
                        let links = links + written_url_chars(doc, n);
                        links > 0 && chars - self.residue_chars[n] <= links
                    };
                (!dense && !labelled_box && !meta_line)
                    || (self.options.attributions && self.is_attribution(n))
            }
        }
    }
}

/// Whether an element of this tag shows media: a photo, a video, an
/// embedded player.
fn is_media_element(tag: &str) -> bool {
    matches!(
        tag,
        "img"
            | "picture"
            | "figure"
            | "video"
            | "audio"
            | "iframe"
            | "object"
            | "embed"
            | "svg"
            | "canvas"
    )
}

/// Characters of the text nodes under `n`, outside links, that are a URL
/// written out and nothing else.
fn written_url_chars(doc: &Document, n: NodeId) -> u32 {
    let end = doc.node(n).end;
    let mut chars = 0;
    let mut d = n;
    while d < end {
        if doc.tag(d) == "a" {
            d = doc.node(d).end;
            continue;
        }
        if let Some(t) = doc.text(d) {
            let t = t.trim();
            let url = (t.starts_with("http://") || t.starts_with("https://"))
                && !t.contains(char::is_whitespace);
            if url {
                chars += crate::text_counts::non_white_chars(t);
            }
        }
        d += 1;
    }
    chars
}

/// The text of `roots`, one block a line, without template residue and
/// link-dense blocks.
pub fn clean_text(
    doc: &Document,
    roots: &[NodeId],
    residue: &Residue,
    options: &CleanOptions,
) -> String {
    clean_selection(doc, roots, &[], residue, options)
}

/// [`clean_text`] with the elements of `pruned` left out too.
pub fn clean_selection(
    doc: &Document,
    roots: &[NodeId],
    pruned: &[NodeId],
    residue: &Residue,
    options: &CleanOptions,
) -> String {
    clean_selection_read(doc, roots, pruned, residue, options).0
}

/// [`clean_selection`], and whether it read the page past the selection
/// ([`Kept::reads_past_selection`]).
pub fn clean_selection_read(
    doc: &Document,
    roots: &[NodeId],
    pruned: &[NodeId],
    residue: &Residue,
    options: &CleanOptions,
) -> (String, bool) {
    let (text, kept) = clean_selection_kept(doc, roots, pruned, residue, options);
    (text, kept.reads_past_selection())
}

/// [`clean_selection`], and the keep rule it applied, for a caller that
/// asks more of the same selection (which of its nodes were kept) than its
/// text: the rule's counts are made once.
pub fn clean_selection_kept<'a>(
    doc: &'a Document,
    roots: &[NodeId],
    pruned: &[NodeId],
    residue: &Residue,
    options: &CleanOptions,
) -> (String, Kept<'a>) {
    let kept = Kept::new(doc, roots, residue, options, pruned);
    let mut text = String::new();
    for &root in roots {
        let t = doc.inner_text_where(root, &|n| kept.keeps(n));
        if t.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&t);
    }
    (text, kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    fn doc(html: &str) -> Document {
        Document::parse(html, &DomOptions::default())
    }

    /// The residue of a cluster of `pages`.
    fn learn(pages: &[Document]) -> Residue {
        let refs: Vec<&Document> = pages.iter().collect();
        Residue::learn(&refs)
    }

    /// The first `tag` element of `doc`.
    fn first(doc: &Document, tag: &str) -> NodeId {
        (0..doc.len()).find(|&n| doc.tag(n) == tag).unwrap()
    }

    /// Template residue only: every other rule off.
    fn residue_only() -> CleanOptions {
        CleanOptions {
            residue: true,
            ..CleanOptions::none()
        }
    }

    #[test]
    fn collapsed_text_is_recognised() {
        for t in [
            "",
            " ",
            "a",
            "a b",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "a\nb",
            "a\u{a0}b",
            "été là",
            "\u{3000}x",
        ] {
            assert_eq!(is_collapsed(t), collapse_whitespace(t) == t, "{t:?}");
        }
    }

    #[test]
    fn a_recurring_name_inside_a_sentence_is_kept() {
        let pages = [
            doc("<body><div><p>Hosts Jason, <a>Michael</a> and Elliot talk.</p><p><a>Michael</a></p></div></body>"),
            doc("<body><div><p>Then <a>Michael</a> left.</p><p><a>Michael</a></p></div></body>"),
        ];
        let residue = learn(&pages);
        assert!(residue.contains("Michael"));
        let options = residue_only();
        // In prose the name stays; alone in its block it is template.
        let div = first(&pages[0], "div");
        assert_eq!(
            clean_text(&pages[0], &[div], &residue, &options),
            "Hosts Jason, Michael and Elliot talk."
        );
    }

    #[test]
    fn a_box_under_a_template_label_goes_unless_it_is_the_selection() {
        let page = |story: &str, blurb: &str| {
            doc(&format!(
                "<body><div id=a><p>{story}</p><p>{story}</p><div><b>Also in Lifestyle</b>\
                 <p><a href=/x>{blurb} wins the prize</a> by {blurb} Jones</p></div></div></body>"
            ))
        };
        let pages = [
            page("A long first story, told over many words here.", "Once"),
            page("The second story, also long enough to matter.", "Twice"),
        ];
        let residue = learn(&pages);
        let div = |d: &Document| first(d, "div");
        let options = CleanOptions::default();
        assert_eq!(
            clean_text(&pages[0], &[div(&pages[0])], &residue, &options),
            "A long first story, told over many words here.\nA long first story, told over many words here."
        );
        // Selected alone, the box is the selection: it stays.
        let inner = (div(&pages[0]) + 1..pages[0].len())
            .find(|&n| pages[0].tag(n) == "div")
            .unwrap();
        assert!(clean_text(&pages[0], &[inner], &residue, &options).contains("Once Jones"));
    }

    /// A box headed by a heading that is one link ("More Africa stories",
    /// to the section) and partly links goes, on a single page (no
    /// residue); a part of the story under a linked heading stays: its
    /// text is prose, not links.
    #[test]
    fn a_box_under_a_linked_heading_goes_a_linked_section_of_prose_stays() {
        let story = "The story itself, told in words of its own at some length here.";
        let page = doc(&format!(
            "<body><div id=a><p>{story}</p><p>{story}</p>\
             <div><h2><a href=/africa>More Africa stories</a></h2><ul>\
             <li><h3><a href=/1>Pistorius must face conscience</a></h3>\
             <p>His father says so, telling a newspaper after the athlete was freed on bail.</p></li><li><h3><a href=/2>Elections moved</a></h3></li>\
             </ul></div>\
             <div><h2><a href=/bg>Background</a></h2><p>{story}</p></div></div></body>"
        ));
        let text = clean_text(
            &page,
            &[first(&page, "div")],
            &Residue::default(),
            &CleanOptions::default(),
        );
        assert!(
            !text.contains("Africa") && !text.contains("His father"),
            "{text}"
        );
        assert!(text.contains("Background"), "{text}");
        assert_eq!(text.matches(story).count(), 3, "{text}");
        // With the link-density rules off, the rule is off too, even for
        // a box that is all links.
        let page = doc(&format!(
            "<body><div id=a><p>{story}</p><div><h2><a href=/africa>More Africa stories</a></h2>\
             <ul><li><a href=/2>Elections moved</a></li></ul></div></div></body>"
        ));
        let links_off = CleanOptions {
            link_density: 2.0,
            paragraph_link_density: 2.0,
            ..CleanOptions::default()
        };
        let text = clean_text(
            &page,
            &[first(&page, "div")],
            &Residue::default(),
            &links_off,
        );
        assert!(text.contains("Elections moved"), "{text}");
    }

    /// A label goes with the box of links it titled, inside the selection
    /// or, at its end, on the page after it; one that introduces a photo,
    /// a single link or kept text stays.
    #[test]
    fn a_label_goes_with_its_box_of_links() {
        let story = "The story itself, told in words of its own at some length here.";
        let related = "<ul><li><a href=/1>An older post of the blog</a></li>\
                       <li><a href=/2>Another older post of it</a></li></ul>";
        let clean = |html: &str, orphan_labels: bool| {
            let page = doc(html);
            let options = CleanOptions {
                orphan_labels,
                ..CleanOptions::default()
            };
            clean_text(&page, &[first(&page, "div")], &Residue::default(), &options)
        };
        let cases = [
            // The box inside the selection, then outside it.
            (format!("<body><div><p>{story}</p><p><b>Related posts:</b></p>{related}</div></body>"), false),
            (format!("<body><div><p>{story}</p><p>Read also:</p></div>{related}</body>"), false),
            // What the label introduces.
            (format!("<body><div><p>{story}</p><p>The sunset:</p><p><img src=s.jpg></p>{related}</div></body>"), true),
            // A player the parse leaves out (mediaite's video), its
            // paragraph left empty.
            (format!("<body><div><p>{story}</p><p>Watch it below:</p><p><iframe src=/v></iframe></p>{related}</div></body>"), true),
            (format!("<body><div><p>{story}</p><p>The paper is here:</p><p><a href=/p.pdf>The paper</a></p></div></body>"), true),
            (format!("<body><div><p>{story}</p><p>He wrote:</p><blockquote>{story}</blockquote>{related}</div></body>"), true),
        ];
        for (html, stays) in cases {
            let label = |t: &str| t.lines().any(|l| l.ends_with(':'));
            assert_eq!(label(&clean(&html, true)), stays, "{html}");
            assert!(label(&clean(&html, false)), "without the rule: {html}");
        }
    }

    #[test]
    fn a_line_of_template_words_around_links_goes() {
        // "Posted in: <category> | <n> comments": the words recur, the
        // links differ from page to page.
        let page = |story: &str, category: &str, day: &str| {
            doc(&format!(
                "<body><div id=a><p>{story}</p>\
                 <p>Posted in: <a href=/c>{category}</a> | <a href=/n>comments</a></p>\
                 <p>Listed below are links to weblogs that reference <a href=/p>{story}</a>:</p>\
                 <p>TrackBack URL for this entry:<br><span>http://t.example/trackback/{day}</span></p>\
                 <p>Tags:<br><a href=/t>{category}</a></p>\
                 <p>http://source.example/{day}</p>\
                 <p>Filed on {day} in <a href=/c>{category}</a></p></div></body>"
            ))
        };
        let pages = [
            page(
                "The story of the first page, in a few words.",
                "News",
                "Monday",
            ),
            page(
                "Another story on the second page, short.",
                "Photos",
                "Friday",
            ),
        ];
        let residue = learn(&pages);
        let div = first(&pages[0], "div");
        let text = clean_text(&pages[0], &[div], &residue, &CleanOptions::default());
        assert!(text.starts_with("The story of the first page"), "{text}");
        assert!(
            !text.contains("Posted in") && !text.contains("weblogs"),
            "{text}"
        );
        // A URL written out is a link: beside template words on lines of
        // one block, it goes with them.
        assert!(!text.contains("trackback/"), "{text}");
        assert!(!text.contains("Tags") && !text.contains("\nNews"), "{text}");
        // A URL on a line of its own, a line with words of its own outside
        // its links: they stay.
        assert!(text.contains("http://source.example/Monday"), "{text}");
        assert!(text.contains("Filed on Monday in News"), "{text}");
    }

    #[test]
    fn a_caption_beside_its_image_is_media_text() {
        let article = doc(
            "<body><div id=a><p>The story itself, told over a paragraph of several words.</p>\
             <div class=inline><img src=x.png><span>Figure: snow depth on the glacier</span></div>\
             <p><img src=y.png><br><em>(Credit: A. Photographer)</em></p>\
             <p>A line with an icon <img src=e.png alt=':)'> <em>inside</em> it stays.</p>\
             <p><img src=z.png> A paragraph that opens with an image and holds a whole sentence of the story.</p>\
             <p>And the end of the story, in a second paragraph.</p></div></body>",
        );
        let div = first(&article, "div");
        let text = clean_text(
            &article,
            &[div],
            &Residue::default(),
            &CleanOptions::default(),
        );
        assert!(
            !text.contains("Figure") && !text.contains("Credit"),
            "{text}"
        );
        assert!(
            text.contains("icon") && text.contains("opens with an image"),
            "{text}"
        );
    }

    #[test]
    fn media_text_goes_unless_it_is_most_of_the_selection() {
        let article = doc(
            "<body><div id=a><p>The story itself, told over a paragraph of several words.</p>\
             <div class='wp-caption'><img src=x.jpg><p class=wp-caption-text>A photo</p></div>\
             <figure><img src=y.jpg><figcaption>Another photo</figcaption></figure>\
             <blockquote class=twitter-tweet><p>A tweet about the photo</p></blockquote>\
             <p>And the end of the story, in a second paragraph.</p></div></body>",
        );
        let div = first(&article, "div");
        let clean = |doc: &Document, options: &CleanOptions| {
            clean_text(doc, &[div], &Residue::default(), options)
        };
        let text = clean(&article, &CleanOptions::default());
        assert!(text.contains("The story itself") && text.contains("second paragraph"));
        assert!(!text.contains("photo"), "{text}");
        let off = CleanOptions {
            media_text: Vec::new(),
            ..CleanOptions::default()
        };
        assert!(clean(&article, &off).contains("A photo"));

        // A photo essay: the captions are the article.
        let essay = doc(
            "<body><div id=a><p>Scenes from the parade.</p>\
             <div class=caption><img src=x.jpg><p>A girl dressed for Halloween meets hundreds of others downtown.</p></div>\
             <div class=caption><img src=y.jpg><p>A mother carries her baby, dressed up as a pumpkin.</p></div></div></body>",
        );
        let text = clean(&essay, &CleanOptions::default());
        assert!(
            text.contains("A girl dressed") && text.contains("A mother carries"),
            "{text}"
        );

        // One credit under every photo is no essay: counted once, the
        // captions are a small part of the story and go.
        let credited = doc(&format!(
            "<body><div id=a><p>Photography dominated the front pages, with very few words.</p>{}</div></body>",
            "<div class=caption><img src=x.jpg><p>Front page appears courtesy of the Newseum</p></div>"
                .repeat(6)
        ));
        let text = clean(&credited, &CleanOptions::default());
        assert!(text.contains("Photography dominated"), "{text}");
        assert!(!text.contains("courtesy"), "{text}");
    }

    #[test]
    fn a_labelled_box_holding_the_selections_prose_stays() {
        // The article opens with a template line and a linked byline; the
        // selection also holds a list of headlines, more text than the
        // article but all links.
        let page = |story: &str| {
            doc(&format!(
                "<body><div id=a><div><b>Filed by</b> <a href=/by>Chris Greenberg, Newsroom</a>\
                 <p>{story}</p></div><ul><li><a href=/1>A first headline of the day, long</a></li>\
                 <li><a href=/2>A second headline of the day, long</a></li>\
                 <li><a href=/3>A third headline of the day, long too</a></li></ul></div></body>"
            ))
        };
        let pages = [
            page("The story of the first page, in a few words."),
            page("Another story on the second page, short."),
        ];
        let residue = learn(&pages);
        let div = first(&pages[0], "div");
        let text = clean_text(&pages[0], &[div], &residue, &CleanOptions::default());
        assert!(text.contains("The story of the first page"), "{text}");
        assert!(!text.contains("headline"), "{text}");
    }

    #[test]
    fn a_recurring_line_between_breaks_goes_in_a_one_cell_column() {
        let page = |story: &str| {
            doc(&format!(
                "<body><table><tr><td>{story}<br><br><a href=/s><span>Subscriptions &gt;</span></a>\
                 <br>More of {story}</td></tr></table></body>"
            ))
        };
        let pages = [page("First story."), page("Second story.")];
        let residue = learn(&pages);
        let td = first(&pages[0], "td");
        let options = residue_only();
        assert_eq!(
            clean_text(&pages[0], &[td], &residue, &options),
            "First story.\nMore of First story."
        );
        // Inside a line of prose the same words stay.
        let inline = doc("<body><p>See <a>Subscriptions &gt;</a> for more.</p></body>");
        let p = first(&inline, "p");
        assert_eq!(
            clean_text(&inline, &[p], &residue, &options),
            "See Subscriptions > for more."
        );
    }

    #[test]
    fn a_recurring_fragment_of_a_line_of_prose_stays() {
        // Old layouts write each paragraph as a line of a one-cell column
        // (`<span>` lines between `<br>`s). A fragment that recurs across
        // the cluster ("'s" after a name in bold) is part of its line, not
        // a line of its own: on forbes.com's 2005 pages (big9) "Ford's GT"
        // lost its "'s".
        // The seven pages the pipeline clusters together.
        let ids = [
            "00001", "00003", "00004", "00016", "00018", "00032", "00037",
        ];
        let pages: Vec<Document> = ids
            .iter()
            .map(|id| {
                let path = canopy_test_support::corpus_file(&format!("big9/html/big9-{id}.html"));
                doc(&String::from_utf8_lossy(&std::fs::read(path).unwrap()))
            })
            .collect();
        let residue = learn(&pages);
        assert!(residue.contains("'s"), "the fragment recurs");
        let doc = &pages[3];
        let line = (0..doc.len())
            .find(|&n| doc.attr_named(n, &local_name!("class")) == Some("mainarttxt"))
            .unwrap();
        let column = doc.node(line).parent.unwrap();
        let text = clean_text(doc, &[column], &residue, &residue_only());
        assert!(text.contains("If you saw Ford's GT supercar"), "{text}");
    }

    #[test]
    fn recurring_texts_and_link_lists_are_removed() {
        let pages = [
            doc("<body><div id=a><p>First story text here.</p><p>Share this</p><ul><li><a>Other</a></li><li><a>More</a></li></ul></div></body>"),
            doc("<body><div id=a><p>Second story, <a>a link</a> inside prose.</p><p>Share this</p></div></body>"),
            doc("<body><div id=a><p>Third one.</p><p>Share this</p></div></body>"),
        ];
        let residue = learn(&pages);
        assert!(residue.contains(" Share   this "));
        assert!(!residue.contains("Third one."));
        let div = |d: &Document| first(d, "div");
        let options = CleanOptions::default();
        assert_eq!(
            clean_text(&pages[0], &[div(&pages[0])], &residue, &options),
            "First story text here."
        );
        // A paragraph with a link in it is prose, not a link list.
        assert_eq!(
            clean_text(&pages[1], &[div(&pages[1])], &residue, &options),
            "Second story, a link inside prose."
        );
        // Off switches.
        let off = CleanOptions::none();
        assert_eq!(
            clean_text(&pages[0], &[div(&pages[0])], &residue, &off),
            "First story text here.\nShare this\nOther\nMore"
        );
    }

    /// The host read without the url crate is the one the url crate reads,
    /// for every link of the dev corpora and for links made to trip it.
    #[test]
    fn a_plain_host_is_the_url_crates_host() {
        let by_url = |href: &str| {
            let url = url::Url::parse(href.trim()).ok()?;
            matches!(url.scheme(), "http" | "https").then(|| url.host_str().map(str::to_string))?
        };
        let mut hrefs: Vec<String> = [
            "http://Example.COM/x",
            "HTTPS://www.example.com?q#f",
            "http://example.com",
            "http://example.com:80/",
            "http://user@example.com/",
            "http://example.com\\path",
            "http://0x7f.1/",
            "http://127.0.0.1/",
            "http://example.123/",
            "http://a..b/",
            "http://example.com./",
            "http://xn--nxasmq6b.com/",
            "http://xn--a.com/",
            "http://-a-.com/",
            "http://ex\tample.com/",
            "http:/example.com/",
            "http:example.com",
            "http://",
            "http:///x",
            "http://bücher.de/",
            "http://%41.com/",
            " http://example.com/ ",
            "//example.com/",
            "mailto:a@example.com",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for corpus in ["big9", "dragnet", "trafbench"] {
            let dir = canopy_test_support::corpora().join(corpus);
            for row in canopy_test_support::manifest(corpus) {
                let file = dir.join("html").join(format!("{}.html", row["id"]));
                let page = doc(&String::from_utf8_lossy(&std::fs::read(file).unwrap()));
                for n in 0..page.len() {
                    hrefs.extend(page.attr_named(n, &local_name!("href")).map(str::to_string));
                }
            }
        }
        let mut plain = 0;
        for href in &hrefs {
            if let Some(host) = plain_host(href.trim()) {
                plain += 1;
                assert_eq!(Some(host), by_url(href), "{href:?}");
            }
        }
        // Most links take the plain path, or it would save nothing.
        assert!(plain * 2 > hrefs.len(), "{plain} of {}", hrefs.len());
    }

    /// The region holds each root's parent, which an image caption is
    /// weighed against: counted once there, not over its whole subtree for
    /// each root (thousands of paragraph roots in one deep container cost
    /// the square of the page).
    #[test]
    fn the_region_holds_the_roots_parents() {
        let page = doc("<body><div><span><span><p>One.</p><p>Two.</p><p>Three.</p>\
                        </span></span></div><p>Out.</p></body>");
        let paragraphs: Vec<NodeId> = (0..page.len()).filter(|&n| page.tag(n) == "p").collect();
        let roots = &paragraphs[..3];
        let region = cleaning_region(&page, roots);
        let div = first(&page, "div");
        assert_eq!(region, vec![div..page.node(div).end]);
        let counts = TextCounts::of_subtrees(&page, &region);
        for &root in roots {
            let parent = page.node(root).parent.unwrap();
            assert_eq!(page.tag(parent), "span");
            assert!(region.iter().any(|r| r.contains(&parent)));
            assert_eq!(region_chars(&page, &region, &counts, parent), 14);
        }
        // Outside the region, counted over the subtree.
        assert_eq!(region_chars(&page, &region, &counts, paragraphs[3]), 4);
    }

    /// The keep rule over the region around the selection decides every
    /// node as it does over the whole page, on the dev corpora's pages
    /// with the residue each site's pages learn together, and
    /// selections of each kind: a block, an inline element (whose block is
    /// above it), and two blocks at once.
    #[test]
    fn the_region_keeps_what_the_whole_page_keeps() {
        use std::collections::BTreeMap;
        let mut sites: BTreeMap<String, Vec<Document>> = BTreeMap::new();
        for corpus in ["big9", "dragnet"] {
            let dir = canopy_test_support::corpora().join(corpus);
            for row in canopy_test_support::manifest(corpus) {
                let html = std::fs::read(dir.join(&row["html"])).unwrap();
                sites
                    .entry(row["site"].clone())
                    .or_default()
                    .push(doc(&String::from_utf8_lossy(&html)));
            }
        }
        let options = CleanOptions::default();
        let (mut pages, mut nodes) = (0, 0);
        for docs in sites.values() {
            let residue = learn(docs);
            for page in docs {
                let counts = TextCounts::of(page);
                let body = page.body();
                let with_text = |tags: &[&str], most: u32| {
                    (0..page.len())
                        .filter(|&n| tags.contains(&page.tag(n)) && counts.chars(n) <= most)
                        .max_by_key(|&n| (counts.chars(n), std::cmp::Reverse(n)))
                };
                let half = counts.chars(body) / 2;
                let block = with_text(&["div", "td", "article", "section"], half);
                let inline = with_text(&["span", "font", "em", "b", "a", "p"], half);
                let mut selections: Vec<Vec<NodeId>> = Vec::new();
                selections.extend(block.map(|b| vec![b]));
                selections.extend(inline.map(|i| vec![i]));
                if let Some(b) = block {
                    let kids: Vec<NodeId> = page
                        .children(b)
                        .filter(|&c| page.element(c).is_some())
                        .take(2)
                        .collect();
                    if kids.len() == 2 {
                        selections.push(kids);
                    }
                }
                for roots in selections {
                    let near = Kept::new(page, &roots, &residue, &options, &[]);
                    let whole = Kept::with_region(
                        page,
                        &roots,
                        &residue,
                        &options,
                        std::iter::once(0..page.len()).collect(),
                    )
                    .with_pruned(&[]);
                    for &root in &roots {
                        for n in root..page.node(root).end {
                            assert_eq!(near.keeps(n), whole.keeps(n), "node {n} of {roots:?}");
                            nodes += 1;
                        }
                    }
                }
                pages += 1;
            }
        }
        assert!(
            pages > 900 && nodes > 100_000,
            "{pages} pages, {nodes} nodes"
        );
    }
}
