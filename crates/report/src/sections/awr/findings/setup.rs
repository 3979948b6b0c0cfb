//! What a report tells about how the database writes its redo and where
//! its files are, read from its events, statistics and init.ora
//! parameters: Data Guard SYNC transport, RAC's log flushes for LMS, the
//! scalable log writer, ASM and Exadata, direct I/O.
//!
//! * Data Guard SYNC: a commit waits for the standby's acknowledgement
//!   as well as the local write. 12c and later time that in 'SYNC Remote
//!   Write' (the NSS process; 'Redo Transport MISC' beside it), 11g in
//!   'LNS wait on SENDREQ', 10g's LGWR SYNC in 'LGWR wait on SENDREQ'
//!   (Franck Pachot, "DataGuard wait events have changed in 12c"; Oracle
//!   MAA, "Best Practices for Synchronous Redo Transport"). 'SYNC Remote
//!   Write' and 'LGWR wait on SENDREQ' name SYNC themselves; 11g's LNS
//!   also ships ASYNC redo, so its event counts only beside a
//!   `log_archive_dest_n` parameter that says `SYNC`.
//! * RAC: before LMS ships a block with uncommitted or just committed
//!   changes to another instance, LGWR must write its redo, and LMS waits
//!   in 'gcs log flush sync' (Shamsudeen et al., "Expert Oracle RAC
//!   12c", ch. 10): LGWR writes for LMS as well as for commits.
//! * Scalable LGWR (12c and later): LGWR hands writes to worker
//!   processes (LGnn) and waits for them in 'LGWR any worker group',
//!   'LGWR all worker groups', 'LGWR worker group ordering'; the
//!   statistic 'redo writes adaptive worker' counts the writes they did.
//!   'redo write time (usec)' then includes the handoff and the workers'
//!   scheduling, so it is not the disk's latency.
//! * ASM: file names that start with `+` (`+DATA/...`, `LOCATION=+FRA`)
//!   in the file I/O tables and the parameters, an 'ASM …' event, or
//!   Exadata (always ASM). Exadata: a 'cell …' wait event, or 'cell
//!   flash cache read hits' above zero (a non-Exadata report prints
//!   other 'cell …' statistics, at zero or not, so those do not count).
//! * Direct I/O: `filesystemio_options` `SETALL` or `DIRECTIO`.

use super::events::{all_rows, anywhere, average_us, background, waited};
use dbio_model::awr::{AwrReport, WaitEventRow};

/// The Data Guard transport events that time a SYNC remote write, the
/// newest first, and whether the name alone says SYNC.
const REMOTE_WRITE_EVENTS: [(&str, bool); 3] = [
    ("SYNC Remote Write", true),
    ("LGWR wait on SENDREQ", true),
    ("LNS wait on SENDREQ", false),
];

/// The scalable log writer's own events (12c and later).
const LGWR_WORKER_EVENTS: [&str; 4] = [
    "LGWR any worker group",
    "LGWR all worker groups",
    "LGWR worker group ordering",
    "LGWR worker group idle",
];

/// A Data Guard SYNC remote write, as the report times it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteWrite {
    /// The event ('SYNC Remote Write').
    pub event: String,
    /// Waits.
    pub waits: f64,
    /// Average, µs.
    pub avg_us: f64,
    /// The SYNC destinations the parameters name
    /// (`log_archive_dest_2`), when printed.
    pub destinations: Vec<String>,
}

/// LMS waiting for LGWR before it ships a block (RAC).
#[derive(Debug, Clone, PartialEq)]
pub struct LogFlushForLms {
    /// 'gcs log flush sync' waits.
    pub waits: f64,
    /// Their average, µs, when known.
    pub avg_us: Option<f64>,
}

/// A report's init.ora parameter value (the begin value), by exact name.
pub fn parameter<'a>(r: &'a AwrReport, name: &str) -> Option<&'a str> {
    parameters(r).find(|(n, _)| *n == name).map(|(_, v)| v)
}

/// Every (name, begin value) row of the report's init.ora parameter
/// tables; a multi-valued parameter's continuation rows (no name) are
/// left out.
pub fn parameters(r: &AwrReport) -> impl Iterator<Item = (&str, &str)> {
    r.tables
        .iter()
        .filter(|t| {
            let s = t.section.to_ascii_lowercase();
            s.starts_with("init.ora") || s.starts_with("initialization parameters")
        })
        .flat_map(|t| &t.rows)
        .filter_map(|row| {
            let name = row.first()?.trim();
            let value = row.get(1)?.trim();
            (!name.is_empty()).then_some((name, value))
        })
}

/// Whether a `log_archive_dest_n` value ships redo synchronously: the
/// word `SYNC` (not `ASYNC`) among its attributes.
pub fn says_sync(value: &str) -> bool {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case("SYNC"))
}

/// The `log_archive_dest_n` parameters that ship redo synchronously.
pub fn sync_destinations(r: &AwrReport) -> Vec<String> {
    parameters(r)
        .filter(|(n, v)| {
            n.to_ascii_lowercase().starts_with("log_archive_dest_")
                && !n.to_ascii_lowercase().starts_with("log_archive_dest_state")
                && says_sync(v)
        })
        .map(|(n, _)| n.to_string())
        .collect()
}

/// The Data Guard SYNC remote write, when the report shows one with
/// waits.
pub fn sync_remote_write(r: &AwrReport) -> Option<RemoteWrite> {
    let destinations = sync_destinations(r);
    REMOTE_WRITE_EVENTS.iter().find_map(|&(name, names_sync)| {
        if !names_sync && destinations.is_empty() {
            return None;
        }
        let e = background(r, name)?;
        Some(RemoteWrite {
            event: name.to_string(),
            waits: waited(e)?,
            avg_us: average_us(e)?,
            destinations: destinations.clone(),
        })
    })
}

/// LMS's 'gcs log flush sync', when it waited.
pub fn log_flush_for_lms(r: &AwrReport) -> Option<LogFlushForLms> {
    let e = background(r, "gcs log flush sync")?;
    Some(LogFlushForLms {
        waits: waited(e)?,
        avg_us: average_us(e),
    })
}

/// The scalable log writer's events with waits (idle ones included),
/// and whether its workers wrote ('redo writes adaptive worker' above
/// zero): empty when LGWR wrote alone.
pub fn lgwr_workers(r: &AwrReport) -> Vec<&WaitEventRow> {
    let mut rows: Vec<&WaitEventRow> = LGWR_WORKER_EVENTS
        .iter()
        .filter_map(|n| anywhere(r, n))
        .filter(|e| waited(e).is_some())
        .collect();
    rows.sort_by(|a, b| b.time_s.unwrap_or(0.0).total_cmp(&a.time_s.unwrap_or(0.0)));
    rows
}

/// Whether the scalable log writer's workers did the writes.
pub fn scalable_lgwr(r: &AwrReport) -> bool {
    !lgwr_workers(r).is_empty()
        || r.stat("redo writes adaptive worker")
            .is_some_and(|n| n > 0.0)
}

/// The handoff to the log writer's workers: the busiest non-idle worker
/// event.
pub fn worker_handoff(r: &AwrReport) -> Option<&WaitEventRow> {
    lgwr_workers(r)
        .into_iter()
        .find(|e| !e.name.contains("idle"))
}

/// Whether the database runs on Exadata, and the evidence.
pub fn exadata(r: &AwrReport) -> Option<String> {
    if let Some(e) = all_rows(r).find(|e| e.name.starts_with("cell ") && waited(e).is_some()) {
        return Some(format!("the '{}' wait event", e.name));
    }
    r.stat("cell flash cache read hits")
        .filter(|n| *n > 0.0)
        .map(|_| "'cell flash cache read hits' above zero".to_string())
}

/// The ASM disk group a cell names (`+DATA` of `+DATA/orcl/redo01.log`
/// or `LOCATION=+FRA`): a `+` at its start or after `=`, a quote, a
/// blank or a comma, then a letter.
fn asm_disk_group(cell: &str) -> Option<&str> {
    let b = cell.as_bytes();
    let at = (0..b.len()).find(|&i| {
        b[i] == b'+'
            && b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic())
            && (i == 0 || matches!(b[i - 1], b'=' | b'\'' | b'"' | b' ' | b','))
    })?;
    let rest = &cell[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Whether the database's files are on ASM, and the evidence: Exadata
/// first (always ASM), then a disk group in the file and parameter
/// tables, then an 'ASM …' wait event.
pub fn on_asm(r: &AwrReport) -> Option<String> {
    if let Some(why) = exadata(r) {
        return Some(format!("Exadata: {why}"));
    }
    if let Some(group) = r
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .flatten()
        .find_map(|c| asm_disk_group(c.trim()))
    {
        return Some(format!("the ASM disk group {group}"));
    }
    all_rows(r)
        .find(|e| e.name.starts_with("ASM "))
        .map(|e| format!("the '{}' wait event", e.name))
}

/// `filesystemio_options` when it asks for direct I/O (`SETALL`,
/// `DIRECTIO`).
pub fn direct_io(r: &AwrReport) -> Option<&str> {
    parameter(r, "filesystemio_options")
        .filter(|v| v.eq_ignore_ascii_case("SETALL") || v.eq_ignore_ascii_case("DIRECTIO"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{RawTable, StatRow};

    fn row(name: &str, waits: f64, avg_us: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(waits * avg_us / 1e6),
            avg_us: Some(avg_us),
            ..Default::default()
        }
    }

    fn params(rows: &[(&str, &str)]) -> RawTable {
        RawTable {
            section: "init.ora Parameters".into(),
            columns: vec!["Parameter Name".into(), "Begin value".into()],
            rows: rows
                .iter()
                .map(|(n, v)| vec![n.to_string(), v.to_string()])
                .collect(),
        }
    }

    #[test]
    fn sync_is_a_word_of_the_destination_not_part_of_async() {
        assert!(says_sync("SERVICE=stby LGWR SYNC AFFIRM"));
        assert!(says_sync("service=\"ORCLB\", SYNC AFFIRM delay=0"));
        assert!(!says_sync("SERVICE=stby ASYNC NOAFFIRM"));
        assert!(!says_sync("LOCATION=USE_DB_RECOVERY_FILE_DEST"));
    }

    #[test]
    fn the_remote_write_needs_sync_named_by_its_event_or_a_parameter() {
        let mut r = AwrReport {
            background_events: vec![row("LNS wait on SENDREQ", 17_674.0, 119_000.0)],
            ..Default::default()
        };
        assert!(sync_remote_write(&r).is_none(), "LNS ships ASYNC too");
        r.tables.push(params(&[
            ("log_archive_dest_2", "SERVICE=stby LGWR SYNC AFFIRM"),
            ("log_archive_dest_state_2", "ENABLE"),
        ]));
        let w = sync_remote_write(&r).unwrap();
        assert_eq!(
            (w.event.as_str(), w.waits, w.destinations),
            (
                "LNS wait on SENDREQ",
                17_674.0,
                vec!["log_archive_dest_2".to_string()]
            )
        );
        let r = AwrReport {
            background_events: vec![
                row("SYNC Remote Write", 500_000.0, 2500.0),
                row("Redo Transport MISC", 10.0, 100.0),
            ],
            ..Default::default()
        };
        let w = sync_remote_write(&r).unwrap();
        assert_eq!((w.event.as_str(), w.avg_us), ("SYNC Remote Write", 2500.0));
        let r = AwrReport {
            background_events: vec![row("SYNC Remote Write", 0.0, 0.0)],
            ..Default::default()
        };
        assert!(sync_remote_write(&r).is_none(), "no waits");
    }

    #[test]
    fn asm_and_exadata_are_told_by_file_names_events_and_flash_hits() {
        let mut r = AwrReport::default();
        assert!(on_asm(&r).is_none());
        r.tables.push(params(&[
            ("control_files", "/u01/oradata/ctl1.ctl"),
            ("filesystemio_options", "setall"),
        ]));
        assert!(on_asm(&r).is_none());
        assert_eq!(direct_io(&r), Some("setall"));
        r.tables
            .push(params(&[("log_archive_dest_1", "LOCATION=+FRA")]));
        assert!(on_asm(&r).unwrap().contains("+FRA"));
        let mut r = AwrReport {
            statistics: vec![StatRow {
                name: "cell flash cache read hits".into(),
                total: 0.0,
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(exadata(&r).is_none(), "printed at zero off Exadata");
        r.foreground_events
            .push(row("cell single block physical read", 10.0, 400.0));
        assert_eq!(
            on_asm(&r).unwrap(),
            "Exadata: the 'cell single block physical read' wait event"
        );
        assert_eq!(asm_disk_group("5+3"), None);
        assert_eq!(asm_disk_group("+DATA_C1/orcl/redo01.log"), Some("+DATA_C1"));
    }

    #[test]
    fn the_scalable_log_writer_is_told_by_its_events_or_its_statistic() {
        let mut r = AwrReport::default();
        assert!(!scalable_lgwr(&r));
        r.statistics.push(StatRow {
            name: "redo writes adaptive worker".into(),
            total: 103_635.0,
            ..Default::default()
        });
        assert!(scalable_lgwr(&r));
        r.background_events = vec![
            row("LGWR worker group idle", 103_052.0, 69_740.0),
            row("LGWR any worker group", 5285.0, 154.19),
        ];
        assert_eq!(worker_handoff(&r).unwrap().name, "LGWR any worker group");
    }
}
