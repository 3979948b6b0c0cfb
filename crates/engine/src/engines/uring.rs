//! `io_uring`: batched submission and reaping through the io-uring crate.
//!
//! The file (every member of a stripe) is registered with the ring (IORING_REGISTER_FILES) so each I/O
//! skips the file-table lookup, and the worker's buffers are registered
//! (IORING_REGISTER_BUFFERS) so O_DIRECT I/O does not pin pages per I/O;
//! when the kernel refuses the registration (memlock limit) plain reads
//! and writes are used. The ring is set up for a single issuer with
//! deferred task work (Linux 6.1+), falling back to a plain ring. A write that must be durable is pushed with
//! IOSQE_IO_LINK followed by an IORING_OP_FSYNC (with IORING_FSYNC_DATASYNC
//! for fdatasync): the kernel starts the sync only after the write succeeded,
//! and a failed write cancels it. The two completions are joined by tag.
//!
//! Timing bound: completions reaped by one wait share the timestamp taken
//! when that wait returned, so clat may include up to one reap loop of
//! latency (a few hundred ns) for all but the first completion of a batch.

use super::{Completion, Dir, Engine, IoRequest, Queued, SyncOp};
use crate::{clock::now_ns, EngineError};
use io_uring::{cqueue, opcode, squeue, types, IoUring};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const SYNC_BIT: u64 = 1;

/// The io_uring engine.
pub struct UringEngine {
    ring: IoUring,
    /// The registered files (fixed file index = position) and their paths.
    files: Vec<(Arc<File>, PathBuf)>,
    /// Per tag: the write's completion time while its linked sync is pending
    /// (0 = the write has not completed yet).
    write_done: Vec<u64>,
    /// Per tag: whether a linked sync follows the I/O.
    has_sync: Vec<bool>,
    /// Per tag: expected length, to detect short transfers.
    want_len: Vec<u32>,
    /// Per tag: direction, offset and file number, for error messages.
    what: Vec<(Dir, u64, u32)>,
    /// Whether the worker's buffers are registered (buffer index = tag).
    fixed_bufs: bool,
    /// I/Os queued since the last commit.
    unsubmitted: u32,
    /// I/Os the kernel owns (submitted, final completion not yet reaped):
    /// their buffers must outlive them, so Drop waits for them.
    in_kernel: u32,
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        // After an error the worker stops without reaping; the kernel may
        // still be writing into the worker's buffers, so wait here. What
        // was queued but not submitted (a failed commit, an error between
        // queue and commit) goes in with the first wait below, since the
        // ring cannot take it back: wait for it too.
        if self.in_kernel > 0 {
            self.in_kernel += std::mem::take(&mut self.unsubmitted);
        }
        while self.in_kernel > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(_) => return,
            }
            let ends: u32 = self
                .ring
                .completion()
                .filter(|c| ends_group(c.user_data(), &self.has_sync))
                .count() as u32;
            self.in_kernel = self.in_kernel.saturating_sub(ends);
        }
        // Release the registered file now: a closed ring drops it later,
        // from a kernel worker, so a removed target's space would come
        // back only some time after dbio removed it (dbio check plans the
        // next section's space on it).
        let _ = self.ring.submitter().unregister_files();
    }
}

/// Whether a completion is the last of its I/O: the sync of a linked pair
/// (a failed write still gets its sync's -ECANCELED), else the I/O itself.
fn ends_group(user_data: u64, has_sync: &[bool]) -> bool {
    let tag = (user_data >> 1) as usize;
    user_data & SYNC_BIT != 0 || !has_sync[tag]
}

/// Checks that this kernel lets us create a ring; the reason when not.
pub fn probe_io_uring() -> Result<(), String> {
    match IoUring::new(2) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "io_uring is not available here ({e}); it may be disabled by kernel.io_uring_disabled or a seccomp filter"
        )),
    }
}

impl UringEngine {
    /// A ring with room for `depth` I/Os and their linked syncs, using the
    /// worker's buffers `bufs` (one per tag, each `buf_len` bytes).
    pub(crate) fn new(
        files: Vec<(Arc<File>, PathBuf)>,
        depth: u32,
        bufs: &[*mut u8],
        buf_len: usize,
    ) -> Result<Self, EngineError> {
        let entries = (depth * 2).next_power_of_two().max(2);
        let ring = IoUring::builder()
            .setup_cqsize(entries * 2)
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
            .or_else(|_| IoUring::builder().setup_cqsize(entries * 2).build(entries))
            .map_err(|e| EngineError::Unsupported(format!("io_uring setup failed: {e}")))?;
        let fds: Vec<i32> = files.iter().map(|(f, _)| f.as_raw_fd()).collect();
        ring.submitter()
            .register_files(&fds)
            .map_err(|e| EngineError::io("io_uring file registration", &files[0].1, e))?;
        let iovecs: Vec<libc::iovec> = bufs
            .iter()
            .map(|&p| libc::iovec {
                iov_base: p.cast(),
                iov_len: buf_len,
            })
            .collect();
        // SAFETY: the buffers outlive the engine (the worker drops the
        // engine first) and are only used through their tags.
        let fixed_bufs = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let n = depth as usize;
        Ok(Self {
            ring,
            files,
            write_done: vec![0; n],
            has_sync: vec![false; n],
            want_len: vec![0; n],
            what: vec![(Dir::Read, 0, 0); n],
            fixed_bufs,
            unsubmitted: 0,
            in_kernel: 0,
        })
    }

    /// The path of file number `file` (the first file's for a stray number).
    fn path(&self, file: u32) -> &Path {
        self.files
            .get(file as usize)
            .map_or(&self.files[0].1, |(_, p)| p)
    }

    fn cqe_error(&self, tag: usize, is_sync: bool, res: i32) -> EngineError {
        let (dir, offset, file) = self.what[tag];
        let op = if is_sync {
            "linked sync after write".to_string()
        } else {
            let name = if dir == Dir::Read { "read" } else { "write" };
            format!(
                "io_uring {name} of {} bytes at offset {offset}",
                self.want_len[tag]
            )
        };
        EngineError::io(op, self.path(file), std::io::Error::from_raw_os_error(-res))
    }
}

impl Engine for UringEngine {
    #[inline]
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        // SAFETY: the caller's contract is queue_on's.
        unsafe { self.queue_on(0, req) }
    }

    #[inline]
    unsafe fn queue_on(&mut self, file: u32, req: &IoRequest) -> Result<Queued, EngineError> {
        if file as usize >= self.files.len() {
            return Err(EngineError::Invalid(format!(
                "no file number {file} in this engine"
            )));
        }
        let fd = types::Fixed(file);
        let tag = req.tag as usize;
        let user = (req.tag as u64) << 1;
        let io = match (req.dir, self.fixed_bufs) {
            (Dir::Read, true) => opcode::ReadFixed::new(fd, req.buf, req.len, req.tag as u16)
                .offset(req.offset)
                .build(),
            (Dir::Write, true) => opcode::WriteFixed::new(fd, req.buf, req.len, req.tag as u16)
                .offset(req.offset)
                .build(),
            (Dir::Read, false) => opcode::Read::new(fd, req.buf, req.len)
                .offset(req.offset)
                .build(),
            (Dir::Write, false) => opcode::Write::new(fd, req.buf, req.len)
                .offset(req.offset)
                .build(),
        }
        .user_data(user);
        self.want_len[tag] = req.len;
        self.what[tag] = (req.dir, req.offset, file);
        self.write_done[tag] = 0;
        let mut sq = self.ring.submission();
        match req.sync {
            SyncOp::None => {
                self.has_sync[tag] = false;
                // SAFETY: the caller guarantees the buffer stays valid until this
                // tag is reaped or the engine dropped (`Engine::queue`).
                unsafe { sq.push(&io) }
            }
            sync => {
                self.has_sync[tag] = true;
                let mut f = opcode::Fsync::new(fd);
                if sync == SyncOp::Fdatasync {
                    f = f.flags(types::FsyncFlags::DATASYNC);
                }
                let s = f.build().user_data(user | SYNC_BIT);
                // SAFETY: as above; the ring has room for 2 × depth entries.
                unsafe { sq.push_multiple(&[io.flags(squeue::Flags::IO_LINK), s]) }
            }
        }
        .map_err(|_| EngineError::Invalid("io_uring submission queue overflow".into()))?;
        self.unsubmitted += 1;
        Ok(Queued::InFlight)
    }

    #[inline]
    fn commit(&mut self) -> Result<(), EngineError> {
        self.ring
            .submit()
            .map_err(|e| EngineError::io("io_uring submit", &self.files[0].1, e))?;
        self.in_kernel += self.unsubmitted;
        self.unsubmitted = 0;
        Ok(())
    }

    #[inline]
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let mut got = 0u32;
        loop {
            if min > got {
                match self.ring.submit_and_wait((min - got) as usize) {
                    Ok(_) => {}
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                    Err(e) => return Err(EngineError::io("io_uring wait", &self.files[0].1, e)),
                }
            }
            let now = now_ns();
            let entries: cqueue::CompletionQueue<'_> = self.ring.completion();
            let mut err = None;
            for cqe in entries {
                let ud = cqe.user_data();
                let tag = (ud >> 1) as usize;
                let is_sync = ud & SYNC_BIT != 0;
                let res = cqe.result();
                if ends_group(ud, &self.has_sync) {
                    self.in_kernel -= 1;
                }
                if res < 0 {
                    // A write error cancels its linked sync (-ECANCELED): report the write.
                    if !(is_sync && res == -libc::ECANCELED) && err.is_none() {
                        err = Some((tag, is_sync, res));
                    }
                    continue;
                }
                if !is_sync && res as u32 != self.want_len[tag] && err.is_none() {
                    err = Some((tag, false, res));
                    continue;
                }
                if is_sync {
                    out.push(Completion {
                        tag: tag as u32,
                        io_done_ns: self.write_done[tag],
                        sync_done_ns: now,
                    });
                    got += 1;
                } else if self.has_sync[tag] {
                    self.write_done[tag] = now;
                } else {
                    out.push(Completion {
                        tag: tag as u32,
                        io_done_ns: now,
                        sync_done_ns: now,
                    });
                    got += 1;
                }
            }
            if let Some((tag, is_sync, res)) = err {
                if res >= 0 {
                    let (dir, offset, file) = self.what[tag];
                    return Err(super::check_transfer(
                        dir,
                        res as usize,
                        self.want_len[tag],
                        offset,
                        self.path(file),
                    )
                    .unwrap_err());
                }
                return Err(self.cqe_error(tag, is_sync, res));
            }
            if got >= min {
                return Ok(());
            }
        }
    }
}
