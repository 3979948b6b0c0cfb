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
    /// A block device is refused for safety: it holds a signature, is in
    /// use, or the command does not take one (see [`crate::blockdev`]).
    #[error("refusing block device {}: {why}", path.display())]
    BlockDeviceRefused {
        /// The device as the user named it.
        path: PathBuf,
        /// Why, as a clause of the sentence.
        why: String,
    },
    /// An I/O system call failed. The OS error is part of the message and
    /// deliberately not a `#[source]`: `{:#}` would print it a second time.
    #[error("{op} on {path} failed: {os}")]
    Io {
        /// What dbio was doing.
        op: String,
        /// The file involved.
        path: PathBuf,
        /// The OS error.
        os: std::io::Error,
    },
}

impl EngineError {
    /// Builds an [`EngineError::Io`].
    pub fn io(op: impl Into<String>, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EngineError::Io {
            op: op.into(),
            path: path.into(),
            os: source,
        }
    }

    /// The OS error number behind this error, if any.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            EngineError::Io { os, .. } => os.raw_os_error(),
            EngineError::Threads(e) => e.error.raw_os_error(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_os_error_is_printed_once() {
        let e = EngineError::io(
            "creating the target",
            "/x",
            std::io::Error::from_raw_os_error(libc::EEXIST),
        );
        // anyhow's `{:#}` prints Display, then each source: there must be none.
        assert!(std::error::Error::source(&e).is_none());
        let text = e.to_string();
        assert_eq!(text.matches("os error 17").count(), 1, "{text}");
    }
}
