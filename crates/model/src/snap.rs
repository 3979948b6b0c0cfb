//! What only a live snapshot interval has (`dbio snap`), beside the AWR
//! result model it is written in.
//!
//! `dbio snap URL` reads a running PostgreSQL or MariaDB server's
//! cumulative statistics twice and writes the difference as an
//! [`crate::awr::AwrReport`] (kinds [`crate::awr::ReportKind::PostgresSnap`]
//! and [`crate::awr::ReportKind::MariadbSnap`]), so that everything built
//! for AWR reports (the verdict, `dbio compare`, the trend, `report
//! --from`, HTML and CSV) reads a snapshot too. What an AWR report has no
//! place for is here, in [`SnapInfo`]: how DB time was sampled and what
//! the sampling cost the server, which statistics the server does not
//! keep with its present settings (and the setting that would make it
//! keep them), counters that went backwards inside the interval (a
//! statistics reset or a restart), and whether the interval was cut short.
//!
//! The layers of a commit (`dbio snap --watch`) are [`CommitLayers`]: the
//! database's own commit and flush times, the system calls the kernel saw
//! on the log files during the same interval, and the queue and device
//! time of the block requests that carried those files' extents, joined
//! per log file; a snapshot written without them reads unchanged.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which server a snapshot was taken of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SnapFamily {
    /// PostgreSQL.
    #[default]
    Postgres,
    /// MariaDB (or MySQL).
    Mariadb,
}

impl SnapFamily {
    /// The server's name as a DBA writes it.
    pub fn name(self) -> &'static str {
        match self {
            SnapFamily::Postgres => "PostgreSQL",
            SnapFamily::Mariadb => "MariaDB",
        }
    }
}

/// Where the active-session samples came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SampleSource {
    /// dbio's own sampler read `pg_stat_activity` at a fixed period (as
    /// Oracle's ASH reads `v$session` once a second).
    #[default]
    PgStatActivity,
    /// The `pg_wait_sampling` extension's profile (its own collector,
    /// 10 ms by default), read at both ends of the interval.
    PgWaitSampling,
    /// No sampling: DB time is the statements' own timer
    /// (MariaDB's `events_statements_summary_global_by_event_name`).
    StatementTimers,
}

/// What the active-session sampler cost, measured while it ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SamplerCost {
    /// Samples taken.
    pub samples: u64,
    /// The period asked for, s.
    pub period_s: f64,
    /// Mean time of one sample query as the client saw it (round trip
    /// included), µs.
    pub mean_query_us: f64,
    /// The slowest sample query, µs.
    pub max_query_us: f64,
    /// Samples that came later than one period after the previous one
    /// (the sampler fell behind: the server or this host was busy).
    pub late: u64,
    /// CPU time the server's process serving the sampler used over the
    /// interval (utime + stime of its backend or thread in /proc), s;
    /// absent when the server does not run on this host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu_s: Option<f64>,
}

/// A statistic the server does not keep with its present settings: what
/// is missing, and the setting that would make the server keep it (dbio
/// never changes it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotTracked {
    /// The setting or instrument (`track_io_timing`,
    /// `performance_schema`, `wait/io/file/innodb/innodb_data_file`).
    pub setting: String,
    /// What is missing because of it, in a few words.
    pub missing: String,
    /// What would enable it (`ALTER SYSTEM SET track_io_timing = on;
    /// SELECT pg_reload_conf()`).
    pub enable: String,
}

/// Counters that went backwards between the snapshots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CounterReset {
    /// The group of counters (`pg_stat_wal`, `global status`).
    pub group: String,
    /// The server restarted (its start time changed), or the group's
    /// statistics were reset (its reset time changed, or counters
    /// went backwards with the same start time).
    pub restart: bool,
    /// One sentence: what happened and what the interval's figures for
    /// this group are (the value after the reset: a lower bound).
    pub text: String,
}

/// What only a snapshot interval has ([`crate::awr::AwrReport::snap`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SnapInfo {
    /// The server.
    pub family: SnapFamily,
    /// The server's version as it reports it.
    pub server_version: String,
    /// The server's version as a number (PostgreSQL `server_version_num`,
    /// MariaDB major × 10000 + minor × 100 + patch).
    pub version_num: u32,
    /// The target as given, without its password.
    pub target: String,
    /// The interval asked for, s (`--interval`, or `--every`).
    pub planned_s: f64,
    /// This interval's place in a series (`--every`), from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_index: Option<u32>,
    /// Where the active-session samples behind DB time came from.
    pub sample_source: SampleSource,
    /// The sampler's cost, when dbio sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<SamplerCost>,
    /// Statistics the server does not keep with its present settings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_tracked: Vec<NotTracked>,
    /// What this role may not see, one sentence each naming the grant
    /// that would show it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// Counters that went backwards inside the interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resets: Vec<CounterReset>,
    /// Other things the reader should know (a version outside the tested
    /// range, an extension used instead of sampling), one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The interval was cut short by this signal: its figures cover
    /// `elapsed_s`, not `planned_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// The layers of a commit, when the server's processes were watched
    /// in the kernel during the interval (`--watch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_layers: Option<CommitLayers>,
}

/// A count of operations and the time they took, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LayerTime {
    /// Operations (flushes, system calls, block requests).
    pub count: f64,
    /// Their time, summed, s.
    pub time_s: f64,
}

impl LayerTime {
    /// The mean time of one operation, µs (none without operations).
    pub fn mean_us(&self) -> Option<f64> {
        (self.count > 0.0).then(|| self.time_s * 1e6 / self.count)
    }
}

/// One log's layers (PostgreSQL's WAL; MariaDB's redo log and binary
/// log): what the server timed, what the kernel timed on its files, and
/// what the block layer timed for the requests that carried them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogLayers {
    /// The log in words (`WAL`, `redo log`, `binary log`).
    pub log: String,
    /// Its files the watched processes wrote (the first few).
    pub files: Vec<String>,
    /// The server's own timer of the log's flushes (PostgreSQL
    /// `pg_stat_wal` / `pg_stat_io` WAL writes and syncs; MariaDB
    /// performance_schema's binary log file waits), when it keeps one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<LayerTime>,
    /// Where [`LogLayers::database`] comes from, or why there is none.
    pub database_source: String,
    /// Write system calls and io_uring/AIO write requests on the files.
    pub writes: LayerTime,
    /// fsync, fdatasync and sync_file_range calls (and their io_uring and
    /// AIO requests) on the files.
    pub syncs: LayerTime,
    /// Block requests that carried the files' extents: bio queued to
    /// request issued.
    pub queue: LayerTime,
    /// The same requests: issued to completed.
    pub device: LayerTime,
}

impl LogLayers {
    /// The log's flushes as the kernel saw them: its sync calls, or its
    /// writes where it has none (a log opened `O_DSYNC`, or `O_DIRECT`
    /// on a device without a volatile cache).
    pub fn flushes(&self) -> f64 {
        if self.syncs.count > 0.0 {
            self.syncs.count
        } else {
            self.writes.count
        }
    }

    /// The server counted this log's flushes but the kernel saw fewer
    /// than nine in ten of them: processes that flushed it were not
    /// watched, so its layers are not a commit's.
    pub fn unseen(&self) -> bool {
        self.database
            .is_some_and(|d| d.count > 0.0 && self.flushes() < 0.9 * d.count)
    }

    /// Per flush: (system calls, of which queue, of which device), µs.
    /// A flush's system-call time is its writes' and its sync's.
    pub fn per_flush_us(&self) -> Option<(f64, f64, f64)> {
        let n = self.flushes();
        (n > 0.0).then(|| {
            (
                (self.writes.time_s + self.syncs.time_s) * 1e6 / n,
                self.queue.time_s * 1e6 / n,
                self.device.time_s * 1e6 / n,
            )
        })
    }
}

/// Where a commit's time goes in one interval, from the database down to
/// the device (`dbio snap --watch`).
///
/// A commit waits for a flush of each log it writes (PostgreSQL: the
/// WAL; MariaDB with the binary log: the binary log, then InnoDB's redo
/// log). Per commit, the layers are therefore each log's per-flush means
/// added up: the system calls on its files, of which the block requests'
/// time in the queue and on the device; the rest of the commit's own
/// wait is in the database (waiting for a flush already under way, for
/// the lock, for the wake-up). Each mean is over the interval, so a
/// layer below may exceed the one above only where requests overlap
/// inside one call (several in flight) or the kernel wrote the log
/// outside a call (background writeback): [`CommitLayers::split`] says
/// so rather than showing a negative layer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommitLayers {
    /// What was watched (`postmaster pid 4242 and its 11 children`).
    pub watched: String,
    /// Processes watched, the children forked meanwhile included.
    pub processes: u64,
    /// The watch's length, s (it starts after the opening snapshot and
    /// ends before the closing one, a few ms inside the interval).
    pub watched_s: f64,
    /// Commits in the interval.
    pub commits: f64,
    /// The commits' own wait as the server shows it: the count is the
    /// commits, the time their wait, summed (PostgreSQL: 'log file sync'
    /// from the sampled sessions; MariaDB: the statements' time per
    /// transaction, the commit included), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<LayerTime>,
    /// Where [`CommitLayers::commit`] comes from.
    pub commit_source: String,
    /// One row per log.
    pub logs: Vec<LogLayers>,
    /// Cache flushes (preflush requests without data) on the logs'
    /// devices issued by watched processes: carried by no file's extents,
    /// so in no log's `device` time. [`CommitLayers::split`] counts them
    /// as the logs' device time, at most one per log sync: under a commit
    /// load the log syncs are what issue them (a checkpoint's data-file
    /// fsyncs add at most one each, a few per checkpoint).
    pub device_flushes: LayerTime,
    /// Other things the reader should know, one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A layer of a commit's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommitLayer {
    /// In the database, before and around its flushes.
    Database,
    /// In the system calls, above the block layer (the page cache, the
    /// filesystem's journal, waiting for a request to complete).
    Syscall,
    /// In the block layer's queue (the scheduler, a full device queue).
    Queue,
    /// On the device.
    Device,
}

impl CommitLayer {
    /// The layer in words.
    pub fn words(self) -> &'static str {
        match self {
            CommitLayer::Database => "in the database (before and around the flush)",
            CommitLayer::Syscall => "in the system call above the block layer",
            CommitLayer::Queue => "in the device queue",
            CommitLayer::Device => "on the device",
        }
    }
}

impl CommitLayers {
    /// A commit's time by layer, µs per commit, in order from the
    /// database down, with the total it divides: the commit's own wait
    /// when the server times it, else the flushes' system calls. A
    /// layer that would be negative (see [`CommitLayers`]) is 0, and
    /// `overlap` or `commit_below_flush` is set; none when a log's
    /// flushes were not seen ([`LogLayers::unseen`]) or none was made.
    pub fn split(&self) -> Option<Split> {
        // A log whose flushes the server counted but the kernel mostly
        // did not see (its writers were not watched) cannot be split.
        if self.logs.iter().any(LogLayers::unseen) {
            return None;
        }
        let mut sys = 0.0;
        let mut queue = 0.0;
        let mut device = 0.0;
        let mut any = false;
        for l in &self.logs {
            if let Some((s, q, d)) = l.per_flush_us() {
                sys += s;
                queue += q;
                device += d;
                any = true;
            }
        }
        if !any {
            return None;
        }
        // The device's cache flushes: one per log sync at most (see
        // `device_flushes`), each commit waiting for one sync per log.
        let syncs: f64 = self.logs.iter().map(|l| l.syncs.count).sum();
        let synced = self.logs.iter().filter(|l| l.syncs.count > 0.0).count() as f64;
        let per_sync = self.device_flushes.count.max(syncs);
        if per_sync > 0.0 {
            device += self.device_flushes.time_s * 1e6 / per_sync * synced;
        }
        let commit_us = self.commit.and_then(|c| c.mean_us());
        let total = commit_us.unwrap_or(sys).max(sys);
        // Requests longer than their calls overlapped (several in flight
        // in one call) or were written back outside a call: the queue and
        // the device share the calls' time in proportion.
        let below = queue + device;
        let overlap = below > sys;
        if overlap {
            queue *= sys / below;
            device *= sys / below;
        }
        let layers = vec![
            (CommitLayer::Database, total - sys),
            (CommitLayer::Syscall, (sys - queue - device).max(0.0)),
            (CommitLayer::Queue, queue),
            (CommitLayer::Device, device),
        ];
        Some(Split {
            commit_us,
            total_us: total,
            layers,
            overlap,
            commit_below_flush: commit_us.is_some_and(|c| c < sys),
        })
    }
}

/// A commit's time by layer ([`CommitLayers::split`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The commit's own wait, µs, when the server times it.
    pub commit_us: Option<f64>,
    /// What the layers add up to, µs.
    pub total_us: f64,
    /// Each layer's µs per commit, from the database down.
    pub layers: Vec<(CommitLayer, f64)>,
    /// The requests' time exceeds the calls' (requests overlapped inside
    /// a call, or writeback outside one): the system-call layer is 0, and
    /// the queue and the device share the calls' time in proportion.
    pub overlap: bool,
    /// The server's commit wait is below the flushes' system calls (its
    /// timer covers part of the commit, or sampling error): the database
    /// layer is 0 and the total is the system calls'.
    pub commit_below_flush: bool,
}

impl Split {
    /// The layer with the most time, and its share of the total (%).
    pub fn dominant(&self) -> (CommitLayer, f64) {
        let (layer, us) =
            self.layers
                .iter()
                .copied()
                .fold((CommitLayer::Database, f64::MIN), |a, b| {
                    if b.1 > a.1 {
                        b
                    } else {
                        a
                    }
                });
        (layer, self.share(us))
    }

    /// `us` as a share of the total, %.
    pub fn share(&self, us: f64) -> f64 {
        if self.total_us > 0.0 {
            100.0 * us / self.total_us
        } else {
            0.0
        }
    }
}
