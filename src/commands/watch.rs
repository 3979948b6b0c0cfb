//! `dbio watch`: a live process's I/O system calls (or every request on a
//! block device), counted and timed in the kernel by `dbio_watch`'s BPF
//! programs. This file is the glue: the arguments become a
//! [`WatchConfig`], the session runs in the tracer's crate, and what it
//! says goes to standard error (made visible) and its result to the
//! output. A stop is the ordinary end of a watch, so the result is
//! complete and the exit status 0; `dbio watch -- COMMAND` behaves as a
//! wrapper and exits with the command's status (128 + the signal that
//! killed it), saying so on standard error when it is not 0.

use crate::cli::WatchArgs;
use crate::run_context::{new_report, RunContext};
use dbio_model::units::seconds_to_ns;
use dbio_model::watch::{WatchConfig, WatchResult};
use dbio_watch::{Observer, Session, SessionOptions};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// A watch of processes describes what it watched, not `/`: the
/// directory of the busiest data file (by the time of the calls on it),
/// with its filesystem and device, read now that the watch knows it; or,
/// when no data file was seen (pseudo-files and libraries only), the
/// watch itself, on no filesystem in particular. The host's facts stay
/// those read at the start. A `--device` watch keeps its device.
fn watched_place(env: &mut dbio_model::Environment, w: &WatchResult) {
    if w.config.device.is_some() {
        return;
    }
    let files = dbio_report::sections::watch::files::files(w);
    let busiest = files
        .iter()
        .filter(|f| f.kind == dbio_model::watch::FileKind::Data && f.total_ns > 0)
        .find_map(|f| f.path.filter(|p| p.starts_with('/')));
    match busiest.and_then(|p| std::path::Path::new(p).parent()) {
        Some(dir) => {
            let at = dbio_engine::sysinfo::environment(dir);
            env.target = at.target;
            env.fs_type = at.fs_type;
            env.mount_point = at.mount_point;
            env.mount_options = at.mount_options;
            env.device = at.device;
            env.dio_alignment = at.dio_alignment;
        }
        None => {
            env.target = w.name.clone();
            env.fs_type.clear();
            env.mount_point.clear();
            env.mount_options.clear();
            env.device = None;
            env.dio_alignment = None;
        }
    }
}

/// The configuration the arguments ask for: the one place they become a
/// [`WatchConfig`].
fn config(a: &WatchArgs) -> anyhow::Result<WatchConfig> {
    if a.tid.is_some() && a.pid.len() != 1 {
        anyhow::bail!("--tid needs exactly one --pid (the process the thread belongs to)");
    }
    if a.follow && a.tid.is_some() {
        anyhow::bail!(
            "--follow watches whole processes and their children; it cannot be combined with --tid"
        );
    }
    if a.follow && a.cgroup.is_some() {
        anyhow::bail!(
            "--follow is for processes watched by id or name; with --cgroup the processes they fork are watched already, as they stay in the cgroup"
        );
    }
    if let Some(c) = &a.comm {
        if c.is_empty() {
            anyhow::bail!("--comm needs a non-empty pattern");
        }
    }
    Ok(WatchConfig {
        pids: a.pid.clone(),
        tid: a.tid,
        comm: a.comm.clone(),
        command: a.command.clone(),
        duration_ns: a.runtime.runtime.map(seconds_to_ns),
        interval_ns: a.interval.map(seconds_to_ns),
        stream: a.stream,
        min_latency_ns: a.min_latency.unwrap_or(0),
        block: !a.no_block,
        follow: a.follow,
        cgroup: a.cgroup.as_ref().map(|p| p.display().to_string()),
        device: a.device.clone(),
        all_files: a.all_files,
    })
}

/// The terminal side of a watch: notes and `--interval` summaries on
/// standard error, `--stream` lines on standard output (standard error
/// when a result goes to standard output), the run's stop flag.
struct Terminal<'a> {
    ctx: &'a RunContext,
    stop: &'a AtomicBool,
    quiet: bool,
    stream_to_stderr: bool,
}

impl Observer for Terminal<'_> {
    fn stop_requested(&self) -> Option<String> {
        self.stop
            .load(Ordering::Relaxed)
            .then(|| self.ctx.signal().unwrap_or("a stop request").to_string())
    }

    fn note(&mut self, line: &str) {
        if !self.quiet {
            crate::say::line(line);
        }
    }

    fn so_far(&mut self, r: &WatchResult) {
        eprint!(
            "{}",
            dbio_model::visible::visible_lines(
                &dbio_report::sections::watch::table::render_so_far(r)
            )
        );
    }

    fn stream(&mut self, lines: &[String]) {
        let mut out: Box<dyn Write> = if self.stream_to_stderr {
            Box::new(std::io::stderr().lock())
        } else {
            Box::new(std::io::stdout().lock())
        };
        for line in lines {
            // A path and a process name are outside text (see crate::say).
            let _ = writeln!(out, "{}", dbio_model::visible::visible(line));
        }
    }
}

/// Runs `dbio watch`.
pub fn run(a: WatchArgs) -> anyhow::Result<ExitCode> {
    let cfg = config(&a)?;
    let stream_to_stderr = [&a.output.json, &a.output.csv, &a.output.html]
        .iter()
        .any(|o| o.as_deref() == Some("-"));
    let session = Session::load(
        cfg,
        SessionOptions {
            cgroup: a.cgroup.as_deref(),
            bpf_stats: a.bpf_stats,
            command_stdout_to_stderr: stream_to_stderr,
        },
    )?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let stop = ctx.stop_flag().clone();
    let mut rep = new_report("watch", &session.environment_path());
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut rep)?;
    let mut terminal = Terminal {
        ctx: &ctx,
        stop: &stop,
        quiet: a.output.quiet,
        stream_to_stderr,
    };
    let (w, findings, tracer) = session.run(&mut terminal)?;
    watched_place(&mut rep.environment, &w);
    rep.findings.extend(findings);
    let command = w.command_exit().filter(|&c| c != 0).map(|c| {
        let why = match w.command_signal {
            Some(s) => format!("was killed by signal {s}"),
            None => format!("exited with status {c}"),
        };
        (c, why)
    });
    rep.watch.push(w);
    let written = ctx.finish(&rep);
    // Detaching the programs takes the kernel a while: after the result.
    drop(tracer);
    match command {
        // A wrapper's status is its command's; the result is written.
        Some((code, why)) => {
            crate::say::line(&format!(
                "dbio watch: the command {why}; dbio watch exits with {code}"
            ));
            Ok(ExitCode::from(code.clamp(0, 255) as u8))
        }
        None => Ok(written),
    }
}
