//! The classes dbio puts a latency in, shared by every section that
//! judges raw storage (check's battery, bench's jobs): a commit's p99
//! against what a database log needs, a random read's median against the
//! storage classes.
//!
//! The thresholds are the ones `docs/GUIDE.md` states: a commit p99 up to
//! 1 ms is good for a commit-heavy log, up to 10 ms usable, beyond that
//! slow (Oracle counts 'log file parallel write' above about 1 ms as slow
//! on a busy system; above 10 ms commits dominate response times); random
//! read medians under 20 µs are a cache, under 300 µs solid state, under
//! 2 ms network or virtualised storage, else a spinning disk.

use dbio_model::Severity;

/// Commit p99 up to this is good for a commit-heavy log, ns.
pub const COMMIT_GOOD_P99_NS: u64 = 1_000_000;
/// Commit p99 up to this is usable, ns; beyond, slow.
pub const COMMIT_USABLE_P99_NS: u64 = 10_000_000;
/// Random-read medians below this are a cache, ns.
pub const READ_CACHE_P50_NS: u64 = 20_000;
/// ... below this solid state, ns.
pub const READ_SSD_P50_NS: u64 = 300_000;
/// ... below this network or virtualised storage, ns; else spinning disk.
pub const READ_NETWORK_P50_NS: u64 = 2_000_000;

/// The verdict on commit latency from the p99, and its severity.
pub fn commit_verdict(p99_ns: u64) -> (&'static str, Severity) {
    if p99_ns <= COMMIT_GOOD_P99_NS {
        ("good for a commit-heavy database log", Severity::Info)
    } else if p99_ns <= COMMIT_USABLE_P99_NS {
        (
            "usable for a database log, but busy OLTP will notice the commit tail",
            Severity::Notice,
        )
    } else {
        (
            "slow for a database log: commits will dominate response times",
            Severity::Warning,
        )
    }
}

/// The storage class a random-read median points to.
pub fn read_class(direct: bool, p50_ns: u64) -> &'static str {
    if !direct {
        "buffered reads: this measures the page cache or memory, not a device"
    } else if p50_ns < READ_CACHE_P50_NS {
        "fast enough to be a cache in front of the device (RAM, host or controller cache)"
    } else if p50_ns < READ_SSD_P50_NS {
        "solid-state class latency"
    } else if p50_ns < READ_NETWORK_P50_NS {
        "network or virtualised storage class latency"
    } else {
        "spinning-disk class latency"
    }
}
