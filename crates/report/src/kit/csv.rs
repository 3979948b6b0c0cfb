//! CSV, derived from the result model by serde so it cannot drift from the
//! JSON, and written by one machinery for every kind of result: rows of
//! named columns, each figure found by walking the entry's serde value
//! (no per-section list of columns). A report of raw I/O jobs only (`dbio
//! bench`) is one wide table: a
//! row per job and operation (read, write, sync, commit) with the latency
//! summary in columns. A report with model sections (`lgwr`, `read`,
//! `dbwr`, `calibrate`, or `check`, which has several) is one long table,
//! `section,name,metric,value`, where `metric` is the JSON path of a number
//! inside that entry (`commit.percentiles.2.ns`), so every figure of every
//! section is there without a per-section column list. Findings follow as
//! `finding` rows (a report with findings is in the long form). A trace
//! analysis is the same long table with a group column in front and the
//! entry named by its identifying fields:
//! `group,section,item,metric,value`.

use crate::ExportError;
use serde::Serialize;

/// One row of a long-form table: the section, what the row is about (an
/// entry's name, or a key made of the fields that identify it), the
/// metric (a JSON path inside the entry) and the value.
#[derive(Debug, Clone, PartialEq)]
pub struct LongRow {
    /// Section of the result (`job`, `lgwr`, `event`, `finding`, ...).
    pub section: &'static str,
    /// What the row is about.
    pub item: String,
    /// The JSON path of the figure inside its entry.
    pub metric: String,
    /// The figure as the JSON holds it.
    pub value: String,
}

/// Every number, boolean and string of `entry` (a model value) as rows of
/// `section` about `item`, with the fields that make up `item` left out
/// (they are its column already).
pub fn entry_rows<T: Serialize>(
    section: &'static str,
    item: &str,
    entry: &T,
    item_fields: &[&str],
) -> Result<Vec<LongRow>, ExportError> {
    let mut v = serde_json::to_value(entry)?;
    if let Some(m) = v.as_object_mut() {
        for k in item_fields {
            m.remove(*k);
        }
    }
    let mut leaves = Vec::new();
    flatten(&v, &mut String::new(), &mut leaves);
    Ok(leaves
        .into_iter()
        .map(|(metric, value)| LongRow {
            section,
            item: item.to_string(),
            metric,
            value,
        })
        .collect())
}

/// A long-form table: a fixed header, then groups of rows, each group
/// with an optional leading column (a trace comparison's `A` and `B`).
pub struct LongTable<'h> {
    header: &'h [&'h str],
}

impl<'h> LongTable<'h> {
    /// A table with this header line.
    pub fn new(header: &'h [&'h str]) -> Self {
        LongTable { header }
    }

    /// Writes the header and every group's rows.
    pub fn write(&self, groups: &[(Option<&str>, Vec<LongRow>)]) -> Result<String, ExportError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(self.header)?;
        for (group, rows) in groups {
            for r in rows {
                let cells = [r.section, &r.item, &r.metric, &r.value];
                match group {
                    Some(g) => w.write_record(std::iter::once(*g).chain(cells))?,
                    None => w.write_record(cells)?,
                }
            }
        }
        into_string(w)
    }
}

/// The in-memory writer's text.
pub(crate) fn into_string(w: csv::Writer<Vec<u8>>) -> Result<String, ExportError> {
    let bytes = w
        .into_inner()
        .map_err(|e| ExportError(format!("cannot render CSV: {}", e.error())))?;
    String::from_utf8(bytes).map_err(|e| ExportError(format!("cannot render CSV: {e}")))
}

/// The long-form rows of a run report: every entry of every section, then
/// the findings.
/// The fields a model entry's rows leave out: its name (the item column)
/// and its per-second series (rows of their own, [`series_rows`]).
pub(crate) const SERIES_ITEM: [&str; 2] = ["name", "per_second"];

/// One row per second of each series: metric
/// `per_second.<series>@<t_s>`, the end of the second in seconds; an
/// empty value where the second has none.
pub fn series_rows(
    section: &'static str,
    item: &str,
    per_second: &[dbio_model::series::Series],
) -> Vec<LongRow> {
    let mut rows = Vec::new();
    for s in per_second {
        for (t, v) in s.t_s.iter().zip(&s.values) {
            rows.push(LongRow {
                section,
                item: item.to_string(),
                metric: format!("per_second.{}@{t:.3}", s.name),
                value: v.map_or_else(String::new, |v| v.to_string()),
            });
        }
    }
    rows
}

/// The header of a trace analysis's CSV: a group column (the input, or
/// `A` and `B` in a comparison) before the long-form columns.
pub(crate) const TRACE_HEADER: &[&str] = &["group", "section", "item", "metric", "value"];

/// One bucket of a histogram, as a CSV entry.
#[derive(Serialize)]
pub(crate) struct BucketCount {
    pub(crate) count: u64,
}

/// `finding,<rule>,<metric>,<value>` rows: the subject, severity, text
/// and source of each finding, then one row per piece of evidence with its
/// unit in the metric (`p99 commit (ns)`).
pub fn finding_rows(fs: &[dbio_model::Finding]) -> Vec<LongRow> {
    let mut rows = Vec::new();
    for f in fs {
        let mut add = |metric: &str, value: String| {
            rows.push(LongRow {
                section: "finding",
                item: f.rule.clone(),
                metric: metric.to_string(),
                value,
            });
        };
        if let Some(s) = &f.subject {
            add("subject", s.clone());
        }
        add("severity", f.severity.to_string());
        add("text", f.text.clone());
        for e in &f.evidence {
            add(&format!("{} ({})", e.what, e.unit), e.value.to_string());
        }
        if let Some(r) = &f.reference {
            add("source", r.to_string());
        }
    }
    rows
}

/// Collects (path, value) for every number, boolean and string under `v`.
fn flatten(v: &serde_json::Value, path: &mut String, out: &mut Vec<(String, String)>) {
    use serde_json::Value;
    match v {
        Value::Number(n) => out.push((path.clone(), n.to_string())),
        Value::Bool(b) => out.push((path.clone(), b.to_string())),
        Value::String(s) if !path.is_empty() => out.push((path.clone(), s.clone())),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten_child(&i.to_string(), x, path, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                flatten_child(k, x, path, out);
            }
        }
        _ => {}
    }
}

fn flatten_child(
    key: &str,
    x: &serde_json::Value,
    path: &mut String,
    out: &mut Vec<(String, String)>,
) {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    flatten(x, path, out);
    path.truncate(len);
}
