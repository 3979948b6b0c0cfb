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
use dbio_model::awr::{AwrComparison, AwrReport};
use dbio_model::trace::{TraceComparison, TraceReport};
use dbio_model::{JobResult, LatencySummary, Log2Buckets, RunReport};
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
pub fn to_csv(r: &RunReport) -> Result<String, ExportError> {
    let has_sections = !r.lgwr.is_empty()
        || !r.load.is_empty()
        || r.load_compare.is_some()
        || !r.reads.is_empty()
        || !r.dbwr.is_empty()
        || !r.watch.is_empty()
        || r.calibration.is_some()
        || r.matrix.is_some()
        || !r.findings.is_empty();
    if has_sections {
        LongTable::new(&["section", "name", "metric", "value"]).write(&[(None, run_rows(r)?)])
    } else {
        wide_jobs(r)
    }
}

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
fn run_rows(r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
    let mut rows = Vec::new();
    for j in &r.jobs {
        rows.extend(entry_rows("job", &j.name, j, &["name"])?);
    }
    for x in &r.lgwr {
        rows.extend(entry_rows("lgwr", &x.name, x, &SERIES_ITEM)?);
        rows.extend(series_rows("lgwr", &x.name, &x.per_second));
    }
    for x in &r.load {
        rows.extend(entry_rows("load", &x.name, x, &SERIES_ITEM)?);
        rows.extend(series_rows("load", &x.name, &x.per_second));
    }
    if let Some(c) = &r.load_compare {
        rows.extend(entry_rows("load_compare", "comparison", c, &[])?);
    }
    for x in &r.reads {
        rows.extend(entry_rows("read", &x.name, x, &SERIES_ITEM)?);
        rows.extend(series_rows("read", &x.name, &x.per_second));
    }
    for x in &r.dbwr {
        rows.extend(entry_rows("dbwr", &x.name, x, &SERIES_ITEM)?);
        rows.extend(series_rows("dbwr", &x.name, &x.per_second));
    }
    for x in &r.watch {
        for o in &x.ops {
            let item = if o.generation > 0 {
                format!(
                    "{} pid {} fd {} #{} {}",
                    x.name, o.pid, o.fd, o.generation, o.op
                )
            } else {
                format!("{} pid {} fd {} {}", x.name, o.pid, o.fd, o.op)
            };
            rows.extend(entry_rows(
                "watch",
                &item,
                o,
                &["pid", "fd", "generation", "op"],
            )?);
        }
        for d in &x.block {
            let by = d
                .pid
                .map_or_else(|| "other".to_string(), |p| format!("pid {p}"));
            let item = format!("{} block {} {} {}", x.name, d.device, d.op, by);
            rows.extend(entry_rows(
                "watch_block",
                &item,
                d,
                &["device", "op", "pid"],
            )?);
        }
        for f in &x.file_block {
            let item = format!("{} file {} {}", x.name, f.path, f.op);
            rows.extend(entry_rows("watch_file_block", &item, f, &["path", "op"])?);
        }
        for u in &x.block_unattributed {
            let item = format!("{} unattributed {} {}", x.name, u.device, u.op);
            rows.extend(entry_rows("watch_block", &item, u, &["device", "op"])?);
        }
        rows.extend(entry_rows("watch", &x.name, &x.losses, &[])?);
    }
    if let Some(c) = &r.calibration {
        rows.extend(entry_rows("calibrate", &c.name, c, &["name"])?);
    }
    if let Some(m) = &r.matrix {
        rows.extend(entry_rows("matrix", &m.name, &m.config, &[])?);
        for p in &m.points {
            let item = format!("small={} large={}", p.small, p.large);
            rows.extend(entry_rows("matrix", &item, p, &["small", "large"])?);
        }
        if let Some(s) = &m.search {
            rows.extend(entry_rows("matrix", "search", s, &[])?);
        }
    }
    rows.extend(finding_rows(&r.findings));
    Ok(rows)
}

/// The fields a model entry's rows leave out: its name (the item column)
/// and its per-second series (rows of their own, [`series_rows`]).
const SERIES_ITEM: [&str; 2] = ["name", "per_second"];

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

/// A trace analysis as CSV.
pub fn trace_csv(r: &TraceReport) -> Result<String, ExportError> {
    LongTable::new(TRACE_HEADER).write(&[(Some(r.label.as_str()), trace_rows(r)?)])
}

/// A trace comparison as CSV: group `A`, then group `B`.
pub fn trace_comparison_csv(c: &TraceComparison) -> Result<String, ExportError> {
    LongTable::new(TRACE_HEADER).write(&[
        (Some("A"), trace_rows(&c.a)?),
        (Some("B"), trace_rows(&c.b)?),
    ])
}

/// An AWR or Statspack analysis as CSV.
pub fn awr_csv(r: &AwrReport) -> Result<String, ExportError> {
    LongTable::new(TRACE_HEADER).write(&[(Some(r.source.as_str()), awr_rows(r)?)])
}

/// Two AWR or Statspack analyses as CSV: group `A`, then group `B`.
pub fn awr_comparison_csv(c: &AwrComparison) -> Result<String, ExportError> {
    LongTable::new(TRACE_HEADER)
        .write(&[(Some("A"), awr_rows(&c.a)?), (Some("B"), awr_rows(&c.b)?)])
}

/// The long-form rows of an AWR or Statspack analysis: the header, the
/// derived figures, every load profile line, event, statistic and
/// histogram bucket (named `<event> <bucket>`), then the findings. The
/// tables kept as printed are in the JSON only.
pub fn awr_rows(r: &AwrReport) -> Result<Vec<LongRow>, ExportError> {
    let mut v = Vec::new();
    v.extend(entry_rows("header", "header", &r.header, &[])?);
    v.extend(entry_rows("derived", "derived", &r.derived, &[])?);
    for p in &r.load_profile {
        v.extend(entry_rows("load_profile", &p.name, p, &["name"])?);
    }
    for (section, rows) in [
        ("top_event", &r.top_events),
        ("foreground_event", &r.foreground_events),
        ("background_event", &r.background_events),
    ] {
        for e in rows {
            v.extend(entry_rows(section, &e.name, e, &["name"])?);
        }
    }
    for s in &r.statistics {
        v.extend(entry_rows("statistic", &s.name, s, &["name"])?);
    }
    for h in &r.histograms {
        for (i, c) in h.buckets.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            let item = format!("{} {}", h.event, Log2Buckets::label(i));
            v.extend(entry_rows(
                "histogram",
                &item,
                &BucketCount { count: *c },
                &[],
            )?);
        }
    }
    if let Some(w) = &r.with_trace {
        for e in &w.rows {
            v.extend(entry_rows("with_trace", &e.event, e, &["event"])?);
        }
    }
    v.extend(finding_rows(&r.findings));
    Ok(v)
}

/// The long-form rows of a trace analysis: every field of every entry of
/// each section, the entry named by the fields that identify it (an event
/// by its name, a block by `file/block`, a slow wait by `path:line`). A
/// histogram's entries are its non-empty buckets, named `<event> <bucket>`
/// (`<event> <blocks> blocks <bucket>` by I/O size); a tier split's are
/// `<event> <tier>`.
pub fn trace_rows(r: &TraceReport) -> Result<Vec<LongRow>, ExportError> {
    let mut v = Vec::new();
    for f in &r.files {
        v.extend(entry_rows("input", &f.path, f, &["path"])?);
    }
    v.extend(entry_rows("profile", "total", &r.profile, &["lines"])?);
    for l in &r.profile.lines {
        v.extend(entry_rows("profile", &l.name, l, &["name"])?);
    }
    for e in &r.events {
        v.extend(entry_rows("event", &e.name, e, &["name"])?);
    }
    let buckets = |b: &Log2Buckets| {
        b.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (Log2Buckets::label(i), BucketCount { count: *c }))
            .collect::<Vec<_>>()
    };
    for h in &r.io_histograms {
        for (label, c) in buckets(&h.buckets) {
            v.extend(entry_rows(
                "histogram",
                &format!("{} {label}", h.event),
                &c,
                &[],
            )?);
        }
    }
    for h in &r.size_histograms {
        for (label, c) in buckets(&h.buckets) {
            let item = format!("{} {} blocks {label}", h.event, h.blocks);
            v.extend(entry_rows("size_histogram", &item, &c, &[])?);
        }
    }
    for t in &r.tiers {
        for (name, c) in [
            ("page_cache", t.page_cache),
            ("storage_cache", t.storage_cache),
            ("device", t.device),
        ] {
            v.extend(entry_rows("tier", &format!("{} {name}", t.event), &c, &[])?);
        }
    }
    for s in &r.statements {
        v.extend(entry_rows("statement", &s.key, s, &["key"])?);
    }
    for o in &r.objects {
        v.extend(entry_rows("object", &o.obj.to_string(), o, &["obj"])?);
    }
    for f in &r.hot_files {
        v.extend(entry_rows("file", &f.file.to_string(), f, &["file"])?);
    }
    for b in &r.hot_blocks {
        let item = format!("{}/{}", b.file, b.block);
        v.extend(entry_rows("block", &item, b, &["file", "block"])?);
    }
    for w in &r.slowest_waits {
        let item = format!("{}:{}", w.path, w.line);
        v.extend(entry_rows("slow_wait", &item, w, &["path", "line"])?);
    }
    for s in &r.sessions {
        let item = format!("{} {}", s.path, s.id);
        v.extend(entry_rows("session", &item, s, &["path", "id"])?);
    }
    for p in &r.timeline.points {
        v.extend(entry_rows("timeline", &p.start, p, &["start"])?);
    }
    v.extend(finding_rows(&r.findings));
    Ok(v)
}

/// One bucket of a histogram, as a CSV entry.
#[derive(Serialize)]
struct BucketCount {
    count: u64,
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

/// One row per job and operation, latency summary in columns.
fn wide_jobs(r: &RunReport) -> Result<String, ExportError> {
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
            w.serialize(x)?;
        }
    }
    into_string(w)
}
