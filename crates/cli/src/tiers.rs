//! Cache-tier thresholds (read, tracefile): a read or wait faster than
//! `--page-cache-max` is a page-cache hit, faster than
//! `--storage-cache-max` a storage-cache hit, slower a device read; or
//! both from a `dbio calibrate` file. One group, so the same value means
//! the same in both commands, and a unit is required: `100` was 100 s in
//! one command and 100 µs in the other.

use super::parse_threshold_arg;
use clap::Args;
use std::path::PathBuf;

/// The default page-cache threshold, ns (100 µs).
pub const DEFAULT_PAGE_CACHE_MAX_NS: u64 = 100_000;
/// The default storage-cache threshold, ns (1 ms).
pub const DEFAULT_STORAGE_CACHE_MAX_NS: u64 = 1_000_000;

/// `--page-cache-max`, `--storage-cache-max`, `--calibration`.
#[derive(Debug, Clone, Args)]
pub struct Tiers {
    /// Reads faster than this are page-cache hits (a unit is required,
    /// e.g. 100us).
    #[arg(long, value_name = "TIME", default_value = "100us", value_parser = parse_threshold_arg)]
    pub page_cache_max: u64,
    /// Reads faster than this (and not page-cache hits) are storage-cache
    /// hits; slower ones are device reads (a unit is required, e.g. 1ms).
    #[arg(long, value_name = "TIME", default_value = "1ms", value_parser = parse_threshold_arg)]
    pub storage_cache_max: u64,
    /// Tier thresholds from `dbio calibrate --save FILE` (JSON with
    /// whole-number fields page_cache_max_ns and storage_cache_max_ns).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["page_cache_max", "storage_cache_max"])]
    pub calibration: Option<PathBuf>,
}

impl Tiers {
    /// Where the thresholds in the options come from: `default` or
    /// `option`.
    pub fn source(&self) -> &'static str {
        if self.page_cache_max == DEFAULT_PAGE_CACHE_MAX_NS
            && self.storage_cache_max == DEFAULT_STORAGE_CACHE_MAX_NS
        {
            "default"
        } else {
            "option"
        }
    }
}
