//! Streaming k-way merge of sorted output files: the buckets' outputs are
//! each sorted and hold disjoint sites, so merging them by the same key
//! gives the order a single run writes. Lines are copied byte for byte;
//! only the key fields are parsed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

fn invalid(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

/// Merges JSON-lines files, each sorted by `key`, into `out`; equal keys
/// keep the order of `inputs`. A missing input counts as empty. Returns the
/// number of lines written.
pub fn merge_jsonl<K: Ord>(
    inputs: &[PathBuf],
    key: impl Fn(&[u8]) -> serde_json::Result<K>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let mut readers = Vec::with_capacity(inputs.len());
    for path in inputs {
        match File::open(path) {
            Ok(f) => readers.push(Some(BufReader::new(f))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => readers.push(None),
            Err(e) => return Err(invalid(path, e)),
        }
    }
    let mut lines: Vec<Vec<u8>> = vec![Vec::new(); inputs.len()];
    let mut heap = BinaryHeap::new();
    // Reads input `i`'s next line into `lines[i]` and queues it by key.
    let mut advance = |i: usize,
                       lines: &mut Vec<Vec<u8>>,
                       heap: &mut BinaryHeap<Reverse<(K, usize)>>|
     -> io::Result<()> {
        let Some(reader) = readers[i].as_mut() else {
            return Ok(());
        };
        lines[i].clear();
        if reader
            .read_until(b'\n', &mut lines[i])
            .map_err(|e| invalid(&inputs[i], e))?
            == 0
        {
            return Ok(());
        }
        let k = key(&lines[i]).map_err(|e| invalid(&inputs[i], e))?;
        heap.push(Reverse((k, i)));
        Ok(())
    };
    for i in 0..inputs.len() {
        advance(i, &mut lines, &mut heap)?;
    }
    let mut written = 0;
    while let Some(Reverse((_, i))) = heap.pop() {
        out.write_all(&lines[i])?;
        if !lines[i].ends_with(b"\n") {
            out.write_all(b"\n")?;
        }
        written += 1;
        advance(i, &mut lines, &mut heap)?;
    }
    Ok(written)
}

/// Merges CSV files with one header, each sorted by its first `key_fields`
/// fields, into `out`; records are rewritten with the csv crate's default
/// (minimal) quoting, which is how they were written. All empty gives an
/// empty file, as a run with no rows does. Returns the rows written.
pub fn merge_csv(inputs: &[PathBuf], key_fields: usize, out: &mut dyn Write) -> io::Result<u64> {
    let mut readers = Vec::new();
    let mut header: Option<csv::ByteRecord> = None;
    for path in inputs {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(invalid(path, e)),
        };
        let mut reader = csv::Reader::from_reader(BufReader::new(file));
        let h = reader.byte_headers().map_err(|e| invalid(path, e))?.clone();
        if h.is_empty() {
            continue;
        }
        match &header {
            Some(first) if *first != h => {
                return Err(invalid(path, "header differs from the other buckets'"))
            }
            _ => header = Some(h),
        }
        readers.push((path, reader));
    }
    let Some(header) = header else {
        return Ok(0);
    };
    let mut csv_out = csv::Writer::from_writer(out);
    csv_out.write_byte_record(&header)?;
    let key = |r: &csv::ByteRecord| -> Vec<Vec<u8>> {
        r.iter().take(key_fields).map(<[u8]>::to_vec).collect()
    };
    let mut current: Vec<csv::ByteRecord> = vec![csv::ByteRecord::new(); readers.len()];
    let mut heap = BinaryHeap::new();
    for (i, (path, reader)) in readers.iter_mut().enumerate() {
        if reader
            .read_byte_record(&mut current[i])
            .map_err(|e| invalid(path, e))?
        {
            heap.push(Reverse((key(&current[i]), i)));
        }
    }
    let mut written = 0;
    while let Some(Reverse((_, i))) = heap.pop() {
        csv_out.write_byte_record(&current[i])?;
        written += 1;
        let (path, reader) = &mut readers[i];
        if reader
            .read_byte_record(&mut current[i])
            .map_err(|e| invalid(path, e))?
        {
            heap.push(Reverse((key(&current[i]), i)));
        }
    }
    csv_out.flush()?;
    Ok(written)
}

/// The order of `articles.jsonl`: (site, cluster, url, record_id).
pub fn article_key(line: &[u8]) -> serde_json::Result<(String, String, String, String)> {
    #[derive(Deserialize)]
    struct K {
        site: String,
        cluster: String,
        url: String,
        record_id: String,
    }
    let k: K = serde_json::from_slice(line)?;
    Ok((k.site, k.cluster, k.url, k.record_id))
}

/// The order of `wrappers.jsonl`: (site, cluster).
pub fn wrapper_key(line: &[u8]) -> serde_json::Result<(String, String, Vec<String>)> {
    // Wrappers carried over from a saved file keep their cluster name, which
    // may repeat tonight's: the template sketch breaks the tie.
    #[derive(Deserialize)]
    struct K {
        site: String,
        cluster: String,
        #[serde(default)]
        template: Vec<String>,
    }
    let k: K = serde_json::from_slice(line)?;
    Ok((k.site, k.cluster, k.template))
}

/// The order of `rejects.jsonl`: (file, offset, record_id, reason).
pub fn reject_key(
    line: &[u8],
) -> serde_json::Result<(String, Option<u64>, Option<String>, String)> {
    #[derive(Deserialize)]
    struct Source {
        file: String,
        offset: Option<u64>,
    }
    #[derive(Deserialize)]
    struct K {
        source: Source,
        record_id: Option<String>,
        reason: String,
    }
    let k: K = serde_json::from_slice(line)?;
    Ok((k.source.file, k.source.offset, k.record_id, k.reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_merge_is_sorted_stable_and_byte_exact() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        let b = dir.path().join("b.jsonl");
        // Key fields in odd order and a float that must not be reformatted.
        std::fs::write(&a, "{\"cluster\":\"s/0\",\"site\":\"a\",\"x\":1.10}\n{\"site\":\"c\",\"cluster\":\"c/0\"}\n").unwrap();
        std::fs::write(&b, "{\"site\":\"b\",\"cluster\":\"b/1\"}\n{\"site\":\"c\",\"cluster\":\"c/0\",\"from\":\"b\"}\n").unwrap();
        let mut out = Vec::new();
        let inputs = [a, dir.path().join("missing.jsonl"), b];
        let n = merge_jsonl(&inputs, wrapper_key, &mut out).unwrap();
        assert_eq!(n, 4);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"cluster\":\"s/0\",\"site\":\"a\",\"x\":1.10}\n{\"site\":\"b\",\"cluster\":\"b/1\"}\n\
             {\"site\":\"c\",\"cluster\":\"c/0\"}\n{\"site\":\"c\",\"cluster\":\"c/0\",\"from\":\"b\"}\n"
        );
    }

    #[test]
    fn csv_merge_keeps_one_header_and_quoting() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        let empty = dir.path().join("e.csv");
        std::fs::write(&a, "site,cluster,pages\na,a/0,2\n\"d,e\",\"d,e/0\",1\n").unwrap();
        std::fs::write(&b, "site,cluster,pages\nb,b/0,3\n").unwrap();
        std::fs::write(&empty, "").unwrap();
        let mut out = Vec::new();
        let n = merge_csv(&[a, empty.clone(), b], 2, &mut out).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "site,cluster,pages\na,a/0,2\nb,b/0,3\n\"d,e\",\"d,e/0\",1\n"
        );
        let mut out = Vec::new();
        assert_eq!(merge_csv(&[empty], 2, &mut out).unwrap(), 0);
        assert!(out.is_empty());
    }
}
