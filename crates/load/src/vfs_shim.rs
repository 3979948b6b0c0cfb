//! SQLite's side of the commit split, measured by dbio: a VFS shim.
//!
//! SQLite has no server and keeps no counters of its own about syncs, so
//! dbio puts a thin VFS (SQLite's OS interface, "The SQLite OS Interface
//! or VFS" in SQLite's documentation) in front of the default `unix` one.
//! Every call is forwarded unchanged; on the WAL file the shim counts and
//! times `xWrite` (bytes, calls, time) and `xSync` (calls, time), and on
//! the main database file `xSync` (checkpoints). A WAL sync after this
//! connection wrote WAL frames is a commit's sync: SQLite's 'log file
//! parallel write', the sync a commit waits for. A WAL sync without such
//! writes is a checkpoint's (the checkpointer syncs the WAL before it
//! copies frames back into the database, "Write-Ahead Logging" in
//! SQLite's documentation) and is counted apart: checkpoints run outside
//! the write lock, so they overlap other sessions' commits, and counting
//! them as commit flushes would put more flushes than commits and more
//! flush time than wall time into the result. The one exception is the
//! sync of a restarted WAL's new header, which SQLite issues before the
//! first frames of a commit: it counts as that commit's (one extra flush
//! per WAL restart, about one per `wal_autocheckpoint` pages). The same
//! pattern is SQLite's own `vfstrace.c` extension, without the printing.
//!
//! Cost per call: two `clock_gettime` (vDSO) and three relaxed atomic
//! additions, no allocation. The counters are atomics shared by the
//! connections of one run rather than per-thread cells: SQLite lets one
//! connection write the WAL at a time (the WAL write lock), so they are
//! never contended and cost what per-thread counters would. Each
//! [`Shim`] registers a VFS of its own (`dbio-shim-N`), so runs in one
//! process (the 1- and 10-session runs of `dbio check`, parallel tests)
//! never add to each other's counters.
//!
//! The shim also keeps SQLite's files where dbio made them (issue 21 §3).
//! Each shim is bound to one private directory ([`crate::private_dir`]),
//! whose descriptor it holds (a duplicate of its own), and SQLite names
//! every file as `/proc/self/fd/N/<name>`: the kernel resolves that to the
//! held directory itself, so renaming or swapping any directory above it
//! cannot redirect a file. SQLite derives every path from the main file's
//! (checked in the bundled sqlite3.c, 3.53): the pager asks `xFullPathname`
//! for the database's full path and appends `-journal` and `-wal` to it;
//! `-shm` is the main file's path plus `-shm` (`unixOpenSharedMemory`);
//! `xDelete`, `xAccess` and the directory sync after a new journal or WAL
//! (`openDirectory`: the path up to its last `/`) use those paths. So:
//!
//! - `xFullPathname` returns a name under the directory verbatim (the
//!   `unix` VFS would expand `/proc/self/fd/N` into the directory's
//!   current path, the very lookup by name this avoids, and report a
//!   symbolic link, which `SQLITE_OPEN_NOFOLLOW` refuses) and refuses any
//!   other name;
//! - `xOpen`, `xDelete` and `xAccess` refuse names outside the directory;
//! - a file `xOpen` finds there must be one dbio created (recorded with its
//!   inode in the directory's [`Made`] list), else it is refused with one
//!   sentence ([`Shim::take_refusal`]); one it does not find is created
//!   with `SQLITE_OPEN_EXCLUSIVE`, which the `unix` VFS turns into
//!   `O_CREAT | O_EXCL | O_NOFOLLOW`, and recorded. The `-shm` file is
//!   opened by the `unix` VFS itself (`O_CREAT | O_NOFOLLOW`, never
//!   through `xOpen`), so the shim creates it exclusively, empty, before
//!   each open of the main file when it is missing (the first connection
//!   truncates and initialises it: SQLite's own rule for a `-shm` it finds);
//! - `xDelete` deletes only what dbio created, and forgets it.
//!
//! Temporary files SQLite opens without a name (statement journals, temp
//! tables: not used by dbio's inserts) stay with the `unix` VFS, which makes
//! them in the temporary directory under random names with `O_EXCL |
//! O_NOFOLLOW` and unlinks them at once.

use crate::private_dir::Made;
use rusqlite::ffi;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::ffi::{c_char, c_int, c_void, CStr, CString, OsStr};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What the shim counted so far (cumulative, like a server's counters).
#[derive(Debug, Default)]
pub struct ShimCounters {
    /// `xWrite` calls on WAL files.
    pub wal_writes: AtomicU64,
    /// Time in those calls, ns.
    pub wal_write_ns: AtomicU64,
    /// Bytes those calls wrote.
    pub wal_bytes: AtomicU64,
    /// `xSync` calls on WAL files after WAL writes (commits).
    pub wal_syncs: AtomicU64,
    /// Time in those calls, ns.
    pub wal_sync_ns: AtomicU64,
    /// `xSync` calls on WAL files without WAL writes before (checkpoints).
    pub ckpt_wal_syncs: AtomicU64,
    /// Time in those calls, ns.
    pub ckpt_wal_sync_ns: AtomicU64,
    /// `xSync` calls on main database files (checkpoints).
    pub db_syncs: AtomicU64,
    /// Time in those calls, ns.
    pub db_sync_ns: AtomicU64,
}

impl ShimCounters {
    /// The counters now, named as [`crate::Counter`]s.
    pub fn snapshot(&self) -> Vec<crate::Counter> {
        let c = |name: &str, v: &AtomicU64, unit: &'static str| crate::Counter {
            name: name.to_string(),
            value: v.load(Ordering::Relaxed) as f64,
            unit,
        };
        vec![
            c(names::WAL_SYNCS, &self.wal_syncs, "count"),
            c(names::WAL_SYNC_TIME, &self.wal_sync_ns, "ns"),
            c(names::WAL_WRITES, &self.wal_writes, "count"),
            c(names::WAL_WRITE_TIME, &self.wal_write_ns, "ns"),
            c(names::WAL_BYTES, &self.wal_bytes, "bytes"),
            c(names::CKPT_WAL_SYNCS, &self.ckpt_wal_syncs, "count"),
            c(names::CKPT_WAL_SYNC_TIME, &self.ckpt_wal_sync_ns, "ns"),
            c(names::DB_SYNCS, &self.db_syncs, "count"),
            c(names::DB_SYNC_TIME, &self.db_sync_ns, "ns"),
        ]
    }
}

/// The counters' names in results.
pub mod names {
    /// WAL syncs of commits.
    pub const WAL_SYNCS: &str = "wal syncs";
    /// Time in WAL syncs of commits.
    pub const WAL_SYNC_TIME: &str = "wal sync time";
    /// WAL syncs of checkpoints.
    pub const CKPT_WAL_SYNCS: &str = "checkpoint wal syncs";
    /// Time in WAL syncs of checkpoints.
    pub const CKPT_WAL_SYNC_TIME: &str = "checkpoint wal sync time";
    /// WAL write calls.
    pub const WAL_WRITES: &str = "wal writes";
    /// Time in WAL writes.
    pub const WAL_WRITE_TIME: &str = "wal write time";
    /// WAL bytes written.
    pub const WAL_BYTES: &str = "wal bytes";
    /// Database file syncs (checkpoints).
    pub const DB_SYNCS: &str = "checkpoint database syncs";
    /// Time in database file syncs.
    pub const DB_SYNC_TIME: &str = "checkpoint database sync time";
}

/// One registered shim VFS. Unregistered on drop: every connection
/// opened through it must be closed first (the owner, `SqliteDb`, closes
/// its sessions and its own connection before it drops the shim).
pub struct Shim {
    vfs: Box<ffi::sqlite3_vfs>,
    name: CString,
    counters: Arc<ShimCounters>,
    /// `/proc/self/fd/N/` of the held directory.
    prefix: String,
}

// SAFETY: the VFS struct is read-only after registration; SQLite calls
// it from any thread (SQLITE_THREADSAFE=1), and the counters are atomics.
unsafe impl Send for Shim {}
// SAFETY: as above: no method mutates through a shared reference.
unsafe impl Sync for Shim {}

/// The file object SQLite allocates for the shim: ours first, the real
/// VFS's file right after it (`szOsFile` covers both, as in vfstrace.c).
#[repr(C)]
struct ShimFile {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    counters: *const ShimCounters,
    kind: FileKind,
    /// WAL frames written by this connection since its last WAL sync (a
    /// file object belongs to one connection, which SQLite never uses
    /// from two threads at once).
    dirty: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
enum FileKind {
    Wal,
    MainDb,
    Other,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl Shim {
    /// Registers a new shim over the default VFS (not as the default),
    /// bound to the private directory `dir` (shown to the user as
    /// `shown`) and its record of created files.
    pub fn register(dir: BorrowedFd<'_>, shown: &Path, made: Arc<Made>) -> Result<Shim, String> {
        // SAFETY: sqlite3_vfs_find(NULL) returns the default VFS or NULL;
        // the registered VFS objects live until process exit or
        // unregistration (the default one is never unregistered).
        let real = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
        if real.is_null() {
            return Err("SQLite has no default VFS".into());
        }
        let dir = rustix::io::fcntl_dupfd_cloexec(dir, 3).map_err(|e| {
            format!(
                "cannot hold {}: {}",
                shown.display(),
                std::io::Error::from(e)
            )
        })?;
        let link = format!("/proc/self/fd/{}", dir.as_raw_fd());
        // The kernel's /proc must lead to the held directory itself.
        let same = match (rustix::fs::stat(link.as_str()), rustix::fs::fstat(&dir)) {
            (Ok(a), Ok(b)) => a.st_dev == b.st_dev && a.st_ino == b.st_ino,
            _ => false,
        };
        if !same {
            return Err(format!(
                "dbio load needs /proc mounted: SQLite's files are kept in {} through {link}, which does not lead there",
                shown.display()
            ));
        }
        let prefix = format!("{link}/");
        let counters = Arc::new(ShimCounters::default());
        let name = CString::new(format!(
            "dbio-shim-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
        .expect("no NUL in the name");
        // SAFETY: `real` is a valid VFS (checked above); copying it keeps
        // every method but the ones overridden below.
        let mut vfs = Box::new(unsafe { std::ptr::read(real) });
        // SAFETY: as above.
        let real_size = unsafe { (*real).szOsFile };
        vfs.szOsFile = std::mem::size_of::<ShimFile>() as c_int + real_size;
        vfs.pNext = std::ptr::null_mut();
        vfs.zName = name.as_ptr();
        vfs.pAppData = Box::into_raw(Box::new(AppData {
            real,
            counters: Arc::as_ptr(&counters),
            dir,
            prefix: prefix.clone(),
            shown: shown.to_path_buf(),
            made,
            refusal: Mutex::new(None),
        })) as *mut c_void;
        vfs.xOpen = Some(shim_open);
        vfs.xDelete = Some(shim_delete);
        vfs.xAccess = Some(shim_access);
        vfs.xFullPathname = Some(shim_full_pathname);
        let ptr: *mut ffi::sqlite3_vfs = &mut *vfs;
        // SAFETY: `vfs` is boxed (a stable address) and outlives its
        // registration (unregistered in drop before it is freed).
        let rc = unsafe { ffi::sqlite3_vfs_register(ptr, 0) };
        if rc != ffi::SQLITE_OK {
            // SAFETY: made by Box::into_raw above and not registered.
            drop(unsafe { Box::from_raw(vfs.pAppData as *mut AppData) });
            return Err(format!("SQLite refused dbio's VFS shim (code {rc})"));
        }
        Ok(Shim {
            vfs,
            name,
            counters,
            prefix,
        })
    }

    /// The VFS name to open connections with.
    pub fn name(&self) -> &str {
        self.name.to_str().expect("ASCII name")
    }

    /// The counters of every file opened through this shim.
    pub fn counters(&self) -> &Arc<ShimCounters> {
        &self.counters
    }

    /// The name SQLite opens `file` of the private directory by
    /// (`/proc/self/fd/N/file`).
    pub fn path_of(&self, file: &str) -> String {
        format!("{}{file}", self.prefix)
    }

    /// Why the shim last refused a file, once (None when it refused none).
    pub fn take_refusal(&self) -> Option<String> {
        // SAFETY: registered in `register`, freed only in drop.
        let app = unsafe { &*(self.vfs.pAppData as *const AppData) };
        app.refusal.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl Drop for Shim {
    fn drop(&mut self) {
        let ptr: *mut ffi::sqlite3_vfs = &mut *self.vfs;
        // SAFETY: registered in `register`; no connection uses it any
        // more (the owner's contract), so unregistering and freeing the
        // app data is sound.
        unsafe {
            ffi::sqlite3_vfs_unregister(ptr);
            drop(Box::from_raw(self.vfs.pAppData as *mut AppData));
        }
    }
}

struct AppData {
    real: *mut ffi::sqlite3_vfs,
    counters: *const ShimCounters,
    /// The private directory (the shim's own descriptor of it).
    dir: OwnedFd,
    /// `/proc/self/fd/N/` of `dir`.
    prefix: String,
    /// The private directory as the user knows it, for sentences.
    shown: PathBuf,
    made: Arc<Made>,
    /// Why a file was refused, for the error the caller reports.
    refusal: Mutex<Option<String>>,
}

impl AppData {
    /// The file name in the private directory that `path` stands for:
    /// `prefix` then one plain name; None for anything else.
    fn file_name<'a>(&self, path: &'a [u8]) -> Option<&'a OsStr> {
        let rest = path.strip_prefix(self.prefix.as_bytes())?;
        let plain = !rest.is_empty() && rest != b"." && rest != b".." && !rest.contains(&b'/');
        plain.then(|| OsStr::from_bytes(rest))
    }

    fn refuse(&self, rc: c_int, why: String) -> c_int {
        *self.refusal.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        rc
    }

    fn outside(&self, rc: c_int, path: &[u8]) -> c_int {
        self.refuse(
            rc,
            format!(
                "SQLite asked for {}, which is not in dbio's private directory {}; it was refused",
                String::from_utf8_lossy(path),
                self.shown.display()
            ),
        )
    }

    fn not_ours(&self, rc: c_int, name: &OsStr) -> c_int {
        self.refuse(
            rc,
            format!(
                "{} is not a file dbio created (it appeared in dbio's private directory); SQLite was not let open or delete it",
                self.shown.join(name).display()
            ),
        )
    }

    /// What `name` is now: None when absent, Some(true) when it is the
    /// file dbio created under that name, Some(false) otherwise.
    fn lookup(&self, name: &OsStr) -> Option<bool> {
        match rustix::fs::statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Some(self.made.is(name, st.st_dev, st.st_ino)),
            Err(rustix::io::Errno::NOENT) => None,
            Err(_) => Some(false),
        }
    }

    /// Records `name` as created now.
    fn record(&self, name: &OsStr) {
        if let Ok(st) = rustix::fs::statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            self.made.record(name, st.st_dev, st.st_ino);
        }
    }

    /// Makes sure `<main>-shm` is dbio's: created empty and exclusively
    /// when missing (see the module's documentation).
    fn own_shm(&self, main: &OsStr) -> Result<(), c_int> {
        let mut shm = main.to_os_string();
        shm.push("-shm");
        match self.lookup(&shm) {
            Some(true) => Ok(()),
            Some(false) => Err(self.not_ours(ffi::SQLITE_CANTOPEN, &shm)),
            None => {
                let mode = rustix::fs::statat(&self.dir, main, AtFlags::SYMLINK_NOFOLLOW)
                    .map_or(0o644, |st| st.st_mode & 0o777);
                let fd = rustix::fs::openat(
                    &self.dir,
                    &shm,
                    OFlags::RDWR
                        | OFlags::CREATE
                        | OFlags::EXCL
                        | OFlags::NOFOLLOW
                        | OFlags::CLOEXEC,
                    Mode::from_raw_mode(mode),
                );
                match fd.and_then(|fd| rustix::fs::fstat(&fd)) {
                    Ok(st) => {
                        self.made.record(&shm, st.st_dev, st.st_ino);
                        Ok(())
                    }
                    Err(rustix::io::Errno::EXIST) => Err(self.not_ours(ffi::SQLITE_CANTOPEN, &shm)),
                    Err(_) => Err(ffi::SQLITE_CANTOPEN),
                }
            }
        }
    }
}

/// The bytes of a C path SQLite passes.
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string.
unsafe fn path_bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    (!p.is_null()).then(|| CStr::from_ptr(p).to_bytes())
}

unsafe extern "C" fn shim_full_pathname(
    vfs: *mut ffi::sqlite3_vfs,
    path: *const c_char,
    n_out: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY (whole function): SQLite passes our VFS, a C string and an
    // output buffer of n_out bytes.
    let app = &*((*vfs).pAppData as *const AppData);
    let Some(p) = path_bytes(path) else {
        return ffi::SQLITE_CANTOPEN;
    };
    if app.file_name(p).is_none() {
        return app.outside(ffi::SQLITE_CANTOPEN, p);
    }
    // Verbatim: the kernel, not a lookup by name, resolves the directory.
    if p.len() + 1 > usize::try_from(n_out).unwrap_or(0) {
        return ffi::SQLITE_CANTOPEN;
    }
    std::ptr::copy_nonoverlapping(p.as_ptr(), out as *mut u8, p.len());
    *out.add(p.len()) = 0;
    ffi::SQLITE_OK
}

unsafe extern "C" fn shim_delete(
    vfs: *mut ffi::sqlite3_vfs,
    path: *const c_char,
    sync_dir: c_int,
) -> c_int {
    // SAFETY (whole function): SQLite passes our VFS and a C string.
    let app = &*((*vfs).pAppData as *const AppData);
    let Some(p) = path_bytes(path) else {
        return ffi::SQLITE_IOERR_DELETE;
    };
    let Some(name) = app.file_name(p) else {
        return app.outside(ffi::SQLITE_IOERR_DELETE, p);
    };
    if app.lookup(name) == Some(false) {
        return app.not_ours(ffi::SQLITE_IOERR_DELETE, name);
    }
    let Some(delete) = (*app.real).xDelete else {
        return ffi::SQLITE_IOERR_DELETE;
    };
    let rc = delete(app.real, path, sync_dir);
    if rc == ffi::SQLITE_OK {
        app.made.forget(name);
    }
    rc
}

unsafe extern "C" fn shim_access(
    vfs: *mut ffi::sqlite3_vfs,
    path: *const c_char,
    flags: c_int,
    out: *mut c_int,
) -> c_int {
    // SAFETY (whole function): SQLite passes our VFS, a C string and an
    // output integer.
    let app = &*((*vfs).pAppData as *const AppData);
    let Some(p) = path_bytes(path) else {
        return ffi::SQLITE_IOERR_ACCESS;
    };
    if app.file_name(p).is_none() {
        return app.outside(ffi::SQLITE_IOERR_ACCESS, p);
    }
    let Some(access) = (*app.real).xAccess else {
        return ffi::SQLITE_IOERR_ACCESS;
    };
    access(app.real, path, flags, out)
}

unsafe extern "C" fn shim_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY (whole function): SQLite passes our VFS (whose app data is an
    // AppData), a NULL or NUL-terminated name and a zeroed buffer of our
    // szOsFile bytes for `file`.
    let app = &*((*vfs).pAppData as *const AppData);
    let shim = file as *mut ShimFile;
    let real_file =
        (file as *mut u8).add(std::mem::size_of::<ShimFile>()) as *mut ffi::sqlite3_file;
    (*shim).base.pMethods = std::ptr::null();
    let Some(open) = (*app.real).xOpen else {
        return ffi::SQLITE_CANTOPEN;
    };
    let mut flags = flags;
    // A named file: dbio's, in the private directory, or created now.
    let mut created = None;
    if let Some(p) = path_bytes(name) {
        let Some(file_name) = app.file_name(p) else {
            return app.outside(ffi::SQLITE_CANTOPEN, p);
        };
        match app.lookup(file_name) {
            Some(true) => {}
            Some(false) => return app.not_ours(ffi::SQLITE_CANTOPEN, file_name),
            None if flags & ffi::SQLITE_OPEN_CREATE != 0 => {
                flags |= ffi::SQLITE_OPEN_EXCLUSIVE;
                created = Some(file_name);
            }
            None => {}
        }
        if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
            if let Err(rc) = app.own_shm(file_name) {
                return rc;
            }
        }
    }
    let mut got = 0;
    let rc = open(app.real, name, real_file, flags, &mut got);
    if !out_flags.is_null() {
        *out_flags = got;
    }
    let methods = (*real_file).pMethods;
    if methods.is_null() {
        return rc;
    }
    if let Some(n) = created {
        // The unix VFS retries a failed read-write open read-only (and
        // without O_CREAT): that is a file someone else made meanwhile.
        if rc != ffi::SQLITE_OK || got & ffi::SQLITE_OPEN_READONLY != 0 {
            if let Some(close) = (*methods).xClose {
                close(real_file);
            }
            return app.not_ours(ffi::SQLITE_CANTOPEN, n);
        }
        app.record(n);
    }
    (*shim).real = real_file;
    (*shim).counters = app.counters;
    (*shim).dirty = false;
    (*shim).kind = if flags & ffi::SQLITE_OPEN_WAL != 0 {
        FileKind::Wal
    } else if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
        FileKind::MainDb
    } else {
        FileKind::Other
    };
    (*shim).base.pMethods = match (*methods).iVersion {
        v if v >= 3 => &METHODS_V3,
        2 => &METHODS_V2,
        _ => &METHODS_V1,
    };
    rc
}

/// The real file and its methods behind a shim file.
///
/// # Safety
/// `f` must be a file opened by [`shim_open`] whose real open succeeded.
unsafe fn real(
    f: *mut ffi::sqlite3_file,
) -> (*mut ffi::sqlite3_file, &'static ffi::sqlite3_io_methods) {
    let shim = f as *mut ShimFile;
    let r = (*shim).real;
    (r, &*(*r).pMethods)
}

fn ns_since(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

unsafe extern "C" fn x_close(f: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real(f);
    m.xClose.map_or(ffi::SQLITE_OK, |x| x(r))
}

unsafe extern "C" fn x_read(
    f: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    n: c_int,
    off: i64,
) -> c_int {
    let (r, m) = real(f);
    m.xRead
        .map_or(ffi::SQLITE_IOERR_READ, |x| x(r, buf, n, off))
}

unsafe extern "C" fn x_write(
    f: *mut ffi::sqlite3_file,
    buf: *const c_void,
    n: c_int,
    off: i64,
) -> c_int {
    let (r, m) = real(f);
    let Some(x) = m.xWrite else {
        return ffi::SQLITE_IOERR_WRITE;
    };
    let shim = &mut *(f as *mut ShimFile);
    if shim.kind != FileKind::Wal {
        return x(r, buf, n, off);
    }
    shim.dirty = true;
    let t = Instant::now();
    let rc = x(r, buf, n, off);
    let c = &*shim.counters;
    c.wal_write_ns.fetch_add(ns_since(t), Ordering::Relaxed);
    c.wal_writes.fetch_add(1, Ordering::Relaxed);
    if rc == ffi::SQLITE_OK {
        c.wal_bytes.fetch_add(n.max(0) as u64, Ordering::Relaxed);
    }
    rc
}

unsafe extern "C" fn x_truncate(f: *mut ffi::sqlite3_file, size: i64) -> c_int {
    let (r, m) = real(f);
    m.xTruncate
        .map_or(ffi::SQLITE_IOERR_TRUNCATE, |x| x(r, size))
}

unsafe extern "C" fn x_sync(f: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let (r, m) = real(f);
    let Some(x) = m.xSync else {
        return ffi::SQLITE_IOERR_FSYNC;
    };
    let shim = &mut *(f as *mut ShimFile);
    if shim.kind == FileKind::Other {
        return x(r, flags);
    }
    let commit = std::mem::replace(&mut shim.dirty, false);
    let t = Instant::now();
    let rc = x(r, flags);
    let ns = ns_since(t);
    let c = &*shim.counters;
    if shim.kind == FileKind::Wal && commit {
        c.wal_sync_ns.fetch_add(ns, Ordering::Relaxed);
        c.wal_syncs.fetch_add(1, Ordering::Relaxed);
    } else if shim.kind == FileKind::Wal {
        c.ckpt_wal_sync_ns.fetch_add(ns, Ordering::Relaxed);
        c.ckpt_wal_syncs.fetch_add(1, Ordering::Relaxed);
    } else {
        c.db_sync_ns.fetch_add(ns, Ordering::Relaxed);
        c.db_syncs.fetch_add(1, Ordering::Relaxed);
    }
    rc
}

unsafe extern "C" fn x_file_size(f: *mut ffi::sqlite3_file, out: *mut i64) -> c_int {
    let (r, m) = real(f);
    m.xFileSize.map_or(ffi::SQLITE_IOERR_FSTAT, |x| x(r, out))
}

unsafe extern "C" fn x_lock(f: *mut ffi::sqlite3_file, l: c_int) -> c_int {
    let (r, m) = real(f);
    m.xLock.map_or(ffi::SQLITE_IOERR_LOCK, |x| x(r, l))
}

unsafe extern "C" fn x_unlock(f: *mut ffi::sqlite3_file, l: c_int) -> c_int {
    let (r, m) = real(f);
    m.xUnlock.map_or(ffi::SQLITE_IOERR_UNLOCK, |x| x(r, l))
}

unsafe extern "C" fn x_check_reserved(f: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    let (r, m) = real(f);
    m.xCheckReservedLock
        .map_or(ffi::SQLITE_IOERR_CHECKRESERVEDLOCK, |x| x(r, out))
}

unsafe extern "C" fn x_file_control(
    f: *mut ffi::sqlite3_file,
    op: c_int,
    arg: *mut c_void,
) -> c_int {
    let (r, m) = real(f);
    m.xFileControl
        .map_or(ffi::SQLITE_NOTFOUND, |x| x(r, op, arg))
}

unsafe extern "C" fn x_sector_size(f: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real(f);
    m.xSectorSize.map_or(4096, |x| x(r))
}

unsafe extern "C" fn x_device_characteristics(f: *mut ffi::sqlite3_file) -> c_int {
    let (r, m) = real(f);
    m.xDeviceCharacteristics.map_or(0, |x| x(r))
}

unsafe extern "C" fn x_shm_map(
    f: *mut ffi::sqlite3_file,
    pg: c_int,
    sz: c_int,
    extend: c_int,
    pp: *mut *mut c_void,
) -> c_int {
    let (r, m) = real(f);
    m.xShmMap
        .map_or(ffi::SQLITE_IOERR_SHMMAP, |x| x(r, pg, sz, extend, pp))
}

unsafe extern "C" fn x_shm_lock(
    f: *mut ffi::sqlite3_file,
    off: c_int,
    n: c_int,
    flags: c_int,
) -> c_int {
    let (r, m) = real(f);
    m.xShmLock
        .map_or(ffi::SQLITE_IOERR_SHMLOCK, |x| x(r, off, n, flags))
}

unsafe extern "C" fn x_shm_barrier(f: *mut ffi::sqlite3_file) {
    let (r, m) = real(f);
    if let Some(x) = m.xShmBarrier {
        x(r)
    }
}

unsafe extern "C" fn x_shm_unmap(f: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    let (r, m) = real(f);
    m.xShmUnmap.map_or(ffi::SQLITE_OK, |x| x(r, delete))
}

unsafe extern "C" fn x_fetch(
    f: *mut ffi::sqlite3_file,
    off: i64,
    n: c_int,
    pp: *mut *mut c_void,
) -> c_int {
    let (r, m) = real(f);
    match m.xFetch {
        Some(x) => x(r, off, n, pp),
        None => {
            *pp = std::ptr::null_mut();
            ffi::SQLITE_OK
        }
    }
}

unsafe extern "C" fn x_unfetch(f: *mut ffi::sqlite3_file, off: i64, p: *mut c_void) -> c_int {
    let (r, m) = real(f);
    m.xUnfetch.map_or(ffi::SQLITE_OK, |x| x(r, off, p))
}

const fn methods(version: c_int) -> ffi::sqlite3_io_methods {
    ffi::sqlite3_io_methods {
        iVersion: version,
        xClose: Some(x_close),
        xRead: Some(x_read),
        xWrite: Some(x_write),
        xTruncate: Some(x_truncate),
        xSync: Some(x_sync),
        xFileSize: Some(x_file_size),
        xLock: Some(x_lock),
        xUnlock: Some(x_unlock),
        xCheckReservedLock: Some(x_check_reserved),
        xFileControl: Some(x_file_control),
        xSectorSize: Some(x_sector_size),
        xDeviceCharacteristics: Some(x_device_characteristics),
        xShmMap: if version >= 2 { Some(x_shm_map) } else { None },
        xShmLock: if version >= 2 { Some(x_shm_lock) } else { None },
        xShmBarrier: if version >= 2 {
            Some(x_shm_barrier)
        } else {
            None
        },
        xShmUnmap: if version >= 2 {
            Some(x_shm_unmap)
        } else {
            None
        },
        xFetch: if version >= 3 { Some(x_fetch) } else { None },
        xUnfetch: if version >= 3 { Some(x_unfetch) } else { None },
    }
}

static METHODS_V1: ffi::sqlite3_io_methods = methods(1);
static METHODS_V2: ffi::sqlite3_io_methods = methods(2);
static METHODS_V3: ffi::sqlite3_io_methods = methods(3);
