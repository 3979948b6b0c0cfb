//! The terminal tables. The whole rendering passes through
//! [`dbio_model::visible::visible_lines`]: SQL text, event and file names,
//! AWR strings, host names and server messages reach cells from many
//! renderers, and a terminal must print them, never obey them.

use super::{ExportError, Exporter};
use dbio_model::Outcome;

/// The terminal tables of any result (what a command prints on standard
/// output).
#[derive(Debug, Clone, Copy, Default)]
pub struct TableExporter;

impl Exporter for TableExporter {
    fn export(&self, result: &Outcome) -> Result<String, ExportError> {
        let text = match result {
            Outcome::Run(r) => crate::table::render(r),
            Outcome::Trace(t) => crate::trace::render(t),
            Outcome::TraceComparison(c) => crate::trace::render_comparison(c),
            Outcome::Awr(r) => crate::awr::render(r),
            Outcome::AwrComparison(c) => crate::awr::render_comparison(c),
            Outcome::Comparison(c) => crate::compare::render::render(c),
            Outcome::AwrTrend(t) => crate::awr_trend::render(t),
        };
        Ok(dbio_model::visible::visible_lines(&text).into_owned())
    }
}
