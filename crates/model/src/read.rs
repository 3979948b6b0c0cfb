//! Result types of `dbio read` (filled in by its issue).

use serde::{Deserialize, Serialize};

/// The result of `dbio read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResult {
    /// Name of the configuration.
    pub name: String,
}
