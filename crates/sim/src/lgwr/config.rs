//! What a log-writer run does, and the checks that refuse an impossible
//! configuration with one sentence before any file is touched.

pub use dbio_model::lgwr::{
    LgwrConfig, Method, Protocol, RedoSize, SKEWED_EXP_MEAN, SKEWED_MAX, SKEWED_MIN,
};
use dbio_model::units::format_bytes;
use std::path::PathBuf;

/// Size of the redo record header (see [`crate::lgwr::record`]).
pub const HEADER_BYTES: u64 = 32;
/// The largest log buffer (a sane bound: real log buffers are a few MiB to a few hundred).
pub const MAX_LOG_BUFFER: u64 = 1 << 30;

/// The sync that follows each write of `method`.
pub fn sync_op(method: Method) -> dbio_engine::engines::SyncOp {
    use dbio_engine::engines::SyncOp;
    match method {
        Method::DirectDsync | Method::BufferedDsync => SyncOp::None,
        Method::DirectFdatasync
        | Method::BufferedFdatasync
        | Method::UringFdatasync
        | Method::AioFdatasync => SyncOp::Fdatasync,
        Method::BufferedFsync => SyncOp::Fsync,
    }
}

/// Draws one record size of `redo` (no allocation).
#[inline]
pub fn sample(redo: &RedoSize, rng: &mut fastrand::Rng) -> u64 {
    match *redo {
        RedoSize::Fixed(n) => n,
        RedoSize::Uniform(lo, hi) => rng.u64(lo..=hi),
        RedoSize::Skewed => {
            // Inverse transform of an exponential; 1 - u is in (0, 1].
            let e = -(1.0 - rng.f64()).ln() * SKEWED_EXP_MEAN;
            (SKEWED_MIN + e as u64).min(SKEWED_MAX)
        }
    }
}

/// A configuration resolved for running: the configuration the result
/// records, and what only says where and how this process runs it (the
/// log directory, read-back, the test journal, keeping the files), which
/// is not part of what was measured.
#[derive(Debug, Clone)]
pub struct LgwrRun {
    /// What runs (echoed into the result as it is).
    pub config: LgwrConfig,
    /// Directory for the log files (temporary files, removed after the run).
    pub dir: PathBuf,
    /// `dir` opened once for the whole run (every probe and file is made
    /// relative to it); None: opened when the files are checked and made.
    pub scratch: Option<dbio_engine::scratch::ScratchDir>,
    /// Read every committed record back after the run (constant memory:
    /// per session and log file, the span of commits it holds).
    pub verify: bool,
    /// Keep every commit's position and when its session ran again, and the
    /// out-of-order null engine's completion journal: evidence for tests of
    /// the posting order. Grows by about 48 B per commit and per write, so
    /// no command-line option sets it.
    pub journal: bool,
    /// Keep the log files after the run.
    pub keep: bool,
}

impl Default for LgwrRun {
    fn default() -> Self {
        Self {
            config: LgwrConfig::default(),
            dir: PathBuf::from("."),
            scratch: None,
            verify: false,
            journal: false,
            keep: false,
        }
    }
}

impl LgwrRun {
    /// Whether the run does real I/O.
    pub fn real_io(&self) -> bool {
        self.config.real_io()
    }

    /// The log directory as opened for this run: the one opened at its
    /// start, or (for a caller that opened none) opened now.
    pub fn scratch_dir(
        &self,
    ) -> Result<dbio_engine::scratch::ScratchDir, dbio_engine::EngineError> {
        match &self.scratch {
            Some(d) => Ok(d.clone()),
            None => dbio_engine::scratch::ScratchDir::open(&self.dir),
        }
    }

    /// The directory as the result records it.
    pub fn target(&self) -> String {
        if self.real_io() {
            self.dir.display().to_string()
        } else {
            "(null engine: no files)".into()
        }
    }
}

/// Rounds `n` up to a multiple of `bs`.
#[inline]
pub fn round_up(n: u64, bs: u64) -> u64 {
    n.div_ceil(bs) * bs
}

/// Memory a run allocates, bytes: the log buffer, the writer's
/// buffers, a buffer per later stage of a pipelined commit, each
/// session's payload pattern.
pub fn planned_memory(c: &LgwrConfig) -> u64 {
    let pattern = super::record::PATTERN_WINDOW as u64 + c.redo_size.max();
    c.log_buffer_bytes
        + u64::from(c.async_depth + super::files::stage_files(c)) * c.max_write_bytes
        + u64::from(c.sessions) * pattern
}

/// What the leader protocol cannot do: the flush runs in whichever
/// session leads, one write at a time, so there is no writer thread to
/// place and no ring that one thread owns.
fn leader_fits(c: &LgwrConfig) -> Result<(), String> {
    if c.method.asynchronous() {
        return Err(format!(
            "--protocol leader flushes in the committing session with synchronous writes, as PostgreSQL and InnoDB do: --method {} needs the log writer (--protocol writer)",
            c.method.name()
        ));
    }
    if c.async_depth > 1 {
        return Err("--protocol leader writes one group at a time: --async-depth must be 1".into());
    }
    let placed = [
        (c.writer_cpu.is_some(), "--writer-cpu"),
        (c.writer_nice.is_some(), "--writer-nice"),
        (c.writer_fifo.is_some(), "--writer-fifo"),
        (c.post_spin_ns > 0, "--post-spin"),
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
pub fn validate(c: &LgwrConfig) -> Result<(), String> {
    let bs = c.bs;
    if c.sessions == 0 {
        return Err("--sessions must be at least 1: a log writer needs someone to commit".into());
    }
    if c.sessions > 4096 {
        return Err(format!("--sessions {} is more than 4096", c.sessions));
    }
    match (c.commits_per_session, c.runtime_ns) {
        (Some(0), _) => return Err("--commits must be at least 1".into()),
        (None, None) => return Err("give --commits or --runtime".into()),
        (None, Some(0)) => return Err("--runtime must be above 0".into()),
        _ => {}
    }
    if !bs.is_power_of_two() || bs > 65536 {
        return Err(format!(
                "--bs {bs} is not a power of two of at most 64 KiB (databases use 512 B or 4 KiB redo blocks)"
            ));
    }
    if c.real_io() && c.method.direct() && !bs.is_multiple_of(512) {
        return Err(format!(
                "O_DIRECT cannot write {bs}-byte redo blocks: it needs multiples of 512 B; use --bs 512 or 4k, or a buffered method"
            ));
    }
    if c.max_write_bytes < bs
        || !c.max_write_bytes.is_multiple_of(bs)
        || c.max_write_bytes > 64 << 20
    {
        return Err(format!(
            "--max-write {} must be a multiple of the {bs}-byte redo block of at most 64 MiB",
            format_bytes(c.max_write_bytes)
        ));
    }
    let (rmin, rmax) = (c.redo_size.min(), c.redo_size.max());
    if rmin < 64 {
        return Err(format!(
                "redo records of {rmin} B are too small: each carries a {HEADER_BYTES}-byte header, so use at least 64 B"
            ));
    }
    if round_up(rmax, bs) > c.max_write_bytes {
        return Err(format!(
            "a redo record of up to {} does not fit in one write of --max-write {}",
            format_bytes(rmax),
            format_bytes(c.max_write_bytes)
        ));
    }
    if c.log_buffer_bytes > MAX_LOG_BUFFER {
        return Err(format!(
            "--log-buffer {} is more than {}",
            format_bytes(c.log_buffer_bytes),
            format_bytes(MAX_LOG_BUFFER)
        ));
    }
    if c.log_buffer_bytes < 2 * rmax {
        return Err(format!(
            "--log-buffer {} must hold at least two of the largest redo records ({} each)",
            format_bytes(c.log_buffer_bytes),
            format_bytes(rmax)
        ));
    }
    if c.files == 0 || c.files > 64 {
        return Err("--files must be between 1 and 64".into());
    }
    if c.members == 0 || c.members > 8 {
        return Err("--members must be between 1 and 8".into());
    }
    if c.file_size < c.max_write_bytes {
        return Err(format!(
                "a log file of {} is smaller than the largest log write (--max-write {}); use a larger --file-size or a smaller --max-write",
                format_bytes(c.file_size),
                format_bytes(c.max_write_bytes)
            ));
    }
    if !c.file_size.is_multiple_of(bs) {
        return Err(format!(
            "--file-size {} is not a multiple of the {bs}-byte redo block",
            format_bytes(c.file_size)
        ));
    }
    if c.async_depth == 0 || c.async_depth > 64 {
        return Err("--async-depth must be between 1 and 64".into());
    }
    if c.async_depth > 1 && c.real_io() && !c.method.asynchronous() {
        return Err(format!(
                "--async-depth {} needs --method uring-fdatasync or aio-fdatasync: only io_uring and native AIO keep several log writes in flight",
                c.async_depth
            ));
    }
    if c.protocol == Protocol::Leader {
        leader_fits(c)?;
    }
    if !(1..=4).contains(&c.syncs_per_flush) {
        return Err("--syncs-per-flush must be between 1 and 4".into());
    }
    if c.syncs_per_flush > 1 && (c.async_depth > 1 || (c.real_io() && c.method.uring())) {
        return Err(format!(
            "--syncs-per-flush {} makes its durable writes one after the other: it needs --async-depth 1 and a synchronous --method (not uring-fdatasync)",
            c.syncs_per_flush
        ));
    }
    if c.stage_append && !c.pipeline {
        return Err("--stage-append says how the later stages of a pipelined commit write: it needs --pipeline".into());
    }
    if c.pipeline {
        if c.protocol != Protocol::Leader {
            return Err("--pipeline makes each durable write a group commit with a leader of its own: it needs --protocol leader".into());
        }
        if c.syncs_per_flush < 2 {
            return Err("--pipeline needs --syncs-per-flush 2 or more: each durable write of a commit is one stage".into());
        }
    }
    if c.cpu_includes_commit_path && c.protocol != Protocol::Leader {
        return Err("--cpu-includes-commit-path takes the sessions' own commit-path CPU, flushes included, off --txn-cpu: it needs --protocol leader (a log writer flushes on a thread of its own)".into());
    }
    if c.txn_cpu_ns > 1_000_000_000 {
        return Err("--txn-cpu above 1 s makes no commit workload".into());
    }
    if c.client_cpu_ns > 1_000_000_000 {
        return Err("--client-cpu above 1 s makes no commit workload".into());
    }
    if c.think_time_ns > 10_000_000_000 {
        return Err("--think-time above 10 s makes no commit workload".into());
    }
    if c.post_spin_ns > 1_000_000 {
        return Err("--post-spin above 1 ms would burn a CPU per waiting session".into());
    }
    if c.commit_delay_ns > 100_000_000 {
        return Err(
            "--commit-delay above 100 ms is not a commit delay (PostgreSQL allows up to 100 ms)"
                .into(),
        );
    }
    if let Some(c) = c.writer_cpu {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        if c >= n {
            return Err(format!(
                "--writer-cpu {c} does not exist: this machine has CPUs 0..{}",
                n - 1
            ));
        }
    }
    let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    if let Some(c) = c.session_cpus.iter().find(|&&c| c >= ncpu) {
        return Err(format!(
            "--session-cpus names CPU {c}, but this machine has CPUs 0..{}",
            ncpu - 1
        ));
    }
    if let Some(p) = c.writer_fifo {
        if !(1..=99).contains(&p) {
            return Err("--writer-fifo takes a SCHED_FIFO priority between 1 and 99".into());
        }
    }
    if let Some(n) = c.writer_nice {
        if !(-20..=19).contains(&n) {
            return Err("--writer-nice takes a nice value between -20 and 19".into());
        }
    }
    Ok(())
}

impl LgwrRun {
    /// This run with one `--compare` item applied (`direct+bs=4k`): a bare
    /// word is a method, every `key=value` edits the configuration, except
    /// `dir`, which says where the run goes. The error is one sentence that
    /// names the item.
    pub fn with_compare_item(&self, item: &str) -> Result<LgwrRun, String> {
        use dbio_model::units::{parse_duration, parse_size, seconds_to_ns, DELAY};
        let bad = |e: String| format!("--compare item '{item}': {e}");
        let num = |v: &str| {
            v.parse::<u32>()
                .map_err(|_| bad(format!("'{v}' is not a number")))
        };
        let delay_ns = |v: &str| parse_duration(v, DELAY).map(seconds_to_ns).map_err(bad);
        let mut c = self.config.clone();
        let mut dir = self.dir.clone();
        for tok in item.split('+').map(str::trim).filter(|t| !t.is_empty()) {
            let Some((k, v)) = tok.split_once('=') else {
                c.method = Method::from_name(tok).map_err(bad)?;
                continue;
            };
            match k {
                "bs" | "block" | "block-size" => c.bs = parse_size(v).map_err(bad)?,
                "sessions" => c.sessions = num(v)?,
                "members" => c.members = num(v)?,
                "async" => c.async_depth = num(v)?,
                "files" => c.files = num(v)?,
                "method" => c.method = Method::from_name(v).map_err(bad)?,
                "protocol" => c.protocol = Protocol::from_name(v).map_err(bad)?,
                "prepare" => c.prepare = dbio_model::Prepare::from_name(v).map_err(bad)?,
                "dir" => dir = PathBuf::from(v),
                "redo" => c.redo_size = RedoSize::parse(v).map_err(bad)?,
                "delay" => c.commit_delay_ns = delay_ns(v)?,
                "siblings" => c.commit_siblings = num(v)?,
                "spin" => c.post_spin_ns = delay_ns(v)?,
                "null-delay" => c.null_delay_ns = Some(delay_ns(v)?),
                _ => return Err(bad(format!("unknown key '{k}'"))),
            }
        }
        Ok(LgwrRun {
            config: c,
            dir,
            // Opened for the run once every configuration is known.
            scratch: None,
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skewed_mean_is_about_2700_bytes() {
        let mut rng = fastrand::Rng::with_seed(1);
        let n = 200_000;
        let sum: u64 = (0..n).map(|_| sample(&RedoSize::Skewed, &mut rng)).sum();
        let mean = sum as f64 / n as f64;
        // Capping at 32 KiB removes e^-12.3 of the mass: negligible.
        assert!((mean - 2700.0).abs() < 40.0, "{mean}");
    }

    #[test]
    fn refuses_bad_input_with_one_sentence() {
        let ok = LgwrConfig::default();
        assert!(validate(&ok).is_ok());
        let e = validate(&LgwrConfig {
            sessions: 0,
            ..ok.clone()
        })
        .unwrap_err();
        assert!(e.contains("--sessions"), "{e}");
        let e = validate(&LgwrConfig {
            bs: 256,
            ..ok.clone()
        })
        .unwrap_err();
        assert!(e.contains("O_DIRECT cannot write 256-byte"), "{e}");
        let e = validate(&LgwrConfig {
            file_size: 512 << 10,
            ..ok.clone()
        })
        .unwrap_err();
        assert!(e.contains("smaller than the largest log write"), "{e}");
        let e = validate(&LgwrConfig {
            async_depth: 4,
            ..ok
        })
        .unwrap_err();
        assert!(e.contains("uring"), "{e}");
    }

    /// Every `--compare` key edits its field of the configuration (and
    /// nothing else); `dir` says where the run goes instead.
    #[test]
    fn compare_items_edit_the_configuration_by_key() {
        let base = LgwrRun::default();
        let item = "buffered+bs=4k+sessions=3+members=2+files=4+async=2+prepare=fallocate+redo=8k+delay=100us+siblings=2+spin=5us+null-delay=1ms+dir=/elsewhere";
        let r = base.with_compare_item(item).unwrap();
        let want = LgwrConfig {
            method: Method::BufferedDsync,
            bs: 4096,
            sessions: 3,
            members: 2,
            files: 4,
            async_depth: 2,
            prepare: dbio_model::Prepare::Fallocate,
            redo_size: RedoSize::Fixed(8192),
            commit_delay_ns: 100_000,
            commit_siblings: 2,
            post_spin_ns: 5_000,
            null_delay_ns: Some(1_000_000),
            ..base.config.clone()
        };
        assert_eq!(r.config, want);
        assert_eq!(r.dir, PathBuf::from("/elsewhere"));
        assert_eq!(
            base.with_compare_item("method=uring")
                .unwrap()
                .config
                .method,
            Method::UringFdatasync
        );
        let e = base.with_compare_item("bs=4k+colour=red").unwrap_err();
        assert_eq!(e, "--compare item 'bs=4k+colour=red': unknown key 'colour'");
    }
}
