//! `dbio compare`'s page ([`Comparison`]): the inputs, the settings that
//! differ between them, and every aligned figure side by side with its
//! ratio to the first input and the verdict against the run-to-run noise
//! (the rule is printed on the page, as under the terminal table).
//!
//! Order: the settings that differ come first, since they say what else
//! besides the storage changed between the runs; then the ratio of every
//! figure to the first input as bars (beyond the noise hatched, so the
//! verdict does not rest on colour), then each input's spread (rounds or
//! per-second values) as whiskers where the inputs hold them, then the
//! table with every figure.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Fmt, Ratio, Whisker};
use dbio_model::compare::{Comparison, MetricUnit, SpreadSource, Verdict};
use maud::html;

/// The whole page of a comparison.
pub fn render(c: &Comparison, invocation: Option<&str>) -> String {
    let mut b = html! {
        header {
            h1 { "dbio compare: " (c.inputs.len()) " results of " code { "dbio " (Text(&c.compared_command)) } }
            p.muted #summary { (Text(&c.tool)) "; result schema version " (c.schema_version) "." }
        }
        "\n"
    }
    .into_string();
    b.push_str(&page::verdict(c.verdict.as_ref(), &c.findings));
    b.push_str(&crate::kit::html::page::provenance(&c.tool, invocation));
    if !c.findings.is_empty() {
        b.push_str("<h2 id=\"h-findings\">Findings</h2>\n");
        b.push_str(&page::findings(&c.findings));
    }
    if !c.warnings.is_empty() {
        b.push_str("<h3>Warnings</h3>");
        b.push_str(&page::list(Some("warnings"), &c.warnings));
        b.push('\n');
    }
    if !c.settings.is_empty() {
        b.push_str("<h2 id=\"h-settings\">Settings that differ</h2>\n");
        let mut headers = vec!["scope", "setting"];
        headers.extend(c.inputs.iter().map(|i| i.label.as_str()));
        let rows: Vec<Vec<String>> = c
            .settings
            .iter()
            .map(|s| {
                let mut r = vec![s.scope.clone(), s.name.clone()];
                r.extend(
                    s.values
                        .iter()
                        .map(|v| v.clone().unwrap_or_else(|| "-".into())),
                );
                r
            })
            .collect();
        b.push_str(&page::table("settings-differ", &headers, &rows));
    }
    b.push_str("<h2 id=\"h-inputs\">Inputs</h2>\n");
    let inputs: Vec<Vec<String>> = c
        .inputs
        .iter()
        .map(|i| {
            vec![
                i.label.clone(),
                i.file.clone(),
                i.started_at_unix.map_or_else(String::new, page::utc),
                i.partial.clone().unwrap_or_else(|| "complete".into()),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "inputs",
        &["input", "file", "started", "state"],
        &inputs,
    ));
    b.push_str(&charts(c));
    b.push_str("<h2 id=\"h-figures\">Figures side by side</h2>\n");
    let labels: Vec<String> = c
        .inputs
        .iter()
        .enumerate()
        .flat_map(|(i, inp)| {
            let value = format!("#{}", inp.label);
            if i == 0 {
                vec![value]
            } else {
                vec![
                    value,
                    format!("#ratio {}", inp.label),
                    format!("noise {}", inp.label),
                ]
            }
        })
        .collect();
    let mut headers = vec!["section", "entry", "metric", "unit"];
    headers.extend(labels.iter().map(String::as_str));
    let rows: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|row| {
            let mut r = vec![
                row.section.clone(),
                row.entry.clone(),
                row.metric.clone(),
                unit(row.unit).to_string(),
            ];
            for (i, v) in row.values.iter().enumerate() {
                r.push(v.map_or_else(|| "-".into(), |v| format!("{v:.4}")));
                if i > 0 {
                    let ratio = row.ratios.get(i).copied().flatten();
                    r.push(ratio.map_or_else(|| "-".into(), |x| format!("{x:.3}")));
                    r.push(
                        match row.verdicts.get(i).copied().flatten() {
                            Some(Verdict::BeyondNoise) => "beyond the noise",
                            Some(Verdict::WithinNoise) => "within the noise",
                            None => "no verdict",
                        }
                        .to_string(),
                    );
                }
            }
            r
        })
        .collect();
    b.push_str(&page::table("figures", &headers, &rows));
    let rule = html! { p.muted #noise-rule { "Noise rule: " (Text(&c.noise_rule)) "." } "\n" };
    b.push_str(&rule.into_string());
    page::document(&format!("dbio compare ({})", c.compared_command), &b)
}

fn unit(u: MetricUnit) -> &'static str {
    match u {
        MetricUnit::Ns => "ns",
        MetricUnit::Us => "µs",
        MetricUnit::S => "s",
        MetricUnit::PerSecond => "/s",
        MetricUnit::Bytes => "B",
        MetricUnit::BytesPerSecond => "B/s",
        MetricUnit::Number => "",
        MetricUnit::Percent => "%",
    }
}

/// The charts of a comparison: ratio bars of every figure with a ratio,
/// then one whisker chart per figure whose inputs have a spread.
fn charts(c: &Comparison) -> String {
    let mut b = String::new();
    let ratios: Vec<Ratio> = c
        .rows
        .iter()
        .flat_map(|row| {
            row.ratios.iter().enumerate().filter_map(move |(i, r)| {
                let r = r.filter(|r| r.is_finite() && *r > 0.0)?;
                let label = c.inputs.get(i).map_or("?", |x| x.label.as_str());
                Some(Ratio {
                    label: format!("{}: {} ({label})", place(row), row.metric),
                    ratio: r,
                    beyond_noise: row
                        .verdicts
                        .get(i)
                        .copied()
                        .flatten()
                        .map(|v| v == Verdict::BeyondNoise),
                    higher_is_better: row.higher_is_better,
                })
            })
        })
        .collect();
    if !ratios.is_empty() {
        b.push_str("<h2 id=\"h-ratios\">Ratios to the first input</h2>\n");
        let first = c.inputs.first().map_or("", |x| x.label.as_str());
        b.push_str(&svg::ratio_bars(
            "compare-ratios",
            &format!("Each figure divided by {first}'s; hatched: beyond the run-to-run noise by the rule below (a figure missing or 0 in either input is in the table only)"),
            &ratios,
        ));
    }
    let mut spreads = String::new();
    for (k, row) in c.rows.iter().enumerate() {
        let rows: Vec<Whisker> = row
            .spreads
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                Some(Whisker {
                    label: c.inputs.get(i).map_or("?", |x| x.label.as_str()),
                    spread: (*s)?,
                })
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let from = match &row.spread_source {
            Some(SpreadSource::Rounds) => "the figure of each round".to_string(),
            Some(SpreadSource::PerSecond { series }) => {
                format!("the values of each second ('{series}')")
            }
            Some(SpreadSource::PrintedPrecision) => {
                "the range its printed digits allow".to_string()
            }
            None => "its values".to_string(),
        };
        spreads.push_str(&svg::whiskers(
            &format!("compare-spread-{k}"),
            &format!(
                "{}: {}: spread of each input over {from} (line: min to max; box: p25 to p75; thick tick: median)",
                place(row),
                row.metric
            ),
            &rows,
            fmt_of(row.unit),
        ));
    }
    if !spreads.is_empty() {
        b.push_str("<h2 id=\"h-spreads\">Spread of each input</h2>\n<div class=\"panels\">");
        b.push_str(
            &spreads
                .replace("<figure", "<section><figure")
                .replace("</figure>", "</figure></section>"),
        );
        b.push_str("</div>\n");
    }
    b
}

/// How a figure of `u` is written on a chart.
fn fmt_of(u: MetricUnit) -> Fmt {
    match u {
        MetricUnit::Ns => svg::fmt_ns,
        MetricUnit::Us => |v| svg::fmt_ns(v * 1000.0),
        MetricUnit::S => |v| format!("{v:.3} s"),
        MetricUnit::PerSecond => svg::fmt_count,
        MetricUnit::Bytes => |v| dbio_model::units::format_bytes(v.max(0.0) as u64),
        MetricUnit::BytesPerSecond => svg::fmt_rate,
        MetricUnit::Number => |v| format!("{v:.3}"),
        MetricUnit::Percent => svg::fmt_pct,
    }
}

/// Where a row is: its section and entry, once when they are the same
/// (`lgwr`, not `lgwr lgwr`).
fn place(row: &dbio_model::compare::ComparedRow) -> String {
    if row.entry == row.section || row.entry.is_empty() {
        row.section.clone()
    } else {
        format!("{} {}", row.section, row.entry)
    }
}
