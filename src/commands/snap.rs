//! `dbio snap URL`: an AWR for a live PostgreSQL or MariaDB server.
//!
//! Glue only: the snapshots, the sampler, the deltas and the report are
//! `dbio_snap`'s; the findings and the verdict `dbio_report`'s (the AWR
//! rules and the snapshot rules); this file checks the options and the
//! outputs, opens the server (one sentence and status 2 when it cannot:
//! unreachable, wrong password, a role that may not read the
//! statistics), waits out each interval behind a progress bar while the
//! signals of the run context are watched, and writes one interval as
//! [`Outcome::Awr`] or a series as [`Outcome::AwrTrend`].
//!
//! With `--watch`, the interval is taken by [`super::snap_watch`].
//!
//! A stop signal mid-interval (SIGINT, SIGTERM, SIGHUP, SIGQUIT; any
//! number of them) ends the wait: the sampler is stopped, the closing
//! snapshot taken, and the partial interval written, marked with the
//! signal; the exit status is 1.

use crate::cli::SnapArgs;
use crate::run_context::RunContext;
use anyhow::bail;
use dbio_model::awr::AwrReport;
use dbio_model::Outcome;
use dbio_snap::{SnapOptions, Snapper};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Intervals of a series at most.
pub const MAX_INTERVALS: u64 = 1000;

/// The intervals asked for: (length, count).
fn plan(a: &SnapArgs) -> anyhow::Result<(f64, u64)> {
    let (len, n) = match (a.every, a.for_) {
        (Some(every), Some(total)) => {
            if every <= 0.0 {
                bail!("--every must be longer than 0 s");
            }
            if total < every {
                bail!("--for ({total} s) is shorter than one interval of --every ({every} s)");
            }
            let n = (total / every + 1e-9).floor() as u64;
            if n > MAX_INTERVALS {
                bail!(
                    "--for / --every makes {n} intervals; at most {MAX_INTERVALS} (give a longer --every)"
                );
            }
            (every, n)
        }
        _ => (a.interval, 1),
    };
    if len <= 0.0 {
        bail!("--interval must be longer than 0 s");
    }
    if a.sample_period <= 0.0 || a.sample_period > len {
        bail!(
            "--sample-period ({} s) must be above 0 and at most the interval ({len} s)",
            a.sample_period
        );
    }
    Ok((len, n))
}

/// Runs `dbio snap`.
pub fn run(a: SnapArgs) -> anyhow::Result<ExitCode> {
    let (len, n) = plan(&a)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let opts = SnapOptions {
        interval_s: len,
        sample_period_s: a.sample_period,
    };
    let mut snapper = dbio_snap::open(&a.url, &opts)?;
    let watch = match a.watch {
        true => Some(super::snap_watch::load(snapper.as_mut())?),
        false => None,
    };
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let bar = crate::progress::Bar::new("snap", a.output.quiet);
    if let Some(w) = watch {
        return super::snap_watch::interval(snapper.as_mut(), w, len, &ctx, &bar);
    }
    let stop = ctx.stop_flag().clone();
    let mut reports: Vec<AwrReport> = Vec::new();
    let mut begin = snapper.snapshot()?;
    let mut failed = None;
    for k in 1..=n {
        let label = if n > 1 {
            format!("interval {k}/{n}: ")
        } else {
            String::new()
        };
        let step = interval(snapper.as_mut(), len, &stop, &|e| bar.snap(e, len, &label));
        let step = step.and_then(|()| snapper.finish_interval(&begin, len, ctx.signal()));
        match step {
            Ok((end, mut r)) => {
                if n > 1 {
                    number(&mut r, k);
                }
                dbio_report::verdict::conclude_awr(&mut r);
                reports.push(r);
                begin = end;
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
        if ctx.signal().is_some() {
            break;
        }
    }
    bar.finish();
    // A series cut short by a signal, or by a failover or a lost server
    // after some intervals, is partial: status 1.
    let partial = ctx.signal().is_some() || failed.is_some();
    if let Some(e) = failed {
        if reports.is_empty() {
            return Err(e.into());
        }
        crate::say::line(&format!(
            "dbio: {e} (the series ends here: the intervals before it are written)"
        ));
    }
    let result = match reports.len() {
        1 if n == 1 => Outcome::Awr(reports.remove(0)),
        _ => {
            let mut t = dbio_awr::trend::trend(reports, false).map_err(anyhow::Error::msg)?;
            dbio_report::verdict::conclude_awr_trend(&mut t);
            Outcome::AwrTrend(Box::new(t))
        }
    };
    Ok(ctx.finish_outcome(&result, partial))
}

/// Waits out one interval (the sampler running), polling the stop flag
/// every 50 ms so a signal ends the wait at once.
fn interval(
    snapper: &mut dyn Snapper,
    len: f64,
    stop: &AtomicBool,
    tick: &dyn Fn(f64),
) -> Result<(), dbio_snap::SnapError> {
    snapper.start_interval()?;
    let t0 = Instant::now();
    let end = t0 + Duration::from_secs_f64(len);
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= end {
            break;
        }
        tick(t0.elapsed().as_secs_f64());
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
    Ok(())
}

/// Numbers interval `k` of a series: its snapshots are k and k + 1.
fn number(r: &mut AwrReport, k: u64) {
    r.header.begin_snap = Some(k);
    r.header.end_snap = Some(k + 1);
    if let Some(s) = r.snap.as_mut() {
        s.series_index = u32::try_from(k).ok();
    }
    r.source = format!("{} #{k}", r.source);
}
