//! Job specification and validation: every impossible combination of
//! options is refused here, with one sentence, before any I/O happens.

use crate::blockdev::BlockDevicePolicy;
use crate::engines::{self, probe_io_uring, Capabilities};
use crate::target::TargetSpec;
use crate::EngineError;
use dbio_model::units::format_bytes;
use dbio_model::{Durability, EngineKind, JobEcho, Pattern, Prepare};
use std::path::PathBuf;

/// Smallest block size: the smallest logical sector.
pub const MIN_BS: u64 = 512;
/// Largest block size.
pub const MAX_BS: u64 = 8 << 20;
/// Largest queue depth.
pub const MAX_IODEPTH: u32 = 1024;
/// Largest thread count.
pub const MAX_THREADS: u32 = 1024;
/// Run time when neither a time nor an operation count is given, seconds.
pub const DEFAULT_RUNTIME_S: f64 = 10.0;

/// A job as the user gave it, not yet checked.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// Engine.
    pub engine: EngineKind,
    /// Pattern.
    pub rw: Pattern,
    /// Read share of mixed patterns, percent.
    pub read_pct: u8,
    /// Block size, bytes.
    pub bs: u64,
    /// Queue depth per thread.
    pub iodepth: u32,
    /// I/Os queued before one submission.
    pub iodepth_batch: u32,
    /// O_DIRECT.
    pub direct: bool,
    /// Durability per write.
    pub sync: Durability,
    /// Worker threads.
    pub threads: u32,
    /// Target size, bytes.
    pub size: u64,
    /// File preparation.
    pub prepare: Prepare,
    /// Time limit, seconds.
    pub runtime_s: Option<f64>,
    /// Operation limit over all threads.
    pub ops: Option<u64>,
    /// Warm-up, seconds.
    pub warmup_s: f64,
    /// Rate limit over all threads, IOPS.
    pub rate_iops: Option<u64>,
    /// Seed for random offsets.
    pub seed: u64,
    /// Injected service time of the null engine, ns.
    pub null_delay_ns: u64,
    /// File, directory or block device.
    pub target: PathBuf,
    /// Allow writing to an existing file dbio did not create.
    pub overwrite: bool,
    /// Whether the command takes a block device (and the user allowed it).
    pub block_device: BlockDevicePolicy,
    /// Keep the temporary file.
    pub keep: bool,
}

impl Default for JobSpec {
    fn default() -> Self {
        Self {
            engine: EngineKind::Psync,
            rw: Pattern::Randread,
            read_pct: 50,
            bs: 8192,
            iodepth: 1,
            iodepth_batch: 1,
            direct: false,
            sync: Durability::None,
            threads: 1,
            size: 256 << 20,
            prepare: Prepare::Prewrite,
            runtime_s: None,
            ops: None,
            warmup_s: 0.0,
            rate_iops: None,
            seed: 0x5eed,
            null_delay_ns: 0,
            target: PathBuf::from("."),
            overwrite: false,
            block_device: BlockDevicePolicy::NotAccepted,
            keep: false,
        }
    }
}

/// A checked job.
#[derive(Debug, Clone)]
pub struct Job {
    /// The settings, as they will be echoed into the result.
    pub echo: JobEcho,
    /// The target to prepare (None for the null engine, which does no I/O).
    pub target: Option<TargetSpec>,
}

fn invalid<T>(msg: String) -> Result<T, EngineError> {
    Err(EngineError::Invalid(msg))
}

impl Job {
    /// Checks a spec; the error names the offending options.
    pub fn resolve(s: &JobSpec) -> Result<Job, EngineError> {
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
                "the {name} engine runs one I/O at a time per thread, so --iodepth {} needs --engine io_uring (or use --threads for concurrency)",
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
        if let Some(r) = s.runtime_s {
            if !(r > 0.0 && r.is_finite()) {
                return invalid("--runtime must be a positive number of seconds".into());
            }
        }
        if !(s.warmup_s >= 0.0 && s.warmup_s.is_finite()) {
            return invalid("--warmup must be zero or a positive number of seconds".into());
        }
        if let Some(ops) = s.ops {
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
        let runtime_s = match (s.runtime_s, s.ops) {
            (None, None) => Some(DEFAULT_RUNTIME_S),
            (r, _) => r,
        };
        let size = s.size / s.bs * s.bs;
        let echo = JobEcho {
            engine: s.engine,
            rw: s.rw,
            read_pct: s.rw.read_pct(s.read_pct),
            bs: s.bs,
            iodepth: s.iodepth,
            iodepth_batch: s.iodepth_batch,
            direct: s.direct,
            sync: s.sync,
            threads: s.threads,
            size,
            prepare: s.prepare,
            runtime_s,
            ops_limit: s.ops,
            warmup_s: s.warmup_s,
            rate_iops: s.rate_iops,
            seed: s.seed,
            null_delay_ns: s.null_delay_ns,
            target: s.target.display().to_string(),
        };
        let target = (s.engine != EngineKind::Null).then(|| TargetSpec {
            path: s.target.clone(),
            size,
            prepare: s.prepare,
            direct: s.direct,
            bs: s.bs,
            sync: s.sync,
            writes: !reads_only,
            overwrite: s.overwrite,
            block_device: s.block_device,
            keep: s.keep,
        });
        Ok(Job { echo, target })
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

    fn err(s: JobSpec) -> String {
        Job::resolve(&s).unwrap_err().to_string()
    }

    #[test]
    fn refuses_impossible_combinations() {
        let base = JobSpec::default;
        assert!(err(JobSpec {
            iodepth: 32,
            ..base()
        })
        .contains("--engine io_uring"));
        assert!(err(JobSpec { bs: 256, ..base() }).contains("512 B .. 8 MiB"));
        assert!(err(JobSpec {
            bs: 1000,
            direct: true,
            ..base()
        })
        .contains("multiple of 512"));
        assert!(err(JobSpec {
            size: 4096,
            bs: 8192,
            ..base()
        })
        .contains("smaller than --bs"));
        assert!(err(JobSpec {
            sync: Durability::Fdatasync,
            ..base()
        })
        .contains("has none"));
        assert!(err(JobSpec {
            threads: 0,
            ..base()
        })
        .contains("--threads"));
        assert!(err(JobSpec {
            prepare: Prepare::Append,
            ..base()
        })
        .contains("--rw write"));
        assert!(err(JobSpec {
            engine: EngineKind::Null,
            direct: true,
            ..base()
        })
        .contains("null"));
        assert!(err(JobSpec {
            null_delay_ns: 5,
            ..base()
        })
        .contains("--engine null"));
        assert!(err(JobSpec {
            runtime_s: Some(0.0),
            ..base()
        })
        .contains("--runtime"));
        assert!(err(JobSpec {
            ops: Some(1),
            threads: 2,
            ..base()
        })
        .contains("--ops"));
        assert!(err(JobSpec {
            read_pct: 101,
            rw: Pattern::Randrw,
            ..base()
        })
        .contains("--read-pct"));
        assert!(err(JobSpec {
            rw: Pattern::Write,
            threads: 4,
            size: 8192 * 2,
            ..base()
        })
        .contains("own region"));
        assert!(err(JobSpec {
            iodepth: 4,
            iodepth_batch: 8,
            engine: EngineKind::IoUring,
            ..base()
        })
        .contains("--iodepth-batch"));
    }

    #[test]
    fn resolves_defaults() {
        let j = Job::resolve(&JobSpec::default()).unwrap();
        assert_eq!(j.echo.runtime_s, Some(DEFAULT_RUNTIME_S));
        assert_eq!(j.echo.read_pct, 100);
        assert!(!j.target.unwrap().writes);
        let s = JobSpec {
            size: 8192 * 3 + 100,
            ops: Some(5),
            ..JobSpec::default()
        };
        let j = Job::resolve(&s).unwrap();
        assert_eq!(j.echo.size, 8192 * 3);
        assert_eq!(j.echo.runtime_s, None);
    }
}
