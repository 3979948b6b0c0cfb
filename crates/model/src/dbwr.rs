//! Result types of `dbio dbwr` (filled in by its issue).

use serde::{Deserialize, Serialize};

/// The result of `dbio dbwr`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DbwrResult {
    /// Name of the configuration.
    pub name: String,
}
