//! Recording (per thread, no locks, no allocation per commit) and the merge
//! of rounds into the result model.
//!
//! Error bounds: every latency goes into an HDR histogram (1 ns .. 100 s,
//! 2 significant digits, so each percentile and mean is within 1 %). The
//! parts of a commit are differences of the same five timestamps, so their
//! exact means add up to the exact mean 'log file sync'; the summaries keep
//! that within the histograms' 1 %.

use super::session::{PROBE_COMMITS, PROBE_COVERED, PROBE_WRITES};
use super::stage::StageRec;
use dbio_engine::engines::NullDone;
use dbio_engine::recorder::new_histogram;
use dbio_engine::rusage::Usage;
use dbio_engine::series::{self, Tick};
use dbio_model::lgwr::{
    CommitBreakdown, IoEvidence, LgwrResult, LogSwitch, SessionLine, SizeBucket, StageStats,
    VerifyResult, WriterStats,
};
use dbio_model::series::{Series, SeriesUnit};
use dbio_model::{CpuUsage, DiskStatsDelta, LatencySummary};
use hdrhistogram::Histogram;

/// Where a committed record went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pos {
    /// Log file index.
    pub file: u32,
    /// The file's use count when written (reuse overwrites older records).
    pub gen: u32,
    /// Offset in the file.
    pub offset: u64,
    /// Commit sequence number in its session.
    pub seq: u64,
    /// Record length.
    pub len: u32,
    /// When the session ran again after its post (monotonic ns).
    pub resumed_ns: u64,
}

/// A session's commits in one use (generation) of one log file. A
/// session commits in order and the writer uses the files in order, so
/// these commits are the contiguous sequence numbers `first..=last`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    /// The file's use count when written.
    pub gen: u32,
    /// First commit in it (0: none).
    pub first: u64,
    /// Last commit in it.
    pub last: u64,
}

impl Span {
    /// Commits in the span.
    pub fn len(&self) -> u64 {
        if self.first == 0 {
            0
        } else {
            self.last - self.first + 1
        }
    }

    /// Whether the span holds no commit.
    pub fn is_empty(&self) -> bool {
        self.first == 0
    }
}

/// What verification needs to know of a session's commits, in constant
/// memory: per log file the span of its latest use, and how many commits
/// went to uses of a file that a later use overwrote.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// Per log file.
    pub per_file: Vec<Span>,
    /// Commits in file uses already replaced by a later use.
    pub overwritten: u64,
}

impl Spans {
    /// No commits yet, `files` log files.
    pub fn new(files: u32) -> Self {
        Self {
            per_file: vec![Span::default(); files as usize],
            overwritten: 0,
        }
    }

    /// Notes that commit `pos.seq` went to `pos.file` in use `pos.gen`.
    #[inline]
    pub fn note(&mut self, pos: &Pos) {
        let Some(s) = self.per_file.get_mut(pos.file as usize) else {
            return;
        };
        if s.is_empty() || s.gen != pos.gen {
            self.overwritten += s.len();
            *s = Span {
                gen: pos.gen,
                first: pos.seq,
                last: pos.seq,
            };
        } else {
            s.last = pos.seq;
        }
    }
}

/// One session's recordings.
#[derive(Clone)]
pub struct SessionRec {
    /// Commits completed.
    pub commits: u64,
    /// 'log file sync'.
    pub lfs: Histogram<u64>,
    /// Waiting for the writer to take the redo.
    pub wait: Histogram<u64>,
    /// The writer's I/O.
    pub io: Histogram<u64>,
    /// Posting ahead of this session.
    pub post: Histogram<u64>,
    /// Post until running again.
    pub wake: Histogram<u64>,
    /// 'log buffer space' waits.
    pub lbs: Histogram<u64>,
    /// Wall time of the session's loop, ns.
    pub elapsed_ns: u64,
    /// When the session finished (monotonic ns).
    pub end_ns: u64,
    /// The session thread's CPU.
    pub cpu: Usage,
    /// Each transaction as its client sees it, wall ns summed: with a
    /// client thread, from handing the statement over until the answer
    /// is back; without, from the start of the transaction's work until
    /// its commit returned.
    pub seen_ns: u64,
    /// Transactions in `seen_ns`.
    pub seen: u64,
    /// Where committed records went (only with verification; constant
    /// size, however long the run).
    pub spans: Option<Spans>,
    /// Every commit's position (only with [`LgwrRun::journal`]).
    ///
    /// [`LgwrRun::journal`]: super::config::LgwrRun::journal
    pub positions: Option<Vec<Pos>>,
}

impl SessionRec {
    /// Empty recordings; with `files`, spans for that many log files are
    /// kept for verification; with `positions`, room for that many commits'
    /// positions is reserved (the test journal).
    pub fn new(files: Option<u32>, positions: Option<u64>) -> Self {
        Self {
            commits: 0,
            lfs: new_histogram(),
            wait: new_histogram(),
            io: new_histogram(),
            post: new_histogram(),
            wake: new_histogram(),
            lbs: new_histogram(),
            elapsed_ns: 0,
            end_ns: 0,
            cpu: Usage::default(),
            seen_ns: 0,
            seen: 0,
            spans: files.map(Spans::new),
            positions: positions.map(|n| Vec::with_capacity(n.min(1 << 24) as usize)),
        }
    }

    /// Records one commit from its timestamps `[t_commit, t_pickup,
    /// t_io_done, t_wake, t_resumed]`, the 'log buffer space' wait before
    /// it (0: none) and where its record went.
    #[inline]
    pub fn record(&mut self, t: [u64; 5], waited: u64, pos: Pos) {
        self.commits += 1;
        self.lfs.saturating_record(t[4].saturating_sub(t[0]));
        self.wait.saturating_record(t[1].saturating_sub(t[0]));
        self.io.saturating_record(t[2].saturating_sub(t[1]));
        self.post.saturating_record(t[3].saturating_sub(t[2]));
        self.wake.saturating_record(t[4].saturating_sub(t[3]));
        if waited > 0 {
            self.lbs.saturating_record(waited);
        }
        if let Some(s) = &mut self.spans {
            s.note(&pos);
        }
        if let Some(p) = &mut self.positions {
            p.push(pos);
        }
    }

    fn merge(&mut self, o: &SessionRec) {
        self.commits += o.commits;
        for (a, b) in [
            (&mut self.lfs, &o.lfs),
            (&mut self.wait, &o.wait),
            (&mut self.io, &o.io),
            (&mut self.post, &o.post),
            (&mut self.wake, &o.wake),
            (&mut self.lbs, &o.lbs),
        ] {
            a.add(b).expect("same bounds");
        }
        self.elapsed_ns += o.elapsed_ns;
        self.cpu = self.cpu.plus(&o.cpu);
        self.seen_ns += o.seen_ns;
        self.seen += o.seen;
        // Spans belong to one round's files; a merged result keeps none.
        self.spans = None;
        self.positions = None;
    }
}

/// Buckets of the write size histogram: bucket b holds sizes in [2^(b-1), 2^b).
pub const SIZE_BUCKETS: usize = 40;

/// Switches kept in the result.
pub const KEPT_SWITCHES: usize = 64;

/// The writer's recordings.
#[derive(Clone)]
pub struct WriterRec {
    /// Writes.
    pub writes: u64,
    /// 'log file parallel write'.
    pub lfpw: Histogram<u64>,
    /// Padded write sizes on power-of-two buckets.
    pub sizes: [u64; SIZE_BUCKETS],
    /// Writes per number of commits covered (index = commits).
    pub cpw: Vec<u64>,
    /// Redo bytes.
    pub redo: u64,
    /// Padding bytes.
    pub wastage: u64,
    /// Log switches.
    pub n_switches: u64,
    /// The first switches.
    pub switches: Vec<LogSwitch>,
    /// commit_delay sleeps.
    pub delays: u64,
    /// Time the idle writer watched the log buffer before sleeping, ns.
    pub idle_watch_ns: u64,
    /// Use count of each log file at the end (generation of its content).
    pub uses: Vec<u32>,
    /// Where the writer stood at the end: file and offset.
    pub end: (u32, u64),
    /// The writer thread's CPU.
    pub cpu: Usage,
    /// With the out-of-order null engine and verification: when the
    /// engine handed back each write (per member), in that order.
    pub null_journal: Vec<NullDone>,
    /// CPUs the writer thread may run on, read back after its placement.
    pub cpus: Vec<u32>,
    /// Leader protocol: CPU the leaders spent in flushes, every stage's,
    /// ns (None under the log writer).
    pub flush_cpu_ns: Option<u64>,
    /// With `cpu_includes_commit_path`: the sessions' CPU outside their
    /// burns and the commits it covers ([`super::cpu::CpuAccount`]).
    pub session_path: Option<(u64, u64)>,
    /// The same for the client threads and their round trips.
    pub client_path: Option<(u64, u64)>,
}

impl WriterRec {
    /// Empty recordings for `sessions` sessions and `files` log files.
    pub fn new(sessions: u32, files: u32) -> Self {
        let mut uses = vec![0; files as usize];
        uses[0] = 1;
        Self {
            writes: 0,
            lfpw: new_histogram(),
            sizes: [0; SIZE_BUCKETS],
            cpw: vec![0; sessions as usize + 1],
            redo: 0,
            wastage: 0,
            n_switches: 0,
            switches: Vec::with_capacity(KEPT_SWITCHES),
            delays: 0,
            idle_watch_ns: 0,
            uses,
            end: (0, 0),
            cpu: Usage::default(),
            null_journal: Vec::new(),
            cpus: Vec::new(),
            flush_cpu_ns: None,
            session_path: None,
            client_path: None,
        }
    }

    /// Records one completed write.
    #[inline]
    pub fn record_write(&mut self, lfpw_ns: u64, redo: u64, padded: u64, commits: usize) {
        self.writes += 1;
        self.lfpw.saturating_record(lfpw_ns);
        self.redo += redo;
        self.wastage += padded - redo;
        let b = (64 - padded.leading_zeros()) as usize;
        self.sizes[b.min(SIZE_BUCKETS - 1)] += 1;
        if let Some(c) = self.cpw.get_mut(commits) {
            *c += 1;
        }
    }

    fn merge(&mut self, o: &WriterRec) {
        self.writes += o.writes;
        self.lfpw.add(&o.lfpw).expect("same bounds");
        for (a, b) in self.sizes.iter_mut().zip(o.sizes.iter()) {
            *a += b;
        }
        if self.cpw.len() < o.cpw.len() {
            self.cpw.resize(o.cpw.len(), 0);
        }
        for (a, b) in self.cpw.iter_mut().zip(o.cpw.iter()) {
            *a += b;
        }
        self.redo += o.redo;
        self.wastage += o.wastage;
        self.n_switches += o.n_switches;
        for s in &o.switches {
            if self.switches.len() < KEPT_SWITCHES {
                self.switches.push(*s);
            }
        }
        self.delays += o.delays;
        if self.cpus.is_empty() {
            self.cpus = o.cpus.clone();
        }
        self.idle_watch_ns += o.idle_watch_ns;
        self.cpu = self.cpu.plus(&o.cpu);
        add_opt(&mut self.flush_cpu_ns, o.flush_cpu_ns);
        add_pair(&mut self.session_path, o.session_path);
        add_pair(&mut self.client_path, o.client_path);
    }
}

/// Everything one configuration measured (one round, or rounds merged).
#[derive(Clone)]
pub struct Measured {
    /// Measured wall time, ns (summed over rounds).
    pub runtime_ns: u64,
    /// Commits per second of each round.
    pub round_tps: Vec<f64>,
    /// Per-session recordings.
    pub sessions: Vec<SessionRec>,
    /// The writer's recordings.
    pub writer: WriterRec,
    /// /proc/self/io read_bytes over the run.
    pub proc_read_bytes: u64,
    /// /proc/self/io write_bytes over the run.
    pub proc_write_bytes: u64,
    /// The log disk's counters over the run.
    pub disk: Option<DiskStatsDelta>,
    /// Read-back result.
    pub verify: Option<VerifyResult>,
    /// Per-second samples of the probes (rounds end to end).
    pub ticks: Vec<Tick>,
    /// The later stages of a pipelined commit, in order (empty without
    /// `--pipeline`).
    pub stages: Vec<StageRec>,
}

fn add_opt(a: &mut Option<u64>, b: Option<u64>) {
    *a = match (*a, b) {
        (Some(x), Some(y)) => Some(x + y),
        (x, y) => x.or(y),
    };
}

fn add_pair(a: &mut Option<(u64, u64)>, b: Option<(u64, u64)>) {
    *a = match (*a, b) {
        (Some(x), Some(y)) => Some((x.0 + y.0, x.1 + y.1)),
        (x, y) => x.or(y),
    };
}

/// Mean of a (total, count) pair; None without a count.
fn per_unit(p: Option<(u64, u64)>) -> Option<f64> {
    p.filter(|&(_, n)| n > 0).map(|(t, n)| t as f64 / n as f64)
}

fn add_disk(a: &mut DiskStatsDelta, b: &DiskStatsDelta) {
    a.reads += b.reads;
    a.read_merges += b.read_merges;
    a.read_sectors += b.read_sectors;
    a.read_ms += b.read_ms;
    a.writes += b.writes;
    a.write_merges += b.write_merges;
    a.write_sectors += b.write_sectors;
    a.write_ms += b.write_ms;
    a.io_ms += b.io_ms;
    a.queue_ms += b.queue_ms;
    add_opt(&mut a.flushes, b.flushes);
    add_opt(&mut a.flush_ms, b.flush_ms);
}

impl Measured {
    /// Commits over all sessions.
    pub fn commits(&self) -> u64 {
        self.sessions.iter().map(|s| s.commits).sum()
    }

    /// Adds another round of the same configuration.
    pub fn merge(&mut self, o: &Measured) {
        let offset_s = self.ticks.last().map_or(0.0, |t| t.t_s);
        series::append(&mut self.ticks, &o.ticks, offset_s);
        self.runtime_ns += o.runtime_ns;
        self.round_tps.extend_from_slice(&o.round_tps);
        for (a, b) in self.sessions.iter_mut().zip(o.sessions.iter()) {
            a.merge(b);
        }
        self.writer.merge(&o.writer);
        for (a, b) in self.stages.iter_mut().zip(o.stages.iter()) {
            a.writes += b.writes;
            a.commits += b.commits;
            a.lat.add(&b.lat).expect("same bounds");
        }
        self.proc_read_bytes += o.proc_read_bytes;
        self.proc_write_bytes += o.proc_write_bytes;
        match (&mut self.disk, &o.disk) {
            (Some(a), Some(b)) => add_disk(a, b),
            (a @ None, Some(b)) => *a = Some(b.clone()),
            _ => {}
        }
        match (&mut self.verify, &o.verify) {
            (Some(a), Some(b)) => {
                a.checked += b.checked;
                a.overwritten += b.overwritten;
                a.bad += b.bad;
                if a.first_bad.is_none() {
                    a.first_bad = b.first_bad.clone();
                }
            }
            (a @ None, Some(b)) => *a = Some(b.clone()),
            _ => {}
        }
    }

    fn merged(&self, f: fn(&SessionRec) -> &Histogram<u64>) -> LatencySummary {
        let mut h = new_histogram();
        for s in &self.sessions {
            h.add(f(s)).expect("same bounds");
        }
        LatencySummary::from_histogram(&h)
    }

    fn cpu(&self, u: &Usage, per: u64) -> CpuUsage {
        CpuUsage {
            user_ns: u.user_ns,
            system_ns: u.system_ns,
            voluntary_cs: u.nvcsw,
            involuntary_cs: u.nivcsw,
            per_io_ns: (u.user_ns + u.system_ns) as f64 / per.max(1) as f64,
            utilisation: (u.user_ns + u.system_ns) as f64 / self.runtime_ns.max(1) as f64,
        }
    }

    /// The result model of this measurement of `run`, which ran `rounds`
    /// times (its configuration is echoed as it is).
    pub fn summarize(&self, name: &str, run: &super::LgwrRun, rounds: u32) -> LgwrResult {
        let secs = self.runtime_ns.max(1) as f64 / 1e9;
        let commits = self.commits();
        let sessions = self
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let any = s.commits > 0;
                SessionLine {
                    id: i as u32 + 1,
                    commits: s.commits,
                    min_ns: if any { s.lfs.min() } else { 0 },
                    max_ns: if any { s.lfs.max() } else { 0 },
                    mean_ns: if any { s.lfs.mean() } else { 0.0 },
                    tps: s.commits as f64 / (s.elapsed_ns.max(1) as f64 / 1e9),
                }
            })
            .collect();
        let session_usage = self
            .sessions
            .iter()
            .fold(Usage::default(), |a, s| a.plus(&s.cpu));
        let w = &self.writer;
        let write_sizes = w
            .sizes
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(b, &c)| SizeBucket {
                from_bytes: if b == 0 { 0 } else { 1 << (b - 1) },
                below_bytes: 1 << b,
                count: c,
            })
            .collect();
        let last = w.cpw.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        let per_commit = |n: u64| (commits > 0).then(|| n as f64 / commits as f64);
        let disk = self.disk.as_ref();
        LgwrResult {
            name: name.to_string(),
            config: run.config.clone(),
            target: run.target(),
            rounds,
            runtime_ns: self.runtime_ns,
            commits,
            tps: commits as f64 / secs,
            round_tps: self.round_tps.clone(),
            log_file_sync: self.merged(|s| &s.lfs),
            client_seen_mean_ns: {
                let (ns, n) = self
                    .sessions
                    .iter()
                    .fold((0, 0), |(ns, n), s| (ns + s.seen_ns, n + s.seen));
                (n > 0).then(|| ns as f64 / n as f64)
            },
            breakdown: CommitBreakdown {
                wait_for_writer: self.merged(|s| &s.wait),
                writer_io: self.merged(|s| &s.io),
                posting: self.merged(|s| &s.post),
                wake_up: self.merged(|s| &s.wake),
            },
            log_buffer_space: self.merged(|s| &s.lbs),
            sessions,
            writer: WriterStats {
                writes: w.writes,
                writes_per_sec: w.writes as f64 / secs,
                log_file_parallel_write: LatencySummary::from_histogram(&w.lfpw),
                commits_per_write: commits as f64 / w.writes.max(1) as f64,
                max_commits_per_write: last.saturating_sub(1) as u64,
                commits_per_write_counts: w.cpw[..last].to_vec(),
                redo_bytes: w.redo,
                wastage_bytes: w.wastage,
                written_bytes: w.redo + w.wastage,
                write_sizes,
                log_switches: w.n_switches,
                switches: w.switches.clone(),
                commit_delays: w.delays,
                idle_watch_ns: w.idle_watch_ns,
                cpu: self.cpu(&w.cpu, w.writes),
                cpus: w.cpus.clone(),
                flush_cpu_per_commit_ns: w.flush_cpu_ns.map(|ns| ns as f64 / commits.max(1) as f64),
                session_path_cpu_per_commit_ns: per_unit(w.session_path),
                client_path_cpu_per_commit_ns: per_unit(w.client_path),
            },
            session_cpu: self.cpu(&session_usage, commits),
            io: IoEvidence {
                proc_read_bytes: self.proc_read_bytes,
                proc_write_bytes: self.proc_write_bytes,
                device_writes_per_commit: disk.and_then(|d| per_commit(d.writes)),
                device_flushes_per_commit: disk.and_then(|d| d.flushes).and_then(per_commit),
                device_reads_per_commit: disk.and_then(|d| per_commit(d.reads)),
                device: self.disk.clone(),
            },
            verify: self.verify.clone(),
            per_second: self.per_second(),
            stages: self
                .stages
                .iter()
                .map(|st| StageStats {
                    writes: st.writes,
                    commits_per_write: st.commits as f64 / st.writes.max(1) as f64,
                    write_sync: LatencySummary::from_histogram(&st.lat),
                })
                .collect(),
        }
    }

    /// The per-second series: TPS, 'log file sync' p50 and p99, the
    /// writer's writes per second and commits per write.
    fn per_second(&self) -> Vec<Series> {
        let t = &self.ticks;
        if t.is_empty() {
            return Vec::new();
        }
        vec![
            series::series_of(t, "tps", SeriesUnit::PerSecond, |t| {
                Some(t.rate(PROBE_COMMITS))
            }),
            series::series_of(t, "log_file_sync_p50", SeriesUnit::Ns, |t| {
                t.quantile(0.5).map(|v| v as f64)
            }),
            series::series_of(t, "log_file_sync_p99", SeriesUnit::Ns, |t| {
                t.quantile(0.99).map(|v| v as f64)
            }),
            series::series_of(t, "writes_per_s", SeriesUnit::PerSecond, |t| {
                Some(t.rate(PROBE_WRITES))
            }),
            series::series_of(t, "commits_per_write", SeriesUnit::Ratio, |t| {
                (t.counts[PROBE_WRITES] > 0)
                    .then(|| t.counts[PROBE_COVERED] as f64 / t.counts[PROBE_WRITES] as f64)
            }),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds' device deltas add up field by field; a flush figure known in
    /// only one round stays known.
    #[test]
    fn device_deltas_of_rounds_add_up_field_by_field() {
        // Field i of d(k) is k + i: every field of a sum is distinct.
        let d = |k: u64| DiskStatsDelta {
            device: "vda".into(),
            reads: k,
            read_merges: k + 1,
            read_sectors: k + 2,
            read_ms: k + 3,
            writes: k + 4,
            write_merges: k + 5,
            write_sectors: k + 6,
            write_ms: k + 7,
            io_ms: k + 8,
            queue_ms: k + 9,
            flushes: Some(k + 10),
            flush_ms: None,
        };
        let mut a = d(100);
        let b = DiskStatsDelta {
            flush_ms: Some(7),
            ..d(1000)
        };
        add_disk(&mut a, &b);
        let sum = |i: u64| 1100 + 2 * i;
        let got = [
            a.reads,
            a.read_merges,
            a.read_sectors,
            a.read_ms,
            a.writes,
            a.write_merges,
            a.write_sectors,
            a.write_ms,
            a.io_ms,
            a.queue_ms,
        ];
        for (i, g) in got.into_iter().enumerate() {
            assert_eq!(g, sum(i as u64), "field {i}");
        }
        assert_eq!(a.flushes, Some(sum(10)));
        assert_eq!(a.flush_ms, Some(7));
    }
}
