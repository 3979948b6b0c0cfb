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

use rusqlite::ffi;
use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
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
    /// Registers a new shim over the default VFS (not as the default).
    pub fn register() -> Result<Shim, String> {
        // SAFETY: sqlite3_vfs_find(NULL) returns the default VFS or NULL;
        // the registered VFS objects live until process exit or
        // unregistration (the default one is never unregistered).
        let real = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
        if real.is_null() {
            return Err("SQLite has no default VFS".into());
        }
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
        })) as *mut c_void;
        vfs.xOpen = Some(shim_open);
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
}

unsafe extern "C" fn shim_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY (whole function): SQLite passes our VFS (whose app data is an
    // AppData) and a zeroed buffer of our szOsFile bytes for `file`.
    let app = &*((*vfs).pAppData as *const AppData);
    let shim = file as *mut ShimFile;
    let real_file =
        (file as *mut u8).add(std::mem::size_of::<ShimFile>()) as *mut ffi::sqlite3_file;
    (*shim).base.pMethods = std::ptr::null();
    let Some(open) = (*app.real).xOpen else {
        return ffi::SQLITE_CANTOPEN;
    };
    let rc = open(app.real, name, real_file, flags, out_flags);
    let methods = (*real_file).pMethods;
    if methods.is_null() {
        return rc;
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
