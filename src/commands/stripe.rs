//! The stripe plan `read`, `dbwr` and `matrix` make from `--targets`,
//! `--stripe` and `--layout`: one check of the stripe unit in the
//! command's own words, then the engine's plan (`dbio_engine::stripe::plan`,
//! which checks the members as `bench` does, one plan per job).

use crate::cli::stripe::Stripe;
use dbio_engine::stripe::{self, StripePlan};
use dbio_engine::{Job, JobTarget};
use dbio_model::units::format_bytes;
use dbio_model::JobConfig;

/// The plan for `job` at `place` over `a`'s targets, or `None` without
/// `--targets`. The stripe unit must hold the job's I/O (`jc.bs`) whole:
/// `what` names that size as the command's options do ("--bs",
/// "the large I/O") and `one` names one such I/O ("a block"), so the
/// refusal reads in the command's vocabulary. The caller makes its
/// configuration's size the plan's logical size and validates it again.
pub fn plan(
    a: &Stripe,
    jc: &JobConfig,
    place: &JobTarget,
    what: &str,
    one: &str,
) -> anyhow::Result<Option<StripePlan>> {
    if a.targets.is_empty() {
        return Ok(None);
    }
    let unit = a.unit();
    if unit == 0 || !unit.is_multiple_of(jc.bs) {
        anyhow::bail!(
            "--stripe {} is not a multiple of {what} ({}): {one} would straddle two targets",
            format_bytes(unit),
            format_bytes(jc.bs)
        );
    }
    let mut job = Job::resolve(jc, place)?;
    Ok(Some(stripe::plan(&mut job, &a.targets, a.layout(), unit)?))
}
