//! The WET writer's files read back with fastwarc (the reader Canopy's ingest
//! uses, in strict mode): record types, headers, digests and text.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use canopy_output::wet::{write_wet, WetRecord};
use fastwarc::warc::header::WarcHeader;
use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
use fastwarc::warc::record::WarcRecordType;

/// What a reader sees of one record.
#[derive(Debug)]
struct ReadRecord {
    kind: WarcRecordType,
    headers: Vec<(String, String)>,
    block: Vec<u8>,
    digest_ok: bool,
}

impl ReadRecord {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} in {:?}", self.headers))
    }
}

fn read_back(path: &Path) -> Vec<ReadRecord> {
    let options = ArchiveIteratorOptions {
        parse_http: false,
        quirks_mode: false,
        ..ArchiveIteratorOptions::default()
    };
    let reader = BufReader::new(File::open(path).unwrap());
    let mut out = Vec::new();
    for item in ArchiveIterator::with_options(reader, options) {
        let shared = item.expect("fastwarc reads every record");
        let mut record = shared.borrow_mut();
        let digest_ok = record.verify_block_digest(false).unwrap();
        let headers = [
            WarcHeader::WarcType,
            WarcHeader::WarcTargetUri,
            WarcHeader::WarcDate,
            WarcHeader::WarcRecordId,
            WarcHeader::WarcRefersTo,
            WarcHeader::WarcFilename,
            WarcHeader::ContentType,
        ]
        .into_iter()
        .filter_map(|h| {
            let value = record.headers().get(&h)?.into_owned();
            Some((AsRef::<str>::as_ref(&h).to_string(), value))
        })
        .collect();
        let mut block = Vec::new();
        record
            .reader_mut()
            .unwrap()
            .read_to_end(&mut block)
            .unwrap();
        out.push(ReadRecord {
            kind: record.record_type(),
            headers,
            block,
            digest_ok,
        });
    }
    out
}

fn sample() -> Vec<WetRecord<'static>> {
    vec![
        WetRecord {
            url: "http://example.com/a",
            refers_to: "<urn:uuid:c67c2922-8dc1-5a87-b625-45904dec08d2>",
            date: Some("2005-06-01T12:00:00Z"),
            text: "Ein Titel\nÜber Straßen, 東京 und café.\n",
        },
        WetRecord {
            url: "http://example.com/b?q=1",
            refers_to: "<urn:uuid:2202c4ea-1131-51c7-9cd7-59889f019484>",
            // ClueWeb09-style invalid date: the warcinfo date is used.
            date: Some("2009-03-65T08:43:19-0800"),
            text: "",
        },
        WetRecord {
            url: "http://example.com/c",
            refers_to: "<urn:uuid:010bfd77-d1fb-5cb1-8d5c-50f6f61e4c8f>",
            date: Some("2013-01-02T03:04:05+01:00"),
            text: "Third\r\nwith a CRLF inside",
        },
    ]
}

#[test]
fn gzip_wet_reads_back_with_fastwarc() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("articles.warc.gz");
    let records = sample();
    write_wet(&path, &records).unwrap();

    let bytes = std::fs::read(&path).unwrap();
    // One gzip member per record, checked by decoding member by member.
    let members = canopy_test_support::gzip_member_ends(&bytes).len();
    assert_eq!(members, records.len() + 1);

    let read = read_back(&path);
    assert_eq!(read.len(), records.len() + 1);
    assert_eq!(read[0].kind, WarcRecordType::WarcInfo);
    assert_eq!(read[0].header("WARC-Filename"), "articles.warc.gz");
    // The latest valid source date.
    assert_eq!(read[0].header("WARC-Date"), "2013-01-02T02:04:05Z");
    for (got, want) in read[1..].iter().zip(&records) {
        assert_eq!(got.kind, WarcRecordType::Conversion);
        assert!(got.digest_ok, "{:?}", got.headers);
        assert_eq!(got.header("WARC-Target-URI"), want.url);
        assert_eq!(got.header("WARC-Refers-To"), want.refers_to);
        assert_eq!(got.header("Content-Type"), "text/plain");
        assert_eq!(std::str::from_utf8(&got.block).unwrap(), want.text);
    }
    assert_eq!(read[1].header("WARC-Date"), "2005-06-01T12:00:00Z");
    assert_eq!(read[2].header("WARC-Date"), "2013-01-02T02:04:05Z");
    let ids: std::collections::BTreeSet<&str> =
        read.iter().map(|r| r.header("WARC-Record-ID")).collect();
    assert_eq!(ids.len(), read.len(), "record ids are unique");
}

#[test]
fn plain_wet_and_same_bytes_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let records = sample();
    let a = dir.path().join("a.warc");
    write_wet(&a, &records).unwrap();
    let read = read_back(&a);
    assert_eq!(read.len(), records.len() + 1);
    assert!(read.iter().all(|r| r.digest_ok));
    assert!(std::fs::read(&a).unwrap().starts_with(b"WARC/1.0\r\n"));

    let first = std::fs::read(&a).unwrap();
    write_wet(&a, &records).unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), first);
    let gz1 = dir.path().join("x.warc.gz");
    write_wet(&gz1, &records).unwrap();
    let once = std::fs::read(&gz1).unwrap();
    write_wet(&gz1, &records).unwrap();
    assert_eq!(std::fs::read(&gz1).unwrap(), once);
    // Nothing but the two outputs is left in the folder.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}
