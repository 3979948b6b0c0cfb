//! The writer section of `dbio check`: one database writer against two
//! full-speed foregrounds on a small datafile in the checked directory.
//!
//! Why here: the configuration is the experiment ("what does one writer
//! sustain here, and is it CPU-bound"); the binary only runs the sections
//! in turn. Its findings are drawn by `dbio_report::findings::dbwr`.

use super::Section;
use crate::dbwr::config::validate;
use crate::dbwr::datafile::prepare;
use crate::dbwr::sweep::run_one;
use crate::dbwr::{DbwrConfig, Placement, BLOCK_SIZE};
use dbio_engine::engines::probe_io_uring;
use dbio_model::units::seconds_to_ns;
use dbio_model::{EngineKind, RunReport};

/// Runs the section into `report`.
///
/// One writer, two full-speed foregrounds changing half the blocks they
/// touch, a cache of 1,024 buffers over a 64 MiB datafile: the writer is
/// the bottleneck, so its write rate is what one writer sustains here, and
/// its CPU share says whether it is CPU-bound. io_uring and O_DIRECT when
/// the system has them; the datafile is `space` bytes at most. About
/// runtime_s + 0.5 s.
pub fn run(s: &Section<'_>, report: &mut RunReport) -> anyhow::Result<()> {
    let dir = s.dir;
    let engine = if probe_io_uring().is_ok() {
        EngineKind::IoUring
    } else {
        EngineKind::Psync
    };
    let cfg = DbwrConfig {
        buffers: 1024,
        lists: 8,
        writers: 1,
        foregrounds: 2,
        dirty_pct: 50.0,
        batch_max: 64,
        scan_depth_pct: 40,
        datafile_bytes: s.space.min(64 << 20) / BLOCK_SIZE as u64 * BLOCK_SIZE as u64,
        engine,
        // O_DIRECT when the filesystem takes it.
        direct: dir.supports_direct()?,
        null_delay_ns: 0,
        runtime_ns: Some(seconds_to_ns(s.runtime_s.max(0.1))),
        ops_limit: None,
        rate_iops: None,
        checkpoint_interval_ns: None,
        placement: Placement::Free,
        seed: dbio_model::DEFAULT_SEED,
    };
    validate(&cfg)?;
    let prepared = prepare(dir.path(), Some(dir), &cfg, false, false, s.stop)?;
    let (r, err) = run_one("writer check", &cfg, &prepared, s.stop, s.progress)?;
    if let Some(message) = err {
        report.io_error(message);
    }
    report.dbwr.push(r);
    Ok(())
}
