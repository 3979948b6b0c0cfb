//! The engine's error type: every message is one sentence a user can act on.

use std::path::PathBuf;

/// Errors from preparing targets and running workloads.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// An option or combination of options that cannot work; found before any I/O.
    #[error("{0}")]
    Invalid(String),
    /// The target is refused for safety (not ours, a block device, ...).
    #[error("{0}")]
    Refused(String),
    /// The kernel or filesystem lacks something the job needs.
    #[error("{0}")]
    Unsupported(String),
    /// A thread the run needs could not be started (EAGAIN: `ulimit -u`,
    /// a cgroup's pids.max); nothing was measured.
    #[error(transparent)]
    Threads(#[from] crate::threads::SpawnError),
    /// An I/O system call failed.
    #[error("{op} on {path} failed: {source}")]
    Io {
        /// What dbio was doing.
        op: String,
        /// The file involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl EngineError {
    /// Builds an [`EngineError::Io`].
    pub fn io(op: impl Into<String>, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EngineError::Io {
            op: op.into(),
            path: path.into(),
            source,
        }
    }

    /// The OS error number behind this error, if any.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            EngineError::Io { source, .. } => source.raw_os_error(),
            EngineError::Threads(e) => e.error.raw_os_error(),
            _ => None,
        }
    }
}
