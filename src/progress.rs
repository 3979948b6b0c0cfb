//! The progress bar on stderr, fed by the engine's reporter thread. Hidden
//! when stderr is not a terminal or with `--quiet`.

use dbio_engine::runner::{Progress, ProgressInfo};
use dbio_model::units::{format_count_rate, format_rate};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// An indicatif bar (or nothing).
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar for a job named `name`, shown when stderr is a terminal and not quiet.
    pub fn new(name: &str, quiet: bool) -> Bar {
        if quiet || !std::io::stderr().is_terminal() {
            return Bar { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(10));
        bar.set_style(
            ProgressStyle::with_template("{prefix:.bold} [{bar:30}] {msg} (left {eta})")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar.set_prefix(name.to_string());
        Bar { bar: Some(bar) }
    }

    /// Removes the bar from the screen.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Drop for Bar {
    /// A bar leaves the screen when its job is over.
    fn drop(&mut self) {
        self.finish();
    }
}

impl Bar {
    /// Shows where a `dbio load` run is, in commits per second (a commit
    /// is not an I/O). `label` names the comparison's configuration and
    /// round, when there is one.
    pub fn load(&self, t: &dbio_load::run::Tick, label: &str) {
        let Some(b) = &self.bar else { return };
        let frac = match (t.planned_s, t.commits_planned) {
            (Some(p), _) if p > 0.0 => t.elapsed_s / p,
            (_, Some(n)) if n > 0 => t.commits as f64 / n as f64,
            _ => 0.0,
        };
        b.set_position((frac.clamp(0.0, 1.0) * 1000.0) as u64);
        b.set_message(format!(
            "{label}{}{} commits/s, {} commits",
            if t.warming_up { "warm-up " } else { "" },
            format_count_rate(t.tps),
            t.commits
        ));
    }
}

impl Progress for Bar {
    fn update(&self, p: &ProgressInfo) {
        let Some(b) = &self.bar else { return };
        let frac = match (p.planned_s, p.ops_planned) {
            (Some(t), _) if t > 0.0 => p.elapsed_s / t,
            (_, Some(n)) if n > 0 => p.ops_done as f64 / n as f64,
            _ => 0.0,
        };
        b.set_position((frac.clamp(0.0, 1.0) * 1000.0) as u64);
        b.set_message(format!(
            "{}{} IOPS {}",
            if p.warming_up { "warm-up " } else { "" },
            format_count_rate(p.iops),
            format_rate(p.bytes_per_sec)
        ));
    }
}
