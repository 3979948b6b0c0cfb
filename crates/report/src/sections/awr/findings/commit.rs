//! What a commit waits on, and the redo writes under it.
//!
//! A session's 'log file sync' (S) holds LGWR's 'log file parallel
//! write' (L), the local log write, and everything around it: posting
//! LGWR, LGWR's handoff to its workers, the standby's acknowledgement
//! under Data Guard SYNC, both processes waiting for a CPU ("Log File
//! Sync wait event and SSD disks"). The log writes explain L of a
//! commit; when they are slow (L in the device tier: at or above the
//! storage-cache threshold, 1 ms by default, as reads are judged), a
//! commit arriving during a write waits for it and then for its own, so
//! they explain up to [`WRITES_A_COMMIT_WAITS`] × L (Nikolay Savvinov,
//! "How not to troubleshoot log file sync waits"). The cause is read in
//! this order ([`cause`]):
//!
//! 1. Slow log writes that explain half of S or more: the storage, and
//!    faster redo storage is the answer.
//! 2. The rest of S, beyond what the writes explain: a Data Guard SYNC
//!    remote write of at least half of it is the standby's
//!    acknowledgement (a commit waits for both writes, so the remote adds
//!    between max(0, R − L) and R to each: Oracle MAA, "Best Practices
//!    for Synchronous Redo Transport"), even when S is under
//!    [`LFS_LFPW_RATIO`] × L;
//! 3. Fast log writes with S under [`LFS_LFPW_RATIO`] × L: the write is
//!    most of the commit, so the time is the number of commits.
//! 4. else a saturated host or Resource Manager ([`super::cpu`]): LGWR
//!    and the sessions queue for a CPU;
//! 5. else posting and scheduling (with the scalable log writer, the
//!    handoff to a worker is part of it; in RAC, LGWR writes for LMS as
//!    well).
//!
//! Slow writes in 3 to 5 are named too: faster redo storage shortens the
//! part they explain, and only that part.
//!
//! 'redo write time (usec)' / 'redo writes' is LGWR's time per write,
//! not the device's: with the scalable log writer it includes the
//! handoff and the workers' scheduling, with SYNC the wait for the
//! standby. It stands for the write latency only where neither is in
//! play and 'log file parallel write' is not printed (a pasted
//! statistics table).

use super::cpu::{self, CpuPressure};
use super::events::{average_us, foreground};
use super::setup::{self, RemoteWrite};
use super::{tier_of, us, LFS_LFPW_RATIO, OF_DB_TIME, SLOW_REDO_WRITE_US, SMALL_REDO_WRITE};
use crate::kit::findings::{ev, finding, Evidence, Finding, Severity};
use crate::kit::references::{
    expert_oracle_rac, lgwr_buffered_vs_direct, log_file_sync, savvinov_log_file_sync,
    synchronous_redo_transport,
};
use crate::sections::awr::db_time;
use crate::sections::trace::findings::{LatencyTier, COMPONENT_SHARE};
use dbio_model::awr::{AwrReport, ReportKind};
use dbio_model::WaitClass;

/// A 'redo write time (usec)' per write this many times 'log file
/// parallel write' or more is said not to be the disk's latency.
pub const REDO_WRITE_TIME_OVERSTATES: f64 = 1.5;

/// The slow log writes a commit waits for: the one in progress when it
/// arrived, and its own (Savvinov).
pub const WRITES_A_COMMIT_WAITS: f64 = 2.0;

/// Who writes the log a commit waits for, in the words of the report's
/// server. A snapshot of PostgreSQL or MariaDB (`dbio snap`) maps its
/// events to Oracle's names, but its server has no LGWR: PostgreSQL's
/// committing backends flush the WAL themselves (or find the walwriter's
/// flush done), queueing on `WALWriteLock`; MariaDB's binlog group commit
/// leader writes and syncs for its group, with InnoDB's log flush. The
/// commit sentences take their nouns from here, so they are written once
/// and Oracle's stay as they were.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogWriter {
    /// Whose write, before its time: "the log writer's".
    owner: &'static str,
    /// The write: "write".
    noun: &'static str,
    /// What a commit waits for beyond the write: "posting and
    /// scheduling the log writer".
    pub scheduling: &'static str,
    /// The same as something dbio cannot tell from the device: "the log
    /// writer's scheduling".
    pub scheduling_short: &'static str,
    /// The same as what slows commits under load while the writes stay
    /// fast: "the log writer's posting and scheduling".
    pub under_load: &'static str,
    /// Who queue for a CPU on the commit path: "LGWR and the committing
    /// sessions".
    pub queue: &'static str,
    /// The gap outside the write, as a clause: "posting LGWR and waiting
    /// to be scheduled".
    pub posting: &'static str,
    /// Who writes the log buffer out: "LGWR".
    pub writer: &'static str,
    /// The storage the log lives on: "redo storage".
    storage: &'static str,
    /// Its devices: "the redo devices".
    devices: &'static str,
}

impl LogWriter {
    /// The words for a report of kind `kind`.
    pub fn of(kind: ReportKind) -> LogWriter {
        match kind {
            ReportKind::PostgresSnap => LogWriter {
                owner: "the",
                noun: "WAL write and flush",
                scheduling: "the committing backends queueing for WALWriteLock (each flushes the WAL itself, or waits for another's flush) and being scheduled",
                scheduling_short: "the backends' queueing for the WAL flush",
                under_load: "the backends' queueing for WALWriteLock and for a CPU",
                queue: "the committing backends (and the walwriter)",
                posting: "waiting for WALWriteLock (another backend's WAL flush) and to be scheduled",
                writer: "the backends and the walwriter",
                storage: "WAL storage",
                devices: "the WAL device",
            },
            ReportKind::MariadbSnap => LogWriter {
                owner: "the binlog group commit's",
                noun: "write and sync",
                scheduling: "waiting for the group commit leader and InnoDB's log writer and flusher, and their scheduling",
                scheduling_short: "the group commit's scheduling",
                under_load: "the group commit's queueing and scheduling",
                queue: "the group commit leader, InnoDB's log threads and the committing threads",
                posting: "waiting for the group commit leader and InnoDB's log flush, and to be scheduled",
                writer: "InnoDB's log writer",
                storage: "log storage (binary log and redo log)",
                devices: "the log devices",
            },
            _ => LogWriter {
                owner: "the log writer's",
                noun: "write",
                scheduling: "posting and scheduling the log writer",
                scheduling_short: "the log writer's scheduling",
                under_load: "the log writer's posting and scheduling",
                queue: "LGWR and the committing sessions",
                posting: "posting LGWR and waiting to be scheduled",
                writer: "LGWR",
                storage: "redo storage",
                devices: "the redo devices",
            },
        }
    }

    /// The write: "the log writer's write".
    pub fn write(&self) -> String {
        format!("{} {}", self.owner, self.noun)
    }

    /// The write with its time: "the log writer's 200 µs write".
    pub fn timed(&self, w: &str) -> String {
        format!("{} {w} {}", self.owner, self.noun)
    }

    /// Why the cause is unknown without 'log file parallel write'.
    pub fn cannot_tell(&self) -> String {
        format!(
            "the report has no 'log file parallel write' to tell the log device from {}",
            self.scheduling_short
        )
    }
}

/// 'log file sync' against 'log file parallel write'.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitTimes {
    /// Average 'log file sync' (S), µs.
    pub sync_us: f64,
    /// Average 'log file parallel write' (L), µs.
    pub write_us: f64,
    /// S / L.
    pub ratio: f64,
    /// L's tier against the report's thresholds.
    pub write_tier: LatencyTier,
    /// 'log file sync' as a share of DB time, percent, when known.
    pub share: Option<f64>,
}

impl CommitTimes {
    /// S − L, µs: what a commit waits beyond its own log write.
    pub fn gap_us(&self) -> f64 {
        self.sync_us - self.write_us
    }

    /// Whether the log writes are slow (device tier).
    pub fn slow_writes(&self) -> bool {
        self.write_tier == LatencyTier::Device
    }

    /// The part of a commit the log writes explain, µs: its own write,
    /// and with slow writes the one in progress too (at most S).
    pub fn writes_part_us(&self) -> f64 {
        let writes = if self.slow_writes() {
            WRITES_A_COMMIT_WAITS
        } else {
            1.0
        };
        (writes * self.write_us).min(self.sync_us)
    }

    /// What a commit waits beyond the log writes that explain it, µs.
    pub fn beyond_writes_us(&self) -> f64 {
        self.sync_us - self.writes_part_us()
    }

    /// With slow writes, the clause that names them in a cause beyond
    /// them ("the log writes are slow too, …; "), else nothing.
    pub(crate) fn slow_too(&self) -> String {
        if self.slow_writes() {
            format!(
                "the log writes are slow too ({}, {}), explaining up to {} of a commit (the write in progress and its own); ",
                us(self.write_us),
                self.write_tier.words(),
                us(self.writes_part_us())
            )
        } else {
            String::new()
        }
    }

    /// What faster log storage (`lw`'s) would do for a cause beyond the
    /// writes.
    fn faster_storage(&self, lw: &LogWriter) -> String {
        if self.slow_writes() {
            format!(
                "faster {} would shorten only the part the writes explain",
                lw.storage
            )
        } else {
            format!("faster {} will not shorten it", lw.storage)
        }
    }
}

/// What the commits wait on.
#[derive(Debug, Clone, PartialEq)]
pub enum CommitCause {
    /// Slow log writes (device tier) explain half of the commit or more:
    /// the storage.
    SlowLogWrite(LatencyTier),
    /// The local log write is fast and most of the commit: the number of
    /// commits.
    FastLogWrite(LatencyTier),
    /// Data Guard SYNC: the standby's acknowledgement.
    RemoteWrite(RemoteWrite),
    /// The CPU: a saturated host or Resource Manager.
    Cpu(CpuPressure),
    /// Posting LGWR and waiting to be scheduled.
    Scheduling,
}

/// A report's commit times, when it gives both averages.
pub fn times(r: &AwrReport) -> Option<CommitTimes> {
    let d = &r.derived;
    let (sync_us, write_us) = (d.log_file_sync_us?, d.log_file_parallel_write_us?);
    if write_us <= 0.0 {
        return None;
    }
    Some(CommitTimes {
        sync_us,
        write_us,
        ratio: d.lfs_lfpw_ratio.unwrap_or(sync_us / write_us),
        write_tier: tier_of(r, write_us),
        share: db_time::of(r).map(|d| d.commit_pct()),
    })
}

/// What the commits of a report wait on (see the module's order).
pub fn cause(r: &AwrReport, t: &CommitTimes) -> CommitCause {
    if t.slow_writes() && t.writes_part_us() >= t.sync_us / 2.0 {
        return CommitCause::SlowLogWrite(t.write_tier);
    }
    // The standby's acknowledgement is named whenever it is half of what
    // the local writes leave, even when the commit is under
    // LFS_LFPW_RATIO × the write: under SYNC a commit waits for both
    // writes, and the remote one is what a DBA asks about.
    let beyond = t.beyond_writes_us();
    if let Some(w) =
        setup::sync_remote_write(r).filter(|w| beyond > 0.0 && w.avg_us >= beyond / 2.0)
    {
        return CommitCause::RemoteWrite(w);
    }
    if !t.slow_writes() && t.ratio < LFS_LFPW_RATIO {
        return CommitCause::FastLogWrite(t.write_tier);
    }
    match cpu::pressure(r) {
        Some(p) => CommitCause::Cpu(p),
        None => CommitCause::Scheduling,
    }
}

/// The commit path's severity: a notice under a tenth of DB time, else
/// (or without DB time) a warning: the reading changes what to fix.
fn severity(share: Option<f64>) -> Severity {
    match share {
        Some(s) if s < COMPONENT_SHARE => Severity::Notice,
        _ => Severity::Warning,
    }
}

fn with_share(f: Finding, share: Option<f64>) -> Finding {
    match share {
        Some(s) => f.with_impact(s, OF_DB_TIME),
        None => f,
    }
}

fn base_evidence(t: &CommitTimes) -> Vec<Evidence> {
    vec![
        ev("'log file sync' average", t.sync_us * 1000.0, "ns"),
        ev(
            "'log file parallel write' average",
            t.write_us * 1000.0,
            "ns",
        ),
        ev("ratio", t.ratio, "x"),
    ]
}

/// The commit path's finding: slow log writes, the Data Guard remote
/// write, the CPU, or posting and scheduling.
pub fn commit_path(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(t) = times(r) else {
        return;
    };
    let f = match cause(r, &t) {
        CommitCause::SlowLogWrite(tier) => slow_log_write(r, &t, tier),
        CommitCause::FastLogWrite(_) => return,
        CommitCause::RemoteWrite(w) => remote_write(&t, &w),
        CommitCause::Cpu(p) => not_io(r, &t, Some(&p)),
        CommitCause::Scheduling => not_io(r, &t, None),
    };
    out.push(with_share(f, t.share));
}

/// The log writes themselves are slow.
fn slow_log_write(r: &AwrReport, t: &CommitTimes, tier: LatencyTier) -> Finding {
    let lw = LogWriter::of(r.kind);
    let mut evidence = base_evidence(t);
    let size = r
        .derived
        .redo_write_size_bytes
        .map_or_else(String::new, |s| {
            evidence.push(ev("redo write size", s, "bytes"));
            format!(" for {s:.0} B per write")
        });
    let queue = if t.ratio > 1.0 {
        format!(
            "; commits wait {:.1}x the write: one arriving during a slow write waits for it and then for its own",
            t.ratio
        )
    } else {
        String::new()
    };
    finding(
        "awr.slow_log_write",
        Some("log file parallel write"),
        severity(t.share),
        format!(
            "'log file parallel write' averages {}{size}: {}: the log writes themselves are slow, and 'log file sync' ({} per commit) waits for them{queue}; faster {} (or less other I/O on {}) shortens the commits",
            us(t.write_us),
            tier.words(),
            us(t.sync_us),
            lw.storage,
            lw.devices,
        ),
        evidence,
        Some(savvinov_log_file_sync()),
    )
}

/// The Data Guard SYNC remote write is the gap.
fn remote_write(t: &CommitTimes, w: &RemoteWrite) -> Finding {
    let mut evidence = base_evidence(t);
    evidence.push(ev(
        &format!("'{}' average", w.event),
        w.avg_us * 1000.0,
        "ns",
    ));
    evidence.push(ev(&format!("'{}' waits", w.event), w.waits, "count"));
    let dest = if w.destinations.is_empty() {
        String::new()
    } else {
        format!(" ({} SYNC)", w.destinations.join(", "))
    };
    let least = (w.avg_us - t.write_us).max(0.0);
    finding(
        "awr.sync_remote_write",
        Some(&w.event),
        severity(t.share),
        format!(
            "'log file sync' averages {} against {} for the local log write ('log file parallel write'): {}the {} beyond the log writes is Data Guard's SYNC transport{dest}: '{}' averages {} over {:.0} waits; a commit waits for the standby's acknowledgement (the network and the standby redo log write) as well as the local write, which adds between {} and {} to each redo write; the network and the standby's log writes shorten it (or SYNC NOAFFIRM), not faster local redo storage",
            us(t.sync_us),
            us(t.write_us),
            t.slow_too(),
            us(t.beyond_writes_us()),
            w.event,
            us(w.avg_us),
            w.waits,
            us(least),
            us(w.avg_us),
        ),
        evidence,
        Some(synchronous_redo_transport()),
    )
}

/// Commit time outside the log write: the CPU first, else posting and
/// scheduling.
fn not_io(r: &AwrReport, t: &CommitTimes, p: Option<&CpuPressure>) -> Finding {
    let lw = LogWriter::of(r.kind);
    let mut evidence = base_evidence(t);
    let why = match p {
        Some(p) => {
            if let Some(b) = p.busy_pct {
                evidence.push(ev("host CPU busy", b, "%"));
            }
            if let Some(s) = p.resmgr_pct {
                evidence.push(ev("'resmgr:cpu quantum' share of DB time", s, "%"));
            }
            format!(
                ": {}, so {} queue for a CPU: the CPU comes first",
                p.words(),
                lw.queue
            )
        }
        None => {
            let cpu = match r.derived.host_cpu_busy_pct {
                Some(b) => {
                    evidence.push(ev("host CPU busy", b, "%"));
                    format!("; the host's CPUs were {b:.1} % busy")
                }
                None => String::new(),
            };
            format!(", {}{cpu}", lw.posting)
        }
    };
    let mut around = Vec::new();
    if let Some(w) = setup::worker_handoff(r) {
        if let Some(a) = average_us(w) {
            evidence.push(ev(&format!("'{}' average", w.name), a * 1000.0, "ns"));
            around.push(format!(
                "LGWR hands each write to a worker ('{}' averages {}), part of that time",
                w.name,
                us(a)
            ));
        }
    }
    if let Some(w) = setup::sync_remote_write(r) {
        around.push(format!(
            "the Data Guard SYNC remote write ('{}', {}) explains at most {} of it",
            w.event,
            us(w.avg_us),
            us(w.avg_us)
        ));
    }
    if let Some(l) = setup::log_flush_for_lms(r) {
        around.push(format!(
            "LGWR also writes for LMS ('gcs log flush sync', {:.0} waits)",
            l.waits
        ));
    }
    let around = if around.is_empty() {
        String::new()
    } else {
        format!("; {}", around.join("; "))
    };
    finding(
        "awr.commit_not_io",
        Some("log file sync"),
        severity(t.share),
        format!(
            "'log file sync' averages {} against {} for 'log file parallel write' ({:.1}x): {}{} of each commit is spent outside the log writes{why}{around}; {}",
            us(t.sync_us),
            us(t.write_us),
            t.ratio,
            t.slow_too(),
            us(t.beyond_writes_us()),
            t.faster_storage(&lw),
        ),
        evidence,
        Some(log_file_sync()),
    )
}

/// The commit wait's reading for its DB time component: what the
/// foreground 'log file sync' is made of, in a clause.
pub fn reading(r: &AwrReport) -> String {
    let lw = LogWriter::of(r.kind);
    let Some(t) = times(r) else {
        return lw.cannot_tell();
    };
    let (w, ratio, slow) = (us(t.write_us), t.ratio, t.slow_too());
    let write = lw.write();
    match cause(r, &t) {
        CommitCause::SlowLogWrite(tier) => format!(
            "{write} ('log file parallel write', {w}) is {}: the log device's write latency explains it",
            tier.words()
        ),
        CommitCause::FastLogWrite(tier) => format!(
            "{write} ('log file parallel write', {w}) is most of it ({ratio:.1}x) and fast ({}): the time is the number of commits, each waiting for a fast write",
            tier.words()
        ),
        CommitCause::RemoteWrite(rw) => format!(
            "commits wait {ratio:.1}x the local log write ({w}): {slow}the rest is Data Guard's SYNC remote write ('{}' averages {})",
            rw.event,
            us(rw.avg_us)
        ),
        CommitCause::Cpu(p) => format!(
            "commits wait {ratio:.1}x as long as {write} ({w}): {slow}{}: the CPU comes first",
            p.words()
        ),
        CommitCause::Scheduling if t.slow_writes() => format!(
            "commits wait {ratio:.1}x as long as {write} ({w}): {slow}the rest is {}",
            lw.scheduling
        ),
        CommitCause::Scheduling => format!(
            "commits wait {ratio:.1}x as long as {write} ({w}): not the log device, but {}",
            lw.scheduling
        ),
    }
}

/// 'redo write time (usec)' per write well above 'log file parallel
/// write' with LGWR's workers or SYNC: not the disk's latency.
pub fn redo_write_time_not_disk(r: &AwrReport, out: &mut Vec<Finding>) {
    let d = &r.derived;
    let (Some(rwt), Some(l)) = (d.redo_write_time_us, d.log_file_parallel_write_us) else {
        return;
    };
    let workers = setup::scalable_lgwr(r);
    let remote = setup::sync_remote_write(r);
    if !(workers || remote.is_some()) || l <= 0.0 || rwt < REDO_WRITE_TIME_OVERSTATES * l {
        return;
    }
    let mut parts = Vec::new();
    if workers {
        parts.push("handing the write to a log writer worker and that worker's scheduling");
    }
    if remote.is_some() {
        parts.push("waiting for the Data Guard standby");
    }
    let f = finding(
        "awr.redo_write_time_not_disk",
        Some("redo write time"),
        Severity::Info,
        format!(
            "'redo write time (usec)' per redo write is {} against {} for 'log file parallel write': it includes {}, so it is not the log device's latency; the device's is 'log file parallel write'",
            us(rwt),
            us(l),
            parts.join(" and ")
        ),
        vec![
            ev("redo write time per write", rwt * 1000.0, "ns"),
            ev("'log file parallel write' average", l * 1000.0, "ns"),
        ],
        Some(crate::kit::references::scalable_log_writer()),
    );
    out.push(with_share(f, times(r).and_then(|t| t.share)));
}

/// RAC: LGWR writes for LMS ('gcs log flush sync') as well as for
/// commits.
pub fn rac_log_flush(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(l) = setup::log_flush_for_lms(r) else {
        return;
    };
    let mut evidence = vec![ev("'gcs log flush sync' waits", l.waits, "count")];
    let avg = l.avg_us.map_or_else(String::new, |a| {
        evidence.push(ev("'gcs log flush sync' average", a * 1000.0, "ns"));
        format!(" averaging {}", us(a))
    });
    let per = r
        .derived
        .commits_per_redo_write
        .map_or_else(String::new, |c| {
            evidence.push(ev("user commits per redo write", c, ""));
            format!(" ({c:.2} user commits per redo write)")
        });
    let cluster = db_time::of(r).map(|d| {
        d.events
            .iter()
            .filter(|e| e.class == WaitClass::Cluster)
            .map(|e| e.pct)
            .sum::<f64>()
    });
    let f = finding(
        "awr.rac_log_flush",
        Some("gcs log flush sync"),
        Severity::Info,
        format!(
            "LMS waited {:.0} times in 'gcs log flush sync'{avg}: before it ships a block to another instance LGWR must write its redo, so LGWR writes for the cluster as well as for commits{per}, and a slow log write also lengthens the other instances' global cache waits",
            l.waits
        ),
        evidence,
        Some(expert_oracle_rac()),
    );
    out.push(match cluster {
        Some(c) => f.with_impact(c, OF_DB_TIME),
        None => f,
    });
}

/// The latency of one redo write as the redo write rules read it:
/// 'log file parallel write', else 'redo write time' per write where it
/// is the write alone (no scalable log writer, no SYNC standby).
pub fn redo_write_latency_us(r: &AwrReport) -> Option<f64> {
    let d = &r.derived;
    d.log_file_parallel_write_us.or_else(|| {
        (!setup::scalable_lgwr(r) && setup::sync_remote_write(r).is_none())
            .then_some(d.redo_write_time_us)
            .flatten()
    })
}

/// Small redo writes that are slow: a buffered file system under the
/// redo, unless the redo already has direct I/O (ASM, Exadata,
/// `filesystemio_options`).
pub fn small_redo_writes(r: &AwrReport, out: &mut Vec<Finding>) {
    let (Some(size), Some(t)) = (r.derived.redo_write_size_bytes, redo_write_latency_us(r)) else {
        return;
    };
    if size >= SMALL_REDO_WRITE || t < SLOW_REDO_WRITE_US {
        return;
    }
    let head = format!(
        "redo writes average {size:.0} B and take {} each: writes this small should take well under a millisecond",
        us(t)
    );
    let text = if let Some(why) = setup::on_asm(r) {
        format!("{head}; the redo is already on ASM ({why}), which writes without a file system's cache, so the device itself is slow for small writes")
    } else if let Some(v) = setup::direct_io(r) {
        format!("{head}; filesystemio_options is {v}, so the redo is already written with direct I/O: the device itself is slow for small writes")
    } else {
        format!("{head}; on a buffered file system each one rewrites a whole file-system block, so put the redo logs on direct I/O (forcedirectio, filesystemio_options=SETALL) or raw/ASM storage")
    };
    let f = finding(
        "awr.small_redo_writes",
        Some("redo writes"),
        Severity::Notice,
        text,
        vec![
            ev("redo write size", size, "bytes"),
            ev("redo write time", t * 1000.0, "ns"),
        ],
        Some(lgwr_buffered_vs_direct()),
    );
    let share = foreground(r, "log file sync").and_then(|e| super::events::share_of_db_time(r, e));
    out.push(with_share(f, share));
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{AwrDerived, RawTable, StatRow, WaitEventRow};

    fn row(name: &str, waits: f64, avg_us: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(waits * avg_us / 1e6),
            avg_us: Some(avg_us),
            ..Default::default()
        }
    }

    /// 1000 s of DB time, 300 s of it in 'log file sync' of `lfs` µs in
    /// the foreground, 'log file parallel write' of `lfpw` µs.
    fn report(lfs: f64, lfpw: f64) -> AwrReport {
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.header.cpus = Some(16.0);
        r.foreground_events
            .push(row("log file sync", 3e8 / lfs, lfs));
        r.background_events
            .push(row("log file parallel write", 400_000.0, lfpw));
        r.derived = AwrDerived {
            log_file_sync_us: Some(lfs),
            log_file_parallel_write_us: Some(lfpw),
            lfs_lfpw_ratio: Some(lfs / lfpw),
            ..Default::default()
        };
        r
    }

    fn rules(r: &AwrReport) -> Vec<String> {
        let mut out = Vec::new();
        commit_path(r, &mut out);
        redo_write_time_not_disk(r, &mut out);
        rac_log_flush(r, &mut out);
        small_redo_writes(r, &mut out);
        out.into_iter().map(|f| f.rule).collect()
    }

    #[test]
    fn a_snapshots_storage_advice_names_its_own_log() {
        // The same slow writes on a PostgreSQL or MariaDB snapshot: the
        // advice names the server's log, never Oracle's redo.
        for (kind, storage, devices) in [
            (ReportKind::PostgresSnap, "WAL storage", "the WAL device"),
            (
                ReportKind::MariadbSnap,
                "log storage (binary log and redo log)",
                "the log devices",
            ),
        ] {
            let mut r = report(480_000.0, 120_000.0);
            r.kind = kind;
            let mut out = Vec::new();
            commit_path(&r, &mut out);
            assert_eq!(out[0].rule, "awr.slow_log_write");
            assert!(
                out[0].text.ends_with(&format!(
                    "faster {storage} (or less other I/O on {devices}) shortens the commits"
                )),
                "{}",
                out[0].text
            );
            r = report(481_000.0, 120_000.0);
            r.kind = kind;
            let mut out = Vec::new();
            commit_path(&r, &mut out);
            assert!(
                out[0].text.ends_with(&format!(
                    "faster {storage} would shorten only the part the writes explain"
                )),
                "{}",
                out[0].text
            );
            assert!(!out[0].text.contains("redo storage"), "{}", out[0].text);
        }
    }

    #[test]
    fn slow_log_writes_are_the_cause_while_two_writes_make_half_the_commit() {
        // 120 ms writes, 480 ms commits: the write in progress and its
        // own are half of it.
        let r = report(480_000.0, 120_000.0);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert_eq!(out[0].rule, "awr.slow_log_write");
        assert!(
            out[0].text.starts_with("'log file parallel write' averages 120 ms: device latency")
                && out[0].text.contains("commits wait 4.0x the write")
                && out[0].text.ends_with("faster redo storage (or less other I/O on the redo devices) shortens the commits"),
            "{}",
            out[0].text
        );
        assert!((out[0].share() - 30.0).abs() < 1e-9);
        // 481 ms: the rest is elsewhere, and the slow writes are named
        // with the part they explain; faster storage helps that part.
        let r = report(481_000.0, 120_000.0);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert_eq!(out[0].rule, "awr.commit_not_io");
        assert!(
            out[0]
                .text
                .contains("the log writes are slow too (120 ms, device latency")
                && out[0].text.contains("explaining up to 240 ms of a commit")
                && out[0]
                    .text
                    .contains("241 ms of each commit is spent outside the log writes")
                && out[0].text.ends_with(
                    "faster redo storage would shorten only the part the writes explain"
                ),
            "{}",
            out[0].text
        );
        assert!(!out[0].text.contains("will not shorten"));
        // At the storage-cache threshold the writes are slow; just under,
        // fast.
        assert_eq!(rules(&report(3000.0, 1000.0)), ["awr.slow_log_write"]);
        assert_eq!(rules(&report(2990.0, 999.0)), Vec::<String>::new());
        assert_eq!(rules(&report(3000.0, 999.0)), ["awr.commit_not_io"]);
    }

    #[test]
    fn a_gap_of_three_times_is_outside_the_log_write() {
        let r = report(599.0, 200.0);
        assert!(matches!(
            cause(&r, &times(&r).unwrap()),
            CommitCause::FastLogWrite(LatencyTier::StorageCache)
        ));
        assert!(
            reading(&r).contains("the number of commits"),
            "{}",
            reading(&r)
        );
        let r = report(600.0, 200.0);
        assert_eq!(cause(&r, &times(&r).unwrap()), CommitCause::Scheduling);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert!(out[0]
            .text
            .contains("posting LGWR and waiting to be scheduled"));
        assert!(out[0]
            .text
            .ends_with("faster redo storage will not shorten it"));
    }

    #[test]
    fn the_sync_remote_write_is_the_gap_from_half_of_it() {
        // Gap 2.7 ms: a remote write of 1.35 ms explains it, 1.34 ms not.
        let mut r = report(3000.0, 300.0);
        r.background_events
            .push(row("SYNC Remote Write", 380_000.0, 1349.0));
        assert_eq!(cause(&r, &times(&r).unwrap()), CommitCause::Scheduling);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert!(
            out[0].text.contains("explains at most 1.35 ms"),
            "{}",
            out[0].text
        );
        r.background_events[1].avg_us = Some(1350.0);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert_eq!(out[0].rule, "awr.sync_remote_write");
        assert_eq!(out[0].subject.as_deref(), Some("SYNC Remote Write"));
        assert!(
            out[0]
                .text
                .contains("'SYNC Remote Write' averages 1.35 ms over 380000 waits")
                && out[0].text.contains("between 1.05 ms and 1.35 ms"),
            "{}",
            out[0].text
        );
        assert!(!out[0].text.contains("will not shorten"));
    }

    #[test]
    fn a_saturated_host_puts_the_cpu_first() {
        let mut r = report(2000.0, 200.0);
        r.derived.host_cpu_busy_pct = Some(80.9);
        assert_eq!(cause(&r, &times(&r).unwrap()), CommitCause::Scheduling);
        r.derived.host_cpu_busy_pct = Some(85.0);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert_eq!(out[0].rule, "awr.commit_not_io");
        assert!(
            out[0]
                .text
                .contains("85.0 % busy, past the 81 % knee for 16 CPUs")
                && out[0].text.contains("the CPU comes first"),
            "{}",
            out[0].text
        );
    }

    #[test]
    fn rac_and_the_scalable_log_writer_are_named_in_the_gap() {
        let mut r = report(2000.0, 200.0);
        r.background_events.extend([
            row("gcs log flush sync", 90_000.0, 1500.0),
            row("LGWR any worker group", 50_000.0, 400.0),
        ]);
        r.derived.commits_per_redo_write = Some(0.4);
        r.derived.redo_write_time_us = Some(700.0);
        let mut out = Vec::new();
        commit_path(&r, &mut out);
        assert!(
            out[0]
                .text
                .contains("'LGWR any worker group' averages 400 µs")
                && out[0]
                    .text
                    .contains("LGWR also writes for LMS ('gcs log flush sync', 90000 waits)"),
            "{}",
            out[0].text
        );
        assert_eq!(
            rules(&r),
            [
                "awr.commit_not_io",
                "awr.redo_write_time_not_disk",
                "awr.rac_log_flush"
            ]
        );
        // 'redo write time' under 1.5x the write is left alone.
        r.derived.redo_write_time_us = Some(299.0);
        assert!(!rules(&r).contains(&"awr.redo_write_time_not_disk".to_string()));
    }

    #[test]
    fn small_slow_redo_writes_get_direct_io_advice_only_off_asm_and_direct_io() {
        let mut r = AwrReport::default();
        r.derived.redo_write_size_bytes = Some(2731.0);
        r.derived.redo_write_time_us = Some(4162.0);
        assert_eq!(rules(&r), ["awr.small_redo_writes"]);
        let mut out = Vec::new();
        small_redo_writes(&r, &mut out);
        assert!(out[0].text.contains("put the redo logs on direct I/O"));
        // A fast local log write: the statistic was not the write.
        r.derived.log_file_parallel_write_us = Some(300.0);
        assert!(rules(&r).is_empty());
        // With LGWR's workers the statistic alone is not the write.
        r.derived.log_file_parallel_write_us = None;
        r.statistics.push(StatRow {
            name: "redo writes adaptive worker".into(),
            total: 10.0,
            ..Default::default()
        });
        assert!(rules(&r).is_empty());
        r.statistics.clear();
        r.derived.log_file_parallel_write_us = Some(4162.0);
        r.tables.push(RawTable {
            section: "init.ora Parameters".into(),
            rows: vec![vec!["db_create_online_log_dest_1".into(), "+REDO".into()]],
            ..Default::default()
        });
        let mut out = Vec::new();
        small_redo_writes(&r, &mut out);
        assert!(
            out[0].text.contains("already on ASM") && !out[0].text.contains("put the redo"),
            "{}",
            out[0].text
        );
        r.tables[0].rows = vec![vec!["filesystemio_options".into(), "SETALL".into()]];
        let mut out = Vec::new();
        small_redo_writes(&r, &mut out);
        assert!(
            out[0].text.contains("filesystemio_options is SETALL"),
            "{}",
            out[0].text
        );
        // At the size and time thresholds.
        r.tables.clear();
        r.derived.redo_write_size_bytes = Some(SMALL_REDO_WRITE);
        assert!(rules(&r).iter().all(|f| f != "awr.small_redo_writes"));
        r.derived.redo_write_size_bytes = Some(8191.0);
        r.derived.log_file_parallel_write_us = Some(SLOW_REDO_WRITE_US - 1.0);
        assert!(rules(&r).iter().all(|f| f != "awr.small_redo_writes"));
    }

    #[test]
    fn a_snapshot_names_its_servers_log_flush_and_oracle_keeps_the_log_writer() {
        // Scheduling (15x a fast write), then no 'log file parallel write'.
        let oracle = report(3000.0, 200.0);
        let said = |r: &AwrReport| {
            let mut out = Vec::new();
            commit_path(r, &mut out);
            let texts: Vec<String> = out.into_iter().map(|f| f.text).collect();
            format!("{} | {}", reading(r), texts.join(" | "))
        };
        let o = said(&oracle);
        assert!(o.contains("as long as the log writer's write (200 µs): not the log device, but posting and scheduling the log writer"), "{o}");
        assert!(
            o.contains("posting LGWR and waiting to be scheduled"),
            "{o}"
        );
        for (kind, write, rest) in [
            (
                ReportKind::PostgresSnap,
                "as long as the WAL write and flush (200 µs)",
                "the committing backends queueing for WALWriteLock",
            ),
            (
                ReportKind::MariadbSnap,
                "as long as the binlog group commit's write and sync (200 µs)",
                "waiting for the group commit leader and InnoDB's log writer",
            ),
        ] {
            let mut r = report(3000.0, 200.0);
            r.kind = kind;
            let t = said(&r);
            assert!(t.contains(write) && t.contains(rest), "{t}");
            assert!(
                !t.contains("log writer's") && !t.contains("LGWR"),
                "{kind:?} has no LGWR: {t}"
            );
            r.derived.log_file_parallel_write_us = None;
            r.background_events.clear();
            assert!(!reading(&r).contains("log writer's"), "{}", reading(&r));
        }
        let mut none = oracle.clone();
        none.derived.log_file_parallel_write_us = None;
        none.background_events.clear();
        assert_eq!(reading(&none), "the report has no 'log file parallel write' to tell the log device from the log writer's scheduling");
    }
}
