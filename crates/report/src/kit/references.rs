//! The public sources the rules come from, named once: a reader can look
//! each one up by author and title (or open the file in `docs/`).

use dbio_model::Reference;

fn article(author: Option<&str>, title: &str) -> Reference {
    Reference {
        title: title.to_string(),
        author: author.map(str::to_string),
    }
}

/// Buffered against direct redo writes: LGWR's partial-block rewrites read
/// the log file back when it is buffered.
pub fn lgwr_buffered_vs_direct() -> Reference {
    article(
        None,
        "Analyzing Oracle Logwriter w/ buffered vs. direct I/O",
    )
}

/// 'log file sync' against 'log file parallel write': where a commit's
/// time goes, and group commit.
pub fn log_file_sync() -> Reference {
    article(None, "Log File Sync wait event and SSD disks")
}

/// Comparing 'log file sync' with 'log file parallel write': averages
/// mislead, and queueing behind one slow write doubles the wait.
pub fn savvinov_log_file_sync() -> Reference {
    article(
        Some("Nikolay Savvinov"),
        "How not to troubleshoot log file sync waits",
    )
}

/// Fast "physical" reads that were page-cache hits.
pub fn physical_io_not_always_physical() -> Reference {
    article(
        Some("Kyle Hailey"),
        "Oracle \u{201c}Physical I/O\u{201d}? not always physical",
    )
}

/// One database writer until it is CPU-bound.
pub fn over_configuring_dbwr() -> Reference {
    article(
        Some("Kevin Closson"),
        "Over-Configuring DBWR Processes \u{2013} Part III",
    )
}

/// Method R: a response time explained by its profile, each component by
/// its share of R.
pub fn method_r() -> Reference {
    article(
        Some("Cary Millsap and Jeff Holt"),
        "Optimizing Oracle Performance",
    )
}

/// A file in `docs/`.
pub fn doc(path: &str) -> Reference {
    article(None, path)
}
