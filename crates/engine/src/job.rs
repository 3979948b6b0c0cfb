//! Job specification and validation: every impossible combination of
//! options is refused here, with one sentence, before any I/O happens.

use crate::blockdev::BlockDevicePolicy;
use crate::engines::{self, probe_io_uring, Capabilities};
use crate::target::TargetSpec;
use crate::EngineError;
use dbio_model::units::format_bytes;
use dbio_model::{Durability, EngineKind, JobConfig, Pattern, Prepare};
use std::path::PathBuf;

/// Smallest block size: the smallest logical sector.
pub const MIN_BS: u64 = 512;
/// Largest block size.
pub const MAX_BS: u64 = 8 << 20;
/// Largest queue depth.
pub const MAX_IODEPTH: u32 = 1024;
/// Largest thread count.
pub const MAX_THREADS: u32 = 1024;
/// Run time when neither a time nor an operation count is given, ns (10 s).
pub const DEFAULT_RUNTIME_NS: u64 = 10_000_000_000;

/// Where a job's I/O goes and what dbio may do to what is there. Not part
/// of the measurement's identity, so not in [`JobConfig`]: the result
/// records the target as resolved instead.
#[derive(Debug, Clone)]
pub struct JobTarget {
    /// File, directory or block device.
    pub path: PathBuf,
    /// Allow writing to an existing file dbio did not create.
    pub overwrite: bool,
    /// Whether the command takes a block device (and the user allowed it).
    pub block_device: BlockDevicePolicy,
    /// Keep the temporary file.
    pub keep: bool,
}

impl JobTarget {
    /// A target at `path` that dbio may only create and remove: no
    /// overwrite, no block device, nothing kept.
    pub fn scratch(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            overwrite: false,
            block_device: BlockDevicePolicy::NotAccepted,
            keep: false,
        }
    }
}

/// A checked job: its configuration as it will run and be echoed, and the
/// target to prepare.
#[derive(Debug, Clone)]
pub struct Job {
    /// The settings as they will run, echoed into the result as they are.
    pub config: JobConfig,
    /// The target as the result names it (the resolved path once prepared).
    pub target_name: String,
    /// The target to prepare (None for the null engine, which does no I/O).
    pub target: Option<TargetSpec>,
}

fn invalid<T>(msg: String) -> Result<T, EngineError> {
    Err(EngineError::Invalid(msg))
}

impl Job {
    /// Checks a configuration for `place`; the error names the offending
    /// options.
    pub fn resolve(s: &JobConfig, place: &JobTarget) -> Result<Job, EngineError> {
        if !(1..=MAX_THREADS).contains(&s.threads) {
            return invalid(format!("--threads must be between 1 and {MAX_THREADS}"));
        }
        if !(MIN_BS..=MAX_BS).contains(&s.bs) {
            return invalid(format!(
                "--bs {} is outside the supported range 512 B .. 8 MiB",
                format_bytes(s.bs)
            ));
        }
        if !(1..=MAX_IODEPTH).contains(&s.iodepth) {
            return invalid(format!("--iodepth must be between 1 and {MAX_IODEPTH}"));
        }
        if s.iodepth > 1 && !Capabilities::of(s.engine).queue_depth {
            let name = engines::name(s.engine);
            return invalid(format!(
                "the {name} engine runs one I/O at a time per thread, so --iodepth {} needs --engine io_uring or libaio (or use --threads for concurrency)",
                s.iodepth
            ));
        }
        if !(1..=s.iodepth).contains(&s.iodepth_batch) {
            return invalid(format!(
                "--iodepth-batch must be between 1 and --iodepth ({})",
                s.iodepth
            ));
        }
        if s.size < s.bs {
            return invalid(format!(
                "--size {} is smaller than --bs {}",
                format_bytes(s.size),
                format_bytes(s.bs)
            ));
        }
        if !s.rw.is_random() && s.size / s.bs < s.threads as u64 {
            return invalid(format!(
                "--size {} holds fewer blocks of {} than there are --threads ({}); each sequential thread needs its own region",
                format_bytes(s.size),
                format_bytes(s.bs),
                s.threads
            ));
        }
        if s.direct && !s.bs.is_multiple_of(MIN_BS) {
            return invalid(format!(
                "O_DIRECT needs --bs to be a multiple of 512 B; {} B is not",
                s.bs
            ));
        }
        if s.read_pct > 100 {
            return invalid("--read-pct must be between 0 and 100".into());
        }
        let reads_only = s.rw.read_pct(s.read_pct) == 100;
        if s.sync != Durability::None && reads_only {
            return invalid(format!(
                "--sync applies to writes, and --rw {} has none",
                pattern_name(s.rw)
            ));
        }
        if s.prepare == Prepare::Append && s.rw != Pattern::Write {
            return invalid(
                "--prepare append grows the file by writing at its end, so it needs --rw write"
                    .into(),
            );
        }
        if s.prepare == Prepare::Append && s.threads > 1 {
            return invalid("--prepare append needs --threads 1: one writer grows the file".into());
        }
        if s.runtime_ns == Some(0) {
            return invalid("--runtime must be a positive number of seconds".into());
        }
        if let Some(ops) = s.ops_limit {
            if ops < s.threads as u64 {
                return invalid(format!(
                    "--ops {ops} is fewer than one operation per thread ({} threads)",
                    s.threads
                ));
            }
        }
        if let Some(rate) = s.rate_iops {
            if rate < s.threads as u64 {
                return invalid(format!(
                    "--rate {rate} is below one I/O per second per thread ({} threads)",
                    s.threads
                ));
            }
        }
        if s.engine == EngineKind::Libaio && !s.direct {
            return invalid(
                "the libaio engine needs --direct: the kernel's native AIO is asynchronous only for O_DIRECT, and a buffered io_submit completes the I/O inside the call"
                    .into(),
            );
        }
        if s.engine == EngineKind::Null && s.direct {
            return invalid(
                "the null engine does no I/O, so --direct has no meaning with it".into(),
            );
        }
        if s.engine != EngineKind::Null && s.null_delay_ns > 0 {
            return invalid(
                "--null-delay injects a service time into the null engine only; add --engine null"
                    .into(),
            );
        }
        // Every worker holds iodepth buffers of the block size.
        let buffers = u64::from(s.threads) * u64::from(s.iodepth) * s.bs.max(4096);
        if buffers > 64 << 20 {
            crate::buf::check_memory(
                buffers,
                &format!(
                    "--threads {} × --iodepth {} × --bs {}",
                    s.threads,
                    s.iodepth,
                    format_bytes(s.bs)
                ),
            )
            .map_err(EngineError::Invalid)?;
        }
        if s.engine == EngineKind::IoUring {
            probe_io_uring().map_err(EngineError::Unsupported)?;
        }
        let size = s.size / s.bs * s.bs;
        let config = JobConfig {
            read_pct: s.rw.read_pct(s.read_pct),
            size,
            runtime_ns: match (s.runtime_ns, s.ops_limit) {
                (None, None) => Some(DEFAULT_RUNTIME_NS),
                (r, _) => r,
            },
            ..s.clone()
        };
        let target = (s.engine != EngineKind::Null).then(|| TargetSpec {
            path: place.path.clone(),
            size,
            prepare: s.prepare,
            direct: s.direct,
            bs: s.bs,
            sync: s.sync,
            writes: !reads_only,
            overwrite: place.overwrite,
            block_device: place.block_device,
            keep: place.keep,
        });
        Ok(Job {
            config,
            target_name: place.path.display().to_string(),
            target,
        })
    }
}

/// fio's name of a pattern.
pub fn pattern_name(p: Pattern) -> &'static str {
    match p {
        Pattern::Read => "read",
        Pattern::Write => "write",
        Pattern::Randread => "randread",
        Pattern::Randwrite => "randwrite",
        Pattern::Readwrite => "readwrite",
        Pattern::Randrw => "randrw",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: JobConfig) -> String {
        Job::resolve(&s, &JobTarget::scratch("."))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn refuses_impossible_combinations() {
        let base = JobConfig::default;
        assert!(err(JobConfig {
            iodepth: 32,
            ..base()
        })
        .contains("--engine io_uring"));
        assert!(err(JobConfig { bs: 256, ..base() }).contains("512 B .. 8 MiB"));
        assert!(err(JobConfig {
            bs: 1000,
            direct: true,
            ..base()
        })
        .contains("multiple of 512"));
        assert!(err(JobConfig {
            size: 4096,
            bs: 8192,
            ..base()
        })
        .contains("smaller than --bs"));
        assert!(err(JobConfig {
            sync: Durability::Fdatasync,
            ..base()
        })
        .contains("has none"));
        assert!(err(JobConfig {
            threads: 0,
            ..base()
        })
        .contains("--threads"));
        assert!(err(JobConfig {
            prepare: Prepare::Append,
            ..base()
        })
        .contains("--rw write"));
        assert!(err(JobConfig {
            engine: EngineKind::Null,
            direct: true,
            ..base()
        })
        .contains("null"));
        assert!(err(JobConfig {
            null_delay_ns: 5,
            ..base()
        })
        .contains("--engine null"));
        assert!(err(JobConfig {
            runtime_ns: Some(0),
            ..base()
        })
        .contains("--runtime"));
        assert!(err(JobConfig {
            ops_limit: Some(1),
            threads: 2,
            ..base()
        })
        .contains("--ops"));
        assert!(err(JobConfig {
            read_pct: 101,
            rw: Pattern::Randrw,
            ..base()
        })
        .contains("--read-pct"));
        assert!(err(JobConfig {
            rw: Pattern::Write,
            threads: 4,
            size: 8192 * 2,
            ..base()
        })
        .contains("own region"));
        assert!(err(JobConfig {
            iodepth: 4,
            iodepth_batch: 8,
            engine: EngineKind::IoUring,
            ..base()
        })
        .contains("--iodepth-batch"));
    }

    #[test]
    fn resolves_defaults() {
        let here = JobTarget::scratch(".");
        let j = Job::resolve(&JobConfig::default(), &here).unwrap();
        assert_eq!(j.config.runtime_ns, Some(DEFAULT_RUNTIME_NS));
        assert_eq!(j.config.read_pct, 100);
        assert!(!j.target.unwrap().writes);
        let s = JobConfig {
            size: 8192 * 3 + 100,
            ops_limit: Some(5),
            ..JobConfig::default()
        };
        let j = Job::resolve(&s, &here).unwrap();
        assert_eq!(j.config.size, 8192 * 3);
        assert_eq!(j.config.runtime_ns, None);
    }
}
