//! The later stages of a pipelined commit (`--pipeline`): each durable
//! write after the first is a group commit of its own, with its own
//! leader and queue.
//!
//! Why: MariaDB with `log_bin`, `sync_binlog=1` and
//! `innodb_flush_log_at_trx_commit=1` makes two durable writes per
//! commit, InnoDB's prepare (a redo flush) and the binary log's, and the
//! two are separate group commits (MariaDB KB, "Group commit for the
//! binary log"; `log_write_up_to` for InnoDB's). While the binary log's
//! leader syncs group N, the sessions of group N+1 flush InnoDB's redo
//! for their prepare: the two overlap. One leader making both syncs one
//! after the other (`--syncs-per-flush 2` without `--pipeline`) groups
//! about twice as many commits per flush as the server does (4.7–5.0
//! against MariaDB's 2.7 at 10 sessions, docs/realdb-notes.md §7).
//!
//! A stage works like the first stage's flush lock
//! ([`super::writer::FlushLock`]) on a counter instead of a log buffer: a
//! session whose commit is durable in the stage before joins the queue
//! (a ticket); the first one to find no leader becomes the leader, takes
//! every ticket queued so far, writes their records as one padded,
//! sequential write at the stage file's offset and makes it durable with
//! the run's method; then every session it covered goes on, and one
//! still queued becomes the next leader. The stage's file is one file of
//! `--file-size`, prepared as the log files are, written from offset 0
//! again when full. Its records are the sessions' record size
//! (`--redo-size`'s mean for variable sizes) of a fixed pattern: the
//! stage's content is not read back (`--verify` checks the first stage's
//! log files).
//!
//! With `--stage-append` a later stage writes as MariaDB's binary log
//! does instead (seen with `dbio watch --pid` on mariadbd: `write` and
//! `fdatasync` on binlog.NNNNNN): buffered writes of the records' exact
//! size appended to a file that starts empty, each made durable with
//! fdatasync, which on a growing file also commits the new size through
//! the filesystem's journal; a full file is truncated to empty, as the
//! binary log rotates to a new one.

use super::config::{round_up, sync_op, LgwrConfig};
use super::cpu::thread_cpu_ns;
use dbio_engine::buf::AlignedBuf;
use dbio_engine::clock::now_ns;
use dbio_engine::engines::SyncOp;
use dbio_engine::EngineError;
use dbio_model::lgwr::RedoSize;
use hdrhistogram::Histogram;
use std::fs::File;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The queue of one stage: tickets handed out and made durable.
#[derive(Default)]
struct Queue {
    queued: u64,
    durable: u64,
    busy: bool,
    failed: bool,
}

/// What a stage's leader writes with.
struct StageIo {
    /// The stage's file and its path (None: the null engine, no I/O).
    file: Option<(Arc<File>, PathBuf)>,
    buf: AlignedBuf,
    offset: u64,
    error: Option<EngineError>,
}

/// What a stage recorded.
#[derive(Clone)]
pub struct StageRec {
    /// Durable writes.
    pub writes: u64,
    /// Commits they covered.
    pub commits: u64,
    /// One write and its sync, ns.
    pub lat: Histogram<u64>,
}

/// One later stage of a pipelined commit.
pub struct Stage {
    queue: Mutex<Queue>,
    released: Condvar,
    io: Mutex<StageIo>,
    rec: Mutex<StageRec>,
    record_bytes: u64,
    block: u64,
    file_size: u64,
    sync: SyncOp,
    /// `--stage-append`: exact sizes appended, no padding.
    append: bool,
    null_delay_ns: Option<u64>,
}

/// The record size a stage writes per commit for `redo`.
fn record_bytes(redo: &RedoSize) -> u64 {
    match *redo {
        RedoSize::Fixed(n) => n,
        RedoSize::Uniform(lo, hi) => (lo + hi) / 2,
        RedoSize::Skewed => dbio_model::lgwr::SKEWED_MIN + dbio_model::lgwr::SKEWED_EXP_MEAN as u64,
    }
}

impl Stage {
    /// A stage writing into `file` at its path (None with the null
    /// engine) with `cfg`'s method, block size and file size.
    pub fn new(cfg: &LgwrConfig, file: Option<(Arc<File>, PathBuf)>) -> Result<Self, EngineError> {
        if let (true, Some((f, path))) = (cfg.stage_append, &file) {
            // A group reused for another round starts its appended
            // stages empty again.
            f.set_len(0).map_err(|e| {
                EngineError::io("emptying a pipelined stage's file", path.clone(), e)
            })?;
        }
        let mut buf = AlignedBuf::try_new(cfg.max_write_bytes as usize).ok_or_else(|| {
            EngineError::Unsupported(dbio_engine::buf::alloc_error(cfg.max_write_bytes as usize))
        })?;
        // A fixed, non-zero pattern: the stage's bytes are written, not read.
        for (i, b) in buf.as_mut_slice().iter_mut().enumerate() {
            *b = (i as u8) | 1;
        }
        Ok(Self {
            queue: Mutex::new(Queue::default()),
            released: Condvar::new(),
            io: Mutex::new(StageIo {
                file,
                buf,
                offset: 0,
                error: None,
            }),
            rec: Mutex::new(StageRec {
                writes: 0,
                commits: 0,
                lat: dbio_engine::recorder::new_histogram(),
            }),
            record_bytes: record_bytes(&cfg.redo_size),
            block: cfg.bs,
            file_size: cfg.file_size,
            sync: if cfg.stage_append {
                SyncOp::Fdatasync
            } else {
                sync_op(cfg.method)
            },
            append: cfg.stage_append,
            null_delay_ns: cfg.null_delay_ns,
        })
    }

    /// Queues one commit and returns once a leader made it durable in
    /// this stage (true), or once the stage failed (false). The leader's
    /// CPU in the flush is added to `flush_cpu_ns`.
    pub fn commit(&self, flush_cpu_ns: &AtomicU64) -> bool {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.queued += 1;
        let me = q.queued;
        loop {
            if q.failed {
                return false;
            }
            if q.durable >= me {
                return true;
            }
            if q.busy {
                q = self.released.wait(q).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            q.busy = true;
            let (from, to) = (q.durable, q.queued);
            drop(q);
            let cpu0 = thread_cpu_ns();
            let ok = self.flush(to - from);
            flush_cpu_ns.fetch_add(thread_cpu_ns().saturating_sub(cpu0), Ordering::Relaxed);
            q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.busy = false;
            if ok {
                q.durable = to;
            } else {
                q.failed = true;
            }
            self.released.notify_all();
        }
    }

    /// One write of `commits` records and its sync; false after an error
    /// (kept for [`Stage::finish`]).
    fn flush(&self, commits: u64) -> bool {
        let mut io = self.io.lock().unwrap_or_else(|p| p.into_inner());
        if io.error.is_some() {
            return false;
        }
        let max = io.buf.as_mut_slice().len() as u64;
        let bytes = commits * self.record_bytes;
        let len = if self.append {
            bytes
        } else {
            round_up(bytes, self.block)
        }
        .min(max);
        if io.offset + len > self.file_size {
            io.offset = 0;
            if let (true, Some((f, path))) = (self.append, &io.file) {
                // The binary log's rotation: the next write grows an
                // empty file again.
                if let Err(e) = f.set_len(0) {
                    io.error = Some(EngineError::io(
                        "emptying a pipelined stage's full file",
                        path.clone(),
                        e,
                    ));
                    return false;
                }
            }
        }
        let t0 = now_ns();
        let result = match (&io.file, self.null_delay_ns) {
            (_, Some(d)) => {
                // As the null engine: the write takes `d`, its sync
                // (when the method has one) `d` more.
                let syncs = u64::from(self.sync != SyncOp::None);
                dbio_engine::clock::wait_until(t0 + d * (1 + syncs));
                Ok(())
            }
            (Some((f, _)), None) => {
                write_and_sync(f, &io.buf.as_slice()[..len as usize], io.offset, self.sync)
            }
            (None, None) => Ok(()),
        };
        let t1 = now_ns();
        match result {
            Ok(()) => {
                io.offset += len;
                drop(io);
                let mut r = self.rec.lock().unwrap_or_else(|p| p.into_inner());
                r.writes += 1;
                r.commits += commits;
                r.lat.saturating_record(t1.saturating_sub(t0));
                true
            }
            Err(e) => {
                let path = io.file.as_ref().map(|(_, p)| p.clone()).unwrap_or_default();
                io.error = Some(EngineError::io(
                    "a pipelined stage's write and sync",
                    path,
                    e,
                ));
                false
            }
        }
    }

    /// The recordings and the error that stopped the stage, if one did.
    pub fn finish(self) -> (StageRec, Option<EngineError>) {
        let io = self.io.into_inner().unwrap_or_else(|p| p.into_inner());
        (
            self.rec.into_inner().unwrap_or_else(|p| p.into_inner()),
            io.error,
        )
    }
}

/// Writes all of `buf` at `offset`, then syncs as `sync` says.
fn write_and_sync(f: &File, buf: &[u8], offset: u64, sync: SyncOp) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let n = rustix::io::pwrite(f.as_fd(), &buf[done..], offset + done as u64)?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                "the stage file took no bytes",
            ));
        }
        done += n;
    }
    match sync {
        SyncOp::Fdatasync => rustix::fs::fdatasync(f.as_fd())?,
        SyncOp::Fsync => rustix::fs::fsync(f.as_fd())?,
        _ => {}
    }
    Ok(())
}
