//! The read section of `dbio check`: single-block reads of one file,
//! buffered and warm (page-cache hits), with O_DIRECT (storage reads) and
//! re-read at once (storage-cache hits), attributed to tiers with the
//! boundaries these reads themselves give.
//!
//! Why here: which reads stand for which tier is the experiment's, as the
//! battery's jobs are; the binary only runs the sections in turn. Its
//! findings are drawn by `dbio_report::findings::read`.

use super::Section;
use crate::calibrate::storage_cache_reads;
use crate::read::attribute;
use crate::read::datafile::{target_name, target_spec};
use crate::read::rounds::{measure_run, Rounds};
use crate::read::CacheState;
use dbio_engine::runner::{Progress, Spanned};
use dbio_engine::target::Target;
use dbio_model::calibrate::CalibrateConfig;
use dbio_model::read::{ReadConfig, TierThresholds};
use dbio_model::units::seconds_to_ns;
use dbio_model::{EngineKind, RunReport};
use std::sync::atomic::Ordering::Relaxed;

/// Runs the section into `report`.
///
/// The section reads a file of `space` bytes (256 MiB at most) with 8 KiB
/// single-block reads for `runtime_s / 2` twice: buffered with the file
/// warm (page-cache hits) and with O_DIRECT (storage reads), then re-reads
/// up to 1000 blocks with O_DIRECT right after reading each (storage-cache
/// hits, as `dbio calibrate` provokes them; `runtime_s / 4`, 0.5 s at
/// most). The tiers are attributed with the boundaries derived from these
/// reads (an O_DIRECT read is never a page-cache hit), and the section says
/// how far apart the tiers are on this storage and where they overlap.
/// Preparing the file and warming it add about a second.
pub fn run(s: &Section<'_>, report: &mut RunReport) -> anyhow::Result<()> {
    let (dir, stop, runtime_s) = (s.dir, s.stop, s.runtime_s);
    let direct_ok = dir.supports_direct()?;
    let cfg = ReadConfig {
        multiblock_pct: 0,
        size: s.space.min(256 << 20),
        runtime_ns: Some(seconds_to_ns((runtime_s / 2.0).max(0.2))),
        ..ReadConfig::default()
    };
    // Page-cache hits: buffered reads of a warm file. Storage reads:
    // O_DIRECT reads of the same file (a buffered "cold" file warms up as
    // it is read, so its median soon measures memory, not storage).
    let t = match cfg.engine {
        EngineKind::Null => None,
        // Made in the directory check opened once for the whole run.
        _ => Some(Target::prepare_in(
            &target_spec(&cfg, dir.path(), false, false),
            dir,
            stop,
        )?),
    };
    let name = target_name(t.as_slice().iter().collect::<Vec<_>>().as_slice());
    let before = report.reads.len();
    let never = || None;
    // One display for the section: the buffered reads, then the O_DIRECT
    // ones (the re-reads after them are short and shown as done).
    let each_s = cfg.runtime_ns.unwrap_or(0) as f64 / 1e9;
    let total_s = if direct_ok { 2.0 * each_s } else { each_s };
    let first = |_: &str| -> Box<dyn Progress + '_> {
        Box::new(Spanned {
            inner: s.progress,
            done_s: 0.0,
            total_s,
        })
    };
    let second = |_: &str| -> Box<dyn Progress + '_> {
        Box::new(Spanned {
            inner: s.progress,
            done_s: each_s,
            total_s,
        })
    };
    let warm = CacheState::parse("warm").expect("static state");
    let targets: Vec<&Target> = t.iter().collect();
    let at = Rounds {
        targets: &targets,
        stripe: None,
        stop,
        signal: &never,
        progress: &first,
    };
    let mut runs = vec![measure_run(
        cfg.clone(),
        TierThresholds::default(),
        &[warm],
        &at,
        report,
    )?];
    let mut rereads = None;
    // What failed after the buffered reads is returned once their results
    // (and the O_DIRECT ones, if any) are in the report.
    let storage_part = (|| -> anyhow::Result<()> {
        if !direct_ok {
            return Ok(());
        }
        let dcfg = ReadConfig {
            direct: true,
            ..cfg.clone()
        };
        let td = match &t {
            // The same file, through its descriptor (never its path again).
            Some(t) => Some(t.reopen(&target_spec(&dcfg, &t.path, false, false), stop)?),
            None => None,
        };
        let cold = CacheState::parse("cold").expect("static state");
        let direct_targets: Vec<&Target> = td.iter().collect();
        runs.push(measure_run(
            dcfg,
            TierThresholds::default(),
            &[cold],
            &Rounds {
                targets: &direct_targets,
                stripe: None,
                stop,
                signal: &never,
                progress: &second,
            },
            report,
        )?);
        if let Some(td) = &td {
            let probe = CalibrateConfig {
                bs: cfg.bs,
                size: cfg.size,
                samples: 1000,
                tier_time_ns: seconds_to_ns((runtime_s / 4.0).clamp(0.05, 0.5)),
                ..CalibrateConfig::default()
            };
            let blocks = cfg.size / cfg.bs;
            // The timed run above ends by raising `stop`, as each round
            // begins by clearing it (a signal is kept by the session).
            stop.store(false, Relaxed);
            rereads = Some(storage_cache_reads(
                &td.file, &td.path, blocks, &probe, stop,
            )?);
        }
        Ok(())
    })();
    // The boundaries come from this run's own reads of each tier.
    let hist = |i: usize| runs.get(i).and_then(|r| r.histogram(0));
    let has_device = t
        .as_ref()
        .is_some_and(|t| dbio_engine::sysinfo::disk_of_fd(&*t.file).is_some());
    let att = hist(0).map(|page| {
        let storage = hist(1).unwrap_or_else(dbio_engine::recorder::new_histogram);
        attribute::derive(&page, &storage, rereads.as_ref(), has_device)
    });
    for run in runs {
        report
            .reads
            .extend(run.finish_attributed(&name, att.as_ref()));
    }
    let names = [
        "check page cache (buffered, warm)",
        "check storage (O_DIRECT)",
    ];
    for (r, name) in report.reads[before..].iter_mut().zip(names) {
        r.name = name.to_string();
    }
    // What the section found is drawn by `dbio_report::findings::read`.
    storage_part
}
