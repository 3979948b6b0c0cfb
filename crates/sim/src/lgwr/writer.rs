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
use std::sync::{Arc, Mutex};
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
    let depth = cfg.async_depth as usize;
    let mut rec = WriterRec::new(cfg.sessions, cfg.files);
    let bufs: Option<Vec<AlignedBuf>> = (0..depth)
        .map(|_| AlignedBuf::try_new(cfg.max_write_bytes as usize))
        .collect();
    let alloc_failed = bufs.is_none();
    let mut bufs = bufs.unwrap_or_default();
    let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let mut batches: Vec<Batch> = (0..depth)
        .map(|_| Batch {
            commits: Vec::with_capacity(cfg.sessions as usize),
            ..Batch::default()
        })
        .collect();
    let setup = (if alloc_failed {
        Err(EngineError::Unsupported(dbio_engine::buf::alloc_error(
            depth * cfg.max_write_bytes as usize,
        )))
    } else {
        Ok(())
    })
    .and_then(|_| place_thread(cfg).map_err(EngineError::Unsupported))
    .and_then(|_| LogIo::new(run, files, paths, &ptrs, cfg.max_write_bytes as usize));
    let mut io = match setup {
        Ok(io) => io,
        Err(e) => {
            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            shared.failed.store(true, Ordering::Relaxed);
            gate.arrive();
            return rec;
        }
    };
    rec.cpus = running_on();
    if !gate.arrive() {
        return rec;
    }
    let cpu0 = thread_usage();
    let mut w = Writer {
        spin: std::thread::available_parallelism().map_or(1, |n| n.get()) > 1,
        cfg,
        shared,
        cur: 0,
        offset: 0,
        free: (0..depth).rev().collect(),
        fifo: VecDeque::with_capacity(depth),
        out: Vec::with_capacity(2 * depth),
    };
    if let Err(e) = w.run(&mut io, &mut bufs, &mut batches, &mut rec) {
        *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        shared.failed.store(true, Ordering::Relaxed);
        w.fail_all(&mut batches);
    }
    rec.end = (w.cur, w.offset);
    rec.null_journal = io.take_journal();
    rec.cpu = thread_usage().since(&cpu0);
    // The rings wait for in-flight I/O on drop: drop them before the buffers.
    drop(io);
    drop(bufs);
    rec
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
}

impl Writer<'_> {
    fn run(
        &mut self,
        io: &mut LogIo,
        bufs: &mut [AlignedBuf],
        batches: &mut [Batch],
        rec: &mut WriterRec,
    ) -> Result<(), EngineError> {
        let cfg = self.cfg;
        let bs = cfg.block_size;
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
                            Some(done) => {
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
        let fail = |p: &Pending| {
            let slot = &self.shared.slots[p.session as usize];
            slot.done.store(p.seq | FAILED, Ordering::Release);
            if let Some(t) = slot.thread.get() {
                t.unpark();
            }
        };
        while let Some(tag) = self.fifo.pop_front() {
            batches[tag].commits.iter().for_each(fail);
        }
        let mut taken = Vec::with_capacity(self.cfg.sessions as usize);
        loop {
            match self.shared.logbuf.take(u64::MAX, u64::MAX, 1, &mut taken) {
                Take::Batch { lsn, bytes, .. } => {
                    taken.iter().for_each(fail);
                    self.shared.logbuf.release(lsn + bytes);
                }
                Take::Closed => return,
                Take::Idle | Take::NeedSwitch { .. } => {
                    std::thread::park_timeout(Duration::from_millis(10));
                }
            }
        }
    }
}
