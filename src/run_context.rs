//! The one run context every command goes through: signals, partial-result
//! marking, the save after each step, scratch-file cleanup and the exit
//! status live here once, so a new command cannot get one of them wrong.
//!
//! A run stops early on SIGINT, SIGTERM, SIGHUP or SIGQUIT, on an I/O
//! error, or (`dbio check`) when a section cannot run;
//! `RunReport::mark_partial` (in the model) is the one place that records
//! why, and [`exit_status`] the one place that
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
use dbio_engine::lifecycle::Jobs;
use dbio_engine::sequence::Hooks;
pub use dbio_engine::sequence::{resolve_all, NamedJob};
use dbio_engine::stripe::StripePlan;
use dbio_model::{RunReport, SCHEMA_VERSION};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
        }
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
    /// The first such job prepares every member (all of them, or none);
    /// later jobs reopen them. Returns false when the run must stop.
    pub fn run_striped(
        &mut self,
        nj: &NamedJob,
        plan: &StripePlan,
        report: &mut RunReport,
    ) -> anyhow::Result<bool> {
        self.run_job(nj, Some(plan), report, &|name| name.to_string())
    }

    /// Runs one job, appending its result to `report`, behind a progress
    /// bar labelled `label(name)`. Returns false when the run must stop
    /// (signal or I/O error: the report is partial).
    pub fn run_job(
        &mut self,
        nj: &NamedJob,
        plan: Option<&StripePlan>,
        report: &mut RunReport,
        label: &dyn Fn(&str) -> String,
    ) -> anyhow::Result<bool> {
        let signals = self.signals.as_ref();
        let (outputs, quiet) = (&self.outputs, self.quiet);
        let hooks = Hooks {
            signal: &|| signals.and_then(Signals::received),
            progress: &|name| Box::new(Bar::new(&label(name), quiet)),
            save: &|r| outputs.save(r),
        };
        Ok(self.jobs.run_named(nj, plan, report, &hooks)?)
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
        report.stopped_by(self.signal())
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

    /// Writes a result measured outside a [`RunReport`] (`dbio snap`'s
    /// interval): status 1 when `partial` (a signal cut it short) or an
    /// output could not be written.
    pub fn finish_outcome(&self, result: &dbio_model::Outcome, partial: bool) -> ExitCode {
        exit_status(partial, self.outputs.finish(result))
    }

    /// Runs one job, appending its result to `report`. Returns false when
    /// the run must stop (signal or I/O error: the report is partial).
    pub fn run(&mut self, nj: &NamedJob, report: &mut RunReport) -> anyhow::Result<bool> {
        self.run_job(nj, None, report, &|name| name.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
