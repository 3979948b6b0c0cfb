//! Datafile reads in words (`dbio read` and the read section of `dbio
//! check`): how each cache state's reads split over the tiers, how far
//! apart the states are and whether the thresholds separate the tiers on
//! this storage, and what the page cache did to the figures.
//!
//! The reading follows Kyle Hailey's "Oracle “Physical I/O”? not always
//! physical": two databases whose 'db file sequential read' averages
//! differ only because the OS cached more of one of them.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, pct, Finding, Severity};
use crate::kit::references::{doc, physical_io_not_always_physical};
use crate::verdict::severity_of_share;
use dbio_model::read::{BoundarySource, ReadResult, Tier, TierAttribution};
use dbio_model::units::format_ns;
use dbio_model::RunReport;

/// The read rules (the `reads` section of `read` and `check`).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "read",
    evaluate,
};

/// A state whose page-cache share is within this of the fastest state's,
/// yet whose mean is more than [`SEPARATE_MEAN_RATIO`] times it, shows
/// that the thresholds do not separate the tiers (a share, 0..=1).
pub const SEPARATE_SHARE_GAP: f64 = 0.1;
/// See [`SEPARATE_SHARE_GAP`].
pub const SEPARATE_MEAN_RATIO: f64 = 2.0;
/// In `check`, O_DIRECT reads of which more than this share are faster
/// than the measured page-cache boundary show that fast reads are no proof
/// of OS caching.
pub const FAST_STORAGE_SHARE: f64 = 0.5;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    let mut out: Vec<Finding> = r.reads.iter().flat_map(cache_notes).collect();
    match r.command.as_str() {
        "read" => {
            out.extend(r.reads.iter().flat_map(tier_time));
            out.extend(compare(&r.reads));
        }
        // The battery's jobs ran with O_DIRECT where the filesystem took it.
        "check" => out.extend(check_section(&r.reads, r.jobs.iter().any(|j| j.job.direct))),
        _ => {}
    }
    out
}

/// What the page cache did to one state's figures.
pub fn cache_notes(r: &ReadResult) -> Vec<Finding> {
    let (direct, cached_pct) = (r.config.direct, r.cached_pct);
    let mut out = Vec::new();
    if direct && cached_pct > 0.0 {
        out.push(finding(
            "read.direct_cached",
            Some(&r.name),
            Severity::Notice,
            format!(
                "{}: O_DIRECT bypasses the page cache: 'cached {}%' read that share once with O_DIRECT, which warms only a cache below the OS",
                r.name, cached_pct
            ),
            vec![ev("share read beforehand", cached_pct, "%")],
            Some(doc("docs/read.md")),
        ));
    }
    if !direct && cached_pct < 100.0 && r.tiers.page_cache.count > 0 {
        out.push(finding(
            "read.buffered_warms",
            Some(&r.name),
            Severity::Notice,
            format!(
                "{}: buffered reads fill the page cache as they go, so a cold file warms up during the run (as the development database in Kyle Hailey's \"Oracle 'Physical I/O'? not always physical\" would after a few runs)",
                r.name
            ),
            vec![
                ev("share read beforehand", cached_pct, "%"),
                ev("page-cache hits", r.tiers.page_cache.count as f64, "count"),
            ],
            Some(physical_io_not_always_physical()),
        ));
    }
    out
}

/// Each tier's share of one state's read time: every tier at or above a
/// tenth, and the largest always, each saying whether the storage served
/// it (an O_DIRECT read is never a page-cache hit: its tiers are the
/// storage's cache and the device).
pub fn tier_time(r: &ReadResult) -> Vec<Finding> {
    let t = &r.tiers;
    if t.count() == 0 {
        return Vec::new();
    }
    let largest = Tier::ALL
        .into_iter()
        .max_by(|a, b| t.time_share(*a).total_cmp(&t.time_share(*b)))
        .expect("three tiers");
    Tier::ALL
        .into_iter()
        .filter(|&k| t.get(k).count > 0 && (k == largest || t.time_share(k) >= 0.1))
        .map(|k| {
            let share = 100.0 * t.time_share(k);
            let tally = t.get(k);
            let reading = match k {
                Tier::PageCache => "memory, not the storage",
                Tier::StorageCache => {
                    "a cache below the OS (the array's, the controller's or the hypervisor's): the storage, not its media"
                }
                Tier::Device => "the device's latency",
            };
            finding(
                "read.tier_time",
                Some(&r.name),
                severity_of_share(share),
                format!(
                    "{}: {} reads are {} of the read time ({} reads, {} of them, mean {}): {reading}",
                    r.name,
                    k.label(),
                    pct(share),
                    tally.count,
                    pct(100.0 * t.share(k)),
                    format_ns(tally.mean_ns()),
                ),
                vec![
                    ev("share of the read time", share, "%"),
                    ev("reads", tally.count as f64, "count"),
                    ev("share of the reads", 100.0 * t.share(k), "%"),
                    ev("mean read", tally.mean_ns(), "ns"),
                ],
                Some(if k == Tier::PageCache {
                    physical_io_not_always_physical()
                } else {
                    doc("docs/read.md")
                }),
            )
            .with_impact(share, "read time")
        })
        .collect()
}

fn thresholds_text(r: &ReadResult) -> String {
    format!(
        "thresholds {} and {}, {}",
        format_ns(r.thresholds.page_cache_max_ns as f64),
        if r.thresholds.has_device_tier() {
            format_ns(r.thresholds.storage_cache_max_ns as f64)
        } else {
            "none".into()
        },
        r.thresholds.source
    )
}

/// Each state's tiers, then every state against the fastest.
pub fn compare(results: &[ReadResult]) -> Vec<Finding> {
    let mut out = Vec::new();
    let share = |r: &ReadResult, t| 100.0 * r.tiers.share(t);
    for r in results.iter().filter(|r| r.ops > 0) {
        out.push(finding(
            "read.tiers",
            Some(&r.name),
            Severity::Info,
            format!(
                "{}: mean {} over {} reads; {:.1} % page-cache hits, {:.1} % storage-cache hits, {:.1} % device reads ({})",
                r.name,
                format_ns(r.lat.mean_ns),
                r.ops,
                share(r, Tier::PageCache),
                share(r, Tier::StorageCache),
                share(r, Tier::Device),
                thresholds_text(r)
            ),
            vec![
                ev("mean read", r.lat.mean_ns, "ns"),
                ev("reads", r.ops as f64, "count"),
                ev("page-cache hits", share(r, Tier::PageCache), "%"),
                ev("storage-cache hits", share(r, Tier::StorageCache), "%"),
                ev("device reads", share(r, Tier::Device), "%"),
                ev("page-cache threshold", r.thresholds.page_cache_max_ns as f64, "ns"),
            ],
            Some(doc("docs/read.md")),
        ));
    }
    let ran: Vec<&ReadResult> = results.iter().filter(|r| r.ops > 0).collect();
    if ran.len() < 2 {
        return out;
    }
    let fast = *ran
        .iter()
        .min_by(|a, b| a.lat.mean_ns.total_cmp(&b.lat.mean_ns))
        .expect("two results");
    if fast.lat.mean_ns <= 0.0 {
        return out;
    }
    for r in ran {
        if std::ptr::eq(r, fast) {
            continue;
        }
        if r.config.direct {
            out.push(direct_states(r, fast));
            continue;
        }
        let (rs, fs) = (
            r.tiers.share(Tier::PageCache),
            fast.tiers.share(Tier::PageCache),
        );
        let ratio = r.lat.mean_ns / fast.lat.mean_ns;
        let mut text = format!(
            "{} averages {ratio:.1}x the latency of {} ({} vs {}) for the same reads; by latency {:.1} % of its reads were page-cache hits against {:.1} %",
            r.name,
            fast.name,
            format_ns(r.lat.mean_ns),
            format_ns(fast.lat.mean_ns),
            100.0 * rs,
            100.0 * fs,
        );
        let unseparated = fs - rs < SEPARATE_SHARE_GAP && ratio > SEPARATE_MEAN_RATIO;
        let (rule, severity, reference) = if unseparated {
            text.push_str(
                ": the thresholds do not separate the tiers on this storage (reads that missed the page cache are still faster than the page-cache boundary); measure them with dbio calibrate and pass --calibration",
            );
            (
                "read.thresholds_blind",
                Severity::Notice,
                doc("docs/read.md"),
            )
        } else {
            text.push_str(", so its 'physical' reads were not all physical");
            (
                "read.not_all_physical",
                Severity::Info,
                physical_io_not_always_physical(),
            )
        };
        out.push(finding(
            rule,
            Some(&r.name),
            severity,
            text,
            vec![
                ev(&format!("mean read, {}", r.name), r.lat.mean_ns, "ns"),
                ev(&format!("mean read, {}", fast.name), fast.lat.mean_ns, "ns"),
                ev("ratio", ratio, "x"),
                ev(&format!("page-cache hits, {}", r.name), 100.0 * rs, "%"),
                ev(&format!("page-cache hits, {}", fast.name), 100.0 * fs, "%"),
            ],
            Some(reference),
        ));
    }
    out
}

/// Two O_DIRECT states compared: neither read from the page cache, so a
/// difference is the storage's own cache (by latency) or the device.
fn direct_states(r: &ReadResult, fast: &ReadResult) -> Finding {
    let ratio = r.lat.mean_ns / fast.lat.mean_ns;
    let (rs, fs) = (
        r.tiers.share(Tier::StorageCache),
        fast.tiers.share(Tier::StorageCache),
    );
    finding(
        "read.direct_states",
        Some(&r.name),
        Severity::Info,
        format!(
            "{} averages {ratio:.1}x the latency of {} ({} vs {}); with O_DIRECT neither read from the page cache: by latency {:.1} % of its reads were storage-cache hits against {:.1} %",
            r.name,
            fast.name,
            format_ns(r.lat.mean_ns),
            format_ns(fast.lat.mean_ns),
            100.0 * rs,
            100.0 * fs,
        ),
        vec![
            ev(&format!("mean read, {}", r.name), r.lat.mean_ns, "ns"),
            ev(&format!("mean read, {}", fast.name), fast.lat.mean_ns, "ns"),
            ev("ratio", ratio, "x"),
            ev(&format!("storage-cache hits, {}", r.name), 100.0 * rs, "%"),
            ev(&format!("storage-cache hits, {}", fast.name), 100.0 * fs, "%"),
        ],
        Some(doc("docs/read.md")),
    )
}

/// `dbio check`'s read section: a warm buffered state, then (when the
/// filesystem takes O_DIRECT) the same file read with O_DIRECT, attributed
/// with boundaries measured in the same run. `direct_ok` says whether the
/// filesystem took O_DIRECT: with it but without O_DIRECT results (the
/// section was stopped or failed, and says so) nothing is said about
/// storage.
pub fn check_section(reads: &[ReadResult], direct_ok: bool) -> Vec<Finding> {
    let p50 = |r: &ReadResult| r.lat.p50_ns() as f64;
    let (warm, storage) = match reads {
        [warm] if !direct_ok => (warm, None),
        [warm, storage, ..] => (warm, Some(storage)),
        _ => return Vec::new(),
    };
    let Some(storage) = storage else {
        return vec![finding(
            "read.check_no_direct",
            None,
            Severity::Notice,
            format!(
                "Reads: an 8 KiB block costs {} from the page cache (median); no O_DIRECT here, so storage reads could not be measured apart from memory",
                format_ns(p50(warm))
            ),
            vec![ev("median page-cache read", p50(warm), "ns")],
            Some(doc("docs/read.md")),
        )];
    };
    let ratio = p50(storage) / p50(warm).max(1.0);
    let mut line = format!(
        "Reads: an 8 KiB block costs {} from the page cache and {} from storage (medians, {ratio:.0}x apart)",
        format_ns(p50(warm)),
        format_ns(p50(storage)),
    );
    let mut evidence = vec![
        ev("median page-cache read", p50(warm), "ns"),
        ev("median O_DIRECT read", p50(storage), "ns"),
    ];
    let mut severity = Severity::Info;
    let att = storage.attribution.as_ref();
    if let Some(b) = att.and_then(|a| a.page_cache_max.fit.as_ref()) {
        let at = format_ns(b.ns as f64);
        let fast = b.slower_misclassified;
        evidence.push(ev("measured page-cache boundary", b.ns as f64, "ns"));
        evidence.push(ev(
            "O_DIRECT reads faster than the boundary",
            100.0 * fast,
            "%",
        ));
        let reading = if b.inseparable() {
            severity = Severity::Notice;
            "so latency cannot tell a page-cache hit from a storage read on this machine"
                .to_string()
        } else if fast > FAST_STORAGE_SHARE {
            severity = Severity::Notice;
            format!("so reads under {at} in a trace from this machine are not proof of OS caching (a cache in front of the media, the hypervisor's or the array's, or fast flash answers that fast)")
        } else {
            format!("so reads under {at} in a trace from this machine point to the page cache")
        };
        line.push_str(&format!(
            "; {:.0} % of the O_DIRECT reads were faster than the page-cache boundary measured here ({at}), {reading}",
            100.0 * fast,
        ));
    }
    let t = &storage.tiers;
    let no_device = att.is_some_and(|a| a.storage_cache_max.source == BoundarySource::NoDevice);
    if no_device {
        line.push_str("; no block device under the file, so every O_DIRECT read was served from memory (an O_DIRECT read is never a page-cache hit, and none here is a device read)");
    } else {
        line.push_str(&format!(
            "; by the boundaries shown with the read tables, {:.1} % of the O_DIRECT reads were storage-cache hits and {:.1} % device reads (an O_DIRECT read is never a page-cache hit)",
            100.0 * t.share(Tier::StorageCache),
            100.0 * t.share(Tier::Device),
        ));
        evidence.push(ev(
            "O_DIRECT storage-cache hits",
            100.0 * t.share(Tier::StorageCache),
            "%",
        ));
        evidence.push(ev(
            "O_DIRECT device reads",
            100.0 * t.share(Tier::Device),
            "%",
        ));
    }
    let mut out = vec![finding(
        "read.check_tiers",
        None,
        severity,
        line,
        evidence,
        Some(physical_io_not_always_physical()),
    )];
    if let Some(a) = att {
        out.extend(check_tier_notes(a));
    }
    out
}

/// The sentences on tiers that latency cannot tell apart in check's read
/// section, as calibrate words them.
fn check_tier_notes(a: &TierAttribution) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(b) = &a.page_cache_max.fit {
        out.extend(crate::sections::calibrate::findings::overlap(
            "read.check_overlap",
            b,
            "page-cache hits",
            "O_DIRECT reads",
        ));
    }
    if let Some(b) = &a.storage_cache_max.fit {
        out.extend(crate::sections::calibrate::findings::overlap(
            "read.check_overlap",
            b,
            "O_DIRECT re-reads of a block just read",
            "O_DIRECT reads",
        ));
        if a.storage_cache_max.ns.is_none() {
            out.push(finding(
                "read.check_no_storage_tier",
                None,
                Severity::Info,
                if b.inseparable() {
                    "no separate storage-cache tier: every O_DIRECT read counts as a device read".into()
                } else {
                    format!(
                        "the storage-cache boundary ({}) fell at or below the page-cache one: no separate storage-cache tier, every O_DIRECT read counts as a device read",
                        format_ns(b.ns as f64)
                    )
                },
                vec![ev("measured storage-cache boundary", b.ns as f64, "ns")],
                Some(doc("docs/read.md")),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::read::TierSplit;

    fn state(name: &str, mean_ns: f64, page_hits: u64, other: u64) -> ReadResult {
        let mut r = ReadResult {
            name: name.into(),
            ops: page_hits + other,
            ..Default::default()
        };
        r.lat.mean_ns = mean_ns;
        r.tiers = TierSplit::default();
        r.tiers.page_cache.count = page_hits;
        r.tiers.device.count = other;
        r
    }

    #[test]
    fn thresholds_blind_only_when_shares_are_close_and_means_far() {
        // Share gap 0.09 (< 0.1), ratio 2.01 (> 2): blind.
        let f = compare(&[state("a", 100.0, 91, 9), state("b", 201.0, 82, 18)]);
        assert_eq!(f.len(), 3);
        assert_eq!(f[2].rule, "read.thresholds_blind");
        assert!(
            f[2].text.contains("the latency of a (201 ns vs 100 ns)"),
            "{}",
            f[2].text
        );
        // Ratio 1.99: not blind.
        let f = compare(&[state("a", 100.0, 91, 9), state("b", 199.0, 82, 18)]);
        assert_eq!(f[2].rule, "read.not_all_physical");
        // Share gap 0.11: not blind.
        let f = compare(&[state("a", 100.0, 91, 9), state("b", 300.0, 80, 20)]);
        assert_eq!(f[2].rule, "read.not_all_physical");
        assert!(f[2]
            .text
            .ends_with("so its 'physical' reads were not all physical"));
        // One state, or states that read nothing: tiers only.
        assert_eq!(
            compare(&[state("a", 1.0, 1, 0), state("b", 1.0, 0, 0)]).len(),
            1
        );
    }

    #[test]
    fn cache_notes_follow_the_settings() {
        let mut r = state("cold", 1.0, 1, 0);
        assert!(cache_notes(&r)[0].text.contains("warms up during the run"));
        r.cached_pct = 100.0;
        assert!(cache_notes(&r).is_empty());
        r.config.direct = true;
        assert!(cache_notes(&r)[0].text.contains("O_DIRECT bypasses"));
        r.cached_pct = 0.0;
        assert!(cache_notes(&r).is_empty());
    }

    #[test]
    fn check_reads_overlap_from_half_misclassified() {
        use dbio_model::calibrate::Boundary;
        use dbio_model::read::UsedBoundary;
        let warm = state("warm", 1_000.0, 100, 0);
        let at = |faster: f64, slower: f64| {
            let mut storage = state("storage", 50_000.0, 0, 100);
            storage.attribution = Some(TierAttribution {
                page_cache_max: UsedBoundary {
                    ns: Some(10_000),
                    source: BoundarySource::Measured,
                    fit: Some(Boundary {
                        ns: 10_000,
                        faster_misclassified: faster,
                        slower_misclassified: slower,
                    }),
                },
                direct: true,
                ..Default::default()
            });
            check_section(&[warm.clone(), storage], true)
        };
        let f = at(0.19, 0.3);
        assert_eq!(f.len(), 1, "0.49 misclassified: no overlap, {f:?}");
        assert!(f[0].text.contains("apart); 30 % of the O_DIRECT reads were faster than the page-cache boundary measured here (10.0 µs), so reads under 10.0 µs in a trace from this machine point to the page cache; by the boundaries shown with the read tables, 0.0 % of the O_DIRECT reads were storage-cache hits and 100.0 % device reads"), "{}", f[0].text);
        assert_eq!(f[0].severity, Severity::Info);
        let f = at(0.2, 0.3);
        assert_eq!(f.len(), 2, "0.5 misclassified: overlap, {f:?}");
        assert!(
            f[0].text.contains(
                "so latency cannot tell a page-cache hit from a storage read on this machine"
            ),
            "{}",
            f[0].text
        );
        assert!(f[1].text.starts_with("page-cache hits and O_DIRECT reads overlap: at the best boundary (10.0 µs) 20 % of page-cache hits and 30 % of O_DIRECT reads land on the wrong side"), "{}", f[1].text);
        assert_eq!(f[1].rule, "read.check_overlap");
    }

    #[test]
    fn check_without_o_direct_says_so_and_a_cut_short_section_says_nothing() {
        let mut warm = state("warm", 1_000.0, 100, 0);
        warm.cached_pct = 100.0;
        let f = check_section(std::slice::from_ref(&warm), false);
        assert!(f[0].text.contains("no O_DIRECT here"), "{}", f[0].text);
        // O_DIRECT works but its reads are missing (stopped or failed).
        assert!(check_section(std::slice::from_ref(&warm), true).is_empty());
        assert!(check_section(&[], false).is_empty());
        // Through a check report: the battery's jobs say whether O_DIRECT
        // worked (none here: no jobs).
        let r = RunReport {
            command: "check".into(),
            reads: vec![warm],
            ..Default::default()
        };
        assert_eq!(evaluate(&r)[0].rule, "read.check_no_direct");
    }
}
