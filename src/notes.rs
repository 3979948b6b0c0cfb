//! Notes from the scratch space, as findings.
//!
//! The engine's targets say in plain words what they did or could not do
//! to the scratch space (a stale temporary file of a killed run removed,
//! a file that could not be marked as dbio's): every command that runs
//! on targets hands them on as `scratch.target` notices, so that the
//! result ranks them beside everything else it says.

use dbio_model::{Finding, Severity};

/// One of a target's notices as a finding.
pub fn scratch(notice: impl AsRef<str>) -> Finding {
    Finding::note("scratch.target", Severity::Notice, notice.as_ref())
}
