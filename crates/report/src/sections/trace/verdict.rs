//! A trace analysis's answer: is the storage what this response time is
//! made of?

use crate::verdict::from_top_finding;
use dbio_model::trace::TraceReport;
use dbio_model::units::format_ns;
use dbio_model::{Verdict, VerdictClass};

/// The question a trace answers, naming the trace and its response time.
pub fn question(t: &TraceReport) -> String {
    format!(
        "Is it the storage? Trace {}, response time R = {}",
        t.label,
        format_ns(t.profile.response_time_us as f64 * 1e3)
    )
}

/// The verdict of a ranked trace analysis.
pub fn verdict(t: &TraceReport) -> Option<Verdict> {
    from_top_finding(question(t), VerdictClass::Inconclusive, &t.findings)
}
