//! Result types of `dbio lgwr` (filled in by its issue).

use serde::{Deserialize, Serialize};

/// The result of `dbio lgwr`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LgwrResult {
    /// Name of the configuration.
    pub name: String,
}
