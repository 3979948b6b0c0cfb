//! Datafile reads in words (`dbio read` and the read section of `dbio
//! check`): how each cache state's reads split over the tiers, how far
//! apart the states are and whether the thresholds separate the tiers on
//! this storage, and what the page cache did to the figures.
//!
//! The reading follows Kyle Hailey's "Oracle “Physical I/O”? not always
//! physical": two databases whose 'db file sequential read' averages
//! differ only because the OS cached more of one of them.

use super::references::{doc, physical_io_not_always_physical};
use super::{ev, finding, Finding, RuleSet, Severity};
use dbio_model::read::{ReadResult, Tier};
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
/// In `check`, O_DIRECT reads of which more than this share fall under the
/// page-cache threshold show that fast reads are no proof of OS caching.
pub const FAST_STORAGE_SHARE: f64 = 0.5;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    let mut out: Vec<Finding> = r.reads.iter().flat_map(cache_notes).collect();
    match r.command.as_str() {
        "read" => out.extend(compare(&r.reads)),
        "check" => out.extend(check_section(&r.reads)),
        _ => {}
    }
    out
}

/// What the page cache did to one state's figures.
pub fn cache_notes(r: &ReadResult) -> Vec<Finding> {
    let s = &r.settings;
    let mut out = Vec::new();
    if s.direct && s.cached_pct > 0.0 {
        out.push(finding(
            "read.direct_cached",
            Some(&r.name),
            Severity::Notice,
            format!(
                "{}: O_DIRECT bypasses the page cache: 'cached {}%' read that share once with O_DIRECT, which warms only a cache below the OS",
                r.name, s.cached_pct
            ),
            vec![ev("share read beforehand", s.cached_pct, "%")],
            Some(doc("docs/read.md")),
        ));
    }
    if !s.direct && s.cached_pct < 100.0 && r.tiers.page_cache.count > 0 {
        out.push(finding(
            "read.buffered_warms",
            Some(&r.name),
            Severity::Notice,
            format!(
                "{}: buffered reads fill the page cache as they go, so a cold file warms up during the run (as the development database in Kyle Hailey's \"Oracle 'Physical I/O'? not always physical\" would after a few runs)",
                r.name
            ),
            vec![
                ev("share read beforehand", s.cached_pct, "%"),
                ev("page-cache hits", r.tiers.page_cache.count as f64, "count"),
            ],
            Some(physical_io_not_always_physical()),
        ));
    }
    out
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

/// `dbio check`'s read section: a warm buffered state, then (when the
/// filesystem takes O_DIRECT) the same file read with O_DIRECT.
fn check_section(reads: &[ReadResult]) -> Vec<Finding> {
    let p50 = |r: &ReadResult| r.lat.p50_ns() as f64;
    match reads {
        [warm, storage] => {
            let th = &storage.thresholds;
            let fast = storage.tiers.share(Tier::PageCache);
            let slow = storage.tiers.share(Tier::Device);
            let page = format_ns(th.page_cache_max_ns as f64);
            let (verdict, reference) = if fast > FAST_STORAGE_SHARE {
                (
                    format!("so reads under {page} in a trace from this machine are not proof of OS caching (a cache in front of the media, the hypervisor's or the array's, or fast flash answers that fast)"),
                    physical_io_not_always_physical(),
                )
            } else {
                (
                    format!("so reads under {page} in a trace from this machine point to the page cache"),
                    physical_io_not_always_physical(),
                )
            };
            let ratio = p50(storage) / p50(warm).max(1.0);
            vec![finding(
                "read.check_tiers",
                None,
                if fast > FAST_STORAGE_SHARE {
                    Severity::Notice
                } else {
                    Severity::Info
                },
                format!(
                    "Reads: an 8 KiB block costs {} from the page cache and {} from storage (medians, {ratio:.0}x apart); {:.0} % of the storage reads took under {page} and {:.1} % over {}, {verdict}; `dbio calibrate` measures this machine's tier boundaries",
                    format_ns(p50(warm)),
                    format_ns(p50(storage)),
                    100.0 * fast,
                    100.0 * slow,
                    if th.has_device_tier() {
                        format_ns(th.storage_cache_max_ns as f64)
                    } else {
                        "the storage-cache threshold".into()
                    },
                ),
                vec![
                    ev("median page-cache read", p50(warm), "ns"),
                    ev("median O_DIRECT read", p50(storage), "ns"),
                    ev("O_DIRECT reads under the page-cache threshold", 100.0 * fast, "%"),
                    ev("O_DIRECT reads at or over the storage-cache threshold", 100.0 * slow, "%"),
                    ev("page-cache threshold", th.page_cache_max_ns as f64, "ns"),
                ],
                Some(reference),
            )]
        }
        [warm] => vec![finding(
            "read.check_no_direct",
            None,
            Severity::Notice,
            format!(
                "Reads: an 8 KiB block costs {} from the page cache (median); no O_DIRECT here, so storage reads could not be measured apart from memory",
                format_ns(p50(warm))
            ),
            vec![ev("median page-cache read", p50(warm), "ns")],
            Some(doc("docs/read.md")),
        )],
        _ => Vec::new(),
    }
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
        r.settings.cached_pct = 100.0;
        assert!(cache_notes(&r).is_empty());
        r.settings.direct = true;
        assert!(cache_notes(&r)[0].text.contains("O_DIRECT bypasses"));
        r.settings.cached_pct = 0.0;
        assert!(cache_notes(&r).is_empty());
    }

    #[test]
    fn check_says_fast_storage_reads_are_no_proof_above_half() {
        let warm = state("warm", 1_000.0, 100, 0);
        for (page_hits, words, sev) in [
            (51, "are not proof of OS caching", Severity::Notice),
            (50, "point to the page cache", Severity::Info),
        ] {
            let mut storage = state("storage", 50_000.0, page_hits, 100 - page_hits);
            storage.thresholds = Default::default();
            let f = check_section(&[warm.clone(), storage]);
            assert_eq!(f.len(), 1);
            assert!(f[0].text.starts_with("Reads: an 8 KiB block costs"));
            assert!(f[0].text.contains("took under 100 µs"), "{}", f[0].text);
            assert!(f[0].text.contains(words), "{}", f[0].text);
            assert_eq!(f[0].severity, sev);
        }
        assert!(check_section(&[warm])[0].text.contains("no O_DIRECT here"));
    }
}
