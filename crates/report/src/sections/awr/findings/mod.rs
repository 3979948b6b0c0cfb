//! AWR and Statspack reports in words (`dbio awr`): what the redo,
//! commit, read, writer and CPU figures of a report say, with the numbers
//! that prove it, each weighed by its share of DB time.
//!
//! The rules, one module per family:
//!
//! * [`components`]: every component of DB time from a tenth of it (DB
//!   CPU, each foreground wait, the time neither accounts for) by its
//!   share, as ADDM ranks its findings, saying whether the storage
//!   explains it; the I/O waits' share when no I/O event reaches a tenth.
//! * [`commit`]: what a commit waits on. Slow log writes ('log file
//!   parallel write' in the device tier: faster redo storage, and how slow
//!   the writes are), Data Guard's SYNC remote write, the CPU, or posting
//!   and scheduling ("Log File Sync wait event and SSD disks": 20.8 ms
//!   against 0.1 ms; faster disks did not help); 'redo write time' that
//!   holds LGWR's workers or the standby; RAC's log flushes for LMS; small
//!   redo writes taking milliseconds, with direct I/O advised only where
//!   the redo has none ("Analyzing Oracle Logwriter w/ buffered vs.
//!   direct I/O": 2,731 B per write at 4.2 ms; direct I/O cut the run by
//!   30 %).
//! * [`cpu`]: a host busier than its queueing knee, Resource Manager's
//!   'resmgr:cpu quantum': the CPU before any I/O wait.
//! * [`reads`]: single-block reads served by the OS page cache (Kyle
//!   Hailey, "Oracle “Physical I/O”? not always physical") or by the
//!   device; Exadata's cell reads split into flash and disk tiers.
//! * [`stalls`]: DBWR not keeping up ('free buffer waits', 'write
//!   complete waits'; Kevin Closson, "Over-Configuring DBWR Processes"),
//!   log switch stalls with the switch rate, 'log buffer space'.
//!
//! What sessions waited on is read from the foreground table, what the
//! writers waited on from the background table ([`events`]); what the
//! database runs (Data Guard, RAC, the scalable log writer, ASM,
//! Exadata) from its events, statistics and parameters ([`setup`]).

pub mod commit;
pub mod components;
pub mod cpu;
pub mod events;
pub mod reads;
pub mod setup;
pub mod stalls;

use crate::kit::findings::Finding;
use crate::kit::findings::RuleSet;
use crate::sections::trace::findings::LatencyTier;
use dbio_model::awr::AwrReport;
use dbio_model::read::{DEFAULT_PAGE_CACHE_MAX_NS, DEFAULT_STORAGE_CACHE_MAX_NS};
use dbio_model::units::format_ns;

/// The AWR rules.
pub const RULES: RuleSet<AwrReport> = RuleSet {
    area: "awr",
    evaluate,
};

/// From this ratio of 'log file sync' to 'log file parallel write'
/// averages, commits are said to wait mostly for something else than
/// the log write.
pub const LFS_LFPW_RATIO: f64 = 3.0;
/// Redo writes smaller than this (bytes) are "small": below a typical
/// 8 KiB file-system block.
pub const SMALL_REDO_WRITE: f64 = 8192.0;
/// A small redo write slower than this (µs) is slow for its size: a few
/// KB on storage with a write cache take well under a millisecond (0.1 ms
/// on the SSD of "Log File Sync wait event and SSD disks").
pub const SLOW_REDO_WRITE_US: f64 = 2000.0;
/// From this share of single-block read waits under the page-cache
/// threshold, the reads are said to be served by the OS cache (0..=1).
pub const PAGE_CACHE_SHARE: f64 = 0.1;
/// A log switch or writer stall shorter than this in total (s), and
/// under a tenth of DB time, is not worth a finding (a handful of waits
/// in an hour).
pub const MIN_STALL_S: f64 = 1.0;
/// From this share of single-block reads slower than the storage-cache
/// threshold, their latency is said to be the device's (0..=1).
pub const DEVICE_SHARE: f64 = 0.5;
/// From this share of DB time (percent) in 'resmgr:cpu quantum',
/// Resource Manager is said to throttle the sessions: the CPU comes
/// before any I/O wait (a tenth, as every component that matters).
pub const RESMGR_SHARE: f64 = 10.0;

/// The total an AWR finding's impact is a share of.
pub const OF_DB_TIME: &str = "DB time";

/// A time of `v` µs in words.
pub(crate) fn us(v: f64) -> String {
    format_ns(v * 1000.0)
}

fn evaluate(r: &AwrReport) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in [
        components::db_time_components,
        commit::commit_path,
        cpu::host_cpu,
        cpu::resmgr,
        commit::small_redo_writes,
        commit::redo_write_time_not_disk,
        commit::rac_log_flush,
        reads::read_tiers,
        reads::exadata_reads,
        stalls::dbwr_behind,
        stalls::log_switch_stalls,
        stalls::log_buffer_space,
    ] {
        rule(r, &mut out);
    }
    out
}

/// The tier thresholds a report was read with, ns.
pub(crate) fn thresholds(r: &AwrReport) -> (u64, u64) {
    r.derived.read_tiers.as_ref().map_or(
        (DEFAULT_PAGE_CACHE_MAX_NS, DEFAULT_STORAGE_CACHE_MAX_NS),
        |t| (t.page_cache_max_ns, t.storage_cache_max_ns),
    )
}

/// The tier an average wait of `avg_us` falls in.
pub fn tier_of(r: &AwrReport, avg_us: f64) -> LatencyTier {
    let (page, storage) = thresholds(r);
    let ns = avg_us * 1000.0;
    if ns < page as f64 {
        LatencyTier::PageCache
    } else if ns < storage as f64 {
        LatencyTier::StorageCache
    } else {
        LatencyTier::Device
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{AwrDerived, WaitEventRow};

    #[test]
    fn commit_time_outside_the_log_write_is_named_from_three_times() {
        let mk = |ratio: f64| AwrReport {
            derived: AwrDerived {
                log_file_sync_us: Some(100.0 * ratio),
                log_file_parallel_write_us: Some(100.0),
                lfs_lfpw_ratio: Some(ratio),
                host_cpu_busy_pct: Some(50.0),
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(evaluate(&mk(2.99)).is_empty());
        let f = evaluate(&mk(208.0));
        assert_eq!(f[0].rule, "awr.commit_not_io");
        assert!(f[0].text.contains("50.0 % busy"), "{}", f[0].text);
    }

    #[test]
    fn every_rule_family_draws_on_one_report() {
        // A RAC report: commits on a saturated host, a log switch stall,
        // LMS's log flushes, Exadata cell reads.
        let row = |name: &str, waits: f64, t: f64| WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(t),
            avg_us: Some(t * 1e6 / waits),
            ..Default::default()
        };
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.header.cpus = Some(8.0);
        r.header.rac = true;
        r.top_events.push(row("DB CPU", 1.0, 200.0));
        r.foreground_events = vec![
            row("log file sync", 300_000.0, 600.0),
            row("log file switch (checkpoint incomplete)", 500.0, 50.0),
            row("cell single block physical read", 100_000.0, 40.0),
        ];
        r.background_events = vec![
            row("log file parallel write", 400_000.0, 80.0),
            row("gcs log flush sync", 20_000.0, 20.0),
        ];
        r.derived = AwrDerived {
            log_file_sync_us: Some(2000.0),
            log_file_parallel_write_us: Some(200.0),
            lfs_lfpw_ratio: Some(10.0),
            host_cpu_busy_pct: Some(90.0),
            ..Default::default()
        };
        let rules: Vec<String> = evaluate(&r).into_iter().map(|f| f.rule).collect();
        assert_eq!(
            rules,
            [
                "awr.cpu",
                "awr.commit_wait",
                "awr.io_waits",
                "awr.uncaptured",
                "awr.commit_not_io",
                "awr.host_cpu",
                "awr.rac_log_flush",
                "awr.log_switch_stall"
            ]
        );
    }
}
