//! Result types of `dbio calibrate`: the measured latency of each cache tier
//! on one machine and the tier boundaries derived from them.
//!
//! The file `dbio calibrate --save` writes is this struct as JSON. Its two
//! top-level integers `page_cache_max_ns` and `storage_cache_max_ns` are the
//! contract that `dbio read --calibration` and `dbio tracefile --calibration`
//! read; everything else explains where they came from.

use crate::read::TierThresholds;
use crate::LatencySummary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Equal-weight misclassification (the two shares of a [`Boundary`]
/// added) from which two tiers are not separable by latency: a quarter of
/// each side misattributed on average. Calibration then merges the
/// storage-cache tier into the device tier, and says the tiers overlap.
pub const INSEPARABLE_ERROR: f64 = 0.5;

/// The one configuration of `dbio calibrate`: what it builds from its
/// options and what the result records, in bytes and ns. (`dbio check`'s
/// read section also provokes storage-cache hits with one.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CalibrateConfig {
    /// Bytes per read (`--bs`; saved as `block_size`).
    #[serde(rename = "block_size")]
    pub bs: u64,
    /// Bytes of the file read (a whole number of blocks): the first part
    /// (a quarter, 64 MiB at most) for page-cache hits, the rest for
    /// storage-cache re-reads and device first reads.
    pub size: u64,
    /// Reads per tier at most.
    pub samples: u64,
    /// Time per tier at most, ns.
    pub tier_time_ns: u64,
    /// Seed of the block order.
    pub seed: u64,
}

impl Default for CalibrateConfig {
    /// 8 KiB reads over 1 GiB, 2000 reads or 2 s per tier.
    fn default() -> Self {
        Self {
            bs: 8192,
            size: 1 << 30,
            samples: 2000,
            tier_time_ns: 2_000_000_000,
            seed: crate::DEFAULT_SEED,
        }
    }
}

/// One measured tier: how it was provoked and what its reads took.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TierMeasurement {
    /// How the reads were made (one sentence).
    pub method: String,
    /// Latency of the reads.
    pub lat: LatencySummary,
}

/// A boundary between two measured tiers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Boundary {
    /// The threshold, ns (a latency equal to it goes to the slower tier).
    pub ns: u64,
    /// Share of the faster tier's reads at or above the threshold (they
    /// would be attributed to the slower tier), 0..=1.
    pub faster_misclassified: f64,
    /// Share of the slower tier's reads below the threshold, 0..=1.
    pub slower_misclassified: f64,
}

impl Boundary {
    /// True when the two tiers overlap so much that latency alone cannot
    /// tell them apart: [`INSEPARABLE_ERROR`] or more misclassified.
    pub fn inseparable(&self) -> bool {
        self.faster_misclassified + self.slower_misclassified >= INSEPARABLE_ERROR
    }
}

/// The result of `dbio calibrate`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Calibration {
    /// Name of the configuration.
    #[serde(default)]
    pub name: String,
    /// Page-cache hits are faster than this, ns (required in a saved file).
    pub page_cache_max_ns: u64,
    /// Storage-cache hits are faster than this, ns; `u64::MAX` when there is
    /// no device tier (required in a saved file).
    pub storage_cache_max_ns: u64,
    /// Buffered reads of resident blocks.
    #[serde(default)]
    pub page_cache: Option<TierMeasurement>,
    /// O_DIRECT re-reads of a block just read.
    #[serde(default)]
    pub storage_cache: Option<TierMeasurement>,
    /// O_DIRECT first reads of blocks dropped from the page cache.
    #[serde(default)]
    pub device: Option<TierMeasurement>,
    /// Page cache vs storage cache.
    #[serde(default)]
    pub page_storage_boundary: Option<Boundary>,
    /// Storage cache vs device.
    #[serde(default)]
    pub storage_device_boundary: Option<Boundary>,
    /// Why there is no device tier, when there is none.
    #[serde(default)]
    pub no_device_tier: Option<String>,
    /// The file that was read.
    #[serde(default)]
    pub target: String,
    /// Its filesystem type.
    #[serde(default)]
    pub fs_type: String,
    /// Block device under it (kernel name), when there is one.
    #[serde(default)]
    pub block_device: Option<String>,
    /// Bytes per read: `config.block_size`, kept at the top level because
    /// results and saved files written before schema version 3 recorded
    /// it and nothing else of the configuration.
    #[serde(default)]
    pub block_size: u64,
    /// What was asked (absent in results and files written before schema
    /// version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<CalibrateConfig>,
    /// Bytes of the region the device reads were spread over.
    #[serde(default)]
    pub region_bytes: u64,
    /// Seconds since the Unix epoch when measured.
    #[serde(default)]
    pub measured_at_unix: u64,
    /// Plain-words remarks on how the thresholds were set (a tier that
    /// could not be provoked, a tier merged into another, ...).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Where `dbio calibrate --save` wrote this calibration, as the user
    /// named it (absent when it was not saved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved_to: Option<String>,
}

impl Calibration {
    /// The thresholds to classify reads with; `source` names the file.
    pub fn thresholds(&self, source: &str) -> TierThresholds {
        TierThresholds {
            page_cache_max_ns: self.page_cache_max_ns,
            storage_cache_max_ns: self.storage_cache_max_ns,
            source: source.to_string(),
        }
    }
}
