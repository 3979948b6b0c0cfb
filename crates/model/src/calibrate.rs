//! Result types of `dbio calibrate` (filled in by its issue).

use serde::{Deserialize, Serialize};

/// The result of `dbio calibrate`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Name of the configuration.
    pub name: String,
}
