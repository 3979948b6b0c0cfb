//! Terminal rendering of `dbio load --predict`: the log-writer model's
//! prediction beside the measurement, with the residual of each figure
//! and the `dbio lgwr` command that reproduces the model run.

use crate::kit::text::{new_table, right_align};
use comfy_table::Cell;
use dbio_model::load::LoadResult;
use dbio_model::load_predict::LoadPrediction;
use dbio_model::units::{format_bytes, format_count_rate, format_ns};
use std::fmt::Write;

/// The `dbio lgwr` command line that runs the same model.
pub fn lgwr_command(p: &LoadPrediction, x: &LoadResult) -> String {
    let mut s = format!(
        "dbio lgwr --protocol {} --method {} --sessions {} --txn-cpu {}us --redo-size {} --bs {} --files 2 --file-size 64m",
        p.protocol,
        p.method,
        p.model_sessions,
        (p.txn_cpu_ns as f64 / 1e3).round(),
        p.redo_bytes,
        p.block_size,
    );
    if p.model_client_cpu_ns > 0 {
        let _ = write!(
            s,
            " --client-cpu {}us",
            (p.model_client_cpu_ns as f64 / 1e3).round().max(1.0)
        );
    }
    if p.syncs_per_flush > 1 {
        let _ = write!(s, " --syncs-per-flush {}", p.syncs_per_flush);
    }
    if p.pipeline {
        s.push_str(" --pipeline");
    }
    if p.stage_append {
        s.push_str(" --stage-append");
    }
    if p.model_session_path_cpu_ns.is_some() || p.model_flush_cpu_ns.is_some() {
        s.push_str(" --cpu-includes-commit-path");
    }
    match x.config.commits_per_session {
        Some(n) => {
            let _ = write!(s, " --commits {n}");
        }
        None => {
            let _ = write!(
                s,
                " --runtime {}s",
                x.config.runtime_ns.unwrap_or(0) as f64 / 1e9
            );
        }
    }
    if x.config.think_time_ns > 0 {
        let _ = write!(s, " --think-time {}us", x.config.think_time_ns / 1000);
    }
    let _ = write!(s, " {}", p.dir);
    s
}

/// What the model took off the measured CPU, in words (None when it
/// took nothing off).
pub fn deducted(p: &LoadPrediction) -> Option<String> {
    match (p.model_session_path_cpu_ns, p.model_flush_cpu_ns) {
        (Some(path), flush) if p.txn_cpu_ns > 0 => {
            let mut s = format!(
                "less {} per commit that the model's sessions spent on their own commit path (round trip, queue, wake-ups{})",
                format_ns(path),
                flush.map_or_else(String::new, |f| format!(", {} of flushes", format_ns(f)))
            );
            if let Some(c) = p.model_client_path_cpu_ns {
                let _ = write!(
                    s,
                    " and {} per round trip that its client threads spent on theirs",
                    format_ns(c)
                );
            }
            s.push_str(": the measured CPU already holds the database's and the client's own");
            Some(s)
        }
        // Results written before the whole commit path was taken off.
        (None, Some(f)) if p.txn_cpu_ns > 0 => Some(format!(
            "less {} per commit that the model's own flushes spent (the measured CPU already holds the database's log writes and syncs)",
            format_ns(f)
        )),
        _ => None,
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:+.1} %"))
}

/// The prediction block of one run (empty without `--predict`).
pub fn render(x: &LoadResult) -> String {
    let Some(p) = &x.predict else {
        return String::new();
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model against reality (--predict): the log-writer model on the same storage, in {} ({})",
        p.dir, p.dir_reason
    );
    let _ = writeln!(s, "  {}", lgwr_command(p, x));
    let cpu = match (p.model_client_cpu_ns, p.server_cpu_ns) {
        (0, _) => format!(
            "{} in each session (SQLite runs in the client)",
            format_ns(p.txn_cpu_ns as f64)
        ),
        (c, Some(sv)) => format!(
            "{} in each session (the server backends'), {} in its client thread (the client's), a round trip between them",
            format_ns(sv),
            format_ns(c as f64)
        ),
        (c, None) => format!(
            "{} in each session's client thread (the client's; the server's was not measured), a round trip to the session",
            format_ns(c as f64)
        ),
    };
    let _ = writeln!(
        s,
        "  CPU per commit fed to the model: {}; {} of log per commit",
        cpu,
        format_bytes(p.redo_bytes)
    );
    if let Some(line) = deducted(p) {
        let _ = writeln!(s, "  {line}");
    }
    if p.pipeline {
        let _ = writeln!(
            s,
            "  {} group commits per commit, each with its own leader, overlapping between groups (--pipeline)",
            p.syncs_per_flush
        );
    }
    let mut t = new_table(&["figure", "predicted", "measured", "residual"]);
    t.add_row(vec![
        Cell::new("commits per second"),
        Cell::new(format_count_rate(p.predicted_tps)),
        Cell::new(format_count_rate(p.measured_tps)),
        Cell::new(pct(Some(p.tps_residual_pct))),
    ]);
    t.add_row(vec![
        Cell::new("commits per flush"),
        Cell::new(format!("{:.2}", p.predicted_commits_per_flush)),
        Cell::new(
            p.measured_commits_per_flush
                .map_or_else(|| "-".into(), |v| format!("{v:.2}")),
        ),
        Cell::new(pct(p.commits_per_flush_residual_pct)),
    ]);
    t.add_row(vec![
        Cell::new("mean commit latency"),
        Cell::new(format_ns(p.predicted_commit_ns)),
        Cell::new(format_ns(x.commit.mean_ns)),
        Cell::new(pct((x.commit.mean_ns > 0.0).then(|| {
            100.0 * (p.predicted_commit_ns - x.commit.mean_ns) / x.commit.mean_ns
        }))),
    ]);
    t.add_row(vec![
        Cell::new("mean flush latency"),
        Cell::new(format_ns(p.predicted_flush_ns)),
        Cell::new(
            x.derived
                .flush_latency_ns
                .map_or_else(|| "-".into(), format_ns),
        ),
        Cell::new(pct(x
            .derived
            .flush_latency_ns
            .filter(|&l| l > 0.0)
            .map(|l| 100.0 * (p.predicted_flush_ns - l) / l))),
    ]);
    right_align(&mut t);
    let _ = writeln!(s, "{t}");
    let _ = writeln!(
        s,
        "  residual = (predicted - measured) / measured; the model's error bound is ±{:.0} %",
        p.error_bound_pct
    );
    for n in &p.notes {
        let _ = writeln!(s, "  model: {n}");
    }
    if let Some(e) = &p.error {
        let _ = writeln!(s, "  the model run stopped early: {e}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suggested command uses today's flag names: a renamed flag
    /// would print a deprecation line when pasted.
    #[test]
    fn the_suggested_command_names_the_block_size_bs() {
        let p = LoadPrediction {
            block_size: 4096,
            ..LoadPrediction::default()
        };
        let c = lgwr_command(&p, &LoadResult::default());
        assert!(c.contains(" --bs 4096 "), "{c}");
        assert!(!c.contains("--block-size"), "{c}");
    }
}
