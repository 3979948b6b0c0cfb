//! Running a list of jobs as one session: validation of every job before
//! any I/O, one shared target file, signal handling, the environment, and
//! the assembly of the [`RunReport`].

use crate::output::Outputs;
use crate::progress::Bar;
use crate::signals::Signals;
use anyhow::Context;
use dbio_engine::runner::{run_job, Control};
use dbio_engine::target::Target;
use dbio_engine::{Job, JobSpec};
use dbio_model::{PartialReason, RunReport, SCHEMA_VERSION};

/// A named job to run.
pub struct NamedJob {
    /// Row label.
    pub name: String,
    /// The job, validated.
    pub job: Job,
}

/// Validates every spec; the first error stops everything before any I/O.
pub fn resolve_all(specs: Vec<(String, JobSpec)>) -> anyhow::Result<Vec<NamedJob>> {
    specs
        .into_iter()
        .map(|(name, s)| {
            Ok(NamedJob {
                job: Job::resolve(&s)?,
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

/// Runs jobs in order on one target. The first job that uses a file
/// prepares it; later jobs reuse it (it is dbio's, so reuse is allowed).
/// Stops at the first interruption or I/O error and marks the report partial.
pub struct Session {
    control: Control,
    signals: Signals,
    shared: Option<Target>,
    quiet: bool,
}

impl Session {
    /// Installs the signal handlers.
    pub fn new(quiet: bool) -> anyhow::Result<Session> {
        let control = Control::default();
        let signals = Signals::install(&control.stop).context("installing signal handlers")?;
        Ok(Session {
            control,
            signals,
            shared: None,
            quiet,
        })
    }

    /// The stop flag that SIGINT, SIGTERM, SIGHUP and SIGQUIT raise.
    pub fn stop_flag(&self) -> &std::sync::Arc<std::sync::atomic::AtomicBool> {
        &self.control.stop
    }

    /// The signal that stopped the session, if one did.
    pub fn signal(&self) -> Option<&'static str> {
        self.signals.received()
    }

    /// Removes the shared target file now (`dbio check` frees its space
    /// before the sections that make their own files).
    pub fn release_target(&mut self) {
        self.shared = None;
    }

    /// Runs one job, appending its result to `report`. Returns false when
    /// the session must stop (signal or I/O error: the report is partial).
    pub fn run(
        &mut self,
        nj: &NamedJob,
        report: &mut RunReport,
        out: &Outputs,
    ) -> anyhow::Result<bool> {
        // The previous job's deadline raised the stop flag; a signal keeps it raised.
        self.control
            .stop
            .store(false, std::sync::atomic::Ordering::Relaxed);
        if self.signals.received().is_some() {
            self.control
                .stop
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
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
                    None => Target::prepare(spec, &self.control.stop),
                };
                let t = match prepared {
                    Ok(t) => t,
                    Err(e) => {
                        if let Some(sig) = self.signals.received() {
                            report.partial = Some(PartialReason::Signal { signal: sig.into() });
                            return Ok(false);
                        }
                        return Err(e.into());
                    }
                };
                report.warnings.extend(t.notices.iter().cloned());
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
            job.echo.target = t.path.display().to_string();
        }
        let bar = Bar::new(&nj.name, self.quiet);
        let outcome = run_job(&nj.name, &job, target, &self.control, &bar);
        bar.finish();
        let outcome = match outcome {
            Ok(o) => o,
            // Nothing measured yet: an error (status 2).
            Err(e) if report.jobs.is_empty() => return Err(e.into()),
            // Earlier jobs measured: keep them, as a partial result.
            Err(e) => {
                report.partial = Some(PartialReason::IoError {
                    message: e.to_string(),
                });
                return Ok(false);
            }
        };
        report.jobs.push(outcome.result);
        if let Some(sig) = self.signals.received() {
            report.partial = Some(PartialReason::Signal { signal: sig.into() });
            return Ok(false);
        }
        if let Some(e) = outcome.error {
            report.partial = Some(PartialReason::IoError {
                message: e.to_string(),
            });
            return Ok(false);
        }
        out.save(report);
        Ok(true)
    }
}
