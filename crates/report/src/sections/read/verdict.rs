//! The answer `dbio read` gives: did the reads measure the storage, or
//! memory? Each cache state's read time is split by tier (Kyle Hailey's
//! "Oracle 'Physical I/O'? not always physical": a 'db file sequential
//! read' average that is fast because the OS cached the file):
//!
//! - no block device under a memory filesystem (tmpfs, ramfs): every read
//!   was memory's;
//! - buffered reads with page-cache hits two thirds of the read time or
//!   more: served from memory ([`VerdictClass::PageCache`]);
//! - O_DIRECT reads: what the storage gives a database (never a
//!   page-cache hit, whatever the latency: its tiers are the storage's
//!   cache and the device);
//! - buffered reads with the storage's tiers two thirds of the read time
//!   or more: storage-bound; else mixed.
//!
//! Several states answer each; when their classes differ the class is
//! mixed (the contrast is the answer).

use crate::kit::findings::pct;
use crate::verdict::TOP;
use dbio_model::read::{ReadResult, Tier};
use dbio_model::units::format_ns;
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// The page cache's (or the storage's) share of the read time, percent,
/// from which it answers alone: two thirds; between, the two share it.
pub const ANSWER_PCT: f64 = 200.0 / 3.0;

/// The verdict of a `dbio read` result (`check`'s read section answers
/// within check's own).
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    if r.command != "read" {
        return None;
    }
    let ran: Vec<&ReadResult> = r.reads.iter().filter(|x| x.tiers.count() > 0).collect();
    let first = *ran.first()?;
    let memory = matches!(r.environment.fs_type.as_str(), "tmpfs" | "ramfs");
    let answers: Vec<(VerdictClass, String)> = ran.iter().map(|x| one(x, memory)).collect();
    let class = if answers.iter().all(|a| a.0 == answers[0].0) {
        answers[0].0
    } else {
        VerdictClass::Mixed
    };
    let answer = if answers.len() == 1 {
        answers[0].1.clone()
    } else {
        ran.iter()
            .zip(&answers)
            .map(|(x, a)| format!("{}: {}", x.name, a.1))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let c = &first.config;
    let question = format!(
        "Do these reads measure the storage? (dbio read, {} reads, {}, {})",
        dbio_model::units::format_bytes(c.bs),
        if c.direct { "O_DIRECT" } else { "buffered" },
        r.environment.target
    );
    // Each state's largest tier, then the ranked rest.
    let mut t: Vec<usize> = Vec::new();
    for x in &ran {
        if let Some(i) = fs
            .iter()
            .position(|f| f.rule == "read.tier_time" && f.subject.as_deref() == Some(&x.name))
        {
            t.push(i);
        }
    }
    t.truncate(TOP);
    let t = crate::verdict::top_after(t, fs);
    Some(Verdict {
        question,
        class,
        answer,
        top: t,
    })
}

/// One state's class and sentence; `memory` when the file is on a memory
/// filesystem.
pub fn one(x: &ReadResult, memory: bool) -> (VerdictClass, String) {
    let t = &x.tiers;
    let time = |k| 100.0 * t.time_share(k);
    let reads = |k| 100.0 * t.share(k);
    let figures = format!(
        "median {}, mean {}",
        format_ns(x.lat.p50_ns() as f64),
        format_ns(x.lat.mean_ns)
    );
    if memory {
        return (
            VerdictClass::PageCache,
            format!(
                "Served from memory: no block device under the file, so every read ({figures}) was memory's, not a storage's"
            ),
        );
    }
    let storage = time(Tier::StorageCache) + time(Tier::Device);
    let split = format!(
        "{} of the read time storage-cache hits and {} device reads ({})",
        pct(time(Tier::StorageCache)),
        pct(time(Tier::Device)),
        if x.thresholds.has_device_tier() {
            format!(
                "device reads from {}, {}",
                format_ns(x.thresholds.storage_cache_max_ns as f64),
                x.thresholds.source
            )
        } else {
            format!("no device tier, {}", x.thresholds.source)
        }
    );
    if x.config.direct {
        return (
            VerdictClass::Capability,
            format!(
                "O_DIRECT reads from this storage take {figures}: {split}; an O_DIRECT read is never a page-cache hit"
            ),
        );
    }
    let page = time(Tier::PageCache);
    if page >= ANSWER_PCT {
        (
            VerdictClass::PageCache,
            format!(
                "Served from memory: page-cache hits are {} of the read time ({} of the reads, under {} each; {figures}): these reads measured the page cache, not the storage",
                pct(page),
                pct(reads(Tier::PageCache)),
                format_ns(x.thresholds.page_cache_max_ns as f64),
            ),
        )
    } else if storage >= ANSWER_PCT {
        (
            VerdictClass::StorageBound,
            format!("Storage-bound: {figures}; {split}"),
        )
    } else {
        (
            VerdictClass::Mixed,
            format!(
                "Mixed: page-cache hits are {} of the read time ({figures}); {split}",
                pct(page)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::read::{TierSplit, TierTally};

    /// A state whose page-cache, storage-cache and device reads took
    /// `page`, `cache` and `device` ns in all (100 reads each).
    fn x(name: &str, direct: bool, page: u64, cache: u64, device: u64) -> ReadResult {
        let tally = |total_ns| TierTally {
            count: if total_ns > 0 { 100 } else { 0 },
            total_ns,
        };
        let mut x = ReadResult {
            name: name.into(),
            tiers: TierSplit {
                page_cache: tally(page),
                storage_cache: tally(cache),
                device: tally(device),
            },
            ..Default::default()
        };
        x.config.direct = direct;
        x.config.bs = 8192;
        x.thresholds = Default::default();
        x
    }

    fn answer(xs: Vec<ReadResult>, fs_type: &str) -> Verdict {
        let mut r = RunReport {
            command: "read".into(),
            reads: xs,
            ..Default::default()
        };
        r.environment.fs_type = fs_type.into();
        let fs = crate::verdict::rank((super::super::findings::RULES.evaluate)(&r));
        verdict(&r, &fs).unwrap()
    }

    /// Page-cache hits at two thirds of the read time: memory; the
    /// storage's tiers at two thirds: storage-bound; between: mixed.
    #[test]
    fn page_cache_or_storage_at_two_thirds_of_the_read_time() {
        let v = answer(vec![x("warm", false, 67, 0, 33)], "ext4");
        assert_eq!(v.class, VerdictClass::PageCache, "{}", v.answer);
        assert!(
            v.answer
                .starts_with("Served from memory: page-cache hits are 67 % of the read time"),
            "{}",
            v.answer
        );
        let v = answer(vec![x("cold", false, 33, 11, 56)], "ext4");
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer
                .contains("11 % of the read time storage-cache hits and 56 % device reads"),
            "{}",
            v.answer
        );
        assert_eq!(
            answer(vec![x("s", false, 66, 0, 34)], "ext4").class,
            VerdictClass::Mixed
        );
        assert_eq!(
            answer(vec![x("s", false, 34, 0, 66)], "ext4").class,
            VerdictClass::Mixed
        );
    }

    /// O_DIRECT: what the storage gives, never a page-cache hit; tmpfs:
    /// memory; two states that differ: mixed, each answered. The top
    /// finding carries the tier's share of the read time.
    #[test]
    fn direct_memory_and_two_states() {
        let v = answer(vec![x("cold", true, 0, 30, 70)], "ext4");
        assert_eq!(v.class, VerdictClass::Capability, "{}", v.answer);
        assert!(v
            .answer
            .ends_with("an O_DIRECT read is never a page-cache hit"));
        assert_eq!(
            answer(vec![x("cold", true, 0, 30, 70)], "tmpfs").class,
            VerdictClass::PageCache
        );
        let v = answer(
            vec![x("cold", false, 10, 0, 90), x("warm", false, 90, 0, 10)],
            "ext4",
        );
        assert_eq!(v.class, VerdictClass::Mixed, "{}", v.answer);
        assert!(v.answer.starts_with("cold: Storage-bound"), "{}", v.answer);
        assert!(
            v.answer.contains("; warm: Served from memory"),
            "{}",
            v.answer
        );
        let mut r = RunReport {
            command: "read".into(),
            reads: vec![x("cold", false, 10, 0, 90)],
            ..Default::default()
        };
        let fs = crate::verdict::rank((super::super::findings::RULES.evaluate)(&r));
        let v = verdict(&r, &fs).unwrap();
        let f = &fs[v.top[0]];
        assert_eq!(f.rule, "read.tier_time");
        assert!(
            f.text
                .starts_with("cold: device reads are 90 % of the read time"),
            "{}",
            f.text
        );
        assert_eq!(f.impact.as_ref().unwrap().of, "read time");
        r.command = "check".into();
        assert!(verdict(&r, &fs).is_none());
    }
}
