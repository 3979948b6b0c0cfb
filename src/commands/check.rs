//! `dbio check [DIR]`: the battery a newcomer runs first.
//!
//! The whole battery's space is planned before the first I/O (a small
//! filesystem scales every section instead of failing after minutes of
//! measurement), output files are checked before anything runs, and a
//! section that cannot run marks the result partial without losing what
//! the others measured.

use crate::cli::CheckArgs;
use crate::progress::Bar;
use crate::run_context::{new_report, resolve_all, RunContext};
use anyhow::Context;
use dbio_engine::scratch::ScratchDir;
use dbio_model::{Finding, PartialReason, Severity};
use dbio_sim::check::{self, battery, plan_space, Section};
use std::process::ExitCode;

/// A model section of `dbio check`: what it is given, the report.
type Run = fn(&Section<'_>, &mut dbio_model::RunReport) -> anyhow::Result<()>;

/// The database section (`dbio_load::check`), as a model section.
fn database(s: &Section<'_>, report: &mut dbio_model::RunReport) -> anyhow::Result<()> {
    dbio_load::check::section(s.dir, s.runtime_s, s.stop, s.progress, report)
}

/// The model sections after the battery's jobs.
const SECTIONS: usize = 4;

/// The progress bar's label of step `i` of `n`.
fn step_label(i: usize, n: usize, name: &str) -> String {
    format!("check {i}/{n}: {name}")
}

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
    let specs = battery(
        dbio_model::units::seconds_to_ns(runtime),
        plan.size,
        direct_ok,
    );
    let jobs = resolve_all(specs, &dbio_engine::JobTarget::scratch(dir))?;
    let mut ctx = RunContext::new(outputs, a.output.quiet)?;
    ctx.set_scratch_dir(scratch.clone());
    let mut report = new_report("check", dir);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    // One screen: the answer and a headline table; each section's summary
    // tables with --detail.
    report.layout = if a.detail {
        dbio_model::Layout::Summary
    } else {
        dbio_model::Layout::Brief
    };
    let notes = check::notes(dir, &report.environment.fs_type, direct_ok, &plan);
    report.findings.extend(notes);
    // One progress bar per step: the battery's jobs, then the sections.
    let steps = jobs.len() + SECTIONS;
    let mut complete = true;
    for (i, j) in jobs.iter().enumerate() {
        let label = |name: &str| step_label(i + 1, steps, name);
        if !ctx.run_job(j, None, &mut report, &label)? {
            complete = false;
            break;
        }
    }
    // The sections make their own files: free the battery's first.
    ctx.release_target();
    let need = (2 * plan.log_file_size)
        .max(plan.read_size)
        .max(plan.writer_size);
    scratch.wait_for_space(need);
    if complete {
        // The model sections: commit path, datafile reads, database writers.
        let sections: [(&str, &str, Run, u64); SECTIONS] = [
            (
                "commit",
                "commit path (log writer)",
                check::commit::run,
                2 * plan.log_file_size,
            ),
            ("database", "commits in SQLite", database, 16 << 20),
            ("read", "datafile reads", check::read::run, plan.read_size),
            (
                "writer",
                "database writer",
                check::writer::run,
                plan.writer_size,
            ),
        ];
        let stop = ctx.stop_flag().clone();
        for (i, (what, shown, section, bytes)) in sections.into_iter().enumerate() {
            stop.store(false, std::sync::atomic::Ordering::Relaxed);
            let bar = Bar::new(
                &step_label(jobs.len() + i + 1, steps, shown),
                a.output.quiet,
            );
            let given = Section {
                dir: &scratch,
                runtime_s: runtime,
                space: bytes,
                stop: &stop,
                progress: &bar,
            };
            let res = section(&given, &mut report);
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
                report.mark_partial(PartialReason::Incomplete { message });
            }
            ctx.save(&report);
        }
    }
    Ok(ctx.finish(&report))
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_step_is_labelled_with_its_place_and_name() {
        assert_eq!(
            super::step_label(7, 9, "datafile reads"),
            "check 7/9: datafile reads"
        );
    }
}
