//! The engine interface, in the shape of fio's queue → commit → getevents.
//!
//! A synchronous engine (`psync`, `null`) completes an I/O inside
//! [`Engine::queue`] and returns [`Queued::Done`]; an asynchronous engine
//! (`io_uring`, `libaio`) returns [`Queued::InFlight`], submits a batch in
//! [`Engine::commit`] and hands completions back from [`Engine::reap`]. One
//! worker loop drives both. Nothing here allocates per I/O.
//!
//! Every engine is made by [`open`], which takes the kind the user asked for,
//! the file and the few options an engine needs, and hands back an
//! [`AnyEngine`]: an enum, not a trait object, so the measurement loop stays
//! monomorphic. What an engine can do is declared in [`Capabilities`] (as
//! fio's engine flags), so callers ask "can it keep several I/Os in flight"
//! instead of matching on the kind.
//!
//! [`Engine::queue`] is an `unsafe fn`: the request carries a raw buffer
//! pointer that the kernel may read or write after `queue` returns, so only
//! the caller can promise the buffer outlives the I/O.

mod libaio;
mod null;
mod psync;
mod uring;

pub use libaio::LibaioEngine;
pub use null::{NullDone, NullEngine};
pub use psync::PsyncEngine;
pub use uring::{probe_io_uring, UringEngine};

use crate::EngineError;
use dbio_model::EngineKind;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// Direction of an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// A read.
    Read,
    /// A write.
    Write,
}

/// A sync operation that follows a write as part of the same commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncOp {
    /// No separate sync.
    None,
    /// fdatasync (io_uring: IORING_OP_FSYNC with IORING_FSYNC_DATASYNC, linked).
    Fdatasync,
    /// fsync (io_uring: IORING_OP_FSYNC, linked).
    Fsync,
}

/// One I/O handed to an engine.
#[derive(Debug, Clone, Copy)]
pub struct IoRequest {
    /// The worker's slot for this I/O; comes back in its [`Completion`].
    pub tag: u32,
    /// Read or write.
    pub dir: Dir,
    /// File offset in bytes.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
    /// The buffer: valid for `len` bytes until the I/O completes.
    pub buf: *mut u8,
    /// Sync to run after a write, as one commit.
    pub sync: SyncOp,
}

/// A finished I/O.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Completion {
    /// The request's tag.
    pub tag: u32,
    /// When the read or write completed (monotonic ns).
    pub io_done_ns: u64,
    /// When its sync completed; equal to `io_done_ns` without a sync.
    pub sync_done_ns: u64,
}

/// What [`Engine::queue`] did with a request.
#[derive(Debug, Clone, Copy)]
pub enum Queued {
    /// The engine is synchronous and the I/O is done.
    Done(Completion),
    /// The I/O waits for [`Engine::commit`] and [`Engine::reap`].
    InFlight,
}

/// An I/O engine.
pub trait Engine {
    /// Queues (or, for synchronous engines, performs) one I/O.
    ///
    /// # Safety
    ///
    /// `req.buf` must point to `req.len` bytes that are valid for reads (a
    /// write) or for writes (a read), and must stay valid, unmoved and
    /// untouched by anyone else until the I/O is over: until `queue`
    /// returns [`Queued::Done`], or until [`Engine::reap`] hands back a
    /// completion with `req.tag` (for a write with a sync, the sync's), or
    /// until the engine is dropped (an io_uring engine waits in `Drop` for
    /// what the kernel still owns). No other request with the same tag may
    /// be queued before then.
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError>;
    /// Queues one I/O on the engine's file number `file` (the member of a
    /// stripe, in the order the files were given to [`open_files`]); file
    /// 0 is [`Engine::queue`]'s. An engine that takes one file refuses
    /// any other number.
    ///
    /// # Safety
    ///
    /// As [`Engine::queue`].
    #[inline]
    unsafe fn queue_on(&mut self, file: u32, req: &IoRequest) -> Result<Queued, EngineError> {
        if file != 0 {
            return Err(EngineError::Invalid(
                "this engine does I/O on one file only, so it cannot stripe".into(),
            ));
        }
        // SAFETY: the caller's contract is queue's.
        unsafe { self.queue(req) }
    }
    /// Submits everything queued since the last commit.
    fn commit(&mut self) -> Result<(), EngineError>;
    /// Waits until at least `min` I/Os have completed, then appends every
    /// available completion to `out` (which has capacity for the queue depth).
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError>;
}

/// What an engine can do (fio's engine flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// More than one I/O in flight per engine (queue depth > 1): `queue`
    /// may return [`Queued::InFlight`]. (The null engine's out-of-order
    /// variant, a test device asked for with
    /// [`EngineOptions::null_out_of_order`], keeps I/Os in flight too.)
    pub queue_depth: bool,
    /// A write and its sync submitted as one linked pair (the kernel starts
    /// the sync when the write succeeded); without it the sync is a second
    /// system call after the write.
    pub linked_sync: bool,
    /// The worker's buffers can be registered with the kernel once, so
    /// O_DIRECT I/O does not pin pages per I/O.
    pub registered_buffers: bool,
    /// Does real I/O on a file (the null engine does none).
    pub needs_file: bool,
}

impl Capabilities {
    /// What engine `kind` can do.
    pub const fn of(kind: EngineKind) -> Capabilities {
        match kind {
            EngineKind::Psync => Capabilities {
                queue_depth: false,
                linked_sync: false,
                registered_buffers: false,
                needs_file: true,
            },
            EngineKind::IoUring => Capabilities {
                queue_depth: true,
                linked_sync: true,
                registered_buffers: true,
                needs_file: true,
            },
            EngineKind::Libaio => Capabilities {
                queue_depth: true,
                linked_sync: false,
                registered_buffers: false,
                needs_file: true,
            },
            EngineKind::Null => Capabilities {
                queue_depth: false,
                linked_sync: false,
                registered_buffers: false,
                needs_file: false,
            },
        }
    }
}

/// The file an engine does its I/O on.
#[derive(Debug, Clone, Copy)]
pub struct EngineFile<'a> {
    /// The open file, shared with the other engines on it.
    pub file: &'a Arc<File>,
    /// Its path, for error messages.
    pub path: &'a Path,
}

/// What [`open`] needs besides the kind and the file.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineOptions<'a> {
    /// I/Os in flight at most (io_uring sizes its ring for them and their
    /// linked syncs; the out-of-order null engine its queue).
    pub depth: u32,
    /// The caller's buffers, one per tag, each `buf_len` bytes, to register
    /// when the engine can (empty: do not register).
    pub bufs: &'a [*mut u8],
    /// Bytes of each buffer in `bufs`.
    pub buf_len: usize,
    /// Null engine: the service time of every I/O and every sync, ns.
    pub null_delay_ns: u64,
    /// Null engine: keep I/Os in flight and complete them in an order drawn
    /// from this seed (see `NullEngine::out_of_order`), with a journal
    /// when the flag is set.
    pub null_out_of_order: Option<(u64, bool)>,
}

/// Any engine [`open`] makes; dispatches without a trait object.
// One per worker thread: boxing the ring would add a pointer chase per I/O
// to save a few hundred bytes.
#[allow(clippy::large_enum_variant)]
pub enum AnyEngine {
    /// `null`.
    Null(NullEngine),
    /// `psync`.
    Psync(PsyncEngine),
    /// `io_uring`.
    Uring(UringEngine),
    /// `libaio`.
    Libaio(LibaioEngine),
}

/// Makes the engine `kind` on `file` (None only for the null engine), in
/// the thread that will use it (io_uring rings are single-issuer).
pub fn open(
    kind: EngineKind,
    file: Option<EngineFile<'_>>,
    o: &EngineOptions<'_>,
) -> Result<AnyEngine, EngineError> {
    open_files(kind, file.as_slice(), o)
}

/// Makes the engine `kind` on several files (the members of a stripe,
/// addressed by their index with [`Engine::queue_on`]); empty only for the
/// null engine.
pub fn open_files(
    kind: EngineKind,
    files: &[EngineFile<'_>],
    o: &EngineOptions<'_>,
) -> Result<AnyEngine, EngineError> {
    if kind == EngineKind::Null {
        return Ok(AnyEngine::Null(match o.null_out_of_order {
            Some((seed, journal)) => {
                NullEngine::out_of_order(o.null_delay_ns, o.depth, seed, journal)
            }
            None => NullEngine::new(o.null_delay_ns),
        }));
    }
    if files.is_empty() {
        return Err(EngineError::Invalid(format!(
            "the {} engine needs a target file",
            name(kind)
        )));
    }
    let owned = || {
        files
            .iter()
            .map(|f| (f.file.clone(), f.path.to_path_buf()))
            .collect::<Vec<_>>()
    };
    Ok(match kind {
        EngineKind::IoUring => AnyEngine::Uring(UringEngine::new(
            owned(),
            o.depth.max(1),
            o.bufs,
            o.buf_len,
        )?),
        // Each native AIO control block names its file, so one context
        // serves every member of a stripe.
        EngineKind::Libaio => AnyEngine::Libaio(LibaioEngine::new(owned(), o.depth.max(1))?),
        _ => AnyEngine::Psync(PsyncEngine::new(owned())),
    })
}

/// The engine's name, as `--engine` spells it.
pub fn name(kind: EngineKind) -> &'static str {
    kind.name()
}

impl AnyEngine {
    /// The out-of-order null engine's journal so far (empty for every
    /// other engine), emptying it.
    pub fn take_journal(&mut self) -> Vec<NullDone> {
        match self {
            AnyEngine::Null(e) => e.take_journal(),
            _ => Vec::new(),
        }
    }
}

impl Engine for AnyEngine {
    #[inline]
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        // SAFETY: the caller's contract is the one each engine asks for.
        unsafe {
            match self {
                AnyEngine::Null(e) => e.queue(req),
                AnyEngine::Psync(e) => e.queue(req),
                AnyEngine::Uring(e) => e.queue(req),
                AnyEngine::Libaio(e) => e.queue(req),
            }
        }
    }

    #[inline]
    unsafe fn queue_on(&mut self, file: u32, req: &IoRequest) -> Result<Queued, EngineError> {
        // SAFETY: the caller's contract is the one each engine asks for.
        unsafe {
            match self {
                // The null engine does no I/O: every file is the same to it.
                AnyEngine::Null(e) => e.queue(req),
                AnyEngine::Psync(e) => e.queue_on(file, req),
                AnyEngine::Uring(e) => e.queue_on(file, req),
                AnyEngine::Libaio(e) => e.queue_on(file, req),
            }
        }
    }

    #[inline]
    fn commit(&mut self) -> Result<(), EngineError> {
        match self {
            AnyEngine::Null(e) => e.commit(),
            AnyEngine::Psync(e) => e.commit(),
            AnyEngine::Uring(e) => e.commit(),
            AnyEngine::Libaio(e) => e.commit(),
        }
    }

    #[inline]
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        match self {
            AnyEngine::Null(e) => e.reap(min, out),
            AnyEngine::Psync(e) => e.reap(min, out),
            AnyEngine::Uring(e) => e.reap(min, out),
            AnyEngine::Libaio(e) => e.reap(min, out),
        }
    }
}

/// Turns a short transfer into an error that names it.
pub(crate) fn check_transfer(
    dir: Dir,
    done: usize,
    want: u32,
    offset: u64,
    path: &std::path::Path,
) -> Result<(), EngineError> {
    if done == want as usize {
        return Ok(());
    }
    let (op, err) = match dir {
        // A short read means the file ended: the job reads past what exists.
        Dir::Read => ("read", std::io::Error::from_raw_os_error(libc::ENODATA)),
        // A short write is what a filling filesystem returns before ENOSPC.
        Dir::Write => ("write", std::io::Error::from_raw_os_error(libc::ENOSPC)),
    };
    Err(EngineError::io(
        format!("{op} of {want} bytes at offset {offset} (only {done} transferred)"),
        path,
        err,
    ))
}
