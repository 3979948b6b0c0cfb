//! Terminal rendering of the `dbio read` section of a report.
//!
//! The layout follows Kyle Hailey's "Oracle 'Physical I/O'? not always
//! physical": cache states side by side (dev and prod
//! there, cold and warm here), one latency histogram per state on the
//! power-of-two microsecond buckets, and a tier table that says where the
//! time went. The tier column of the histogram marks the buckets each
//! threshold falls in, so the reader sees which peak is which tier.

use crate::kit::text::{lat_cells, new_table, right_align};
use comfy_table::Cell;
use dbio_model::read::{
    BoundarySource, ReadGroup, ReadResult, Tier, TierAttribution, TierThresholds, UsedBoundary,
};
use dbio_model::units::{format_bytes, format_count_rate, format_ns};
use dbio_model::{Log2Buckets, RunReport};
use std::fmt::Write;

/// Renders the read section (empty when the report has none).
pub fn render(r: &RunReport) -> String {
    let reads = &r.reads;
    if reads.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let s = &reads[0].config;
    let _ = writeln!(
        out,
        "Datafile reads: {} blocks, {} % multiblock reads of {} blocks, {} single-block reads, {}{}, {} thread(s) at queue depth {}, file {}, {} round(s)",
        format_bytes(s.bs),
        s.multiblock_pct,
        s.multiblock_count,
        s.distribution,
        s.engine.name(),
        if s.direct { ", O_DIRECT" } else { ", buffered" },
        s.threads,
        s.iodepth,
        format_bytes(s.size),
        s.rounds
    );
    match &reads[0].attribution {
        Some(a) => {
            let _ = writeln!(out, "Tier boundaries: {}", describe_attribution(a));
        }
        None => {
            let th = &reads[0].thresholds;
            let _ = writeln!(
                out,
                "Tier thresholds ({}): {}{}",
                th.source,
                describe(th),
                if s.direct {
                    "; an O_DIRECT read is never counted as a page-cache hit"
                } else {
                    ""
                }
            );
        }
    }
    out.push_str(&summary(reads));
    out.push_str(&tiers(reads));
    out.push_str(&groups(reads));
    out.push_str(&histogram(reads));
    for x in reads {
        out.push_str(&crate::kit::series::summary(&x.name, &x.per_second));
    }
    for x in reads {
        if let Some(st) = &x.stripe {
            let _ = write!(out, "{}: ", x.name);
            out.push_str(&crate::sections::jobs::fleet::stripe(st, x.runtime_ns));
        }
    }
    out
}

fn describe(th: &TierThresholds) -> String {
    if th.has_device_tier() {
        format!(
            "page cache < {} <= storage cache < {} <= device",
            format_ns(th.page_cache_max_ns as f64),
            format_ns(th.storage_cache_max_ns as f64)
        )
    } else {
        format!(
            "page cache < {} <= storage cache; no device tier",
            format_ns(th.page_cache_max_ns as f64)
        )
    }
}

/// The boundaries a run measured itself, each with its source and, when
/// measured, the shares of each side that land on the wrong side of it.
fn describe_attribution(a: &TierAttribution) -> String {
    let used = |b: &UsedBoundary, faster: &str| {
        let mut s = b.source.label().to_string();
        if let Some(f) = &b.fit {
            let _ = write!(
                s,
                "; on the wrong side: {:.1} % of {faster}, {:.1} % of O_DIRECT reads",
                100.0 * f.faster_misclassified,
                100.0 * f.slower_misclassified
            );
        }
        s
    };
    let page = a
        .page_cache_max
        .ns
        .map_or("-".into(), |ns| format_ns(ns as f64));
    let storage = match a.storage_cache_max.ns {
        _ if a.storage_cache_max.source == BoundarySource::NoDevice => {
            format!("storage cache ({})", a.storage_cache_max.source.label())
        }
        Some(ns) => format!(
            "storage cache < {} ({}{}) <= device",
            format_ns(ns as f64),
            used(&a.storage_cache_max, REREADS),
            a.rereads.as_ref().map_or(String::new(), |l| format!(
                "; {REREADS} median {}",
                format_ns(l.p50_ns() as f64)
            ))
        ),
        None => format!(
            "device (no separate storage-cache tier: {}, at the best boundary {}{})",
            used(&a.storage_cache_max, REREADS),
            a.storage_cache_max
                .fit
                .as_ref()
                .map_or("-".into(), |f| format_ns(f.ns as f64)),
            a.rereads.as_ref().map_or(String::new(), |l| format!(
                "; {REREADS} median {}",
                format_ns(l.p50_ns() as f64)
            ))
        ),
    };
    format!(
        "page cache < {page} ({}) <= {storage}; an O_DIRECT read is never counted as a page-cache hit",
        used(&a.page_cache_max, "page-cache hits")
    )
}

/// The reads that measure the storage-cache tier.
const REREADS: &str = "O_DIRECT re-reads";

/// False for a tier no read of `r` can be attributed to.
fn possible(r: &ReadResult, tier: Tier) -> bool {
    match (&r.attribution, tier) {
        (Some(a), Tier::PageCache) => !a.direct,
        (Some(a), Tier::StorageCache) => a.storage_cache_max.ns.is_some(),
        _ => tier != Tier::Device || r.thresholds.has_device_tier(),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

fn summary(reads: &[ReadResult]) -> String {
    let mut t = new_table(&[
        "state", "cached", "reads", "blocks", "IOPS", "mean", "p50", "p90", "p99", "p99.9", "max",
    ]);
    for r in reads {
        let cached = match &r.cached_before {
            Some(c) if c.total_pages > 0 => format!(
                "{} % (asked {} %)",
                (100.0 * c.fraction()).round(),
                r.cached_pct
            ),
            _ => format!("asked {} %", r.cached_pct),
        };
        let mut row = vec![
            Cell::new(&r.name),
            Cell::new(cached),
            Cell::new(r.ops),
            Cell::new(r.blocks),
            Cell::new(format_count_rate(r.iops)),
        ];
        row.extend(lat_cells(&r.lat));
        t.add_row(row);
    }
    right_align(&mut t);
    format!("{t}\n")
}

fn tiers(reads: &[ReadResult]) -> String {
    let mut t = new_table(&["state", "tier", "reads", "share", "mean", "share of time"]);
    for r in reads {
        for tier in Tier::ALL {
            if !possible(r, tier) {
                continue;
            }
            let c = r.tiers.get(tier);
            t.add_row(vec![
                Cell::new(&r.name),
                Cell::new(tier.label()),
                Cell::new(c.count),
                Cell::new(pct(r.tiers.share(tier))),
                Cell::new(if c.count > 0 {
                    format_ns(c.mean_ns())
                } else {
                    "-".into()
                }),
                Cell::new(pct(r.tiers.time_share(tier))),
            ]);
        }
    }
    right_align(&mut t);
    format!("Where the reads were served from (by latency):\n{t}\n")
}

fn group_row(state: &str, g: &ReadGroup) -> Vec<Cell> {
    let mut row = vec![
        Cell::new(state),
        Cell::new(g.kind.map_or("all", |k| k.event())),
        Cell::new(g.io_bytes.map_or("all".into(), format_bytes)),
        Cell::new(g.ops),
        Cell::new(g.blocks),
    ];
    row.extend(lat_cells(&g.lat));
    row.push(Cell::new(pct(g.tiers.share(Tier::PageCache))));
    row
}

fn groups(reads: &[ReadResult]) -> String {
    let mut t = new_table(&[
        "state",
        "event",
        "size",
        "reads",
        "blocks",
        "mean",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "page cache",
    ]);
    for r in reads {
        for g in &r.by_kind {
            t.add_row(group_row(&r.name, g));
            let sizes: Vec<&ReadGroup> = r.by_size.iter().filter(|s| s.kind == g.kind).collect();
            if sizes.len() > 1 {
                for s in sizes {
                    t.add_row(group_row(&r.name, s));
                }
            }
        }
    }
    right_align(&mut t);
    format!("By read type and size:\n{t}\n")
}

/// The tier a bucket's latencies belong to, or "mixed" when a threshold
/// falls inside it.
fn bucket_tier(b: usize, th: &TierThresholds) -> &'static str {
    bucket_tier_by(b, &|ns| th.classify(ns))
}

/// [`bucket_tier`] with the tier of a latency given.
fn bucket_tier_by(b: usize, tier_of: &dyn Fn(u64) -> Tier) -> &'static str {
    let lo_ns = if b == 0 { 0 } else { (1u64 << (b - 1)) * 1000 };
    let hi_ns = Log2Buckets::upper_us(b).saturating_mul(1000); // exclusive
    let (a, z) = (tier_of(lo_ns), tier_of(hi_ns - 1));
    if a == z {
        a.label()
    } else {
        "mixed"
    }
}

fn histogram(reads: &[ReadResult]) -> String {
    let first = reads
        .iter()
        .filter_map(|r| r.lat.log2_us.counts.iter().position(|&c| c > 0))
        .min();
    let last = reads
        .iter()
        .filter_map(|r| r.lat.log2_us.counts.iter().rposition(|&c| c > 0))
        .max();
    let (Some(first), Some(last)) = (first, last) else {
        return String::new();
    };
    let mut header = vec!["latency".to_string(), "tier".to_string()];
    for r in reads {
        header.push(format!("{} reads", r.name));
        header.push("%".into());
    }
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = new_table(&hdr);
    let th = &reads[0].thresholds;
    // Reads that are all O_DIRECT (`dbio read --direct`) have no
    // page-cache tier, however fast.
    let all_direct = reads
        .iter()
        .all(|r| r.attribution.as_ref().is_some_and(|a| a.direct));
    for b in first..=last {
        let tier = match &reads[0].attribution {
            Some(a) if all_direct => bucket_tier_by(b, &|ns| a.tier(ns)),
            _ => bucket_tier(b, th),
        };
        let mut row = vec![Cell::new(Log2Buckets::label(b)), Cell::new(tier)];
        for r in reads {
            let c = r.lat.log2_us.counts.get(b).copied().unwrap_or(0);
            let n = r.lat.log2_us.total().max(1);
            row.push(Cell::new(c));
            row.push(Cell::new(format!("{:.1}", 100.0 * c as f64 / n as f64)));
        }
        t.add_row(row);
    }
    right_align(&mut t);
    format!("Latency histogram (power-of-two µs buckets, as AWR and parsetrc.pl):\n{t}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_tiers_follow_the_thresholds() {
        let th = TierThresholds::default();
        // Bucket 7 is 64..128 µs: 100 µs falls inside it.
        assert_eq!(bucket_tier(7, &th), "mixed");
        assert_eq!(bucket_tier(6, &th), "page cache");
        assert_eq!(bucket_tier(8, &th), "storage cache");
        // Bucket 10 is 512..1024 µs, 1 ms = 1000 µs inside it.
        assert_eq!(bucket_tier(10, &th), "mixed");
        assert_eq!(bucket_tier(11, &th), "device");
    }

    #[test]
    fn measured_boundaries_are_shown_with_their_source_and_fit() {
        use dbio_model::calibrate::Boundary;
        use dbio_model::read::TierSplit;
        let att = TierAttribution {
            page_cache_max: UsedBoundary {
                ns: Some(31_000),
                source: BoundarySource::Measured,
                fit: Some(Boundary {
                    ns: 31_000,
                    faster_misclassified: 0.012,
                    slower_misclassified: 0.003,
                }),
            },
            storage_cache_max: UsedBoundary {
                ns: Some(1_000_000),
                source: BoundarySource::Default,
                fit: None,
            },
            direct: true,
            rereads: None,
        };
        let storage = ReadResult {
            name: "storage".into(),
            ops: 10,
            tiers: TierSplit::from_arrays([0, 9, 1], [0, 900, 2_000]),
            thresholds: att.thresholds(),
            attribution: Some(att.clone()),
            ..Default::default()
        };
        let s = render(&RunReport {
            reads: vec![storage.clone()],
            ..Default::default()
        });
        let line = s
            .lines()
            .find(|l| l.starts_with("Tier boundaries: "))
            .unwrap();
        assert!(
            line.contains("page cache < 31.0 µs (measured in this run; on the wrong side: 1.2 % of page-cache hits, 0.3 % of O_DIRECT reads)"),
            "{line}"
        );
        assert!(
            line.contains("storage cache < 1.00 ms (default, not measured here) <= device"),
            "{line}"
        );
        // The O_DIRECT result has no page-cache row.
        assert!(!s.lines().any(|l| l.contains("page cache ┆")), "{s}");
        assert!(s.lines().any(|l| l.contains("storage cache ┆")), "{s}");
        // No separate storage-cache tier: named, and no row for it.
        let mut one = storage;
        let a = one.attribution.as_mut().unwrap();
        a.storage_cache_max = UsedBoundary {
            ns: None,
            source: BoundarySource::Measured,
            fit: Some(Boundary {
                ns: 77_000,
                faster_misclassified: 0.1,
                slower_misclassified: 0.8,
            }),
        };
        a.rereads = Some(dbio_model::LatencySummary {
            count: 5,
            percentiles: vec![dbio_model::Percentile {
                p: 50.0,
                ns: 45_000,
            }],
            ..Default::default()
        });
        one.tiers = TierSplit::from_arrays([0, 0, 10], [0, 0, 2_900]);
        let s = render(&RunReport {
            reads: vec![one],
            ..Default::default()
        });
        assert!(s.contains("<= device (no separate storage-cache tier: measured in this run; on the wrong side: 10.0 % of O_DIRECT re-reads, 80.0 % of O_DIRECT reads, at the best boundary 77.0 µs; O_DIRECT re-reads median 45.0 µs)"), "{s}");
        assert!(!s.lines().any(|l| l.contains("storage cache ┆")), "{s}");
    }

    #[test]
    fn a_result_saved_before_attribution_renders_its_thresholds() {
        let r = ReadResult {
            name: "cold".into(),
            ops: 1,
            tiers: dbio_model::read::TierSplit::from_arrays([1, 0, 0], [10, 0, 0]),
            ..Default::default()
        };
        let mut v = serde_json::to_value(&r).unwrap();
        assert!(v.get("attribution").is_none());
        v.as_object_mut().unwrap().remove("attribution");
        let old: ReadResult = serde_json::from_value(v).unwrap();
        assert_eq!(old.attribution, None);
        let s = render(&RunReport {
            reads: vec![old],
            ..Default::default()
        });
        assert!(
            s.contains("Tier thresholds (default): page cache < 100 µs"),
            "{s}"
        );
        assert!(s.lines().any(|l| l.contains("page cache ┆")), "{s}");
    }

    #[test]
    fn empty_report_renders_nothing_and_a_result_renders_its_tables() {
        assert_eq!(render(&RunReport::default()), "");
        let mut lat = dbio_model::LatencySummary::default();
        lat.log2_us.record_us(5);
        lat.log2_us.record_us(300);
        let r = RunReport {
            reads: vec![ReadResult {
                name: "cold".into(),
                lat,
                ops: 2,
                ..Default::default()
            }],
            ..Default::default()
        };
        let s = render(&r);
        assert!(s.contains("Where the reads were served from"));
        assert!(s.contains("<8us") && s.contains("<512us"), "{s}");
    }
}
