//! Streaming k-way merge of sorted output files: the buckets' outputs are
//! each sorted and hold disjoint sites, so merging them by the same key
//! gives the order a single run writes. Lines are copied byte for byte;
//! only the key fields are parsed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use canopy_types::SourceRef;

fn invalid(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

/// Inputs one merge keeps open at once. `canopy merge` runs two merges at
/// a time (`articles.jsonl`, and the smaller files one after another), so
/// the buckets' outputs take at most 256 descriptors, a quarter of the
/// usual default limit of 1024 (`ulimit -n`), whatever `--buckets` is. More
/// inputs are merged in groups of this many, in order, into temporary files
/// (unnamed, beside the inputs), which are then merged the same way: a
/// merge of stable merges of consecutive groups is the same stable merge,
/// so the bytes do not change. `canopy run` has at most 64 buckets
/// ([`crate::DEFAULT_BUCKETS`]) and never merges in groups.
pub const MAX_MERGE_INPUTS: usize = 128;

/// One input of a merge: its name (for errors) and, unless it is missing,
/// the file.
type Input = (PathBuf, Option<File>);

/// A merge of opened inputs into a writer, returning the lines or rows written.
type MergeFn<'a> = &'a dyn Fn(Vec<Input>, &mut dyn Write) -> io::Result<u64>;

/// An input not opened yet: a path, or a group already merged into a
/// temporary file.
enum Pending {
    Path(PathBuf),
    Merged(PathBuf, File),
}

impl Pending {
    fn open(self) -> io::Result<Input> {
        match self {
            Pending::Path(path) => match File::open(&path) {
                Ok(f) => Ok((path, Some(f))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((path, None)),
                Err(e) => Err(invalid(&path, e)),
            },
            Pending::Merged(name, file) => Ok((name, Some(file))),
        }
    }
}

/// Merges `inputs` with `merge`, at most [`MAX_MERGE_INPUTS`] open at once.
fn merge_bounded(inputs: &[PathBuf], out: &mut dyn Write, merge: MergeFn<'_>) -> io::Result<u64> {
    merge_bounded_by(inputs, out, MAX_MERGE_INPUTS, merge)
}

fn merge_bounded_by(
    inputs: &[PathBuf],
    out: &mut dyn Write,
    max_inputs: usize,
    merge: MergeFn<'_>,
) -> io::Result<u64> {
    let max_inputs = max_inputs.max(2);
    let mut level: Vec<Pending> = inputs.iter().cloned().map(Pending::Path).collect();
    while level.len() > max_inputs {
        // Temporary files go beside the inputs (the output's disk, not /tmp).
        let scratch = inputs
            .iter()
            .filter_map(|p| p.parent())
            .find(|d| d.is_dir())
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        let mut next = Vec::new();
        let mut rest = level.into_iter().peekable();
        while rest.peek().is_some() {
            let group: Vec<Pending> = rest.by_ref().take(max_inputs).collect();
            let group = group
                .into_iter()
                .map(Pending::open)
                .collect::<io::Result<Vec<_>>>()?;
            let name = PathBuf::from(format!(
                "(merged from {} to {})",
                group[0].0.display(),
                group[group.len() - 1].0.display()
            ));
            let mut file = tempfile::tempfile_in(&scratch).map_err(|e| invalid(&scratch, e))?;
            {
                let mut w = BufWriter::new(&mut file);
                merge(group, &mut w)?;
                w.flush()?;
            }
            file.seek(SeekFrom::Start(0))?;
            next.push(Pending::Merged(name, file));
        }
        level = next;
    }
    let opened = level
        .into_iter()
        .map(Pending::open)
        .collect::<io::Result<Vec<_>>>()?;
    merge(opened, out)
}

/// Merges JSON-lines files, each sorted by `key`, into `out`; equal keys
/// keep the order of `inputs`. A missing input counts as empty. Returns the
/// number of lines written. At most `MAX_MERGE_INPUTS` files are open at
/// once.
pub fn merge_jsonl<K: Ord>(
    inputs: &[PathBuf],
    key: impl Fn(&[u8]) -> serde_json::Result<K>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    merge_bounded(inputs, out, &|opened, out| {
        merge_jsonl_open(opened, &key, out)
    })
}

fn merge_jsonl_open<K: Ord>(
    inputs: Vec<Input>,
    key: &dyn Fn(&[u8]) -> serde_json::Result<K>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    let (names, files): (Vec<PathBuf>, Vec<Option<File>>) = inputs.into_iter().unzip();
    let mut readers: Vec<Option<BufReader<File>>> =
        files.into_iter().map(|f| f.map(BufReader::new)).collect();
    let mut lines: Vec<Vec<u8>> = vec![Vec::new(); names.len()];
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
            .map_err(|e| invalid(&names[i], e))?
            == 0
        {
            return Ok(());
        }
        let k = key(&lines[i]).map_err(|e| invalid(&names[i], e))?;
        heap.push(Reverse((k, i)));
        Ok(())
    };
    for i in 0..names.len() {
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
/// empty file, as a run with no rows does. Returns the rows written. At
/// most `MAX_MERGE_INPUTS` files are open at once.
pub fn merge_csv(inputs: &[PathBuf], key_fields: usize, out: &mut dyn Write) -> io::Result<u64> {
    merge_bounded(inputs, out, &|opened, out| {
        merge_csv_open(opened, key_fields, out)
    })
}

fn merge_csv_open(inputs: Vec<Input>, key_fields: usize, out: &mut dyn Write) -> io::Result<u64> {
    let mut readers = Vec::new();
    let mut header: Option<csv::ByteRecord> = None;
    for (path, file) in inputs {
        let Some(file) = file else { continue };
        let mut reader = csv::Reader::from_reader(BufReader::new(file));
        let h = reader
            .byte_headers()
            .map_err(|e| invalid(&path, e))?
            .clone();
        if h.is_empty() {
            continue;
        }
        match &header {
            Some(first) if *first != h => {
                return Err(invalid(&path, "header differs from the other buckets'"))
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

/// The order of `duplicates.jsonl`: (site, url, file, offset, record_id);
/// a near duplicate's `source` is null (an article names no record's
/// place), which sorts as an empty file name.
pub fn duplicate_key(
    line: &[u8],
) -> serde_json::Result<(String, String, String, Option<u64>, String)> {
    #[derive(Deserialize)]
    struct K {
        site: String,
        url: String,
        source: Option<SourceRef>,
        record_id: String,
    }
    let k: K = serde_json::from_slice(line)?;
    let (file, offset) = k
        .source
        .map_or((String::new(), None), |s| (s.file, s.offset));
    Ok((k.site, k.url, file, offset, k.record_id))
}

/// The order of `rejects.jsonl`: (file, offset, record_id, reason).
pub fn reject_key(
    line: &[u8],
) -> serde_json::Result<(String, Option<u64>, Option<String>, String)> {
    #[derive(Deserialize)]
    struct K {
        source: SourceRef,
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

    #[test]
    fn merging_in_groups_gives_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        // 23 inputs of wrappers and of summary rows, keys interleaved across
        // inputs, ties between inputs (stable order), missing and empty ones.
        let mut jsonl = Vec::new();
        let mut csvs = Vec::new();
        for i in 0..23u32 {
            let j = dir.path().join(format!("{i}.jsonl"));
            let c = dir.path().join(format!("{i}.csv"));
            if i % 7 != 3 {
                let mut text = String::new();
                let mut rows = String::from("site,cluster,pages\n");
                for k in 0..(i % 5) {
                    let site = format!("s{:02}", (k * 7 + i) % 11);
                    text.push_str(&format!(
                        "{{\"site\":\"{site}\",\"cluster\":\"{site}/0\",\"from\":{i}}}\n"
                    ));
                    rows.push_str(&format!("{site},\"{site}/0\",{i}\n"));
                }
                let mut sorted: Vec<&str> = text.lines().collect();
                sorted.sort_by_key(|l| wrapper_key(l.as_bytes()).unwrap());
                std::fs::write(
                    &j,
                    sorted.join("\n") + if sorted.is_empty() { "" } else { "\n" },
                )
                .unwrap();
                let mut body: Vec<&str> = rows.lines().skip(1).collect();
                body.sort_by_key(|l| l.split(',').take(2).map(String::from).collect::<Vec<_>>());
                let header = if i % 4 == 0 {
                    ""
                } else {
                    "site,cluster,pages\n"
                };
                let body = if header.is_empty() {
                    String::new()
                } else {
                    body.join("\n") + "\n"
                };
                std::fs::write(&c, format!("{header}{body}")).unwrap();
            }
            jsonl.push(j);
            csvs.push(c);
        }
        let merged = |max: usize, csv: bool| {
            let mut out = Vec::new();
            let n = if csv {
                merge_bounded_by(&csvs, &mut out, max, &|o, w| merge_csv_open(o, 2, w))
            } else {
                merge_bounded_by(&jsonl, &mut out, max, &|o, w| {
                    merge_jsonl_open(o, &wrapper_key, w)
                })
            }
            .unwrap();
            (n, out)
        };
        for csv in [false, true] {
            let whole = merged(usize::MAX, csv);
            assert!(whole.0 > 20, "{}", whole.0);
            for max in [2, 3, 5, 22] {
                assert_eq!(merged(max, csv), whole, "groups of {max}, csv {csv}");
            }
        }
        // The temporary files are unnamed: nothing is left beside the inputs.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 40);
    }
}
