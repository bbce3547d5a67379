//! A site's parsed pages: held together for a site of at most
//! `run.max_resident_pages` pages, parsed again from the bucket whenever a
//! step needs them for a larger one. A parsed page costs ≈ 136 KB
//! (docs/performance.md, "Memory"), so a site of many thousand pages held
//! whole would pass a gigabyte; parsed again, it holds a chunk of pages and
//! its clusters' learning samples instead, at the price of parsing each page
//! twice (once for its signature and title, once for learning or its
//! article) and, in a cluster larger than its sample, the sample a third
//! time. Its signatures wait in a temporary file ([`SiteSignatures`]).

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use canopy_buckets::{BucketReader, Entry, Item};
use canopy_cluster::{evenly_spaced, Signature};
use canopy_dom::{Deadline, Document};
use canopy_signifiers::{detect_language, Language};
use canopy_types::{FeedItem, PageRecord, Reject};

use crate::backlog::Backlog;
use crate::signatures::{SignatureWriter, SiteSignatures};
use crate::site::{raw_title, SiteSettings};

/// Pages of a large site read from the bucket at once: their HTML is held
/// until each is parsed (≈ 140 KB a page on the dev corpora).
const READ_CHUNK: usize = 128;

/// A parsed page with what every method needs.
pub struct Page<'f> {
    /// Its position among the site's pages ([`SitePages`]).
    pub index: usize,
    /// Its record, without the HTML (freed once parsed).
    pub record: PageRecord,
    pub doc: Document,
    pub lang: Language,
    pub feed: Option<&'f FeedItem>,
    /// Time spent on this page so far (its parse); its extraction gets
    /// what is left of the page budget.
    pub spent: Duration,
}

/// What the site steps read of every page besides its signature, without
/// its DOM.
pub struct PageInfo {
    /// [`raw_title`]: the siblings' titles that each title is cleaned with.
    pub title: String,
    /// `WARC-Date`: the latest is a wrapper's learn date.
    pub date: Option<String>,
}

impl PageInfo {
    /// The page's signature, and the rest.
    fn of(page: &Page<'_>) -> (Signature, PageInfo) {
        let info = PageInfo {
            title: raw_title(&page.doc),
            date: page.record.date.clone(),
        };
        (Signature::of(&page.doc), info)
    }
}

enum Source<'f, 'r> {
    Held(Vec<Page<'f>>),
    /// Each page's bucket entry.
    Bucket(&'r BucketReader, Vec<Entry>),
}

/// The pages of one site that parsed within their budget, in (URL, record
/// id) order, then input order, numbered from 0.
pub struct SitePages<'f, 'r> {
    /// Each page's tag-path signature, which groups pages by template:
    /// held, or for a site parsed again in a temporary file.
    pub signatures: SiteSignatures,
    pub infos: Vec<PageInfo>,
    source: Source<'f, 'r>,
    feeds: &'f HashMap<String, FeedItem>,
    settings: &'f SiteSettings,
    backlog: &'f Backlog,
}

impl<'f, 'r> SitePages<'f, 'r> {
    /// Parses a site's records (sorted by URL) and holds the pages. A page
    /// over its budget goes to `rejects`.
    pub fn hold(
        records: Vec<PageRecord>,
        feeds: &'f HashMap<String, FeedItem>,
        settings: &'f SiteSettings,
        backlog: &'f Backlog,
        rejects: &mut Vec<Reject>,
    ) -> SitePages<'f, 'r> {
        // Parsing is most of the work (docs/performance.md): a site's pages
        // are parsed in parallel when no other site waits (`Backlog`).
        let parsed = backlog.map(records, |record| parse(record, feeds, settings));
        let mut pages = Vec::with_capacity(parsed.len());
        for page in parsed {
            match page {
                Ok(mut page) => {
                    page.index = pages.len();
                    pages.push(page);
                }
                Err(reject) => rejects.push(*reject),
            }
        }
        let (signatures, infos) = backlog.map(&pages, PageInfo::of).into_iter().unzip();
        SitePages {
            signatures: SiteSignatures::Held(signatures),
            infos,
            source: Source::Held(pages),
            feeds,
            settings,
            backlog,
        }
    }

    /// Reads and parses a site's pages at `entries` a chunk at a time, for
    /// their signatures (into a temporary file in `spill_dir`) and titles,
    /// and holds none. A page over its budget goes to `rejects`; an error
    /// only when the bucket cannot be read or the file written.
    pub fn read(
        reader: &'r BucketReader,
        mut entries: Vec<Entry>,
        spill_dir: &Path,
        feeds: &'f HashMap<String, FeedItem>,
        settings: &'f SiteSettings,
        backlog: &'f Backlog,
        rejects: &mut Vec<Reject>,
    ) -> io::Result<SitePages<'f, 'r>> {
        entries.sort_by_key(|e| e.pos);
        let mut writer = SignatureWriter::new_in(spill_dir)?;
        let mut pages = Vec::with_capacity(entries.len());
        for chunk in entries.chunks(READ_CHUNK) {
            let records = load_pages(reader, chunk)?;
            let parsed: Vec<Result<_, Box<Reject>>> =
                backlog.map(records.into_iter().zip(chunk), |(record, &entry)| {
                    let page = parse(record, feeds, settings)?;
                    let key = (page.record.url.clone(), page.record.record_id.clone());
                    Ok((key, entry, PageInfo::of(&page)))
                });
            for page in parsed {
                match page {
                    Ok((key, entry, (signature, info))) => {
                        let span = writer.write(&signature)?;
                        pages.push((key, entry, span, info));
                    }
                    Err(reject) => rejects.push(*reject),
                }
            }
        }
        // Stable: equal (url, record_id) keep input order, as `hold`'s
        // records do.
        pages.sort_by(|(a, ..), (b, ..)| a.cmp(b));
        let mut entries = Vec::with_capacity(pages.len());
        let mut spans = Vec::with_capacity(pages.len());
        let mut infos = Vec::with_capacity(pages.len());
        for (_, entry, span, info) in pages {
            entries.push(entry);
            spans.push(span);
            infos.push(info);
        }
        Ok(SitePages {
            signatures: SiteSignatures::Spilled(writer.finish(spans)?),
            infos,
            source: Source::Bucket(reader, entries),
            feeds,
            settings,
            backlog,
        })
    }

    pub fn len(&self) -> usize {
        self.infos.len()
    }

    /// The pages among `members` that learning reads: all of them when the
    /// pages are held, else at most `forest.max_learn_pages` evenly spaced,
    /// and never more than `run.max_resident_pages`.
    pub fn learning(&self, members: &[usize]) -> Vec<usize> {
        match self.source {
            Source::Held(_) => members.to_vec(),
            Source::Bucket(..) => {
                let (learn, resident) = (
                    self.settings.max_learn_pages,
                    self.settings.max_resident_pages,
                );
                let max = if learn == 0 {
                    resident
                } else {
                    learn.min(resident)
                };
                evenly_spaced(members, max)
            }
        }
    }

    /// `f` of each page at `indices`, in parallel as the [`Backlog`]
    /// allows, handed to `each` in order (a chunk at a time when parsed
    /// again, so that what `f` returns is not held for every page). A page
    /// parsed again that passes its budget this time gives its reject
    /// instead.
    pub fn visit<R: Send>(
        &self,
        indices: &[usize],
        f: impl Fn(&Page<'f>) -> R + Sync,
        mut each: impl FnMut(Result<R, Box<Reject>>) -> io::Result<()>,
    ) -> io::Result<()> {
        match &self.source {
            Source::Held(pages) => self
                .backlog
                .map(indices, |&i| Ok(f(&pages[i])))
                .into_iter()
                .try_for_each(each),
            Source::Bucket(..) => self.parse_again(indices, |page| f(&page), &mut each),
        }
    }

    /// `f` of the pages at `indices` together. Parsed again, a page over
    /// its budget this time is left out (of a learning sample; its own
    /// extraction parses it once more, and rejects it if it is over again).
    pub fn with<R>(&self, indices: &[usize], f: impl FnOnce(&[&Page<'f>]) -> R) -> io::Result<R> {
        match &self.source {
            Source::Held(pages) => {
                let held: Vec<&Page<'f>> = indices.iter().map(|&i| &pages[i]).collect();
                Ok(f(&held))
            }
            Source::Bucket(..) => {
                let mut parsed = Vec::with_capacity(indices.len());
                self.parse_again(
                    indices,
                    |page| page,
                    |page| {
                        parsed.extend(page.ok());
                        Ok(())
                    },
                )?;
                let held: Vec<&Page<'f>> = parsed.iter().collect();
                Ok(f(&held))
            }
        }
    }

    /// Reads the pages at `indices` from the bucket a chunk at a time and
    /// hands `f` of each, once parsed, to `each`.
    fn parse_again<R: Send>(
        &self,
        indices: &[usize],
        f: impl Fn(Page<'f>) -> R + Sync,
        mut each: impl FnMut(Result<R, Box<Reject>>) -> io::Result<()>,
    ) -> io::Result<()> {
        let Source::Bucket(reader, entries) = &self.source else {
            unreachable!("only a bucket's pages are parsed again");
        };
        for chunk in indices.chunks(READ_CHUNK) {
            let at: Vec<Entry> = chunk.iter().map(|&i| entries[i]).collect();
            let records = load_pages(reader, &at)?;
            self.backlog
                .map(chunk.iter().zip(records), |(&index, record)| {
                    let mut page = parse(record, self.feeds, self.settings)?;
                    page.index = index;
                    Ok(f(page))
                })
                .into_iter()
                .try_for_each(&mut each)?;
        }
        Ok(())
    }
}

/// The page records at `entries`.
fn load_pages(reader: &BucketReader, entries: &[Entry]) -> io::Result<Vec<PageRecord>> {
    reader
        .load(entries)?
        .into_iter()
        .map(|r| match r.item {
            Item::Page(page) => Ok(page),
            Item::Feed(feed) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the bucket index says page, the record is feed item {}",
                    feed.url
                ),
            )),
        })
        .collect()
}

/// Parses a page within its budget (else its reject), detects its
/// language and finds its feed item. Its HTML is freed once parsed: a
/// site holds its DOMs, not its DOMs and its HTML. `index` is left 0.
fn parse<'f>(
    mut record: PageRecord,
    feeds: &'f HashMap<String, FeedItem>,
    settings: &SiteSettings,
) -> Result<Page<'f>, Box<Reject>> {
    let html = std::mem::take(&mut record.html);
    let start = Instant::now();
    let deadline = Deadline::after(settings.page_budget);
    let doc = Document::parse_within(&html, &settings.dom, deadline)
        .map_err(|over| Box::new(settings.budget_reject(&record, &over.to_string())))?;
    drop(html);
    // The first 2000 characters of the body's text, without concatenating
    // all of it first.
    let sample: String = doc
        .text_nodes(doc.body())
        .flat_map(|(_, t)| t.chars())
        .take(2000)
        .collect();
    let lang = detect_language(doc.lang(), &sample);
    let feed = feeds.get(&canopy_ingest::normalize_url(&record.url));
    Ok(Page {
        index: 0,
        record,
        doc,
        lang,
        feed,
        spent: start.elapsed(),
    })
}
