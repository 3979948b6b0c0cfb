//! The datafile the read model reads: one file or a stripe's members,
//! made (or checked) by the engine's target rules with the model's shape
//! (prewritten, read only), and the name results give it.
//!
//! Why here: the datafile's shape is the model's; the command only
//! passes the user's say over files (`--allow-block-device`, `--keep`).

use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::stripe::{self, StripePlan};
use dbio_engine::target::{Target, TargetSpec};
use dbio_engine::EngineError;
use dbio_model::read::ReadConfig;
use dbio_model::{Durability, EngineKind, Prepare};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// The block-device policy `--allow-block-device` asks for.
pub fn policy(allow_block_device: bool) -> BlockDevicePolicy {
    if allow_block_device {
        BlockDevicePolicy::Allowed
    } else {
        BlockDevicePolicy::NeedsFlag
    }
}

/// Prepares a stripe's members (every one under the rules of a single
/// datafile; when one fails, what was made for the others is removed).
pub fn members(
    cfg: &ReadConfig,
    plan: &StripePlan,
    allow_block_device: bool,
    keep: bool,
    stop: &AtomicBool,
) -> Result<Vec<Target>, EngineError> {
    let specs: Vec<TargetSpec> = plan
        .members
        .iter()
        .map(|m| TargetSpec {
            size: plan.map.member_size,
            ..target_spec(cfg, &m.path, allow_block_device, keep)
        })
        .collect();
    stripe::prepare_members(&specs, stop)
}

/// Prepares the datafile (None for the null engine).
pub fn target(
    cfg: &ReadConfig,
    path: &Path,
    allow_block_device: bool,
    keep: bool,
    stop: &AtomicBool,
) -> Result<Option<Target>, EngineError> {
    if cfg.engine == EngineKind::Null {
        return Ok(None);
    }
    let spec = target_spec(cfg, path, allow_block_device, keep);
    Ok(Some(Target::prepare(&spec, stop)?))
}

/// The datafile's specification for `cfg`.
pub fn target_spec(
    cfg: &ReadConfig,
    path: &Path,
    allow_block_device: bool,
    keep: bool,
) -> TargetSpec {
    TargetSpec {
        path: path.to_path_buf(),
        size: cfg.size,
        prepare: Prepare::Prewrite,
        direct: cfg.direct,
        bs: cfg.bs,
        sync: Durability::None,
        writes: false,
        overwrite: false,
        block_device: policy(allow_block_device),
        keep,
    }
}

/// The name results give the datafile (a stripe's members, in order).
pub fn target_name(targets: &[&Target]) -> String {
    if targets.is_empty() {
        return "null".to_string();
    }
    targets
        .iter()
        .map(|t| t.path.display().to_string())
        .collect::<Vec<_>>()
        .join(",")
}
