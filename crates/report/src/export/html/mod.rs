//! HTML: one self-contained page per result, to hand to colleagues,
//! storage vendors and managers: charts as inline SVG, the style sheet
//! inline, no script, and a Content-Security-Policy that forbids any fetch,
//! so it opens from a mail attachment on a machine with no network.
//!
//! The page is drawn from the result model only, as every exporter's
//! output (`dbio report --from RESULT.json --html FILE` draws the same
//! page the command did). Layout: `kit::html` (the document, style sheet,
//! escaping, the shared blocks, the SVG chart primitives), and each kind
//! of result's `html.rs` in its folder under `sections/`. A
//! measurement's sections each render themselves when present, as in the
//! terminal table, so `dbio check`'s composite result gets every chart.

mod run;

use super::{ExportError, Exporter};
use dbio_model::Outcome;

/// The HTML page of any result.
#[derive(Debug, Clone, Default)]
pub struct HtmlExporter {
    /// The command line to show when the result does not record one (a
    /// result written before `invocation` was recorded, or built by a
    /// library caller); the result's own wins.
    pub invocation: Option<String>,
}

impl Exporter for HtmlExporter {
    fn export(&self, result: &Outcome) -> Result<String, ExportError> {
        let recorded = match result {
            Outcome::Run(r) => r.invocation.as_deref(),
            Outcome::Trace(t) => t.invocation.as_deref(),
            Outcome::TraceComparison(c) => c.invocation.as_deref(),
            Outcome::Awr(r) => r.invocation.as_deref(),
            Outcome::AwrComparison(c) => c.invocation.as_deref(),
            Outcome::Comparison(c) => c.invocation.as_deref(),
            Outcome::AwrTrend(t) => t.invocation.as_deref(),
        };
        let inv = recorded.or(self.invocation.as_deref());
        Ok(match result {
            Outcome::Run(r) => run::render(r, inv),
            Outcome::Trace(t) => crate::sections::trace::html::render(t, inv),
            Outcome::TraceComparison(c) => crate::sections::trace::html::render_comparison(c, inv),
            Outcome::Awr(r) => crate::sections::awr::html::render(r, inv),
            Outcome::AwrComparison(c) => crate::sections::awr::html::render_comparison(c, inv),
            Outcome::Comparison(c) => crate::sections::compare::html::render(c, inv),
            Outcome::AwrTrend(t) => crate::sections::awr::html::render_trend(t, inv),
        })
    }
}
