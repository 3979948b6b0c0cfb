//! CSV, derived from the result model by serde so it cannot drift from the
//! JSON. A report of raw I/O jobs only (`dbio bench`) is one wide table: a
//! row per job and operation (read, write, sync, commit) with the latency
//! summary in columns. A report with model sections (`lgwr`, `read`,
//! `dbwr`, `calibrate`, or `check`, which has several) is one long table,
//! `section,name,metric,value`, where `metric` is the JSON path of a number
//! inside that entry (`commit.percentiles.2.ns`), so every figure of every
//! section is there without a per-section column list. Findings follow as
//! `finding` rows (a report with findings is in the long form).

use dbio_model::{JobResult, LatencySummary, RunReport};
use serde::Serialize;

#[derive(Serialize)]
struct Row<'a> {
    job: &'a str,
    op: &'a str,
    ops: u64,
    bytes: u64,
    ops_per_sec: f64,
    bytes_per_sec: f64,
    mean_ns: f64,
    stdev_ns: f64,
    min_ns: u64,
    p50_ns: u64,
    p90_ns: u64,
    p99_ns: u64,
    p99_9_ns: u64,
    p99_99_ns: u64,
    max_ns: u64,
    cpu_per_op_ns: f64,
    partial: bool,
}

fn row<'a>(
    j: &'a JobResult,
    op: &'a str,
    l: &LatencySummary,
    bytes: u64,
    partial: bool,
) -> Row<'a> {
    let secs = j.runtime_ns.max(1) as f64 / 1e9;
    let p = |x: f64| l.percentile_ns(x).unwrap_or(0);
    Row {
        job: &j.name,
        op,
        ops: l.count,
        bytes,
        ops_per_sec: l.count as f64 / secs,
        bytes_per_sec: bytes as f64 / secs,
        mean_ns: l.mean_ns,
        stdev_ns: l.stdev_ns,
        min_ns: l.min_ns,
        p50_ns: p(50.0),
        p90_ns: p(90.0),
        p99_ns: p(99.0),
        p99_9_ns: p(99.9),
        p99_99_ns: p(99.99),
        max_ns: l.max_ns,
        cpu_per_op_ns: j.cpu.per_io_ns,
        partial,
    }
}

/// Renders the report as CSV with a header line.
pub fn to_csv(r: &RunReport) -> String {
    let has_sections = !r.lgwr.is_empty()
        || !r.load.is_empty()
        || !r.reads.is_empty()
        || !r.dbwr.is_empty()
        || r.calibration.is_some()
        || !r.findings.is_empty();
    if has_sections {
        long_form(r)
    } else {
        wide_jobs(r)
    }
}

/// `section,name,metric,value` rows for every number in every entry.
fn long_form(r: &RunReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["section", "name", "metric", "value"])
        .expect("in-memory writer");
    let mut emit = |section: &str, value: serde_json::Value| {
        let name = value
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        let mut rows = Vec::new();
        flatten(&value, &mut String::new(), &mut rows);
        for (metric, v) in rows {
            w.write_record([section, &name, &metric, &v])
                .expect("in-memory writer");
        }
    };
    for j in &r.jobs {
        emit("job", value(j));
    }
    for x in &r.lgwr {
        emit("lgwr", value(x));
    }
    for x in &r.load {
        emit("load", value(x));
    }
    for x in &r.reads {
        emit("read", value(x));
    }
    for x in &r.dbwr {
        emit("dbwr", value(x));
    }
    if let Some(c) = &r.calibration {
        emit("calibrate", value(c));
    }
    for (section, name, metric, v) in finding_rows(&r.findings) {
        w.write_record([section, &name, &metric, &v])
            .expect("in-memory writer");
    }
    String::from_utf8(w.into_inner().expect("in-memory writer")).expect("CSV is UTF-8")
}

/// `finding,<rule>,<metric>,<value>` rows: the subject, severity, text
/// and source of each finding, then one row per piece of evidence with its
/// unit in the metric (`p99 commit (ns)`).
pub fn finding_rows(fs: &[dbio_model::Finding]) -> Vec<(&'static str, String, String, String)> {
    let mut rows = Vec::new();
    for f in fs {
        let mut add = |metric: &str, v: String| {
            rows.push(("finding", f.rule.clone(), metric.to_string(), v));
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

fn value<T: Serialize>(x: &T) -> serde_json::Value {
    serde_json::to_value(x).expect("the result model serialises")
}

/// Collects (path, value) for every number, boolean and string under `v`
/// (the entry's own `name` is a column already).
fn flatten(v: &serde_json::Value, path: &mut String, out: &mut Vec<(String, String)>) {
    use serde_json::Value;
    match v {
        Value::Number(n) => out.push((path.clone(), n.to_string())),
        Value::Bool(b) => out.push((path.clone(), b.to_string())),
        Value::String(s) if !path.is_empty() && path != "name" => {
            out.push((path.clone(), s.clone()))
        }
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

/// One row per job and operation, latency summary in columns.
fn wide_jobs(r: &RunReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let partial = r.partial.is_some();
    for j in &r.jobs {
        let mut rows = Vec::new();
        if let Some(s) = &j.read {
            rows.push(row(j, "read", &s.lat, s.bytes, partial));
        }
        if let Some(s) = &j.write {
            rows.push(row(j, "write", &s.lat, s.bytes, partial));
        }
        if let Some(s) = &j.sync {
            rows.push(row(j, "sync", s, 0, partial));
        }
        if let Some(s) = &j.commit {
            rows.push(row(
                j,
                "commit",
                s,
                j.write.as_ref().map_or(0, |w| w.bytes),
                partial,
            ));
        }
        for x in rows {
            w.serialize(x).expect("CSV rows serialise");
        }
    }
    String::from_utf8(w.into_inner().expect("in-memory writer")).expect("CSV is UTF-8")
}
