//! `dbio lgwr`: a log writer with group commit on real storage, its
//! `--compare` of configurations in interleaved rounds, and the commit
//! section of `dbio check`.
//!
//! The model lives in `dbio_sim::lgwr`; this file turns options into
//! configurations, checks all of them before the first file is made,
//! prepares and reuses log groups and runs rounds A B A B ...; the
//! plain-words findings are drawn by `dbio_report::findings::commit`.

/// The most interleaved rounds (each is a whole run).
const MAX_ROUNDS: u32 = 1000;

use crate::cli::lgwr::{parse_method, parse_protocol};
use crate::cli::{parse_delay_arg, LgwrArgs};
use crate::run_context::{io_error, new_report, stopped_by, RunContext};
use anyhow::Context;
use dbio_model::lgwr::{LgwrConfig, Method, RedoSize};
use dbio_model::units::parse_size;
use dbio_model::units::seconds_to_ns;
use dbio_model::{Prepare, RunReport};
use dbio_sim::lgwr::{self as model, LgwrRun, LogGroup, Measured};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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

fn parse_prepare(v: &str) -> Result<Prepare, String> {
    Ok(match v {
        "prewrite" => Prepare::Prewrite,
        "fallocate" => Prepare::Fallocate,
        "sparse" => Prepare::Sparse,
        "append" => Prepare::Append,
        _ => {
            return Err(format!(
                "unknown preparation '{v}' (prewrite, fallocate, sparse, append)"
            ))
        }
    })
}

/// Applies one `--compare` item (`direct+bs=4k`) to the base: every key
/// edits the configuration, except `dir`, which says where it runs.
fn apply(base: &LgwrRun, item: &str) -> Result<LgwrRun, String> {
    let mut c = base.config.clone();
    let mut dir = base.dir.clone();
    for tok in item.split('+').map(str::trim).filter(|t| !t.is_empty()) {
        let Some((k, v)) = tok.split_once('=') else {
            c.method = parse_method(tok).map_err(|e| format!("--compare item '{item}': {e}"))?;
            continue;
        };
        let bad = |e: String| format!("--compare item '{item}': {e}");
        let num = |v: &str| {
            v.parse::<u32>()
                .map_err(|_| bad(format!("'{v}' is not a number")))
        };
        match k {
            "bs" | "block" | "block-size" => c.bs = parse_size(v).map_err(bad)?,
            "sessions" => c.sessions = num(v)?,
            "members" => c.members = num(v)?,
            "async" => c.async_depth = num(v)?,
            "files" => c.files = num(v)?,
            "method" => c.method = parse_method(v).map_err(bad)?,
            "protocol" => c.protocol = parse_protocol(v).map_err(bad)?,
            "prepare" => c.prepare = parse_prepare(v).map_err(bad)?,
            "dir" => dir = PathBuf::from(v),
            "redo" => c.redo_size = RedoSize::parse(v).map_err(bad)?,
            "delay" => c.commit_delay_ns = seconds_to_ns(parse_delay_arg(v).map_err(bad)?),
            "siblings" => c.commit_siblings = num(v)?,
            "spin" => c.post_spin_ns = seconds_to_ns(parse_delay_arg(v).map_err(bad)?),
            "null-delay" => c.null_delay_ns = Some(seconds_to_ns(parse_delay_arg(v).map_err(bad)?)),
            _ => return Err(bad(format!("unknown key '{k}'"))),
        }
    }
    Ok(LgwrRun {
        config: c,
        dir,
        // Opened for the run once every configuration is known.
        scratch: None,
        ..base.clone()
    })
}

/// Log groups kept between runs: a pre-written group is reused by every
/// configuration of the same shape; fallocated or appended files are fresh
/// for every run (their first writes are what they measure).
#[derive(Default)]
struct Groups(Vec<LogGroup>, Vec<String>);

impl Groups {
    fn for_config(
        &mut self,
        cfg: &LgwrRun,
        stop: &AtomicBool,
    ) -> anyhow::Result<Option<&mut LogGroup>> {
        if !cfg.real_io() {
            return Ok(None);
        }
        self.0.retain(|g| g.prepare == Prepare::Prewrite || !g.used);
        let i = match self.0.iter().position(|g| g.fits(cfg)) {
            Some(i) => i,
            None => {
                let g = LogGroup::prepare(cfg, stop).context("preparing the log files")?;
                // For the report's warnings.
                self.1.extend(g.notices());
                self.0.push(g);
                self.0.len() - 1
            }
        };
        Ok(Some(&mut self.0[i]))
    }
}

/// Adds to `report` the warnings of the log groups made so far and one
/// result per configuration that ran at least once.
fn add_results(
    report: &mut RunReport,
    configs: &[(String, LgwrRun)],
    acc: &[Option<Measured>],
    done: &[u32],
    notices: &[String],
) {
    for w in notices.iter().map(dbio_engine::target::scratch_note) {
        if !report.findings.contains(&w) {
            report.findings.push(w);
        }
    }
    for ((name, cfg), (m, &n)) in configs.iter().zip(acc.iter().zip(done)) {
        if let Some(m) = m {
            report.lgwr.push(m.summarize(name, cfg, n));
        }
    }
}

/// The label of a run's progress bar: its configuration's name, and its
/// round when there are several.
fn bar_label(name: &str, round: u32, rounds: u32) -> String {
    match rounds {
        1 => name.to_string(),
        _ => format!("{name} (round {round}/{rounds})"),
    }
}

/// Runs `cfg` once behind a progress bar (commits per second so far,
/// against the planned time or commit count) unless `quiet` or stderr is
/// not a terminal.
fn run_one(
    cfg: &LgwrRun,
    group: Option<&mut LogGroup>,
    stop: &AtomicBool,
    (label, quiet): (&str, bool),
) -> Result<model::Outcome, model::LgwrError> {
    let c = &cfg.config;
    let bar = crate::progress::Bar::for_model(label, quiet);
    let watch = crate::progress::RateWatch {
        bar: &bar,
        counter: model::PROBE_COMMITS,
        unit: "commits",
        planned_s: c.runtime_ns.map(|ns| ns as f64 / 1e9),
        planned: c.commits_per_session.map(|n| {
            (
                model::PROBE_COMMITS,
                n.saturating_mul(u64::from(c.sessions)),
            )
        }),
    };
    let out = model::run_watched(cfg, group, stop, &watch);
    bar.finish();
    out
}

/// Runs named configurations in `rounds` interleaved rounds. Stops early
/// on a signal or an I/O error and marks the report partial. `save` gets
/// the results so far after each run (what a later SIGKILL would lose).
/// Each run shows a progress bar unless `quiet`.
fn run_all(
    configs: &[(String, LgwrRun)],
    (rounds, quiet): (u32, bool),
    stop: &Arc<AtomicBool>,
    signal: &dyn Fn() -> Option<&'static str>,
    save: &dyn Fn(&RunReport),
    report: &mut RunReport,
) -> anyhow::Result<()> {
    for (_, c) in configs {
        model::check(c)?;
    }
    let mut groups = Groups::default();
    let mut acc: Vec<Option<Measured>> = vec![None; configs.len()];
    let mut done = vec![0u32; configs.len()];
    'rounds: for round in 1..=rounds {
        for (i, (name, cfg)) in configs.iter().enumerate() {
            let group = match groups.for_config(cfg, stop) {
                Ok(g) => g,
                Err(e) => {
                    if stopped_by(report, signal()) {
                        break 'rounds;
                    }
                    // What earlier runs measured is kept: a partial result.
                    if done.iter().any(|&n| n > 0) {
                        io_error(report, format!("{e:#}"));
                        break 'rounds;
                    }
                    return Err(e);
                }
            };
            let label = bar_label(name, round, rounds);
            let out = match run_one(cfg, group, stop, (&label, quiet)) {
                Ok(out) => out,
                Err(e) if done.iter().any(|&n| n > 0) => {
                    io_error(report, format!("{e:#}"));
                    break 'rounds;
                }
                Err(e) => return Err(e.into()),
            };
            done[i] += 1;
            match &mut acc[i] {
                Some(m) => m.merge(&out.measured),
                slot => *slot = Some(out.measured),
            }
            if stopped_by(report, signal()) {
                break 'rounds;
            }
            if let Some(e) = out.error {
                io_error(report, e);
                break 'rounds;
            }
            let mut so_far = report.clone();
            add_results(&mut so_far, configs, &acc, &done, &groups.1);
            save(&so_far);
        }
    }
    add_results(report, configs, &acc, &done, &groups.1);
    Ok(())
}

/// Opens each log directory of the run once (`--compare ...+dir=` may
/// name several): every probe and file of a configuration is then made
/// relative to that descriptor, never by looking the path up again.
fn open_dirs(configs: &mut [(String, LgwrRun)]) -> anyhow::Result<()> {
    let mut opened: Vec<dbio_engine::scratch::ScratchDir> = Vec::new();
    for (_, c) in configs.iter_mut().filter(|(_, c)| c.real_io()) {
        let d = match opened.iter().find(|d| d.path() == c.dir) {
            Some(d) => d.clone(),
            None => {
                let d = dbio_engine::scratch::ScratchDir::open(&c.dir)?;
                opened.push(d.clone());
                d
            }
        };
        c.scratch = Some(d);
    }
    Ok(())
}

/// Runs `dbio lgwr`.
pub fn run(a: LgwrArgs) -> anyhow::Result<ExitCode> {
    let base = base_config(&a);
    let mut configs: Vec<(String, LgwrRun)> = if a.compare.is_empty() {
        vec![("lgwr".to_string(), base.clone())]
    } else {
        a.compare
            .iter()
            .map(|item| apply(&base, item).map(|c| (item.clone(), c)))
            .collect::<Result<_, _>>()
            .map_err(anyhow::Error::msg)?
    };
    if a.rounds == 0 || a.rounds > MAX_ROUNDS {
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
    run_all(
        &configs,
        (a.rounds, a.output.quiet),
        ctx.stop_flag(),
        &|| ctx.signal(),
        &|r| ctx.save(r),
        &mut report,
    )?;
    Ok(ctx.finish(&report))
}

/// Adds this command's section to `dbio check` (its results go into
/// `report`; `dbio_report::findings::commit` reads them); `runtime_s` is check's per-test time, `stop` is
/// raised by SIGINT, SIGTERM, SIGHUP or SIGQUIT.
///
/// Budget: at the default 3 s per test about 5 s of runs (0.8 s each for
/// 1 and 10 sessions, 0.5 s for each other durability method at 10
/// sessions), plus making two log files of half of `space` (32 MiB at
/// most) once.
pub fn check_section(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    space: u64,
    stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    report: &mut dbio_model::RunReport,
) -> anyhow::Result<()> {
    let configs = check_configs(dir, runtime_s, space)?;
    let flag = stop.clone();
    let signal = move || flag.load(Ordering::Relaxed).then_some("SIGINT");
    // `dbio check` saves after each section, and shows a bar per section.
    run_all(&configs, (1, true), stop, &signal, &|_| {}, report)?;
    Ok(())
}

/// The runs of the commit section of `dbio check` (see [`check_section`]).
fn check_configs(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    space: u64,
) -> anyhow::Result<Vec<(String, LgwrRun)>> {
    let scale = runtime_s / 3.0;
    let main_method = if dir.supports_direct()? {
        Method::DirectDsync
    } else {
        Method::BufferedFdatasync
    };
    let base = LgwrConfig {
        files: 2,
        file_size: (space / 2).min(32 << 20) >> 20 << 20,
        method: main_method,
        runtime_ns: Some(seconds_to_ns((0.8 * scale).max(0.1))),
        ..LgwrConfig::default()
    };
    let at = |config: LgwrConfig| LgwrRun {
        config,
        dir: dir.path().to_path_buf(),
        scratch: Some(dir.clone()),
        ..LgwrRun::default()
    };
    let mut configs = vec![
        (
            format!("1 session, {main_method}"),
            at(LgwrConfig {
                sessions: 1,
                ..base.clone()
            }),
        ),
        (format!("10 sessions, {main_method}"), at(base.clone())),
    ];
    let uring_ok = dbio_engine::engines::probe_io_uring().is_ok();
    for m in Method::ALL {
        if m == main_method
            || (m.direct() && main_method != Method::DirectDsync)
            || (m.uring() && !uring_ok)
            // Native AIO's fsync depends on the filesystem; `dbio check`
            // keeps to the methods every Linux filesystem runs.
            || m == Method::AioFdatasync
        {
            continue;
        }
        configs.push((
            format!("10 sessions, {m}"),
            at(LgwrConfig {
                method: m,
                runtime_ns: Some(seconds_to_ns((0.5 * scale).max(0.1))),
                ..base.clone()
            }),
        ));
    }
    Ok(configs)
}

/// The planned time of [`check_section`]'s runs, seconds (making the log
/// files adds to it).
pub fn check_planned_s(
    dir: &dbio_engine::scratch::ScratchDir,
    runtime_s: f64,
    space: u64,
) -> anyhow::Result<f64> {
    Ok(check_configs(dir, runtime_s, space)?
        .iter()
        .filter_map(|(_, c)| c.config.runtime_ns)
        .map(|ns| ns as f64 / 1e9)
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `--compare` key edits its field of the configuration (and
    /// nothing else); `dir` says where the run goes instead.
    #[test]
    fn compare_items_edit_the_configuration_by_key() {
        let base = LgwrRun::default();
        let item = "buffered+bs=4k+sessions=3+members=2+files=4+async=2+prepare=fallocate+redo=8k+delay=100us+siblings=2+spin=5us+null-delay=1ms+dir=/elsewhere";
        let r = apply(&base, item).unwrap();
        let want = LgwrConfig {
            method: Method::BufferedDsync,
            bs: 4096,
            sessions: 3,
            members: 2,
            files: 4,
            async_depth: 2,
            prepare: Prepare::Fallocate,
            redo_size: RedoSize::Fixed(8192),
            commit_delay_ns: 100_000,
            commit_siblings: 2,
            post_spin_ns: 5_000,
            null_delay_ns: Some(1_000_000),
            ..base.config.clone()
        };
        assert_eq!(r.config, want);
        assert_eq!(r.dir, PathBuf::from("/elsewhere"));
        assert_eq!(
            apply(&base, "method=uring").unwrap().config.method,
            Method::UringFdatasync
        );
        let e = apply(&base, "bs=4k+colour=red").unwrap_err();
        assert_eq!(e, "--compare item 'bs=4k+colour=red': unknown key 'colour'");
    }
}
