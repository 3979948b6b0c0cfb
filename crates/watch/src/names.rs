//! File names captured when the watched processes open or duplicate a
//! descriptor, as the kernel hands them over (`Watcher::drain_opens`).
//! A reopen through the process's own descriptor link (`/proc/self/fd/N`,
//! how dbio opens its own targets) is named as descriptor N is.
//!
//! Why: `/proc/PID/fd` names only what is open when it is read (every
//! 50 ms tick), so a file opened, written and closed between two ticks,
//! or by a process that exits within one, stayed unnamed. The BPF
//! programs on `sys_enter_openat`/`openat2`/`open`/`creat` copy the path
//! the process passed (at most [`crate::PATH_BYTES`] - 1 bytes) and
//! hand it over with the descriptor and its generation when the call
//! returns one; dup, dup2, dup3 and fcntl(F_DUPFD) hand over the
//! descriptor they copied, whose file the new one holds. `/proc` stays the
//! source for descriptors opened before the watch began.
//!
//! Error bounds: a relative path is joined to the process's working
//! directory read from `/proc/PID/cwd` when the event is taken (within one
//! tick of the open), or, when the process is gone by then, to the last
//! one read while it lived (when it was first watched, then every 10
//! ticks); a
//! `chdir` between the open and that read names the wrong directory, and
//! a process whose directory was never read (a child that came and went
//! within one tick) keeps the path as it passed it, counted in
//! [`Names::unresolved`]. The path is the one asked for, not the one
//! symbolic links resolve to; `/proc` replaces it with the resolved one
//! while the file is open.

use crate::block::FileId;
use crate::session::Paths;
use crate::{Inode, OpenEvent, Opened, Watcher, AT_FDCWD};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// The working directories seen, the flags of each opened descriptor, and
/// what could not be resolved.
#[derive(Default)]
pub struct Names {
    cwd: BTreeMap<u32, PathBuf>,
    /// Open flags by (pid, fd, generation).
    pub flags: BTreeMap<(u32, i32, u32), u32>,
    /// What each (pid, fd) was last opened or copied as, in the order the
    /// calls were made: the directory of an `openat` and the source of a
    /// reopen are named as they were at that call, even when the events
    /// are taken after the number was closed or reused, or after the
    /// process exited (a short burst is over before the next tick).
    latest: BTreeMap<(u32, i32), String>,
    /// Relative paths whose directory was unknown (kept as passed).
    pub unresolved: u64,
    /// Paths longer than the capture (kept cut).
    pub truncated: u64,
    /// The name of each file a watched process opened or copied, by
    /// (pid, inode): what names the files of its io_uring requests.
    pub by_inode: BTreeMap<(u32, Inode), String>,
    /// The `stat(2)` identity of each descriptor's regular file whose
    /// inode the kernel gave at its open, read when the event was taken
    /// (within a tick of the open) and kept only when the name, not a
    /// symbolic link, still led to that inode: its extents can be mapped
    /// by its name after the process closed it or exited.
    pub stat_ids: BTreeMap<(u32, i32, u32), (String, FileId)>,
}

/// A path with its `.` components dropped (`..` is kept: a symbolic
/// link before it would make dropping it wrong).
fn tidy(p: &Path) -> String {
    let mut out = PathBuf::new();
    for c in p.components() {
        if c != Component::CurDir {
            out.push(c.as_os_str());
        }
    }
    out.to_string_lossy().into_owned()
}

/// The status flags fcntl(F_SETFL) changes (Linux's `SETFL_MASK`).
pub const SETFL_MASK: u32 =
    (libc::O_APPEND | libc::O_ASYNC | libc::O_DIRECT | libc::O_NOATIME | libc::O_NONBLOCK) as u32;

/// The `O_*` names of open flags, as strace writes them.
pub fn flag_names(flags: u32) -> String {
    let f = flags as i32;
    let mut v = vec![match f & libc::O_ACCMODE {
        libc::O_WRONLY => "O_WRONLY",
        libc::O_RDWR => "O_RDWR",
        _ => "O_RDONLY",
    }];
    // O_SYNC includes O_DSYNC's bit: name the stronger one only.
    let sync = f & libc::O_SYNC == libc::O_SYNC;
    for (bit, name) in [
        (libc::O_CREAT, "O_CREAT"),
        (libc::O_EXCL, "O_EXCL"),
        (libc::O_TRUNC, "O_TRUNC"),
        (libc::O_APPEND, "O_APPEND"),
        (libc::O_NONBLOCK, "O_NONBLOCK"),
        (libc::O_DIRECT, "O_DIRECT"),
        (libc::O_NOATIME, "O_NOATIME"),
        (libc::O_CLOEXEC, "O_CLOEXEC"),
    ] {
        if f & bit != 0 {
            v.push(name);
        }
    }
    if sync {
        v.push("O_SYNC");
    } else if f & libc::O_DSYNC != 0 {
        v.push("O_DSYNC");
    }
    if f & libc::O_TMPFILE == libc::O_TMPFILE {
        v.push("O_TMPFILE");
    }
    v.join("|")
}

impl Names {
    /// Reads process `pid`'s working directory now (kept for when it is
    /// gone).
    pub fn see(&mut self, pid: u32) {
        if let Ok(p) = std::fs::read_link(format!("/proc/{pid}/cwd")) {
            self.cwd.insert(pid, p);
        }
    }

    /// Takes every open and dup the tracer has, in order, into `paths`.
    pub fn drain(&mut self, w: &mut Watcher, paths: &mut Paths) {
        let mut got = Vec::new();
        w.drain_opens(|e| got.push(e));
        for e in got {
            self.learn(e, w, paths);
        }
    }

    /// The directory a path relative to `dfd` starts from.
    fn base(&mut self, pid: u32, dfd: i32, w: &Watcher, paths: &Paths) -> Option<PathBuf> {
        if dfd == AT_FDCWD {
            self.see(pid);
            return self.cwd.get(&pid).cloned();
        }
        if let Some(p) = self.latest.get(&(pid, dfd)) {
            return Some(PathBuf::from(p));
        }
        let g = w.fd_generation(pid, dfd);
        if let Some(Some(p)) = paths.0.get(&(pid, dfd, g)) {
            return Some(PathBuf::from(p));
        }
        std::fs::read_link(format!("/proc/{pid}/fd/{dfd}")).ok()
    }

    fn learn(&mut self, e: OpenEvent, w: &Watcher, paths: &mut Paths) {
        let key = (e.pid, e.fd, e.gen);
        let (pid, file) = (e.pid, e.file);
        self.name_descriptor(e, w, paths);
        if let (Some(f), Some(Some(name))) = (file, paths.0.get(&key)) {
            self.by_inode.insert((pid, f), name.clone());
            // Regular files named without a symbolic link as the last
            // component (the mapping opens the name with O_NOFOLLOW).
            if let Ok(m) = std::fs::symlink_metadata(name) {
                if m.is_file() && m.ino() == f.ino {
                    self.stat_ids
                        .insert(key, (name.clone(), (m.dev(), m.ino())));
                }
            }
        }
    }

    fn name_descriptor(&mut self, e: OpenEvent, w: &Watcher, paths: &mut Paths) {
        let key = (e.pid, e.fd, e.gen);
        match e.how {
            Opened::Open {
                path,
                truncated,
                dfd,
                flags,
            } => {
                if truncated {
                    self.truncated += 1;
                }
                if let Some(src) = reopened_descriptor(&path, e.pid) {
                    // Named as `src` was at this call; one opened before
                    // the watch is named by /proc while it holds the same
                    // file.
                    let src_gen = w.fd_generation(e.pid, src);
                    self.copy_name(key, (e.pid, src, src_gen), w, paths);
                    self.flags.insert(key, flags);
                    return;
                }
                let name = if path.starts_with('/') {
                    tidy(Path::new(&path))
                } else if let Some(b) = self.base(e.pid, dfd, w, paths) {
                    tidy(&b.join(&path))
                } else {
                    self.unresolved += 1;
                    path
                };
                self.latest.insert((e.pid, e.fd), name.clone());
                paths.0.insert(key, Some(name));
                self.flags.insert(key, flags);
            }
            Opened::SetFlags { flags } => {
                let now = match self.flags.get(&key) {
                    Some(&old) => (old & !SETFL_MASK) | (flags & SETFL_MASK),
                    // Opened before the watch: the argument is, as a rule,
                    // F_GETFL's answer with a flag added or removed.
                    None => flags,
                };
                self.flags.insert(key, now);
            }
            Opened::Dup { src, src_gen } => {
                let from = (e.pid, src, src_gen);
                self.copy_name(key, from, w, paths);
                if let Some(&f) = self.flags.get(&from) {
                    self.flags.insert(key, f);
                }
            }
        }
    }

    /// Names descriptor `key` as `from` is named: a copy of it holds the
    /// same file.
    fn copy_name(
        &mut self,
        key: (u32, i32, u32),
        from: (u32, i32, u32),
        w: &Watcher,
        paths: &mut Paths,
    ) {
        let (pid, src, src_gen) = from;
        let name = match paths.0.get(&from) {
            Some(Some(p)) => Some(p.clone()),
            _ if self.latest.contains_key(&(pid, src)) => self.latest.get(&(pid, src)).cloned(),
            // Opened before the watch: /proc names it while that
            // number still holds the same file.
            _ if w.fd_generation(pid, src) == src_gen => Paths::resolve(pid, src),
            _ => None,
        };
        if let Some(n) = name {
            self.latest.insert((key.0, key.1), n.clone());
            paths.0.insert(key, Some(n));
        }
    }
}

/// The descriptor a process opened again through its own descriptor link
/// (`/proc/self/fd/N`, `/proc/thread-self/fd/N` or `/proc/PID/fd/N` with
/// its own PID), as dbio itself opens its targets: the path names no file,
/// the new descriptor holds the file descriptor N holds.
fn reopened_descriptor(path: &str, pid: u32) -> Option<i32> {
    let (who, fd) = path.strip_prefix("/proc/")?.split_once("/fd/")?;
    let own = who == "self" || who == "thread-self" || who.parse::<u32>() == Ok(pid);
    if !own {
        return None;
    }
    fd.parse().ok().filter(|&n: &i32| n >= 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_named_as_strace_names_them() {
        assert_eq!(flag_names(0), "O_RDONLY");
        assert_eq!(
            flag_names((libc::O_WRONLY | libc::O_CREAT | libc::O_DIRECT | libc::O_DSYNC) as u32),
            "O_WRONLY|O_CREAT|O_DIRECT|O_DSYNC"
        );
        assert_eq!(
            flag_names((libc::O_RDWR | libc::O_SYNC | libc::O_CLOEXEC) as u32),
            "O_RDWR|O_CLOEXEC|O_SYNC"
        );
        assert_eq!(tidy(Path::new("/a/./b/../c")), "/a/b/../c");
    }

    #[test]
    fn a_reopen_through_the_own_descriptor_link_names_that_descriptor() {
        assert_eq!(reopened_descriptor("/proc/self/fd/3", 42), Some(3));
        assert_eq!(reopened_descriptor("/proc/thread-self/fd/17", 42), Some(17));
        assert_eq!(reopened_descriptor("/proc/42/fd/5", 42), Some(5));
        // Another process's descriptor, or not a descriptor at all.
        assert_eq!(reopened_descriptor("/proc/43/fd/5", 42), None);
        assert_eq!(reopened_descriptor("/proc/self/fdinfo/3", 42), None);
        assert_eq!(reopened_descriptor("/proc/self/fd/3/x", 42), None);
        assert_eq!(reopened_descriptor("/tmp/fd/3", 42), None);
    }
}
