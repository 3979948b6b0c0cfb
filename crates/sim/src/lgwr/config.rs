//! What a log-writer run does, and the checks that refuse an impossible
//! configuration with one sentence before any file is touched.

use dbio_model::lgwr::Protocol;
use dbio_model::units::{format_bytes, parse_size};
use dbio_model::Prepare;
use std::path::PathBuf;

/// Size of the redo record header (see [`crate::lgwr::record`]).
pub const HEADER_BYTES: u64 = 32;
/// The largest log buffer (a sane bound: real log buffers are a few MiB to a few hundred).
pub const MAX_LOG_BUFFER: u64 = 1 << 30;

/// How the writer makes a log write durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// O_DIRECT + O_DSYNC: Oracle's LGWR with `filesystemio_options=setall`,
    /// PostgreSQL `open_datasync` with direct I/O.
    DirectDsync,
    /// O_DIRECT writes, then fdatasync (MariaDB `innodb_flush_method=O_DIRECT`).
    DirectFdatasync,
    /// Buffered writes, then fdatasync (PostgreSQL's Linux default).
    BufferedFdatasync,
    /// Buffered writes opened O_DSYNC (Oracle without direct I/O: the
    /// `noforcedirectio` mount of "Analyzing Oracle Logwriter w/ buffered
    /// vs. direct I/O"; PostgreSQL `open_datasync` without direct I/O).
    BufferedDsync,
    /// Buffered writes, then fsync (PostgreSQL `wal_sync_method=fsync`).
    BufferedFsync,
    /// O_DIRECT write submitted through io_uring, linked to an fdatasync.
    UringFdatasync,
}

impl Method {
    /// Every method, in the order `dbio check` compares them.
    pub const ALL: [Method; 6] = [
        Method::DirectDsync,
        Method::DirectFdatasync,
        Method::BufferedFdatasync,
        Method::BufferedDsync,
        Method::BufferedFsync,
        Method::UringFdatasync,
    ];

    /// The method's name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Method::DirectDsync => "direct-dsync",
            Method::DirectFdatasync => "direct-fdatasync",
            Method::BufferedFdatasync => "buffered-fdatasync",
            Method::BufferedDsync => "buffered-dsync",
            Method::BufferedFsync => "buffered-fsync",
            Method::UringFdatasync => "uring-fdatasync",
        }
    }

    /// Parses a name; `direct` and `buffered` are the pair compared in
    /// "Analyzing Oracle Logwriter w/ buffered vs. direct I/O" (both
    /// O_DSYNC, as Oracle's log writer opens its files).
    pub fn parse(s: &str) -> Option<Method> {
        match s {
            "direct" => Some(Method::DirectDsync),
            "buffered" => Some(Method::BufferedDsync),
            "uring" | "io_uring" => Some(Method::UringFdatasync),
            _ => Method::ALL.into_iter().find(|m| m.name() == s),
        }
    }

    /// Whether the log files are opened with O_DIRECT.
    pub fn direct(self) -> bool {
        matches!(
            self,
            Method::DirectDsync | Method::DirectFdatasync | Method::UringFdatasync
        )
    }

    /// Whether the log files are opened with O_DSYNC.
    pub fn dsync(self) -> bool {
        matches!(self, Method::DirectDsync | Method::BufferedDsync)
    }

    /// The sync that follows each write.
    pub fn sync_op(self) -> dbio_engine::engines::SyncOp {
        use dbio_engine::engines::SyncOp;
        match self {
            Method::DirectDsync | Method::BufferedDsync => SyncOp::None,
            Method::DirectFdatasync | Method::BufferedFdatasync | Method::UringFdatasync => {
                SyncOp::Fdatasync
            }
            Method::BufferedFsync => SyncOp::Fsync,
        }
    }

    /// Whether writes go through io_uring.
    pub fn uring(self) -> bool {
        self == Method::UringFdatasync
    }
}

/// How big each commit's redo record is (header included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RedoSize {
    /// Every record has this size.
    Fixed(u64),
    /// Uniform between the two sizes, inclusive.
    Uniform(u64, u64),
    /// The import of "Analyzing Oracle Logwriter w/ buffered vs. direct
    /// I/O" (2,734 bytes of redo per transaction): about 2.7 KB per commit
    /// on average, most records
    /// small and a long tail (256 B + an exponential of mean 2,444 B,
    /// capped at 32 KiB).
    Skewed,
}

/// Smallest record of the skewed distribution.
pub const SKEWED_MIN: u64 = 256;
/// Mean of the skewed distribution's exponential part (2,700 B mean in all).
pub const SKEWED_EXP_MEAN: f64 = 2_444.0;
/// Largest record of the skewed distribution.
pub const SKEWED_MAX: u64 = 32 * 1024;

impl RedoSize {
    /// Parses `skewed`, `8k`, `fixed:8k`, `512-8k` or `uniform:512-8k`.
    pub fn parse(s: &str) -> Result<RedoSize, String> {
        let t = s.trim();
        if t == "skewed" || t == "default" {
            return Ok(RedoSize::Skewed);
        }
        let body = t
            .strip_prefix("fixed:")
            .or_else(|| t.strip_prefix("uniform:"))
            .unwrap_or(t);
        if let Some((a, b)) = body.split_once('-') {
            let (lo, hi) = (parse_size(a)?, parse_size(b)?);
            if lo > hi {
                return Err(format!("redo size range '{s}' runs backwards"));
            }
            return Ok(RedoSize::Uniform(lo, hi));
        }
        if t.starts_with("uniform:") {
            return Err(format!(
                "uniform redo size '{s}' needs a range, e.g. uniform:512-8k"
            ));
        }
        Ok(RedoSize::Fixed(parse_size(body)?))
    }

    /// Smallest record.
    pub fn min(&self) -> u64 {
        match *self {
            RedoSize::Fixed(n) => n,
            RedoSize::Uniform(lo, _) => lo,
            RedoSize::Skewed => SKEWED_MIN,
        }
    }

    /// Largest record.
    pub fn max(&self) -> u64 {
        match *self {
            RedoSize::Fixed(n) => n,
            RedoSize::Uniform(_, hi) => hi,
            RedoSize::Skewed => SKEWED_MAX,
        }
    }

    /// Draws one record size (no allocation).
    #[inline]
    pub fn sample(&self, rng: &mut fastrand::Rng) -> u64 {
        match *self {
            RedoSize::Fixed(n) => n,
            RedoSize::Uniform(lo, hi) => rng.u64(lo..=hi),
            RedoSize::Skewed => {
                // Inverse transform of an exponential; 1 - u is in (0, 1].
                let e = -(1.0 - rng.f64()).ln() * SKEWED_EXP_MEAN;
                (SKEWED_MIN + e as u64).min(SKEWED_MAX)
            }
        }
    }

    /// The distribution as the user would write it.
    pub fn describe(&self) -> String {
        match *self {
            RedoSize::Fixed(n) => format!("fixed:{n}"),
            RedoSize::Uniform(lo, hi) => format!("uniform:{lo}-{hi}"),
            RedoSize::Skewed => "skewed".into(),
        }
    }
}

/// One run's configuration.
#[derive(Debug, Clone)]
pub struct LgwrConfig {
    /// Directory for the log files (temporary files, removed after the run).
    pub dir: PathBuf,
    /// Committing session threads.
    pub sessions: u32,
    /// Commits per session (count-based run).
    pub commits: Option<u64>,
    /// Run time, seconds (time-based run; used when `commits` is None).
    pub runtime_s: Option<f64>,
    /// Redo record size per commit.
    pub redo_size: RedoSize,
    /// Think time between a session's commits, ns.
    pub think_time_ns: u64,
    /// CPU time each transaction burns before its commit, ns (thread CPU
    /// clock): the work a database does around the redo.
    pub txn_cpu_ns: u64,
    /// Log buffer size, bytes.
    pub log_buffer: u64,
    /// Largest log write, bytes (padding included).
    pub max_write: u64,
    /// Redo block size, bytes.
    pub block_size: u64,
    /// Durability method.
    pub method: Method,
    /// `Some(delay)`: no I/O at all, every write (and every sync) takes
    /// `delay` ns: the null engine with an injected service time.
    pub null_delay_ns: Option<u64>,
    /// Log files in the group.
    pub files: u32,
    /// Bytes per log file.
    pub file_size: u64,
    /// Mirrored members per log file, written in parallel.
    pub members: u32,
    /// Log file preparation.
    pub prepare: Prepare,
    /// Who flushes: a log-writer thread, or the first waiting session.
    pub protocol: Protocol,
    /// Log writes in flight (io_uring); 1 = the writer waits for each.
    pub async_depth: u32,
    /// PostgreSQL commit_delay, ns.
    pub commit_delay_ns: u64,
    /// PostgreSQL commit_siblings.
    pub commit_siblings: u32,
    /// Pin the writer to this CPU.
    pub writer_cpu: Option<u32>,
    /// Keep the sessions on these CPUs (empty: anywhere).
    pub session_cpus: Vec<u32>,
    /// Nice value for the writer thread.
    pub writer_nice: Option<i32>,
    /// SCHED_FIFO priority for the writer thread.
    pub writer_fifo: Option<u32>,
    /// How long a session watches for its post before it sleeps, ns
    /// (0: sleep at once; ignored on a single CPU).
    pub post_spin_ns: u64,
    /// Read every committed record back after the run (constant memory:
    /// per session and log file, the span of commits it holds).
    pub verify: bool,
    /// Keep every commit's position and when its session ran again, and the
    /// out-of-order null engine's completion journal: evidence for tests of
    /// the posting order. Grows by about 48 B per commit and per write, so
    /// no command-line option sets it.
    pub journal: bool,
    /// Seed of the redo size and payload generators.
    pub seed: u64,
    /// Keep the log files after the run.
    pub keep: bool,
}

impl Default for LgwrConfig {
    fn default() -> Self {
        Self {
            dir: PathBuf::from("."),
            sessions: 10,
            commits: None,
            runtime_s: Some(10.0),
            redo_size: RedoSize::Skewed,
            think_time_ns: 0,
            txn_cpu_ns: 0,
            log_buffer: 16 << 20,
            max_write: 1 << 20,
            block_size: 512,
            method: Method::DirectDsync,
            null_delay_ns: None,
            files: 3,
            file_size: 64 << 20,
            members: 1,
            prepare: Prepare::Prewrite,
            protocol: Protocol::Writer,
            async_depth: 1,
            commit_delay_ns: 0,
            commit_siblings: 5,
            writer_cpu: None,
            session_cpus: Vec::new(),
            writer_nice: None,
            writer_fifo: None,
            post_spin_ns: 0,
            verify: false,
            journal: false,
            seed: 0x5eed,
            keep: false,
        }
    }
}

/// Rounds `n` up to a multiple of `bs`.
#[inline]
pub fn round_up(n: u64, bs: u64) -> u64 {
    n.div_ceil(bs) * bs
}

impl LgwrConfig {
    /// Whether the run does real I/O.
    pub fn real_io(&self) -> bool {
        self.null_delay_ns.is_none()
    }

    /// Memory a run allocates, bytes: the log buffer, the writer's
    /// buffers, each session's payload pattern.
    pub fn planned_memory(&self) -> u64 {
        let pattern = super::record::PATTERN_WINDOW as u64 + self.redo_size.max();
        self.log_buffer
            + u64::from(self.async_depth) * self.max_write
            + u64::from(self.sessions) * pattern
    }

    /// What the leader protocol cannot do: the flush runs in whichever
    /// session leads, one write at a time, so there is no writer thread to
    /// place and no ring that one thread owns.
    fn leader_fits(&self) -> Result<(), String> {
        if self.method.uring() {
            return Err(format!(
                "--protocol leader flushes in the committing session with synchronous writes, as PostgreSQL and InnoDB do: --method {} needs the log writer (--protocol writer)",
                self.method.name()
            ));
        }
        if self.async_depth > 1 {
            return Err(
                "--protocol leader writes one group at a time: --async-depth must be 1".into(),
            );
        }
        let placed = [
            (self.writer_cpu.is_some(), "--writer-cpu"),
            (self.writer_nice.is_some(), "--writer-nice"),
            (self.writer_fifo.is_some(), "--writer-fifo"),
            (self.post_spin_ns > 0, "--post-spin"),
        ];
        if let Some((_, flag)) = placed.iter().find(|(set, _)| *set) {
            return Err(format!(
                "{flag} applies to the log writer and its posts, which --protocol leader does not have"
            ));
        }
        Ok(())
    }

    /// Checks everything that does not need the filesystem. The first
    /// problem comes back as one sentence.
    pub fn validate(&self) -> Result<(), String> {
        let bs = self.block_size;
        if self.sessions == 0 {
            return Err(
                "--sessions must be at least 1: a log writer needs someone to commit".into(),
            );
        }
        if self.sessions > 4096 {
            return Err(format!("--sessions {} is more than 4096", self.sessions));
        }
        match (self.commits, self.runtime_s) {
            (Some(0), _) => return Err("--commits must be at least 1".into()),
            (None, None) => return Err("give --commits or --runtime".into()),
            (None, Some(t)) if t.is_nan() || t <= 0.0 => {
                return Err("--runtime must be above 0".into())
            }
            _ => {}
        }
        if !bs.is_power_of_two() || bs > 65536 {
            return Err(format!(
                "--block-size {bs} is not a power of two of at most 64 KiB (databases use 512 B or 4 KiB redo blocks)"
            ));
        }
        if self.real_io() && self.method.direct() && !bs.is_multiple_of(512) {
            return Err(format!(
                "O_DIRECT cannot write {bs}-byte redo blocks: it needs multiples of 512 B; use --block-size 512 or 4k, or a buffered method"
            ));
        }
        if self.max_write < bs || !self.max_write.is_multiple_of(bs) || self.max_write > 64 << 20 {
            return Err(format!(
                "--max-write {} must be a multiple of the {bs}-byte redo block of at most 64 MiB",
                format_bytes(self.max_write)
            ));
        }
        let (rmin, rmax) = (self.redo_size.min(), self.redo_size.max());
        if rmin < 64 {
            return Err(format!(
                "redo records of {rmin} B are too small: each carries a {HEADER_BYTES}-byte header, so use at least 64 B"
            ));
        }
        if round_up(rmax, bs) > self.max_write {
            return Err(format!(
                "a redo record of up to {} does not fit in one write of --max-write {}",
                format_bytes(rmax),
                format_bytes(self.max_write)
            ));
        }
        if self.log_buffer > MAX_LOG_BUFFER {
            return Err(format!(
                "--log-buffer {} is more than {}",
                format_bytes(self.log_buffer),
                format_bytes(MAX_LOG_BUFFER)
            ));
        }
        if self.log_buffer < 2 * rmax {
            return Err(format!(
                "--log-buffer {} must hold at least two of the largest redo records ({} each)",
                format_bytes(self.log_buffer),
                format_bytes(rmax)
            ));
        }
        if self.files == 0 || self.files > 64 {
            return Err("--files must be between 1 and 64".into());
        }
        if self.members == 0 || self.members > 8 {
            return Err("--members must be between 1 and 8".into());
        }
        if self.file_size < self.max_write {
            return Err(format!(
                "a log file of {} is smaller than the largest log write (--max-write {}); use a larger --file-size or a smaller --max-write",
                format_bytes(self.file_size),
                format_bytes(self.max_write)
            ));
        }
        if !self.file_size.is_multiple_of(bs) {
            return Err(format!(
                "--file-size {} is not a multiple of the {bs}-byte redo block",
                format_bytes(self.file_size)
            ));
        }
        if self.async_depth == 0 || self.async_depth > 64 {
            return Err("--async-depth must be between 1 and 64".into());
        }
        if self.async_depth > 1 && self.real_io() && !self.method.uring() {
            return Err(format!(
                "--async-depth {} needs --method uring-fdatasync: only io_uring keeps several log writes in flight",
                self.async_depth
            ));
        }
        if self.protocol == Protocol::Leader {
            self.leader_fits()?;
        }
        if self.txn_cpu_ns > 1_000_000_000 {
            return Err("--txn-cpu above 1 s makes no commit workload".into());
        }
        if self.think_time_ns > 10_000_000_000 {
            return Err("--think-time above 10 s makes no commit workload".into());
        }
        if self.post_spin_ns > 1_000_000 {
            return Err("--post-spin above 1 ms would burn a CPU per waiting session".into());
        }
        if self.commit_delay_ns > 100_000_000 {
            return Err(
                "--commit-delay above 100 ms is not a commit delay (PostgreSQL allows up to 100 ms)"
                    .into(),
            );
        }
        if let Some(c) = self.writer_cpu {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
            if c >= n {
                return Err(format!(
                    "--writer-cpu {c} does not exist: this machine has CPUs 0..{}",
                    n - 1
                ));
            }
        }
        let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        if let Some(c) = self.session_cpus.iter().find(|&&c| c >= ncpu) {
            return Err(format!(
                "--session-cpus names CPU {c}, but this machine has CPUs 0..{}",
                ncpu - 1
            ));
        }
        if let Some(p) = self.writer_fifo {
            if !(1..=99).contains(&p) {
                return Err("--writer-fifo takes a SCHED_FIFO priority between 1 and 99".into());
            }
        }
        if let Some(n) = self.writer_nice {
            if !(-20..=19).contains(&n) {
                return Err("--writer-nice takes a nice value between -20 and 19".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_methods() {
        assert_eq!(RedoSize::parse("8k"), Ok(RedoSize::Fixed(8192)));
        assert_eq!(RedoSize::parse("fixed:512"), Ok(RedoSize::Fixed(512)));
        assert_eq!(
            RedoSize::parse("uniform:512-8k"),
            Ok(RedoSize::Uniform(512, 8192))
        );
        assert_eq!(RedoSize::parse("skewed"), Ok(RedoSize::Skewed));
        assert!(RedoSize::parse("8k-512").is_err());
        assert_eq!(Method::parse("direct"), Some(Method::DirectDsync));
        assert_eq!(Method::parse("buffered"), Some(Method::BufferedDsync));
        assert_eq!(Method::parse("buffered-fsync"), Some(Method::BufferedFsync));
        assert_eq!(Method::parse("nope"), None);
    }

    #[test]
    fn skewed_mean_is_about_2700_bytes() {
        let mut rng = fastrand::Rng::with_seed(1);
        let n = 200_000;
        let sum: u64 = (0..n).map(|_| RedoSize::Skewed.sample(&mut rng)).sum();
        let mean = sum as f64 / n as f64;
        // Capping at 32 KiB removes e^-12.3 of the mass: negligible.
        assert!((mean - 2700.0).abs() < 40.0, "{mean}");
    }

    #[test]
    fn refuses_bad_input_with_one_sentence() {
        let ok = LgwrConfig::default();
        assert!(ok.validate().is_ok());
        let e = LgwrConfig {
            sessions: 0,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("--sessions"), "{e}");
        let e = LgwrConfig {
            block_size: 256,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("O_DIRECT cannot write 256-byte"), "{e}");
        let e = LgwrConfig {
            file_size: 512 << 10,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("smaller than the largest log write"), "{e}");
        let e = LgwrConfig {
            async_depth: 4,
            ..ok
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("uring"), "{e}");
    }
}
