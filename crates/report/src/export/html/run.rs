//! A measurement's page ([`RunReport`]): what ran, whether it finished,
//! the findings, then each section the report holds (raw jobs, log
//! writer, database writer, reads, calibration, load matrix, commit
//! load, live traces), then where it ran.

use crate::kit::html::page::{self, Text};
use dbio_model::RunReport;
use maud::html;

/// The whole page of a measurement.
pub fn render(r: &RunReport, invocation: Option<&str>) -> String {
    let mut b = html! {
        header {
            h1 { "dbio " (Text(&r.command)) }
            p.muted #summary {
                (Text(&r.tool)) ", started " (page::utc(r.started_at_unix))
                "; result schema version " (r.schema_version) "."
            }
            @match &r.partial {
                Some(why) => p.partial #partial {
                    "PARTIAL RESULT: " (Text(&why.to_string()))
                    ". The figures below hold what was measured until then."
                },
                None => p #complete { "Complete: every part of the run finished." },
            }
        }
        "\n"
    }
    .into_string();
    b.push_str(&page::verdict(r.verdict.as_ref(), &r.findings));
    b.push_str(&crate::kit::html::page::provenance(&r.tool, invocation));
    b.push_str("<h2 id=\"h-findings\">Findings</h2>\n");
    b.push_str(&page::findings(&r.findings));
    if !r.warnings.is_empty() {
        let warnings = html! {
            h3 { "Warnings" }
            ul #warnings { @for w in &r.warnings { li { (Text(w)) } } }
            "\n"
        };
        b.push_str(&warnings.into_string());
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
