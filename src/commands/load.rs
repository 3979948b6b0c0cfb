//! `dbio load [URL]`: commit load on a real database engine (the database
//! section of `dbio check` is `dbio_load::check`).
//!
//! The loop, the engines and the derived figures live in `dbio_load`;
//! this file turns options into a [`LoadConfig`], checks it and the
//! output files before anything is created, opens the target and runs
//! it through the [`RunContext`] (signals, partial marking, exit status).

use crate::cli::LoadArgs;
use crate::run_context::{new_report, RunContext};
use dbio_load::run::{execute_with, validate};
use dbio_load::sqlite::SqliteDb;
use dbio_load::Database;
use dbio_model::load::LoadConfig;
use dbio_model::units::seconds_to_ns;
use dbio_model::{Finding, Severity};
use std::path::Path;
use std::process::ExitCode;

/// The run as asked for (the config is the echo).
fn config(a: &LoadArgs) -> LoadConfig {
    LoadConfig {
        target: String::new(),
        engine: String::new(),
        sessions: a.sessions.sessions,
        commits_per_session: a.sessions.commits,
        runtime_ns: if a.sessions.commits.is_some() {
            None
        } else {
            Some(seconds_to_ns(a.runtime.or(10.0)))
        },
        warmup_ns: seconds_to_ns(a.warmup.warmup),
        rows_per_commit: a.rows_per_commit,
        row_bytes: u32::try_from(a.row_size).unwrap_or(u32::MAX),
        think_time_ns: seconds_to_ns(a.sessions.think_time),
        mode: a.mode.into(),
        keep: a.keep.keep,
    }
}

/// The database a run targets: embedded SQLite in `dir` without a URL,
/// else a server; with what the user should know about `dir` (leftovers
/// of killed runs removed or named).
fn open_target(
    url: Option<&str>,
    dir: &Path,
    keep: bool,
) -> anyhow::Result<(Box<dyn Database>, Vec<String>)> {
    match url {
        None => {
            dbio_engine::target::check_dir(dir)?;
            let mut db = SqliteDb::create(dir, keep)?;
            let notices = db.take_notices();
            Ok((Box::new(db), notices))
        }
        // The error never holds the password: the target module redacts.
        Some(url) => Ok((dbio_load::target::open_server(url)?, Vec::new())),
    }
}

/// Runs `dbio load`.
pub fn run(a: LoadArgs) -> anyhow::Result<ExitCode> {
    let cfg = config(&a);
    validate(&cfg).map_err(anyhow::Error::msg)?;
    // Output files, then the target: both before anything is measured.
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let (mut db, notices) = open_target(a.url.as_deref(), &a.dir, a.keep.keep)?;
    let plan = match a.predict {
        true => Some(super::load_predict::plan(&a, &cfg, db.as_mut())?),
        false => None,
    };
    let mut ctx = RunContext::new(outputs, a.output.quiet)?;
    let mut report = new_report("load", &a.dir);
    report
        .findings
        .extend(notices.iter().map(dbio_engine::target::scratch_note));
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    if !a.compare.is_empty() {
        let code = super::load_compare::run(&a, &cfg, db.as_mut(), &mut ctx, report);
        drop(db);
        return code;
    }
    let stop = ctx.stop_flag();
    let mut base = (!a.no_baseline)
        .then(|| super::load_compare::before(db.as_mut(), &a.dir, stop, &mut report.findings))
        .flatten();
    let bar = crate::progress::Bar::new("load", a.output.quiet);
    let run = execute_with(db.as_mut(), &cfg, "load", stop, &|t| bar.load(t, ""));
    bar.finish();
    let mut out = match run {
        Ok(out) => out,
        // Stopped before the sessions ran: nothing measured, a partial
        // (empty) result with the signal's name.
        Err(_) if ctx.interrupted(&mut report) => {
            drop(db);
            return Ok(ctx.finish(&report));
        }
        Err(e) => return Err(e.into()),
    };
    super::load_compare::after(&mut base, stop, &mut report.findings);
    out.result.baseline = base;
    report.findings.extend(out.findings);
    if let Some(e) = out.error {
        // A session the server ended: said at once, besides the partial result.
        crate::say::line(&format!(
            "dbio: {e} (the result is partial: what was measured until then)"
        ));
        report.io_error(e);
    }
    ctx.interrupted(&mut report);
    if cfg.keep {
        report.findings.push(Finding::note(
            "load.table_kept",
            Severity::Info,
            format!(
                "the table {} was kept in {} (--keep){}",
                out.result.table,
                out.result.config.target,
                match out.result.config.target.strip_prefix("sqlite:") {
                    Some(db) => format!(
                        ", in dbio's private directory {}",
                        Path::new(db).parent().unwrap_or(Path::new(db)).display()
                    ),
                    None => String::new(),
                }
            ),
        ));
    }
    let mut result = out.result;
    if let Some(plan) = &plan {
        if report.partial.is_some() {
            report.findings.push(Finding::note(
                "load_predict.not_run",
                Severity::Notice,
                "--predict: the model was not run, because the load stopped early",
            ));
        } else {
            match dbio_load::predict_run::predict(plan, &result, ctx.stop_flag()) {
                Ok(p) => result.predict = Some(p),
                Err(e) => report.findings.push(Finding::note(
                    "load_predict.failed",
                    Severity::Warning,
                    format!("--predict: the model could not run: {e:#}"),
                )),
            }
            ctx.interrupted(&mut report);
        }
    }
    report.load.push(result);
    // The scratch database goes before the outputs are written.
    drop(db);
    Ok(ctx.finish(&report))
}
