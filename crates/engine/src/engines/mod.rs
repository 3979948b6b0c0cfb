//! The engine interface, in the shape of fio's queue → commit → getevents.
//!
//! A synchronous engine (`psync`, `null`) completes an I/O inside
//! [`Engine::queue`] and returns [`Queued::Done`]; an asynchronous engine
//! (`io_uring`) returns [`Queued::InFlight`], submits a batch in
//! [`Engine::commit`] and hands completions back from [`Engine::reap`]. One
//! worker loop drives both. Nothing here allocates per I/O.

mod null;
mod psync;
mod uring;

pub use null::{NullDone, NullEngine};
pub use psync::PsyncEngine;
pub use uring::{probe_io_uring, UringEngine};

use crate::EngineError;

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
    fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError>;
    /// Submits everything queued since the last commit.
    fn commit(&mut self) -> Result<(), EngineError>;
    /// Waits until at least `min` I/Os have completed, then appends every
    /// available completion to `out` (which has capacity for the queue depth).
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError>;
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
