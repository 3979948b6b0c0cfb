//! `psync`: pread/pwrite, one I/O at a time per thread (fio's psync).

use super::{check_transfer, Completion, Dir, Engine, IoRequest, Queued, SyncOp};
use crate::{clock::now_ns, EngineError};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

/// The pread/pwrite engine.
pub struct PsyncEngine {
    /// The open files (one, or a stripe's members) and their paths.
    files: Vec<(Arc<File>, PathBuf)>,
}

impl PsyncEngine {
    /// An engine over open files (made through [`super::open_files`]).
    pub(crate) fn new(files: Vec<(Arc<File>, PathBuf)>) -> Self {
        Self { files }
    }
}

impl Engine for PsyncEngine {
    #[inline]
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        // SAFETY: the caller's contract is queue_on's.
        unsafe { self.queue_on(0, req) }
    }

    #[inline]
    unsafe fn queue_on(&mut self, file: u32, req: &IoRequest) -> Result<Queued, EngineError> {
        let Some((file, path)) = self.files.get(file as usize) else {
            return Err(EngineError::Invalid(format!(
                "no file number {file} in this engine"
            )));
        };
        let len = req.len as usize;
        let res = match req.dir {
            Dir::Read => {
                // SAFETY: the caller guarantees buf is valid for len bytes and
                // untouched by anyone else until this call returns (`Engine::queue`).
                let buf = unsafe { std::slice::from_raw_parts_mut(req.buf, len) };
                rustix::io::pread(&**file, buf, req.offset)
            }
            Dir::Write => {
                // SAFETY: as above.
                let buf = unsafe { std::slice::from_raw_parts(req.buf, len) };
                rustix::io::pwrite(&**file, buf, req.offset)
            }
        };
        let done = res.map_err(|e| {
            let op = if req.dir == Dir::Read {
                "pread"
            } else {
                "pwrite"
            };
            EngineError::io(
                format!("{op} of {} bytes at offset {}", req.len, req.offset),
                path,
                e.into(),
            )
        })?;
        check_transfer(req.dir, done, req.len, req.offset, path)?;
        let io_done_ns = now_ns();
        let sync_done_ns = match req.sync {
            SyncOp::None => io_done_ns,
            SyncOp::Fdatasync => {
                rustix::fs::fdatasync(&**file)
                    .map_err(|e| EngineError::io("fdatasync", path, e.into()))?;
                now_ns()
            }
            SyncOp::Fsync => {
                rustix::fs::fsync(&**file).map_err(|e| EngineError::io("fsync", path, e.into()))?;
                now_ns()
            }
        };
        Ok(Queued::Done(Completion {
            tag: req.tag,
            io_done_ns,
            sync_done_ns,
        }))
    }

    fn commit(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    fn reap(&mut self, _min: u32, _out: &mut Vec<Completion>) -> Result<(), EngineError> {
        Ok(())
    }
}
