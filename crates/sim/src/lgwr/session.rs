//! The committing sessions and the post/wait handshake with the writer.
//!
//! Each session owns a cache-line-aligned [`Slot`]. The writer fills in the
//! timestamps of the write that covered the session's commit, then
//! publishes the commit's sequence number with a release store and unparks
//! the session (std's park/unpark: an atomic and, only when the session
//! really sleeps, one futex wake, the cheapest post Linux has). The session
//! reads the timestamps after its acquire load, so every commit yields the
//! telescoping timestamps t_commit ≤ t_pickup ≤ t_io_done ≤ t_wake ≤
//! t_resumed without a lock and without allocating.

use super::client::{StopOnDrop, Turn};
use super::config::{sample, LgwrConfig, LgwrRun, HEADER_BYTES};
use super::cpu::{Burner, CpuAccount, UnitClock};
use super::logbuf::{LogBuffer, Pending};
use super::record;
use super::stage::Stage;
use super::stats::{Pos, SessionRec};
use super::writer::FlushLock;
use dbio_engine::clock::now_ns;
use dbio_engine::rusage::thread_usage;
use dbio_engine::series::Probes;
use dbio_engine::threads::StartGate;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;

/// Set in [`Slot::done`] when the commit's write failed.
pub const FAILED: u64 = 1 << 63;

/// A session's mailbox, written by the writer.
#[repr(align(128))]
#[derive(Default)]
pub struct Slot {
    /// Sequence number of the session's latest posted commit (| [`FAILED`]).
    pub done: AtomicU64,
    /// When the writer took the commit's redo.
    pub t_pickup: AtomicU64,
    /// When the write (and its sync) completed on every member.
    pub t_io_done: AtomicU64,
    /// When the writer posted this session.
    pub t_wake: AtomicU64,
    /// Log file index << 32 | the file's use count (generation).
    pub file_gen: AtomicU64,
    /// Offset of the record in the log file.
    pub offset: AtomicU64,
    /// The session's thread, for unpark.
    pub thread: OnceLock<Thread>,
}

/// What sessions and the writer share.
pub struct Shared {
    /// The log buffer.
    pub logbuf: LogBuffer,
    /// One slot per session.
    pub slots: Vec<Slot>,
    /// Sessions in a transaction (not thinking, not finished): PostgreSQL's
    /// MinimumActiveBackends for commit_siblings.
    pub active: AtomicU32,
    /// The writer's thread.
    pub writer: OnceLock<Thread>,
    /// The writer failed (setup or I/O): sessions stop.
    pub failed: AtomicBool,
    /// Per-second series: one probe per session (commits, 'log file
    /// sync'), then the writer's (writes, commits they covered).
    pub probes: Probes,
    /// Leader protocol: CPU the leaders spent in flushes so far, every
    /// stage's, ns.
    pub flush_cpu_ns: AtomicU64,
    /// With `cpu_includes_commit_path`: the sessions' CPU per commit
    /// outside their burns (round trip, queue, wake-ups, flushes led).
    pub session_path: CpuAccount,
    /// With `cpu_includes_commit_path`: the client threads' CPU per round
    /// trip outside their burns.
    pub client_path: CpuAccount,
}

/// Probe counters (summed over probes, so each has its own index): a
/// session counts its commits, the writer its writes and the commits they
/// covered.
pub const PROBE_COMMITS: usize = 0;
/// See [`PROBE_COMMITS`].
pub const PROBE_WRITES: usize = 1;
/// See [`PROBE_COMMITS`].
pub const PROBE_COVERED: usize = 2;

impl Shared {
    /// Shared state for `cfg`; an error when the log buffer cannot be
    /// allocated.
    pub fn new(cfg: &LgwrConfig) -> Result<Self, String> {
        Ok(Self {
            logbuf: LogBuffer::try_new(cfg.log_buffer_bytes, cfg.sessions)?,
            slots: (0..cfg.sessions).map(|_| Slot::default()).collect(),
            active: AtomicU32::new(cfg.sessions),
            writer: OnceLock::new(),
            failed: AtomicBool::new(false),
            probes: Probes::new(cfg.sessions as usize + 1),
            flush_cpu_ns: AtomicU64::new(0),
            session_path: CpuAccount::default(),
            client_path: CpuAccount::default(),
        })
    }

    /// The CPU a transaction burns before its commit: `txn_cpu_ns`, less
    /// (with `cpu_includes_commit_path`) what the model's sessions spent
    /// on the commit path that no earlier burn took off
    /// ([`CpuAccount::rest_of`]).
    /// That estimate stands for the database's own commit-path CPU (the
    /// same kinds of system calls and wake-ups on the same machine); the
    /// two differ by what the server does that the model does not
    /// (PostgreSQL writes a partly filled 8 KiB WAL page again at the next
    /// flush, InnoDB may write 4 KiB blocks twice), a few µs per commit
    /// at most.
    #[inline]
    pub fn txn_cpu(&self, cfg: &LgwrConfig) -> u64 {
        if cfg.cpu_includes_commit_path {
            self.session_path.rest_of(cfg.txn_cpu_ns)
        } else {
            cfg.txn_cpu_ns
        }
    }

    /// The CPU a client thread burns per round trip: `client_cpu_ns`,
    /// less (with `cpu_includes_commit_path`) what the client threads
    /// spent outside their burns that no earlier burn took off (the
    /// client's measured CPU holds its own sends, receives and wake-ups).
    #[inline]
    pub fn client_cpu(&self, cfg: &LgwrConfig) -> u64 {
        if cfg.cpu_includes_commit_path {
            self.client_path.rest_of(cfg.client_cpu_ns)
        } else {
            cfg.client_cpu_ns
        }
    }
}

/// Waits until the writer posted commit `seq`; returns the slot's word.
/// The session first watches its slot for `spin_ns` (`--post-spin`): a post
/// that arrives this soon costs neither a futex wait nor a wake-up (Oracle's
/// adaptive 'log file sync' polls in the same spirit); then it sleeps.
#[inline]
fn wait_for_post(slot: &Slot, seq: u64, spin_ns: u64) -> u64 {
    let posted = |d: u64| d & !FAILED == seq;
    if spin_ns > 0 {
        let until = now_ns() + spin_ns;
        loop {
            let d = slot.done.load(Ordering::Acquire);
            if posted(d) {
                return d;
            }
            if now_ns() >= until {
                break;
            }
            // Yield rather than spin: a writer woken on this CPU runs at once.
            std::thread::yield_now();
        }
    }
    loop {
        let d = slot.done.load(Ordering::Acquire);
        if posted(d) {
            return d;
        }
        std::thread::park();
    }
}

/// The leader protocol's wait for commit `seq`: queue on the flush lock
/// (PostgreSQL's `LWLock:WALWrite`); a session that gets it with its commit
/// not yet durable flushes everything inserted so far, for the whole group.
/// Returns the slot's word, as [`wait_for_post`].
fn lead_or_follow(lock: &FlushLock, slot: &Slot, seq: u64) -> u64 {
    lock.wait_or_lead(|| slot.done.load(Ordering::Acquire) & !FAILED == seq);
    slot.done.load(Ordering::Acquire)
}

/// Runs session `idx` until its commits are done, its run time is over
/// or `stop` is raised; returns its recordings. Under the leader
/// protocol `leader` is the flush lock and `stages` the later stages of
/// a pipelined commit (empty without `--pipeline`).
pub fn session_main(
    idx: u32,
    run: &LgwrRun,
    shared: &Shared,
    (leader, stages): (Option<&FlushLock>, &[Stage]),
    client: Option<&Turn>,
    gate: &StartGate,
    stop: &AtomicBool,
) -> SessionRec {
    let cfg = &run.config;
    if let Some(t) = client {
        t.session_is_me();
    }
    let _stop_client = StopOnDrop(client);
    let slot = &shared.slots[idx as usize];
    let _ = slot.thread.set(std::thread::current());
    if !cfg.session_cpus.is_empty() {
        // Validated against the CPU count; a refusal (cgroup cpuset) leaves
        // the session where the scheduler put it.
        let _ = super::writer::pin_to(&cfg.session_cpus);
    }
    let pattern = record::pattern(cfg.seed, idx, cfg.redo_size.max());
    let mut rng = fastrand::Rng::with_seed(cfg.seed.wrapping_add(u64::from(idx) * 7919));
    let mut rec = SessionRec::new(
        run.verify.then_some(cfg.files),
        run.journal
            .then(|| cfg.commits_per_session.unwrap_or(1 << 16)),
    );
    if !gate.arrive() {
        // Another thread could not start: no commits.
        shared.active.fetch_sub(1, Ordering::Relaxed);
        return rec;
    }
    let cpu0 = thread_usage();
    let t_start = now_ns();
    let deadline = t_start.saturating_add(cfg.runtime_ns.unwrap_or(0));
    let writer = shared.writer.get().cloned();
    let limit = cfg.commits_per_session.unwrap_or(u64::MAX);
    let spin_ns = if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        cfg.post_spin_ns
    } else {
        0
    };
    let mut seq = 0u64;
    let mut burner = Burner::default();
    while seq < limit && !shared.failed.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed) {
        if cfg.think_time_ns > 0 {
            shared.active.fetch_sub(1, Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_nanos(cfg.think_time_ns));
            shared.active.fetch_add(1, Ordering::Relaxed);
        }
        if cfg.commits_per_session.is_none() && now_ns() >= deadline {
            break;
        }
        // The commit's CPU outside the burn, when the burn is to be less it.
        let mut unit = cfg.cpu_includes_commit_path.then(UnitClock::start);
        // Without a client thread the transaction starts here for its
        // client's view; with one, the client times it.
        let t_txn = if client.is_none() { now_ns() } else { 0 };
        if let Some(t) = client {
            // The client's work and the statement's arrival.
            t.round_trip();
        }
        let txn_cpu = shared.txn_cpu(cfg);
        burner.burn(unit.as_mut(), txn_cpu);
        seq += 1;
        let len = sample(&cfg.redo_size, &mut rng) as u32;
        let off = record::pattern_offset(seq);
        let payload = &pattern[off..off + (u64::from(len) - HEADER_BYTES) as usize];
        let header = record::header(idx, seq, len, payload);
        let p = Pending {
            session: idx,
            seq,
            ..Pending::default()
        };
        let (t_commit, waited, wake) = shared.logbuf.append(p, &header, payload);
        if wake {
            if let Some(w) = &writer {
                w.unpark();
            }
        }
        let done = match leader {
            Some(leader) => lead_or_follow(leader, slot, seq),
            None => wait_for_post(slot, seq, spin_ns),
        };
        if done & FAILED != 0 {
            break;
        }
        // The later stages of a pipelined commit, in order.
        if !stages.iter().all(|st| st.commit(&shared.flush_cpu_ns)) {
            shared.failed.store(true, Ordering::Relaxed);
            break;
        }
        let t_resumed = now_ns();
        let fg = slot.file_gen.load(Ordering::Relaxed);
        rec.record(
            [
                t_commit,
                slot.t_pickup.load(Ordering::Relaxed),
                slot.t_io_done.load(Ordering::Relaxed),
                slot.t_wake.load(Ordering::Relaxed),
                t_resumed,
            ],
            waited,
            Pos {
                file: (fg >> 32) as u32,
                gen: fg as u32,
                offset: slot.offset.load(Ordering::Relaxed),
                seq,
                len,
                resumed_ns: t_resumed,
            },
        );
        if let Some(p) = shared.probes.get(idx as usize) {
            p.add(PROBE_COMMITS, 1);
            p.latency(t_resumed.saturating_sub(t_commit));
        }
        if client.is_none() {
            rec.seen_ns += t_resumed.saturating_sub(t_txn);
            rec.seen += 1;
        }
        if let Some(u) = unit {
            u.end(&shared.session_path);
        }
    }
    if let Some(t) = client {
        (rec.seen_ns, rec.seen) = t.seen();
    }
    shared.active.fetch_sub(1, Ordering::Relaxed);
    let end = now_ns();
    rec.elapsed_ns = end - t_start;
    rec.end_ns = end;
    rec.cpu = thread_usage().since(&cpu0);
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU a transaction and a client's turn burn: all of the
    /// measured figure, or with `cpu_includes_commit_path` that less the
    /// model's own CPU outside its burns that no burn took off yet (never
    /// below 0: the rest is taken off the next; nothing before the first
    /// unit). See: issues 11, 21.
    #[test]
    fn measured_cpu_with_the_commit_path_in_it_is_spent_less_it() {
        let mut cfg = LgwrConfig {
            sessions: 2,
            txn_cpu_ns: 100_000,
            client_cpu_ns: 20_000,
            ..LgwrConfig::default()
        };
        let shared = Shared::new(&cfg).unwrap();
        assert_eq!(shared.txn_cpu(&cfg), 100_000);
        cfg.cpu_includes_commit_path = true;
        assert_eq!(shared.txn_cpu(&cfg), 100_000, "no commit yet");
        assert_eq!(shared.client_cpu(&cfg), 20_000, "no round trip yet");
        for ns in [20_000, 40_000] {
            shared.session_path.add(ns);
        }
        shared.client_path.add(5_000);
        // Both commits' 60 µs are taken off the next burn, once.
        assert_eq!(shared.txn_cpu(&cfg), 40_000);
        assert_eq!(shared.txn_cpu(&cfg), 100_000);
        assert_eq!(shared.client_cpu(&cfg), 15_000);
        shared.session_path.add(150_000);
        assert_eq!(shared.txn_cpu(&cfg), 0);
        assert_eq!(shared.txn_cpu(&cfg), 50_000, "the rest of 150 µs");
        cfg.cpu_includes_commit_path = false;
        assert_eq!(shared.txn_cpu(&cfg), 100_000);
        assert_eq!(shared.client_cpu(&cfg), 20_000);
    }
}
