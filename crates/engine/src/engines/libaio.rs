//! `libaio`: the kernel's native asynchronous I/O (io_setup, io_submit,
//! io_getevents, io_destroy), the interface Oracle (filesystemio_options =
//! setall, ASM), ORION and InnoDB use on Linux and fio's `libaio` engine
//! drives.
//!
//! The system calls are made directly (`libc::syscall` with the kernel's
//! `struct iocb` and `struct io_event` from `<linux/aio_abi.h>`), so dbio
//! needs no C libaio; the library is a thin wrapper over the same calls.
//!
//! The kernel does real asynchrony only for O_DIRECT: a buffered `io_submit`
//! on most filesystems runs the I/O inside the submitting call and returns
//! when it is done (io_submit(2), "NOTES"; Bhattacharya et al., "Linux
//! Asynchronous I/O Design"), so the job validation refuses the engine
//! without `--direct` rather than measure a synchronous engine under an
//! asynchronous name.
//!
//! AIO has no linked operations: a write that must be durable is submitted
//! alone, and when its completion is reaped an `IOCB_CMD_FDSYNC` (or
//! `IOCB_CMD_FSYNC`) for the same tag is submitted at once from the reap
//! loop; the I/O completes when that sync does. Asynchronous fsync through
//! AIO exists since Linux 4.18 (commit a3c0d439e727, "aio: implement
//! IOCB_CMD_FSYNC and IOCB_CMD_FDSYNC"); an older kernel or a filesystem
//! without `fsync` for AIO answers EINVAL, which the engine reports as one
//! sentence naming the engines that can do it instead (no silent fallback
//! to a synchronous call, which would change what is measured).
//!
//! Nothing here allocates per I/O: the control blocks (two per tag: the
//! I/O and its sync), the submission list and the event array are sized at
//! open for the queue depth.
//!
//! Timing bound: completions reaped by one io_getevents share the timestamp
//! taken when it returned, as with io_uring, so clat may include up to one
//! reap loop (a few hundred ns) for all but the first completion of a batch.

use super::{check_transfer, Completion, Dir, Engine, IoRequest, Queued, SyncOp};
use crate::{clock::now_ns, EngineError};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `aio_context_t`.
type AioContext = libc::c_ulong;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_FSYNC: u16 = 2;
const IOCB_CMD_FDSYNC: u16 = 3;

/// Marks a sync's control block in `aio_data` (the tag is shifted by one).
const SYNC_BIT: u64 = 1;

/// `struct iocb` of `<linux/aio_abi.h>` (64 bytes). The kernel declares
/// `aio_key` and `aio_rw_flags` in byte order; this is the little-endian
/// layout, and the big-endian one swaps the two.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    #[cfg(target_endian = "little")]
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);

/// `struct io_event` of `<linux/aio_abi.h>`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// The libaio engine.
pub struct LibaioEngine {
    ctx: AioContext,
    /// The files (one, or a stripe's members), kept open while the kernel
    /// may use their descriptors.
    _files: Vec<Arc<File>>,
    /// Their descriptors: a control block names its file, so one context
    /// serves every member of a stripe.
    fds: Vec<u32>,
    paths: Vec<PathBuf>,
    /// Per tag: the I/O's control block (index `2 × tag`) and its sync's
    /// (`2 × tag + 1`); their addresses are what io_submit takes, so the
    /// vector is never resized.
    iocbs: Vec<Iocb>,
    /// Control blocks queued and not yet submitted (capacity 2 × depth).
    pending: Vec<*mut Iocb>,
    /// io_getevents' output (capacity 2 × depth).
    events: Vec<IoEvent>,
    /// Per tag: the sync to run after the write completes.
    sync: Vec<SyncOp>,
    /// Per tag: when the write completed while its sync runs.
    write_done: Vec<u64>,
    /// Control blocks the kernel owns (submitted, event not yet reaped).
    in_kernel: u32,
}

// SAFETY: the raw pointers in `pending` point into `iocbs`, owned by the
// engine; an engine is used by one thread at a time.
unsafe impl Send for LibaioEngine {}

impl LibaioEngine {
    /// An AIO context with room for `depth` I/Os and their syncs, on
    /// `files` (file `i` is [`Engine::queue_on`]'s number `i`).
    pub(crate) fn new(files: Vec<(Arc<File>, PathBuf)>, depth: u32) -> Result<Self, EngineError> {
        let path: &Path = files.first().map_or(Path::new(""), |f| f.1.as_path());
        let n = depth.max(1) as usize;
        let mut ctx: AioContext = 0;
        // SAFETY: io_setup writes the context id into `ctx`, which lives
        // across the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                (2 * n) as libc::c_long,
                &mut ctx as *mut AioContext,
            )
        };
        if r < 0 {
            let e = errno();
            return Err(match e.raw_os_error() {
                Some(libc::EAGAIN) => EngineError::Unsupported(format!(
                    "io_setup for {} events failed: the system-wide limit fs.aio-max-nr is reached (raise it with sysctl, or use fewer --threads or a smaller --iodepth)",
                    2 * n
                )),
                Some(libc::ENOSYS) => EngineError::Unsupported(
                    "the kernel's native AIO is not available here (io_setup: ENOSYS; a kernel built without CONFIG_AIO or a seccomp filter); use --engine io_uring or psync".into(),
                ),
                _ => EngineError::io("io_setup", path, e),
            });
        }
        let fds = files.iter().map(|f| f.0.as_raw_fd() as u32).collect();
        let (files, paths): (Vec<_>, Vec<_>) = files.into_iter().unzip();
        Ok(Self {
            ctx,
            _files: files,
            fds,
            paths,
            iocbs: vec![Iocb::default(); 2 * n],
            pending: Vec::with_capacity(2 * n),
            events: vec![IoEvent::default(); 2 * n],
            sync: vec![SyncOp::None; n],
            write_done: vec![0; n],
            in_kernel: 0,
        })
    }

    /// Submits every pending control block (io_submit may take fewer than
    /// it was given: the rest go in the next call).
    fn submit_pending(&mut self) -> Result<(), EngineError> {
        let mut done = 0usize;
        while done < self.pending.len() {
            let left = &self.pending[done..];
            // SAFETY: every pointer points into `self.iocbs`, filled by
            // `queue` or `reap`; the buffers they name are the caller's
            // (valid until reaped, per `Engine::queue`).
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    left.len() as libc::c_long,
                    left.as_ptr(),
                )
            };
            if r < 0 {
                let e = errno();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                // SAFETY: left[0] points into self.iocbs.
                let first = unsafe { *left[0] };
                self.pending.drain(..done);
                let msg = self.submit_error(&first, e);
                self.pending.clear();
                return Err(msg);
            }
            done += r as usize;
            self.in_kernel += r as u32;
        }
        self.pending.clear();
        Ok(())
    }

    /// The path of the file whose descriptor is `fd`, for messages.
    fn path_of(&self, fd: u32) -> &Path {
        let i = self.fds.iter().position(|&f| f == fd).unwrap_or(0);
        &self.paths[i]
    }

    fn submit_error(&self, cb: &Iocb, e: std::io::Error) -> EngineError {
        let is_sync = matches!(cb.aio_lio_opcode, IOCB_CMD_FSYNC | IOCB_CMD_FDSYNC);
        if is_sync && e.raw_os_error() == Some(libc::EINVAL) {
            return EngineError::Unsupported(format!(
                "this kernel or filesystem does not do fsync through native AIO (IOCB_CMD_FDSYNC needs Linux 4.18 and a filesystem that supports it) for {}; use --engine io_uring or psync for writes with --sync",
                self.path_of(cb.aio_fildes).display()
            ));
        }
        let op = match cb.aio_lio_opcode {
            IOCB_CMD_PREAD => format!(
                "io_submit of a read of {} bytes at offset {}",
                cb.aio_nbytes, cb.aio_offset
            ),
            IOCB_CMD_PWRITE => format!(
                "io_submit of a write of {} bytes at offset {}",
                cb.aio_nbytes, cb.aio_offset
            ),
            _ => "io_submit of a sync after a write".to_string(),
        };
        EngineError::io(op, self.path_of(cb.aio_fildes), e)
    }

    /// Waits for at least `min` events (at most the array's length); the
    /// number read into `self.events`.
    fn get_events(&mut self, min: u32) -> Result<usize, EngineError> {
        loop {
            // SAFETY: `events` has room for its length; no timeout (null).
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min.min(self.in_kernel) as libc::c_long,
                    self.events.len() as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if r >= 0 {
                self.in_kernel -= r as u32;
                return Ok(r as usize);
            }
            let e = errno();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(EngineError::io("io_getevents", &self.paths[0], e));
            }
        }
    }
}

impl Drop for LibaioEngine {
    fn drop(&mut self) {
        // After an error the worker stops without reaping; the kernel may
        // still use the worker's buffers, so wait for every control block
        // it owns before the context (and the caller's buffers) go away.
        while self.in_kernel > 0 {
            if self.get_events(1).is_err() {
                break;
            }
        }
        // SAFETY: the context is ours; io_destroy also waits for anything
        // still in flight (fs/aio.c, kill_ioctx).
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

impl Engine for LibaioEngine {
    #[inline]
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        // SAFETY: the caller's contract is queue_on's.
        unsafe { self.queue_on(0, req) }
    }

    #[inline]
    unsafe fn queue_on(&mut self, file: u32, req: &IoRequest) -> Result<Queued, EngineError> {
        let Some(&fd) = self.fds.get(file as usize) else {
            return Err(EngineError::Invalid(format!(
                "file number {file} of {} given to the libaio engine",
                self.fds.len()
            )));
        };
        let tag = req.tag as usize;
        let cb = &mut self.iocbs[2 * tag];
        *cb = Iocb {
            aio_data: (req.tag as u64) << 1,
            aio_lio_opcode: match req.dir {
                Dir::Read => IOCB_CMD_PREAD,
                Dir::Write => IOCB_CMD_PWRITE,
            },
            aio_fildes: fd,
            aio_buf: req.buf as u64,
            aio_nbytes: req.len as u64,
            aio_offset: req.offset as i64,
            ..Iocb::default()
        };
        self.sync[tag] = if req.dir == Dir::Write {
            req.sync
        } else {
            SyncOp::None
        };
        self.write_done[tag] = 0;
        let p: *mut Iocb = cb;
        self.pending.push(p);
        Ok(Queued::InFlight)
    }

    #[inline]
    fn commit(&mut self) -> Result<(), EngineError> {
        self.submit_pending()
    }

    #[inline]
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let mut got = 0u32;
        loop {
            let n = self.get_events(min.saturating_sub(got))?;
            if n == 0 && (got >= min || self.in_kernel == 0) {
                // Nothing more: all asked for is here, or nothing is in
                // flight (the caller asked for more than it queued).
                return Ok(());
            }
            let now = now_ns();
            let mut err = None;
            for i in 0..n {
                let ev = self.events[i];
                let tag = (ev.data >> 1) as usize;
                let is_sync = ev.data & SYNC_BIT != 0;
                if ev.res < 0 {
                    if err.is_none() {
                        err = Some((tag, is_sync, ev.res));
                    }
                    continue;
                }
                if is_sync {
                    out.push(Completion {
                        tag: tag as u32,
                        io_done_ns: self.write_done[tag],
                        sync_done_ns: now,
                    });
                    got += 1;
                    continue;
                }
                let want = self.iocbs[2 * tag].aio_nbytes;
                if ev.res as u64 != want {
                    if err.is_none() {
                        err = Some((tag, false, ev.res));
                    }
                    continue;
                }
                let op = match self.sync[tag] {
                    SyncOp::None => {
                        out.push(Completion {
                            tag: tag as u32,
                            io_done_ns: now,
                            sync_done_ns: now,
                        });
                        got += 1;
                        continue;
                    }
                    SyncOp::Fdatasync => IOCB_CMD_FDSYNC,
                    SyncOp::Fsync => IOCB_CMD_FSYNC,
                };
                self.write_done[tag] = now;
                // The sync goes to the file the write went to.
                let fd = self.iocbs[2 * tag].aio_fildes;
                let cb = &mut self.iocbs[2 * tag + 1];
                *cb = Iocb {
                    aio_data: ((tag as u64) << 1) | SYNC_BIT,
                    aio_lio_opcode: op,
                    aio_fildes: fd,
                    ..Iocb::default()
                };
                let p: *mut Iocb = cb;
                self.pending.push(p);
            }
            if !self.pending.is_empty() {
                self.submit_pending()?;
            }
            if let Some((tag, is_sync, res)) = err {
                let cb = self.iocbs[2 * tag];
                let dir = if cb.aio_lio_opcode == IOCB_CMD_PREAD {
                    Dir::Read
                } else {
                    Dir::Write
                };
                let offset = cb.aio_offset as u64;
                if res >= 0 {
                    return Err(check_transfer(
                        dir,
                        res as usize,
                        cb.aio_nbytes as u32,
                        offset,
                        self.path_of(cb.aio_fildes),
                    )
                    .unwrap_err());
                }
                let os = std::io::Error::from_raw_os_error(-res as i32);
                let op = if is_sync {
                    "sync after write (native AIO)".to_string()
                } else {
                    let name = if dir == Dir::Read { "read" } else { "write" };
                    format!(
                        "native AIO {name} of {} bytes at offset {offset}",
                        cb.aio_nbytes
                    )
                };
                return Err(EngineError::io(op, self.path_of(cb.aio_fildes), os));
            }
            if got >= min {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An io_submit that fails says what it submitted, of which file, and
    /// a sync the kernel or filesystem cannot do through native AIO
    /// (EINVAL for IOCB_CMD_FDSYNC) is named as unsupported, with the
    /// engines that can: other errors of a sync, and EINVAL of a read or
    /// write, are I/O errors.
    #[test]
    fn a_failed_submission_names_its_operation_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = Arc::new(File::create(&path).unwrap());
        let engine = match LibaioEngine::new(vec![(file.clone(), path.clone())], 4) {
            Ok(e) => e,
            // A kernel without native AIO (aio-max-nr 0): nothing to check.
            Err(e) => return eprintln!("SKIP: io_setup failed: {e}"),
        };
        let fd = std::os::fd::AsRawFd::as_raw_fd(&*file) as u32;
        let cb = |op: u16| Iocb {
            aio_lio_opcode: op,
            aio_fildes: fd,
            aio_nbytes: 8192,
            aio_offset: 4096,
            ..Iocb::default()
        };
        let einval = || std::io::Error::from_raw_os_error(libc::EINVAL);
        let eio = || std::io::Error::from_raw_os_error(libc::EIO);
        let text = |e: EngineError| e.to_string();
        for op in [IOCB_CMD_FDSYNC, IOCB_CMD_FSYNC] {
            let e = engine.submit_error(&cb(op), einval());
            assert!(matches!(e, EngineError::Unsupported(_)), "{e}");
            assert!(text(e).contains(&*path.to_string_lossy()));
            let e = engine.submit_error(&cb(op), eio());
            assert!(!matches!(e, EngineError::Unsupported(_)), "{e}");
            assert!(text(e).contains("a sync after a write"));
        }
        let e = engine.submit_error(&cb(IOCB_CMD_PREAD), einval());
        assert!(!matches!(e, EngineError::Unsupported(_)), "{e}");
        let e = text(e);
        assert!(e.contains("a read of 8192 bytes at offset 4096"), "{e}");
        let e = text(engine.submit_error(&cb(IOCB_CMD_PWRITE), eio()));
        assert!(e.contains("a write of 8192 bytes at offset 4096"), "{e}");
    }
}
