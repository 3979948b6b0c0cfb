//! `dbio calibrate` in words: tiers whose latencies overlap so much that
//! no threshold separates them, and where the calibration was saved. The
//! measurement's remarks on how it set the thresholds (a tier that could
//! not be provoked, a tier merged into another) travel in the calibration
//! file's `notes`, because they explain the two numbers wherever the file
//! goes.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use dbio_model::calibrate::{Boundary, Calibration, INSEPARABLE_ERROR};
use dbio_model::units::format_ns;
use dbio_model::RunReport;

/// The calibration rules.
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "calibrate",
    evaluate,
};

fn evaluate(r: &RunReport) -> Vec<Finding> {
    let Some(c) = &r.calibration else {
        return Vec::new();
    };
    let mut out = overlaps(c);
    out.extend(saved(c));
    out
}

/// Two measured tiers that latency alone cannot tell apart.
pub fn overlaps(c: &Calibration) -> Vec<Finding> {
    let pairs: [(&Option<Boundary>, &str, &str); 2] = [
        (
            &c.page_storage_boundary,
            "page-cache hits",
            "storage-cache hits",
        ),
        (
            &c.storage_device_boundary,
            "storage-cache hits",
            "device reads",
        ),
    ];
    pairs
        .into_iter()
        .filter_map(|(b, a, z)| overlap("calibrate.overlap", b.as_ref()?, a, z))
        .collect()
}

/// The finding `rule` that the tiers `a` (the faster) and `z` overlap at
/// `b`, when [`INSEPARABLE_ERROR`] or more of their reads land on the wrong
/// side; `None` when they separate. `dbio check`'s read section words its
/// overlaps the same way.
pub fn overlap(rule: &str, b: &Boundary, a: &str, z: &str) -> Option<Finding> {
    let err = b.faster_misclassified + b.slower_misclassified;
    (err >= INSEPARABLE_ERROR).then(|| {
        finding(
            rule,
            None,
            Severity::Notice,
            format!(
                "{a} and {z} overlap: at the best boundary ({}) {:.0} % of {a} and {:.0} % of {z} land on the wrong side, so latency alone cannot tell them apart on this storage",
                format_ns(b.ns as f64),
                100.0 * b.faster_misclassified,
                100.0 * b.slower_misclassified
            ),
            vec![
                ev("best boundary", b.ns as f64, "ns"),
                ev(&format!("{a} at or above it"), 100.0 * b.faster_misclassified, "%"),
                ev(&format!("{z} below it"), 100.0 * b.slower_misclassified, "%"),
            ],
            Some(doc("docs/read.md")),
        )
    })
}

/// Where the calibration was saved, and how to use it.
fn saved(c: &Calibration) -> Vec<Finding> {
    let Some(shown) = c.saved_to.as_deref() else {
        return Vec::new();
    };
    vec![finding(
        "calibrate.saved",
        None,
        Severity::Info,
        format!(
            "saved to {shown}: use it with dbio read --calibration {shown} or dbio tracefile --calibration {shown}"
        ),
        Vec::new(),
        Some(doc("docs/read.md")),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_overlap_from_half_misclassified() {
        let at = |faster: f64, slower: f64| Calibration {
            storage_device_boundary: Some(Boundary {
                ns: 43_000,
                faster_misclassified: faster,
                slower_misclassified: slower,
            }),
            ..Default::default()
        };
        assert!(overlaps(&at(0.3, 0.19)).is_empty(), "0.49");
        let f = overlaps(&at(0.3, 0.2));
        assert_eq!(f.len(), 1, "0.5");
        assert_eq!(
            f[0].text,
            "storage-cache hits and device reads overlap: at the best boundary (43.0 µs) 30 % of storage-cache hits and 20 % of device reads land on the wrong side, so latency alone cannot tell them apart on this storage"
        );
        assert!(overlaps(&Calibration::default()).is_empty());
    }

    #[test]
    fn only_a_saved_calibration_says_where() {
        let mut r = RunReport {
            calibration: Some(Calibration::default()),
            ..Default::default()
        };
        assert!(evaluate(&r).is_empty());
        r.calibration.as_mut().unwrap().saved_to = Some("c.json".into());
        assert!(evaluate(&r)[0]
            .text
            .starts_with("saved to c.json: use it with dbio read --calibration c.json"));
    }
}
