//! A trace analysis and a trace comparison as the long-form CSV with a
//! group column (the input, or `A` and `B`).

use crate::kit::csv::{entry_rows, finding_rows, BucketCount, LongRow, LongTable, TRACE_HEADER};
use crate::ExportError;
use dbio_model::trace::{TraceComparison, TraceReport};
use dbio_model::Log2Buckets;

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
