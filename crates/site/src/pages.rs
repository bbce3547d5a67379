//! A site's parsed pages: held together for a site of at most
//! `run.max_resident_pages` pages and `run.max_resident_bytes` of HTML; for
//! a larger one, written to a temporary
//! file as they are parsed and read back a chunk at a time as each step
//! needs them. A parsed page costs ≈ 136 KB in memory
//! (docs/performance.md, "Memory"), so a site of many thousand pages held
//! whole would pass a gigabyte; on disk its DOM is ≈ a quarter of its HTML
//! ([`crate::page_codec`]), and reading it back costs ≈ 6 % of parsing the
//! page again. Its signatures wait in a file too ([`SiteSignatures`]).

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use canopy_buckets::{BucketReader, Entry, Item, Record};
use canopy_cluster::{evenly_spaced, Signature};
use canopy_dom::{Deadline, Document};
use canopy_signifiers::{page_language, Stems};
use canopy_types::{FeedItem, PageRecord, Reject};

use crate::backlog::Backlog;
use crate::page::Page;
use crate::settings::SiteSettings;
use crate::signatures::SiteSignatures;
use crate::spanfile::{Span, SpanFile, SpanWriter};

/// Pages of a large site read at once: from the bucket, their HTML is held
/// until each is parsed (≈ 140 KB a page on the dev corpora); from the
/// temporary file, their DOMs until each step is done with them.
const READ_CHUNK: usize = 128;

/// Fewest pages a large site's cluster learns from, whatever they weigh:
/// Forest compares sibling pages, two at least.
const MIN_LEARNING_PAGES: usize = 2;

/// What the site steps read of every page without its DOM: its signature
/// and its `WARC-Date`.
fn signature_and_date(page: &Page<'_>) -> (Signature, Option<String>) {
    (Signature::of(&page.doc), page.record.date.clone())
}

enum Source<'f> {
    Held(Vec<Page<'f>>),
    /// The file of parsed pages and where each page is in it.
    Spilled(SpanFile, Vec<Span>),
}

/// The pages of one site that parsed within their budget, in (URL, record
/// id) order, then input order, numbered from 0.
pub struct SitePages<'f> {
    /// Each page's tag-path signature, which groups pages by template:
    /// held, or for a large site in a temporary file.
    pub signatures: SiteSignatures,
    /// Each page's `WARC-Date`: the latest of a cluster's is its wrapper's
    /// learn date.
    pub dates: Vec<Option<String>>,
    /// Each page's bytes of HTML, for a large site: what bounds the pages
    /// learning holds parsed together ([`SitePages::learning`]).
    html: Vec<u64>,
    source: Source<'f>,
    feeds: &'f HashMap<String, FeedItem>,
    settings: &'f SiteSettings,
    backlog: &'f Backlog,
    /// The body stems of the pages small clusters have counted in their
    /// idf, by page ([`SitePages::body_stems`]).
    body_stems: Mutex<HashMap<usize, Arc<Stems>>>,
}

/// Most pages whose body stems a site keeps ([`SitePages::body_stems`]):
/// ≈ 5 KB each (big9's pages: 380–560 distinct stems, 2.0–2.9 KB of text
/// and 8 bytes of offset a stem), so ≈ 5 MB a site at the most. The small clusters of a
/// site count nearly the same evenly spaced pages, so a few hundred are
/// kept on a site of thousands of small clusters; past the bound, a page
/// is analysed again each time it is counted.
const KEPT_BODY_STEMS: usize = 1024;

impl<'f> SitePages<'f> {
    /// Parses a site's records (sorted by URL) and holds the pages. A page
    /// over its budget goes to `rejects`.
    pub fn hold(
        records: Vec<PageRecord>,
        feeds: &'f HashMap<String, FeedItem>,
        settings: &'f SiteSettings,
        backlog: &'f Backlog,
        rejects: &mut Vec<Reject>,
    ) -> SitePages<'f> {
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
        let (signatures, dates) = backlog.map(&pages, signature_and_date).into_iter().unzip();
        SitePages {
            signatures: SiteSignatures::Held(signatures),
            dates,
            html: Vec::new(),
            source: Source::Held(pages),
            feeds,
            settings,
            backlog,
            body_stems: Mutex::default(),
        }
    }

    /// Reads and parses a site's pages at `entries` a chunk at a time,
    /// and holds none: each page goes to a temporary file in `spill_dir`,
    /// its signature to another, its date into [`SitePages::dates`]. A page over
    /// its budget goes to `rejects`; an error only when the bucket cannot be
    /// read or a file written.
    pub fn read(
        reader: &BucketReader,
        mut entries: Vec<Entry>,
        spill_dir: &Path,
        feeds: &'f HashMap<String, FeedItem>,
        settings: &'f SiteSettings,
        backlog: &'f Backlog,
        rejects: &mut Vec<Reject>,
    ) -> io::Result<SitePages<'f>> {
        entries.sort_by_key(|e| e.pos);
        let mut page_file = SpanWriter::new_in("parsed page", spill_dir)?;
        let mut signature_file = SpanWriter::new_in("signature", spill_dir)?;
        let mut signature_bytes = Vec::new();
        let mut pages = Vec::with_capacity(entries.len());
        for chunk in entries.chunks(READ_CHUNK) {
            // Read in order, decoded and parsed in parallel.
            let frames = reader.read_frames(chunk)?;
            let parsed = backlog.map(chunk.iter().zip(frames), |(entry, frame)| {
                let record = page_record(reader.decode(entry, frame)?)?;
                let html = record.html.len() as u64;
                io::Result::Ok(parse(record, feeds, settings).map(|page| {
                    let key = (page.record.url.clone(), page.record.record_id.clone());
                    let bytes = crate::page_codec::encode(&page);
                    (key, bytes, signature_and_date(&page), html)
                }))
            });
            for page in parsed {
                match page? {
                    Ok((key, bytes, (signature, date), html)) => {
                        let at = page_file.write(&bytes?)?;
                        signature_bytes.clear();
                        signature.encode(&mut signature_bytes);
                        let signature_at = signature_file.write(&signature_bytes)?;
                        pages.push((key, at, signature_at, date, html));
                    }
                    Err(reject) => rejects.push(*reject),
                }
            }
        }
        // Stable: equal (url, record_id) keep input order, as `hold`'s
        // records do.
        pages.sort_by(|(a, ..), (b, ..)| a.cmp(b));
        let mut spans = Vec::with_capacity(pages.len());
        let mut signature_spans = Vec::with_capacity(pages.len());
        let mut dates = Vec::with_capacity(pages.len());
        let mut html = Vec::with_capacity(pages.len());
        for (_, at, signature_at, date, bytes) in pages {
            spans.push(at);
            signature_spans.push(signature_at);
            dates.push(date);
            html.push(bytes);
        }
        Ok(SitePages {
            signatures: SiteSignatures::Spilled(signature_file.finish()?, signature_spans),
            dates,
            html,
            source: Source::Spilled(page_file.finish()?, spans),
            feeds,
            settings,
            backlog,
            body_stems: Mutex::default(),
        })
    }

    pub fn len(&self) -> usize {
        self.dates.len()
    }

    /// The pages among `members` that learning reads: all of them when the
    /// pages are held, else at most `forest.max_learn_pages` evenly spaced,
    /// never more than `run.max_resident_pages` and, as far as two pages
    /// allow, no more HTML than `run.max_resident_bytes`: learning holds
    /// them parsed together, as a site held whole is.
    pub fn learning(&self, members: &[usize]) -> Vec<usize> {
        match self.source {
            Source::Held(_) => members.to_vec(),
            Source::Spilled(..) => {
                let (learn, resident) = (
                    self.settings.max_learn_pages,
                    self.settings.max_resident_pages,
                );
                let max = if learn == 0 {
                    resident
                } else {
                    learn.min(resident)
                };
                let budget = self.settings.max_resident_bytes;
                let mut sample = evenly_spaced(members, max);
                loop {
                    let html: u64 = sample.iter().map(|&i| self.html[i]).sum();
                    if budget == 0 || html <= budget || sample.len() <= MIN_LEARNING_PAGES {
                        return sample;
                    }
                    // As many pages as the budget holds at the sample's mean
                    // size, and one fewer at least, so the loop ends.
                    let fitting =
                        (sample.len() as u128 * u128::from(budget) / u128::from(html)) as usize;
                    let fewer = fitting.clamp(MIN_LEARNING_PAGES, sample.len() - 1);
                    sample = evenly_spaced(members, fewer);
                }
            }
        }
    }

    /// `f` of each page at `indices`, in parallel as the [`Backlog`]
    /// allows, handed to `each` in order (a chunk at a time when the pages
    /// are on disk, so that what `f` returns is not held for every page).
    pub fn visit<R: Send>(
        &self,
        indices: &[usize],
        f: impl Fn(&Page<'f>) -> R + Sync,
        mut each: impl FnMut(R) -> io::Result<()>,
    ) -> io::Result<()> {
        match &self.source {
            Source::Held(pages) => self
                .backlog
                .map(indices, |&i| f(&pages[i]))
                .into_iter()
                .try_for_each(each),
            Source::Spilled(..) => self.read_again(indices, |page| f(&page), &mut each),
        }
    }

    /// The distinct stems of the bodies of the pages at `indices`, in that
    /// order ([`Page::body_stems`]): what a small cluster's idf counts of the
    /// site's other pages. Each of a site's small clusters counts up to
    /// `BACKGROUND_PAGES` of them, so they are kept (up to
    /// [`KEPT_BODY_STEMS`] pages) and a page is analysed, and read back
    /// from disk on a large site, once rather than for every small cluster.
    pub fn body_stems(&self, indices: &[usize]) -> io::Result<Vec<Arc<Stems>>> {
        let missing: Vec<usize> = {
            let kept = self.body_stems.lock().unwrap_or_else(|e| e.into_inner());
            indices
                .iter()
                .copied()
                .filter(|i| !kept.contains_key(i))
                .collect()
        };
        let mut fresh = HashMap::new();
        self.visit(
            &missing,
            |page| (page.index, Arc::new(page.body_stems())),
            |(i, stems)| {
                fresh.insert(i, stems);
                Ok(())
            },
        )?;
        let mut kept = self.body_stems.lock().unwrap_or_else(|e| e.into_inner());
        let stems = indices
            .iter()
            .map(|i| {
                kept.get(i)
                    .or_else(|| fresh.get(i))
                    .cloned()
                    .ok_or_else(|| io::Error::other(format!("page {i} of the site was not read")))
            })
            .collect();
        for (i, s) in fresh {
            if kept.len() < KEPT_BODY_STEMS {
                kept.insert(i, s);
            }
        }
        stems
    }

    /// `f` of the pages at `indices` together.
    pub fn with<R>(&self, indices: &[usize], f: impl FnOnce(&[&Page<'f>]) -> R) -> io::Result<R> {
        match &self.source {
            Source::Held(pages) => {
                let held: Vec<&Page<'f>> = indices.iter().map(|&i| &pages[i]).collect();
                Ok(f(&held))
            }
            Source::Spilled(..) => {
                let mut read = Vec::with_capacity(indices.len());
                self.read_again(
                    indices,
                    |page| page,
                    |page| {
                        read.push(page);
                        Ok(())
                    },
                )?;
                let held: Vec<&Page<'f>> = read.iter().collect();
                Ok(f(&held))
            }
        }
    }

    /// Reads the pages at `indices` from their file a chunk at a time and
    /// hands `f` of each, once decoded, to `each`.
    fn read_again<R: Send>(
        &self,
        indices: &[usize],
        f: impl Fn(Page<'f>) -> R + Sync,
        mut each: impl FnMut(R) -> io::Result<()>,
    ) -> io::Result<()> {
        let Source::Spilled(file, spans) = &self.source else {
            unreachable!("only a large site's pages are read again");
        };
        for chunk in indices.chunks(READ_CHUNK) {
            // Read in order under the file's lock, decoded in parallel.
            let bytes = file.read(chunk.iter().map(|&i| spans[i]), |b| Ok(b.to_vec()))?;
            let decoded: Vec<io::Result<R>> =
                self.backlog
                    .map(chunk.iter().zip(bytes), |(&index, bytes)| {
                        let mut page = crate::page_codec::decode(&bytes, self.feeds)?;
                        page.index = index;
                        Ok(f(page))
                    });
            for r in decoded {
                each(r.map_err(|e| file.error(e))?)?;
            }
        }
        Ok(())
    }
}

/// The page record of a bucket record the index called a page.
fn page_record(record: Record) -> io::Result<PageRecord> {
    match record.item {
        Item::Page(page) => Ok(page),
        Item::Feed(feed) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the bucket index says page, the record is feed item {}",
                feed.url
            ),
        )),
    }
}

/// Parses a page within its budget (else its reject), reads the language
/// it declares and finds its feed item. Its HTML is freed once parsed: a
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
    let declared = [
        doc.http_equiv("content-language"),
        record.content_language.as_deref(),
    ];
    let lang = page_language(doc.lang(), &declared);
    Ok(Page::new(record, doc, lang, start.elapsed(), feeds))
}
