//! The model against reality (`dbio load --predict`) in words: when the
//! database's commit rate is further from the log-writer model's than the
//! model's error bound, say how much of the rate the model does not
//! explain and what it leaves out.
//!
//! The model has the storage (real writes and syncs in the same
//! directory), the group-commit protocol and the CPU each commit cost;
//! it does not have the client round trip and its wake-ups, the engine's
//! lock hand-offs or anything else between a commit's CPU and its flush.
//! A database slower than the model spends its time there; one faster
//! than the model groups more commits per flush than the model (or, with
//! asynchronous commit settings, does not wait for the flush at all).

use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use dbio_model::load::LoadResult;
use dbio_model::units::format_count_rate;

/// The residual finding of one run, when it has a prediction.
pub fn prediction(x: &LoadResult, v: &mut Vec<Finding>) {
    let Some(p) = &x.predict else { return };
    if p.measured_tps <= 0.0 || p.predicted_tps <= 0.0 {
        return;
    }
    let name = Some(x.name.as_str());
    let r = p.tps_residual_pct;
    let mut evidence = vec![
        ev("predicted commits per second", p.predicted_tps, "1/s"),
        ev("measured commits per second", p.measured_tps, "1/s"),
        ev("residual", r, "%"),
        ev("model error bound", p.error_bound_pct, "%"),
    ];
    if let Some(c) = p.measured_commits_per_flush {
        evidence.push(ev(
            "predicted commits per flush",
            p.predicted_commits_per_flush,
            "",
        ));
        evidence.push(ev("measured commits per flush", c, ""));
    }
    if r.abs() <= p.error_bound_pct {
        v.push(finding(
            "load.predict_agrees",
            name,
            Severity::Info,
            format!(
                "The log-writer model predicts {} commits per second for this storage, CPU and protocol, and the database made {} ({r:+.0} %, within the model's ±{:.0} %): its commits are as fast as its storage and CPU allow.",
                format_count_rate(p.predicted_tps),
                format_count_rate(p.measured_tps),
                p.error_bound_pct
            ),
            evidence,
            Some(doc("docs/load.md")),
        ));
        return;
    }
    // The share of the measured time per commit the model has no part for.
    let unexplained = if r > 0.0 {
        let (tm, tp) = (1.0 / p.measured_tps, 1.0 / p.predicted_tps);
        format!(
            "{:.0} % of each commit's time (at this rate) is outside the model: not storage, not the {} of CPU measured per commit, not the wake-ups of a round trip, but what lies between them (lock hand-offs, the engine's own waits, work off the sessions' CPU)",
            100.0 * (tm - tp) / tm,
            dbio_model::units::format_ns((p.txn_cpu_ns + p.model_client_cpu_ns) as f64)
        )
    } else {
        let grouping = match p.measured_commits_per_flush {
            Some(c) if c > p.predicted_commits_per_flush * 1.15 => format!(
                ": it grouped {c:.1} commits per flush against the model's {:.1}",
                p.predicted_commits_per_flush
            ),
            _ => String::new(),
        };
        format!(
            "the database commits faster than the model allows{grouping}; settings that do not wait for the flush, CPU the model spends twice (its own commit path's, when it was not taken off the measured figure: --cpu-includes-commit-path), or storage that was faster during the database's run than during the model's, make the model pessimistic"
        )
    };
    v.push(finding(
        "load.predict_residual",
        name,
        Severity::Notice,
        format!(
            "The database made {} commits per second where the log-writer model predicts {} on the same storage with the same CPU per commit ({r:+.0} %, beyond the model's ±{:.0} %): {unexplained}.",
            format_count_rate(p.measured_tps),
            format_count_rate(p.predicted_tps),
            p.error_bound_pct
        ),
        evidence,
        Some(doc("docs/load.md")),
    ));
}
