//! `dbio check [DIR]`: the battery a newcomer runs first.
//!
//! The whole battery's space is planned before the first I/O (a small
//! filesystem scales every section instead of failing after minutes of
//! measurement), output files are checked before anything runs, and a
//! section that cannot run marks the result partial without losing what
//! the others measured.
//!
//! Progress: on a terminal (and without `--quiet`) each of the five
//! sections has its bar, labelled "check N/5: what it measures". The
//! storage tests of the first show each job's IOPS (the engine's reporter
//! thread); the model sections show the time elapsed against their planned
//! time (a ticker that reads only the clock), so nothing in their
//! measurement loops does any more work for it.

use crate::cli::CheckArgs;
use crate::run_context::{mark_partial, new_report, resolve_all, RunContext};
use anyhow::Context;
use dbio_engine::scratch::ScratchDir;
use dbio_model::{Finding, PartialReason, Severity};
use dbio_sim::check::{battery, plan_space};
use std::process::ExitCode;

/// How many sections `dbio check` has: the storage tests and four models.
const SECTIONS: usize = 5;

/// What the first section measures, on its bars.
const FIRST_SECTION: &str = "storage tests";

/// The planned seconds of a model section of `dbio check`: directory,
/// time per test, the bytes it may use.
type Planned = fn(&ScratchDir, f64, u64) -> anyhow::Result<f64>;

/// A section of `dbio check` added by a model command: directory, time
/// per test, the bytes it may use, the stop flag, the report.
type Section = fn(
    &ScratchDir,
    f64,
    u64,
    &std::sync::Arc<std::sync::atomic::AtomicBool>,
    &mut dbio_model::RunReport,
) -> anyhow::Result<()>;

/// Runs `dbio check`.
pub fn run(a: CheckArgs) -> anyhow::Result<ExitCode> {
    let dir = &a.dir.path;
    let runtime = a.runtime.or(crate::cli::check::DEFAULT_RUNTIME_S);
    // Opened once for the whole run: every probe and file of every
    // section is made relative to this descriptor, so a directory swapped
    // during the run cannot split its files between two places. One
    // sentence for each way it can fail: missing, not a directory, a loop
    // of symbolic links, no permission.
    let scratch = ScratchDir::open(dir)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let free = scratch.free_space().with_context(|| {
        format!(
            "cannot read the free space of the filesystem holding {}",
            dir.display()
        )
    })?;
    let plan = plan_space(a.size.size, free).map_err(anyhow::Error::msg)?;
    let direct_ok = scratch
        .supports_direct()
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    let mut specs = battery(
        dbio_model::units::seconds_to_ns(runtime),
        plan.size,
        direct_ok,
    );
    if !direct_ok {
        // Without O_DIRECT the first log test is O_DSYNC on buffered
        // writes: its name must not claim O_DIRECT.
        for (name, _) in specs.iter_mut() {
            if name == dbio_sim::check::names::LOG_DIRECT_DSYNC {
                *name = "log write 8k buffered+O_DSYNC".to_string();
            }
        }
    }
    let jobs = resolve_all(specs, &dbio_engine::JobTarget::scratch(dir))?;
    let mut ctx = RunContext::new(outputs, a.output.quiet)?;
    ctx.set_scratch_dir(scratch.clone());
    ctx.set_bar_prefix(format!(
        "{}: ",
        crate::progress::section_label(1, SECTIONS, FIRST_SECTION)
    ));
    let mut report = new_report("check", dir);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    // One screen: the answer and a headline table; each section's summary
    // tables with --detail.
    report.layout = if a.detail {
        dbio_model::Layout::Summary
    } else {
        dbio_model::Layout::Brief
    };
    if !direct_ok {
        report.findings.push(Finding::note(
            "check.no_direct_io",
            Severity::Warning,
            format!(
                "{} does not support O_DIRECT ({}): every test ran buffered, so the figures describe memory and the page cache, not a device",
                dir.display(),
                report.environment.fs_type
            ),
        ));
    }
    report.findings.extend(
        plan.notes
            .iter()
            .map(|n| Finding::note("check.scratch_plan", Severity::Notice, n.clone())),
    );
    let mut complete = true;
    for j in &jobs {
        if !ctx.run(j, &mut report)? {
            complete = false;
            break;
        }
    }
    // The sections make their own files: free the battery's first.
    ctx.release_target();
    let need = (2 * plan.log_file_size)
        .max(plan.read_size)
        .max(plan.writer_size);
    wait_for_space(&scratch, need);
    if complete {
        let stop = ctx.stop_flag().clone();
        for (i, (what, label, (section, planned), bytes)) in
            model_sections(&plan).into_iter().enumerate()
        {
            stop.store(false, std::sync::atomic::Ordering::Relaxed);
            let bar = crate::progress::Timed::start(
                &crate::progress::section_label(i + 2, SECTIONS, label),
                // Only the bar's length: a section that cannot plan fails
                // when it runs, with its reason.
                planned(&scratch, runtime, bytes).unwrap_or(runtime),
                a.output.quiet,
            );
            let res = section(&scratch, runtime, bytes, &stop, &mut report);
            drop(bar);
            if ctx.interrupted(&mut report) {
                break;
            }
            if let Err(e) = res {
                // What the other sections measured is kept and printed.
                let message = format!("the {what} section could not run: {e:#}");
                report.findings.push(Finding::note(
                    "check.section_failed",
                    Severity::Warning,
                    message.clone(),
                ));
                mark_partial(&mut report, PartialReason::Incomplete { message });
            }
            ctx.save(&report);
        }
    }
    Ok(ctx.finish(&report))
}

/// The model sections, in order: the name a failure gives, what the bar
/// says, the section and its planned time, and the bytes it may use.
fn model_sections(
    plan: &dbio_sim::check::SpacePlan,
) -> [(&'static str, &'static str, (Section, Planned), u64); SECTIONS - 1] {
    [
        (
            "commit",
            "commit path (log writer)",
            (super::lgwr::check_section, super::lgwr::check_planned_s),
            2 * plan.log_file_size,
        ),
        (
            "database",
            "database commits (SQLite)",
            (super::load::check_section, super::load::check_planned_s),
            16 << 20,
        ),
        (
            "read",
            "datafile reads",
            (super::read::check_section, super::read::check_planned_s),
            plan.read_size,
        ),
        (
            "writer",
            "database writer",
            (super::dbwr::check_section, super::dbwr::check_planned_s),
            plan.writer_size,
        ),
    ]
}

/// Waits, 5 s at most, until `need` bytes are free on the filesystem
/// holding `dir`: a removed file's space can come back late when the
/// kernel still holds the file (an io_uring ring closing in a kernel
/// worker).
fn wait_for_space(dir: &ScratchDir, need: u64) {
    let t0 = std::time::Instant::now();
    while t0.elapsed() < std::time::Duration::from_secs(5) {
        match dir.free_space() {
            Ok(Some(free)) if free < need => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::section_label;

    /// The bars name the five sections in the order they run.
    #[test]
    fn every_section_has_its_numbered_label() {
        let plan = plan_space(None, Some(1 << 40)).unwrap();
        let mut labels = vec![section_label(1, SECTIONS, FIRST_SECTION)];
        labels.extend(
            model_sections(&plan)
                .iter()
                .enumerate()
                .map(|(i, (_, what, _, _))| section_label(i + 2, SECTIONS, what)),
        );
        assert_eq!(
            labels,
            [
                "check 1/5: storage tests",
                "check 2/5: commit path (log writer)",
                "check 3/5: database commits (SQLite)",
                "check 4/5: datafile reads",
                "check 5/5: database writer",
            ]
        );
    }

    /// Each model section plans about the time its documentation gives at
    /// the default 3 s per test (the bar's length).
    #[test]
    fn the_sections_plan_their_documented_time() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = ScratchDir::open(dir.path()).unwrap();
        let plan = plan_space(None, Some(1 << 40)).unwrap();
        for (what, _, (_, planned), bytes) in model_sections(&plan) {
            let s = planned(&scratch, 3.0, bytes).unwrap();
            let (lo, hi) = match what {
                // 0.8 s for 1 and 10 sessions, 0.5 s per other method.
                "commit" => (1.6, 5.0),
                "database" => (1.0, 1.0),
                "read" => (2.0, 4.5),
                "writer" => (3.5, 3.5),
                _ => unreachable!(),
            };
            assert!((lo..=hi).contains(&s), "{what}: {s} s");
        }
    }
}
