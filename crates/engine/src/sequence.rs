//! A run's named jobs, one after the other, into one report: each job is
//! readied on the run's shared target(s) ([`crate::lifecycle`]), run
//! behind the progress display the command gives, and its outcome
//! recorded; the first interruption or I/O error stops the sequence and
//! marks the report partial.
//!
//! Why here and not in the binary: what an outcome means for the result
//! (an error before anything was measured is an error, after it a partial
//! result; a signal is asked once the preparation is over) is the same for
//! every command that runs engine jobs (`bench`, `check`), and the command
//! should only say which jobs to run, how to show them and when to save.

use crate::lifecycle::{Jobs, NotStarted, Prepared};
use crate::runner::{JobOutcome, MakeProgress};
use crate::stripe::StripePlan;
use crate::{EngineError, Job, JobTarget};
use dbio_model::{JobConfig, RunReport};

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
) -> Result<Vec<NamedJob>, EngineError> {
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

/// What a command gives the sequence: the signal that stopped the run (if
/// one did), a progress display for a job by name (dropped when the job
/// ends), and the save after each job.
pub struct Hooks<'a> {
    /// The signal that arrived, if one did.
    pub signal: &'a dyn Fn() -> Option<&'static str>,
    /// A progress display for the job named by the argument.
    pub progress: &'a MakeProgress<'a>,
    /// Saves the result so far (best effort).
    pub save: &'a dyn Fn(&RunReport),
}

impl Jobs {
    /// Runs `nj` on the run's target, or striped over `plan`'s members
    /// (checked by [`crate::stripe::plan`]), appending its result to
    /// `report`. Returns false when the run must stop (a signal or an I/O
    /// error: the report is marked partial); an error when nothing was
    /// measured yet and the job could not be prepared or run.
    pub fn run_named(
        &mut self,
        nj: &NamedJob,
        plan: Option<&StripePlan>,
        report: &mut RunReport,
        hooks: &Hooks<'_>,
    ) -> Result<bool, EngineError> {
        // The previous job's deadline raised the stop flag; a signal
        // keeps it raised.
        self.control().stop.store(
            (hooks.signal)().is_some(),
            std::sync::atomic::Ordering::Relaxed,
        );
        let prepared = match plan {
            Some(plan) => self.prepare_striped(&nj.job, plan, report),
            None => self.prepare(&nj.job, report),
        };
        let outcome = run_prepared(prepared, &nj.name, report, hooks)?;
        record(outcome, report, hooks)
    }
}

/// Runs a job its target(s) are ready for, behind a progress display;
/// None when it did not start because of a signal (the report is marked:
/// the signal is asked once the preparation is over), an error when its
/// target could not be prepared.
fn run_prepared(
    prepared: Result<Prepared<'_>, NotStarted>,
    name: &str,
    report: &mut RunReport,
    hooks: &Hooks<'_>,
) -> Result<Option<Result<JobOutcome, EngineError>>, EngineError> {
    let prepared = match prepared {
        Ok(p) => p,
        Err(NotStarted::Prepare(_)) if report.stopped_by((hooks.signal)()) => return Ok(None),
        Err(NotStarted::Prepare(e)) => return Err(e),
        Err(NotStarted::StoppedWaiting) => {
            report.stopped_by((hooks.signal)());
            return Ok(None);
        }
    };
    let progress = (hooks.progress)(name);
    let outcome = prepared.run(name, &*progress);
    drop(progress);
    Ok(Some(outcome))
}

/// Appends a job's outcome to `report`; false when the run must stop.
fn record(
    outcome: Option<Result<JobOutcome, EngineError>>,
    report: &mut RunReport,
    hooks: &Hooks<'_>,
) -> Result<bool, EngineError> {
    let outcome = match outcome {
        // It did not start: a stop came first.
        None => return Ok(false),
        Some(Ok(o)) => o,
        // Nothing measured yet: an error (status 2).
        Some(Err(e)) if report.jobs.is_empty() => return Err(e),
        // Earlier jobs measured: keep them, as a partial result.
        Some(Err(e)) => {
            report.io_error(e.to_string());
            return Ok(false);
        }
    };
    report.jobs.push(outcome.result);
    if report.stopped_by((hooks.signal)()) {
        return Ok(false);
    }
    if let Some(e) = outcome.error {
        report.io_error(e.to_string());
        return Ok(false);
    }
    (hooks.save)(report);
    Ok(true)
}
