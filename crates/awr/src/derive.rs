//! The figures a DBA computes from a report by hand, computed once.
//!
//! * Average redo write size: 'redo size' / 'redo writes' (bytes).
//! * Average redo write time: 'redo write time (usec)' / 'redo writes'
//!   when the report has it (12c and later), else 'redo write time' /
//!   'redo writes', which is in centiseconds (v$sysstat's unit, as the
//!   article "Analyzing Oracle Logwriter w/ buffered vs. direct I/O"
//!   reminds): 7,381 cs / 17,734 writes = 4.2 ms. The centisecond figure
//!   is a sum of rounded-up ticks, so it can be off by up to 10 ms per
//!   write on fast storage; the µs statistic is preferred.
//! * Commits per redo write: 'user commits' (and 'redo synch writes') /
//!   'redo writes': above 1, group commit is at work.
//! * 'log file sync' / 'log file parallel write' and their difference:
//!   the part of a commit that is not the log write (posting LGWR,
//!   scheduling, CPU). Each average carries the bound of the precision it
//!   was printed at ([`dbio_model::awr::WaitEventRow::avg_error_us`]: a
//!   whole-millisecond `1` is anywhere from 0.5 to 1.5 ms), and so do the
//!   difference (the sum of the two bounds) and the ratio (the farthest
//!   it can be with each average anywhere in its bound; no ratio when
//!   'log file parallel write' can be 0).
//! * Redo wastage share: 'redo wastage' / ('redo size' + 'redo wastage'),
//!   the padding of partial redo blocks in what LGWR wrote.
//! * Physical reads and writes (blocks) per transaction and per second,
//!   transactions being 'user commits' + 'user rollbacks'.
//! * Single-block read tiers: the 'db file sequential read' histogram's
//!   cells against the page-cache and storage-cache thresholds (a `dbio
//!   calibrate` file or the defaults), with `dbio tracefile`'s rule: a
//!   wait below the page-cache threshold is a page-cache hit, below the
//!   storage-cache threshold a storage-cache hit, slower a device read.
//!   A cell is below a threshold only when its upper edge is (within
//!   Oracle's 1024-µs millisecond), so a cell straddling the page-cache
//!   threshold counts as storage cache (the page-cache share is a lower
//!   bound), and one straddling the storage-cache threshold is
//!   `unresolved` rather than guessed.
//! * DBWR write batch: 'physical writes from cache' / 'db file parallel
//!   write' waits (blocks per batch).
//! * Log switches per hour: 'log switches (derived)' per hour, as printed.

use dbio_model::awr::{AwrReport, ReadTiers};

/// Oracle's histogram `ms` is 1024 µs: an edge within 2.4 % of a
/// threshold counts as the threshold (`<1ms` is below a 1 ms threshold).
const MS_SLACK: f64 = 1.024;

/// The cache-tier thresholds and where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thresholds {
    /// Page-cache threshold, ns.
    pub page_cache_max_ns: u64,
    /// Storage-cache threshold, ns.
    pub storage_cache_max_ns: u64,
    /// `default`, `option` or the calibration file's path.
    pub from: String,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            page_cache_max_ns: 100_000,
            storage_cache_max_ns: 1_000_000,
            from: "default".into(),
        }
    }
}

fn div(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// Fills `r.derived` from the parsed numbers.
pub fn derive(r: &mut AwrReport, t: &Thresholds) {
    let size = r.stat("redo size");
    let writes = r.stat("redo writes");
    let commits = r.stat("user commits");
    let write_time = r_stat_us(r);
    let synch = r.stat("redo synch writes");
    let wastage = r.stat("redo wastage");
    let rollbacks = r.stat("user rollbacks");
    let lfs_row = r.event("log file sync");
    let lfpw_row = r.event("log file parallel write");
    let lfs = lfs_row.and_then(|e| e.avg_us);
    let lfpw = lfpw_row.and_then(|e| e.avg_us);
    let lfs_err = lfs_row.and_then(|e| e.avg_error_us);
    let lfpw_err = lfpw_row.and_then(|e| e.avg_error_us);
    let preads = r.stat("physical reads");
    let pwrites = r.stat("physical writes");
    let from_cache = r.stat("physical writes from cache");
    let dbpw = r.event("db file parallel write").and_then(|e| e.waits);
    let elapsed = r.header.elapsed_s;
    let switches = r
        .statistics
        .iter()
        .find(|s| s.name.starts_with("log switches"))
        .and_then(|s| s.per_second);
    let tiers = r.histogram("db file sequential read").map(|h| {
        let mut tr = ReadTiers {
            event: h.event.clone(),
            page_cache_max_ns: t.page_cache_max_ns,
            storage_cache_max_ns: t.storage_cache_max_ns,
            thresholds_from: t.from.clone(),
            ..Default::default()
        };
        let page_us = t.page_cache_max_ns as f64 / 1000.0;
        let storage_us = t.storage_cache_max_ns as f64 / 1000.0;
        for c in h.chosen_cells() {
            let n = c.waits(h.total_waits);
            let hi = c.hi_us.map_or(f64::INFINITY, |h| h as f64);
            let lo = c.lo_us as f64;
            if hi <= page_us * MS_SLACK {
                tr.page_cache += n;
            } else if hi <= storage_us * MS_SLACK {
                tr.storage_cache += n;
            } else if lo * MS_SLACK >= storage_us {
                tr.device += n;
            } else {
                tr.unresolved += n;
            }
        }
        tr
    });
    let d = &mut r.derived;
    d.redo_write_size_bytes = div(size, writes);
    d.redo_write_time_us = div(write_time, writes);
    d.commits_per_redo_write = div(commits, writes);
    d.synch_writes_per_redo_write = div(synch, writes);
    d.redo_wastage_share = match (size, wastage) {
        (Some(s), Some(w)) if s + w > 0.0 => Some(w / (s + w)),
        _ => None,
    };
    d.log_file_sync_us = lfs;
    d.log_file_parallel_write_us = lfpw;
    d.log_file_sync_error_us = lfs_err;
    d.log_file_parallel_write_error_us = lfpw_err;
    let bounded = lfs_err.is_some() || lfpw_err.is_some();
    let (ea, eb) = (lfs_err.unwrap_or(0.0), lfpw_err.unwrap_or(0.0));
    (d.lfs_lfpw_ratio, d.lfs_lfpw_ratio_error) = match (lfs, lfpw) {
        (Some(a), Some(b)) if b - eb > 0.0 => {
            let ratio = a / b;
            let hi = (a + ea) / (b - eb);
            let lo = (a - ea).max(0.0) / (b + eb);
            (Some(ratio), bounded.then(|| (hi - ratio).max(ratio - lo)))
        }
        _ => (None, None),
    };
    d.lfs_minus_lfpw_us = lfs.zip(lfpw).map(|(a, b)| a - b);
    d.lfs_minus_lfpw_error_us = d.lfs_minus_lfpw_us.and(bounded.then_some(ea + eb));
    d.transactions = commits.map(|c| c + rollbacks.unwrap_or(0.0));
    d.physical_reads_per_txn = div(preads, d.transactions);
    d.physical_writes_per_txn = div(pwrites, d.transactions);
    d.physical_reads_per_s = div(preads, elapsed);
    d.physical_writes_per_s = div(pwrites, elapsed);
    d.read_tiers = tiers;
    d.dbwr_batch_blocks = div(from_cache, dbpw);
    d.log_switches_per_hour = switches;
}

/// Total redo write time in µs: the µs statistic, else centiseconds.
fn r_stat_us(r: &AwrReport) -> Option<f64> {
    r.stat("redo write time (usec)")
        .or_else(|| r.stat("redo write time").map(|cs| cs * 10_000.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::WaitEventRow;

    fn report(lfs: (f64, Option<f64>), lfpw: (f64, Option<f64>)) -> AwrReport {
        let row = |name: &str, (avg, err): (f64, Option<f64>)| WaitEventRow {
            name: name.into(),
            avg_us: Some(avg),
            avg_error_us: err,
            ..Default::default()
        };
        let mut r = AwrReport {
            foreground_events: vec![row("log file sync", lfs)],
            background_events: vec![row("log file parallel write", lfpw)],
            ..Default::default()
        };
        derive(&mut r, &Thresholds::default());
        r
    }

    #[test]
    fn the_difference_and_ratio_carry_the_averages_bounds() {
        // 1.4 ms exact against 600 ± 100 µs: 800 ± 100 µs; the ratio 2.33
        // reaches 1400/500 = 2.8 at most.
        let d = report((1400.0, None), (600.0, Some(100.0))).derived;
        assert_eq!(d.lfs_minus_lfpw_us, Some(800.0));
        assert_eq!(d.lfs_minus_lfpw_error_us, Some(100.0));
        let (r, e) = (d.lfs_lfpw_ratio.unwrap(), d.lfs_lfpw_ratio_error.unwrap());
        assert!((r - 1400.0 / 600.0).abs() < 1e-12);
        assert!((e - (1400.0 / 500.0 - r)).abs() < 1e-12);
        // Both bounded: the sum of the bounds.
        let d = report((1000.0, Some(500.0)), (600.0, Some(100.0))).derived;
        assert_eq!(d.lfs_minus_lfpw_error_us, Some(600.0));
        assert!(
            (d.lfs_lfpw_ratio_error.unwrap() - (1500.0 / 500.0 - 1000.0 / 600.0)).abs() < 1e-12
        );
        // Exact averages: no bounds.
        let d = report((1400.0, None), (600.0, None)).derived;
        assert_eq!(
            (d.lfs_minus_lfpw_error_us, d.lfs_lfpw_ratio_error),
            (None, None)
        );
    }

    #[test]
    fn no_ratio_when_the_log_write_can_be_zero() {
        // A printed `0` ms: 0 ± 500 µs (and at the edge, 500 ± 500 µs).
        for lfpw in [(0.0, Some(500.0)), (500.0, Some(500.0))] {
            let d = report((1000.0, None), lfpw).derived;
            assert_eq!((d.lfs_lfpw_ratio, d.lfs_lfpw_ratio_error), (None, None));
            assert_eq!(d.lfs_minus_lfpw_error_us, Some(500.0));
        }
        // Just above: a ratio, bounded by 1000 / 1 µs.
        let d = report((1000.0, None), (501.0, Some(500.0))).derived;
        let r = 1000.0 / 501.0;
        assert!((d.lfs_lfpw_ratio_error.unwrap() - (1000.0 - r)).abs() < 1e-9);
    }
}
