//! Progress on stderr. Hidden when stderr is not a terminal or with
//! `--quiet`: then nothing is made, no thread is started and nothing is
//! printed.
//!
//! Three kinds of bar, each fed without touching the measurement loop:
//!
//! * [`Bar`] as a [`Progress`] sink: the engine's reporter thread (`bench`,
//!   `read`, the jobs of `check`) sends it IOPS and bytes per second; `load`
//!   sends it commits per second from its own reporter.
//! * [`RateWatch`] (`lgwr`, `dbwr`): a [`Watch`] the model's per-second
//!   sampler thread calls every 100 ms with the counters the measuring
//!   threads already keep for the per-second series (per-thread probes,
//!   one relaxed store each, summed by the sampler). The bar shows
//!   commits or blocks written per second so far against the planned run
//!   time (or count). Nothing is added to the hot loop: the sampler was
//!   already reading those counters, it now reads them ten times as often.
//! * [`Timed`] (each section of `check`): the time elapsed against the
//!   section's planned time, advanced by a ticker thread of the bar's own
//!   that reads only the clock. A section runs several models one after
//!   another; its planned time is the sum of theirs, so the bar needs no
//!   counter from any of them.

use dbio_engine::runner::{Progress, ProgressInfo};
use dbio_engine::series::{Watch, COUNTS};
use dbio_model::units::{format_count_rate, format_rate};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Whether bars are drawn: stderr is a terminal and `--quiet` was not given.
pub fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// The position of a bar, 0 to 1: elapsed against the planned time for
/// a timed run, else done against the planned count, else 0.
pub fn fraction(elapsed_s: f64, planned_s: Option<f64>, done: u64, planned: Option<u64>) -> f64 {
    let f = match (planned_s, planned) {
        (Some(t), _) if t > 0.0 => elapsed_s / t,
        (_, Some(n)) if n > 0 => done as f64 / n as f64,
        _ => 0.0,
    };
    if f.is_finite() {
        f.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The label of section `i` of `n` of `dbio check`: "check 2/5: commit
/// path (log writer)".
pub fn section_label(i: usize, n: usize, what: &str) -> String {
    format!("check {i}/{n}: {what}")
}

/// What a rate bar says: "12.3 k commits/s, 45678 commits" (the rate is
/// the mean since the start: a run's rate so far).
pub fn rate_message(count: u64, elapsed_s: f64, unit: &str) -> String {
    let rate = if elapsed_s > 0.0 {
        count as f64 / elapsed_s
    } else {
        0.0
    };
    format!("{} {unit}/s, {count} {unit}", format_count_rate(rate))
}

/// What a timed bar says: "1.2 s of about 5.0 s".
pub fn time_message(elapsed_s: f64, planned_s: f64) -> String {
    format!("{elapsed_s:.1} s of about {planned_s:.1} s")
}

/// A bar drawn on stderr at most 10 times a second.
fn new_bar(template: &str, label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(10));
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("static template")
            .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// An indicatif bar (or nothing).
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar for a job named `name`, shown when stderr is a terminal and not quiet.
    pub fn new(name: &str, quiet: bool) -> Bar {
        Bar::with_template(name, quiet, "{prefix:.bold} [{bar:30}] {msg} (left {eta})")
    }

    /// A model run's bar (`lgwr`, `dbwr`, fed by a [`RateWatch`]): a
    /// shorter bar, so that a long label and its message fit 80 columns.
    pub fn for_model(name: &str, quiet: bool) -> Bar {
        Bar::with_template(name, quiet, "{prefix:.bold} [{bar:20}] {msg} (left {eta})")
    }

    fn with_template(name: &str, quiet: bool, template: &str) -> Bar {
        Bar {
            bar: visible(quiet).then(|| new_bar(template, name)),
        }
    }

    /// Removes the bar from the screen.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }

    fn show(&self, frac: f64, message: impl FnOnce() -> String) {
        let Some(b) = &self.bar else { return };
        b.set_position((frac * 1000.0) as u64);
        b.set_message(message());
    }
}

impl Bar {
    /// Shows where a `dbio load` run is, in commits per second (a commit
    /// is not an I/O). `label` names the comparison's configuration and
    /// round, when there is one.
    pub fn load(&self, t: &dbio_load::run::Tick, label: &str) {
        let frac = fraction(t.elapsed_s, t.planned_s, t.commits, t.commits_planned);
        self.show(frac, || {
            format!(
                "{label}{}{} commits/s, {} commits",
                if t.warming_up { "warm-up " } else { "" },
                format_count_rate(t.tps),
                t.commits
            )
        });
    }
}

impl Progress for Bar {
    fn update(&self, p: &ProgressInfo) {
        let frac = fraction(p.elapsed_s, p.planned_s, p.ops_done, p.ops_planned);
        self.show(frac, || {
            format!(
                "{}{} IOPS {}",
                if p.warming_up { "warm-up " } else { "" },
                format_count_rate(p.iops),
                format_rate(p.bytes_per_sec)
            )
        });
    }
}

/// A model run's bar (`lgwr`, `dbwr`): one of the sampler's counters, per
/// second so far, against the planned time or count.
pub struct RateWatch<'a> {
    /// The bar it draws on.
    pub bar: &'a Bar,
    /// Which probe counter to show.
    pub counter: usize,
    /// What it counts ("commits", "blocks").
    pub unit: &'static str,
    /// The run's planned time, seconds (timed runs).
    pub planned_s: Option<f64>,
    /// A run of a fixed count: which counter, and its planned total.
    pub planned: Option<(usize, u64)>,
}

impl Watch for RateWatch<'_> {
    fn update(&self, elapsed_s: f64, counts: &[u64; COUNTS]) {
        let count = |i: usize| counts.get(i).copied().unwrap_or(0);
        let done = count(self.counter);
        let frac = fraction(
            elapsed_s,
            self.planned_s,
            self.planned.map_or(0, |(i, _)| count(i)),
            self.planned.map(|(_, n)| n),
        );
        self.bar
            .show(frac, || rate_message(done, elapsed_s, self.unit));
    }
}

/// A bar for one section of `dbio check`: the time elapsed against the
/// planned time, advanced by a ticker thread that reads only the clock.
/// Removed from the screen when dropped.
pub struct Timed {
    bar: Option<ProgressBar>,
    done: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Timed {
    /// Starts the bar `label` for `planned_s` seconds, shown when stderr
    /// is a terminal and not quiet (otherwise nothing is started).
    pub fn start(label: &str, planned_s: f64, quiet: bool) -> Timed {
        let done = Arc::new(AtomicBool::new(false));
        if !visible(quiet) {
            return Timed {
                bar: None,
                done,
                ticker: None,
            };
        }
        let bar = new_bar("{prefix:.bold} [{bar:30}] {msg}", label);
        let t0 = Instant::now();
        let ticker = {
            let (bar, done) = (bar.clone(), done.clone());
            std::thread::Builder::new()
                .name("dbio-progress".into())
                .spawn(move || {
                    while !done.load(Ordering::Relaxed) {
                        let e = t0.elapsed().as_secs_f64();
                        bar.set_position((fraction(e, Some(planned_s), 0, None) * 1000.0) as u64);
                        bar.set_message(time_message(e, planned_s));
                        std::thread::sleep(Duration::from_millis(100));
                    }
                })
                // No ticker: the bar stays at its start, the run goes on.
                .ok()
        };
        Timed {
            bar: Some(bar),
            done,
            ticker,
        }
    }
}

impl Drop for Timed {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fraction_is_time_first_then_count_and_stays_within_0_and_1() {
        assert_eq!(fraction(1.0, Some(4.0), 999, Some(1000)), 0.25);
        assert_eq!(fraction(1.0, None, 250, Some(1000)), 0.25);
        assert_eq!(fraction(1.0, Some(0.0), 500, Some(1000)), 0.5);
        assert_eq!(fraction(9.0, Some(4.0), 0, None), 1.0);
        assert_eq!(fraction(-1.0, Some(4.0), 0, None), 0.0);
        assert_eq!(fraction(1.0, None, 0, None), 0.0);
        assert_eq!(fraction(1.0, None, 5, Some(0)), 0.0);
        assert_eq!(fraction(f64::NAN, Some(1.0), 0, None), 0.0);
    }

    #[test]
    fn labels_and_messages_read_as_words() {
        assert_eq!(
            section_label(2, 5, "commit path (log writer)"),
            "check 2/5: commit path (log writer)"
        );
        assert_eq!(
            rate_message(24_600, 2.0, "commits"),
            "12.3 k commits/s, 24600 commits"
        );
        assert_eq!(rate_message(450, 1.0, "blocks"), "450 blocks/s, 450 blocks");
        // Before the first tick: no division by zero.
        assert_eq!(rate_message(0, 0.0, "commits"), "0 commits/s, 0 commits");
        assert_eq!(time_message(1.23, 5.0), "1.2 s of about 5.0 s");
    }

    #[test]
    fn without_a_terminal_nothing_is_made() {
        // Tests run with stderr captured or redirected; --quiet hides it
        // in any case.
        let b = Bar::new("x", true);
        assert!(b.bar.is_none());
        let t = Timed::start("x", 1.0, true);
        assert!(t.bar.is_none() && t.ticker.is_none());
        // Updates to a hidden bar do nothing (and do not panic).
        RateWatch {
            bar: &b,
            counter: 0,
            unit: "commits",
            planned_s: Some(1.0),
            planned: None,
        }
        .update(0.5, &[10; COUNTS]);
    }
}
