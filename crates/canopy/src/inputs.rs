//! The input list: the files and folders an operator names, expanded into
//! the WARC and feed files a run reads, each once, in sorted order. Every
//! step that takes inputs (`run`, `wrappers apply`, `partition` on each
//! rank, `eval`) gets its list from [`expand`], so ranks of one scale-out
//! job agree on it (a record's position is its file's index in this list).
//!
//! What a crawl engineer can count on:
//!
//! - **Order**: the files are sorted by path (component by component, as
//!   `Path` compares), whatever order the inputs were named in.
//! - **Each file once**: a file is known by its device and inode, so one
//!   file named twice (on the command line, through a symlink, a hard link,
//!   or a folder reached two ways) is read once, under the first of its
//!   paths in sorted order; that path is the `source.file` of its records
//!   and rejects.
//! - **Streams**: `-` is a WARC stream on standard input, and an
//!   `http://` or `https://` input is read as it downloads (resumed after a
//!   dropped connection: `canopy_ingest::HttpBody`); each is read once,
//!   known by its name, which is its `source.file`.
//! - **Input lists** (`--input-list FILE`, [`read_list`]): one path or URL
//!   a line, as Common Crawl's `warc.paths.gz`; gzipped if named `.gz`;
//!   blank lines and `#` comments skipped; `-` reads the list from standard
//!   input; relative entries are taken relative to `--input-base`.
//! - **Folders** are searched recursively, following symlinks, each folder
//!   once (by device and inode), so a symlink cycle ends the walk of that
//!   branch instead of looping. In a folder, files named like inputs are
//!   taken (`.warc`, `.arc`, either with `.gz`, `.zst` or `.lz4`, and the
//!   feed extensions of [`is_feed_file`], `.html` and `.htm` pages:
//!   `crate::html_files`), and any other file whose first
//!   bytes are a WARC's or ARC's (plain or compressed) or a feed's
//!   ([`canopy_ingest::sniff`]); a file named on the command line is taken
//!   whatever its name.
//! - **Rejects, not stops**: a folder that cannot be read, a file named
//!   like an input that cannot be looked at (a dangling symlink, no
//!   permission), and a special file (FIFO, socket, character or block
//!   device: reading `/dev/zero` or a FIFO never ends) become one line each
//!   in `rejects.jsonl` (stage `input`, `source.file` the path as found,
//!   no offset) and the run goes on. Only an input named on the command
//!   line that does not exist is bad usage (exit 2): a typo, not a fault
//!   of the data.

use std::collections::HashSet;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{ensure, Context};
use crate::Error;
use canopy_types::{Reject, SourceRef, Stage};

/// The expanded input list.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Inputs {
    /// The files to read, sorted by path, each file once.
    pub files: Vec<PathBuf>,
    /// What could not be taken, one reject each (stage `input`).
    pub rejects: Vec<Reject>,
}

/// Which file a path names: the device and inode (a file has one identity
/// whatever path, symlink or hard link reaches it); a stream, its name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum FileId {
    File(u64, u64),
    Stream(String),
}

#[cfg(unix)]
fn file_id(_path: &Path, meta: &Metadata) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    Ok(FileId::File(meta.dev(), meta.ino()))
}

/// Elsewhere, the canonical path (symlinks resolved) stands for the file.
#[cfg(not(unix))]
fn file_id(path: &Path, _meta: &Metadata) -> io::Result<FileId> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(path)?.hash(&mut h);
    Ok(FileId::File(0, h.finish()))
}

/// The input that names standard input.
pub const STDIN: &str = "-";

/// What an input is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A WARC (or ARC) file, plain or compressed.
    Archive,
    /// A feed file.
    Feed,
    /// An HTML page saved as a file (`crate::html_files`).
    Html,
}

/// Whether `input` is a stream (standard input, an http(s) URL) rather
/// than a local file.
pub fn is_stream(input: &Path) -> bool {
    input.as_os_str() == STDIN || input.to_str().is_some_and(canopy_ingest::is_remote)
}

/// What an input of the list is read as: by its name (a WARC or ARC
/// extension before a feed's), else by its content; a file that says
/// nothing either way is read as a WARC (it was named as an input).
pub fn kind(input: &Path) -> Kind {
    if is_stream(input) || is_warc_file(input) {
        Kind::Archive
    } else if crate::html_files::is_html_file(input) {
        Kind::Html
    } else if is_feed_file(input)
        || canopy_ingest::sniff(input) == Some(canopy_ingest::Sniffed::Feed)
    {
        Kind::Feed
    } else {
        Kind::Archive
    }
}

/// What kind of special file `meta` is, if it is one (neither a regular
/// file nor a folder).
fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
    }
    Some("not a regular file")
}

fn reject(path: &Path, reason: String) -> Reject {
    Reject {
        source: SourceRef {
            file: path.display().to_string(),
            offset: None,
        },
        record_id: None,
        url: None,
        stage: Stage::Input,
        reason,
    }
}

/// Whether following a symlink failed because nothing is at its end: it
/// dangles, or it is part of a loop (`ELOOP`).
fn nothing_there(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
        return true;
    }
    e.kind() == io::ErrorKind::NotFound
}

/// Whether a file is a feed document (by name), as opposed to a WARC.
pub fn is_feed_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    [".rss", ".atom", ".xml", ".json", ".rdf", ".feed"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// Whether a file is a WARC or ARC file by its name (plain, `.gz`, `.zst`
/// or `.lz4`).
pub fn is_warc_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let name = [".gz", ".zst", ".lz4"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(&name);
    name.ends_with(".warc") || name.ends_with(".arc")
}

/// Whether a folder entry is taken as an input by its name.
fn named_like_input(path: &Path) -> bool {
    is_warc_file(path) || is_feed_file(path) || crate::html_files::is_html_file(path)
}

/// Every input named: `inputs`, then the entries of the input list
/// `list` (`--input-list`, [`read_list`]) with relative entries joined to
/// `base`.
pub fn entries(
    inputs: &[PathBuf],
    list: Option<&Path>,
    base: Option<&str>,
) -> crate::Result<Vec<PathBuf>> {
    let mut entries = inputs.to_vec();
    if let Some(list) = list {
        let listed = read_list(list, base)?;
        ensure!(
            Usage,
            !(list.as_os_str() == STDIN && entries.iter().any(|e| e.as_os_str() == STDIN)),
            "standard input cannot be both the input list and an input"
        );
        entries.extend(listed);
    }
    Ok(entries)
}

/// Whether a folder's file is taken: named like an input, or one by its
/// first bytes.
fn taken_from_folder(path: &Path) -> bool {
    named_like_input(path) || canopy_ingest::sniff(path).is_some()
}

/// The entries of an input list (`--input-list`): `list` is a file (read
/// through gzip if named `.gz`) or `-` for standard input; one path or
/// URL a line, blank lines and `#` comments skipped; a relative entry is
/// joined to `base` (a folder or a URL) when one is given.
pub fn read_list(list: &Path, base: Option<&str>) -> crate::Result<Vec<PathBuf>> {
    use std::io::Read;
    let mut raw = Vec::new();
    let read = if list.as_os_str() == STDIN {
        io::stdin().lock().read_to_end(&mut raw)
    } else {
        std::fs::File::open(list).and_then(|mut f| f.read_to_end(&mut raw))
    };
    read.with_context(|| format!("cannot read the input list {}", list.display()))?;
    let gzipped = raw.starts_with(&[0x1f, 0x8b]);
    let text = if gzipped {
        let mut plain = String::new();
        flate2::read::MultiGzDecoder::new(raw.as_slice())
            .read_to_string(&mut plain)
            .with_context(|| format!("cannot inflate the input list {}", list.display()))?;
        plain
    } else {
        String::from_utf8(raw).map_err(|_| {
            Error::Invalid(format!("the input list {} is not UTF-8", list.display()))
        })?
    };
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|entry| match base {
            Some(base) if !is_stream(Path::new(entry)) && !Path::new(entry).is_absolute() => {
                if canopy_ingest::is_remote(base) {
                    PathBuf::from(format!(
                        "{}/{}",
                        base.trim_end_matches('/'),
                        entry.trim_start_matches('/')
                    ))
                } else {
                    Path::new(base).join(entry)
                }
            }
            _ => PathBuf::from(entry),
        })
        .collect())
}

/// Expands `inputs` (files and folders) into the files to read. `Err` only
/// for an input named here that does not exist; everything else that
/// cannot be read is a reject ([module docs](self)).
pub fn expand(inputs: &[PathBuf]) -> crate::Result<Inputs> {
    let mut roots: Vec<&PathBuf> = inputs.iter().collect();
    roots.sort();
    roots.dedup();
    let mut walk = Walk::default();
    for root in roots {
        if is_stream(root) {
            let name = root.display().to_string();
            walk.files.push((root.clone(), FileId::Stream(name)));
            continue;
        }
        match std::fs::metadata(root) {
            Ok(meta) => walk.visit(root.clone(), &meta, true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::Usage(format!("input not found: {}", root.display())))
            }
            Err(e) => walk
                .rejects
                .push(reject(root, format!("cannot look at the input: {e}"))),
        }
        walk.drain();
    }
    Ok(walk.finish())
}

/// A depth-first walk, folders in sorted order, each folder once.
#[derive(Default)]
struct Walk {
    /// Folders still to read, the next one last.
    stack: Vec<PathBuf>,
    /// Folders read (or being read), by identity.
    folders: HashSet<FileId>,
    /// Files found: path and identity, in no particular order.
    files: Vec<(PathBuf, FileId)>,
    rejects: Vec<Reject>,
}

impl Walk {
    /// Takes `path` (whose metadata, symlinks followed, is `meta`): a
    /// folder is queued, a file kept if `named` (on the command line) or
    /// named like an input, a special file rejected under the same rule.
    fn visit(&mut self, path: PathBuf, meta: &Metadata, named: bool) {
        if meta.is_dir() {
            self.stack.push(path);
            return;
        }
        if !named && !taken_from_folder(&path) {
            return;
        }
        if let Some(kind) = special_kind(meta) {
            self.rejects.push(reject(
                &path,
                format!("{kind}, not a regular file: not read (it may never end)"),
            ));
            return;
        }
        match file_id(&path, meta) {
            Ok(id) => self.files.push((path, id)),
            Err(e) => self
                .rejects
                .push(reject(&path, format!("cannot look at the file: {e}"))),
        }
    }

    /// Reads the queued folders, depth first. A folder is marked when it
    /// is read, not when it is queued: with entries queued in sorted order
    /// the walk reads folders in sorted path order, so a folder reached by
    /// two paths is read under the smaller one.
    fn drain(&mut self) {
        while let Some(dir) = self.stack.pop() {
            match std::fs::metadata(&dir).and_then(|m| file_id(&dir, &m)) {
                Ok(id) => {
                    if !self.folders.insert(id) {
                        // Seen already: a symlink cycle, or a folder named twice.
                        continue;
                    }
                }
                Err(e) => {
                    self.rejects
                        .push(reject(&dir, format!("cannot look at the folder: {e}")));
                    continue;
                }
            }
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    self.rejects
                        .push(reject(&dir, format!("cannot read the folder: {e}")));
                    continue;
                }
            };
            let mut paths = Vec::new();
            for entry in entries {
                match entry {
                    Ok(entry) => paths.push(entry.path()),
                    Err(e) => {
                        self.rejects
                            .push(reject(&dir, format!("cannot read the folder: {e}")));
                        break;
                    }
                }
            }
            paths.sort();
            // Folders are pushed largest first, so the smallest is read next.
            let mut folders = Vec::new();
            for path in paths {
                match std::fs::metadata(&path) {
                    Ok(meta) if meta.is_dir() => folders.push(path),
                    Ok(meta) => self.visit(path, &meta, false),
                    // A dangling symlink or a symlink loop holds nothing to
                    // read: a reject only if it is named like an input.
                    Err(e) if nothing_there(&e) => {
                        if named_like_input(&path) {
                            self.rejects
                                .push(reject(&path, format!("cannot look at the file: {e}")));
                        }
                    }
                    // Something is there that cannot be looked at (e.g. no
                    // permission on the folder a symlink points into).
                    Err(e) => self
                        .rejects
                        .push(reject(&path, format!("cannot look at it: {e}"))),
                }
            }
            self.stack.extend(folders.into_iter().rev());
        }
    }

    /// The files sorted by path, each file under its first path.
    fn finish(mut self) -> Inputs {
        self.files.sort();
        let mut seen = HashSet::new();
        let files = self
            .files
            .into_iter()
            .filter(|(_, id)| seen.insert(id.clone()))
            .map(|(path, _)| path)
            .collect();
        crate::order::sort_rejects(&mut self.rejects);
        self.rejects.dedup();
        Inputs {
            files,
            rejects: self.rejects,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(inputs: &Inputs, root: &Path) -> Vec<String> {
        inputs
            .files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn cycles_and_second_names_are_read_once_under_the_first_path() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/sub")).unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("a/one.warc"), "x").unwrap();
        std::fs::write(root.join("a/sub/two.warc.gz"), "x").unwrap();
        std::fs::write(root.join("a/notes.txt"), "x").unwrap();
        // Two cycles, a second path to a folder and to a file, a hard link.
        symlink(root.join("a"), root.join("a/sub/up")).unwrap();
        symlink(root, root.join("b/top")).unwrap();
        symlink(root.join("a/sub"), root.join("b/sub")).unwrap();
        symlink(root.join("a/one.warc"), root.join("b/link.warc")).unwrap();
        std::fs::hard_link(root.join("a/one.warc"), root.join("b/hard.warc")).unwrap();
        std::fs::write(root.join("b/three.rss"), "x").unwrap();
        let inputs =
            expand(&[root.join("b"), root.to_path_buf(), root.join("a/one.warc")]).unwrap();
        assert_eq!(
            names(&inputs, root),
            ["a/one.warc", "a/sub/two.warc.gz", "b/three.rss"]
        );
        assert_eq!(inputs.rejects, []);
    }

    #[cfg(unix)]
    #[test]
    fn special_and_dangling_entries_are_rejects_named_by_their_path() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("good.warc"), "x").unwrap();
        symlink("/dev/zero", root.join("zero.warc")).unwrap();
        symlink(root.join("missing.warc"), root.join("dangling.warc")).unwrap();
        // Not named like inputs: left alone, as any other file.
        symlink("/dev/null", root.join("null")).unwrap();
        symlink(root.join("nowhere"), root.join("latest")).unwrap();
        let inputs = expand(&[root.to_path_buf(), PathBuf::from("/dev/urandom")]).unwrap();
        assert_eq!(names(&inputs, root), ["good.warc"]);
        let rejects: Vec<(String, String)> = inputs
            .rejects
            .iter()
            .map(|r| (r.source.file.clone(), r.reason.clone()))
            .collect();
        assert_eq!(rejects.len(), 3, "{rejects:?}");
        assert_eq!(rejects[0].0, "/dev/urandom");
        assert!(rejects[0].1.starts_with("a character device"));
        assert!(rejects[1].0.ends_with("dangling.warc"));
        assert!(rejects[2].0.ends_with("zero.warc"));
        assert!(rejects[2].1.starts_with("a character device"));
        assert!(inputs.rejects.iter().all(|r| r.stage == Stage::Input));
    }

    #[test]
    fn a_missing_input_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = expand(&[dir.path().join("nope.warc")]).unwrap_err();
        assert!(err.to_string().starts_with("input not found"), "{err}");
    }
}
