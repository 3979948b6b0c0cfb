//! The terminal tables. The whole rendering passes through
//! [`dbio_model::visible::visible_lines`]: SQL text, event and file names,
//! AWR strings, host names and server messages reach cells from many
//! renderers, and a terminal must print them, never obey them.

use super::{ExportError, Exporter};
use crate::sections::SECTIONS;
use dbio_model::{Layout, Outcome, RunReport};
use std::fmt::Write;

/// The terminal tables of any result (what a command prints on standard
/// output).
#[derive(Debug, Clone, Copy, Default)]
pub struct TableExporter;

impl Exporter for TableExporter {
    fn export(&self, result: &Outcome) -> Result<String, ExportError> {
        let text = match result {
            Outcome::Run(r) => run(r),
            Outcome::Trace(t) => crate::sections::trace::table::render(t),
            Outcome::TraceComparison(c) => crate::sections::trace::table::render_comparison(c),
            Outcome::Awr(r) => crate::sections::awr::table::render(r),
            Outcome::AwrComparison(c) => crate::sections::awr::table::render_comparison(c),
            Outcome::Comparison(c) => crate::sections::compare::table::render(c),
            Outcome::AwrTrend(t) => crate::sections::awr::trend::render(t),
        };
        Ok(dbio_model::visible::visible_lines(&text).into_owned())
    }
}

/// Renders a whole report for a terminal. Each section renders itself
/// when present, laid out as the report's `layout` says: in full, or
/// (a composite result such as `dbio check`) as summary tables.
pub fn run(r: &RunReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", r.tool, r.command);
    let brief = r.layout == Layout::Brief;
    let detail = if brief {
        crate::sections::check::brief::DETAIL
    } else {
        crate::kit::text::DETAIL_BELOW
    };
    out.push_str(&crate::kit::text::opening(
        r.verdict.as_ref(),
        &r.findings,
        detail,
    ));
    if brief {
        out.push_str(&crate::kit::text::environment_brief(&r.environment));
    } else {
        out.push_str(&crate::kit::text::environment(&r.environment));
    }
    out.push_str(&crate::sections::jobs::fleet::start_line(r));
    if let Some(p) = &r.partial {
        let _ = writeln!(
            out,
            "\nPARTIAL RESULT: {p}. The figures below cover only what ran."
        );
    }
    if brief {
        out.push('\n');
        out.push_str(&crate::sections::check::brief::table(r));
    } else {
        for s in SECTIONS {
            let section = s.table(r);
            if !section.is_empty() {
                out.push('\n');
                out.push_str(&section);
            }
        }
        let rest = crate::kit::text::other_findings(r.verdict.as_ref(), &r.findings);
        if !rest.is_empty() {
            out.push('\n');
            out.push_str(&rest);
        }
    }
    if !r.warnings.is_empty() {
        out.push('\n');
        for w in &r.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    out
}
