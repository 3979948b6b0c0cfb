//! The datafile the writers model runs on: made (or checked) by the
//! engine's target rules, one file or a stripe's members, each with the
//! disk under it.
//!
//! Why here: the datafile's shape (size, 8 KiB blocks, written, never a
//! block device) is the model's; the command only passes the user's say
//! over files (`--overwrite`, `--keep`).

use super::{Datafile, BLOCK_SIZE};
use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::engines::probe_io_uring;
use dbio_engine::stripe::{self, StripeMap, StripePlan};
use dbio_engine::sysinfo;
use dbio_engine::target::{Target, TargetSpec};
use dbio_engine::EngineError;
use dbio_model::dbwr::DbwrConfig;
use dbio_model::{EngineKind, Prepare};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Why the datafile could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DatafileError {
    /// io_uring was asked for and this kernel refuses it.
    #[error("{0}; run with --engine psync")]
    IoUring(String),
    /// The target could not be prepared.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The prepared datafile and the name of its disk; for a stripe, every
/// member (the first is `target`) and its disk.
pub struct Prepared {
    /// The one datafile (None for a stripe or the null engine).
    pub target: Option<Target>,
    /// The model's view of it.
    pub datafile: Option<Datafile>,
    /// The disk under the datafile (a stripe's first member).
    pub disk: Option<String>,
    /// A stripe's members, in `--targets` order.
    pub members: Vec<Target>,
    /// The disk under each member.
    pub member_disks: Vec<Option<String>>,
    /// A stripe's translation.
    pub map: Option<StripeMap>,
}

/// The name of the disk under `t` (`sda`), when it has one.
pub fn disk_name(t: &Target) -> Option<String> {
    sysinfo::disk_of_fd(&*t.file)
        .and_then(|(sys, _)| sys.file_name().map(|n| n.to_string_lossy().to_string()))
}

/// Prepares a stripe's members with the single datafile's rules (a member
/// that fails removes what was made for the others).
pub fn prepare_stripe(
    plan: &StripePlan,
    cfg: &DbwrConfig,
    overwrite: bool,
    keep: bool,
    stop: &AtomicBool,
) -> Result<Prepared, DatafileError> {
    let specs: Vec<TargetSpec> = plan
        .members
        .iter()
        .map(|m| TargetSpec {
            size: plan.map.member_size,
            ..datafile_spec(&m.path, cfg, overwrite, keep)
        })
        .collect();
    let members = stripe::prepare_members(&specs, stop)?;
    let member_disks: Vec<Option<String>> = members.iter().map(disk_name).collect();
    Ok(Prepared {
        target: None,
        datafile: None,
        disk: member_disks.first().cloned().flatten(),
        members,
        member_disks,
        map: Some(plan.map),
    })
}

/// The datafile's specification for `cfg` at `path`.
pub fn datafile_spec(path: &Path, cfg: &DbwrConfig, overwrite: bool, keep: bool) -> TargetSpec {
    TargetSpec {
        path: path.to_path_buf(),
        size: cfg.datafile_bytes,
        prepare: Prepare::Prewrite,
        direct: cfg.direct,
        bs: BLOCK_SIZE as u64,
        sync: dbio_model::Durability::None,
        writes: true,
        overwrite,
        block_device: BlockDevicePolicy::NotAccepted,
        keep,
    }
}

/// Makes (or checks) the datafile `cfg` runs on; `overwrite` and `keep`
/// are the user's say over files, not part of the configuration.
/// `scratch`: the directory `path` names, already opened for the run
/// (`dbio check`): the datafile is made relative to it.
pub fn prepare(
    path: &Path,
    scratch: Option<&dbio_engine::scratch::ScratchDir>,
    cfg: &DbwrConfig,
    overwrite: bool,
    keep: bool,
    stop: &AtomicBool,
) -> Result<Prepared, DatafileError> {
    let engine = cfg.engine;
    if engine == EngineKind::Null {
        return Ok(Prepared {
            target: None,
            datafile: None,
            disk: None,
            members: Vec::new(),
            member_disks: Vec::new(),
            map: None,
        });
    }
    if engine == EngineKind::IoUring {
        if let Err(why) = probe_io_uring() {
            return Err(DatafileError::IoUring(why));
        }
    }
    let spec = datafile_spec(path, cfg, overwrite, keep);
    let t = match scratch {
        Some(dir) => Target::prepare_in(&spec, dir, stop)?,
        None => Target::prepare(&spec, stop)?,
    };
    let disk = disk_name(&t);
    let datafile = Datafile {
        file: Arc::clone(&t.file),
        path: t.path.clone(),
    };
    Ok(Prepared {
        target: Some(t),
        datafile: Some(datafile),
        disk,
        members: Vec::new(),
        member_disks: Vec::new(),
        map: None,
    })
}
