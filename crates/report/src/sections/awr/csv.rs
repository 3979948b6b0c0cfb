//! An AWR or Statspack analysis and a comparison of two as the long-form
//! CSV with a group column.

use crate::kit::csv::{entry_rows, finding_rows, BucketCount, LongRow, LongTable, TRACE_HEADER};
use crate::ExportError;
use dbio_model::awr::{AwrComparison, AwrReport};
use dbio_model::Log2Buckets;

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
