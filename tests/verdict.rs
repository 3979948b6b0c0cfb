//! See: issue 23. The answer every trace and report analysis opens with,
//! on the real public fixtures in `../shared/fixtures/oracle` (sources and
//! licences in its SOURCES.md). Each expected answer was decided by
//! reading the file by hand; the comment beside it gives the numbers that
//! decide it. The fixtures are read from `../shared`, never copied: their
//! absence is a failure.

use crate::util::{dbio, json, Succeeds};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/oracle"
    ))
    .join(name);
    assert!(p.is_file(), "the shared fixture {} is missing", p.display());
    p.display().to_string()
}

/// The verdict's class, its answer, and the top findings' rules and
/// subjects, from the JSON; and the table's third line (the answer).
fn answer(args: &[&str]) -> (String, String, Vec<(String, String)>, String) {
    let out = dbio().args(args).args(["--json", "-"]).succeeds();
    let v = json(&out.stdout);
    let verdict = &v["verdict"];
    let top = verdict["top"]
        .as_array()
        .unwrap_or_else(|| panic!("no verdict: {v}"))
        .iter()
        .map(|i| {
            let f = &v["findings"][i.as_u64().unwrap() as usize];
            (
                f["rule"].as_str().unwrap().to_string(),
                f["subject"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let table = dbio().args(args).succeeds();
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    (
        verdict["class"].as_str().unwrap().to_string(),
        verdict["answer"].as_str().unwrap().to_string(),
        top,
        table,
    )
}

/// The answer block comes before the first table.
fn answer_first(table: &str) {
    let answer = table.find("\n=> ").unwrap_or_else(|| panic!("{table}"));
    let first_table = table.find('┌').unwrap_or(usize::MAX);
    assert!(answer < first_table, "{table}");
}

#[test]
fn a_trace_of_slow_single_block_reads_is_storage_bound() {
    // pylatencymap: R = 178 s, of which 'db file sequential read' is
    // 29,249 waits, 175 s (98.4 % of R), 5.98 ms on average: device
    // latency. CPU is 2.5 %; 'utl_file I/O' is 3 waits (150 µs).
    let (class, text, top, table) =
        answer(&["tracefile", &fixture("pylatencymap-12101-seqread.trc")]);
    assert_eq!(class, "storage_bound");
    assert!(
        text.contains("'db file sequential read' alone is 98.4 %"),
        "{text}"
    );
    assert!(text.contains("device latency"), "{text}");
    assert_eq!(
        top[0],
        ("trace.component".into(), "db file sequential read".into())
    );
    assert!(
        top.iter().all(|(_, s)| s != "utl_file I/O"),
        "three fast waits are no top finding: {top:?}"
    );
    answer_first(&table);
}

#[test]
fn traces_of_a_sleeping_application_are_not_the_storage() {
    // jkstill RAC 9850: R = 5.42 s; 'PL/SQL lock timer' inside calls is
    // 5.01 s (92.4 %), 10 sleeps of 501 ms; I/O ('db file sequential
    // read', 7 waits) 1.4 %. trcsess main: R = 10.8 s, the timer 10.0 s
    // (92.4 %), I/O 0.8 %. 'Disk file operations I/O' (1 and 3 waits)
    // opens files: it is no read and no finding of its own.
    for file in ["jkstill-122-rac-9850.trc", "jkstill-122-trcsess-main.trc"] {
        let (class, text, top, table) = answer(&["tracefile", &fixture(file)]);
        assert_eq!(class, "not_storage", "{file}: {text}");
        assert!(text.contains("'PL/SQL lock timer'"), "{text}");
        assert!(text.contains("the application sleeping"), "{text}");
        assert_eq!(
            top[0],
            (
                "trace.component".into(),
                "PL/SQL lock timer (inside calls)".into()
            ),
            "{file}"
        );
        assert!(!table.contains("'Disk file operations I/O': "), "{table}");
        answer_first(&table);
    }
}

#[test]
fn traces_of_a_client_between_calls_are_not_the_storage() {
    // trctools lobs: R = 84.3 ms, 'SQL*Net message from client' between
    // calls 83.2 ms (98.7 %). two-stmts-one-cursor: R = 115 ms, the client
    // 61.8 ms (53.6 %), CPU 49.8 ms (43.2 %), one read of 335 µs (0.3 %).
    for (file, pct) in [
        ("trctools-19c-lobs.trc", "98.7 %"),
        ("trctools-19c-two-stmts-one-cursor.trc", "53.6 %"),
    ] {
        let (class, text, top, _) = answer(&["tracefile", &fixture(file)]);
        assert_eq!(class, "not_storage", "{file}: {text}");
        assert!(
            text.contains(&format!("{pct} of R is 'SQL*Net message from client'")),
            "{text}"
        );
        assert_eq!(top[0].1, "SQL*Net message from client", "{file}");
    }
}

#[test]
fn a_trace_of_millisecond_reads_and_cpu_is_storage_bound() {
    // trctools mixed-execs: R = 13.3 ms; 'db file sequential read' 7 waits,
    // 7.84 ms (59.0 %), 1.12 ms each: above the 1 ms storage-cache
    // boundary, the device. CPU 4.17 ms (31.3 %) is the second finding.
    let (class, _, top, _) = answer(&["tracefile", &fixture("trctools-19c-mixed-execs.trc")]);
    assert_eq!(class, "storage_bound");
    assert_eq!(
        top[0],
        ("trace.component".into(), "db file sequential read".into())
    );
    assert_eq!(top[1], ("trace.cpu".into(), "CPU".into()));
}

#[test]
fn trace_events_are_in_oracles_wait_classes() {
    let out = dbio()
        .args(["tracefile", &fixture("jkstill-122-trcsess-main.trc")])
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    let events = &table[table
        .find("Wait events")
        .unwrap_or_else(|| panic!("{table}"))..];
    let class_of = |event: &str| {
        events
            .lines()
            .find(|l| l.starts_with(&format!("│ {event} ")) && l.contains(" ┆ "))
            .and_then(|l| l.split('┆').nth(1))
            .map(|c| c.trim().to_string())
            .unwrap_or_else(|| panic!("{event}: {table}"))
    };
    assert_eq!(class_of("db file sequential read"), "User I/O");
    assert_eq!(class_of("gc current block 2-way"), "Cluster");
    assert_eq!(class_of("library cache lock"), "Concurrency");
    assert_eq!(class_of("SQL*Net message to client"), "Network");
}

#[test]
fn an_awr_report_with_cpu_and_little_io_is_not_the_storage() {
    // jasmin AWR 12.2.0.1: DB time 3,974 s; DB CPU 1,235 s (31.1 %);
    // 'db file sequential read' 39.5 s (1.0 %) at 110 µs, 'log file sync'
    // 29.1 s (0.7 %); every I/O wait under 1 %. Oracle's own "Captured
    // Time accounts for 33.6 % of Total DB time": 66.4 % is in no event.
    let (class, text, top, table) = answer(&["awr", &fixture("jasmin-awr-12201-aix.txt")]);
    assert_eq!(class, "not_storage");
    assert!(
        text.starts_with("Not the storage: I/O waits are 1.2 % of DB time, DB CPU 31.1 %"),
        "{text}"
    );
    let rules: Vec<&str> = top.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(rules[..2], ["awr.unlisted", "awr.db_cpu"], "{top:?}");
    answer_first(&table);
}

#[test]
fn a_statspack_report_of_cpu_is_cpu() {
    // jasmin Statspack 12.1.0.2: DB time 920 s; "CPU time" 861 s (93.5 %);
    // the rest of the Top 5 are idle background timers (LGWR worker group
    // idle, AQPC idle, heartbeat redo informer, lreg timer): no DB time.
    let (class, text, top, _) = answer(&["awr", &fixture("jasmin-statspack-12102.txt")]);
    assert_eq!(class, "cpu");
    assert!(
        text.starts_with("Not the storage: DB CPU is 93.5 % of DB time"),
        "{text}"
    );
    assert_eq!(top[0], ("awr.db_cpu".into(), "CPU time".into()));
}
