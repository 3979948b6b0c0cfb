//! The tables say what the model holds: figures a renderer derives (an
//! average wait) and clauses it adds only when an option was used. Values
//! are chosen so that a wrong operator or a reversed condition shows.

use dbio_model::dbwr::{DbwrResult, WaitStats};
use dbio_model::lgwr::LgwrResult;
use dbio_model::RunReport;

/// The cells of the table row for `event` (comfy-table draws cells
/// between '│' and '┆').
fn row<'a>(table: &'a str, event: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|l| l.starts_with('│') && l.contains(event))
        .unwrap_or_else(|| panic!("no row for {event} in\n{table}"));
    line.split(['│', '┆'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn dbwr_wait_rows_show_the_average_wait() {
    let mut d = DbwrResult {
        name: "w".into(),
        ..DbwrResult::default()
    };
    // 4 waits, 10 ms in all: 2.50 ms each (a product 40 ms, a quotient
    // the other way 0.4 ns).
    d.foreground.free_buffer_waits = WaitStats {
        count: 4,
        total_ns: 10_000_000,
        ..WaitStats::default()
    };
    let r = RunReport {
        dbwr: vec![d],
        ..RunReport::default()
    };
    let text = dbio_report::sections::dbwr::table::render(&r);
    let cells = row(&text, "free buffer waits");
    assert_eq!(cells[1], "4", "{cells:?}");
    assert_eq!(cells[2], "10.0 ms", "{cells:?}");
    assert_eq!(cells[3], "2.50 ms", "{cells:?}");
}

#[test]
fn lgwr_description_names_writes_in_flight_only_when_there_are_several() {
    let mut x = LgwrResult::default();
    x.config.async_depth = 1;
    assert!(
        !dbio_report::sections::lgwr::table::describe(&x).contains("in flight"),
        "{}",
        dbio_report::sections::lgwr::table::describe(&x)
    );
    x.config.async_depth = 4;
    assert!(
        dbio_report::sections::lgwr::table::describe(&x).contains("4 writes in flight"),
        "{}",
        dbio_report::sections::lgwr::table::describe(&x)
    );
}

#[test]
fn read_summary_shows_the_measured_residency_beside_the_asked_one() {
    use dbio_model::read::ReadResult;
    use dbio_model::PageCacheResidency;
    let mut measured = ReadResult {
        name: "warm".into(),
        cached_before: Some(PageCacheResidency {
            resident_pages: 37,
            total_pages: 100,
            page_size: 4096,
        }),
        ..ReadResult::default()
    };
    measured.cached_pct = 40.0;
    let mut unmeasured = ReadResult {
        name: "cold".into(),
        ..ReadResult::default()
    };
    unmeasured.cached_pct = 0.0;
    let r = RunReport {
        reads: vec![measured, unmeasured],
        ..RunReport::default()
    };
    let text = dbio_report::sections::read::table::render(&r);
    assert_eq!(row(&text, "warm")[1], "37 % (asked 40 %)", "{text}");
    assert_eq!(row(&text, "cold")[1], "asked 0 %", "{text}");
}

#[test]
fn a_jobs_sync_row_is_named_after_its_sync_call() {
    use dbio_model::{
        CpuUsage, Durability, EngineKind, JobConfig, JobResult, LatencySummary, Pattern, Prepare,
    };
    for (sync, name, other) in [
        (Durability::Fsync, "fsync", "fdatasync"),
        (Durability::Fdatasync, "fdatasync", "fsync"),
    ] {
        let j = JobResult {
            name: "j".into(),
            job: JobConfig {
                engine: EngineKind::Psync,
                rw: Pattern::Write,
                read_pct: 0,
                bs: 8192,
                iodepth: 1,
                iodepth_batch: 1,
                direct: false,
                sync,
                threads: 1,
                size: 1 << 20,
                prepare: Prepare::Prewrite,
                runtime_ns: Some(1_000_000_000),
                ops_limit: None,
                warmup_ns: 0,
                rate_iops: None,
                seed: 1,
                null_delay_ns: 0,
            },
            target: "/data/t".into(),
            runtime_ns: 1_000_000_000,
            read: None,
            write: None,
            sync: Some(LatencySummary::default()),
            commit: None,
            cpu: CpuUsage::default(),
            device: None,
            cached_before: None,
            cached_after: None,
            series: Vec::new(),
            started_at_unix_ns: None,
            stripe: None,
            block_device: false,
        };
        let text = dbio_report::sections::jobs::table::job_detail(&j);
        // A file's preparation is named; a device has none.
        assert!(text.contains("1.00 MiB pre-written file"), "{text}");
        let dev = dbio_report::sections::jobs::table::job_detail(&JobResult {
            block_device: true,
            ..j.clone()
        });
        assert!(
            dev.contains("1.00 MiB of a block device") && !dev.contains("pre-written"),
            "{dev}"
        );
        let rows: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with('│'))
            .map(|l| l.split(['│', '┆']).nth(1).unwrap_or("").trim().to_string())
            .collect();
        assert!(rows.iter().any(|c| c == name), "{text}");
        assert!(!rows.iter().any(|c| c == other), "{text}");
    }
}

/// The layout is the report's, not its command's: a `check` report laid
/// out in detail shows each log-writer configuration in full, and any
/// report laid out as a summary shows the one commit-path table.
// See: issue 10, item 4.
#[test]
fn the_lgwr_section_follows_the_reports_layout_not_its_command() {
    use dbio_model::Layout;
    for command in ["check", "lgwr"] {
        for layout in [Layout::Summary, Layout::Detail] {
            let r = RunReport {
                command: command.into(),
                layout,
                lgwr: vec![LgwrResult {
                    name: "one".into(),
                    ..Default::default()
                }],
                ..Default::default()
            };
            let text = dbio_report::export::table::run(&r);
            let summary = text.contains("Commit path (log writer with group commit):");
            assert_eq!(summary, layout == Layout::Summary, "{command}: {text}");
            let detail = text.contains(&dbio_report::sections::lgwr::table::describe(&r.lgwr[0]));
            assert_eq!(detail, layout == Layout::Detail, "{command}: {text}");
        }
    }
}

/// A result written before a command's notes became findings prints its
/// `warnings` as it did, after the findings; a note written now is a
/// finding with its severity. See: issue 22 §5.
#[test]
fn old_warnings_print_as_they_did_and_notes_print_as_findings() {
    use dbio_model::{Finding, Severity};
    let old = RunReport {
        command: "lgwr".into(),
        warnings: vec!["removed 1 stale temporary file".into()],
        ..Default::default()
    };
    let text = dbio_report::export::table::run(&old);
    assert!(
        text.ends_with("\nwarning: removed 1 stale temporary file\n"),
        "{text}"
    );
    let new = RunReport {
        command: "lgwr".into(),
        findings: vec![Finding::note(
            "scratch.target",
            Severity::Notice,
            "removed 1 stale temporary file",
        )],
        ..Default::default()
    };
    let text = dbio_report::export::table::run(&new);
    assert!(
        text.ends_with("* removed 1 stale temporary file\n  (notice)\n"),
        "{text}"
    );
    assert!(!text.contains("warning:"), "{text}");
}
