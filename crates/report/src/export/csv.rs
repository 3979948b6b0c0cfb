//! CSV: rows of named columns from the model (`crate::kit::csv`). The
//! whole document passes through [`dbio_model::visible::visible_lines`], as
//! the table does: a CSV file is read with `cat` and `less` as often as
//! with a spreadsheet, and its fields carry trace and report text as
//! written. A newline inside a field stays (the writer quotes that field).

use super::{ExportError, Exporter};
use dbio_model::Outcome;

/// CSV with a header line.
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn export(&self, result: &Outcome) -> Result<String, ExportError> {
        let text = match result {
            Outcome::Run(r) => crate::kit::csv::to_csv(r)?,
            Outcome::Trace(t) => crate::kit::csv::trace_csv(t)?,
            Outcome::TraceComparison(c) => crate::kit::csv::trace_comparison_csv(c)?,
            Outcome::Awr(r) => crate::kit::csv::awr_csv(r)?,
            Outcome::AwrComparison(c) => crate::kit::csv::awr_comparison_csv(c)?,
            Outcome::Comparison(c) => crate::sections::compare::table::to_csv(c)?,
            Outcome::AwrTrend(t) => crate::sections::awr::trend::csv(t)?,
        };
        Ok(dbio_model::visible::visible_lines(&text).into_owned())
    }
}
