//! The datafile the read model reads: one file or a stripe's members,
//! made (or checked) by the engine's target rules with the model's shape
//! (prewritten, read only), the name results give it, and what preparing
//! it records in the report ([`adopt`]).
//!
//! Why here: the datafile's shape is the model's; the command only
//! passes the user's say over files (`--allow-block-device`, `--keep`).

use dbio_engine::blockdev::BlockDevicePolicy;
use dbio_engine::stripe::{self, StripePlan};
use dbio_engine::target::{Target, TargetSpec};
use dbio_engine::EngineError;
use dbio_model::read::{ReadConfig, TierThresholds};
use dbio_model::{Durability, EngineKind, Finding, Prepare, RunReport, Severity};
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

/// The size to use when `--size` is not given: an existing regular file's
/// own size (it is only read, so all of it is the datafile), else 1 GiB.
/// `Target::prepare` checks the size again on the descriptor it opens.
pub fn default_size(target: &Path, asked: Option<u64>) -> u64 {
    asked.unwrap_or_else(|| match std::fs::metadata(target) {
        Ok(m) if m.is_file() => m.len(),
        _ => 1 << 30,
    })
}

/// The logical size of a stripe when `--size` is not given: each member's
/// share is the smallest existing member file's size (they are only
/// read), else 1 GiB in all.
pub fn default_stripe_size(members: &[std::path::PathBuf], asked: Option<u64>) -> u64 {
    if let Some(s) = asked {
        return s;
    }
    let sizes: Option<Vec<u64>> = members
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .collect();
    match sizes.and_then(|v| v.into_iter().min()) {
        Some(min) => min * members.len() as u64,
        None => 1 << 30,
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

/// Records in `report` what preparing the datafile found: every target's
/// notices, the first one's environment, and a warning when no block
/// device is under it although `thresholds` name device tiers.
pub fn adopt(report: &mut RunReport, ts: &[Target], thresholds: &TierThresholds) {
    for t in ts {
        report
            .findings
            .extend(t.notices.iter().map(dbio_engine::target::scratch_note));
    }
    if let Some(t) = ts.first() {
        report.environment = dbio_engine::sysinfo::environment(&t.path);
        if dbio_engine::sysinfo::disk_of_fd(&*t.file).is_none() && thresholds.has_device_tier() {
            report.findings.push(Finding::note(
                "read.no_block_device",
                Severity::Warning,
                format!(
                    "{} has no block device under it ({}): every read is served from memory, so reads the thresholds call storage-cache hits or device reads are slow memory reads",
                    t.path.display(),
                    report.environment.fs_type
                ),
            ));
        }
    }
}
