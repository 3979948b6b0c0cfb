//! The wide CSV of a result of raw jobs alone (`dbio bench`): one row per
//! job and operation (read, write, sync, commit), the latency summary in
//! columns.

use crate::kit::csv::into_string;
use crate::ExportError;
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

/// One row per job and operation, latency summary in columns.
pub fn wide_jobs(r: &RunReport) -> Result<String, ExportError> {
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
