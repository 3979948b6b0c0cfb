//! The answer `dbio calibrate` gives: the tier boundaries it measured on
//! this storage, each tier's median read, and which tiers latency cannot
//! tell apart here. It measures the storage itself, so its class is
//! [`VerdictClass::Capability`]; a calibration that measured no tier is
//! inconclusive.

use crate::verdict::{top, TOP};
use dbio_model::calibrate::{Calibration, TierMeasurement};
use dbio_model::units::format_ns;
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// The verdict of a `dbio calibrate` result.
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    if r.command != "calibrate" {
        return None;
    }
    let c = r.calibration.as_ref()?;
    let on = match &c.block_device {
        Some(d) => format!("{} on {d}", c.fs_type),
        None => c.fs_type.clone(),
    };
    let (class, answer) = answer(c);
    Some(Verdict {
        question: format!("Where are the tier boundaries on this storage? (dbio calibrate, {on})"),
        class,
        answer,
        top: top(fs, TOP),
    })
}

fn median(t: &Option<TierMeasurement>) -> Option<String> {
    t.as_ref()
        .filter(|m| m.lat.count > 0)
        .map(|m| format_ns(m.lat.p50_ns() as f64))
}

/// The class and sentence of one calibration.
pub fn answer(c: &Calibration) -> (VerdictClass, String) {
    let (page, cache, device) = (
        median(&c.page_cache),
        median(&c.storage_cache),
        median(&c.device),
    );
    if page.is_none() && cache.is_none() && device.is_none() {
        return (
            VerdictClass::Inconclusive,
            "no tier was measured, so no boundary could be drawn".into(),
        );
    }
    let at = |ns: u64| format_ns(ns as f64);
    let with = |m: &Option<String>| {
        m.as_ref()
            .map_or(String::new(), |m| format!(" (median {m})"))
    };
    let mut parts = vec![format!(
        "page-cache hits under {}{}",
        at(c.page_cache_max_ns),
        with(&page)
    )];
    if c.storage_cache_max_ns == u64::MAX {
        parts.push(format!(
            "no device tier ({})",
            c.no_device_tier
                .clone()
                .unwrap_or_else(|| "no block device under the file".into())
        ));
        if let Some(m) = &cache {
            parts.push(format!(
                "every other read from memory (O_DIRECT re-reads, median {m})"
            ));
        }
    } else if c.storage_cache_max_ns <= c.page_cache_max_ns {
        parts.push(format!(
            "no separate storage-cache tier{}",
            cache.as_ref().map_or(String::new(), |m| format!(
                " (O_DIRECT re-reads of a block just read, median {m}, are no faster than device reads)"
            ))
        ));
        parts.push(format!(
            "device reads from {}{}",
            at(c.storage_cache_max_ns),
            with(&device)
        ));
    } else {
        parts.push(format!(
            "storage-cache hits under {}{}",
            at(c.storage_cache_max_ns),
            with(&cache)
        ));
        parts.push(format!("device reads from there on{}", with(&device)));
    }
    let overlapping: Vec<&str> = [
        (
            &c.page_storage_boundary,
            "page-cache from storage-cache hits",
        ),
        (
            &c.storage_device_boundary,
            "storage-cache hits from device reads",
        ),
    ]
    .into_iter()
    .filter(|(b, _)| b.as_ref().is_some_and(|b| b.inseparable()))
    .map(|(_, w)| w)
    .collect();
    let mut s = format!("Measured here: {}", parts.join(", "));
    if !overlapping.is_empty() {
        s.push_str(&format!(
            "; latency alone cannot tell {} on this storage",
            overlapping.join(" nor ")
        ));
    }
    (VerdictClass::Capability, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::calibrate::Boundary;
    use dbio_model::{LatencySummary, Percentile};

    fn tier(p50: u64) -> Option<TierMeasurement> {
        Some(TierMeasurement {
            method: String::new(),
            lat: LatencySummary {
                count: 100,
                percentiles: vec![Percentile { p: 50.0, ns: p50 }],
                ..Default::default()
            },
        })
    }

    fn c(page_max: u64, cache_max: u64) -> Calibration {
        Calibration {
            page_cache_max_ns: page_max,
            storage_cache_max_ns: cache_max,
            page_cache: tier(2_000),
            storage_cache: tier(40_000),
            device: tier(200_000),
            ..Default::default()
        }
    }

    #[test]
    fn three_tiers_one_merged_or_no_device() {
        let (class, s) = answer(&c(20_000, 100_000));
        assert_eq!(class, VerdictClass::Capability);
        assert_eq!(
            s,
            "Measured here: page-cache hits under 20.0 µs (median 2.00 µs), storage-cache hits under 100 µs (median 40.0 µs), device reads from there on (median 200 µs)"
        );
        // The storage-cache boundary at the page-cache one: no separate
        // tier; overlapping tiers are named.
        let mut m = c(20_000, 20_000);
        m.storage_device_boundary = Some(Boundary {
            ns: 36_900,
            faster_misclassified: 1.0,
            slower_misclassified: 0.0,
        });
        let (_, s) = answer(&m);
        assert!(
            s.contains("no separate storage-cache tier (O_DIRECT re-reads"),
            "{s}"
        );
        assert!(
            s.contains("device reads from 20.0 µs (median 200 µs)"),
            "{s}"
        );
        assert!(
            s.ends_with(
                "latency alone cannot tell storage-cache hits from device reads on this storage"
            ),
            "{s}"
        );
        let mut t = c(20_000, u64::MAX);
        t.no_device_tier = Some("tmpfs has no block device".into());
        let (_, s) = answer(&t);
        assert!(
            s.contains("no device tier (tmpfs has no block device)"),
            "{s}"
        );
        let (class, _) = answer(&Calibration::default());
        assert_eq!(class, VerdictClass::Inconclusive);
    }

    #[test]
    fn only_calibrate_answers() {
        let r = RunReport {
            command: "check".into(),
            calibration: Some(c(20_000, 100_000)),
            ..Default::default()
        };
        assert!(verdict(&r, &[]).is_none());
    }
}
