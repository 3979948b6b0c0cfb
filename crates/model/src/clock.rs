//! The wall clock's own account of how far it can be trusted, recorded
//! with a run that started at a shared `--start-at` time.
//!
//! A host cannot see the other hosts' clocks, but the kernel knows whether
//! NTP or chrony is disciplining its own and how large its error can be
//! (adjtimex(2): `STA_UNSYNC`, `maxerror`, `esterror`, in µs). Two hosts
//! whose clocks are each within `maxerror` of true time start within the
//! sum of their bounds of each other: that is the figure that says whether
//! a fleet's parts measured the same interval.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// This host's wall clock as adjtimex(2) reported it when the run began.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClockStatus {
    /// False when the kernel flags the clock unsynchronised (`STA_UNSYNC`:
    /// no NTP or chrony has disciplined it, or it lost its source).
    pub synchronised: bool,
    /// The kernel's maximum error of the clock, µs (`maxerror`; it grows
    /// by 500 µs a second while no time source updates it, and the
    /// kernel caps it at 16 s).
    pub max_error_us: u64,
    /// The estimated error, µs (`esterror`).
    pub est_error_us: u64,
    /// `--max-clock-error` in force, µs; None when it was `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_us: Option<u64>,
}
