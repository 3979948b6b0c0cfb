//! A run's jobs on the targets they share: the first job that uses a file
//! prepares it and later jobs reopen it through its descriptor (its path
//! is never looked up again, and a block device stays claimed); a striped
//! job's members are prepared once, all or none; the scratch directory of
//! `dbio check` is opened once; the first job waits for `--start-at`.
//!
//! Why here: this is the engine's own lifecycle of a target, and a
//! command's code (in the binary) should only say which jobs to run and
//! what to do with each outcome. [`Jobs`] holds the targets for the run;
//! [`Jobs::prepare`] readies one job and [`Prepared::run`] runs it, so the
//! command can show its progress only once the job is about to start.

use crate::bench::run_job_on;
use crate::runner::{Control, JobOutcome, Progress};
use crate::scratch::ScratchDir;
use crate::stripe::{self, StripeMap, StripePlan};
use crate::target::Target;
use crate::{EngineError, Job};
use dbio_model::RunReport;
use std::sync::atomic::Ordering;

/// How long before `--start-at` a job stops waiting and starts its
/// threads, which then wait for the start themselves: thread start-up
/// took tens of ms on a loaded machine, and must not delay the start.
const START_LEAD_NS: u64 = 300_000_000;

/// The targets a run's jobs share, and when the first of them starts.
#[derive(Default)]
pub struct Jobs {
    control: Control,
    shared: Option<Target>,
    /// The directory a scratch target is made in, opened once for the
    /// run (`dbio check`); None: the job's path is looked up when its
    /// target is prepared.
    scratch_dir: Option<ScratchDir>,
    /// The members of a stripe, prepared by the first striped job and
    /// reopened by later ones.
    members: Vec<Target>,
    /// `--start-at`: the wall-clock time the first job waits for after
    /// preparing its target(s), ns since the epoch.
    start_at: Option<u64>,
}

/// Why a job did not start.
#[derive(Debug)]
pub enum NotStarted {
    /// Its target (or a stripe member) could not be prepared or reopened.
    Prepare(EngineError),
    /// The stop flag was raised while it waited for `--start-at`.
    StoppedWaiting,
}

/// The targets one job runs on: the run's own, or its reopening.
enum Targets<'a> {
    None,
    Borrowed(&'a [Target]),
    Own(Vec<Target>),
}

/// A job ready to run: its target(s) prepared and the start waited for.
pub struct Prepared<'a> {
    job: Job,
    targets: Targets<'a>,
    stripe: Option<StripeMap>,
    control: &'a Control,
}

impl Prepared<'_> {
    /// Runs the job, its progress shown on `progress`.
    pub fn run(self, name: &str, progress: &dyn Progress) -> Result<JobOutcome, EngineError> {
        let refs: Vec<&Target> = match &self.targets {
            Targets::None => Vec::new(),
            Targets::Borrowed(t) => t.iter().collect(),
            Targets::Own(t) => t.iter().collect(),
        };
        run_job_on(name, &self.job, &refs, self.stripe, self.control, progress)
    }
}

/// Records the O_DIRECT alignment (statx) of the prepared file when the
/// environment could not: statx reports it for regular files and block
/// devices only, so a directory target gets it from dbio's file in it.
pub fn fill_dio_alignment(report: &mut RunReport, t: &Target) {
    if report.environment.dio_alignment.is_none() {
        report.environment.dio_alignment = crate::sysinfo::dio_alignment_fd(&*t.file);
    }
}

impl Jobs {
    /// The run control: the stop flag signals raise, and the start.
    pub fn control(&self) -> &Control {
        &self.control
    }

    /// Makes every scratch target of the run in `dir` (opened once),
    /// whatever the job's path says.
    pub fn set_scratch_dir(&mut self, dir: ScratchDir) {
        self.scratch_dir = Some(dir);
    }

    /// Makes the first job wait, once its target is prepared, until the
    /// wall clock reads `t` (ns since the epoch; `--start-at`).
    pub fn set_start_at(&mut self, t: Option<u64>) {
        self.start_at = t;
    }

    /// Removes the shared target file now (`dbio check` frees its space
    /// before the sections that make their own files).
    pub fn release_target(&mut self) {
        self.shared = None;
    }

    /// Readies `job` on the run's target: the first job prepares it,
    /// later ones reopen it. The target's notices and O_DIRECT alignment
    /// go to `report`.
    pub fn prepare(
        &mut self,
        job: &Job,
        report: &mut RunReport,
    ) -> Result<Prepared<'_>, NotStarted> {
        let mut job = job.clone();
        let targets = match job.target.as_mut() {
            None => Targets::None,
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
                let t = prepared.map_err(NotStarted::Prepare)?;
                report
                    .findings
                    .extend(t.notices.iter().map(crate::target::scratch_note));
                fill_dio_alignment(report, &t);
                job.target_name = t.path.display().to_string();
                if self.shared.is_none() {
                    self.shared = Some(t);
                    Targets::Borrowed(std::slice::from_ref(
                        self.shared.as_ref().expect("just set"),
                    ))
                } else {
                    Targets::Own(vec![t])
                }
            }
        };
        Self::wait_for_start(&mut self.start_at, &self.control)?;
        Ok(Prepared {
            job,
            targets,
            stripe: None,
            control: &self.control,
        })
    }

    /// Readies `job` striped over `plan`'s members (checked by
    /// [`stripe::plan`]). The first such job prepares every member (all
    /// of them, or none: a member that cannot be prepared removes what was
    /// made for the others) and records their notices and alignment in
    /// `report`; later jobs reopen them.
    pub fn prepare_striped(
        &mut self,
        job: &Job,
        plan: &StripePlan,
        report: &mut RunReport,
    ) -> Result<Prepared<'_>, NotStarted> {
        let targets = if self.members.is_empty() {
            self.members = stripe::prepare_members(&plan.members, &self.control.stop)
                .map_err(NotStarted::Prepare)?;
            for t in &self.members {
                report
                    .findings
                    .extend(t.notices.iter().map(crate::target::scratch_note));
            }
            if let Some(t) = self.members.first() {
                fill_dio_alignment(report, t);
            }
            Targets::Borrowed(&self.members)
        } else {
            let reopened: Result<Vec<Target>, _> = self
                .members
                .iter()
                .zip(&plan.members)
                .map(|(t, spec)| t.reopen(spec, &self.control.stop))
                .collect();
            Targets::Own(reopened.map_err(NotStarted::Prepare)?)
        };
        let mut job = job.clone();
        let members = match &targets {
            Targets::Borrowed(t) => *t,
            Targets::Own(t) => t.as_slice(),
            Targets::None => &[],
        };
        job.target_name = members
            .iter()
            .map(|t| t.path.display().to_string())
            .collect::<Vec<_>>()
            .join(",");
        Self::wait_for_start(&mut self.start_at, &self.control)?;
        Ok(Prepared {
            job,
            targets,
            stripe: Some(plan.map),
            control: &self.control,
        })
    }

    /// Sleeps (interruptibly) until shortly before `--start-at`, once; the
    /// run starts its threads and lets them go at the start itself.
    fn wait_for_start(start_at: &mut Option<u64>, control: &Control) -> Result<(), NotStarted> {
        if let Some(t) = start_at.take() {
            let early = t.saturating_sub(START_LEAD_NS);
            if !crate::wallclock::wait_until(early, &control.stop) {
                return Err(NotStarted::StoppedWaiting);
            }
            control.start_at_unix_ns.store(t, Ordering::Relaxed);
        }
        Ok(())
    }
}
