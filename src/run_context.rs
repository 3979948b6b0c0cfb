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
use dbio_engine::bench::run_job_on;
use dbio_engine::runner::{run_job, Control};
use dbio_engine::stripe::{self, StripePlan};
use dbio_engine::target::Target;
use dbio_engine::{Job, JobTarget};
use dbio_model::JobConfig;
use dbio_model::{PartialReason, RunReport, SCHEMA_VERSION};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How long before `--start-at` a job stops waiting and starts its
/// threads, which then wait for the start themselves: thread start-up
/// took tens of ms on a loaded machine, and must not delay the start.
const START_LEAD_NS: u64 = 300_000_000;

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

/// Records the O_DIRECT alignment (statx) of the prepared file when the
/// environment could not: statx reports it for regular files and block
/// devices only, so a directory target gets it from dbio's file in it.
pub fn fill_dio_alignment(report: &mut RunReport, t: &Target) {
    if report.environment.dio_alignment.is_none() {
        report.environment.dio_alignment = dbio_engine::sysinfo::dio_alignment_fd(&*t.file);
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
/// the scratch target shared by its jobs. Runs jobs in order on one
/// target: the first job that uses a file prepares it; later jobs reuse it
/// (it is dbio's, so reuse is allowed). Stops at the first interruption or
/// I/O error and marks the report partial.
pub struct RunContext {
    control: Control,
    signals: Option<Signals>,
    outputs: Outputs,
    shared: Option<Target>,
    /// The directory a scratch target is made in, opened once for the
    /// run (`dbio check`); None: the job's path is looked up when its
    /// target is prepared.
    scratch_dir: Option<dbio_engine::scratch::ScratchDir>,
    /// The members of a stripe, prepared by the first striped job and
    /// reopened by later ones.
    members: Vec<Target>,
    /// `--start-at`: the wall-clock time the first job waits for after
    /// preparing its target(s), ns since the epoch.
    start_at: Option<u64>,
    quiet: bool,
}

impl RunContext {
    /// A context for a command that measures: installs the signal
    /// handlers (SIGINT, SIGTERM, SIGHUP and SIGQUIT raise the stop flag).
    pub fn new(outputs: Outputs, quiet: bool) -> anyhow::Result<RunContext> {
        let control = Control::default();
        let signals = Signals::install(&control.stop).context("installing signal handlers")?;
        Ok(RunContext {
            control,
            signals: Some(signals),
            outputs,
            shared: None,
            scratch_dir: None,
            members: Vec::new(),
            start_at: None,
            quiet,
        })
    }

    /// A context for a command that only reads and renders (`report`,
    /// `tracefile`): signals keep their default action, nothing is
    /// measured that a stop would have to keep.
    pub fn without_signals(outputs: Outputs) -> RunContext {
        RunContext {
            control: Control::default(),
            signals: None,
            outputs,
            shared: None,
            scratch_dir: None,
            members: Vec::new(),
            start_at: None,
            quiet: true,
        }
    }

    /// Makes every scratch target of the run in `dir` (opened once),
    /// whatever the job's path says.
    pub fn set_scratch_dir(&mut self, dir: dbio_engine::scratch::ScratchDir) {
        self.scratch_dir = Some(dir);
    }

    /// Makes the first job wait, once its target is prepared, until the
    /// wall clock reads `t` (ns since the epoch; `--start-at`).
    pub fn set_start_at(&mut self, t: Option<u64>) {
        self.start_at = t;
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
        self.control
            .stop
            .store(self.signal().is_some(), Ordering::Relaxed);
        let own: Vec<Target>;
        let members: &[Target] = if self.members.is_empty() {
            match stripe::prepare_members(&plan.members, &self.control.stop) {
                Ok(ts) => self.members = ts,
                Err(_) if self.interrupted(report) => return Ok(false),
                Err(e) => return Err(e.into()),
            }
            for t in &self.members {
                report
                    .findings
                    .extend(t.notices.iter().map(crate::notes::scratch));
            }
            if let Some(t) = self.members.first() {
                fill_dio_alignment(report, t);
            }
            &self.members
        } else {
            let reopened: Result<Vec<Target>, _> = self
                .members
                .iter()
                .zip(&plan.members)
                .map(|(t, spec)| t.reopen(spec, &self.control.stop))
                .collect();
            own = match reopened {
                Ok(v) => v,
                Err(_) if self.interrupted(report) => return Ok(false),
                Err(e) => return Err(e.into()),
            };
            &own
        };
        let mut job = nj.job.clone();
        job.target_name = members
            .iter()
            .map(|t| t.path.display().to_string())
            .collect::<Vec<_>>()
            .join(",");
        let refs: Vec<&Target> = members.iter().collect();
        if let Some(t) = self.start_at.take() {
            // Sleep (interruptibly) until shortly before the start; the
            // run starts its threads and lets them go at the start itself.
            let early = t.saturating_sub(START_LEAD_NS);
            if !crate::commands::fleet::wait_until(early, &self.control.stop) {
                self.interrupted(report);
                return Ok(false);
            }
            self.control.start_at_unix_ns.store(t, Ordering::Relaxed);
        }
        let bar = Bar::new(&nj.name, self.quiet);
        let outcome = run_job_on(&nj.name, &job, &refs, Some(plan.map), &self.control, &bar);
        bar.finish();
        self.record(outcome, report)
    }

    /// Appends a job's outcome to `report`; false when the run must stop.
    fn record(
        &mut self,
        outcome: Result<dbio_engine::runner::JobOutcome, dbio_engine::EngineError>,
        report: &mut RunReport,
    ) -> anyhow::Result<bool> {
        let outcome = match outcome {
            Ok(o) => o,
            // Nothing measured yet: an error (status 2).
            Err(e) if report.jobs.is_empty() => return Err(e.into()),
            // Earlier jobs measured: keep them, as a partial result.
            Err(e) => {
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
        &self.control.stop
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
        self.shared = None;
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
        // The previous job's deadline raised the stop flag; a signal keeps it raised.
        self.control
            .stop
            .store(self.signal().is_some(), Ordering::Relaxed);
        let mut job = nj.job.clone();
        let own: Option<Target>;
        let target = match job.target.as_mut() {
            None => None,
            Some(spec) => {
                // Later jobs reuse the first job's file through its
                // descriptor: its path is never looked up again. A block
                // device stays claimed (O_EXCL) by the first job's
                // descriptor; later jobs reopen it through that claim.
                let prepared = match &self.shared {
                    Some(shared) => {
                        spec.path = shared.path.clone();
                        shared.reopen(spec, &self.control.stop)
                    }
                    None => match &self.scratch_dir {
                        Some(dir) => Target::prepare_in(spec, dir, &self.control.stop),
                        None => Target::prepare(spec, &self.control.stop),
                    },
                };
                let t = match prepared {
                    Ok(t) => t,
                    Err(_) if self.interrupted(report) => return Ok(false),
                    Err(e) => return Err(e.into()),
                };
                report
                    .findings
                    .extend(t.notices.iter().map(crate::notes::scratch));
                fill_dio_alignment(report, &t);
                if self.shared.is_none() {
                    self.shared = Some(t);
                    self.shared.as_ref()
                } else {
                    own = Some(t);
                    own.as_ref()
                }
            }
        };
        if let Some(t) = target {
            job.target_name = t.path.display().to_string();
        }
        if let Some(t) = self.start_at.take() {
            // Sleep (interruptibly) until shortly before the start; the
            // run starts its threads and lets them go at the start itself.
            let early = t.saturating_sub(START_LEAD_NS);
            if !crate::commands::fleet::wait_until(early, &self.control.stop) {
                self.interrupted(report);
                return Ok(false);
            }
            self.control.start_at_unix_ns.store(t, Ordering::Relaxed);
        }
        let bar = Bar::new(&nj.name, self.quiet);
        let outcome = run_job(&nj.name, &job, target, &self.control, &bar);
        bar.finish();
        self.record(outcome, report)
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
