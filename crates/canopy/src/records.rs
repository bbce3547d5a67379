//! The records of one WARC or ARC file, as an iterator: [`read_warc`].

use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver};

use canopy_ingest::{Event, IngestOptions};

use canopy_site::Config;

use crate::{Error, Result, Settings};

/// Events read ahead of the caller at most: memory stays bounded whatever
/// the file's size (a page is at most `ingest.max_page_bytes`).
const READ_AHEAD: usize = 64;

/// The records of a WARC file, in file order, as they are read.
pub struct Records {
    events: Receiver<Event>,
}

impl Iterator for Records {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.events.recv().ok()
    }
}

/// Reads the WARC or ARC file at `path` (plain, `.gz`, `.zst` or `.lz4`,
/// told from its bytes) on a thread of its own: its HTML pages decoded to
/// UTF-8, its feeds, and a [`canopy_types::Reject`] with its reason for
/// each record that cannot be used, as `canopy run` reads them (the
/// `ingest` settings). An error only when the file cannot be opened;
/// damage further in is a reject, and the records before it are kept.
/// After the iterator is dropped, the thread reads on to the end of the
/// file and keeps nothing.
pub fn read_warc(path: &Path, settings: &Settings) -> Result<Records> {
    let file = std::fs::File::open(path).map_err(|error| Error::Io {
        what: format!("cannot read {}", path.display()),
        error,
    })?;
    drop(file);
    let options = ingest_options(&settings.config);
    let path = path.to_path_buf();
    let (sender, events) = sync_channel(READ_AHEAD);
    std::thread::Builder::new()
        .name("canopy-read-warc".into())
        .spawn(move || {
            let mut open = true;
            let result = canopy_ingest::read_warc(&path, &options, &mut |event| {
                // Once the caller is gone, nothing is sent (the reader
                // has no way to stop early).
                open = open && sender.send(event).is_ok();
            });
            if let Err(error) = result {
                let _ = sender.send(Event::Reject(canopy_types::Reject {
                    source: canopy_types::SourceRef {
                        file: path.display().to_string(),
                        offset: None,
                    },
                    record_id: None,
                    url: None,
                    stage: canopy_types::Stage::Warc,
                    reason: format!("cannot read the file: {error}"),
                }));
            }
        })
        .map_err(|error| Error::Io {
            what: "cannot start a reading thread".into(),
            error,
        })?;
    Ok(Records { events })
}

/// The reading limits of `config` (the partition adds how it inflates).
pub(crate) fn ingest_options(config: &Config) -> IngestOptions {
    IngestOptions {
        max_page_bytes: config.ingest.max_page_bytes,
        max_decoded_bytes: config.ingest.max_decoded_bytes,
        max_feed_bytes: config.ingest.max_feed_bytes,
        // A feed's parse has the time budget of a page's.
        feed_budget: (config.run.page_budget_ms > 0)
            .then(|| std::time::Duration::from_millis(config.run.page_budget_ms)),
        ..IngestOptions::default()
    }
}
