//! The commit section of `dbio check`: the log-writer model with one and
//! ten sessions on the main durability method, and ten sessions on each
//! other method this system runs, one round each.
//!
//! Why here: which configurations answer "how fast does a commit come
//! back here" is the experiment's, like the battery's jobs; the binary
//! only runs the sections in turn. Its findings are drawn by
//! `dbio_report::findings::commit`.

use super::Section;
use crate::lgwr::rounds::{run_all, Hooks};
use crate::lgwr::{LgwrConfig, LgwrRun, Method};
use dbio_engine::runner::{Progress, Spanned};
use dbio_model::units::seconds_to_ns;
use dbio_model::RunReport;
use std::sync::atomic::Ordering;

/// Runs the section into `report`.
///
/// Budget: at the default 3 s per test about 5 s of runs (0.8 s each for
/// 1 and 10 sessions, 0.5 s for each other durability method at 10
/// sessions), plus making two log files of half of `space` (32 MiB at
/// most) once.
pub fn run(s: &Section<'_>, report: &mut RunReport) -> anyhow::Result<()> {
    let dir = s.dir;
    let scale = s.runtime_s / 3.0;
    let main_method = if dir.supports_direct()? {
        Method::DirectDsync
    } else {
        Method::BufferedFdatasync
    };
    let base = LgwrConfig {
        files: 2,
        file_size: (s.space / 2).min(32 << 20) >> 20 << 20,
        method: main_method,
        runtime_ns: Some(seconds_to_ns((0.8 * scale).max(0.1))),
        ..LgwrConfig::default()
    };
    let at = |config: LgwrConfig| LgwrRun {
        config,
        dir: dir.path().to_path_buf(),
        scratch: Some(dir.clone()),
        ..LgwrRun::default()
    };
    let mut configs = vec![
        (
            format!("1 session, {main_method}"),
            at(LgwrConfig {
                sessions: 1,
                ..base.clone()
            }),
        ),
        (format!("10 sessions, {main_method}"), at(base.clone())),
    ];
    let uring_ok = dbio_engine::engines::probe_io_uring().is_ok();
    for m in Method::ALL {
        if m == main_method
            || (m.direct() && main_method != Method::DirectDsync)
            || (m.uring() && !uring_ok)
            // Native AIO's fsync depends on the filesystem; `dbio check`
            // keeps to the methods every Linux filesystem runs.
            || m == Method::AioFdatasync
        {
            continue;
        }
        configs.push((
            format!("10 sessions, {m}"),
            at(LgwrConfig {
                method: m,
                runtime_ns: Some(seconds_to_ns((0.5 * scale).max(0.1))),
                ..base.clone()
            }),
        ));
    }
    let flag = s.stop.clone();
    let signal = move || flag.load(Ordering::Relaxed).then_some("SIGINT");
    // One display for the section: each run is placed after the planned
    // time of the runs before it.
    let planned: Vec<f64> = configs
        .iter()
        .map(|(_, c)| c.config.runtime_ns.unwrap_or(0) as f64 / 1e9)
        .collect();
    let next = std::cell::Cell::new(0);
    let progress = |_: &str| -> Box<dyn Progress + '_> {
        let i = next.replace(next.get() + 1);
        Box::new(Spanned {
            inner: s.progress,
            done_s: planned[..i.min(planned.len())].iter().sum(),
            total_s: planned.iter().sum(),
        })
    };
    let hooks = Hooks {
        stop: s.stop,
        signal: &signal,
        // `dbio check` saves after each section.
        save: &|_| {},
        progress: &progress,
    };
    run_all(&configs, 1, &hooks, report)?;
    Ok(())
}
