//! An exclusive private directory for one scratch database and its files.
//!
//! SQLite opens its side files (`-wal`, `-shm`, `-journal`) by name,
//! derives those names from the database's path, and deletes them by name.
//! In a directory another user can write, that user could plant a file
//! under the WAL's coming name (root then wrote WAL frames into it and
//! made it root's) or swap the directory for a symbolic link mid-run (the
//! WAL went to the link's target): issue 21 §3. So dbio keeps every file of
//! a scratch database in a directory it creates for the run:
//!
//! - `mkdirat` on the target directory's descriptor (opened once), mode
//!   0700, an unpredictable name `dbio-load-<pid>-<16 hex digits>` (64 bits
//!   from `getrandom`), owned by the user dbio runs as: nobody else can
//!   create, rename or remove anything inside it, and a directory cannot be
//!   moved to another parent by someone without write permission on it.
//! - The directory is opened once (`O_DIRECTORY | O_NOFOLLOW`) and accepted
//!   only when it is owned by dbio's user, has mode 0700 and is empty (a
//!   directory renamed into its name between `mkdirat` and `openat` fails
//!   one of these). Its descriptor is held for the whole run; SQLite
//!   reaches it only as `/proc/self/fd/N/...` ([`crate::vfs_shim`]), which
//!   the kernel resolves to the held directory whatever happens to the
//!   names above it.
//! - While the run lives, `dbio.lock` inside it is flock'ed (as
//!   `dbio_engine::target` does for its `.tmp` files); it says
//!   `temporary` or `keep`. A later run in the same directory removes the
//!   private directories of runs that are gone (SIGKILL) and were
//!   temporary, and names the ones it cannot or must not remove
//!   ([`remove_stale`]).
//! - At the end everything is removed by descriptor: `unlinkat` on the
//!   held descriptor for each regular file of dbio's user, the anchor
//!   last, then the directory by its name in the parent, only while that
//!   name still refers to it. A directory renamed during the run is
//!   emptied and named on stderr. With `--keep` the directory stays with
//!   the database in it, made 0755 so that others can read what they
//!   could read before (a kept database file is 0644), never writable by
//!   anyone else.
//!
//! Bounds: removing a directory by name (`unlinkat(AT_REMOVEDIR)`) has no
//! descriptor form; between the check of its inode and the removal the
//! owner of the parent directory could rename an empty directory of their
//! own into its place, and lose that empty directory. Nothing with data in
//! it can be removed that way.

use crate::LoadError;
use dbio_engine::target::TEMP_MARK;
use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Every private directory's name starts with this.
pub const PREFIX: &str = "dbio-load-";
/// The flock'ed file inside a private directory while its run lives.
pub const ANCHOR: &str = "dbio.lock";
/// The anchor's content for a run started with `--keep`.
const KEEP_MARK: &[u8] = b"keep";

/// The names of the files created in a private directory, each with the
/// device and inode it was created as: only those are removed at the
/// end, and only while their name still refers to that inode.
#[derive(Debug, Default)]
pub struct Made(Mutex<Vec<(OsString, u64, u64)>>);

impl Made {
    fn list(&self) -> std::sync::MutexGuard<'_, Vec<(OsString, u64, u64)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `name` as created as `dev`/`ino` (replacing an earlier
    /// file of that name, which is gone).
    pub fn record(&self, name: &OsStr, dev: u64, ino: u64) {
        let mut l = self.list();
        l.retain(|(n, _, _)| n != name);
        l.push((name.to_os_string(), dev, ino));
    }

    /// Forgets `name` (it was deleted).
    pub fn forget(&self, name: &OsStr) {
        self.list().retain(|(n, _, _)| n != name);
    }

    /// Whether `name` was created as `dev`/`ino`.
    pub fn is(&self, name: &OsStr, dev: u64, ino: u64) -> bool {
        self.list()
            .iter()
            .any(|(n, d, i)| n == name && *d == dev && *i == ino)
    }

    fn names(&self) -> Vec<(OsString, u64, u64)> {
        self.list().clone()
    }
}

/// A private directory dbio created and holds open.
pub struct PrivateDir {
    parent_path: PathBuf,
    parent: OwnedFd,
    name: OsString,
    dir: OwnedFd,
    dev: u64,
    ino: u64,
    keep: bool,
    /// `dbio.lock`, flock'ed until the directory is cleaned up.
    anchor: Option<OwnedFd>,
    /// The files dbio (or SQLite through dbio's VFS) created in it.
    made: Arc<Made>,
    /// Stale directories removed or named when this one was made.
    notices: Vec<String>,
}

fn io(what: &str, p: &Path, e: Errno) -> LoadError {
    LoadError::Io(format!(
        "cannot {what} {}: {}",
        p.display(),
        std::io::Error::from(e)
    ))
}

/// `dbio-load-<pid>-<16 hex digits>`: the pid of the run, or None for
/// any other name.
fn dir_pid(name: &[u8]) -> Option<i32> {
    let s = std::str::from_utf8(name).ok()?;
    let (pid, tag) = s.strip_prefix(PREFIX)?.split_once('-')?;
    let ok = !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && tag.len() == 16
        && tag.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| pid.parse().ok()).flatten()
}

/// An old scheme's scratch file `dbio-load-<pid>-<n>.sqlite[-wal|-shm|-journal]`
/// (dbio before issue 21 made these in the target directory itself).
fn old_scheme_pid(name: &[u8]) -> Option<i32> {
    let s = std::str::from_utf8(name).ok()?;
    let s = ["", "-wal", "-shm", "-journal"].iter().find_map(|suffix| {
        s.strip_suffix(suffix)
            .and_then(|r| r.strip_suffix(".sqlite"))
    })?;
    let (pid, n) = s.strip_prefix(PREFIX)?.split_once('-')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n))
        .then(|| pid.parse().ok())
        .flatten()
}

impl PrivateDir {
    /// Makes a new private directory in `parent_path`, opened once here by
    /// [`dbio_engine::resolve`]'s rules (a symbolic link on the way is
    /// followed only when root or the user running dbio owns it, a magic
    /// link of /proc never), after removing or naming the stale ones of
    /// killed runs.
    pub fn create(parent_path: &Path, keep: bool) -> Result<PrivateDir, LoadError> {
        let parent = dbio_engine::resolve::open_dir(parent_path).map_err(|e| match e {
            dbio_engine::resolve::DirError::Refused(why) => LoadError::Io(why),
            dbio_engine::resolve::DirError::Os(e) => io("open the directory", parent_path, e),
        })?;
        Self::create_in(parent, parent_path, keep)
    }

    /// As [`PrivateDir::create`], in the directory `parent` a caller has
    /// already opened (`dbio check` opens its directory once for every
    /// section); `parent_path` names it in messages.
    pub fn create_in(
        parent: OwnedFd,
        parent_path: &Path,
        keep: bool,
    ) -> Result<PrivateDir, LoadError> {
        let mut notices = remove_stale(&parent, parent_path);
        let mut lost = 0;
        for _ in 0..16 {
            let mut tag = [0u8; 8];
            rustix::rand::getrandom(&mut tag, rustix::rand::GetRandomFlags::empty())
                .map_err(|e| io("draw a random name in", parent_path, e))?;
            let name = format!(
                "{PREFIX}{}-{:016x}",
                std::process::id(),
                u64::from_ne_bytes(tag)
            );
            let t0 = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
            match rustix::fs::mkdirat(&parent, name.as_str(), Mode::from_raw_mode(0o700)) {
                Ok(()) => {}
                Err(Errno::EXIST) => continue,
                Err(e) => return Err(io("create a private directory in", parent_path, e)),
            }
            let shown = parent_path.join(&name);
            match open_made(&parent, OsStr::new(&name), &shown)? {
                Some((dir, st)) => {
                    return Self::adopt(parent, parent_path, name.into(), dir, st, keep, notices)
                }
                None => {
                    // Renamed away between mkdirat and openat by the
                    // owner of the directory: removed where it went, and
                    // tried again under a new name.
                    let t1 = rustix::time::clock_gettime(rustix::time::ClockId::Realtime);
                    if !remove_lost(&parent, (t0.tv_sec, t0.tv_nsec), (t1.tv_sec, t1.tv_nsec)) {
                        lost += 1;
                    }
                }
            }
        }
        if lost > 0 {
            notices.push(format!(
                "{lost} empty director{} dbio made in {} {} renamed by someone else before dbio could open {} and could not be found again; left as {}",
                if lost == 1 { "y" } else { "ies" },
                parent_path.display(),
                if lost == 1 { "was" } else { "were" },
                if lost == 1 { "it" } else { "them" },
                if lost == 1 { "it is" } else { "they are" },
            ));
            eprintln!(
                "dbio: warning: {}",
                dbio_model::visible::visible(&notices[notices.len() - 1])
            );
        }
        Err(LoadError::Refused(format!(
            "dbio's private directory in {} was renamed or replaced right after dbio created it, 16 times in a row; nothing was written there",
            parent_path.display()
        )))
    }

    /// Takes the checked directory `dir` as the run's: its lock file.
    fn adopt(
        parent: OwnedFd,
        parent_path: &Path,
        name: OsString,
        dir: OwnedFd,
        st: rustix::fs::Stat,
        keep: bool,
        notices: Vec<String>,
    ) -> Result<PrivateDir, LoadError> {
        let shown = parent_path.join(&name);
        let mark = if keep { KEEP_MARK } else { TEMP_MARK };
        let anchor = rustix::fs::openat(
            &dir,
            ANCHOR,
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| io("create the lock file in", &shown, e))?;
        // Held while dbio runs: a later run must not take it for stale.
        let _ = rustix::fs::flock(&anchor, FlockOperation::NonBlockingLockExclusive);
        let mut f = std::fs::File::from(anchor);
        f.write_all(mark).map_err(|e| {
            LoadError::Io(format!(
                "cannot write {}: {e}",
                shown.join(ANCHOR).display()
            ))
        })?;
        Ok(PrivateDir {
            parent_path: parent_path.to_path_buf(),
            parent,
            name,
            dir,
            dev: st.st_dev,
            ino: st.st_ino,
            keep,
            anchor: Some(f.into()),
            made: Arc::new(Made::default()),
            notices,
        })
    }

    /// The held directory.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.dir.as_fd()
    }

    /// Where the directory was made, for messages and results.
    pub fn path(&self) -> PathBuf {
        self.parent_path.join(&self.name)
    }

    /// The record of the files created in it, shared with the VFS.
    pub fn made(&self) -> Arc<Made> {
        self.made.clone()
    }

    /// Creates the file `name` in the directory (`O_CREAT | O_EXCL |
    /// O_NOFOLLOW`, read-write) and records it.
    pub fn create_file(&self, name: &str, mode: u32) -> Result<OwnedFd, LoadError> {
        let shown = self.path().join(name);
        let fd = rustix::fs::openat(
            &self.dir,
            name,
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )
        .map_err(|e| io("create", &shown, e))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| io("inspect", &shown, e))?;
        self.made.record(OsStr::new(name), st.st_dev, st.st_ino);
        Ok(fd)
    }

    /// What the user should know (stale directories removed or named).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }
}

/// Removes every regular file of dbio's user in the stale private
/// directory `dir`, `ANCHOR` last (its run's record of what it made died
/// with it, but a directory only dbio's user can write holds nothing
/// anyone else made). True when nothing else is left in it.
fn empty_out(dir: &OwnedFd) -> bool {
    let Ok(entries) = rustix::fs::Dir::read_from(dir) else {
        return false;
    };
    let me = rustix::process::geteuid().as_raw();
    let mut clean = true;
    for ent in entries.flatten() {
        let name = ent.file_name().to_bytes();
        if matches!(name, b"." | b".." | b"dbio.lock") {
            continue;
        }
        let name = OsStr::from_bytes(name);
        let ours = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
            FileType::from_raw_mode(st.st_mode) == FileType::RegularFile && st.st_uid == me
        });
        clean &= ours && rustix::fs::unlinkat(dir, name, AtFlags::empty()).is_ok();
    }
    match rustix::fs::unlinkat(dir, ANCHOR, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => clean,
        Err(_) => false,
    }
}

/// Removes the directory `name` of `parent` only while that name still
/// refers to `dev`/`ino`. Ok(false) when it now refers to something else.
fn rmdir_if_same(parent: &OwnedFd, name: &OsStr, dev: u64, ino: u64) -> Result<bool, Errno> {
    let st = rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if st.st_dev != dev || st.st_ino != ino {
        return Ok(false);
    }
    rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR)?;
    Ok(true)
}

/// Opens the directory `name` dbio just made in `parent` and checks it is
/// dbio's: its user's, no group or other bits, empty. None when it is not
/// (renamed away or replaced since `mkdirat`).
fn open_made(
    parent: &OwnedFd,
    name: &OsStr,
    shown: &Path,
) -> Result<Option<(OwnedFd, rustix::fs::Stat)>, LoadError> {
    let dir = match rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(d) => d,
        Err(Errno::LOOP | Errno::NOTDIR | Errno::NOENT) => return Ok(None),
        Err(e) => return Err(io("open the private directory", shown, e)),
    };
    let st = rustix::fs::fstat(&dir).map_err(|e| io("inspect", shown, e))?;
    // mkdirat's mode is cut by the umask: anything but group and other
    // bits taken away is put back.
    let private = st.st_uid == rustix::process::geteuid().as_raw()
        && st.st_mode & 0o7077 == 0
        && is_empty(&dir)
        && rustix::fs::fchmod(&dir, Mode::from_raw_mode(0o700)).is_ok();
    Ok(private.then_some((dir, st)))
}

fn is_empty(dir: &OwnedFd) -> bool {
    rustix::fs::Dir::read_from(dir).is_ok_and(|d| {
        d.flatten()
            .all(|e| matches!(e.file_name().to_bytes(), b"." | b".."))
    })
}

/// Finds and removes the empty directory dbio made at a time within
/// `from`..=`to` (seconds, nanoseconds) that someone renamed away before
/// dbio could open it: a directory of dbio's user, without group or
/// other bits, empty, born (statx btime) in that window. False when none
/// was found (a filesystem without birth times) or it could not be
/// removed.
fn remove_lost(parent: &OwnedFd, from: (i64, i64), to: (i64, i64)) -> bool {
    let Ok(entries) = rustix::fs::Dir::read_from(parent) else {
        return false;
    };
    let me = rustix::process::geteuid().as_raw();
    for ent in entries.flatten() {
        let raw = ent.file_name().to_bytes();
        // Another running dbio's directory, empty for a moment.
        let me_pid = std::process::id() as i32;
        if dir_pid(raw).is_some_and(|pid| pid != me_pid && !dbio_engine::target::process_gone(pid))
        {
            continue;
        }
        let name = OsStr::from_bytes(raw).to_os_string();
        let Ok(x) = rustix::fs::statx(
            parent,
            &name,
            AtFlags::SYMLINK_NOFOLLOW,
            rustix::fs::StatxFlags::BASIC_STATS | rustix::fs::StatxFlags::BTIME,
        ) else {
            continue;
        };
        let born = (x.stx_btime.tv_sec, i64::from(x.stx_btime.tv_nsec));
        let candidate = x.stx_mask & rustix::fs::StatxFlags::BTIME.bits() != 0
            && FileType::from_raw_mode(u32::from(x.stx_mode)) == FileType::Directory
            && x.stx_uid == me
            && x.stx_mode & 0o7077 == 0
            && born >= from
            && born <= to;
        if !candidate {
            continue;
        }
        let Ok(dir) = rustix::fs::openat(
            parent,
            &name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            continue;
        };
        let Ok(st) = rustix::fs::fstat(&dir) else {
            continue;
        };
        if is_empty(&dir) && rmdir_if_same(parent, &name, st.st_dev, st.st_ino) == Ok(true) {
            return true;
        }
    }
    false
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if self.keep {
            // The database stays; the lock file goes, so no later run
            // takes the directory for an interrupted one.
            let _ = rustix::fs::unlinkat(&self.dir, ANCHOR, AtFlags::empty());
            let _ = rustix::fs::fchmod(&self.dir, Mode::from_raw_mode(0o755));
            return;
        }
        // Only what was made here, each while its name is still that file.
        for (name, dev, ino) in self.made.names() {
            if let Ok(st) = rustix::fs::statat(&self.dir, &name, AtFlags::SYMLINK_NOFOLLOW) {
                if st.st_dev == dev && st.st_ino == ino {
                    let _ = rustix::fs::unlinkat(&self.dir, &name, AtFlags::empty());
                }
            }
        }
        let _ = rustix::fs::unlinkat(&self.dir, ANCHOR, AtFlags::empty());
        self.anchor = None;
        let mut removed = rmdir_if_same(&self.parent, &self.name, self.dev, self.ino);
        if removed == Ok(false) {
            // Renamed by the owner of the parent directory: it is still
            // in it (moving a directory elsewhere needs write permission
            // on the directory itself), under the name it has now.
            if let Some(now) = current_name(&self.parent, self.dev, self.ino) {
                removed = rmdir_if_same(&self.parent, &now, self.dev, self.ino);
            }
        }
        if removed == Ok(true) {
            return;
        }
        // Renamed during the run (by the owner of the parent directory),
        // or holding something dbio did not make: the last moment dbio
        // has is stderr, one line.
        let now = std::fs::read_link(format!("/proc/self/fd/{}", self.dir.as_raw_fd()))
            .unwrap_or_else(|_| self.path());
        let why = match removed {
            Err(Errno::NOTEMPTY) => {
                "it holds files dbio did not create, which it leaves as they are"
            }
            _ => "it was renamed while dbio ran; everything dbio made in it was removed",
        };
        let line = format!(
            "dbio's private directory {} was left at {}: {why}",
            self.path().display(),
            now.display()
        );
        eprintln!("dbio: warning: {}", dbio_model::visible::visible(&line));
    }
}

/// The name `dev`/`ino` has in `parent` now, if any.
fn current_name(parent: &OwnedFd, dev: u64, ino: u64) -> Option<OsString> {
    rustix::fs::Dir::read_from(parent)
        .ok()?
        .flatten()
        .filter(|e| e.ino() == ino)
        .map(|e| OsStr::from_bytes(e.file_name().to_bytes()).to_os_string())
        .find(|n| {
            rustix::fs::statat(parent, n, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|st| st.st_dev == dev && st.st_ino == ino)
        })
}

/// Removes the private directories of `dbio load` runs that were killed
/// (their process is gone and nobody holds their `dbio.lock`) and were
/// not `--keep` runs, and names the leftovers it cannot or must not
/// remove: a killed `--keep` run's directory, and the scratch files of
/// dbio versions before issue 21 (`dbio-load-<pid>-<n>.sqlite` and its
/// `-wal`, `-shm`, `-journal`, made by name in the directory itself, so
/// another user could have planted a file under those names). Directories
/// that are not dbio's user's, or not mode 0700, are not dbio's and are
/// left alone without a word. Returns the notices (none when nothing was
/// found).
pub fn remove_stale(parent: &OwnedFd, parent_path: &Path) -> Vec<String> {
    let Ok(entries) = rustix::fs::Dir::read_from(parent) else {
        return Vec::new();
    };
    let me = std::process::id() as i32;
    let (mut removed, mut named, mut old) = (Vec::new(), Vec::new(), Vec::new());
    for ent in entries.flatten() {
        let raw = ent.file_name().to_bytes();
        let name = OsStr::from_bytes(raw).to_os_string();
        if let Some(pid) = dir_pid(raw) {
            if pid == me || !dbio_engine::target::process_gone(pid) {
                continue;
            }
            match remove_stale_dir(parent, &name) {
                Stale::Removed => removed.push(name),
                Stale::Named(why) => {
                    named.push(format!("{} ({why})", parent_path.join(&name).display()))
                }
                Stale::NotOurs => {}
            }
        } else if old_scheme_pid(raw)
            .is_some_and(|pid| pid != me && dbio_engine::target::process_gone(pid))
        {
            old.push(name.to_string_lossy().into_owned());
        }
    }
    let mut notices = Vec::new();
    if !removed.is_empty() {
        removed.sort();
        let list: Vec<_> = removed.iter().map(|n| n.to_string_lossy()).collect();
        notices.push(format!(
            "removed {} private director{} of dbio load runs in {} that were killed before they could clean up: {}",
            removed.len(),
            if removed.len() == 1 { "y" } else { "ies" },
            parent_path.display(),
            list.join(", ")
        ));
    }
    named.sort();
    for n in named {
        notices.push(format!(
            "a dbio load run that was killed left {n}; dbio left it as it is"
        ));
    }
    if !old.is_empty() {
        old.sort();
        notices.push(format!(
            "{} in {} {} left by a dbio load run of an earlier dbio version that was killed: {}; dbio no longer removes files by those names (another user could have made them), remove them if they are yours",
            if old.len() == 1 { "a scratch file" } else { "scratch files" },
            parent_path.display(),
            if old.len() == 1 { "was" } else { "were" },
            old.join(", ")
        ));
    }
    notices
}

enum Stale {
    Removed,
    Named(&'static str),
    NotOurs,
}

fn remove_stale_dir(parent: &OwnedFd, name: &OsStr) -> Stale {
    let Ok(dir) = rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return Stale::NotOurs;
    };
    let Ok(st) = rustix::fs::fstat(&dir) else {
        return Stale::NotOurs;
    };
    if st.st_uid != rustix::process::geteuid().as_raw() || st.st_mode & 0o077 != 0 {
        return Stale::NotOurs;
    }
    let Ok(anchor) = rustix::fs::openat(
        &dir,
        ANCHOR,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return Stale::Named("no lock file in it, so dbio cannot tell it is a killed run's");
    };
    let regular = rustix::fs::fstat(&anchor)
        .is_ok_and(|a| FileType::from_raw_mode(a.st_mode) == FileType::RegularFile);
    if !regular {
        return Stale::Named("its lock file is not a regular file");
    }
    if rustix::fs::flock(&anchor, FlockOperation::NonBlockingLockExclusive).is_err() {
        return Stale::NotOurs; // a running dbio holds it
    }
    let mut mark = [0u8; 16];
    let n = rustix::io::read(&anchor, &mut mark).unwrap_or(0);
    if &mark[..n] == KEEP_MARK {
        return Stale::Named("a --keep run's database, which may be incomplete");
    }
    if &mark[..n] != TEMP_MARK {
        return Stale::Named("its lock file does not say it is temporary");
    }
    if !empty_out(&dir) {
        return Stale::Named("something in it is not a file dbio makes");
    }
    match rmdir_if_same(parent, name, st.st_dev, st.st_ino) {
        Ok(true) => Stale::Removed,
        _ => Stale::Named("it could not be removed by its name"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_yield_their_pid_and_nothing_else_does() {
        assert_eq!(dir_pid(b"dbio-load-42-0123456789abcdef"), Some(42));
        assert_eq!(dir_pid(b"dbio-load-42-0123456789abcde"), None);
        assert_eq!(dir_pid(b"dbio-load-42-0123456789abcdeg"), None);
        assert_eq!(dir_pid(b"dbio-load--0123456789abcdef"), None);
        assert_eq!(dir_pid(b"dbio-load-4x-0123456789abcdef"), None);
        assert_eq!(dir_pid(b"dbio-load-42-0.sqlite"), None);
        assert_eq!(old_scheme_pid(b"dbio-load-42-0.sqlite"), Some(42));
        assert_eq!(old_scheme_pid(b"dbio-load-42-7.sqlite-wal"), Some(42));
        assert_eq!(old_scheme_pid(b"dbio-load-42-7.sqlite-shm"), Some(42));
        assert_eq!(old_scheme_pid(b"dbio-load-42-7.sqlite-journal"), Some(42));
        assert_eq!(old_scheme_pid(b"dbio-load-42-7.sqlite-x"), None);
        assert_eq!(old_scheme_pid(b"dbio-load-42-.sqlite"), None);
        assert_eq!(old_scheme_pid(b"dbio-load-42-0123456789abcdef"), None);
    }

    #[test]
    fn a_private_directory_is_0700_held_and_removed_with_everything_in_it() {
        let d = tempfile::tempdir().unwrap();
        let p = PrivateDir::create(d.path(), false).unwrap();
        let path = p.path();
        let st = std::fs::symlink_metadata(&path).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(st.permissions().mode() & 0o7777, 0o700);
        assert!(path.join(ANCHOR).exists());
        p.create_file("x.sqlite-wal", 0o644).unwrap();
        drop(p);
        assert!(!path.exists(), "{}", path.display());
        // A file dbio did not make there stays, and so does the directory.
        let p = PrivateDir::create(d.path(), false).unwrap();
        let path = p.path();
        p.create_file("x.sqlite", 0o644).unwrap();
        std::fs::write(path.join("other"), b"not dbio's").unwrap();
        drop(p);
        assert!(!path.join("x.sqlite").exists());
        assert_eq!(std::fs::read(path.join("other")).unwrap(), b"not dbio's");
        std::fs::remove_dir_all(&path).unwrap();
        // Kept: the directory stays, readable, without its lock file.
        let p = PrivateDir::create(d.path(), true).unwrap();
        let kept = p.path();
        drop(p);
        let st = std::fs::symlink_metadata(&kept).unwrap();
        assert_eq!(st.permissions().mode() & 0o7777, 0o755);
        assert!(!kept.join(ANCHOR).exists());
    }
}
