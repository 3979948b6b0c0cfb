//! CSV: rows of named columns from the model (`crate::kit::csv`). The
//! whole document passes through [`dbio_model::visible::visible_lines`], as
//! the table does: a CSV file is read with `cat` and `less` as often as
//! with a spreadsheet, and its fields carry trace and report text as
//! written. A newline inside a field stays (the writer quotes that field).

use super::{ExportError, Exporter};
use crate::kit::csv::{finding_rows, LongRow, LongTable};
use crate::sections::SECTIONS;
use dbio_model::{Outcome, RunReport};

/// CSV with a header line.
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn export(&self, result: &Outcome) -> Result<String, ExportError> {
        let text = match result {
            Outcome::Run(r) => run(r)?,
            Outcome::Trace(t) => crate::sections::trace::csv::trace_csv(t)?,
            Outcome::TraceComparison(c) => crate::sections::trace::csv::trace_comparison_csv(c)?,
            Outcome::Awr(r) => crate::sections::awr::csv::awr_csv(r)?,
            Outcome::AwrComparison(c) => crate::sections::awr::csv::awr_comparison_csv(c)?,
            Outcome::Comparison(c) => crate::sections::compare::table::to_csv(c)?,
            Outcome::AwrTrend(t) => crate::sections::awr::trend::csv(t)?,
        };
        Ok(dbio_model::visible::visible_lines(&text).into_owned())
    }
}

/// Renders the report as CSV with a header line. Raw jobs alone keep the
/// wide table (one row per job and operation, as fio's terse output): the
/// jobs' own findings (`bench.*`) are in the table, JSON and HTML; any
/// other finding (a note of the run) makes the CSV the long form.
pub fn run(r: &RunReport) -> Result<String, ExportError> {
    let jobs_area = crate::sections::jobs::findings::RULES.area;
    let other_findings = r
        .findings
        .iter()
        .any(|f| f.rule.split('.').next() != Some(jobs_area));
    let has_sections = SECTIONS.iter().any(|s| s.needs_long_csv(r)) || other_findings;
    if has_sections {
        LongTable::new(&["section", "name", "metric", "value"]).write(&[(None, run_rows(r)?)])
    } else {
        crate::sections::jobs::csv::wide_jobs(r)
    }
}

/// The long-form rows of a measurement: each section's, then the findings.
fn run_rows(r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
    let mut rows = Vec::new();
    for s in SECTIONS {
        rows.extend(s.csv(r)?);
    }
    rows.extend(finding_rows(&r.findings));
    Ok(rows)
}
