//! One home for findings: every plain-words conclusion dbio prints is drawn
//! here, as a pure function of the result model.
//!
//! Why one place: conclusions used to be written where the numbers were
//! produced (the engine's check battery, the read and writer models, five
//! command files), so a sentence could not be tested without running I/O,
//! its thresholds were scattered, and the measurement code carried prose.
//! Here each rule reads a finished result and returns [`Finding`]s that
//! carry the numbers they rest on, a [`Severity`] and a [`Reference`]
//! (the public article or the file in `docs/` the rule comes from), so
//! the table, JSON and CSV show the same evidence, and every threshold is
//! unit-tested on hand-made result values just below and just above it.
//!
//! Registration: a rule set is one file with a `pub const RULES: RuleSet<T>`
//! for the result type `T` it reads, in the folder of its kind
//! (`sections/<kind>/findings.rs`). A measurement's rule sets are drawn by
//! their section ([`crate::sections::Section::findings`]), in the order of
//! [`SECTIONS`]; a trace analysis's are listed in [`TRACE_RULES`] and an
//! AWR or Statspack analysis's in [`AWR_RULES`]. A rule set decides itself
//! whether it applies (by `command`, or by the sections present).
//!
//! The [`Finding`] type itself lives in `dbio-model` (re-exported here):
//! every result carries its findings, and the model cannot depend on this
//! crate.

pub use crate::sections::awr::findings as awr;
pub use crate::sections::calibrate::findings as calibrate;
pub use crate::sections::check::findings as check;
pub use crate::sections::dbwr::findings as dbwr;
pub use crate::sections::lgwr::findings as commit;
pub use crate::sections::load::compare_findings as load_compare;
pub use crate::sections::load::findings as load;
pub use crate::sections::load::predict_findings as load_predict;
pub use crate::sections::matrix::findings as matrix;
pub use crate::sections::read::findings as read;
pub use crate::sections::snap::findings as snap;
pub use crate::sections::trace::findings as trace;
pub use crate::sections::watch::findings as watch;

pub use dbio_model::{Evidence, Finding, Reference, Severity};

pub use crate::kit::findings::RuleSet;
use crate::sections::SECTIONS;
use dbio_model::awr::AwrReport;
use dbio_model::trace::TraceReport;
use dbio_model::RunReport;

/// The rule sets over a trace analysis.
pub const TRACE_RULES: &[RuleSet<TraceReport>] = &[trace::RULES];

/// The rule sets over an AWR or Statspack analysis (the snapshot rules
/// draw only for a `dbio snap` interval).
pub const AWR_RULES: &[RuleSet<AwrReport>] = &[awr::RULES, snap::RULES];

/// Every finding the sections draw from `r`, in [`SECTIONS`]' order.
pub fn evaluate(r: &RunReport) -> Vec<Finding> {
    SECTIONS.iter().flat_map(|s| s.findings(r)).collect()
}

/// Every finding the registered rule sets draw from a trace analysis.
pub fn evaluate_trace(r: &TraceReport) -> Vec<Finding> {
    TRACE_RULES.iter().flat_map(|s| (s.evaluate)(r)).collect()
}

/// Every finding the registered rule sets draw from an AWR or Statspack
/// analysis.
pub fn evaluate_awr(r: &AwrReport) -> Vec<Finding> {
    AWR_RULES.iter().flat_map(|s| (s.evaluate)(r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::findings::{ev, evidence_line, finding};

    #[test]
    fn an_empty_report_has_no_findings_and_evidence_prints_with_units() {
        assert!(evaluate(&RunReport::default()).is_empty());
        let f = finding(
            "x.y",
            None,
            Severity::Info,
            "t".into(),
            vec![
                ev("median", 1_500_000.0, "ns"),
                ev("share", 12.345, "%"),
                ev("rate", 1234.0, "ops/s"),
                ev("ratio", 2.5, "x"),
                ev("batch", 18.25, "count"),
                ev("writes", 7.0, "count"),
                ev("max IOPS", 109_709.668_952_910_17, "IOPS"),
            ],
            None,
        );
        assert_eq!(
            evidence_line(&f),
            "median 1.50 ms; share 12.3 %; rate 1.23 k ops/s; ratio 2.50x; batch 18.25; writes 7; max IOPS 110 k IOPS"
        );
    }
}
