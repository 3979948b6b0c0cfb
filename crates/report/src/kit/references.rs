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

/// The knee of a queue: the utilisation past which response time climbs
/// steeply, by the number of servers (table 1).
pub fn thinking_clearly() -> Reference {
    article(Some("Cary Millsap"), "Thinking Clearly About Performance")
}

/// Data Guard's transport wait events by release: 11g's LNS, 12c's NSS
/// and 'SYNC Remote Write'.
pub fn dataguard_wait_events() -> Reference {
    article(
        Some("Franck Pachot"),
        "DataGuard wait events have changed in 12c",
    )
}

/// Oracle MAA on SYNC transport: a commit waits for the local write and
/// the standby's acknowledgement.
pub fn synchronous_redo_transport() -> Reference {
    article(
        Some("Oracle MAA"),
        "Best Practices for Synchronous Redo Transport: Data Guard and Active Data Guard",
    )
}

/// RAC: LMS waits for LGWR's flush ('gcs log flush sync') before it
/// ships a block.
pub fn expert_oracle_rac() -> Reference {
    article(
        Some("Riyaj Shamsudeen, Syed Jaffar Hussain, Kai Yu, Tariq Farooq"),
        "Expert Oracle RAC 12c, chapter 10 (GCS Log Flush Sync)",
    )
}

/// The 12c scalable log writer: LGWR and its LGnn workers.
pub fn scalable_log_writer() -> Reference {
    article(
        Some("Craig Shallahamer"),
        "Changing The Number Of Oracle Database 12c Log Writers",
    )
}

/// Exadata flash cache reads in a fraction of a millisecond.
pub fn exadata_flash_cache_latency() -> Reference {
    article(
        Some("Bobby Durrett"),
        "Exadata flash cache latency .4 milliseconds",
    )
}

/// Redo log sizing: a switch at most every twenty minutes or so.
pub fn sizing_redo_logs() -> Reference {
    article(
        Some("Oracle"),
        "Database Performance Tuning Guide: Sizing Redo Log Files",
    )
}

/// A file in `docs/`.
pub fn doc(path: &str) -> Reference {
    article(None, path)
}
