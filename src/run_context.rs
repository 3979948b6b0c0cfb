//! The one run context every command goes through: signals, partial-result
//! marking, the save after each step, scratch-file cleanup and the exit
//! status live here once, so a new command cannot get one of them wrong.
//!
//! A run stops early on SIGINT, SIGTERM, SIGHUP or SIGQUIT, on an I/O
//! error, or (`dbio check`) when a section cannot run; [`mark_partial`] is
//! the one place that records why, and [`exit_status`] the one place that
//! turns the outcome into 0 (complete and written), 1 (partial, or an
//! output not written after measuring) or, through `main`, 2 (an error
//! before anything was measured). Scratch files (the shared target of
//! `bench` and `check`, the datafile of `dbwr`) are owned by the context
//! or by values it outlives, and removed when they drop, after the outputs
//! are written.

use crate::output::Outputs;
use crate::progress::Bar;
use crate::signals::Signals;
use anyhow::Context;
use dbio_engine::lifecycle::{Jobs, NotStarted, Prepared};
use dbio_engine::stripe::StripePlan;
use dbio_engine::{Job, JobTarget};
use dbio_model::JobConfig;
use dbio_model::{PartialReason, RunReport, SCHEMA_VERSION};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A named job to run.
pub struct NamedJob {
    /// Row label.
    pub name: String,
    /// The job, validated.
    pub job: Job,
}

/// Validates every job for `target`; the first error stops everything
/// before any I/O.
pub fn resolve_all(
    configs: Vec<(String, JobConfig)>,
    target: &JobTarget,
) -> anyhow::Result<Vec<NamedJob>> {
    configs
        .into_iter()
        .map(|(name, c)| {
            Ok(NamedJob {
                job: Job::resolve(&c, target)?,
                name,
            })
        })
        .collect()
}

/// A new, empty report for `command` on `target`.
pub fn new_report(command: &str, target: &std::path::Path) -> RunReport {
    RunReport {
        schema_version: SCHEMA_VERSION,
        tool: format!("dbio {}", env!("CARGO_PKG_VERSION")),
        command: command.to_string(),
        started_at_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        environment: dbio_engine::sysinfo::environment(target),
        ..Default::default()
    }
}

/// Records in `report` why the run stopped before it was done: the one
/// place a result is marked partial. A signal or an I/O error replaces an
/// earlier reason (it is what stopped the run); a section that could not
/// run (`PartialReason::Incomplete`) only fills an empty one.
pub fn mark_partial(report: &mut RunReport, why: PartialReason) {
    match why {
        PartialReason::Incomplete { .. } => {
            report.partial.get_or_insert(why);
        }
        _ => report.partial = Some(why),
    }
}

/// Marks `report` partial when `signal` names the signal that arrived;
/// whether it did (the caller stops).
pub fn stopped_by(report: &mut RunReport, signal: Option<&'static str>) -> bool {
    match signal {
        Some(sig) => {
            mark_partial(report, PartialReason::Signal { signal: sig.into() });
            true
        }
        None => false,
    }
}

/// Marks `report` partial for the I/O error `message`.
pub fn io_error(report: &mut RunReport, message: impl Into<String>) {
    mark_partial(
        report,
        PartialReason::IoError {
            message: message.into(),
        },
    );
}

/// The exit status of a run: 1 when the result is partial or an output
/// could not be written after measuring, 0 otherwise (2, an error before
/// anything was measured, is `main`'s).
pub fn exit_status(partial: bool, written: bool) -> ExitCode {
    if partial || !written {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// One command's run: its outputs, its signal handlers and stop flag, and
/// the engine's jobs with the targets they share
/// ([`dbio_engine::lifecycle`]). Runs jobs in order; stops at the first
/// interruption or I/O error and marks the report partial.
pub struct RunContext {
    jobs: Jobs,
    signals: Option<Signals>,
    outputs: Outputs,
    quiet: bool,
    /// Put before each job's name on its progress bar.
    bar_prefix: String,
}

impl RunContext {
    /// A context for a command that measures: installs the signal
    /// handlers (SIGINT, SIGTERM, SIGHUP and SIGQUIT raise the stop flag).
    pub fn new(outputs: Outputs, quiet: bool) -> anyhow::Result<RunContext> {
        let jobs = Jobs::default();
        let signals =
            Signals::install(&jobs.control().stop).context("installing signal handlers")?;
        Ok(RunContext {
            jobs,
            signals: Some(signals),
            outputs,
            quiet,
            bar_prefix: String::new(),
        })
    }

    /// A context for a command that only reads and renders (`report`,
    /// `tracefile`): signals keep their default action, nothing is
    /// measured that a stop would have to keep.
    pub fn without_signals(outputs: Outputs) -> RunContext {
        RunContext {
            jobs: Jobs::default(),
            signals: None,
            outputs,
            quiet: true,
            bar_prefix: String::new(),
        }
    }

    /// Puts `prefix` before each job's name on its progress bar (`dbio
    /// check` names its section).
    pub fn set_bar_prefix(&mut self, prefix: impl Into<String>) {
        self.bar_prefix = prefix.into();
    }

    /// Makes every scratch target of the run in `dir` (opened once),
    /// whatever the job's path says.
    pub fn set_scratch_dir(&mut self, dir: dbio_engine::scratch::ScratchDir) {
        self.jobs.set_scratch_dir(dir);
    }

    /// Makes the first job wait, once its target is prepared, until the
    /// wall clock reads `t` (ns since the epoch; `--start-at`).
    pub fn set_start_at(&mut self, t: Option<u64>) {
        self.jobs.set_start_at(t);
    }

    /// Runs one job striped over several targets (`plan`, checked by
    /// `dbio_engine::stripe::plan`), appending its result to `report`.
    /// The first such job prepares every member (all of them, or none:
    /// a member that cannot be prepared removes what was made for the
    /// others); later jobs reopen them. Returns false when the run must
    /// stop.
    pub fn run_striped(
        &mut self,
        nj: &NamedJob,
        plan: &StripePlan,
        report: &mut RunReport,
    ) -> anyhow::Result<bool> {
        self.reset_stop();
        let prepared = self.jobs.prepare_striped(&nj.job, plan, report);
        Self::run_prepared(
            prepared,
            self.signals.as_ref(),
            (&nj.name, &format!("{}{}", self.bar_prefix, nj.name)),
            self.quiet,
            report,
        )
        .and_then(|o| self.record(o, report))
    }

    /// The previous job's deadline raised the stop flag; a signal keeps
    /// it raised.
    fn reset_stop(&self) {
        self.jobs
            .control()
            .stop
            .store(self.signal().is_some(), Ordering::Relaxed);
    }

    /// Runs a job its target(s) are ready for, behind a progress bar
    /// labelled `label`;
    /// None when it did not start because of a signal (the report is
    /// marked: `signals` is asked once the preparation is over), an error
    /// when its target could not be prepared.
    fn run_prepared(
        prepared: Result<Prepared<'_>, NotStarted>,
        signals: Option<&Signals>,
        (name, label): (&str, &str),
        quiet: bool,
        report: &mut RunReport,
    ) -> anyhow::Result<Option<Result<dbio_engine::runner::JobOutcome, dbio_engine::EngineError>>>
    {
        let signal = || signals.and_then(Signals::received);
        let prepared = match prepared {
            Ok(p) => p,
            Err(NotStarted::Prepare(_)) if stopped_by(report, signal()) => return Ok(None),
            Err(NotStarted::Prepare(e)) => return Err(e.into()),
            Err(NotStarted::StoppedWaiting) => {
                stopped_by(report, signal());
                return Ok(None);
            }
        };
        let bar = Bar::new(label, quiet);
        let outcome = prepared.run(name, &bar);
        bar.finish();
        Ok(Some(outcome))
    }

    /// Appends a job's outcome to `report`; false when the run must stop.
    fn record(
        &mut self,
        outcome: Option<Result<dbio_engine::runner::JobOutcome, dbio_engine::EngineError>>,
        report: &mut RunReport,
    ) -> anyhow::Result<bool> {
        let outcome = match outcome {
            // It did not start: a stop came first.
            None => return Ok(false),
            Some(Ok(o)) => o,
            // Nothing measured yet: an error (status 2).
            Some(Err(e)) if report.jobs.is_empty() => return Err(e.into()),
            // Earlier jobs measured: keep them, as a partial result.
            Some(Err(e)) => {
                io_error(report, e.to_string());
                return Ok(false);
            }
        };
        report.jobs.push(outcome.result);
        if self.interrupted(report) {
            return Ok(false);
        }
        if let Some(e) = outcome.error {
            io_error(report, e.to_string());
            return Ok(false);
        }
        self.save(report);
        Ok(true)
    }

    /// The stop flag that SIGINT, SIGTERM, SIGHUP and SIGQUIT raise.
    pub fn stop_flag(&self) -> &Arc<AtomicBool> {
        &self.jobs.control().stop
    }

    /// The signal that stopped the run, if one did.
    pub fn signal(&self) -> Option<&'static str> {
        self.signals.as_ref().and_then(Signals::received)
    }

    /// Marks `report` partial when a signal arrived; whether one did.
    pub fn interrupted(&self, report: &mut RunReport) -> bool {
        stopped_by(report, self.signal())
    }

    /// Removes the shared target file now (`dbio check` frees its space
    /// before the sections that make their own files).
    pub fn release_target(&mut self) {
        self.jobs.release_target();
    }

    /// Saves the regular output files after a step: best effort, the
    /// final [`RunContext::finish`] reports a failure.
    pub fn save(&self, report: &RunReport) {
        self.outputs.save(report);
    }

    /// Writes every requested output of the run; its exit status.
    pub fn finish(&self, report: &RunReport) -> ExitCode {
        let written = self.outputs.finish_run(report);
        exit_status(report.partial.is_some(), written)
    }

    /// Writes a result the command did not measure (`tracefile`'s
    /// analysis, or a saved result `report` re-renders): it is complete
    /// as it stands, so the exit status is 0 unless an output could not
    /// be written.
    pub fn finish_result(&self, result: &dbio_model::Outcome) -> ExitCode {
        exit_status(false, self.outputs.finish(result))
    }

    /// Runs one job, appending its result to `report`. Returns false when
    /// the run must stop (signal or I/O error: the report is partial).
    pub fn run(&mut self, nj: &NamedJob, report: &mut RunReport) -> anyhow::Result<bool> {
        self.reset_stop();
        let prepared = self.jobs.prepare(&nj.job, report);
        Self::run_prepared(
            prepared,
            self.signals.as_ref(),
            (&nj.name, &format!("{}{}", self.bar_prefix, nj.name)),
            self.quiet,
            report,
        )
        .and_then(|o| self.record(o, report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incomplete(m: &str) -> PartialReason {
        PartialReason::Incomplete { message: m.into() }
    }

    #[test]
    fn a_signal_or_io_error_replaces_the_reason_a_missing_section_only_fills_it() {
        let mut r = RunReport::default();
        mark_partial(&mut r, incomplete("the read section could not run"));
        mark_partial(&mut r, incomplete("the writer section could not run"));
        assert_eq!(
            r.partial,
            Some(incomplete("the read section could not run"))
        );
        assert!(!stopped_by(&mut r, None));
        assert_eq!(
            r.partial,
            Some(incomplete("the read section could not run"))
        );
        io_error(&mut r, "No space left on device (os error 28)");
        assert!(matches!(r.partial, Some(PartialReason::IoError { .. })));
        assert!(stopped_by(&mut r, Some("SIGTERM")));
        assert_eq!(
            r.partial,
            Some(PartialReason::Signal {
                signal: "SIGTERM".into()
            })
        );
        mark_partial(&mut r, incomplete("later"));
        assert!(matches!(r.partial, Some(PartialReason::Signal { .. })));
    }

    #[test]
    fn the_exit_status_is_zero_only_when_complete_and_written() {
        let code = |p, w| format!("{:?}", exit_status(p, w));
        assert_ne!(
            format!("{:?}", ExitCode::SUCCESS),
            format!("{:?}", ExitCode::from(1)),
            "the statuses must be told apart"
        );
        assert_eq!(code(false, true), format!("{:?}", ExitCode::SUCCESS));
        for (p, w) in [(true, true), (false, false), (true, false)] {
            assert_eq!(code(p, w), format!("{:?}", ExitCode::from(1)), "{p} {w}");
        }
    }
}
