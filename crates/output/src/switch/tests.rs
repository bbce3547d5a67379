use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use super::*;

/// The set's fixed names in these tests.
const NAMES: [&str; 2] = ["articles.jsonl", "summary.csv"];

/// Every entry under `dir`, by path relative to it, with a file's bytes
/// (folders as `None`).
fn tree(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn siblings(out: &Path) -> Vec<String> {
    let prefix = sibling_prefix(out).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    names.sort();
    names
}

/// Writes a whole set (the fixed names, a WET file inside the folder, and
/// `_SUCCESS` listing them) into `dir`, each file saying `tag`.
fn write_set(dir: &Path, tag: &str, wet: &str) -> Vec<String> {
    let mut files = Vec::new();
    for name in NAMES.iter().copied().chain([wet]) {
        std::fs::write(dir.join(name), format!("{tag} {name}\n")).unwrap();
        files.push(PathBuf::from(name));
    }
    crate::success::finish(dir, &files).unwrap();
    NAMES
        .iter()
        .copied()
        .chain([wet, SUCCESS])
        .map(String::from)
        .collect()
}

/// An output folder holding a complete old set (with `old.warc.gz`, a WET
/// file its `_SUCCESS` lists), files of the user's, and what killed runs
/// of older versions left.
fn old_folder(root: &Path) -> (PathBuf, BTreeMap<String, Option<Vec<u8>>>) {
    let out = root.join("out");
    std::fs::create_dir_all(&out).unwrap();
    write_set(&out, "old", "old.warc.gz");
    let set = tree(&out);
    std::fs::create_dir_all(out.join("index/segments")).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("index/segments/0"), "index").unwrap();
    std::fs::write(out.join(".hidden"), "mine too").unwrap();
    std::fs::create_dir_all(out.join(".work-Ab12Cd/bucket-00000")).unwrap();
    // Named like a scratch folder, but not one (not six random characters).
    std::fs::create_dir_all(out.join(".work-notes")).unwrap();
    std::fs::write(out.join(".articles.jsonl.Xy12ab.tmp"), "half").unwrap();
    (out, set)
}

/// The user's files of [`old_folder`].
fn users(tree: &BTreeMap<String, Option<Vec<u8>>>) -> BTreeMap<String, Option<Vec<u8>>> {
    tree.iter()
        .filter(|(k, _)| {
            ["notes.txt", "index", ".hidden"]
                .iter()
                .any(|u| k.starts_with(u))
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `tree` without the user's files and Canopy's leftovers: the set only.
fn set_of(tree: &BTreeMap<String, Option<Vec<u8>>>) -> BTreeMap<String, Option<Vec<u8>>> {
    let user = users(tree);
    tree.iter()
        .filter(|(k, _)| {
            !user.contains_key(*k)
                && !k.starts_with(".work-")
                && !k.ends_with(".tmp")
                && *k != STAGING_MARKER
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[test]
fn the_set_is_exchanged_whole_and_other_files_stay() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = old_folder(tmp.path());
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o2750)).unwrap();
    let before = std::fs::metadata(&out).unwrap();
    let user = users(&tree(&out));

    let mut switch = OutputSwitch::begin(&out, &NAMES).unwrap();
    assert_eq!(switch.mode(), SwitchMode::Exchange);
    assert_eq!(switch.dir().parent(), out.parent());
    assert!(is_staging_name(
        &switch.dir().file_name().unwrap().to_string_lossy(),
        ".out.canopy-"
    ));
    // A scratch folder inside the staging folder goes before the switch.
    std::fs::create_dir_all(switch.dir().join(".work-zz/bucket-00000")).unwrap();
    let set = write_set(switch.dir(), "new", "new.warc.gz");
    let new_set = set_of(&tree(switch.dir()));
    let names: Vec<&str> = set.iter().map(String::as_str).collect();
    let switched = switch.commit(&names).unwrap();
    assert_eq!(switched.mode, SwitchMode::Exchange);
    assert!(switched.note.is_none(), "{:?}", switched.note);
    drop(switch);

    let after = tree(&out);
    assert!(!after.contains_key(STAGING_MARKER));
    // The new set, the user's files; not the old WET file (the old
    // `_SUCCESS` lists it), nor the killed runs' leftovers.
    assert_eq!(set_of(&after), new_set);
    assert_eq!(users(&after), user);
    assert!(!after.contains_key("old.warc.gz"));
    assert!(!after.contains_key(STAGING_MARKER));
    assert!(siblings(&out).is_empty(), "{:?}", siblings(&out));
    // Another folder now, with the old one's mode, owner and group.
    let meta = std::fs::metadata(&out).unwrap();
    assert_ne!(meta.ino(), before.ino(), "the folder was exchanged");
    assert_eq!(
        (meta.mode(), meta.uid(), meta.gid()),
        (before.mode(), before.uid(), before.gid())
    );
}

/// A commit stopped after each of its steps (as a SIGKILL there would:
/// no clean-up runs) leaves `out` holding the old set whole or the new set
/// whole; the user's files are in `out` or in the stale folder; and the
/// next switch into `out` puts every one of them back and removes the
/// stale folder.
#[test]
fn a_kill_at_any_step_leaves_one_whole_set_and_the_next_run_repairs() {
    let mut stopped_after_exchange = 0;
    for stop in 0.. {
        let tmp = tempfile::tempdir().unwrap();
        let (out, old_set) = old_folder(tmp.path());
        let user = users(&tree(&out));
        let mut switch = OutputSwitch::begin(&out, &NAMES).unwrap();
        let set = write_set(switch.dir(), "new", "new.warc.gz");
        let new_set = set_of(&tree(switch.dir()));
        let names: Vec<&str> = set.iter().map(String::as_str).collect();
        let finished = if stop == 0 {
            // Killed while writing the set.
            switch.state = State::Killed;
            false
        } else {
            switch.stop_after = Some(stop);
            match switch.commit(&names) {
                Ok(_) => true,
                Err(e) => {
                    assert_eq!(switch.state, State::Killed, "step {stop}: {e}");
                    false
                }
            }
        };
        drop(switch);

        let now = tree(&out);
        assert!(!now.contains_key(STAGING_MARKER), "step {stop}");
        let whole = set_of(&now);
        assert!(
            whole == old_set || whole == new_set,
            "step {stop}: the folder holds {:?}",
            whole.keys().collect::<Vec<_>>()
        );
        if whole == new_set && !finished {
            stopped_after_exchange += 1;
        }
        // Every file of the user's is somewhere: in `out` or in the stale
        // folder beside it.
        let mut found = users(&now);
        for stale in siblings(&out) {
            found.extend(users(&tree(&out.parent().unwrap().join(stale))));
        }
        assert_eq!(found, user, "step {stop}");

        // The next run (which fails, and so leaves its outputs alone).
        let next = OutputSwitch::begin(&out, &NAMES).unwrap();
        drop(next);
        let repaired = tree(&out);
        assert_eq!(users(&repaired), user, "step {stop}: after the next run");
        assert_eq!(set_of(&repaired), whole, "step {stop}: the set stays");
        assert!(
            siblings(&out).is_empty(),
            "step {stop}: {:?}",
            siblings(&out)
        );
        assert!(!repaired.contains_key(STAGING_MARKER));
        if finished {
            assert!(stop > 3, "the commit has steps to stop at");
            break;
        }
    }
    assert!(
        stopped_after_exchange >= 3,
        "stops between the exchange and the end: {stopped_after_exchange}"
    );
}

#[test]
fn a_second_switch_into_a_held_folder_fails_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let first = OutputSwitch::begin(&out, &NAMES).unwrap();
    let staging = first.dir().to_path_buf();
    let err = OutputSwitch::begin(&out, &NAMES).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
    assert!(
        err.to_string().contains("in use by another canopy process"),
        "{err}"
    );
    // Through another name of the same folder too.
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    assert!(OutputSwitch::begin(&link, &NAMES).is_err());
    assert!(staging.exists(), "the first run's folder is left alone");
    drop(first);
    assert!(
        !staging.exists(),
        "a switch dropped uncommitted removes its folder"
    );
    OutputSwitch::begin(&out, &NAMES).unwrap();
}

#[test]
fn a_name_of_the_set_taken_by_a_folder_is_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(out.join("summary.csv")).unwrap();
    let err = OutputSwitch::begin(&out, &NAMES).unwrap_err();
    assert!(err.to_string().contains("summary.csv is a folder"), "{err}");
    assert!(siblings(&out).is_empty());
}

#[test]
fn without_a_sibling_folder_files_are_switched_one_by_one() {
    let tmp = tempfile::tempdir().unwrap();
    // Too long a name for `.NAME.canopy-XXXXXX` (NAME_MAX is 255 bytes).
    let out = tmp.path().join("o".repeat(245));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    write_set(&out, "old", "old.warc.gz");
    let mut switch = OutputSwitch::begin(&out, &NAMES).unwrap();
    assert_eq!(switch.mode(), SwitchMode::PerFile);
    assert_eq!(switch.dir().parent(), Some(out.as_path()));
    let set = write_set(switch.dir(), "new", "new.warc.gz");
    let names: Vec<&str> = set.iter().map(String::as_str).collect();
    let switched = switch.commit(&names).unwrap();
    assert_eq!(switched.mode, SwitchMode::PerFile);
    assert!(switched.note.unwrap().contains("one by one"));
    drop(switch);
    let mut names: Vec<String> = tree(&out).into_keys().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "_SUCCESS",
            "articles.jsonl",
            "new.warc.gz",
            "notes.txt",
            "old.warc.gz",
            "summary.csv"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("articles.jsonl")).unwrap(),
        "new articles.jsonl\n"
    );
}

#[test]
fn a_stale_folder_whose_files_would_overwrite_is_kept_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = old_folder(tmp.path());
    // What a kill right after an exchange leaves: the old folder, unmarked,
    // beside `out`, and a file of the same name made in `out` since.
    let stale = tmp.path().join(".out.canopy-AbC123");
    std::fs::rename(&out, &stale).unwrap();
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "newer").unwrap();
    let next = OutputSwitch::begin(&out, &NAMES).unwrap();
    assert!(
        next.notes()[0].contains("holds files a killed run did not put back"),
        "{:?}",
        next.notes()
    );
    drop(next);
    assert!(stale.join("notes.txt").exists(), "kept, not overwritten");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "newer"
    );
    // The others went back.
    assert!(out.join("index/segments/0").exists());
    assert!(
        !out.join("articles.jsonl").exists(),
        "not the old set's files"
    );
}

#[test]
fn staging_names_and_success_lines_are_read_strictly() {
    assert!(is_staging_name(".out.canopy-AbC123", ".out.canopy-"));
    assert!(!is_staging_name(
        ".out.canopy-.canopy-AbC123",
        ".out.canopy-"
    ));
    assert!(!is_staging_name(".out.canopy-AbC12", ".out.canopy-"));
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join(SUCCESS),
        "ab  articles.jsonl\n\\cd  a\\\\b\\nc\nef  /elsewhere/x.warc.gz\nbroken\n",
    )
    .unwrap();
    let listed: Vec<String> = listed_in_success(tmp.path()).into_iter().collect();
    assert_eq!(listed, ["a\\b\nc", "articles.jsonl"]);
    let set: BTreeSet<String> = ["articles.jsonl".to_string()].into();
    assert!(is_canopys(".articles.jsonl.Xy12ab.tmp", &set));
    assert!(!is_canopys(".notes.txt.Xy12ab.tmp", &set));
    assert!(!is_canopys("articles.jsonl.bak", &set));
}
