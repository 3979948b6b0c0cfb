//! The rule sets' shorthand: building a [`Finding`] and its evidence, and
//! printing the evidence in one line as every format shows it.

pub use dbio_model::{Evidence, Finding, Reference, Severity};

/// Builds a finding (the rule sets' shorthand).
pub fn finding(
    rule: &str,
    subject: Option<&str>,
    severity: Severity,
    text: String,
    evidence: Vec<Evidence>,
    reference: Option<Reference>,
) -> Finding {
    Finding {
        rule: rule.to_string(),
        subject: subject.map(str::to_string),
        severity,
        text,
        evidence,
        reference,
        impact: None,
    }
}

/// One number with its unit (the rule sets' shorthand).
pub fn ev(what: &str, value: f64, unit: &str) -> Evidence {
    Evidence::new(what, value, unit)
}

/// `s` when `n` is not 1.
pub fn plural(n: impl Into<u64>) -> &'static str {
    if n.into() == 1 {
        ""
    } else {
        "s"
    }
}

/// A share (percent) in words: one decimal under 10 %, none from 10 %.
pub fn pct(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1} %")
    } else {
        format!("{v:.0} %")
    }
}

/// The evidence of a finding in one line: `what value unit; ...`.
pub fn evidence_line(f: &Finding) -> String {
    f.evidence
        .iter()
        .map(|e| format!("{} {}", e.what, show(e.value, &e.unit)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A value in its unit, as the table prints it; a value that is not a
/// number (not measured) is "–".
fn show(v: f64, unit: &str) -> String {
    use dbio_model::units::{format_bytes, format_count_rate, format_ns, format_rate};
    if !v.is_finite() {
        return crate::kit::text::ABSENT.to_string();
    }
    match unit {
        // A time of nothing is 0, not "0.00 ns" (a measured figure, not a
        // resolution).
        "ns" if v == 0.0 => "0".into(),
        "ns" => format_ns(v),
        "bytes" => format_bytes(v.max(0.0) as u64),
        "bytes/s" => format_rate(v),
        "%" => format!("{v:.1} %"),
        "x" => format!("{v:.2}x"),
        // Seconds keep their unit (results of every version print alike):
        // whole seconds from 100 s, else to the millisecond.
        "s" if v.abs() >= 100.0 => format!("{v:.0} s"),
        "s" => format!("{v:.3} s"),
        "count" if v.fract() == 0.0 => format!("{v:.0}"),
        "count" => format!("{v:.2}"),
        u if u.starts_with("ops/") || u == "IOPS" => format!("{} {u}", format_count_rate(v)),
        "1/s" => format!("{}/s", format_count_rate(v)),
        "" => plain(v),
        u => format!("{} {u}", plain(v)),
    }
}

/// A number in a unit the table has no format for: whole numbers as they
/// are, others to three significant digits (thousands and millions as
/// `k` and `M`, as rates print).
fn plain(v: f64) -> String {
    let a = v.abs();
    if v.fract() == 0.0 && a < 1e3 {
        format!("{v:.0}")
    } else if a >= 1e3 {
        let s = dbio_model::units::format_count_rate(a);
        if v < 0.0 {
            format!("-{s}")
        } else {
            s
        }
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The findings one area draws from a result of type `T`.
pub struct RuleSet<T: 'static> {
    /// The area (`commit`, `read`, ...): the first part of its rules' names.
    pub area: &'static str,
    /// Draws the findings; returns none when the result is not this area's.
    pub evaluate: fn(&T) -> Vec<Finding>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_prints_rounded_and_an_absent_value_as_a_dash() {
        assert_eq!(show(109709.66895291017, "IOPS"), "110 k IOPS");
        assert_eq!(show(421.3847, "MB/s"), "421 MB/s");
        assert_eq!(show(12.345678, "MB/s"), "12.3 MB/s");
        assert_eq!(show(208.0, "I/Os"), "208 I/Os");
        assert_eq!(show(1234.5, "I/Os"), "1.23 k I/Os");
        assert_eq!(show(-26.04, "widgets"), "-26.0 widgets");
        assert_eq!(show(f64::NAN, "ns"), "–");
        assert_eq!(show(7591.3, "ops/s"), "7.59 k ops/s");
        assert_eq!(show(45287.947563802794, "1/s"), "45.3 k/s");
        assert_eq!(show(1.0, ""), "1");
    }
}
