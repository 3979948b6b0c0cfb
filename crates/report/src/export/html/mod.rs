//! HTML: one self-contained page per result, to hand to colleagues,
//! storage vendors and managers: charts as inline SVG, the style sheet
//! inline, no script, and a Content-Security-Policy that forbids any fetch,
//! so it opens from a mail attachment on a machine with no network.
//!
//! The page is drawn from the result model only, as every exporter's
//! output (`dbio report --from RESULT.json --html FILE` draws the same
//! page the command did). Layout: [`page`] (document, style sheet,
//! escaping, the shared sections: findings, environment, settings),
//! [`svg`] (chart primitives), then one module per kind of result. A
//! measurement's sections each render themselves when present, as in the
//! terminal table, so `dbio check`'s composite result gets every chart.

mod awr;
mod awr_trace;
mod compare;
mod dbwr;
mod jobs;
mod lgwr;
mod load;
mod load_compare;
mod load_predict;
mod matrix;
pub mod page;
mod persec;
mod read;
mod run;
pub mod svg;
mod trace;
mod watch;
mod watch_block;

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
            Outcome::Trace(t) => trace::render(t, inv),
            Outcome::TraceComparison(c) => trace::render_comparison(c, inv),
            Outcome::Awr(r) => awr::render(r, inv),
            Outcome::AwrComparison(c) => awr::render_comparison(c, inv),
            Outcome::Comparison(c) => compare::render(c, inv),
            Outcome::AwrTrend(t) => awr::render_trend(t, inv),
        })
    }
}

/// The "how this was produced" lines shared by every page: dbio's version
/// that wrote the result, and the command line when known.
fn provenance(tool: &str, invocation: Option<&str>) -> String {
    let mut rows: Vec<(&str, String)> = Vec::new();
    if !tool.is_empty() {
        rows.push(("written by", tool.to_string()));
    }
    rows.push((
        "command line",
        invocation.map_or_else(
            || "not recorded in the result (written by a dbio that did not record it)".to_string(),
            str::to_string,
        ),
    ));
    page::pairs("provenance", &rows)
}
