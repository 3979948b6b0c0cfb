//! The log files: a group of K files of fixed size, each with M mirrored
//! members, prepared the way a database keeps them (pre-written like a
//! recycled online log, fallocated like a fresh one, or grown by appending
//! like a new WAL segment), then opened with the flags of the durability
//! method.
//!
//! Files are made through the engine's [`Target`] (temporary files marked
//! as dbio's, free space checked, removed when the group drops), one per
//! file and member, all relative to the one descriptor of the log
//! directory that the run opened ([`LgwrRun::scratch`]): a directory
//! swapped during preparation cannot split the group. [`preflight`] finds every problem it can before the
//! first byte is written: the directory, O_DIRECT support and alignment
//! (statx on an empty probe file), and the free space of the whole group.

use super::config::LgwrRun;
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::target::{Target, TargetSpec};
use dbio_engine::EngineError;
use dbio_model::units::format_bytes;
use dbio_model::{Durability, Prepare};
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A prepared group of log files: `targets[file][member]`.
pub struct LogGroup {
    targets: Vec<Vec<Target>>,
    /// One file per later stage of a pipelined commit (`--pipeline`).
    stages: Vec<Target>,
    /// The preparation the files had when made.
    pub prepare: Prepare,
    /// Whether the stage files were made empty for appending.
    stage_append: bool,
    /// Whether a run has written the files since they were made (a
    /// fallocated or appended group is then no longer fresh).
    pub used: bool,
}

/// Checks the directory and the storage for `run` without writing data.
pub fn preflight(run: &LgwrRun) -> Result<(), String> {
    let (cfg, dir) = (&run.config, &run.dir);
    let scratch = run.scratch_dir().map_err(|e| e.to_string())?;
    if cfg.method.direct() {
        let probe = scratch
            .probe()
            .map_err(|e| format!("cannot create a log file in {}: {e}", dir.display()))?;
        if !probe.direct {
            return Err(format!(
                "{} ({}) does not support O_DIRECT; use a buffered --method",
                dir.display(),
                if probe.fs_type.is_empty() {
                    "this filesystem"
                } else {
                    &probe.fs_type
                }
            ));
        }
        if let Some(a) = probe.dio_alignment {
            if u64::from(a.offset_align) > cfg.bs {
                return Err(format!(
                    "O_DIRECT cannot write {}-byte redo blocks on {}: it needs multiples of {} B (statx); use --bs {} or a buffered method",
                    cfg.bs,
                    dir.display(),
                    a.offset_align,
                    a.offset_align
                ));
            }
        }
    }
    let need = cfg.file_size
        * (u64::from(cfg.files) * u64::from(cfg.members) + u64::from(stage_files(&run.config)));
    if let Ok(Some(free)) = scratch.free_space() {
        if need > free {
            return Err(format!(
                "the log files need {} but only {} is free in {}; use a smaller --file-size or fewer --files",
                format_bytes(need),
                format_bytes(free),
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Files the later stages of a pipelined commit write: one per durable
/// write after the first (none without `--pipeline`).
pub fn stage_files(cfg: &dbio_model::lgwr::LgwrConfig) -> u32 {
    if cfg.pipeline {
        cfg.syncs_per_flush.saturating_sub(1)
    } else {
        0
    }
}

impl LogGroup {
    /// Creates and lays out every file and member.
    pub fn prepare(run: &LgwrRun, stop: &AtomicBool) -> Result<LogGroup, EngineError> {
        let cfg = &run.config;
        // One directory for every file of the group, opened once.
        let dir = run.scratch_dir()?;
        let spec = TargetSpec {
            path: run.dir.clone(),
            size: cfg.file_size,
            prepare: cfg.prepare,
            direct: false,
            bs: cfg.bs,
            sync: Durability::None,
            writes: true,
            overwrite: false,
            block_device: BlockDevicePolicy::NotAccepted,
            keep: run.keep,
        };
        let mut targets = Vec::with_capacity(cfg.files as usize);
        for _ in 0..cfg.files {
            let mut members = Vec::with_capacity(cfg.members as usize);
            for _ in 0..cfg.members {
                members.push(Target::prepare_in(&spec, &dir, stop)?);
            }
            targets.push(members);
        }
        // An appended stage starts empty (a new binary log file).
        let stage_spec = TargetSpec {
            prepare: if cfg.stage_append {
                Prepare::Append
            } else {
                cfg.prepare
            },
            ..spec.clone()
        };
        let stages = (0..stage_files(cfg))
            .map(|_| Target::prepare_in(&stage_spec, &dir, stop))
            .collect::<Result<_, _>>()?;
        Ok(LogGroup {
            targets,
            stages,
            prepare: cfg.prepare,
            stage_append: cfg.stage_append,
            used: false,
        })
    }

    /// Whether this group can serve `run` as it is (same shape, and still
    /// in the state its preparation promises: pre-written files stay so).
    pub fn fits(&self, run: &LgwrRun) -> bool {
        let cfg = &run.config;
        self.targets.len() == cfg.files as usize
            && self.targets[0].len() == cfg.members as usize
            && self.stages.len() == stage_files(cfg) as usize
            && (self.stages.is_empty() || self.stage_append == cfg.stage_append)
            && self.targets[0][0].size == cfg.file_size
            && self.prepare == cfg.prepare
            && self.targets[0][0].path.parent() == Some(run.dir.as_path())
            && (!self.used || cfg.prepare == Prepare::Prewrite)
    }

    /// Paths, `[file][member]`.
    pub fn paths(&self) -> Vec<Vec<PathBuf>> {
        self.targets
            .iter()
            .map(|m| m.iter().map(|t| t.path.clone()).collect())
            .collect()
    }

    /// Opens every file with the method's flags, `[file][member]`: new
    /// descriptors derived from the ones the files were created through
    /// (never from their paths).
    pub fn open(&self, run: &LgwrRun) -> Result<Vec<Vec<Arc<File>>>, EngineError> {
        let cfg = &run.config;
        let sync = if cfg.method.dsync() {
            Durability::Dsync
        } else {
            Durability::None
        };
        self.targets
            .iter()
            .map(|m| {
                m.iter()
                    .map(|t| t.with_flags(cfg.method.direct(), sync, true).map(Arc::new))
                    .collect()
            })
            .collect()
    }

    /// Opens each later stage's file with the method's flags (buffered,
    /// without O_DSYNC, with `stage_append`), with its path (for error
    /// messages).
    pub fn open_stages(&self, run: &LgwrRun) -> Result<Vec<(Arc<File>, PathBuf)>, EngineError> {
        let cfg = &run.config;
        let sync = if cfg.method.dsync() && !cfg.stage_append {
            Durability::Dsync
        } else {
            Durability::None
        };
        let direct = cfg.method.direct() && !cfg.stage_append;
        self.stages
            .iter()
            .map(|t| {
                t.with_flags(direct, sync, true)
                    .map(|f| (Arc::new(f), t.path.clone()))
            })
            .collect()
    }

    /// Buffered read-only descriptors on every file, `[file][member]`, for
    /// reading the records back.
    pub fn readers(&self) -> Vec<Vec<Option<File>>> {
        self.targets
            .iter()
            .map(|m| {
                m.iter()
                    .map(|t| t.with_flags(false, Durability::None, false).ok())
                    .collect()
            })
            .collect()
    }

    /// What the files' preparation found that the report should say
    /// (marks that could not be set, stale temporary files removed).
    pub fn notices(&self) -> Vec<String> {
        self.targets
            .iter()
            .flatten()
            .chain(self.stages.iter())
            .flat_map(|t| t.notices.iter().cloned())
            .collect()
    }
}
