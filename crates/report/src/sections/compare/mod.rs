//! `dbio compare`: aligns saved results of one command and puts their
//! figures side by side ([`dbio_model::compare::Comparison`]).
//!
//! Alignment is by name: jobs by job name, model runs by configuration
//! name (`writers=4`, `cached=0%`), trace events and profile lines by event
//! name, AWR events and load-profile lines by their printed name; an entry
//! only some inputs hold is shown with gaps and named in a warning. Each
//! kind of entry has one list of figures (`metrics.rs`), the same figures
//! its own table leads with; rounds (`lgwr`'s round TPS) and per-second
//! series give each figure a spread, and the spreads a verdict
//! ([`dbio_model::compare::NOISE_RULE`]).
//!
//! The settings that differ are found without a list of them: each
//! input's environment and each aligned entry's configuration are walked
//! as JSON (`settings.rs`), so a new option is compared the day it exists.
//! What changes from run to run by itself (load average, page-cache
//! residency, dbio's temporary file names, seeds of nothing) is left out.

pub mod findings;
pub mod html;
mod metrics;
mod settings;
pub mod table;
pub mod verdict;

use crate::kit::metrics::label;
use dbio_model::compare::{ComparedInput, Comparison, NOISE_RULE};
use dbio_model::{Finding, Outcome, Severity};

/// The comparison of `inputs` (file name, result), ratios against the
/// first; one sentence when they cannot be compared.
pub fn compare(inputs: &[(String, Outcome)], tool: &str) -> Result<Comparison, String> {
    if inputs.len() < 2 {
        return Err(format!(
            "dbio compare needs at least two results, got {}",
            inputs.len()
        ));
    }
    let (first_file, first) = &inputs[0];
    for (file, o) in inputs {
        if matches!(
            o,
            Outcome::Comparison(_) | Outcome::TraceComparison(_) | Outcome::AwrComparison(_)
        ) {
            return Err(format!(
                "{file} is already a comparison ({}); compare the results it was made from",
                o.command()
            ));
        }
        if o.command() != first.command() {
            return Err(format!(
                "{file} is a '{}' result and {first_file} a '{}' result: dbio compare only compares results of one command",
                o.command(),
                first.command()
            ));
        }
    }
    let mut c = Comparison {
        schema_version: dbio_model::SCHEMA_VERSION,
        tool: tool.to_string(),
        compared_command: first.command().to_string(),
        noise_rule: NOISE_RULE.to_string(),
        ..Comparison::default()
    };
    let mut notes = Vec::new();
    for (i, (file, o)) in inputs.iter().enumerate() {
        c.inputs.push(input(label(i), file, o));
        if let Some(p) = &c.inputs[i].partial {
            notes.push(format!(
                "{} ({file}) is partial ({p}): its figures cover what ran",
                label(i)
            ));
        }
    }
    let outcomes: Vec<&Outcome> = inputs.iter().map(|(_, o)| o).collect();
    c.settings = settings::differences(&outcomes);
    metrics::rows(&outcomes, &mut c.rows, &mut notes);
    let mut fs = findings::evaluate(&c);
    fs.extend(
        notes
            .into_iter()
            .map(|n| Finding::note("compare.note", Severity::Notice, n)),
    );
    c.findings = crate::verdict::rank(fs);
    c.verdict = verdict::verdict(&c);
    Ok(c)
}

fn input(label: String, file: &str, o: &Outcome) -> ComparedInput {
    let (tool, started, partial) = match o {
        Outcome::Run(r) => (
            r.tool.clone(),
            Some(r.started_at_unix),
            r.partial.as_ref().map(|p| p.to_string()),
        ),
        _ => (String::new(), None, None),
    };
    ComparedInput {
        label,
        file: file.to_string(),
        tool,
        started_at_unix: started,
        partial,
    }
}
