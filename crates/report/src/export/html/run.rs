//! A measurement's page ([`RunReport`]): what ran, whether it finished,
//! the findings, then each section the report holds (raw jobs, log
//! writer, database writer, reads, calibration, load matrix, commit
//! load, live traces), then where it ran.

use crate::kit::html::page::{self, esc};
use dbio_model::RunReport;
use std::fmt::Write;

/// The whole page of a measurement.
pub fn render(r: &RunReport, invocation: Option<&str>) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<header><h1>dbio {}</h1><p class=\"muted\" id=\"summary\">{}, started {}; result schema version {}.</p>",
        esc(&r.command),
        esc(&r.tool),
        page::utc(r.started_at_unix),
        r.schema_version
    );
    match &r.partial {
        Some(p) => {
            let _ = write!(
                b,
                "<p class=\"partial\" id=\"partial\">PARTIAL RESULT: {}. The figures below hold what was measured until then.</p>",
                esc(&p.to_string())
            );
        }
        None => b.push_str("<p id=\"complete\">Complete: every part of the run finished.</p>"),
    }
    b.push_str("</header>\n");
    b.push_str(&crate::kit::html::page::provenance(&r.tool, invocation));
    b.push_str("<h2 id=\"h-findings\">Findings</h2>\n");
    b.push_str(&page::findings(&r.findings));
    if !r.warnings.is_empty() {
        b.push_str("<h3>Warnings</h3><ul id=\"warnings\">");
        for w in &r.warnings {
            let _ = write!(b, "<li>{}</li>", esc(w));
        }
        b.push_str("</ul>\n");
    }
    for s in crate::sections::in_page_order() {
        b.push_str(&s.html(r));
    }
    b.push_str("<h2 id=\"h-environment\">Environment</h2>\n");
    b.push_str(&page::environment(&r.environment));
    page::document(
        &format!("dbio {}: {}", r.command, r.environment.hostname),
        &b,
    )
}
