//! The layers of a commit (`dbio snap --watch`) in words and tables: one
//! table of what each layer counted per log (the server's flush timer,
//! the system calls on the log files, the block requests' queue and
//! device time), one of where a commit's time goes, and the finding that
//! names the layer that dominates. The terminal and the HTML page both
//! take their rows from here.

use crate::kit::findings::{ev, finding, pct, Finding};
use crate::kit::references::doc;
use dbio_model::awr::AwrReport;
use dbio_model::snap::{CommitLayer, CommitLayers, LayerTime};
use dbio_model::units::format_ns;
use dbio_model::VerdictClass;

/// The columns of [`counted`].
pub const COUNTED_HEADS: [&str; 5] = ["log", "layer", "operations", "time", "mean"];
/// The columns of [`split`].
pub const SPLIT_HEADS: [&str; 3] = ["where a commit's time goes", "per commit", "share"];

/// The layers of the report's interval, when it was watched.
pub fn of(r: &AwrReport) -> Option<&CommitLayers> {
    r.snap.as_ref()?.commit_layers.as_ref()
}

fn row(log: &str, layer: &str, t: &LayerTime) -> Vec<String> {
    vec![
        log.to_string(),
        layer.to_string(),
        format!("{:.0}", t.count),
        format_ns(t.time_s * 1e9),
        t.mean_us()
            .map_or_else(|| "-".into(), |us| format_ns(us * 1000.0)),
    ]
}

/// What each layer counted, per log, from the database down.
pub fn counted(l: &CommitLayers) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    if let Some(c) = &l.commit {
        rows.push(row("commits", "the commit's wait (the server)", c));
    }
    for g in &l.logs {
        match &g.database {
            Some(d) => rows.push(row(&g.log, "flush (the server's timer)", d)),
            None => rows.push(vec![
                g.log.clone(),
                "flush (the server's timer)".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ]),
        }
        rows.push(row(&g.log, "write calls (the kernel)", &g.writes));
        rows.push(row(&g.log, "sync calls (the kernel)", &g.syncs));
        rows.push(row(&g.log, "requests: device queue", &g.queue));
        rows.push(row(&g.log, "requests: device", &g.device));
    }
    if l.device_flushes.count > 0.0 {
        rows.push(row(
            "device",
            "cache flushes by the server",
            &l.device_flushes,
        ));
    }
    rows
}

/// Where a commit's time goes: each layer's time per commit and share.
pub fn split(l: &CommitLayers) -> Vec<Vec<String>> {
    let Some(s) = l.split() else {
        return Vec::new();
    };
    let mut rows: Vec<Vec<String>> = s
        .layers
        .iter()
        .map(|&(layer, us)| {
            vec![
                layer.words().to_string(),
                format_ns(us * 1000.0),
                pct(s.share(us)),
            ]
        })
        .collect();
    rows.push(vec![
        if s.commit_us.is_some() && !s.commit_below_flush {
            "the commit's wait".into()
        } else {
            "the logs' flushes (the commit's wait is not timed as a whole)".into()
        },
        format_ns(s.total_us * 1000.0),
        "100 %".into(),
    ]);
    rows
}

/// The sentences below the tables: how the layers were read.
pub fn notes(l: &CommitLayers) -> Vec<String> {
    let mut out = vec![format!(
        "watched: {} ({} processes) for {:.2} s; the commit's wait: {}",
        l.watched, l.processes, l.watched_s, l.commit_source
    )];
    for g in &l.logs {
        out.push(format!("{} files: {}", g.log, g.files.join(", ")));
        out.push(format!("{} flush timer: {}", g.log, g.database_source));
    }
    for g in l.logs.iter().filter(|g| g.unseen()) {
        out.push(format!(
            "the kernel saw {:.0} of the server's {:.0} {} flushes: processes that flushed it were not watched, so a commit is not split into layers",
            g.flushes(),
            g.database.map_or(0.0, |d| d.count),
            g.log
        ));
    }
    if let Some(s) = l.split() {
        if s.overlap {
            out.push("the block requests' time exceeds the system calls' (requests overlapped inside a call, or the kernel wrote the log back outside one): the system-call layer is shown as 0, the queue and the device sharing the calls' time in proportion".into());
        }
        if s.commit_below_flush {
            out.push("the server's commit wait is below the flushes' system calls (its timer covers part of the commit, or sampling error): the layers add up to the flushes' time".into());
        }
    }
    out.extend(l.notes.iter().cloned());
    out
}

/// Under this share of a commit's time, the device and its queue are not
/// what makes the log's flushes slow, whatever the server's timers say
/// (%).
pub const DEVICE_MINOR_PCT: f64 = 25.0;

/// The verdict with the kernel's view: the layer a commit spends most of
/// its time in, and the device's part, added to the answer. A reading of
/// slow log writes (`log_storage_bound`: the server's flush timer is
/// slow) that the kernel contradicts, the device and its queue under
/// [`DEVICE_MINOR_PCT`] of the commit, becomes the commit path: the
/// flush's time was spent above the block layer (the filesystem, the
/// page cache, waiting for a CPU), which a faster log device would not
/// shorten. `None` for an interval that was not watched.
pub fn amend(
    r: &AwrReport,
    class: VerdictClass,
    answer: &str,
    log_storage_bound: bool,
) -> Option<(VerdictClass, String)> {
    let s = of(r)?.split()?;
    let (layer, share) = s.dominant();
    let device_us: f64 = s
        .layers
        .iter()
        .filter(|(l, _)| matches!(l, CommitLayer::Queue | CommitLayer::Device))
        .map(|(_, us)| us)
        .sum();
    let device_share = s.share(device_us);
    let seen = format!(
        "a commit's {} is mostly {} ({}), the device and its queue {} ({})",
        format_ns(s.total_us * 1000.0),
        layer.words(),
        pct(share),
        format_ns(device_us * 1000.0),
        pct(device_share)
    );
    Some(
        if class == VerdictClass::StorageBound
            && log_storage_bound
            && device_share < DEVICE_MINOR_PCT
        {
            (
                VerdictClass::CommitPath,
                format!(
                    "Commit path, not the log device, watched in the kernel: {seen}; the server's timers alone read it as slow log writes. {answer}"
                ),
            )
        } else {
            (class, format!("{answer} Watched in the kernel, {seen}."))
        },
    )
}

/// The finding: where a commit's time goes, the dominant layer first.
pub fn finding_of(r: &AwrReport) -> Option<Finding> {
    let l = of(r)?;
    let s = l.split()?;
    let (layer, share) = s.dominant();
    let parts: Vec<String> = s
        .layers
        .iter()
        .map(|&(x, us)| {
            format!(
                "{} {} ({})",
                x.words(),
                format_ns(us * 1000.0),
                pct(s.share(us))
            )
        })
        .collect();
    let mut evidence: Vec<_> = s
        .layers
        .iter()
        .map(|&(x, us)| ev(x.words(), us, "µs"))
        .collect();
    evidence.push(ev("per commit", s.total_us, "µs"));
    // The commits' share of DB time carries the finding's weight: the
    // dominant layer's share of it.
    let commit_pct = r
        .event("log file sync")
        .and_then(|e| e.pct_db_time)
        .or_else(|| {
            let c = l.commit?;
            let db = r.header.db_time_s?;
            (db > 0.0).then(|| 100.0 * c.time_s / db)
        })
        .unwrap_or(0.0)
        .min(100.0);
    let impact = commit_pct * share / 100.0;
    let f = finding(
        "snap.commit_layers",
        Some("the layers of a commit"),
        crate::verdict::severity_of_share(impact),
        format!(
            "a commit's {} is mostly {} ({}): {}",
            format_ns(s.total_us * 1000.0),
            layer.words(),
            pct(share),
            parts.join(", ")
        ),
        evidence,
        Some(doc("docs/snap.md")),
    );
    Some(f.with_impact(impact, "DB time"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::snap::{LogLayers, SnapInfo};

    fn t(count: f64, time_s: f64) -> LayerTime {
        LayerTime { count, time_s }
    }

    /// The PostgreSQL interval measured by hand (see docs/snap.md): 40,440
    /// commits waiting 19.2 s; 21,796 WAL syncs.
    fn layers() -> CommitLayers {
        CommitLayers {
            watched: "postmaster pid 1 and the processes it forked".into(),
            processes: 12,
            watched_s: 8.0,
            commits: 40_440.0,
            commit: Some(t(40_440.0, 19.2)),
            commit_source: "'log file sync'".into(),
            logs: vec![LogLayers {
                log: "WAL".into(),
                files: vec!["/d/pg_wal/000000010000000000000003".into()],
                database: Some(t(22_043.0, 7.046)),
                database_source: "pg_stat_wal".into(),
                writes: t(21_796.0, 0.137),
                syncs: t(21_796.0, 6.572),
                queue: t(21_810.0, 0.2007),
                device: t(21_815.0, 1.418),
            }],
            device_flushes: t(21_724.0, 1.217),
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_commit_is_split_into_its_layers_by_hand() {
        let s = layers().split().unwrap();
        // 19.2 s / 40,440 = 474.8 µs per commit.
        assert!((s.total_us - 474.78).abs() < 0.01, "{}", s.total_us);
        let get = |l: CommitLayer| s.layers.iter().find(|x| x.0 == l).unwrap().1;
        // Per sync: (0.137 + 6.572) s / 21,796 = 307.81 µs in the calls.
        assert!((get(CommitLayer::Database) - (474.78 - 307.81)).abs() < 0.01);
        // 0.2007 s / 21,796 = 9.21 µs queued.
        assert!((get(CommitLayer::Queue) - 9.21).abs() < 0.01);
        // 1.418 s / 21,796 = 65.06 µs, and 1.217 s / 21,796 = 55.84 µs of
        // cache flushes (fewer flushes than syncs).
        assert!((get(CommitLayer::Device) - 120.90).abs() < 0.01);
        assert!((get(CommitLayer::Syscall) - (307.81 - 9.21 - 120.90)).abs() < 0.02);
        let sum: f64 = s.layers.iter().map(|x| x.1).sum();
        assert!((sum - s.total_us).abs() < 1e-6);
        assert!(!s.overlap && !s.commit_below_flush);
        assert_eq!(s.dominant().0, CommitLayer::Syscall);
    }

    #[test]
    fn the_finding_names_the_dominant_layer_and_carries_the_commits_share() {
        let mut r = AwrReport {
            snap: Some(SnapInfo {
                commit_layers: Some(layers()),
                ..Default::default()
            }),
            ..Default::default()
        };
        r.header.db_time_s = Some(38.4);
        let f = finding_of(&r).unwrap();
        assert!(
            f.text.starts_with(
                "a commit's 475 µs is mostly in the system call above the block layer (37 %)"
            ),
            "{}",
            f.text
        );
        // The commits are half of DB time: the finding, 37 % of that.
        let impact = f.impact.unwrap();
        assert!((impact.share_pct - 50.0 * 0.3743).abs() < 0.1, "{impact:?}");
        let (class, text) = amend(&r, VerdictClass::CommitPath, "Commit path.", false).unwrap();
        assert_eq!(class, VerdictClass::CommitPath);
        assert!(
            text.starts_with("Commit path. Watched in the kernel, a commit's 475 µs is mostly in the system call above the block layer (37 %), the device and its queue 130 µs (27 %)."),
            "{text}"
        );
        // Slow log writes by the server's timer, the device a quarter of
        // the commit or more: the storage reading stands.
        let (class, _) = amend(&r, VerdictClass::StorageBound, "Storage-bound.", true).unwrap();
        assert_eq!(class, VerdictClass::StorageBound);
        assert_eq!(split(&layers()).len(), 5);
        assert_eq!(counted(&layers()).len(), 7);
    }

    #[test]
    fn slow_log_writes_the_kernel_sees_above_the_device_are_the_commit_path() {
        // The loaded-host case measured on PostgreSQL 15: 'log file
        // parallel write' 1.65 ms, the device 129 µs of a 2.87 ms commit.
        let mut l = layers();
        l.commit = Some(t(40_440.0, 40_440.0 * 2.87e-3));
        l.logs[0].syncs = t(21_796.0, 21_796.0 * 1.6e-3);
        let r = AwrReport {
            snap: Some(SnapInfo {
                commit_layers: Some(l),
                ..Default::default()
            }),
            ..Default::default()
        };
        let (class, text) = amend(
            &r,
            VerdictClass::StorageBound,
            "Storage-bound on the log.",
            true,
        )
        .unwrap();
        assert_eq!(class, VerdictClass::CommitPath);
        assert!(
            text.starts_with("Commit path, not the log device, watched in the kernel: a commit's 2.87 ms is mostly in the system call above the block layer"),
            "{text}"
        );
        assert!(text.ends_with("Storage-bound on the log."), "{text}");
        // Not a storage reading to begin with: only the kernel's view added.
        let (class, _) = amend(&r, VerdictClass::Cpu, "CPU.", false).unwrap();
        assert_eq!(class, VerdictClass::Cpu);
    }

    #[test]
    fn requests_longer_than_their_calls_and_a_partial_commit_timer_are_said() {
        let mut l = layers();
        l.logs[0].device = t(21_815.0, 9.0);
        l.commit = Some(t(40_440.0, 1.0));
        let s = l.split().unwrap();
        assert!(s.overlap && s.commit_below_flush);
        assert_eq!(s.layers[0].1, 0.0);
        assert_eq!(s.layers[1].1, 0.0);
        // Scaled into the calls' 307.81 µs: no share above 100 %.
        let sum: f64 = s.layers.iter().map(|x| x.1).sum();
        assert!((sum - s.total_us).abs() < 1e-6 && s.dominant().1 <= 100.0);
        let n = notes(&l).join("\n");
        assert!(n.contains("requests overlapped") && n.contains("covers part of the commit"));
        // The kernel saw 1 of the server's 22,043 WAL flushes (its
        // writers were not watched): no split, said.
        let mut unseen = layers();
        unseen.logs[0].syncs = t(1.0, 0.0003);
        unseen.logs[0].writes = t(2.0, 0.00004);
        assert!(unseen.split().is_none());
        assert!(notes(&unseen)
            .join("\n")
            .contains("the kernel saw 1 of the server's 22043 WAL flushes"));
        // Nothing was flushed: no split, and no finding.
        let mut none = layers();
        none.logs[0].writes = t(0.0, 0.0);
        none.logs[0].syncs = t(0.0, 0.0);
        assert!(none.split().is_none());
    }
}
