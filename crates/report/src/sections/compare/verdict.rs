//! A comparison's answer: how each input differs from the first (its
//! largest difference beyond the run-to-run noise, else its largest); the
//! settings besides the storage that differ are among its top findings.

use crate::verdict::TOP;
use dbio_model::compare::Comparison;
use dbio_model::{Verdict, VerdictClass};

/// The verdict of a comparison whose findings are ranked.
pub fn verdict(c: &Comparison) -> Option<Verdict> {
    let fs = &c.findings;
    let first = c.inputs.first()?;
    let differences: Vec<&str> = fs
        .iter()
        .filter(|f| f.rule == "compare.difference")
        .map(|f| f.text.as_str())
        .collect();
    let answer = if differences.is_empty() {
        "No figure of the inputs can be judged better or worse.".to_string()
    } else {
        differences.join("; ")
    };
    Some(Verdict {
        question: format!(
            "How do {} '{}' results differ from {} = {}?",
            c.inputs.len(),
            c.compared_command,
            first.label,
            first.file
        ),
        class: VerdictClass::Comparison,
        answer,
        top: crate::verdict::top(fs, TOP),
    })
}
