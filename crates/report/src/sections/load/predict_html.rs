//! `dbio load --predict` on the page: the log-writer model's figures
//! beside the database's, as paired bars with each residual written out,
//! and what the model was fed, so a reader can tell "the storage allows
//! more than the database reaches" from "the model is off".
//!
//! Residual = (predicted − measured) / measured, as in the terminal table
//! (crates/report/src/load_predict.rs); within the model's own error
//! bound (`error_bound_pct`) it says nothing about the database.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Pair};
use dbio_model::load::LoadResult;
use dbio_model::units::{format_bytes, format_ns};
use maud::html;

fn residual(pred: f64, meas: Option<f64>) -> String {
    match meas {
        Some(m) if m > 0.0 && m.is_finite() && pred.is_finite() => {
            format!("residual {:+.1} %", 100.0 * (pred - m) / m)
        }
        _ => "residual not known".into(),
    }
}

/// The predicted-vs-measured panel of run `i` (empty without `--predict`).
pub fn panel(i: usize, x: &LoadResult) -> String {
    let Some(p) = &x.predict else {
        return String::new();
    };
    let mut b = format!("<section class=\"predict\" id=\"load-predict-{i}\">");
    let head = html! {
        h4 { "Model against measurement (--predict)" }
        p {
            "The log-writer model on the same storage, in " (Text(&p.dir)) " (" (Text(&p.dir_reason))
            "). Residual = (predicted − measured) / measured; the model's own error bound is ±"
            (format!("{:.0}", p.error_bound_pct)) " %, beyond it the difference is the database's."
        }
    };
    b.push_str(&head.into_string());
    let commit_meas = (x.commit.count > 0).then_some(x.commit.mean_ns);
    let flush_meas = x.derived.flush_latency_ns;
    let rows = [
        Pair {
            label: "commits per second".into(),
            a: p.predicted_tps,
            b: Some(p.measured_tps),
            fmt: svg::fmt_count,
            note: format!("residual {:+.1} %", p.tps_residual_pct),
        },
        Pair {
            label: "commits per flush".into(),
            a: p.predicted_commits_per_flush,
            b: p.measured_commits_per_flush,
            fmt: |v| format!("{v:.2}"),
            note: p.commits_per_flush_residual_pct.map_or_else(
                || "residual not known".into(),
                |r| format!("residual {r:+.1} %"),
            ),
        },
        Pair {
            label: "mean commit latency".into(),
            a: p.predicted_commit_ns,
            b: commit_meas,
            fmt: svg::fmt_ns,
            note: residual(p.predicted_commit_ns, commit_meas),
        },
        Pair {
            label: "mean flush latency".into(),
            a: p.predicted_flush_ns,
            b: flush_meas,
            fmt: svg::fmt_ns,
            note: residual(p.predicted_flush_ns, flush_meas),
        },
    ];
    b.push_str(&svg::paired(
        &format!("load-predict-bars-{i}"),
        &format!("{}: the model's prediction beside the measurement", x.name),
        ["predicted", "measured"],
        &rows,
    ));
    let cpu = match (p.model_client_cpu_ns, p.server_cpu_ns) {
        (0, _) => format!(
            "{} in each session (SQLite runs in the client)",
            format_ns(p.txn_cpu_ns as f64)
        ),
        (c, Some(sv)) => format!(
            "{} in each session (the server backends'), {} in its client thread",
            format_ns(sv),
            format_ns(c as f64)
        ),
        (c, None) => format!(
            "{} in each session's client thread (the server's was not measured)",
            format_ns(c as f64)
        ),
    };
    let inputs = [
        ("protocol", p.protocol.clone()),
        ("method", p.method.clone()),
        (
            "syncs per flush",
            format!(
                "{}{}",
                p.syncs_per_flush,
                if p.pipeline {
                    " (each a group commit of its own, pipelined)"
                } else {
                    ""
                }
            ),
        ),
        ("model sessions", p.model_sessions.to_string()),
        ("CPU per commit fed", cpu),
        (
            "taken off: the model's own commit-path CPU",
            crate::sections::load::predict_table::deducted(p).unwrap_or_else(|| "-".into()),
        ),
        ("log per commit", format_bytes(p.redo_bytes)),
        ("block size", format_bytes(p.block_size)),
        (
            "model run",
            format!(
                "{} commits in {}",
                p.model_commits,
                format_ns(p.model_runtime_ns as f64)
            ),
        ),
        (
            "same model from the command line",
            crate::sections::load::predict_table::lgwr_command(p, x),
        ),
    ];
    let rows: Vec<Vec<String>> = inputs
        .iter()
        .map(|(k, v)| vec![k.to_string(), v.clone()])
        .collect();
    b.push_str(&page::table(
        &format!("load-predict-inputs-{i}"),
        &["model input", "value"],
        &rows,
    ));
    let tail = html! {
        @for n in &p.notes {
            p { "Model: " (Text(n)) }
        }
        @if let Some(e) = &p.error {
            p { "The model run stopped early: " (Text(e)) }
        }
    };
    b.push_str(&tail.into_string());
    b.push_str("</section>");
    b
}
