//! The progress bar on stderr, fed by the engine's reporter thread (or a
//! model's: `dbio_engine::series::report_progress`). Hidden when stderr
//! is not a terminal or with `--quiet`; a bar leaves the screen when it
//! is dropped.

use dbio_engine::runner::{Counted, Progress, ProgressInfo};
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

impl Bar {
    /// Shows where a `dbio snap` interval is: seconds waited of the
    /// interval, and which interval of a series.
    pub fn snap(&self, elapsed_s: f64, planned_s: f64, label: &str) {
        let Some(b) = &self.bar else { return };
        let frac = if planned_s > 0.0 {
            elapsed_s / planned_s
        } else {
            1.0
        };
        b.set_position((frac.clamp(0.0, 1.0) * 1000.0) as u64);
        b.set_message(format!("{label}{elapsed_s:.0} s of {planned_s:.0} s"));
    }
}

impl Progress for Bar {
    fn update(&self, p: &ProgressInfo) {
        let Some(b) = &self.bar else { return };
        b.set_position((fraction(p) * 1000.0) as u64);
        b.set_message(message(p));
    }

    fn shown(&self) -> bool {
        self.bar.is_some()
    }
}

/// How far a run is, 0 to 1: by time for a timed run, by operations for
/// a count-based one.
fn fraction(p: &ProgressInfo) -> f64 {
    let frac = match (p.planned_s, p.ops_planned) {
        (Some(t), _) if t > 0.0 => p.elapsed_s / t,
        (_, Some(n)) if n > 0 => p.ops_done as f64 / n as f64,
        _ => 0.0,
    };
    frac.clamp(0.0, 1.0)
}

/// The bar's message: the rate of what the run counts (I/Os with their
/// byte rate, commits, buffer operations).
fn message(p: &ProgressInfo) -> String {
    let warm = if p.warming_up { "warm-up " } else { "" };
    let rate = format_count_rate(p.iops);
    match p.counted {
        Counted::Ios => format!("{warm}{rate} IOPS {}", format_rate(p.bytes_per_sec)),
        Counted::Commits => format!("{warm}{rate} commits/s, {} commits", p.ops_done),
        Counted::BufferOps => format!("{warm}{rate} buffer ops/s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(counted: Counted) -> ProgressInfo {
        ProgressInfo {
            elapsed_s: 1.5,
            planned_s: Some(3.0),
            ops_done: 1200,
            ops_planned: None,
            iops: 800.0,
            bytes_per_sec: 0.0,
            warming_up: false,
            counted,
        }
    }

    #[test]
    fn the_message_names_what_the_run_counts() {
        assert!(message(&info(Counted::Ios)).contains(" IOPS "));
        let commits = message(&info(Counted::Commits));
        assert!(commits.ends_with(" commits/s, 1200 commits"), "{commits}");
        assert!(message(&info(Counted::BufferOps)).ends_with(" buffer ops/s"));
    }

    #[test]
    fn the_position_follows_time_then_operations_and_stays_in_range() {
        assert_eq!(fraction(&info(Counted::Ios)), 0.5);
        let counted = ProgressInfo {
            planned_s: None,
            ops_planned: Some(4800),
            ..info(Counted::Ios)
        };
        assert_eq!(fraction(&counted), 0.25);
        let late = ProgressInfo {
            elapsed_s: 9.0,
            ..info(Counted::Ios)
        };
        assert_eq!(fraction(&late), 1.0);
    }

    #[test]
    fn no_bar_is_drawn_when_quiet() {
        let b = Bar::new("x", true);
        assert!(b.bar.is_none());
        b.update(&info(Counted::Commits));
    }
}
