//! `dbio compare`'s page ([`Comparison`]): the inputs, the settings that
//! differ between them, and every aligned figure side by side with its
//! ratio to the first input and the verdict against the run-to-run noise
//! (the rule is printed on the page, as under the terminal table).

use super::page::{self, esc};
use dbio_model::compare::{Comparison, MetricUnit, Verdict};
use std::fmt::Write;

/// The whole page of a comparison.
pub fn render(c: &Comparison, invocation: Option<&str>) -> String {
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<header><h1>dbio compare: {} results of <code>dbio {}</code></h1><p class=\"muted\" id=\"summary\">{}; result schema version {}.</p></header>",
        c.inputs.len(),
        esc(&c.compared_command),
        esc(&c.tool),
        c.schema_version
    );
    b.push_str(&super::provenance(&c.tool, invocation));
    if !c.warnings.is_empty() {
        b.push_str("<h3>Warnings</h3><ul id=\"warnings\">");
        for w in &c.warnings {
            let _ = write!(b, "<li>{}</li>", esc(w));
        }
        b.push_str("</ul>\n");
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
    let _ = writeln!(
        b,
        "<p class=\"muted\" id=\"noise-rule\">Noise rule: {}.</p>",
        esc(&c.noise_rule)
    );
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
