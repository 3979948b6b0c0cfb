//! Result types of AWR and Statspack report analysis (`dbio awr`).
//!
//! The parser (crate `dbio-awr`) fills an [`AwrReport`] from one report
//! (text or HTML, whole or a pasted section); the derived figures and the
//! findings are computed from it, and `--compare` puts two side by side in
//! an [`AwrComparison`]; several reports make an [`AwrTrend`]. They are
//! variants of the one top-level
//! [`crate::Outcome`].
//!
//! Every number read from the report is kept as the report printed it
//! (`360,121` is 360121.0, `109.72us` is 109.72 µs, `363.3K` is 363300.0):
//! an `f64` because reports print fractions, K/M/G abbreviations and
//! percentages. Averages are normalised to microseconds, times to seconds.
//! Wait event histograms, whatever bucket set the report printed (12c+
//! µs sections, 10g/11g and Statspack ms columns), are also merged onto
//! the power-of-two µs buckets of [`Log2Buckets`], the layout `dbio
//! tracefile` and the benchmarks use.

use crate::latency::Log2Buckets;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of report the input was.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportKind {
    /// A whole AWR text report (`WORKLOAD REPOSITORY report for`).
    #[default]
    AwrText,
    /// An AWR HTML report.
    AwrHtml,
    /// A whole Statspack text report (`STATSPACK report for`).
    Statspack,
    /// Sections pasted from a report (an e-mail, a blog post), possibly
    /// with their whitespace collapsed into one line.
    Pasted,
    /// A PostgreSQL server's statistics over an interval (`dbio snap`).
    PostgresSnap,
    /// A MariaDB or MySQL server's statistics over an interval (`dbio
    /// snap`).
    MariadbSnap,
}

impl ReportKind {
    /// The kind as a reader would name it.
    pub fn describe(self) -> &'static str {
        match self {
            ReportKind::AwrText => "an AWR text report",
            ReportKind::AwrHtml => "an AWR HTML report",
            ReportKind::Statspack => "a Statspack report",
            ReportKind::Pasted => "a pasted report section",
            ReportKind::PostgresSnap => "a PostgreSQL snapshot interval (dbio snap)",
            ReportKind::MariadbSnap => "a MariaDB snapshot interval (dbio snap)",
        }
    }

    /// A live server's interval (`dbio snap`) rather than a report read
    /// from a file.
    pub fn is_snap(self) -> bool {
        matches!(self, ReportKind::PostgresSnap | ReportKind::MariadbSnap)
    }
}

/// The report's header: which database, where, when and for how long.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrHeader {
    /// DB name.
    pub db_name: Option<String>,
    /// Instance name (the first one of a RAC report).
    pub instance: Option<String>,
    /// Oracle release (`12.2.0.1.0`).
    pub version: Option<String>,
    /// Host name.
    pub host: Option<String>,
    /// Platform.
    pub platform: Option<String>,
    /// CPUs the report names.
    pub cpus: Option<f64>,
    /// Real Application Clusters (`RAC YES`), or instances counted in a
    /// RAC report.
    pub rac: bool,
    /// Instances the report covers (1 for a single instance).
    pub instances: u32,
    /// First snapshot id.
    pub begin_snap: Option<u64>,
    /// Last snapshot id.
    pub end_snap: Option<u64>,
    /// Elapsed time between the snapshots, s (`Elapsed: 60.25 (mins)`).
    pub elapsed_s: Option<f64>,
    /// DB time, s.
    pub db_time_s: Option<f64>,
    /// DB Id (the database's number, the same on every instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dbid: Option<String>,
    /// Begin snapshot time as printed (`04-Feb-23 19:00:39`), local time of
    /// the database host, no zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub begin_time: Option<String>,
    /// End snapshot time as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
}

/// One line of the Load Profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadProfileRow {
    /// The line's name without its colon (`Redo size (bytes)`).
    pub name: String,
    /// Per second.
    pub per_second: Option<f64>,
    /// Per transaction.
    pub per_transaction: Option<f64>,
}

/// One wait event row (Top events, Foreground/Background Wait Events).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitEventRow {
    /// Event name as printed (reports cut long names at the column width).
    pub name: String,
    /// Wait class, where the table has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Waits.
    pub waits: Option<f64>,
    /// Total wait time, s.
    pub time_s: Option<f64>,
    /// Average wait, µs (as printed, or time / waits when not printed).
    pub avg_us: Option<f64>,
    /// How far the true average can be from `avg_us`, µs (±): half a unit
    /// of the printed precision it came from (a whole-millisecond `2` is
    /// 2 ms ± 0.5 ms; time / waits is bounded by the precision of the
    /// printed time). Absent when finer than 1 % of the average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_error_us: Option<f64>,
    /// The share the table's percentage column prints: % of DB time in
    /// AWR's foreground and top lists, of background time in AWR's
    /// background list, of call time or elapsed time in Statspack's
    /// ([`AwrReport::event_pct_of`] says which, per list).
    pub pct_db_time: Option<f64>,
    /// An idle event (a wait for work: the client, a timer, a queue),
    /// never DB time: of the wait class `Idle`, or on dbio's list
    /// ([`crate::trace::IDLE_EVENTS`]). Statspack ranks its own stale list
    /// of idle events into its Top 5 ('LGWR worker group idle'): such rows
    /// are kept, marked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub idle: bool,
    /// The name as printed, when the report cut it at its column width
    /// and `name` is the full Oracle event name it was joined to
    /// ('log file switch (private s' is 'log file switch (private strand
    /// flush incomplete)').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_name: Option<String>,
}

/// What an event table's percentage column is a share of, as its heading
/// says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PctOf {
    /// `% DB time` (AWR's top and foreground lists).
    DbTime,
    /// `% bg time` (AWR's background list): of background processes'
    /// time, not of DB time.
    BgTime,
    /// `%Total Call Time` (Statspack and 10g): of call time, DB CPU and
    /// the non-idle waits Statspack counts, idle ones included where its
    /// list is stale.
    CallTime,
    /// `% Total Ela Time` (9i Statspack): of the elapsed time of waits and
    /// CPU.
    ElaTime,
}

impl PctOf {
    /// The column's label.
    pub fn label(self) -> &'static str {
        match self {
            PctOf::DbTime => "% DB time",
            PctOf::BgTime => "% bg time",
            PctOf::CallTime => "% call time",
            PctOf::ElaTime => "% ela time",
        }
    }
}

/// What the percentage column of each event list is a share of (absent
/// in results written before it was recorded, and for a list the report
/// does not print or prints without a share).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EventPctOf {
    /// Of [`AwrReport::top_events`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top: Option<PctOf>,
    /// Of [`AwrReport::foreground_events`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreground: Option<PctOf>,
    /// Of [`AwrReport::background_events`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PctOf>,
}

impl EventPctOf {
    /// Nothing recorded.
    pub fn is_empty(&self) -> bool {
        *self == EventPctOf::default()
    }
}

/// One Instance Activity statistic.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatRow {
    /// Statistic name as printed (cut at the column width by the report).
    pub name: String,
    /// Total over the interval.
    pub total: f64,
    /// Per second (per hour for the thread activity statistics).
    pub per_second: Option<f64>,
    /// Per transaction.
    pub per_transaction: Option<f64>,
}

/// One column of a printed wait event histogram.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistogramCell {
    /// Column heading (`<8us`, `<1ms`, `>=512`).
    pub label: String,
    /// Lower edge, µs.
    pub lo_us: u64,
    /// Upper edge, µs (absent for an open `>=` column).
    pub hi_us: Option<u64>,
    /// % of the event's waits, as printed (one decimal: within 0.05; a
    /// printed `.0` is under 0.05 %).
    pub pct: f64,
    /// The report printed nothing in the cell: no wait at all (the
    /// reports' note: "value of null is truly 0"), where `.0` is a share
    /// that rounds to zero.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blank: bool,
}

impl HistogramCell {
    /// Waits of the cell: its share of `total`, rounded.
    pub fn waits(&self, total: f64) -> f64 {
        let n = (self.pct / 100.0 * total).round();
        if n.is_finite() && n > 0.0 {
            n
        } else {
            0.0
        }
    }

    /// Whether the cell spans exactly one power-of-two µs bucket
    /// (`<16us`: 8..16 µs; `<1us`: 0..1 µs), or is open (`>=512`).
    pub fn one_log2_bucket(&self) -> bool {
        match self.hi_us {
            None => true,
            Some(h) => (self.lo_us == 0 && h == 1) || (self.lo_us > 0 && h == 2 * self.lo_us),
        }
    }
}

/// Where a histogram's total waits came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TotalWaitsFrom {
    /// The histogram's `Total Waits` as printed.
    #[default]
    Printed,
    /// The wait event tables' waits for the event (foreground plus
    /// background, or the combined table), which agree with the printed
    /// total within its rounding (`77.9K` is 77,874) or are the printed
    /// total with its lost `K` (11g text prints `123.4` for 123.4K in a
    /// five-character column).
    WaitEvents,
    /// The printed total is a fraction (`123.4`, `1234.`), which no count
    /// of waits is: its `K` was cut by the column, and no wait event
    /// table row confirms it; read as thousands.
    PrintedThousands,
}

/// One event's wait histogram, merged over every bucket set printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrHistogram {
    /// Event name (cut by the report at the column width).
    pub event: String,
    /// Total waits: as printed (K/M/G expanded: `363.3K` is 363300), or
    /// the wait event tables' count ([`AwrHistogram::total_waits_from`]).
    pub total_waits: f64,
    /// Where `total_waits` came from (absent: as printed).
    #[serde(default, skip_serializing_if = "is_printed")]
    pub total_waits_from: TotalWaitsFrom,
    /// The total as printed, when `total_waits` is not it (`123.4` read
    /// from an 11g text report whose `K` was cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_total_waits: Option<f64>,
    /// The event's name as printed, when cut and joined to its full name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_event: Option<String>,
    /// Every cell printed, in report order.
    pub cells: Vec<HistogramCell>,
    /// Waits on power-of-two µs buckets: each printed cell's share of
    /// `total_waits`, the finest cell kept where sections overlap. A cell
    /// below an edge (`<8us`, `<512`) counts in the bucket just below it;
    /// an open cell (`>=512`) in the bucket at its lower edge; Oracle's
    /// `ms` is 1024 µs, so its edges are powers of two.
    pub buckets: Log2Buckets,
}

fn is_printed(f: &TotalWaitsFrom) -> bool {
    *f == TotalWaitsFrom::Printed
}

impl AwrHistogram {
    /// The cells that describe the histogram best: the finest ones, none
    /// overlapping another (a cell below an edge spans from the previous
    /// edge; an open cell spans to infinity), in order of their edges.
    pub fn chosen_cells(&self) -> Vec<&HistogramCell> {
        chosen_cells(&self.cells)
    }

    /// Whether [`AwrHistogram::buckets`] draws the histogram as printed:
    /// every chosen cell with waits is one power-of-two bucket or open.
    /// A coarser cell (Statspack's and 11g's `<1ms`, 0 to 1 ms; `<=1s`,
    /// 32 ms to 1 s) sits in the bucket below its upper edge, which says
    /// more than the report does: draw the cells themselves instead.
    pub fn buckets_are_exact(&self) -> bool {
        self.chosen_cells()
            .iter()
            .all(|c| c.waits(self.total_waits) < 1.0 || c.one_log2_bucket())
    }
}

/// The cells that describe a histogram best (see
/// [`AwrHistogram::chosen_cells`]).
pub fn chosen_cells(cells: &[HistogramCell]) -> Vec<&HistogramCell> {
    let width = |c: &HistogramCell| c.hi_us.map_or(u64::MAX, |h| h.saturating_sub(c.lo_us));
    let mut order: Vec<&HistogramCell> = cells.iter().collect();
    // Narrowest first; of the open cells (`>=512`, `>=64u`), the one
    // with the highest edge says the most.
    order.sort_by_key(|c| {
        let lo = if c.hi_us.is_none() {
            u64::MAX - c.lo_us
        } else {
            c.lo_us
        };
        (width(c), lo)
    });
    let mut taken: Vec<(u64, u64)> = Vec::new();
    let mut out = Vec::new();
    for c in order {
        let (lo, hi) = (c.lo_us, c.hi_us.unwrap_or(u64::MAX));
        if hi <= lo || taken.iter().any(|&(a, z)| lo < z && a < hi) {
            continue;
        }
        taken.push((lo, hi));
        out.push(c);
    }
    out.sort_by_key(|c| c.lo_us);
    out
}

/// A table dbio keeps as printed (IOStat, file I/O, file read histogram,
/// init.ora parameters).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RawTable {
    /// Section title.
    pub section: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Cells of each row, as printed.
    pub rows: Vec<Vec<String>>,
}

/// A section found in the report and whether dbio read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SectionInfo {
    /// Title as printed.
    pub title: String,
    /// Read (`true`) or listed and skipped.
    pub parsed: bool,
}

/// Single-block read waits split into cache tiers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadTiers {
    /// The event (`db file sequential read`).
    pub event: String,
    /// Waits in cells wholly below the page-cache threshold.
    pub page_cache: f64,
    /// Waits in the other cells wholly below the storage-cache threshold.
    pub storage_cache: f64,
    /// Waits in cells wholly above the storage-cache threshold: the
    /// device.
    pub device: f64,
    /// Waits in cells that straddle the storage-cache threshold (the
    /// report's buckets are too coarse to tell, e.g. Statspack's `<1ms`).
    #[serde(default)]
    pub unresolved: f64,
    /// Page-cache threshold, ns.
    pub page_cache_max_ns: u64,
    /// Storage-cache threshold, ns.
    pub storage_cache_max_ns: u64,
    /// `default`, `option` or a calibration file.
    pub thresholds_from: String,
}

/// Figures dbio derives from the parsed numbers (each one is absent when
/// a number it needs is missing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrDerived {
    /// redo size / redo writes, bytes.
    pub redo_write_size_bytes: Option<f64>,
    /// redo write time / redo writes, µs ('redo write time (usec)' when
    /// printed, else 'redo write time' in centiseconds).
    pub redo_write_time_us: Option<f64>,
    /// user commits / redo writes.
    pub commits_per_redo_write: Option<f64>,
    /// redo synch writes / redo writes.
    pub synch_writes_per_redo_write: Option<f64>,
    /// Average 'log file sync', µs.
    pub log_file_sync_us: Option<f64>,
    /// Average 'log file parallel write', µs.
    pub log_file_parallel_write_us: Option<f64>,
    /// 'log file sync' / 'log file parallel write' (averages).
    pub lfs_lfpw_ratio: Option<f64>,
    /// 'log file sync' − 'log file parallel write' (averages), µs: posting
    /// and scheduling, not I/O.
    pub lfs_minus_lfpw_us: Option<f64>,
    /// ± bound of `log_file_sync_us` from the printed precision (the
    /// row's [`WaitEventRow::avg_error_us`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_file_sync_error_us: Option<f64>,
    /// ± bound of `log_file_parallel_write_us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_file_parallel_write_error_us: Option<f64>,
    /// ± bound of `lfs_minus_lfpw_us`: the sum of the two averages'
    /// bounds (absent when both are exact to 1 %).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lfs_minus_lfpw_error_us: Option<f64>,
    /// ± bound of `lfs_lfpw_ratio`: the farthest the ratio can be from it
    /// with each average anywhere within its bound (absent when both are
    /// exact to 1 %; when 'log file parallel write' can be 0 the ratio is
    /// unbounded and `lfs_lfpw_ratio` itself is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lfs_lfpw_ratio_error: Option<f64>,
    /// redo wastage / (redo size + redo wastage): padding share of what
    /// LGWR wrote.
    pub redo_wastage_share: Option<f64>,
    /// Transactions (user commits + user rollbacks).
    pub transactions: Option<f64>,
    /// physical reads (blocks) per transaction.
    pub physical_reads_per_txn: Option<f64>,
    /// physical reads (blocks) per second.
    pub physical_reads_per_s: Option<f64>,
    /// physical writes (blocks) per transaction.
    pub physical_writes_per_txn: Option<f64>,
    /// physical writes (blocks) per second.
    pub physical_writes_per_s: Option<f64>,
    /// Single-block read waits by cache tier.
    pub read_tiers: Option<ReadTiers>,
    /// physical writes from cache / 'db file parallel write' waits: blocks
    /// per DBWR write batch.
    pub dbwr_batch_blocks: Option<f64>,
    /// Log switches per hour.
    pub log_switches_per_hour: Option<f64>,
    /// Host CPU busy, % (100 − %Idle), when the report has it.
    pub host_cpu_busy_pct: Option<f64>,
}

/// Everything `dbio awr` read from one report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrReport {
    /// [`crate::SCHEMA_VERSION`].
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
    /// The input as given (`-` for standard input).
    pub source: String,
    /// What the input was.
    pub kind: ReportKind,
    /// Bytes read.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// The header.
    pub header: AwrHeader,
    /// The Load Profile.
    pub load_profile: Vec<LoadProfileRow>,
    /// Top timed events (Top 5 / Top 10), as printed.
    pub top_events: Vec<WaitEventRow>,
    /// Foreground wait events (Statspack: also the fg+bg table when no
    /// foreground one is printed).
    pub foreground_events: Vec<WaitEventRow>,
    /// Background wait events.
    pub background_events: Vec<WaitEventRow>,
    /// Instance Activity statistics (all pages, the thread activity
    /// statistics included).
    pub statistics: Vec<StatRow>,
    /// Wait event histograms.
    pub histograms: Vec<AwrHistogram>,
    /// Tables kept as printed: IOStat by function and file type, file I/O,
    /// file read histogram, init.ora parameters.
    pub tables: Vec<RawTable>,
    /// Every section found, read or skipped.
    pub sections: Vec<SectionInfo>,
    /// What dbio derived.
    pub derived: AwrDerived,
    /// Plain-words conclusions with their evidence
    /// (`dbio_report::findings::awr`).
    #[serde(default)]
    pub findings: Vec<crate::Finding>,
    /// The answer to "is it the storage?" for this report's DB time;
    /// absent in results written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
    /// The report writes the decimal separator as a comma (`1,234` is
    /// 1.234, `1.234` is 1234): judged from the numbers only one locale
    /// can print (`crate` `dbio-awr`'s `num::Locale`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub decimal_comma: bool,
    /// A 10046 trace's waits beside the report's foreground wait events
    /// (`dbio awr REPORT --with-trace TRACE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with_trace: Option<TraceBeside>,
    /// What only a live snapshot interval has (`dbio snap`): sampling,
    /// settings that leave statistics untracked, counter resets, a cut
    /// interval; absent for a report read from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snap: Option<crate::snap::SnapInfo>,
    /// What each event list's percentage column is a share of.
    #[serde(default, skip_serializing_if = "EventPctOf::is_empty")]
    pub event_pct_of: EventPctOf,
    /// The report is cut short: where it ends (a whole report ends with
    /// `End of Report`, an HTML one with `</html>`); what follows that
    /// point is missing, not zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
    /// What the reader corrected or could not take as printed, one
    /// sentence each (totals whose `K` the column cut, names joined to
    /// their full event name, a compressed input).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where an event of [`TraceBeside`] was seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeenIn {
    /// In the trace and in the report.
    #[default]
    Both,
    /// In the trace only: the report does not list it (or cut it from its
    /// top lists).
    TraceOnly,
    /// In the report only: the traced session did not wait on it.
    ReportOnly,
}

/// One event of a trace beside the same event in a report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceBesideRow {
    /// Event name (the trace's full name when both have it; reports cut
    /// long names at the column width).
    pub event: String,
    /// On dbio's idle-event list.
    pub idle: bool,
    /// Where it was seen.
    pub seen_in: SeenIn,
    /// Waits in the trace.
    pub trace_waits: Option<u64>,
    /// Σ ela in the trace, s.
    pub trace_time_s: Option<f64>,
    /// Mean ela in the trace, µs.
    pub trace_avg_us: Option<f64>,
    /// Waits in the report (whole instance, foreground).
    pub report_waits: Option<f64>,
    /// Wait time in the report, s.
    pub report_time_s: Option<f64>,
    /// Average wait in the report, µs.
    pub report_avg_us: Option<f64>,
}

/// A 10046 trace's wait profile beside a report's foreground wait
/// events. The trace covers the sessions it traced, the report the whole
/// instance over its interval: counts and times are not comparable, the
/// averages and the presence of an event are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceBeside {
    /// The trace as given.
    pub trace: String,
    /// Database sessions the trace holds.
    pub trace_sessions: u32,
    /// Wait lines read from the trace.
    pub trace_wait_lines: u64,
    /// Events, report order first (by time), then the trace's own.
    pub rows: Vec<TraceBesideRow>,
}

/// One report's interval in a trend (`dbio awr A B C ...`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrInterval {
    /// The input as given.
    pub source: String,
    /// What the input was.
    pub kind: ReportKind,
    /// The report's header (database, snapshots, times, DB time).
    pub header: AwrHeader,
    /// Average active sessions: DB time / elapsed.
    pub average_active_sessions: Option<f64>,
    /// The trend's events ([`AwrTrend::events`]) in this interval, by
    /// name; an event the report does not list is absent.
    pub events: Vec<WaitEventRow>,
    /// Average 'log file sync', µs.
    pub log_file_sync_us: Option<f64>,
    /// Average 'log file parallel write', µs.
    pub log_file_parallel_write_us: Option<f64>,
    /// 'log file sync' / 'log file parallel write' (averages).
    pub lfs_lfpw_ratio: Option<f64>,
    /// The Load Profile as printed (per second and per transaction).
    pub load_profile: Vec<LoadProfileRow>,
    /// Findings of this report (their titles and severities; the whole
    /// finding is in the single report's result).
    pub findings: Vec<crate::Finding>,
    /// This report's own verdict (its `top` points into `findings`);
    /// absent in trends written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
    /// DB CPU, s (the top events' `DB CPU`, Statspack's `CPU time`);
    /// absent in trends written before the outlier rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_cpu_s: Option<f64>,
    /// User commits per second ('user commits' over the elapsed time;
    /// the load profile's transactions per second when the report prints
    /// no 'user commits').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits_per_s: Option<f64>,
    /// The foreground 'log file sync' row (its average and the bound of
    /// its printed precision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_file_sync: Option<WaitEventRow>,
    /// The single-block read row: 'db file sequential read', or on
    /// Exadata 'cell single block physical read' when it has more waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single_block_read: Option<WaitEventRow>,
}

/// Several reports as a trend (`dbio awr FILE...`), ordered by begin
/// snapshot time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrTrend {
    /// [`crate::SCHEMA_VERSION`].
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
    /// The reports came from different databases or instances and
    /// `--allow-mixed` was given.
    pub mixed: bool,
    /// Top foreground wait events over all intervals (by summed time, DB
    /// CPU left out), the rows of [`AwrInterval::events`].
    pub events: Vec<String>,
    /// One per report, by begin time.
    pub intervals: Vec<AwrInterval>,
    /// What the reader should know (gaps, overlaps, missing times).
    pub notes: Vec<String>,
    /// What the trend says: the busiest interval and what its DB time is
    /// made of, the wait events whose average moved, ranked; absent in
    /// trends written before verdicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::Finding>,
    /// The answer: which interval is the worst and what dominates it;
    /// absent in trends written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
}

impl AwrReport {
    /// A statistic by name (exact, else the report's name cut at its column
    /// width is a prefix of `name`).
    pub fn stat(&self, name: &str) -> Option<f64> {
        self.statistics
            .iter()
            .find(|s| s.name == name)
            .or_else(|| {
                self.statistics
                    .iter()
                    .find(|s| s.name.len() >= 24 && name.starts_with(&s.name))
            })
            .map(|s| s.total)
    }

    /// A wait event by name: background first for LGWR/DBWR events,
    /// foreground first otherwise, then the top events (names cut by the
    /// report match as prefixes).
    pub fn event(&self, name: &str) -> Option<&WaitEventRow> {
        let find = |rows: &'_ [WaitEventRow]| -> Option<usize> {
            rows.iter().position(|e| e.name == name).or_else(|| {
                rows.iter()
                    .position(|e| e.name.len() >= 20 && name.starts_with(&e.name))
            })
        };
        let bg_first = name.contains("parallel write") || name.starts_with("log file switch");
        let lists: [&[WaitEventRow]; 3] = if bg_first {
            [
                &self.background_events,
                &self.foreground_events,
                &self.top_events,
            ]
        } else {
            [
                &self.foreground_events,
                &self.background_events,
                &self.top_events,
            ]
        };
        lists.into_iter().find_map(|l| find(l).map(|i| &l[i]))
    }

    /// A histogram by event name (prefix match for cut names).
    pub fn histogram(&self, name: &str) -> Option<&AwrHistogram> {
        self.histograms
            .iter()
            .find(|h| h.event == name)
            .or_else(|| {
                self.histograms
                    .iter()
                    .find(|h| h.event.len() >= 20 && name.starts_with(&h.event))
            })
    }
}

/// Two reports side by side (`dbio awr --compare A B`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AwrComparison {
    /// [`crate::SCHEMA_VERSION`].
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
    /// The first report.
    pub a: AwrReport,
    /// The second report.
    pub b: AwrReport,
    /// What changed between the two: each part of DB time (DB CPU, a
    /// wait class) that explains a tenth or more of the difference, with
    /// its share of it, ranked; absent in comparisons written before
    /// verdicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::Finding>,
    /// The answer: what changed between A and B and whether the storage
    /// explains it; absent in comparisons written before verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::Verdict>,
}
