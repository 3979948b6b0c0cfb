//! One start for many hosts: `--start-at` checked against this host's
//! clock and recorded in the result, and the wait (the parsing, the
//! checks and the wait themselves are `dbio_engine::wallclock`'s).
//!
//! Hosts started independently (by Ansible, a Kubernetes Indexed Job)
//! start measuring together only if they wait for the same wall-clock
//! time: the wait sleeps until 2 ms before it, then polls the clock, so a
//! host starts within a few hundred µs of the time on its own clock. How
//! far apart the hosts' clocks are is beyond dbio: NTP or chrony keeps
//! them within about a millisecond on a LAN. A time in the past is
//! refused rather than started late, since a late host would measure a
//! different interval from the others.

use crate::cli::fleet::Fleet;
use anyhow::bail;
use dbio_model::clock::ClockStatus;
use dbio_model::RunReport;
use std::sync::atomic::AtomicBool;

use dbio_engine::wallclock::{check_start, wait_until};

/// Checks `--start-at` against this host's clock ([`check_start`]), then
/// the clock itself: refused when adjtimex(2) says it is unsynchronised
/// or its maximum error exceeds `--max-clock-error`. The start and the
/// clock's state (None without `--start-at`).
pub fn check(f: &Fleet) -> anyhow::Result<(Option<u64>, Option<ClockStatus>)> {
    let Some(start) = check_start(f.start_at).map_err(anyhow::Error::msg)? else {
        return Ok((None, None));
    };
    let limit = f.max_clock_error.0;
    let clock = dbio_engine::wallclock::read().map(|c| ClockStatus {
        limit_us: limit,
        ..c
    });
    dbio_engine::wallclock::verdict(clock.as_ref(), limit).map_err(anyhow::Error::msg)?;
    Ok((Some(start), clock))
}

/// The commands other than `bench`: checks `--start-at` and the clock
/// ([`check`]: an error before anything is measured), records the flags
/// and the clock in `report`, and waits for the start; a signal during
/// the wait ends the command with nothing measured.
pub fn begin(f: &Fleet, stop: &AtomicBool, report: &mut RunReport) -> anyhow::Result<()> {
    let (start, clock) = check(f)?;
    record(report, f.label.as_deref(), start);
    report.clock = clock;
    if let Some(t) = start {
        if !wait_until(t, stop) {
            bail!("interrupted while waiting for --start-at; nothing was measured");
        }
    }
    Ok(())
}

/// Records `--label` and `--start-at` in the result.
pub fn record(report: &mut RunReport, label: Option<&str>, start_ns: Option<u64>) {
    report.label = label.map(str::to_string);
    report.start_at_unix_ns = start_ns;
}
