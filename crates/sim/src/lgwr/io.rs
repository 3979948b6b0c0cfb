//! How one log write reaches every member of the current log file.
//!
//! Three shapes, all on the foundation's engines:
//! * null: no I/O; an injected service time per write and per sync
//!   (`NullEngine`); members cost nothing extra (they would run in parallel);
//!   with an async depth above 1, one out-of-order null engine per member
//!   keeps several writes in flight and finishes them in a seeded random
//!   order, so the writer's in-order posting is exercised without a device;
//! * psync: pwrite (+ fdatasync/fsync) on member 0 by the writer itself and
//!   on each further member by a helper thread at the same time (Oracle
//!   issues the member writes of one 'log file parallel write' together;
//!   the write completes when the slowest member has);
//! * io_uring: one ring per member file, a write linked to an fdatasync per
//!   member, several writes in flight; completions come back by tag.

use super::config::{sync_op, LgwrRun};
use dbio_engine::engines::{
    self, AnyEngine, Capabilities, Completion, Dir, Engine, EngineFile, EngineOptions, IoRequest,
    NullDone, Queued, SyncOp,
};
use dbio_engine::EngineError;
use std::fs::File;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// One write to issue.
#[derive(Debug, Clone, Copy)]
pub struct Issue {
    /// The writer's buffer slot.
    pub tag: u32,
    /// Log file index.
    pub file: u32,
    /// Offset in the file.
    pub offset: u64,
    /// Padded length.
    pub len: u32,
    /// The buffer (valid until the write completes).
    pub buf: *mut u8,
}

// SAFETY: the buffer pointer is handed to a helper thread that uses it only
// until it reports completion, while the writer keeps the buffer alive.
unsafe impl Send for Issue {}

#[derive(Default)]
struct HelperState {
    job: Option<Issue>,
    result: Option<Result<u64, EngineError>>,
    quit: bool,
}

type HelperShared = Arc<(Mutex<HelperState>, Condvar)>;

fn lock(m: &Mutex<HelperState>) -> MutexGuard<'_, HelperState> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A thread that writes one further member of every log file.
pub struct Helper {
    state: HelperShared,
    handle: Option<JoinHandle<()>>,
}

impl Helper {
    /// Starts the helper for member `m` of `members`; a thread that cannot
    /// be started is an error.
    fn spawn(
        mut engines: Vec<AnyEngine>,
        sync: SyncOp,
        m: usize,
        members: usize,
    ) -> Result<Helper, EngineError> {
        let state: HelperShared = Arc::default();
        let st = state.clone();
        let handle = std::thread::Builder::new()
            .name("lgwr-member".into())
            .spawn(move || {
                let (m, cv) = &*st;
                loop {
                    let mut g = lock(m);
                    while g.job.is_none() && !g.quit {
                        g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
                    }
                    let Some(w) = g.job.take() else {
                        return;
                    };
                    drop(g);
                    let req = IoRequest {
                        tag: w.tag,
                        dir: Dir::Write,
                        offset: w.offset,
                        len: w.len,
                        buf: w.buf,
                        sync,
                    };
                    // SAFETY: `LogIo::issue` handed `w` over under its
                    // contract (buffer valid and untouched until the write
                    // completes) and waits in `finish` for this result.
                    let r = unsafe { engines[w.file as usize].queue(&req) }.map(done_ns);
                    lock(m).result = Some(r);
                    cv.notify_all();
                }
            })
            .map_err(|error| dbio_engine::threads::SpawnError {
                index: m + 1,
                total: members,
                error,
            })?;
        Ok(Helper {
            state,
            handle: Some(handle),
        })
    }

    fn start(&self, w: Issue) {
        let (m, cv) = &*self.state;
        lock(m).job = Some(w);
        cv.notify_all();
    }

    fn finish(&self) -> Result<u64, EngineError> {
        let (m, cv) = &*self.state;
        let mut g = lock(m);
        loop {
            if let Some(r) = g.result.take() {
                return r;
            }
            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let (m, cv) = &*self.state;
        lock(m).quit = true;
        cv.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn done_ns(q: Queued) -> u64 {
    match q {
        Queued::Done(c) => c.sync_done_ns,
        Queued::InFlight => unreachable!("synchronous engines complete in queue"),
    }
}

/// The writer's I/O path.
pub enum LogIo {
    /// No I/O, injected service time (boxed: the enum would otherwise be
    /// as large as an io_uring engine).
    Null(Box<AnyEngine>),
    /// No I/O, several writes in flight, completed out of order: one
    /// engine per member.
    NullAsync(Vec<AnyEngine>),
    /// One I/O at a time (pwrite); member 0 by the writer, the others by
    /// helpers.
    Psync {
        /// Member 0 of each file.
        first: Vec<AnyEngine>,
        /// One helper per further member.
        helpers: Vec<Helper>,
    },
    /// Several I/Os in flight (io_uring): `rings[file][member]`.
    Uring(Vec<Vec<AnyEngine>>),
}

impl LogIo {
    /// Builds the I/O path in the writer thread (io_uring rings are
    /// single-issuer). `bufs` are the writer's buffers, one per tag.
    pub fn new(
        run: &LgwrRun,
        files: &[Vec<Arc<File>>],
        paths: &[Vec<PathBuf>],
        bufs: &[*mut u8],
        buf_len: usize,
    ) -> Result<LogIo, EngineError> {
        let cfg = &run.config;
        let kind = cfg.engine();
        let opts = EngineOptions {
            depth: cfg.async_depth,
            bufs,
            buf_len,
            null_delay_ns: cfg.null_delay_ns.unwrap_or(0),
            null_out_of_order: None,
        };
        let open = |f: usize, m: usize| {
            let file = files.get(f).map(|fs| EngineFile {
                file: &fs[m],
                path: &paths[f][m],
            });
            engines::open(kind, file, &opts)
        };
        if !Capabilities::of(kind).needs_file {
            if cfg.async_depth > 1 {
                let member = |m: u64| {
                    let o = EngineOptions {
                        null_out_of_order: Some((cfg.seed + m, run.journal)),
                        ..opts
                    };
                    engines::open(kind, None, &o)
                };
                return Ok(LogIo::NullAsync(
                    (0..u64::from(cfg.members))
                        .map(member)
                        .collect::<Result<_, _>>()?,
                ));
            }
            return Ok(LogIo::Null(Box::new(engines::open(kind, None, &opts)?)));
        }
        if Capabilities::of(kind).queue_depth {
            let mut rings = Vec::with_capacity(files.len());
            for (f, fs) in files.iter().enumerate() {
                let members = (0..fs.len()).map(|m| open(f, m));
                rings.push(members.collect::<Result<_, _>>()?);
            }
            return Ok(LogIo::Uring(rings));
        }
        let first = (0..files.len())
            .map(|f| open(f, 0))
            .collect::<Result<_, _>>()?;
        let helpers = (1..cfg.members as usize)
            .map(|m| {
                Helper::spawn(
                    (0..files.len())
                        .map(|f| open(f, m))
                        .collect::<Result<_, _>>()?,
                    sync_op(cfg.method),
                    m,
                    cfg.members as usize,
                )
            })
            .collect::<Result<_, _>>()?;
        Ok(LogIo::Psync { first, helpers })
    }

    /// Issues a write to every member; `Some(done_ns)` when it already
    /// completed everywhere, `None` when completions must be reaped.
    ///
    /// # Safety
    ///
    /// `w.buf` must point to `w.len` bytes, valid for reads and untouched
    /// (not written, moved or freed) until the write is over on every
    /// member: until this returns `Some`, or until [`LogIo::reap`] has
    /// handed back `w.tag` for every member, or until `self` is dropped.
    /// No other write with the same tag may be issued before then.
    pub unsafe fn issue(&mut self, w: &Issue, sync: SyncOp) -> Result<Option<u64>, EngineError> {
        let req = IoRequest {
            tag: w.tag,
            dir: Dir::Write,
            offset: w.offset,
            len: w.len,
            buf: w.buf,
            sync,
        };
        match self {
            // SAFETY (every `queue` below): this function's contract is
            // `Engine::queue`'s, for each member's engine.
            LogIo::Null(e) => Ok(Some(done_ns(unsafe { e.queue(&req) }?))),
            LogIo::NullAsync(members) => {
                for e in members.iter_mut() {
                    unsafe { e.queue(&req) }?;
                }
                Ok(None)
            }
            LogIo::Psync { first, helpers } => {
                for h in helpers.iter() {
                    h.start(*w);
                }
                let mine = unsafe { first[w.file as usize].queue(&req) }.map(done_ns);
                let mut latest = 0;
                let mut err = None;
                for h in helpers.iter() {
                    match h.finish() {
                        Ok(t) => latest = latest.max(t),
                        Err(e) => err = err.or(Some(e)),
                    }
                }
                let mine = mine?;
                match err {
                    Some(e) => Err(e),
                    None => Ok(Some(latest.max(mine))),
                }
            }
            LogIo::Uring(rings) => {
                for r in rings[w.file as usize].iter_mut() {
                    unsafe { r.queue(&req) }?;
                }
                for r in rings[w.file as usize].iter_mut() {
                    r.commit()?;
                }
                Ok(None)
            }
        }
    }

    /// Waits for at least one completion on `member` of `file` (io_uring
    /// and the out-of-order null engine; the synchronous paths have none
    /// outstanding).
    pub fn reap(
        &mut self,
        file: u32,
        member: u32,
        out: &mut Vec<Completion>,
    ) -> Result<(), EngineError> {
        out.clear();
        match self {
            LogIo::Uring(rings) => rings[file as usize][member as usize].reap(1, out),
            LogIo::NullAsync(members) => members[member as usize].reap(1, out),
            _ => Ok(()),
        }
    }

    /// The out-of-order null engines' journals (empty otherwise).
    pub fn take_journal(&mut self) -> Vec<NullDone> {
        match self {
            LogIo::NullAsync(members) => {
                members.iter_mut().flat_map(|e| e.take_journal()).collect()
            }
            _ => Vec::new(),
        }
    }
}
