//! The files of io_uring requests, named.
//!
//! Why a module of its own: an io_uring request names a file, not a
//! descriptor. A registered ("fixed") file is an index into the ring's own
//! table, the descriptor it was registered from may be closed since, and
//! a plain descriptor is looked up once, when the request is issued, by
//! whichever thread issues it (the submitter, the SQPOLL thread, an io-wq
//! worker). So the BPF program reads the file's inode from the request at
//! its completion ([`crate::RequestRow`]), and this module turns (process,
//! inode) back into a path:
//!
//! 1. the name the process opened or copied it by, captured at open time
//!    with the inode the new descriptor holds ([`Names::by_inode`]): a
//!    file opened, used and closed within one 50 ms tick is named, and
//!    both inodes are read by the kernel from the same `struct file`;
//! 2. else the process's descriptors (`/proc/PID/fd`) and its rings'
//!    registered files (the `UserFiles` list of `/proc/PID/fdinfo/RING`),
//!    each `stat`ed, while it lives: a file opened before the watch.
//!
//! Error bounds: `stat` reports the device of the file's filesystem, as
//! the kernel's `i_sb->s_dev` is, except on filesystems that report
//! another one (btrfs gives each subvolume its own, overlayfs may give the
//! layer's); step 2 then matches the inode number alone when exactly one
//! of the process's files has it. A file the process neither opened while
//! watched nor held when a tick read `/proc` (opened before the watch and
//! closed, or the process gone, within one tick) keeps its device and
//! inode and no path.

use crate::block::FileId;
use crate::names::Names;
use crate::Inode;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;

/// Paths of request files, by (pid, inode), and the identity `stat`
/// gives each (to map its extents).
#[derive(Default)]
pub struct RequestFiles {
    known: BTreeMap<(u32, Inode), (String, Option<FileId>)>,
}

impl RequestFiles {
    /// Names every file of `rows` not named yet: from the names captured
    /// at open time, else from each live process's descriptors and
    /// registered files (read once per call and process).
    pub fn learn(&mut self, rows: impl Iterator<Item = (u32, Inode)>, names: &Names) {
        let mut scanned: BTreeMap<u32, Vec<(Inode, String)>> = BTreeMap::new();
        let wanted: BTreeSet<(u32, Inode)> = rows.filter(|(_, f)| f.ino != 0).collect();
        for (pid, file) in wanted {
            if self.known.contains_key(&(pid, file)) {
                continue;
            }
            if let Some(name) = names.by_inode.get(&(pid, file)) {
                let id = stat_id(name).filter(|id| id.1 == file.ino);
                self.known.insert((pid, file), (name.clone(), id));
                continue;
            }
            let held = scanned.entry(pid).or_insert_with(|| process_files(pid));
            if let Some(name) = pick(held, file) {
                let id = stat_id(&name).filter(|id| id.1 == file.ino);
                self.known.insert((pid, file), (name, id));
                continue;
            }
            // Another watched process's name for the same file (a child
            // that inherited the ring or the descriptor).
            if let Some(name) = names
                .by_inode
                .iter()
                .find(|((_, f), _)| *f == file)
                .map(|(_, n)| n.clone())
            {
                let id = stat_id(&name).filter(|id| id.1 == file.ino);
                self.known.insert((pid, file), (name, id));
            }
        }
    }

    /// The path of `file` as process `pid` used it.
    pub fn path(&self, pid: u32, file: Inode) -> Option<&str> {
        self.known.get(&(pid, file)).map(|(p, _)| p.as_str())
    }

    /// Every named file with its `stat` identity, for the block layer's
    /// attribution by extents.
    pub fn mappable(&self) -> impl Iterator<Item = (String, FileId)> + '_ {
        self.known
            .values()
            .filter_map(|(p, id)| id.map(|id| (p.clone(), id)))
    }
}

/// The identity `stat` gives `path`.
fn stat_id(path: &str) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The file among `held` that is `file`: the same device and inode, or
/// else the one file with its inode number.
fn pick(held: &[(Inode, String)], file: Inode) -> Option<String> {
    if let Some((_, p)) = held.iter().find(|(f, _)| *f == file) {
        return Some(p.clone());
    }
    let mut same_ino = held.iter().filter(|(f, _)| f.ino == file.ino);
    match (same_ino.next(), same_ino.next()) {
        (Some((_, p)), None) => Some(p.clone()),
        _ => None,
    }
}

/// The files process `pid` holds now: every descriptor's, and every file
/// registered with one of its rings, each with its inode.
fn process_files(pid: u32) -> Vec<(Inode, String)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return out;
    };
    for e in dir.flatten() {
        let Ok(link) = std::fs::read_link(e.path()) else {
            continue;
        };
        let link = link.to_string_lossy().into_owned();
        if link == "anon_inode:[io_uring]" {
            let info = format!("/proc/{pid}/fdinfo/{}", e.file_name().to_string_lossy());
            if let Ok(text) = std::fs::read_to_string(info) {
                for p in registered_files(&text) {
                    if let Ok(m) = std::fs::metadata(&p) {
                        out.push((Inode::from_stat(m.dev(), m.ino()), p));
                    }
                }
            }
            continue;
        }
        // The descriptor link leads to the file itself.
        if let Ok(m) = std::fs::metadata(e.path()) {
            out.push((Inode::from_stat(m.dev(), m.ino()), link));
        }
    }
    out
}

/// The paths of a ring's registered files, from its fdinfo: the lines
/// `%5u: PATH` after `UserFiles:\tN` (io_uring/fdinfo.c), the path with
/// space, tab, newline and backslash written as octal escapes.
pub fn registered_files(fdinfo: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = fdinfo.lines().skip_while(|l| !l.starts_with("UserFiles:"));
    lines.next();
    for l in lines {
        let Some((index, path)) = l.split_once(": ") else {
            break;
        };
        if index.trim().parse::<u32>().is_err() {
            break;
        }
        out.push(unescape_octal(path));
    }
    out
}

/// `seq_file_path`'s escapes (`\040` for a space) undone.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rings_registered_files_are_read_from_its_fdinfo() {
        let text = "SqMask:\t0x7\nSqHead:\t0\nCachedCqTail:\t0\nSQEs:\t0\nCQEs:\t0\nUserFiles:\t3\n    0: /data/a\n    1: /data/with\\040space\n    2: /data/c\nUserBufs:\t0\nPollList:\n";
        assert_eq!(
            registered_files(text),
            vec!["/data/a", "/data/with space", "/data/c"]
        );
        assert!(registered_files("UserFiles:\t0\nUserBufs:\t0\n").is_empty());
        assert!(registered_files("SqMask:\t0x7\n").is_empty());
        assert_eq!(unescape_octal("a\\134b\\011"), "a\\b\t");
        assert_eq!(unescape_octal("end\\04"), "end\\04");
    }

    #[test]
    fn a_file_is_picked_by_its_inode_and_by_its_number_only_when_one_has_it() {
        let f = |dev, ino| Inode { dev, ino };
        let held = vec![
            (f(8, 10), "/a".to_string()),
            (f(9, 11), "/b".to_string()),
            (f(9, 12), "/c".to_string()),
            (f(7, 12), "/d".to_string()),
        ];
        assert_eq!(pick(&held, f(8, 10)).as_deref(), Some("/a"));
        // Another device, one file with the number (a btrfs subvolume).
        assert_eq!(pick(&held, f(5, 11)).as_deref(), Some("/b"));
        // Two files with the number: not guessed.
        assert_eq!(pick(&held, f(5, 12)), None);
        assert_eq!(pick(&held, f(7, 12)).as_deref(), Some("/d"));
        assert_eq!(pick(&held, f(8, 99)), None);
    }

    #[test]
    fn this_process_s_own_files_are_found_by_their_inode() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x");
        let file = std::fs::File::create(&p).unwrap();
        let m = file.metadata().unwrap();
        let held = process_files(std::process::id());
        let want = Inode::from_stat(m.dev(), m.ino());
        assert_eq!(
            pick(&held, want).as_deref(),
            Some(p.to_str().unwrap()),
            "{held:?}"
        );
        assert_eq!(
            Inode::from_stat(m.dev(), m.ino()).stat_id(),
            (m.dev(), m.ino())
        );
    }
}
