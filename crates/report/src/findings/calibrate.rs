//! `dbio calibrate` in words: where the calibration was saved and how to
//! use it. The measurement's own remarks (a tier that could not be
//! provoked, tiers that overlap) travel in the calibration file's `notes`,
//! because they explain the two thresholds wherever the file goes.

use super::references::doc;
use super::{finding, Finding, RuleSet, Severity};
use dbio_model::RunReport;

/// The calibration rules.
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "calibrate",
    evaluate,
};

fn evaluate(r: &RunReport) -> Vec<Finding> {
    let Some(shown) = r.calibration.as_ref().and_then(|c| c.saved_to.as_deref()) else {
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
    use dbio_model::calibrate::Calibration;

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
