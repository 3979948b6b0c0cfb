//! Result types of `dbio dbwr`, the database-writer model (issue 4).
//!
//! Names follow Oracle's statistics and wait events so that a DBA can put a
//! dbio result next to an AWR report: 'free buffer waits' (a foreground
//! found no reusable buffer), 'write complete waits' (a foreground wanted to
//! change a buffer that a writer had in flight), 'db file parallel write' (a
//! writer's batch), 'db file sequential read' (a foreground's single-block
//! read on a cache miss). `docs/dbwr.md` maps each to PostgreSQL and
//! MySQL/InnoDB.

use crate::{CpuUsage, DiskStatsDelta, EngineKind, LatencySummary, Log2Buckets};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The result of one `dbio dbwr` configuration (one row of a writer sweep).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DbwrResult {
    /// Name of the configuration (`writers=4`).
    pub name: String,
    /// The configuration as it ran.
    pub config: DbwrConfig,
    /// Block size, bytes (the model's buffers are 8 KiB).
    pub block_size: u32,
    /// The datafile as prepared (empty for the null engine).
    pub target: String,
    /// Measured wall time of the foreground load, ns (the shutdown
    /// checkpoint after it is not included).
    pub runtime_ns: u64,
    /// What the foreground threads did and waited for.
    pub foreground: ForegroundStats,
    /// All writers' I/O over the measured interval.
    pub writes: WriteStats,
    /// One entry per writer, in writer order.
    pub writers: Vec<WriterStats>,
    /// CPU of all writers together over the measured interval (Kevin
    /// Closson's "aggregate DBWR CPU").
    pub writers_cpu: CpuUsage,
    /// Checkpoints requested by `--checkpoint-interval` during the run.
    pub checkpoints: CheckpointStats,
    /// Buffers written by the shutdown checkpoint after the load stopped
    /// (it leaves the datafile consistent; not part of the rates).
    pub shutdown_writes: u64,
    /// Dirty buffers left after the shutdown checkpoint (0 unless the run
    /// was cut short by an error).
    pub dirty_after_shutdown: u64,
    /// The target disk's counters over the measured interval.
    pub device: Option<DiskStatsDelta>,
    /// Per-second series (see [`crate::series`]); empty in results
    /// written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_second: Vec<crate::series::Series>,
    /// With `--targets`: what each member of the stripe did (writers'
    /// writes and foregrounds' reads), its disk's counters over the whole
    /// run (shutdown checkpoint included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe: Option<crate::stripe::StripeResult>,
}

/// One `dbio dbwr` configuration (one writer count of a sweep): what the
/// user asked for and what the result records (`DbwrResult::config`), in
/// bytes and nanoseconds. `dbio_sim::dbwr` resolves it into a run (the
/// block count, the buffer cache, the writers' engines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DbwrConfig {
    /// Buffers in the cache (8 KiB each).
    pub buffers: u32,
    /// LRU lists the cache is split into; block `b` lives on list `b % lists`.
    pub lists: u32,
    /// Writer threads (each owns lists `w, w + K, w + 2K, ...`).
    pub writers: u32,
    /// Foreground threads.
    pub foregrounds: u32,
    /// Share of foreground touches that change the block, percent.
    pub dirty_pct: f64,
    /// Largest write batch, buffers.
    pub batch_max: u32,
    /// How deep foregrounds and writers look from the cold end of a list,
    /// percent of the list (Oracle's `_db_block_max_scan_pct` is 40).
    pub scan_depth_pct: u32,
    /// Datafile size, bytes (a multiple of the 8 KiB block).
    pub datafile_bytes: u64,
    /// Writers' I/O engine (foregrounds read with pread, or not at all for
    /// the null engine).
    pub engine: EngineKind,
    /// O_DIRECT.
    pub direct: bool,
    /// Injected service time of the null engine, ns.
    pub null_delay_ns: u64,
    /// Measured run time, ns (None: until `ops` touches are done).
    pub runtime_ns: Option<u64>,
    /// Touches in total, split across foregrounds (None: until
    /// `runtime_ns`); `--ops`, saved as `ops`.
    #[serde(rename = "ops")]
    pub ops_limit: Option<u64>,
    /// Foreground rate over all threads, operations per second (None: full
    /// speed); `--rate`, saved as `rate_ops`.
    #[serde(rename = "rate_ops")]
    pub rate_iops: Option<u64>,
    /// Checkpoint interval, ns (None: no checkpoints during the run).
    pub checkpoint_interval_ns: Option<u64>,
    /// Writer CPU placement.
    pub placement: Placement,
    /// Seed of the foregrounds' block choice.
    pub seed: u64,
}

impl Default for DbwrConfig {
    /// The command line's defaults (one writer).
    fn default() -> Self {
        Self {
            buffers: 8192,
            lists: 16,
            writers: 1,
            foregrounds: 4,
            dirty_pct: 25.0,
            batch_max: 64,
            scan_depth_pct: 40,
            datafile_bytes: 256 << 20,
            engine: EngineKind::IoUring,
            direct: false,
            null_delay_ns: 0,
            runtime_ns: Some(10_000_000_000),
            ops_limit: None,
            rate_iops: None,
            checkpoint_interval_ns: None,
            placement: Placement::Free,
            seed: crate::DEFAULT_SEED,
        }
    }
}

/// Where writer threads may run. Serialised as the user writes it:
/// `free`, `pin`, `pin:0,2`, `set:0-1`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(into = "String", try_from = "String")]
pub enum Placement {
    /// Wherever the scheduler puts them.
    #[default]
    Free,
    /// Writer `w` on CPU `cpus[w % cpus.len()]` only (the CPUs this process
    /// may use when the list is empty).
    Pin(Vec<usize>),
    /// Every writer confined to this set (`taskset -c`).
    Set(Vec<usize>),
}

/// CPUs a list may name: glibc's `CPU_SETSIZE`, the size of the affinity
/// mask sched_setaffinity(2) is given.
pub const MAX_CPU: usize = 1024;

impl Placement {
    /// Parses `free`, `pin`, `pin:0,2`, `set:0-1` or `set:0,2-3`.
    pub fn parse(s: &str) -> Result<Placement, String> {
        let s = s.trim();
        let (kind, list) = s.split_once(':').unwrap_or((s, ""));
        match kind {
            "free" if list.is_empty() => Ok(Placement::Free),
            "pin" => Ok(Placement::Pin(if list.is_empty() {
                Vec::new()
            } else {
                parse_cpu_list(list)?
            })),
            "set" if !list.is_empty() => Ok(Placement::Set(parse_cpu_list(list)?)),
            _ => Err(format!(
                "'{s}' is not a placement: use free, pin, pin:CPUS or set:CPUS (CPUS like 0,2-3)"
            )),
        }
    }
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Placement::Free => write!(f, "free"),
            Placement::Pin(l) if l.is_empty() => write!(f, "pin"),
            Placement::Pin(l) => write!(f, "pin:{}", format_cpu_list(l)),
            Placement::Set(l) => write!(f, "set:{}", format_cpu_list(l)),
        }
    }
}

impl From<Placement> for String {
    fn from(p: Placement) -> String {
        p.to_string()
    }
}

impl TryFrom<String> for Placement {
    type Error = String;
    fn try_from(s: String) -> Result<Placement, String> {
        Placement::parse(&s)
    }
}

/// Parses a taskset-style CPU list: `0,2-3`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let bad = || format!("'{part}' is not a CPU number or range (like 0,2-3)");
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                a.trim().parse::<usize>().map_err(|_| bad())?,
                b.trim().parse::<usize>().map_err(|_| bad())?,
            ),
            None => {
                let v = part.parse::<usize>().map_err(|_| bad())?;
                (v, v)
            }
        };
        if a > b || b >= MAX_CPU {
            return Err(bad());
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Formats CPUs as a compact list: `0-3,6`.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// A wait event's count and time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitStats {
    /// Waits.
    pub count: u64,
    /// Time waited in total, ns.
    pub total_ns: u64,
    /// Distribution of one wait's time.
    pub time: LatencySummary,
}

/// The foregrounds' work and waits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ForegroundStats {
    /// Buffer touches ('session logical reads').
    pub ops: u64,
    /// Touches per second.
    pub ops_per_sec: f64,
    /// Touches per minute (Kevin Closson's TPM column, at buffer
    /// granularity).
    pub ops_per_min: f64,
    /// Touches that found the block in the cache.
    pub hits: u64,
    /// Blocks read from the datafile ('physical reads'): one per miss.
    pub blocks_read: u64,
    /// Touches that changed the block ('db block changes').
    pub changes: u64,
    /// hits / ops.
    pub hit_ratio: f64,
    /// Single-block reads on a miss ('db file sequential read').
    pub read_time: LatencySummary,
    /// No reusable buffer within the scan depth: waited for a writer.
    pub free_buffer_waits: WaitStats,
    /// Wanted to change a buffer a writer had in flight.
    pub write_complete_waits: WaitStats,
    /// Wanted a block another foreground was reading ('read by other session').
    pub read_by_other_waits: WaitStats,
    /// Dirty buffers skipped while looking for a free one.
    pub dirty_buffers_inspected: u64,
    /// Buffers looked at while looking for a free one.
    pub free_buffers_inspected: u64,
    /// CPU of the foreground threads.
    pub cpu: CpuUsage,
}

/// The writers' I/O.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WriteStats {
    /// Buffers written ('physical writes'), checkpoints included.
    pub blocks_written: u64,
    /// Buffers written per second.
    pub write_iops: f64,
    /// Bytes written per second.
    pub bytes_per_sec: f64,
    /// Write batches ('db file parallel write' waits).
    pub batches: u64,
    /// Mean buffers per batch.
    pub batch_mean: f64,
    /// Largest batch.
    pub batch_max: u64,
    /// Batch sizes on power-of-two buckets: bucket 0 is unused, bucket
    /// `b >= 1` counts batches of `2^(b-1) <= size < 2^b` buffers.
    pub batch_sizes: Log2Buckets,
    /// Time of one batch from the first write issued to the last
    /// completion ('db file parallel write').
    pub parallel_write: LatencySummary,
    /// Buffers written because a checkpoint asked for them.
    pub checkpoint_writes: u64,
    /// Buffers the writers examined at the cold ends of their lists.
    pub buffers_scanned: u64,
}

/// One writer's share.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "DbwrWriterStats")]
pub struct WriterStats {
    /// Writer number (0-based; Oracle's DBW0, DBW1, ...).
    pub index: u32,
    /// The LRU lists it owns.
    pub lists: Vec<u32>,
    /// CPUs it was allowed to run on, read back from the kernel
    /// (sched_getaffinity of the running writer thread).
    pub cpus: String,
    /// Buffers written.
    pub blocks_written: u64,
    /// Batches written.
    pub batches: u64,
    /// Share of all buffers written, percent.
    pub share_pct: f64,
    /// Buffers examined.
    pub buffers_scanned: u64,
    /// Times it went to sleep with nothing to write.
    pub idle_sleeps: u64,
    /// Its CPU (per_io_ns: CPU per buffer written).
    pub cpu: CpuUsage,
}

/// Checkpoints during the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckpointStats {
    /// Checkpoints completed.
    pub count: u64,
    /// Buffers they wrote.
    pub blocks_written: u64,
    /// Time from the request until every writer had written its dirty buffers.
    pub duration: LatencySummary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_taskset_lists() {
        assert_eq!(parse_cpu_list("0,2-3").unwrap(), vec![0, 2, 3]);
        assert_eq!(format_cpu_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("1024").is_err());
        assert_eq!(Placement::parse("free").unwrap(), Placement::Free);
        assert_eq!(Placement::parse("pin").unwrap(), Placement::Pin(vec![]));
        assert_eq!(Placement::parse("set:0-1").unwrap().to_string(), "set:0-1");
        assert!(Placement::parse("set").is_err());
        assert!(Placement::parse("loose").is_err());
    }

    /// The echo writes the placement as `--placement` takes it, and a saved
    /// configuration reads back equal.
    #[test]
    fn the_config_serialises_in_the_options_own_words() {
        let c = DbwrConfig {
            placement: Placement::Pin(vec![0, 2, 3]),
            checkpoint_interval_ns: Some(50_000_000),
            engine: EngineKind::Psync,
            ..DbwrConfig::default()
        };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["placement"], "pin:0,2-3");
        assert_eq!(v["engine"], "psync");
        assert_eq!(v["checkpoint_interval_ns"], 50_000_000);
        assert_eq!(serde_json::from_value::<DbwrConfig>(v).unwrap(), c);
        let e = serde_json::from_str::<Placement>("\"loose\"").unwrap_err();
        assert!(e.to_string().contains("is not a placement"), "{e}");
    }
}
