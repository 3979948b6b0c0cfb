//! The `dbio check` battery: what it runs and how much space it uses.
//!
//! Five short tests answer "is this storage good for a database?": the
//! commit latency of 8 KiB sequential log writes with the two durability
//! methods databases use most (O_DIRECT+O_DSYNC, as Oracle's LGWR and
//! PostgreSQL's `open_datasync`; buffered + fdatasync, PostgreSQL's default
//! and InnoDB's `fsync` flush method), 8 KiB random-read latency
//! ('db file sequential read'), and 1 MiB sequential write and read
//! throughput (backups, full scans, checkpoints). What the results mean
//! in words is drawn from the report by `dbio_report::findings::check`:
//! this crate measures and does not write prose about the measurement.
//!
//! After the battery come the model sections, one module each: the commit
//! path ([`commit`]), datafile reads ([`read`]) and the database writer
//! ([`writer`]); the binary runs them in turn and only keeps the result.

use dbio_engine::runner::Progress;
use dbio_engine::scratch::ScratchDir;
use dbio_model::{Durability, EngineKind, Finding, JobConfig, Pattern, Prepare, Severity};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub mod commit;
pub mod read;
pub mod writer;

/// What `dbio check` gives each of its model sections ([`commit`],
/// [`read`], [`writer`], and `dbio_load`'s database section).
pub struct Section<'a> {
    /// The checked directory, opened once for the whole run.
    pub dir: &'a ScratchDir,
    /// `dbio check`'s time per test, seconds.
    pub runtime_s: f64,
    /// The bytes the section may use (from the [`SpacePlan`]).
    pub space: u64,
    /// Raised by SIGINT, SIGTERM, SIGHUP or SIGQUIT.
    pub stop: &'a Arc<AtomicBool>,
    /// The section's one progress display (its runs are placed on it with
    /// `dbio_engine::runner::Spanned`).
    pub progress: &'a dyn Progress,
}

/// Names of the battery's jobs.
pub mod names {
    /// Log writes, O_DIRECT + O_DSYNC.
    pub const LOG_DIRECT_DSYNC: &str = "log write 8k O_DIRECT+O_DSYNC";
    /// The same job where O_DIRECT is not supported (tmpfs): its name
    /// must not claim O_DIRECT.
    pub const LOG_BUFFERED_DSYNC: &str = "log write 8k buffered+O_DSYNC";
    /// Log writes, buffered + fdatasync.
    pub const LOG_BUFFERED_FDATASYNC: &str = "log write 8k buffered+fdatasync";
    /// Random 8 KiB reads.
    pub const RANDREAD: &str = "random read 8k";
    /// Sequential 1 MiB writes.
    pub const SEQWRITE: &str = "sequential write 1m";
    /// Sequential 1 MiB reads.
    pub const SEQREAD: &str = "sequential read 1m";
}

/// Scratch space of the whole battery when `--size` is not given (or
/// half the free space, whichever is smaller).
pub const DEFAULT_SIZE: u64 = 512 << 20;
/// The least scratch space the battery can run in: the writer section's
/// buffer cache is 8 MiB, and two log files of at least 1 MiB each.
pub const MIN_SIZE: u64 = 16 << 20;
/// The read section's file at full size.
pub const READ_SIZE: u64 = 256 << 20;
/// Each of the commit section's two log files at full size.
pub const LOG_FILE_SIZE: u64 = 32 << 20;
/// The writer section's datafile at full size.
pub const WRITER_SIZE: u64 = 64 << 20;

/// How the battery uses its scratch space, planned before the first I/O.
/// The sections run one after the other and each removes its files
/// before the next starts, so each may use the whole budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpacePlan {
    /// The budget, and the size of the five tests' shared file.
    pub size: u64,
    /// The read section's file.
    pub read_size: u64,
    /// Each of the commit section's two log files.
    pub log_file_size: u64,
    /// The writer section's datafile.
    pub writer_size: u64,
    /// Plain-words notes on what was scaled down, and why.
    pub notes: Vec<String>,
}

/// Free bytes on the filesystem holding `dir`; `None` when it reports no
/// size (ramfs).
pub fn free_space(dir: &Path) -> std::io::Result<Option<u64>> {
    let st = rustix::fs::statvfs(dir)?;
    Ok((st.f_blocks > 0).then_some(st.f_bavail * st.f_frsize))
}

/// Plans the battery's space: `requested` is `--size`, `free` what the
/// filesystem has. Every section is scaled to fit within the budget, and
/// says so. Refuses (one sentence) when the budget cannot hold the battery.
pub fn plan_space(requested: Option<u64>, free: Option<u64>) -> Result<SpacePlan, String> {
    use dbio_model::units::format_bytes;
    const MIB: u64 = 1 << 20;
    let mut notes = Vec::new();
    let size = match (requested, free) {
        (Some(r), Some(f)) if r > f => {
            return Err(format!(
                "--size {} is more than the {} free here; use a smaller --size",
                format_bytes(r),
                format_bytes(f)
            ))
        }
        (Some(r), _) => r,
        (None, Some(f)) if f / 2 < DEFAULT_SIZE => {
            let s = f / 2 / MIB * MIB;
            if s >= MIN_SIZE {
                notes.push(format!(
                    "the tests used {} of scratch space, half of the {} free here",
                    format_bytes(s),
                    format_bytes(f)
                ));
            }
            s
        }
        (None, _) => DEFAULT_SIZE,
    };
    let size = size / MIB * MIB;
    if size < MIN_SIZE {
        return Err(match free {
            Some(f) if requested.is_none() => format!(
                "dbio check needs at least {} of scratch space, and only {} is free here",
                format_bytes(2 * MIN_SIZE),
                format_bytes(f)
            ),
            _ => format!(
                "--size must be at least {} for dbio check",
                format_bytes(MIN_SIZE)
            ),
        });
    }
    let plan = SpacePlan {
        size,
        read_size: READ_SIZE.min(size),
        log_file_size: LOG_FILE_SIZE.min(size / 2 / MIB * MIB),
        writer_size: WRITER_SIZE.min(size),
        notes,
    };
    let mut scaled = Vec::new();
    if plan.log_file_size < LOG_FILE_SIZE {
        scaled.push(format!(
            "the commit section used two {} log files (two {} normally)",
            format_bytes(plan.log_file_size),
            format_bytes(LOG_FILE_SIZE)
        ));
    }
    if plan.read_size < READ_SIZE {
        scaled.push(format!(
            "the read section a {} file ({} normally)",
            format_bytes(plan.read_size),
            format_bytes(READ_SIZE)
        ));
    }
    if plan.writer_size < WRITER_SIZE {
        scaled.push(format!(
            "the writer section a {} datafile ({} normally)",
            format_bytes(plan.writer_size),
            format_bytes(WRITER_SIZE)
        ));
    }
    let mut plan = plan;
    if !scaled.is_empty() {
        plan.notes.push(format!(
            "to fit within {} of scratch space, {}",
            format_bytes(size),
            scaled.join(", ")
        ));
    }
    Ok(plan)
}

/// What the battery says about where it ran before it measures: that the
/// directory (`fs_type`) takes no O_DIRECT, so every test ran buffered,
/// and what the space plan scaled down.
pub fn notes(dir: &Path, fs_type: &str, direct_ok: bool, plan: &SpacePlan) -> Vec<Finding> {
    let no_direct = (!direct_ok).then(|| {
        Finding::note(
            "check.no_direct_io",
            Severity::Warning,
            format!(
                "{} does not support O_DIRECT ({fs_type}): every test ran buffered, so the figures describe memory and the page cache, not a device",
                dir.display(),
            ),
        )
    });
    no_direct
        .into_iter()
        .chain(
            plan.notes
                .iter()
                .map(|n| Finding::note("check.scratch_plan", Severity::Notice, n.clone())),
        )
        .collect()
}

/// The battery's jobs on a file of `size` bytes, each measured for
/// `runtime_ns`; they run on a scratch file in the checked directory
/// ([`dbio_engine::JobTarget::scratch`]). Without O_DIRECT support (tmpfs), every
/// job runs buffered, and the first is named for what it does
/// ([`names::LOG_BUFFERED_DSYNC`]).
pub fn battery(runtime_ns: u64, size: u64, direct_ok: bool) -> Vec<(String, JobConfig)> {
    let base = JobConfig {
        size,
        prepare: Prepare::Prewrite,
        runtime_ns: Some(runtime_ns),
        ..JobConfig::default()
    };
    let log = JobConfig {
        rw: Pattern::Write,
        bs: 8192,
        ..base.clone()
    };
    let mut jobs = vec![
        (
            if direct_ok {
                names::LOG_DIRECT_DSYNC
            } else {
                names::LOG_BUFFERED_DSYNC
            },
            JobConfig {
                direct: direct_ok,
                sync: Durability::Dsync,
                ..log.clone()
            },
        ),
        (
            names::LOG_BUFFERED_FDATASYNC,
            JobConfig {
                sync: Durability::Fdatasync,
                ..log
            },
        ),
        (
            names::RANDREAD,
            JobConfig {
                rw: Pattern::Randread,
                bs: 8192,
                direct: direct_ok,
                ..base.clone()
            },
        ),
    ];
    let stream = JobConfig {
        bs: 1 << 20,
        engine: EngineKind::IoUring,
        iodepth: 4,
        direct: direct_ok,
        ..base
    };
    jobs.push((
        names::SEQWRITE,
        JobConfig {
            rw: Pattern::Write,
            ..stream.clone()
        },
    ));
    jobs.push((
        names::SEQREAD,
        JobConfig {
            rw: Pattern::Read,
            ..stream
        },
    ));
    jobs.into_iter().map(|(n, s)| (n.to_string(), s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_plan_scales_every_section_within_the_budget() {
        let full = plan_space(None, None).unwrap();
        assert_eq!(full.size, DEFAULT_SIZE);
        assert_eq!(
            (full.read_size, full.log_file_size, full.writer_size),
            (READ_SIZE, LOG_FILE_SIZE, WRITER_SIZE)
        );
        assert!(full.notes.is_empty(), "{:?}", full.notes);
        // A 64 MiB filesystem: half of it, every section within it.
        let small = plan_space(None, Some(64 << 20)).unwrap();
        assert_eq!(small.size, 32 << 20);
        assert_eq!(small.read_size, 32 << 20);
        assert_eq!(small.log_file_size, 16 << 20);
        assert_eq!(small.writer_size, 32 << 20);
        assert_eq!(small.notes.len(), 2, "{:?}", small.notes);
        assert!(
            small.notes[1].contains("the read section a 32.0 MiB file"),
            "{:?}",
            small.notes
        );
        let asked = plan_space(Some(40 << 20), Some(1 << 30)).unwrap();
        assert_eq!(asked.size, 40 << 20);
        assert_eq!(asked.log_file_size, 20 << 20);
        assert!(plan_space(Some(2 << 30), Some(1 << 30))
            .unwrap_err()
            .contains("more than the"));
        assert!(plan_space(None, Some(20 << 20))
            .unwrap_err()
            .contains("needs at least"));
        assert!(plan_space(Some(8 << 20), None)
            .unwrap_err()
            .contains("at least"));
    }

    #[test]
    fn without_o_direct_the_first_log_test_and_the_notes_say_so() {
        let jobs = battery(1, MIN_SIZE, false);
        assert_eq!(jobs[0].0, names::LOG_BUFFERED_DSYNC);
        assert!(jobs.iter().all(|(_, j)| !j.direct));
        assert_eq!(battery(1, MIN_SIZE, true)[0].0, names::LOG_DIRECT_DSYNC);
        let plan = plan_space(None, Some(64 << 20)).unwrap();
        let n = notes(Path::new("/dev/shm/x"), "tmpfs", false, &plan);
        assert_eq!(n.len(), 1 + plan.notes.len());
        assert_eq!(n[0].rule, "check.no_direct_io");
        assert!(n[0]
            .text
            .starts_with("/dev/shm/x does not support O_DIRECT (tmpfs)"));
        assert!(notes(Path::new("/x"), "xfs", true, &plan)
            .iter()
            .all(|f| f.rule == "check.scratch_plan"));
    }
}
