//! Hand-made results for the rule sets' unit tests.

use dbio_model::{CpuUsage, Durability, EngineKind, JobConfig, JobResult, Pattern, Prepare};

/// A one-second psync job of 8 KiB blocks with nothing measured yet.
pub fn job(name: &str, rw: Pattern, direct: bool) -> JobResult {
    JobResult {
        name: name.into(),
        job: JobConfig {
            engine: EngineKind::Psync,
            rw,
            read_pct: 0,
            bs: 8192,
            iodepth: 1,
            iodepth_batch: 1,
            direct,
            sync: Durability::None,
            threads: 1,
            size: 1 << 20,
            prepare: Prepare::Prewrite,
            runtime_ns: Some(1_000_000_000),
            ops_limit: None,
            warmup_ns: 0,
            rate_iops: None,
            seed: 0,
            null_delay_ns: 0,
        },
        target: String::new(),
        runtime_ns: 1_000_000_000,
        read: None,
        write: None,
        sync: None,
        commit: None,
        cpu: CpuUsage::default(),
        device: None,
        cached_before: None,
        cached_after: None,
        series: Vec::new(),
        started_at_unix_ns: None,
        stripe: None,
        block_device: false,
    }
}
