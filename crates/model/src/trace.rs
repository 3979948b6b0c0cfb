//! Result types of Oracle extended SQL trace analysis (`dbio tracefile`).
//!
//! The trace parser (crate `dbio-oracle`) fills a [`TraceReport`]; the
//! terminal tables, `--json` and `--csv` all render from it, and
//! `--compare` puts two of them side by side in a [`TraceComparison`]; both
//! are variants of the one top-level [`crate::Outcome`]. Times
//! are kept in whole microseconds, the unit of the trace itself (centisecond
//! traces from 8i and earlier are converted on input), and signed: Oracle's
//! CPU quantisation makes unaccounted-for time negative, and dbio reports it
//! as it is rather than clamping it.

use crate::latency::Log2Buckets;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Everything `dbio tracefile` learned from one group of trace files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceReport {
    /// [`crate::SCHEMA_VERSION`] (trace reports written before one version
    /// covered every result carry 1, their own).
    pub schema_version: u32,
    /// The command line that produced it (argv joined with shell quoting,
    /// passwords in URLs redacted); absent in results written before it
    /// was recorded and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<String>,
    /// The build of dbio that wrote it (revision, target, features);
    /// absent in results written before it was recorded, in re-rendered
    /// results that lacked it, and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::build::BuildInfo>,
    /// Name of the group (the input as typed, or `A`/`B` in a comparison).
    pub label: String,
    /// Settings the analysis ran with (thresholds, idle list, ...).
    pub settings: TraceSettings,
    /// One entry per input file, in the order given.
    pub files: Vec<TraceFileInfo>,
    /// The response-time profile over all database sessions of all files.
    pub profile: ResponseProfile,
    /// Every wait event, sorted by total time (largest first).
    pub events: Vec<EventStats>,
    /// Latency histogram of each I/O event (power-of-two µs buckets).
    pub io_histograms: Vec<IoHistogram>,
    /// Latency histograms of multiblock events by I/O size in blocks.
    pub size_histograms: Vec<SizeHistogram>,
    /// Where each I/O event's waits were most likely served from.
    pub tiers: Vec<TierRow>,
    /// Per statement (sql_id, else hash value, else cursor), by elapsed time.
    pub statements: Vec<StatementStats>,
    /// Per object (`obj#` of the waits), by wait time.
    pub objects: Vec<ObjectStats>,
    /// Per data file (`file#` of block-addressed waits), by wait time.
    pub hot_files: Vec<FileHotSpot>,
    /// The most waited-for blocks, by wait count then time.
    pub hot_blocks: Vec<BlockHotSpot>,
    /// False when more distinct blocks were seen than dbio tracks (the
    /// per-block table is capped to keep memory bounded).
    pub hot_blocks_complete: bool,
    /// The slowest individual waits, slowest first.
    pub slowest_waits: Vec<SlowWait>,
    /// One profile per database session.
    pub sessions: Vec<SessionProfile>,
    /// Wait latency over wall-clock time.
    pub timeline: Timeline,
    /// Plain-words conclusions with their evidence
    /// (`dbio_report::findings::trace`).
    #[serde(default)]
    pub findings: Vec<crate::Finding>,
    /// The answer to "is it the storage?" for this trace's response time;
    /// absent in results written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
}

/// The knobs an analysis ran with, echoed so a JSON result explains itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceSettings {
    /// Waits shorter than this (ns) are attributed to the OS page cache.
    pub page_cache_max_ns: u64,
    /// Waits shorter than this (ns) and not page cache: storage cache.
    pub storage_cache_max_ns: u64,
    /// Where the two thresholds came from (`default`, `option` or a file).
    pub thresholds_from: String,
    /// Bucket width of the timeline, seconds.
    pub interval_s: u64,
    /// How many rows the top-N tables keep.
    pub top: usize,
    /// Block size used to turn blocks into bytes (`--bs`; saved as
    /// `block_size`).
    #[serde(rename = "block_size")]
    pub bs: u64,
    /// Events treated as idle when they occur between database calls.
    pub idle_events: Vec<String>,
}

/// Time unit of `c`, `e`, `ela` and `tim` in a trace file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceUnits {
    /// Microseconds (9i and later).
    #[default]
    Microseconds,
    /// Centiseconds (8i and earlier).
    Centiseconds,
}

/// What dbio read from one trace file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceFileInfo {
    /// Path as given (`-` for standard input).
    pub path: String,
    /// Bytes read (after decompression).
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Oracle release from the banner or `Version` line, when present.
    pub release: Option<String>,
    /// Time unit the file was read with.
    pub units: TraceUnits,
    /// Why that unit: `banner`, `option` or `default`.
    pub units_from: String,
    /// What `tim` counts: `epoch` (Unix µs), `relative` (boot or other) or
    /// `unknown` (no `***` timestamp to compare with).
    pub tim_kind: String,
    /// Number of database sessions found in the file.
    pub sessions: u32,
    /// WAIT lines read.
    pub wait_lines: u64,
    /// Database call lines read (PARSE, EXEC, FETCH, CLOSE, LOB, ...).
    pub call_lines: u64,
    /// Lines that are not part of the 10046 format (dumps, other events'
    /// output) and were skipped.
    pub skipped_lines: u64,
    /// Line numbers of the first skipped lines (at most 20).
    pub skipped_line_numbers: Vec<u64>,
    /// Lines longer than dbio's line limit (1 MiB), cut there.
    pub truncated_lines: u64,
    /// Paths named by `*** TRACE CONTINUED FROM FILE` lines (the first
    /// 100 distinct).
    pub continued_from: Vec<String>,
    /// `*** TRACE CONTINUED FROM FILE` lines read.
    #[serde(default)]
    pub continued_markers: u64,
    /// Absurd values read (negative times, times beyond dbio's limit,
    /// `tim` beyond 64 bits), one entry per kind that occurred.
    #[serde(default)]
    pub anomalies: Vec<TraceAnomaly>,
}

/// Values of one absurd kind in a trace file: counted, never silent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceAnomaly {
    /// What was wrong, in words (`negative ela, e or c`, ...).
    pub kind: String,
    /// How many values.
    pub count: u64,
    /// Line number of the first.
    pub first_line: u64,
}

/// Kind of a line of the response-time profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProfileKind {
    /// CPU of the top-level calls.
    Cpu,
    /// A wait event (inside calls, or between calls and not idle).
    Wait,
    /// An idle event between calls (think time, client round trips).
    Idle,
    /// Elapsed time no CPU or wait explains (may be negative).
    Unaccounted,
}

/// One line of the response-time profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileLine {
    /// `CPU`, the event name, or `unaccounted-for`.
    pub name: String,
    /// What the line is.
    pub kind: ProfileKind,
    /// Calls (CPU) or waits counted.
    pub count: u64,
    /// Time, µs.
    pub total_us: i64,
    /// Share of the response time, 0..1 (can be negative for unaccounted).
    pub share: f64,
}

/// The Millsap/Holt response-time profile of a set of database sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResponseProfile {
    /// Response time R: top-level call elapsed plus waits between calls, µs.
    pub response_time_us: i64,
    /// R without idle waits between calls, µs.
    pub busy_time_us: i64,
    /// Depth whose calls were taken as top level (0 unless a session has
    /// no dep-0 call at all; then the smallest depth present).
    pub top_depth: u32,
    /// Number of top-level calls.
    pub top_calls: u64,
    /// Σ `e` of the top-level calls, µs (recursive calls counted once,
    /// through their parent).
    pub calls_elapsed_us: i64,
    /// Σ `c` of the top-level calls, µs.
    pub cpu_us: i64,
    /// Waits inside some database call, µs.
    pub waits_in_calls_us: i64,
    /// Non-idle waits between calls, µs.
    pub waits_between_calls_us: i64,
    /// Idle waits between calls, µs.
    pub idle_between_calls_us: i64,
    /// Top-level elapsed − CPU − waits inside calls, µs (can be negative).
    pub unaccounted_us: i64,
    /// Wall-clock span of the sessions from the trace's own clock (`tim`
    /// anchored on the `***` timestamps), summed over sessions, µs.
    pub clock_span_us: i64,
    /// R measured by the trace's own clock: from the first call or wait
    /// start (`tim − e`, `tim − ela`) to the last `tim`, summed over
    /// sessions, µs. The profile's lines use `response_time_us`.
    #[serde(default)]
    pub clock_response_time_us: i64,
    /// `clock_response_time_us` − CPU − every wait (inside and between
    /// calls), µs (can be negative).
    #[serde(default)]
    pub clock_unaccounted_us: i64,
    /// Commits (`XCTEND rlbk=0`).
    pub commits: u64,
    /// Rollbacks (`XCTEND rlbk=1`).
    pub rollbacks: u64,
    /// `ERROR` lines.
    pub errors: u64,
    /// Profile lines sorted by time (CPU, events, unaccounted-for).
    pub lines: Vec<ProfileLine>,
    /// Remarks on how the profile was computed (e.g. no dep-0 calls).
    pub notes: Vec<String>,
}

/// Statistics of one wait event.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventStats {
    /// Event name as in `nam='...'`.
    pub name: String,
    /// On dbio's idle-event list.
    pub idle: bool,
    /// An I/O event (gets a latency histogram and a tier split).
    pub io: bool,
    /// Number of waits.
    pub count: u64,
    /// Σ ela, µs.
    pub total_us: i64,
    /// Mean ela, µs.
    pub mean_us: f64,
    /// Smallest ela, µs.
    pub min_us: i64,
    /// Largest ela, µs.
    pub max_us: i64,
    /// Median, µs (HDR histogram of 2 significant digits, within 1 %).
    pub p50_us: u64,
    /// 90th percentile, µs.
    pub p90_us: u64,
    /// 99th percentile, µs.
    pub p99_us: u64,
    /// 99.9th percentile, µs.
    pub p999_us: u64,
    /// Waits with `ela= 0`.
    pub zero_count: u64,
    /// Part of the total that lies inside database calls, µs.
    pub in_calls_us: i64,
    /// Part of the total that lies between database calls, µs.
    pub between_calls_us: i64,
}

/// Latency histogram of one I/O event.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IoHistogram {
    /// Event name.
    pub event: String,
    /// Counts on power-of-two µs buckets (bucket 0 = `ela= 0`).
    pub buckets: Log2Buckets,
    /// Σ ela, µs.
    pub total_us: i64,
}

/// Latency histogram of one multiblock event at one I/O size.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SizeHistogram {
    /// Event name.
    pub event: String,
    /// I/O size in blocks (`blocks=`, `block cnt=` or p3).
    pub blocks: i64,
    /// Counts on power-of-two µs buckets (bucket 0 = `ela= 0`).
    pub buckets: Log2Buckets,
    /// Σ ela, µs.
    pub total_us: i64,
}

/// Waits of one event served by one tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TierCell {
    /// Waits.
    pub count: u64,
    /// Σ ela, µs.
    pub total_us: i64,
}

/// Tier attribution of one I/O event by latency thresholds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TierRow {
    /// Event name.
    pub event: String,
    /// Faster than `page_cache_max_ns`: OS page cache.
    pub page_cache: TierCell,
    /// Faster than `storage_cache_max_ns`: storage (array, SAN) cache.
    pub storage_cache: TierCell,
    /// The rest: the device itself.
    pub device: TierCell,
}

/// Waits of one event within a statement or object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitAgg {
    /// Event name.
    pub event: String,
    /// Waits.
    pub count: u64,
    /// Σ ela, µs.
    pub total_us: i64,
    /// Largest ela, µs.
    pub max_us: i64,
}

/// One statement, aggregated over cursors, sessions and files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatementStats {
    /// `sql_id`, else `hv=<hash value>`, else `cursor #<n>` (text unknown).
    pub key: String,
    /// SQL_ID (11g and later).
    pub sql_id: Option<String>,
    /// Hash value (`hv=`).
    pub hash_value: Option<u64>,
    /// Last plan hash value seen (`plh=`, 11.2 and later; 0 for PL/SQL).
    pub plan_hash: Option<u64>,
    /// Recursive depth of the statement.
    pub depth: u32,
    /// Start of the SQL text (at most 300 characters); empty when unknown.
    pub text: String,
    /// PARSE calls.
    pub parses: u64,
    /// EXEC calls.
    pub execs: u64,
    /// FETCH calls.
    pub fetches: u64,
    /// Other calls (CLOSE, UNMAP, ...).
    pub other_calls: u64,
    /// Hard parses (`mis=1`).
    pub misses: u64,
    /// Σ `e` of its calls, µs (includes its recursive statements).
    pub elapsed_us: i64,
    /// Σ `c` of its calls, µs.
    pub cpu_us: i64,
    /// Σ `r` of its calls (rows processed).
    pub rows: u64,
    /// Σ `p` (blocks read physically).
    pub physical_reads: u64,
    /// Σ `cr` + `cu` (buffer gets).
    pub buffer_gets: u64,
    /// `ERROR` lines on its cursor.
    pub errors: u64,
    /// Σ ela of the waits on its cursor, µs.
    pub wait_us: i64,
    /// Waits on its cursor by event, largest first.
    pub waits: Vec<WaitAgg>,
}

/// Waits on one object (`obj#`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ObjectStats {
    /// Object id (`obj#`).
    pub obj: i64,
    /// Waits.
    pub count: u64,
    /// Σ ela, µs.
    pub total_us: i64,
    /// By event, largest first.
    pub waits: Vec<WaitAgg>,
}

/// Block-addressed waits on one data file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileHotSpot {
    /// Absolute file number (`file#`, `file number`).
    pub file: i64,
    /// Waits.
    pub count: u64,
    /// Σ ela, µs.
    pub total_us: i64,
    /// Blocks read or written by those waits.
    pub blocks: u64,
}

/// Waits on one block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BlockHotSpot {
    /// File number.
    pub file: i64,
    /// Block number.
    pub block: i64,
    /// Waits.
    pub count: u64,
    /// Σ ela, µs.
    pub total_us: i64,
}

/// One individual wait, for the skew (slowest waits) table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SlowWait {
    /// Event name.
    pub event: String,
    /// ela, µs.
    pub ela_us: i64,
    /// Trace file.
    pub path: String,
    /// Line number in that file (1-based).
    pub line: u64,
    /// Database session.
    pub session: String,
    /// Cursor number (`#0` = none).
    pub cursor: u64,
    /// Statement key of that cursor, when known.
    pub statement: Option<String>,
    /// `obj#`, when given and not -1.
    pub obj: Option<i64>,
    /// First parameter (p1) value.
    pub p1: Option<i64>,
    /// Second parameter (p2) value.
    pub p2: Option<i64>,
    /// Third parameter (p3) value.
    pub p3: Option<i64>,
}

/// The profile of one database session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionProfile {
    /// Trace file.
    pub path: String,
    /// Session identity: `sid.serial` from `*** SESSION ID`, `pid N` from
    /// trcsess markers, or `main` when the file names none.
    pub id: String,
    /// First `***` timestamp of the session, as written.
    pub start: Option<String>,
    /// Wall-clock span from the anchored `tim`, µs.
    pub clock_span_us: i64,
    /// Response time, µs.
    pub response_time_us: i64,
    /// Top-level CPU, µs.
    pub cpu_us: i64,
    /// All waits, µs.
    pub wait_us: i64,
    /// Idle waits between calls, µs.
    pub idle_us: i64,
    /// Unaccounted-for time, µs.
    pub unaccounted_us: i64,
    /// Depth taken as top level.
    pub top_depth: u32,
    /// Database calls at any depth.
    pub calls: u64,
    /// Waits.
    pub waits: u64,
    /// Commits.
    pub commits: u64,
}

/// One interval of the timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TimelinePoint {
    /// Start of the interval, local wall time of the trace
    /// (`YYYY-MM-DD HH:MM:SS`), or `+<seconds>` when the trace has no
    /// `***` timestamp.
    pub start: String,
    /// Waits ending in the interval.
    pub waits: u64,
    /// Σ ela of those waits, µs.
    pub wait_us: i64,
    /// I/O waits ending in the interval.
    pub io_waits: u64,
    /// Σ ela of those I/O waits, µs.
    pub io_us: i64,
    /// Largest I/O wait, µs.
    pub io_max_us: i64,
}

/// Wait latency over time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Timeline {
    /// Interval width, seconds.
    pub interval_s: u64,
    /// True when the times are wall-clock (anchored on `***` lines).
    pub wall_clock: bool,
    /// Intervals in time order (empty intervals left out).
    pub points: Vec<TimelinePoint>,
}

/// Two trace groups side by side (`dbio tracefile --compare A B`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceComparison {
    /// [`crate::SCHEMA_VERSION`] (trace reports written before one version
    /// covered every result carry 1, their own).
    pub schema_version: u32,
    /// The command line that produced it (argv joined with shell quoting,
    /// passwords in URLs redacted); absent in results written before it
    /// was recorded and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<String>,
    /// The build of dbio that wrote it (revision, target, features);
    /// absent in results written before it was recorded, in re-rendered
    /// results that lacked it, and in results built by a library caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::build::BuildInfo>,
    /// The first group.
    pub a: TraceReport,
    /// The second group.
    pub b: TraceReport,
    /// What changed between the two: each component of the response time
    /// that explains a tenth or more of the difference, with its share of
    /// it, ranked; absent in comparisons written before verdicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::Finding>,
    /// The answer: what changed between A and B and whether the storage
    /// explains it; absent in comparisons written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
}

/// Events idle when they occur between database calls in a trace:
/// Oracle's idle events ([`crate::wait_class::IDLE_EVENTS`], the one
/// list reports use too), and two Network events that between calls are
/// the client's time, not the database's: the client sending the next
/// call's data in pieces ('SQL*Net more data from client', 'SQL*Net
/// vector data from client'). Documented in `docs/tracefile.md`.
pub const IDLE_EVENTS: &[&str] = &BETWEEN_CALLS;

/// The Network events a trace takes as idle between calls.
const IDLE_NETWORK: [&str; 2] = [
    "SQL*Net more data from client",
    "SQL*Net vector data from client",
];

const BETWEEN_CALLS: [&str; crate::wait_class::IDLE_COUNT + 2] =
    joined(crate::wait_class::IDLE, IDLE_NETWORK);

/// `a` then `b`, as one array (at compile time).
const fn joined<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N);
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}
