//! `dbio load --predict`'s model run: the log-writer model on the same
//! storage, with the database's protocol and sync method (its
//! [`ModelShape`]), the log bytes and the CPU per commit measured during
//! the real run, put beside the measurement with the residual of each
//! figure.
//!
//! Why here: how a database's measured run becomes the model's
//! configuration, and what is compared with what, is this crate's
//! knowledge of the engines; the binary only picks the directory (from
//! its arguments) and prints the result.

use crate::predict::{ModelShape, ERROR_BOUND_PCT};
use anyhow::Context;
use dbio_model::lgwr::{LgwrConfig, RedoSize};
use dbio_model::load::{LoadConfig, LoadResult};
use dbio_model::load_predict::LoadPrediction;
use dbio_sim::lgwr::{self as model, LgwrRun, LogGroup};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// Log files the model writes in: two of 64 MiB, pre-written (a
/// database's log is preallocated and recycled, so its writes overwrite
/// allocated blocks as these do).
const MODEL_FILES: u32 = 2;
/// Size of each model log file, bytes.
const MODEL_FILE_SIZE: u64 = 64 << 20;

/// Where and how the model will run, decided before the load.
pub struct Plan {
    /// The directory the model writes its log files in.
    pub dir: PathBuf,
    /// Why that directory, in words.
    pub reason: String,
    /// The database's protocol and sync method, mapped onto the model.
    pub shape: ModelShape,
}

/// The model's configuration for `cfg` on `shape`, with `redo_bytes` of
/// log and `txn_cpu_ns` of CPU per commit.
pub fn model_config(
    cfg: &LoadConfig,
    shape: &ModelShape,
    redo_bytes: u64,
    (txn_cpu_ns, client_cpu_ns): (u64, u64),
) -> LgwrConfig {
    let d = LgwrConfig::default();
    let bs = shape.bs;
    LgwrConfig {
        protocol: shape.protocol,
        sessions: shape.sessions,
        commits_per_session: cfg.commits_per_session,
        runtime_ns: cfg.runtime_ns,
        redo_size: RedoSize::Fixed(redo_bytes.clamp(64, d.max_write_bytes - bs)),
        think_time_ns: cfg.think_time_ns,
        txn_cpu_ns: txn_cpu_ns.min(1_000_000_000),
        client_cpu_ns: client_cpu_ns.min(1_000_000_000),
        bs,
        method: shape.method,
        files: MODEL_FILES,
        file_size: MODEL_FILE_SIZE,
        commit_delay_ns: shape.commit_delay_ns,
        commit_siblings: shape.commit_siblings,
        syncs_per_flush: shape.syncs_per_flush,
        pipeline: shape.pipeline,
        stage_append: shape.stage_append,
        // The measured CPU (server backends', or SQLite's client threads')
        // holds the database's own log writes and syncs, which the model
        // makes for real: deduct them (see `Shared::txn_cpu` for the bound).
        cpu_includes_commit_path: shape.protocol == dbio_model::lgwr::Protocol::Leader,
        ..d
    }
}

/// Residual of `predicted` against `measured`, percent.
fn residual(predicted: f64, measured: f64) -> Option<f64> {
    (measured > 0.0).then(|| 100.0 * (predicted - measured) / measured)
}

/// Log bytes per commit: the engine's own count where it has one, else
/// the rows' payload with a 64-byte record header (an estimate, said so).
fn redo_bytes(r: &LoadResult, notes: &mut Vec<String>) -> u64 {
    match r.flush.bytes.filter(|&b| b > 0 && r.commits > 0) {
        Some(b) => b / r.commits,
        None => {
            let est = u64::from(r.config.row_bytes) * u64::from(r.config.rows_per_commit) + 64;
            notes.push(format!(
                "the engine does not count its log bytes: the model writes {est} B per commit \
                 (the rows plus 64 B)"
            ));
            est
        }
    }
}

/// Runs the model for the measured run `r` and puts it beside `r`.
pub fn predict(plan: &Plan, r: &LoadResult, stop: &AtomicBool) -> anyhow::Result<LoadPrediction> {
    let mut notes = plan.shape.notes.clone();
    let client = r.cpu.per_io_ns;
    let server = r.server_cpu.as_ref().map(|c| c.per_io_ns);
    if server.is_none() && r.config.engine != "sqlite" {
        notes.push(
            "the server's CPU was not measured (it does not run on this machine, or its \
             backends are unnamed: MariaDB names a connection's thread only with \
             performance_schema on): the model has the client's CPU alone"
                .into(),
        );
    }
    // A server's sessions burn the backends' CPU and make a round trip
    // to a client thread that burns the client's (at least 1 ns, so that
    // the round trip is there); SQLite runs in the client's threads.
    let (txn_cpu_ns, client_cpu_ns) = match r.config.engine.as_str() {
        "sqlite" => (client.round() as u64, 0),
        _ => (
            server.unwrap_or(0.0).round() as u64,
            (client.round() as u64).max(1),
        ),
    };
    let redo = redo_bytes(r, &mut notes);
    let run = LgwrRun {
        config: model_config(&r.config, &plan.shape, redo, (txn_cpu_ns, client_cpu_ns)),
        dir: plan.dir.clone(),
        ..LgwrRun::default()
    };
    let mut group = LogGroup::prepare(&run, stop).context("preparing the model's log files")?;
    let out = model::run(&run, Some(&mut group), stop)?;
    drop(group);
    let m = out.measured.summarize("predict", &run, 1);
    let measured_cpf = r.derived.commits_per_flush;
    let predicted_cpf = m.writer.commits_per_write;
    Ok(LoadPrediction {
        dir: plan.dir.display().to_string(),
        dir_reason: plan.reason.clone(),
        protocol: plan.shape.protocol.name().into(),
        method: plan.shape.method.name().into(),
        syncs_per_flush: plan.shape.syncs_per_flush,
        pipeline: plan.shape.pipeline,
        stage_append: run.config.stage_append,
        model_flush_cpu_ns: m.writer.flush_cpu_per_commit_ns,
        model_session_path_cpu_ns: m.writer.session_path_cpu_per_commit_ns,
        model_client_path_cpu_ns: m.writer.client_path_cpu_per_commit_ns,
        model_sessions: plan.shape.sessions,
        redo_bytes: redo,
        block_size: plan.shape.bs,
        txn_cpu_ns,
        model_client_cpu_ns: client_cpu_ns,
        client_cpu_ns: client,
        server_cpu_ns: server,
        predicted_tps: m.tps,
        measured_tps: r.tps,
        tps_residual_pct: residual(m.tps, r.tps).unwrap_or(0.0),
        predicted_commits_per_flush: predicted_cpf,
        measured_commits_per_flush: measured_cpf,
        commits_per_flush_residual_pct: measured_cpf.and_then(|c| residual(predicted_cpf, c)),
        // What the client timed: in autocommit mode the insert with its
        // commit (one round trip), which the model's clients time the
        // same way; in explicit mode COMMIT alone, the model's 'log file
        // sync'.
        predicted_commit_ns: match r.config.mode {
            dbio_model::load::LoadMode::Autocommit => {
                m.client_seen_mean_ns.unwrap_or(m.log_file_sync.mean_ns)
            }
            dbio_model::load::LoadMode::Explicit => m.log_file_sync.mean_ns,
        },
        predicted_flush_ns: m.writer.log_file_parallel_write.mean_ns,
        error_bound_pct: ERROR_BOUND_PCT,
        model_runtime_ns: m.runtime_ns,
        model_commits: m.commits,
        notes,
        error: out.error,
    })
}
