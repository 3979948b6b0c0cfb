//! Single-block reads by where they were answered.
//!
//! * 'db file sequential read': the parser's tiers ([`ReadTiers`]: page
//!   cache, storage cache, device) against the tier thresholds (Kyle
//!   Hailey, "Oracle “Physical I/O”? not always physical").
//! * Exadata's 'cell single block physical read', from its histogram:
//!   the cells' flash cache answers a block in a fraction of a
//!   millisecond (Bobby Durrett measured 0.4 ms on a V2; X-series flash
//!   reads run 0.3 to 0.6 ms, and XRMEM/PMEM and RDMA reads tens of µs),
//!   a spinning disk in several: at 7,200 rpm half a rotation alone is
//!   4.2 ms, at 10,000 rpm 3 ms, before the seek. So waits under
//!   [`FLASH_MAX_US`] are the flash tier (or faster), waits from
//!   [`DISK_MIN_US`] the disk tier, and the bucket between (1 to 2 ms: a
//!   flash read under load or a disk read with no seek) is told apart
//!   from both. Oracle's histogram edges are powers of two of µs (its ms
//!   is 1024 µs), which the merged buckets keep, so these edges are
//!   exact. 19c's own split events ('cell single block physical read:
//!   flash cache', ': xrmem cache', ': pmem cache', ': RDMA') are listed
//!   when printed, and the cells' 'cell flash cache read hits' against
//!   'physical read total IO requests' when both are.

use super::events::{average_us, foreground, share_of_db_time, waited};
use super::{DEVICE_SHARE, OF_DB_TIME, PAGE_CACHE_SHARE};
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::{exadata_flash_cache_latency, physical_io_not_always_physical};
use crate::sections::trace::findings::COMPONENT_SHARE;
use dbio_model::awr::{AwrReport, ReadTiers};
use dbio_model::units::format_ns;

/// Exadata single-block reads under this (µs: Oracle's `<1ms`) are the
/// flash tier or faster.
pub const FLASH_MAX_US: u64 = 1024;
/// Exadata single-block reads from this (µs: Oracle's `<4ms` bucket's
/// lower edge) are the disk tier.
pub const DISK_MIN_US: u64 = 2048;
/// Exadata's single-block read event.
pub const CELL_READ: &str = "cell single block physical read";
/// 19c's split of [`CELL_READ`] by where the cells answered it.
const CELL_READ_SPLITS: [&str; 4] = [
    "cell single block physical read: flash cache",
    "cell single block physical read: xrmem cache",
    "cell single block physical read: pmem cache",
    "cell single block physical read: RDMA",
];

/// Single-block reads answered by the page cache, or by the device.
pub fn read_tiers(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(tr) = &r.derived.read_tiers else {
        return;
    };
    let n = tr.page_cache + tr.storage_cache + tr.device + tr.unresolved;
    if n <= 0.0 {
        return;
    }
    let share = foreground(r, &tr.event).and_then(|e| share_of_db_time(r, e));
    let with_share = |f: Finding| match share {
        Some(s) => f.with_impact(s, OF_DB_TIME),
        None => f,
    };
    let page = tr.page_cache / n;
    if page >= PAGE_CACHE_SHARE {
        out.push(with_share(finding(
            "awr.page_cache_reads",
            Some(&tr.event),
            Severity::Notice,
            format!(
                "'{}': {:.1} % of the waits took under {} ({}), as fast as the OS page cache answers: those reads were not physical, so the average mixes memory and storage",
                tr.event,
                100.0 * page,
                format_ns(tr.page_cache_max_ns as f64),
                tr.thresholds_from
            ),
            vec![ev("waits in the page-cache tier", 100.0 * page, "%")],
            Some(physical_io_not_always_physical()),
        )));
    }
    let dev = tr.device / n;
    if dev >= DEVICE_SHARE {
        out.push(with_share(device_reads(tr, dev)));
    }
}

fn device_reads(tr: &ReadTiers, dev: f64) -> Finding {
    finding(
        "awr.device_reads",
        Some(&tr.event),
        Severity::Info,
        format!(
            "'{}': {:.1} % of the waits took longer than {}: that latency is the device's, not a cache's",
            tr.event,
            100.0 * dev,
            format_ns(tr.storage_cache_max_ns as f64)
        ),
        vec![ev("waits in the device tier", 100.0 * dev, "%")],
        Some(physical_io_not_always_physical()),
    )
}

/// Exadata single-block reads split into the flash and disk tiers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CellTiers {
    /// Waits under [`FLASH_MAX_US`].
    pub flash: f64,
    /// Waits between [`FLASH_MAX_US`] and [`DISK_MIN_US`].
    pub between: f64,
    /// Waits from [`DISK_MIN_US`].
    pub disk: f64,
}

impl CellTiers {
    /// All the waits.
    pub fn total(&self) -> f64 {
        self.flash + self.between + self.disk
    }
}

/// The tiers of [`CELL_READ`]'s histogram: bucket `i` of the merged
/// buckets holds waits from 2^(i−1) to 2^i µs.
pub fn cell_tiers(r: &AwrReport) -> Option<CellTiers> {
    let h = r.histogram(CELL_READ)?;
    let mut t = CellTiers::default();
    for (i, &n) in h.buckets.counts.iter().enumerate() {
        let (lo, hi) = if i == 0 {
            (0, 1)
        } else {
            (1u64 << (i - 1), 1u64 << i)
        };
        let n = n as f64;
        if hi <= FLASH_MAX_US {
            t.flash += n;
        } else if lo >= DISK_MIN_US {
            t.disk += n;
        } else {
            t.between += n;
        }
    }
    (t.total() > 0.0).then_some(t)
}

/// Exadata's single-block reads by tier, with the split events and the
/// flash cache hits when printed.
pub fn exadata_reads(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(t) = cell_tiers(r) else {
        return;
    };
    let n = t.total();
    let pct = |v: f64| 100.0 * v / n;
    let mut evidence = vec![
        ev("waits under 1 ms (flash or faster)", pct(t.flash), "%"),
        ev("waits from 2 ms (disk)", pct(t.disk), "%"),
        ev("waits from 1 to 2 ms", pct(t.between), "%"),
    ];
    let row = foreground(r, CELL_READ);
    let share = row.and_then(|e| share_of_db_time(r, e));
    let avg = row.and_then(average_us).map_or_else(String::new, |a| {
        evidence.push(ev("average wait", a * 1000.0, "ns"));
        format!(" (average {})", format_ns(a * 1000.0))
    });
    let splits: Vec<String> = CELL_READ_SPLITS
        .iter()
        .filter_map(|name| {
            // Whole names only: a cut 'cell single block physical' is the
            // event itself as much as any of its splits.
            let e = r
                .foreground_events
                .iter()
                .chain(&r.top_events)
                .find(|e| e.name.trim() == *name)?;
            let w = waited(e)?;
            Some(match average_us(e) {
                Some(a) => format!("'{name}' {w:.0} waits at {}", format_ns(a * 1000.0)),
                None => format!("'{name}' {w:.0} waits"),
            })
        })
        .collect();
    let splits = if splits.is_empty() {
        String::new()
    } else {
        format!("; the report's own split: {}", splits.join(", "))
    };
    let hits = match (
        r.stat("cell flash cache read hits"),
        r.stat("physical read total IO requests"),
    ) {
        (Some(h), Some(all)) if all > 0.0 => {
            evidence.push(ev("cell flash cache read hits", h, "count"));
            format!(
                "; the cells answered {:.1} % of all read requests from flash ('cell flash cache read hits' / 'physical read total IO requests')",
                100.0 * h / all
            )
        }
        _ => String::new(),
    };
    let disk_bound = t.disk / n >= DEVICE_SHARE;
    let reading = if disk_bound {
        "most single-block reads missed the flash cache and waited for the cells' disks"
    } else {
        "the flash cache answered most single-block reads"
    };
    let f = finding(
        "awr.exadata_reads",
        Some(CELL_READ),
        if disk_bound && share.is_some_and(|s| s >= COMPONENT_SHARE) {
            Severity::Notice
        } else {
            Severity::Info
        },
        format!(
            "'{CELL_READ}'{avg}: {:.1} % of the waits under 1 ms (the cells' flash cache, or faster), {:.1} % from 2 ms (their disks), {:.1} % between: {reading}{splits}{hits}",
            pct(t.flash),
            pct(t.disk),
            pct(t.between),
        ),
        evidence,
        Some(exadata_flash_cache_latency()),
    );
    out.push(match share {
        Some(s) => f.with_impact(s, OF_DB_TIME),
        None => f,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{AwrDerived, AwrHistogram, WaitEventRow};
    use dbio_model::latency::Log2Buckets;

    fn report(d: AwrDerived) -> AwrReport {
        AwrReport {
            derived: d,
            ..Default::default()
        }
    }

    fn tiers(r: &AwrReport) -> Vec<String> {
        let mut out = Vec::new();
        read_tiers(r, &mut out);
        exadata_reads(r, &mut out);
        out.into_iter().map(|f| f.rule).collect()
    }

    #[test]
    fn page_cache_and_device_tiers_from_their_shares() {
        let mk = |p: f64, s: f64, d: f64| {
            report(AwrDerived {
                read_tiers: Some(ReadTiers {
                    event: "db file sequential read".into(),
                    page_cache: p,
                    storage_cache: s,
                    device: d,
                    ..Default::default()
                }),
                ..Default::default()
            })
        };
        assert!(tiers(&mk(9.0, 82.0, 9.0)).is_empty());
        assert!(tiers(&mk(0.0, 51.0, 49.0)).is_empty());
        assert_eq!(
            tiers(&mk(10.0, 0.0, 90.0)),
            ["awr.page_cache_reads", "awr.device_reads"]
        );
        assert_eq!(tiers(&mk(0.0, 50.0, 50.0)), ["awr.device_reads"]);
    }

    /// A cell read histogram: waits per power-of-two bucket index.
    fn exadata(counts: &[(usize, u64)], share_s: f64) -> AwrReport {
        let mut b = Log2Buckets::default();
        for &(i, n) in counts {
            b.record_us_n(if i == 0 { 0 } else { 1u64 << (i - 1) }, n);
        }
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.histograms.push(AwrHistogram {
            event: CELL_READ.into(),
            total_waits: b.counts.iter().sum::<u64>() as f64,
            buckets: b,
            ..Default::default()
        });
        r.foreground_events.push(WaitEventRow {
            name: "cell single block physical".into(),
            waits: Some(1000.0),
            time_s: Some(share_s),
            ..Default::default()
        });
        r
    }

    #[test]
    fn cell_reads_split_at_one_and_two_milliseconds() {
        // <512us (9), <1ms (10), <2ms (11), <4ms (12).
        let r = exadata(&[(9, 300), (10, 400), (11, 100), (12, 200)], 50.0);
        assert_eq!(
            cell_tiers(&r),
            Some(CellTiers {
                flash: 700.0,
                between: 100.0,
                disk: 200.0
            })
        );
        let mut out = Vec::new();
        exadata_reads(&r, &mut out);
        assert_eq!(out[0].severity, Severity::Info);
        assert!(
            out[0].text.contains("70.0 % of the waits under 1 ms")
                && out[0].text.contains("20.0 % from 2 ms")
                && out[0].text.contains("the flash cache answered most"),
            "{}",
            out[0].text
        );
        assert!(!out[0].text.contains("own split"), "a cut name is no split");
        let mut r = r;
        r.foreground_events.push(WaitEventRow {
            name: "cell single block physical read: flash cache".into(),
            waits: Some(700.0),
            time_s: Some(0.28),
            ..Default::default()
        });
        let mut out = Vec::new();
        exadata_reads(&r, &mut out);
        assert!(
            out[0].text.contains("the report's own split: 'cell single block physical read: flash cache' 700 waits at 400 µs"),
            "{}",
            out[0].text
        );
        // Half on the disks and a tenth of DB time: a notice; under
        // either, information.
        let r = exadata(&[(10, 500), (13, 500)], 100.0);
        let mut out = Vec::new();
        exadata_reads(&r, &mut out);
        assert_eq!(out[0].severity, Severity::Notice);
        assert!(out[0].text.contains("missed the flash cache"));
        let r = exadata(&[(10, 501), (13, 499)], 100.0);
        let mut out = Vec::new();
        exadata_reads(&r, &mut out);
        assert_eq!(out[0].severity, Severity::Info);
        let r = exadata(&[(10, 500), (13, 500)], 99.0);
        let mut out = Vec::new();
        exadata_reads(&r, &mut out);
        assert_eq!(out[0].severity, Severity::Info);
    }

    #[test]
    fn only_the_cell_read_histogram_is_read_as_cell_tiers() {
        // The Exadata section's Redo Write Histogram is not an event.
        let mut r = exadata(&[(10, 10)], 1.0);
        r.histograms[0].event = "redo log write completions".into();
        assert!(cell_tiers(&r).is_none());
        assert!(tiers(&r).is_empty());
    }
}
