//! What a comparison says (`dbio compare`): for each input against the
//! first, the largest difference, preferring those beyond the run-to-run
//! noise ([`dbio_model::compare::NOISE_RULE`]), with how many figures got
//! better, worse, stayed within the noise or have no noise verdict (single
//! runs); and the settings besides the storage that differ, since they
//! can explain a difference as well as the storage can.

use crate::kit::findings::{ev, finding, plural, Finding, Severity};
use crate::kit::references::doc;
use dbio_model::compare::{ComparedRow, Comparison, Verdict};

/// The findings of a comparison (its notes are added by the caller).
pub fn evaluate(c: &Comparison) -> Vec<Finding> {
    let mut out: Vec<Finding> = (1..c.inputs.len())
        .filter_map(|i| difference(c, i))
        .collect();
    out.extend(settings(c));
    out
}

/// How input `i` differs from the first.
fn difference(c: &Comparison, i: usize) -> Option<Finding> {
    let (a, b) = (&c.inputs[0].label, &c.inputs[i].label);
    let judged: Vec<(&ComparedRow, f64, Option<Verdict>)> = c
        .rows
        .iter()
        .filter(|r| r.higher_is_better.is_some())
        .filter_map(|r| {
            let x = r.ratios.get(i).copied().flatten().filter(|x| *x > 0.0)?;
            Some((r, x, r.verdicts.get(i).copied().flatten()))
        })
        .collect();
    if judged.is_empty() {
        return None;
    }
    let better = |r: &ComparedRow, x: f64| (x > 1.0) == r.higher_is_better.unwrap_or(true);
    let count = |v: Option<Verdict>, want_better: Option<bool>| {
        judged
            .iter()
            .filter(|(r, x, vv)| *vv == v && want_better.is_none_or(|w| better(r, *x) == w))
            .count()
    };
    let (n_better, n_worse) = (
        count(Some(Verdict::BeyondNoise), Some(true)),
        count(Some(Verdict::BeyondNoise), Some(false)),
    );
    let n_within = count(Some(Verdict::WithinNoise), None);
    let n_unjudged = count(None, None);
    // The headline: the largest difference beyond the noise, else the
    // first figure (each section lists its lead figure first: TPS, IOPS).
    let size = |t: &&(&ComparedRow, f64, Option<Verdict>)| t.1.ln().abs();
    let &(row, ratio, verdict) = judged
        .iter()
        .filter(|t| t.2 == Some(Verdict::BeyondNoise))
        .max_by(|p, q| size(p).total_cmp(&size(q)))
        .or_else(|| judged.first())?;
    let printed = row.spread_source == Some(dbio_model::compare::SpreadSource::PrintedPrecision);
    let noise = match (verdict, printed) {
        (Some(Verdict::BeyondNoise), false) => "beyond the noise",
        (Some(Verdict::WithinNoise), false) => "within the noise",
        (Some(Verdict::BeyondNoise), true) => "beyond the printed precision",
        (Some(Verdict::WithinNoise), true) => "within the printed precision",
        (None, _) => "no noise verdict: single runs",
    };
    let direction = if (ratio - 1.0).abs() < 0.005 {
        "the same"
    } else if better(row, ratio) {
        "better"
    } else {
        "worse"
    };
    let value = |k: usize| {
        row.values
            .get(k)
            .copied()
            .flatten()
            .map(|v| super::table::format_value(row.unit, v))
            .unwrap_or_else(|| "–".into())
    };
    Some(finding(
        "compare.difference",
        Some(b),
        if n_better + n_worse > 0 {
            Severity::Notice
        } else {
            Severity::Info
        },
        format!(
            "{b} against {a}: {} {} {} ({} to {}), {direction}, {noise}; beyond the noise {n_better} figure{} better and {n_worse} worse, {n_within} within it, {n_unjudged} without a verdict",
            row.entry,
            row.metric,
            ratio_text(ratio),
            value(0),
            value(i),
            plural(n_better as u64),
        ),
        vec![
            ev(&format!("{} {}, {b}/{a}", row.entry, row.metric), ratio, "x"),
            ev("figures better beyond the noise", n_better as f64, "count"),
            ev("figures worse beyond the noise", n_worse as f64, "count"),
            ev("figures within the noise", n_within as f64, "count"),
        ],
        Some(doc("docs/GUIDE.md")),
    ))
}

/// A ratio with the digits it needs (`9.05x`, `0.036x`).
pub fn ratio_text(x: f64) -> String {
    if x >= 0.1 {
        format!("{x:.2}x")
    } else {
        format!("{x:.2e}x")
    }
}

/// The settings that differ besides the storage.
fn settings(c: &Comparison) -> Option<Finding> {
    if c.settings.is_empty() {
        return None;
    }
    let names: Vec<String> = c.settings.iter().take(5).map(|s| s.name.clone()).collect();
    let more = c.settings.len().saturating_sub(names.len());
    Some(finding(
        "compare.settings",
        None,
        Severity::Notice,
        format!(
            "{} setting{} between the inputs ({}{}): a difference can come from them as well as from the storage",
            c.settings.len(),
            if c.settings.len() == 1 { " differs" } else { "s differ" },
            names.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ),
        vec![ev("settings that differ", c.settings.len() as f64, "count")],
        Some(doc("docs/GUIDE.md")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::compare::{ComparedInput, MetricUnit, SettingDifference};

    fn row(metric: &str, higher: bool, a: f64, b: f64, v: Option<Verdict>) -> ComparedRow {
        ComparedRow {
            section: "lgwr".into(),
            entry: "lgwr".into(),
            metric: metric.into(),
            unit: MetricUnit::PerSecond,
            higher_is_better: Some(higher),
            values: vec![Some(a), Some(b)],
            ratios: vec![None, Some(b / a)],
            spread_source: None,
            spreads: Vec::new(),
            verdicts: vec![None, v],
        }
    }

    fn comparison(rows: Vec<ComparedRow>) -> Comparison {
        Comparison {
            inputs: vec![
                ComparedInput {
                    label: "A".into(),
                    ..Default::default()
                },
                ComparedInput {
                    label: "B".into(),
                    ..Default::default()
                },
            ],
            rows,
            ..Default::default()
        }
    }

    #[test]
    fn the_headline_is_the_largest_difference_beyond_the_noise_else_the_lead_figure() {
        let beyond = Some(Verdict::BeyondNoise);
        let c = comparison(vec![
            row("TPS", true, 100.0, 110.0, Some(Verdict::WithinNoise)),
            row("p99", false, 100.0, 300.0, beyond),
            row("p50", false, 100.0, 50.0, beyond),
        ]);
        let f = evaluate(&c);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].text,
            "B against A: lgwr p99 3.00x (100 to 300), worse, beyond the noise; beyond the noise 1 figure better and 1 worse, 1 within it, 0 without a verdict"
        );
        assert_eq!(f[0].severity, Severity::Notice);
        // Single runs: the lead figure, and no verdict.
        let c = comparison(vec![
            row("TPS", true, 100.0, 905.0, None),
            row("p99", false, 100.0, 1.0, None),
        ]);
        let f = evaluate(&c);
        assert!(
            f[0].text
                .starts_with("B against A: lgwr TPS 9.05x (100 to 905), better, no noise verdict"),
            "{}",
            f[0].text
        );
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(ratio_text(0.0036), "3.60e-3x");
    }

    #[test]
    fn settings_besides_the_storage_are_a_finding() {
        let mut c = comparison(vec![]);
        assert!(evaluate(&c).is_empty());
        c.settings = vec![SettingDifference {
            scope: "environment".into(),
            name: "kernel".into(),
            values: vec![Some("6.1".into()), Some("6.18".into())],
        }];
        let f = evaluate(&c);
        assert_eq!(f[0].rule, "compare.settings");
        assert!(
            f[0].text
                .starts_with("1 setting differs between the inputs (kernel)"),
            "{}",
            f[0].text
        );
    }
}
