//! `dbio lgwr`: a log writer with group commit on real storage, and its
//! `--compare` of configurations in interleaved rounds.
//!
//! The model lives in `dbio_sim::lgwr` (its rounds, with the log groups
//! they reuse, in `dbio_sim::lgwr::rounds`); this file turns options into
//! configurations, checks all of them before the first file is made and
//! hands them to the rounds; the plain-words findings are drawn by
//! `dbio_report::findings::commit`.

/// The most interleaved rounds (each is a whole run).
const MAX_ROUNDS: u32 = 1000;

use crate::cli::LgwrArgs;
use crate::run_context::{new_report, RunContext};
use dbio_model::lgwr::LgwrConfig;
use dbio_model::units::seconds_to_ns;
use dbio_sim::lgwr::rounds::{open_dirs, run_all, Hooks};
use dbio_sim::lgwr::{self as model, LgwrRun};
use std::process::ExitCode;

/// The configuration the arguments ask for (the result echoes it), and
/// how this process runs it.
fn base_config(a: &LgwrArgs) -> LgwrRun {
    let null_delay_ns = match (a.null, a.null_delay.ns()) {
        (_, Some(d)) => Some(d),
        (true, None) => Some(0),
        (false, None) => None,
    };
    let config = LgwrConfig {
        sessions: a.sessions.sessions,
        commits_per_session: a.sessions.commits,
        runtime_ns: match a.sessions.commits {
            Some(_) => None,
            None => Some(seconds_to_ns(a.runtime.or(10.0))),
        },
        redo_size: a.redo_size,
        think_time_ns: seconds_to_ns(a.sessions.think_time),
        txn_cpu_ns: seconds_to_ns(a.txn_cpu),
        client_cpu_ns: seconds_to_ns(a.client_cpu),
        log_buffer_bytes: a.log_buffer,
        max_write_bytes: a.max_write,
        bs: a.bs.bs,
        method: a.method,
        protocol: a.protocol.into(),
        null_delay_ns,
        files: a.files,
        file_size: a.file_size,
        members: a.members,
        prepare: a.prepare.prepare.into(),
        async_depth: a.async_depth,
        commit_delay_ns: seconds_to_ns(a.commit_delay),
        commit_siblings: a.commit_siblings,
        writer_cpu: a.writer_cpu,
        session_cpus: a.session_cpus.clone(),
        writer_nice: a.writer_nice,
        writer_fifo: a.writer_fifo,
        post_spin_ns: seconds_to_ns(a.post_spin),
        syncs_per_flush: a.syncs_per_flush,
        pipeline: a.pipeline,
        stage_append: a.stage_append,
        cpu_includes_commit_path: a.cpu_includes_commit_path,
        seed: a.seed.seed,
    };
    LgwrRun {
        config,
        dir: a.dir.path.clone(),
        scratch: None,
        verify: a.verify,
        journal: false,
        keep: a.keep.keep,
    }
}

/// Runs `dbio lgwr`.
pub fn run(a: LgwrArgs) -> anyhow::Result<ExitCode> {
    let base = base_config(&a);
    let mut configs: Vec<(String, LgwrRun)> = if a.compare.is_empty() {
        vec![("lgwr".to_string(), base.clone())]
    } else {
        a.compare
            .iter()
            .map(|item| base.with_compare_item(item).map(|c| (item.clone(), c)))
            .collect::<Result<_, _>>()
            .map_err(anyhow::Error::msg)?
    };
    let rounds = a.rounds.or(1);
    if rounds == 0 || rounds > MAX_ROUNDS {
        anyhow::bail!("--rounds must be between 1 and {MAX_ROUNDS}");
    }
    open_dirs(&mut configs)?;
    for (_, c) in &configs {
        model::check(c)?;
    }
    // Privileges the options need (--writer-fifo, a negative --writer-nice,
    // --writer-cpu), and the output files, before any log file is made.
    dbio_sim::lgwr::writer::probe_placement(&base.config).map_err(anyhow::Error::msg)?;
    let outputs = crate::output::Outputs::for_run(&a.output)?;
    let ctx = RunContext::new(outputs, a.output.quiet)?;
    let mut report = new_report("lgwr", &a.dir.path);
    super::fleet::begin(&a.fleet, ctx.stop_flag(), &mut report)?;
    // statx reports the alignment of files, not directories: ask a probe
    // file of dbio's own in the log directory (none when no run does I/O).
    if let (None, Some((_, c))) = (
        &report.environment.dio_alignment,
        configs.iter().find(|(_, c)| c.real_io()),
    ) {
        report.environment.dio_alignment = c
            .scratch_dir()
            .ok()
            .and_then(|d| d.probe().ok())
            .and_then(|p| p.dio_alignment);
    }
    let quiet = a.output.quiet;
    let hooks = Hooks {
        stop: ctx.stop_flag(),
        signal: &|| ctx.signal(),
        save: &|r| ctx.save(r),
        progress: &|label| Box::new(crate::progress::Bar::new(label, quiet)),
    };
    run_all(&configs, rounds, &hooks, &mut report)?;
    Ok(ctx.finish(&report))
}
