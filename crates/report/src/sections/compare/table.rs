//! A comparison as terminal tables and as CSV.
//!
//! The table: the inputs (labelled `A`, `B`, ...), the settings that
//! differ, then one row per figure with each input's value and, for every
//! input after the first, its ratio to the first marked `*` when the
//! difference is beyond the run-to-run noise and `~` when within it
//! (no mark: no rounds or series to judge by). Spreads (median and
//! min..max of rounds or seconds) follow in a table of their own.
//!
//! The CSV is one long table: `kind,section,entry,metric,unit,input,
//! value,ratio,spread_source,min,p25,median,p75,max,verdict`, with `kind`
//! `figure` for a compared figure and `setting` for a setting that
//! differs (its value then the setting's text).

use crate::kit::csv::into_string;
use crate::kit::text::{new_table, right_align};
use crate::ExportError;
use comfy_table::Cell;
use dbio_model::compare::{Comparison, MetricUnit, SpreadSource, Verdict};
use dbio_model::units::{format_bytes, format_count_rate, format_ns, format_rate};
use std::fmt::Write;

/// A value in its unit.
pub fn format_value(unit: MetricUnit, v: f64) -> String {
    if v < 0.0 {
        return format!("-{}", format_value(unit, -v));
    }
    match unit {
        MetricUnit::Ns => format_ns(v),
        MetricUnit::Us => format_ns(v * 1000.0),
        MetricUnit::S => format!("{v:.2} s"),
        MetricUnit::PerSecond => format_count_rate(v),
        MetricUnit::Bytes => format_bytes(v.max(0.0) as u64),
        MetricUnit::BytesPerSecond => format_rate(v),
        MetricUnit::Number if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
        MetricUnit::Number => format!("{v:.2}"),
        MetricUnit::Percent => format!("{v:.1} %"),
    }
}

fn mark(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::BeyondNoise) => " *",
        Some(Verdict::WithinNoise) => " ~",
        None => "",
    }
}

fn source_name(s: &SpreadSource) -> String {
    match s {
        SpreadSource::Rounds => "rounds".into(),
        SpreadSource::PerSecond { series } => format!("per second ({series})"),
        SpreadSource::PrintedPrecision => "printed precision".into(),
    }
}

/// The terminal tables of a comparison.
pub fn render(c: &Comparison) -> String {
    let mut s = crate::kit::text::opening(
        c.verdict.as_ref(),
        &c.findings,
        crate::kit::text::DETAIL_BELOW,
    );
    let _ = writeln!(
        s,
        "Comparing {} '{}' results (ratios against A):",
        c.inputs.len(),
        c.compared_command
    );
    for i in &c.inputs {
        let _ = write!(s, "  {} = {}", i.label, i.file);
        if !i.tool.is_empty() {
            let _ = write!(s, " ({})", i.tool);
        }
        if let Some(p) = &i.partial {
            let _ = write!(s, " [partial: {p}]");
        }
        s.push('\n');
    }
    let labels: Vec<&str> = c.inputs.iter().map(|i| i.label.as_str()).collect();
    if c.settings.is_empty() {
        let _ = writeln!(s, "No setting differs between them.");
    } else {
        let mut header = vec!["settings that differ", "setting"];
        header.extend(&labels);
        let mut t = new_table(&header);
        for d in &c.settings {
            let mut row = vec![Cell::new(&d.scope), Cell::new(&d.name)];
            row.extend(
                d.values
                    .iter()
                    .map(|v| Cell::new(v.as_deref().unwrap_or("(none)"))),
            );
            t.add_row(row);
        }
        let _ = writeln!(s, "{t}");
    }
    if c.rows.is_empty() {
        let _ = writeln!(
            s,
            "Nothing to compare: the results hold no figures dbio compares."
        );
    } else {
        let mut header: Vec<String> = vec!["section".into(), "entry".into(), "figure".into()];
        for (i, l) in labels.iter().enumerate() {
            header.push(l.to_string());
            if i > 0 {
                header.push(format!("{l}/A"));
            }
        }
        let refs: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut t = new_table(&refs);
        for r in &c.rows {
            let mut row = vec![
                Cell::new(&r.section),
                Cell::new(&r.entry),
                Cell::new(&r.metric),
            ];
            for (i, v) in r.values.iter().enumerate() {
                row.push(Cell::new(
                    v.map_or_else(|| "-".into(), |v| format_value(r.unit, v)),
                ));
                if i > 0 {
                    let ratio = r.ratios.get(i).copied().flatten();
                    let verdict = r.verdicts.get(i).copied().flatten();
                    row.push(Cell::new(ratio.map_or_else(
                        || "-".into(),
                        |x| format!("{x:.2}x{}", mark(verdict)),
                    )));
                }
            }
            t.add_row(row);
        }
        right_align(&mut t);
        let _ = writeln!(s, "{t}");
    }
    let spread_rows: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.spread_source.is_some())
        .collect();
    if !spread_rows.is_empty() {
        let mut header = vec!["spread", "from"];
        header.extend(&labels);
        let mut t = new_table(&header);
        for r in spread_rows {
            let mut row = vec![
                Cell::new(format!("{} {} {}", r.section, r.entry, r.metric)),
                Cell::new(
                    r.spread_source
                        .as_ref()
                        .map(source_name)
                        .unwrap_or_default(),
                ),
            ];
            for i in 0..c.inputs.len() {
                let cell = match r.spreads.get(i).copied().flatten() {
                    Some(sp) => format!(
                        "{} ({}..{}, n={})",
                        format_value(r.unit, sp.median),
                        format_value(r.unit, sp.min),
                        format_value(r.unit, sp.max),
                        sp.n
                    ),
                    None => "-".into(),
                };
                row.push(Cell::new(cell));
            }
            t.add_row(row);
        }
        let _ = writeln!(s, "Spread of each input (median (min..max, n)):\n{t}");
        let _ = writeln!(
            s,
            "* beyond the run-to-run noise, ~ within it; {}.",
            c.noise_rule
        );
    }
    for w in &c.warnings {
        let _ = writeln!(s, "note: {w}");
    }
    let rest = crate::kit::text::other_findings(c.verdict.as_ref(), &c.findings);
    if !rest.is_empty() {
        s.push('\n');
        s.push_str(&rest);
    }
    s
}

const HEADER: &[&str] = &[
    "kind",
    "section",
    "entry",
    "metric",
    "unit",
    "input",
    "value",
    "ratio",
    "spread_source",
    "min",
    "p25",
    "median",
    "p75",
    "max",
    "verdict",
];

fn unit_name(u: MetricUnit) -> String {
    serde_json::to_value(u)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A comparison as one long CSV table (see the module's documentation).
pub fn to_csv(c: &Comparison) -> Result<String, ExportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER)?;
    let num = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
    for d in &c.settings {
        for (i, v) in d.values.iter().enumerate() {
            let label = c.inputs.get(i).map_or("", |x| x.label.as_str());
            let mut rec = vec![
                "setting".to_string(),
                d.scope.clone(),
                String::new(),
                d.name.clone(),
                String::new(),
                label.to_string(),
                v.clone().unwrap_or_default(),
            ];
            rec.resize(HEADER.len(), String::new());
            w.write_record(&rec)?;
        }
    }
    for r in &c.rows {
        for (i, v) in r.values.iter().enumerate() {
            let label = c.inputs.get(i).map_or("", |x| x.label.as_str());
            let sp = r.spreads.get(i).copied().flatten();
            let verdict = match r.verdicts.get(i).copied().flatten() {
                Some(Verdict::BeyondNoise) => "beyond_noise",
                Some(Verdict::WithinNoise) => "within_noise",
                None => "",
            };
            let rec = vec![
                "figure".to_string(),
                r.section.clone(),
                r.entry.clone(),
                r.metric.clone(),
                unit_name(r.unit),
                label.to_string(),
                num(*v),
                num(r.ratios.get(i).copied().flatten()),
                sp.and(r.spread_source.as_ref())
                    .map(source_name)
                    .unwrap_or_default(),
                num(sp.map(|s| s.min)),
                num(sp.map(|s| s.p25)),
                num(sp.map(|s| s.median)),
                num(sp.map(|s| s.p75)),
                num(sp.map(|s| s.max)),
                verdict.to_string(),
            ];
            w.write_record(&rec)?;
        }
    }
    into_string(w)
}
