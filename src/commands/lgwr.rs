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

use crate::cli::lgwr::{parse_method, parse_protocol};
use crate::cli::{parse_delay_arg, LgwrArgs};
use crate::run_context::{new_report, RunContext};
use dbio_model::lgwr::{LgwrConfig, RedoSize};
use dbio_model::units::parse_size;
use dbio_model::units::seconds_to_ns;
use dbio_model::Prepare;
use dbio_sim::lgwr::rounds::{open_dirs, run_all, Hooks};
use dbio_sim::lgwr::{self as model, LgwrRun};
use std::path::PathBuf;
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

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::lgwr::Method;

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
