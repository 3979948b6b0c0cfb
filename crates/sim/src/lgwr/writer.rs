//! The log-writer thread: gather, pad, write, sync, post.
//!
//! One cycle: take every pending record (whole records, up to the largest
//! write and the room left in the current log file), copy them into an
//! aligned buffer, pad to the redo block size (the padding is redo
//! wastage), write at the current offset of the current log file on every
//! member, make it durable with the method's sync, give the log buffer room
//! back, then post each session the write covered. With io_uring (or the
//! out-of-order null engine) and an async depth above 1 the writer keeps taking and issuing new writes while
//! older ones are in flight, and posts strictly in write order (a commit is
//! durable only when every write before it is).
//!
//! A log switch happens when the next write does not fit in the current
//! file: the writer moves to the next file of the group at offset 0 (the
//! group is used round-robin, like online redo logs). PostgreSQL's
//! commit_delay is a sleep before taking redo, when at least
//! commit_siblings other sessions are in a transaction.

use super::config::{round_up, sync_op, LgwrConfig, LgwrRun};
use super::io::{Issue, LogIo};
use super::logbuf::{Pending, Take};
use super::session::{Shared, FAILED};
use super::stats::{WriterRec, KEPT_SWITCHES};
use dbio_engine::buf::AlignedBuf;
use dbio_engine::clock::now_ns;
use dbio_engine::engines::Completion;
use dbio_engine::rusage::thread_usage;
use dbio_engine::threads::StartGate;
use dbio_engine::EngineError;
use dbio_model::lgwr::LogSwitch;
use std::collections::VecDeque;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

#[derive(Default)]
struct Batch {
    file: u32,
    gen: u32,
    offset: u64,
    lsn: u64,
    bytes: u64,
    padded: u64,
    t_pickup: u64,
    t_issue: u64,
    /// Members whose write has not completed (bit per member).
    pending: u32,
    done_ns: u64,
    commits: Vec<Pending>,
}

/// Restricts the calling thread to `cpus`.
pub fn pin_to(cpus: &[u32]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it; 0 = the
    // calling thread.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c as usize, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Checks, on a short-lived thread, that the writer's CPU placement and
/// scheduling priority can be applied (SCHED_FIFO and a negative nice need
/// privileges): the run fails in one sentence before any file is made,
/// instead of after the log files are written.
pub fn probe_placement(cfg: &LgwrConfig) -> Result<(), String> {
    if cfg.writer_cpu.is_none() && cfg.writer_nice.is_none() && cfg.writer_fifo.is_none() {
        return Ok(());
    }
    std::thread::scope(|s| {
        match dbio_engine::threads::spawn_scoped(s, "lgwr-probe".into(), 0, 1, || place_thread(cfg))
        {
            Ok(h) => h
                .join()
                .unwrap_or_else(|_| Err("the placement probe thread failed".into())),
            Err(e) => Err(e.to_string()),
        }
    })
}

/// The CPUs the calling thread may run on, as the kernel has them (empty
/// when it does not say): the placement as it took effect, not as asked.
pub fn running_on() -> Vec<u32> {
    rustix::thread::sched_getaffinity(None).map_or_else(
        |_| Vec::new(),
        |set| {
            (0..rustix::thread::CpuSet::MAX_CPU)
                .filter(|&c| set.is_set(c))
                .map(|c| c as u32)
                .collect()
        },
    )
}

/// Applies the writer's CPU placement and scheduling priority to the
/// calling thread.
fn place_thread(cfg: &LgwrConfig) -> Result<(), String> {
    if let Some(cpu) = cfg.writer_cpu {
        pin_to(&[cpu]).map_err(|e| format!("could not pin the log writer to CPU {cpu}: {e}"))?;
    }
    if let Some(n) = cfg.writer_nice {
        // SAFETY: plain system calls on the calling thread.
        let rc = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, n)
        };
        if rc != 0 {
            return Err(format!(
                "could not give the log writer nice {n}: {} (negative values need root or CAP_SYS_NICE)",
                std::io::Error::last_os_error()
            ));
        }
    }
    if let Some(p) = cfg.writer_fifo {
        let param = libc::sched_param {
            sched_priority: p as i32,
        };
        // SAFETY: param is a valid sched_param; 0 = the calling thread.
        let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
        if rc != 0 {
            return Err(format!(
                "could not give the log writer SCHED_FIFO priority {p}: {} (needs root or CAP_SYS_NICE)",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

/// What a flush needs besides the log buffer: the engines on the log
/// files, the aligned write buffers (one per write in flight) and the
/// batches they carry, and the writer's recordings.
struct FlushParts {
    io: LogIo,
    bufs: Vec<AlignedBuf>,
    batches: Vec<Batch>,
    rec: WriterRec,
}

impl FlushParts {
    /// Allocates the buffers and opens the engines; `placed` applies the
    /// writer thread's CPU and priority first (the log-writer protocol).
    fn new(
        run: &LgwrRun,
        files: &[Vec<Arc<File>>],
        paths: &[Vec<PathBuf>],
        placed: bool,
    ) -> Result<Self, EngineError> {
        let cfg = &run.config;
        let depth = cfg.async_depth as usize;
        let mut bufs: Vec<AlignedBuf> = (0..depth)
            .map(|_| AlignedBuf::try_new(cfg.max_write_bytes as usize))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                EngineError::Unsupported(dbio_engine::buf::alloc_error(
                    depth * cfg.max_write_bytes as usize,
                ))
            })?;
        if placed {
            place_thread(cfg).map_err(EngineError::Unsupported)?;
        }
        let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
        let io = LogIo::new(run, files, paths, &ptrs, cfg.max_write_bytes as usize)?;
        let batches = (0..depth)
            .map(|_| Batch {
                commits: Vec::with_capacity(cfg.sessions as usize),
                ..Batch::default()
            })
            .collect();
        Ok(Self {
            io,
            bufs,
            batches,
            rec: WriterRec::new(cfg.sessions, cfg.files),
        })
    }

    /// Ends the recordings: where the log ends, the null engine's journal.
    fn finish(mut self, w: &Writer) -> WriterRec {
        self.rec.end = (w.cur, w.offset);
        self.rec.null_journal = self.io.take_journal();
        // The rings wait for in-flight I/O on drop: drop them before the
        // buffers.
        drop(self.io);
        drop(self.bufs);
        self.rec
    }
}

/// The writer thread's body. `files`/`paths` are `[file][member]` (empty
/// with the null engine). A setup or I/O error is stored in `error`; the
/// writer then fails every pending commit so that sessions stop. When the
/// start `gate` is aborted (a session could not be started) it returns
/// without writing.
pub fn writer_main(
    run: &LgwrRun,
    shared: &Shared,
    files: &[Vec<Arc<File>>],
    paths: &[Vec<PathBuf>],
    gate: &StartGate,
    error: &Mutex<Option<EngineError>>,
) -> WriterRec {
    let cfg = &run.config;
    let _ = shared.writer.set(std::thread::current());
    let mut parts = match FlushParts::new(run, files, paths, true) {
        Ok(p) => p,
        Err(e) => {
            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            shared.failed.store(true, Ordering::Relaxed);
            gate.arrive();
            return WriterRec::new(cfg.sessions, cfg.files);
        }
    };
    parts.rec.cpus = running_on();
    if !gate.arrive() {
        return parts.rec;
    }
    let cpu0 = thread_usage();
    let mut w = Writer::new(cfg, shared, None);
    let FlushParts {
        io,
        bufs,
        batches,
        rec,
    } = &mut parts;
    if let Err(e) = w.run(io, bufs, batches, rec) {
        *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        shared.failed.store(true, Ordering::Relaxed);
        w.fail_all(batches);
    }
    let cpu = thread_usage().since(&cpu0);
    let mut rec = parts.finish(&w);
    rec.cpu = cpu;
    rec
}

/// The leader protocol's lock (PostgreSQL's `WALWriteLock`, taken with
/// `LWLockAcquireOrWait`): one session at a time flushes; when it lets go,
/// every session queued behind it wakes and looks whether the flush made
/// its commit durable, and only one whose commit is still pending becomes
/// the next leader. (A plain mutex would hand the lock from waiter to
/// waiter, one wake-up after another, for sessions with nothing to do.)
pub struct FlushLock<'a> {
    busy: Mutex<bool>,
    released: Condvar,
    leader: Mutex<Leader<'a>>,
}

impl<'a> FlushLock<'a> {
    /// The lock around `leader`.
    pub fn new(leader: Leader<'a>) -> Self {
        Self {
            busy: Mutex::new(false),
            released: Condvar::new(),
            leader: Mutex::new(leader),
        }
    }

    /// Returns once `durable()` holds: either another session's flush
    /// covered the caller's commit while it waited, or the caller led a
    /// flush itself. `durable` also holds when the commit failed.
    pub fn wait_or_lead(&self, durable: impl Fn() -> bool) {
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        while !durable() {
            if *busy {
                busy = self.released.wait(busy).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            *busy = true;
            drop(busy);
            self.leader
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .flush();
            busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
            *busy = false;
            self.released.notify_all();
        }
    }

    /// The leader back, for its recordings.
    pub fn into_inner(self) -> Leader<'a> {
        self.leader.into_inner().unwrap_or_else(|p| p.into_inner())
    }
}

/// The leader protocol's flush: no writer thread; the session that wants
/// its commit durable takes this (behind a mutex, PostgreSQL's
/// `WALWriteLock`) and flushes everything inserted so far, posting every
/// session the writes covered, itself included.
pub struct Leader<'a> {
    writer: Writer<'a>,
    parts: FlushParts,
    error: Option<EngineError>,
}

// SAFETY: the leader protocol runs only on the psync and null engines
// (`LgwrConfig::validate` refuses io_uring, whose ring belongs to the
// thread that made it); their raw pointers are the aligned buffers in
// `parts.bufs`, owned here and used only by the thread holding the mutex
// around this value.
unsafe impl Send for Leader<'_> {}

impl<'a> Leader<'a> {
    /// The engines and buffers for `run`'s log files.
    pub fn new(
        run: &'a LgwrRun,
        shared: &'a Shared,
        files: &[Vec<Arc<File>>],
        paths: &[Vec<PathBuf>],
    ) -> Result<Self, EngineError> {
        Ok(Self {
            writer: Writer::new(&run.config, shared, Some(0)),
            parts: FlushParts::new(run, files, paths, false)?,
            error: None,
        })
    }

    /// Writes and makes durable everything inserted before the call, and
    /// posts the sessions it covered. After an I/O error (here or in an
    /// earlier flush) it fails every pending commit instead, the caller's
    /// included, and the sessions stop.
    pub fn flush(&mut self) {
        let FlushParts {
            io,
            bufs,
            batches,
            rec,
        } = &mut self.parts;
        if self.error.is_none() {
            let cpu0 = super::cpu::thread_cpu_ns();
            self.writer.flush_to = Some(self.writer.shared.logbuf.head());
            if let Err(e) = self.writer.run(io, bufs, batches, rec) {
                self.error = Some(e);
                self.writer.shared.failed.store(true, Ordering::Relaxed);
            }
            let spent = super::cpu::thread_cpu_ns().saturating_sub(cpu0);
            self.writer
                .shared
                .flush_cpu_ns
                .fetch_add(spent, Ordering::Relaxed);
        }
        if self.error.is_some() {
            self.writer.fail_pending(batches);
        }
    }

    /// The recordings (as the writer thread's, without a thread's CPU:
    /// the flushes ran on the sessions' CPU time) and the error that
    /// stopped the run, if one did.
    pub fn finish(self) -> (WriterRec, Option<EngineError>) {
        (self.parts.finish(&self.writer), self.error)
    }
}

/// How long an idle writer watches the log buffer before it sleeps.
pub const IDLE_SPIN_NS: u64 = 100_000;

struct Writer<'a> {
    spin: bool,
    cfg: &'a LgwrConfig,
    shared: &'a Shared,
    cur: u32,
    offset: u64,
    free: Vec<usize>,
    fifo: VecDeque<usize>,
    out: Vec<Completion>,
    /// Leader protocol: the flush ends once every record before this log
    /// position is durable (None: the log writer, which runs until the
    /// buffer is closed).
    flush_to: Option<u64>,
}

impl<'a> Writer<'a> {
    fn new(cfg: &'a LgwrConfig, shared: &'a Shared, flush_to: Option<u64>) -> Self {
        let depth = cfg.async_depth as usize;
        Self {
            spin: std::thread::available_parallelism().map_or(1, |n| n.get()) > 1,
            cfg,
            shared,
            cur: 0,
            offset: 0,
            free: (0..depth).rev().collect(),
            fifo: VecDeque::with_capacity(depth),
            out: Vec::with_capacity(2 * depth),
            flush_to,
        }
    }

    /// Whether a leader's flush has covered everything it was asked to.
    fn leader_done(&self) -> bool {
        self.flush_to
            .is_some_and(|end| self.fifo.is_empty() && self.shared.logbuf.next_lsn() >= end)
    }

    fn run(
        &mut self,
        io: &mut LogIo,
        bufs: &mut [AlignedBuf],
        batches: &mut [Batch],
        rec: &mut WriterRec,
    ) -> Result<(), EngineError> {
        let cfg = self.cfg;
        let bs = cfg.bs;
        let sync = sync_op(cfg.method);
        let all_members = (1u32 << cfg.members) - 1;
        let mut closed = false;
        loop {
            // 1. Post every completed write at the head, in write order.
            while let Some(&tag) = self.fifo.front() {
                if batches[tag].pending != 0 {
                    break;
                }
                self.post(&batches[tag], rec);
                self.fifo.pop_front();
                self.free.push(tag);
            }
            if self.leader_done() {
                return Ok(());
            }
            // 2. Take and issue a new write when a buffer is free.
            if let (Some(&tag), false) = (self.free.last(), closed) {
                if cfg.commit_delay_ns > 0
                    && self.shared.active.load(Ordering::Relaxed) > cfg.commit_siblings
                    && self.shared.logbuf.has_pending()
                {
                    std::thread::sleep(Duration::from_nanos(cfg.commit_delay_ns));
                    rec.delays += 1;
                }
                let b = &mut batches[tag];
                let room = cfg.file_size - self.offset;
                match self
                    .shared
                    .logbuf
                    .take(cfg.max_write_bytes, room, bs, &mut b.commits)
                {
                    Take::Batch {
                        lsn,
                        bytes,
                        t_pickup,
                    } => {
                        let padded = round_up(bytes, bs);
                        let buf = bufs[tag].as_mut_slice();
                        self.shared.logbuf.copy_out(lsn, &mut buf[..bytes as usize]);
                        buf[bytes as usize..padded as usize].fill(0);
                        b.file = self.cur;
                        b.gen = rec.uses[self.cur as usize];
                        b.offset = self.offset;
                        b.lsn = lsn;
                        b.bytes = bytes;
                        b.padded = padded;
                        b.t_pickup = t_pickup;
                        let issue = Issue {
                            tag: tag as u32,
                            file: self.cur,
                            offset: self.offset,
                            len: padded as u32,
                            buf: bufs[tag].as_mut_ptr(),
                        };
                        self.free.pop();
                        self.fifo.push_back(tag);
                        self.offset += padded;
                        b.t_issue = now_ns();
                        // SAFETY: `bufs[tag]` holds `padded` bytes (at most
                        // `max_write`), lives until after `io` is dropped
                        // and is not touched again until `tag` comes back
                        // to the free list, which happens only once every
                        // member's write of it is over.
                        match unsafe { io.issue(&issue, sync) }? {
                            Some(mut done) => {
                                // Further durable writes of the same
                                // flush, one after the other (MariaDB's
                                // binary log after InnoDB's redo): the
                                // same block again, made durable again.
                                // Pipelined, the later stages make
                                // them (`super::stage`).
                                let extra = if cfg.pipeline { 1 } else { cfg.syncs_per_flush };
                                for _ in 1..extra {
                                    // SAFETY: as above; the write is over.
                                    if let Some(d) = unsafe { io.issue(&issue, sync) }? {
                                        done = d;
                                    }
                                }
                                b.pending = 0;
                                b.done_ns = done;
                            }
                            None => {
                                b.pending = all_members;
                                b.done_ns = 0;
                            }
                        }
                        continue;
                    }
                    Take::NeedSwitch { next_write } => {
                        self.switch(next_write, rec);
                        continue;
                    }
                    Take::Idle => {
                        if self.fifo.is_empty() {
                            if self.flush_to.is_some() {
                                return Ok(());
                            }
                            self.idle(rec);
                            continue;
                        }
                    }
                    Take::Closed => closed = true,
                }
            }
            // 3. Wait for the oldest write's next member.
            let Some(&tag) = self.fifo.front() else {
                if closed {
                    return Ok(());
                }
                continue;
            };
            let member = batches[tag].pending.trailing_zeros();
            io.reap(batches[tag].file, member, &mut self.out)?;
            for c in &self.out {
                let b = &mut batches[c.tag as usize];
                b.pending &= !(1 << member);
                b.done_ns = b.done_ns.max(c.sync_done_ns);
            }
        }
    }

    /// Nothing to write: watch the log buffer for a short while (a commit
    /// arriving now is taken without a wake-up system call), then sleep
    /// until a session posts the writer. The watch is bounded by
    /// [`IDLE_SPIN_NS`] and skipped on a single CPU, where it would only
    /// delay the sessions it waits for.
    fn idle(&self, rec: &mut WriterRec) {
        let lb = &self.shared.logbuf;
        if self.spin {
            let seen = lb.appends();
            let start = now_ns();
            let until = start + IDLE_SPIN_NS;
            loop {
                let now = now_ns();
                if lb.appends() != seen || now >= until {
                    rec.idle_watch_ns += now - start;
                    if now < until {
                        return;
                    }
                    break;
                }
                std::hint::spin_loop();
            }
        }
        if lb.sleep_if_idle() {
            std::thread::park_timeout(Duration::from_millis(50));
        }
    }

    fn switch(&mut self, next_write: u64, rec: &mut WriterRec) {
        let to = (self.cur + 1) % self.cfg.files;
        rec.n_switches += 1;
        if rec.switches.len() < KEPT_SWITCHES {
            rec.switches.push(LogSwitch {
                from_file: self.cur,
                at_offset: self.offset,
                next_write_bytes: next_write,
                to_file: to,
            });
        }
        self.cur = to;
        rec.uses[to as usize] += 1;
        self.offset = 0;
    }

    fn post(&self, b: &Batch, rec: &mut WriterRec) {
        self.shared.logbuf.release(b.lsn + b.bytes);
        rec.record_write(
            b.done_ns.saturating_sub(b.t_issue),
            b.bytes,
            b.padded,
            b.commits.len(),
        );
        // The writer's probe: one writer thread, or leaders that take
        // turns under the flush lock.
        if let Some(p) = self.shared.probes.get(self.shared.slots.len()) {
            p.add(super::session::PROBE_WRITES, 1);
            p.add(super::session::PROBE_COVERED, b.commits.len() as u64);
        }
        let fg = (u64::from(b.file) << 32) | u64::from(b.gen);
        for p in &b.commits {
            let slot = &self.shared.slots[p.session as usize];
            slot.t_pickup.store(b.t_pickup, Ordering::Relaxed);
            slot.t_io_done.store(b.done_ns, Ordering::Relaxed);
            slot.file_gen.store(fg, Ordering::Relaxed);
            slot.offset
                .store(b.offset + (p.lsn - b.lsn), Ordering::Relaxed);
            slot.t_wake.store(now_ns(), Ordering::Relaxed);
            slot.done.store(p.seq, Ordering::Release);
            if let Some(t) = slot.thread.get() {
                t.unpark();
            }
        }
    }

    /// After an error: fail every commit in flight or still to come until
    /// the sessions have stopped.
    fn fail_all(&mut self, batches: &mut [Batch]) {
        while !self.fail_pending(batches) {
            std::thread::park_timeout(Duration::from_millis(10));
        }
    }

    /// Fails every commit in flight or pending now; returns whether the
    /// log buffer is closed (no session will commit again).
    fn fail_pending(&mut self, batches: &mut [Batch]) -> bool {
        let fail = |p: &Pending| {
            let slot = &self.shared.slots[p.session as usize];
            slot.done.store(p.seq | FAILED, Ordering::Release);
            if let Some(t) = slot.thread.get() {
                t.unpark();
            }
        };
        while let Some(tag) = self.fifo.pop_front() {
            batches[tag].commits.iter().for_each(fail);
            self.free.push(tag);
        }
        let mut taken = Vec::with_capacity(self.cfg.sessions as usize);
        loop {
            match self.shared.logbuf.take(u64::MAX, u64::MAX, 1, &mut taken) {
                Take::Batch { lsn, bytes, .. } => {
                    taken.iter().for_each(fail);
                    self.shared.logbuf.release(lsn + bytes);
                }
                Take::Closed => return true,
                Take::Idle | Take::NeedSwitch { .. } => return false,
            }
        }
    }
}
