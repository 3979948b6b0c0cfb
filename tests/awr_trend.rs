//! `dbio awr` with several reports (a trend), `--with-trace`, and reports
//! written with a decimal comma (issue 13), on the hand-made reports in
//! `tests/fixtures/awr`.

use crate::util::{dbio, json, scratch};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/awr"))
        .join(name)
        .display()
        .to_string()
}

fn trend_json(files: &[&str]) -> serde_json::Value {
    let mut args = vec!["awr".to_string()];
    args.extend(files.iter().map(|f| fixture(f)));
    args.extend(["--json".to_string(), "-".to_string()]);
    json(&dbio().args(&args).assert().success().get_output().stdout)
}

#[test]
fn several_reports_are_a_trend_ordered_by_begin_time() {
    // Given out of order: the trend orders them by begin snapshot time.
    let v = trend_json(&["trend-1100.txt", "trend-0900.txt", "trend-1000.txt"]);
    assert_eq!(v["command"], "awr trend");
    let iv = v["intervals"].as_array().unwrap();
    let begins: Vec<&str> = iv
        .iter()
        .map(|i| i["header"]["begin_time"].as_str().unwrap())
        .collect();
    assert_eq!(
        begins,
        [
            "02-Mar-25 09:00:00",
            "02-Mar-25 10:00:00",
            "02-Mar-25 11:00:00"
        ]
    );
    assert_eq!(iv[0]["header"]["dbid"], "1111111111");
    // DB time 90 min over 60 min: 1.5 average active sessions.
    assert_eq!(iv[1]["average_active_sessions"], 1.5);
    // 'log file sync' 4.00 ms against 'log file parallel write' 300 µs.
    assert_eq!(iv[1]["log_file_sync_us"], 4000.0);
    assert_eq!(iv[1]["log_file_parallel_write_us"], 300.0);
    // The events: top foreground events by summed time, idle ones out;
    // the row lock event (printed cut at 26 characters, joined to its
    // full name) only in the interval that had it.
    let events: Vec<&str> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        [
            "log file sync",
            "db file sequential read",
            "enq: TX - row lock contention"
        ]
    );
    let names = |i: &serde_json::Value| -> Vec<String> {
        i["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names(&iv[1]).contains(&"enq: TX - row lock contention".to_string()));
    assert!(!names(&iv[0]).contains(&"enq: TX - row lock contention".to_string()));
    let lfs = &iv[1]["events"][0];
    assert_eq!(
        (lfs["time_s"].as_f64(), lfs["avg_us"].as_f64()),
        (Some(10800.0), Some(4000.0))
    );
    // Load profile per second, as printed.
    assert_eq!(iv[2]["load_profile"][0]["per_second"], 520000.0);
}

#[test]
fn a_trend_renders_as_a_table_csv_and_again_from_its_json() {
    let files: Vec<String> = ["trend-1000.txt", "trend-0900.txt"]
        .iter()
        .map(|f| fixture(f))
        .collect();
    let dir = scratch();
    let saved = dir.path().join("trend.json");
    let csv = dir.path().join("trend.csv");
    let out = dbio()
        .arg("awr")
        .args(&files)
        .arg("--json")
        .arg(&saved)
        .arg("--csv")
        .arg(&csv)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(out).unwrap();
    for want in [
        "2 reports as a trend",
        "'log file sync' / 'log file parallel write'",
        "13.33x",
        "10800 / 4.00 ms",
        "Load profile per second",
        "1500000",
    ] {
        assert!(table.contains(want), "missing {want:?} in:\n{table}");
    }
    // #1 is the 09:00 report although it was given second.
    // (The intervals table's row: the answer above it names #1 too.)
    let first = table
        .lines()
        .find(|l| l.contains("#1 ") && l.contains(".txt"))
        .unwrap();
    assert!(first.contains("trend-0900.txt"), "{first}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("#2 02-Mar-25 10:00:00,commit_path,")
                && l.ends_with("log_file_sync_us,4000.0")),
        "{csv}"
    );
    let again = dbio()
        .args(["report", "--from"])
        .arg(&saved)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(again).unwrap(), table);
}

#[test]
fn reports_of_different_databases_are_refused_unless_allowed() {
    let a = fixture("trend-0900.txt");
    let b = fixture("other-db.txt");
    let out = dbio()
        .args(["awr", &a, &b])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("DBID 1111111111")
            && err.contains("DBID 2222222222")
            && err.contains("--allow-mixed"),
        "{err}"
    );
    let out = dbio()
        .args(["awr", &a, &b, "--allow-mixed", "--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["mixed"], true);
    assert_eq!(v["intervals"].as_array().unwrap().len(), 2);
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(notes[0].contains("different databases"), "{notes:?}");
    // The outlier rule would run within each database: one report each.
    assert!(
        notes.contains(
            &"the reports are of 2 databases or instances: the outlier and load rules run within each"
        ) && notes.contains(&"SYNTR instance syntr1: 1 report of one database: no outlier or load rule (a median and its absolute deviations need 5 or more)"),
        "{notes:?}"
    );
}

#[test]
fn compare_still_takes_two_reports() {
    let out = dbio()
        .args(["awr", "--compare"])
        .arg(fixture("trend-0900.txt"))
        .arg(fixture("trend-1000.txt"))
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json(&out)["command"], "awr --compare");
}

#[test]
fn with_trace_puts_the_trace_beside_the_report_and_flags_what_one_lacks() {
    let out = dbio()
        .arg("awr")
        .arg(fixture("decimal-comma.txt"))
        .arg("--with-trace")
        .arg(fixture("with-trace.trc"))
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let w = &v["with_trace"];
    assert_eq!(w["trace_sessions"], 1);
    assert_eq!(w["trace_wait_lines"], 6);
    let row = |name: &str| {
        w["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["event"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} missing: {w}"))
    };
    let lfs = row("log file sync");
    assert_eq!(lfs["seen_in"], "both");
    assert_eq!(lfs["trace_avg_us"], 5000.0);
    assert_eq!(lfs["report_avg_us"], 2000.0);
    assert_eq!(row("direct path read")["seen_in"], "report_only");
    let enq = row("enq: TX - row lock contention");
    assert_eq!(enq["seen_in"], "trace_only");
    assert_eq!(enq["trace_time_s"], 0.3);
    let out = dbio()
        .arg("awr")
        .arg(fixture("decimal-comma.txt"))
        .arg("--with-trace")
        .arg(fixture("with-trace.trc"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let s = String::from_utf8(out).unwrap();
    for want in [
        "the report covers the whole instance",
        "In the trace, not among the report's foreground wait events: 'enq: TX - row lock contention'",
        "In the report, not in the trace: 'direct path read'",
    ] {
        assert!(s.contains(want), "missing {want:?} in:\n{s}");
    }
}

#[test]
fn with_trace_refuses_a_trace_without_waits_and_several_reports() {
    let dir = scratch();
    let empty = dir.path().join("nowaits.trc");
    std::fs::write(
        &empty,
        "PARSE #1:c=1,e=1,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,tim=5\n",
    )
    .unwrap();
    let out = dbio()
        .arg("awr")
        .arg(fixture("trend-0900.txt"))
        .arg("--with-trace")
        .arg(&empty)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("holds no WAIT lines"), "{err}");
    let out = dbio()
        .arg("awr")
        .arg(fixture("trend-0900.txt"))
        .arg(fixture("trend-1000.txt"))
        .arg("--with-trace")
        .arg(fixture("with-trace.trc"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("give one report"), "{err}");
}

#[test]
fn a_decimal_comma_report_reads_a_bare_comma_group_as_a_fraction() {
    let v = trend_json(&["decimal-comma.txt"]);
    assert_eq!(v["decimal_comma"], true);
    // `60,00 (mins)`, `1.800.000` waits, and the bare `1,234` s: 1.234 s,
    // not 1234 s (its 500 waits average `2,47ms`).
    assert_eq!(v["header"]["elapsed_s"], 3600.0);
    let dpr = v["foreground_events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "direct path read")
        .cloned()
        .unwrap();
    assert_eq!(dpr["time_s"], 1.234);
    assert_eq!(dpr["avg_us"], 2470.0);
    assert_eq!(v["foreground_events"][0]["waits"], 1_800_000.0);
    // `3.600.000.000` / `600.000`: 6000 B per redo write.
    assert_eq!(v["derived"]["redo_write_size_bytes"], 6000.0);
    // A report with a decimal point keeps reading `1,234` as 1234.
    let p = trend_json(&["trend-0900.txt"]);
    assert!(p.get("decimal_comma").is_none());
    assert_eq!(p["foreground_events"][0]["waits"], 900_000.0);
}

#[test]
fn a_gap_between_intervals_is_noted() {
    let v = trend_json(&["trend-1100.txt", "trend-0900.txt"]);
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("no report covers 2025-03-02T10:00:00 to 2025-03-02T11:00:00")),
        "{notes:?}"
    );
    assert_eq!(v["mixed"], false);
}

#[test]
fn german_month_names_give_snapshot_times_and_order_the_trend() {
    // Reports spooled in a German session (`NLS_DATE_LANGUAGE=GERMAN`)
    // across the end of February: `Mär`, the blank-padded `März    -23`
    // of the `Month` element, and one report in ISO 8859-1 (`Mär` as the
    // byte 0xE4). Given out of order, they are ordered by time, not by
    // snapshot id with a note.
    let v = trend_json(&["de-0200-latin1.txt", "de-0000.txt", "de-2300.txt"]);
    let iv = v["intervals"].as_array().unwrap();
    let begins: Vec<&str> = iv
        .iter()
        .map(|i| i["header"]["begin_time"].as_str().unwrap())
        .collect();
    assert_eq!(
        begins,
        [
            "28-Feb-23 23:00:05",
            "01-März-23 00:00:10",
            "01-Mär-23 02:00:00"
        ]
    );
    assert_eq!(iv[0]["header"]["end_time"], "01-Mär-23 00:00:10");
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        !notes.iter().any(|n| n.contains("snapshot time")),
        "{notes:?}"
    );
    // The times are read, so the hour no report covers is found; the
    // first two meet exactly (no note between them).
    assert_eq!(
        notes,
        [
            "no report covers 2023-03-01T01:00:02 to 2023-03-01T02:00:00 (between ".to_string()
                + &fixture("de-0000.txt")
                + " and "
                + &fixture("de-0200-latin1.txt")
                + ")",
            "3 reports of one database: no outlier or load rule (a median and its absolute deviations need 5 or more)".to_string()
        ]
    );
    // 'log file sync' 2, 3, 4 ms in time order.
    let lfs: Vec<f64> = iv
        .iter()
        .map(|i| i["log_file_sync_us"].as_f64().unwrap())
        .collect();
    assert_eq!(lfs, [2000.0, 3000.0, 4000.0]);
}

fn hourly(hours: &[u32]) -> Vec<String> {
    hours
        .iter()
        .map(|h| fixture(&format!("hourly-{h:02}00.txt")))
        .collect()
}

fn trend_of(files: &[String]) -> serde_json::Value {
    let out = dbio()
        .arg("awr")
        .args(files)
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json(&out)
}

fn findings_of<'a>(v: &'a serde_json::Value, rule: &str) -> Vec<&'a str> {
    v["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|f| f["rule"] == rule)
                .map(|f| f["text"].as_str().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn six_hourly_reports_flag_the_outlier_hour_and_latency_that_rises_with_load() {
    // Six hours of SYNHR, given out of order; 12:00 has four times the
    // load, 'log file sync' at 12 ms against about 2 ms, single-block
    // reads at 2.4 ms against about 0.6 ms.
    let v = trend_of(&hourly(&[13, 8, 12, 9, 11, 10]));
    let outliers = findings_of(&v, "awr.trend.outlier");
    assert_eq!(outliers.len(), 3, "{outliers:#?}");
    for want in [
        "#5 (04-Mar-25 12:00:00): 'log file sync' average 12.0 ms, 48.7 median absolute deviations above the median of 2.25 ms over 6 intervals (MAD 200 µs; an outlier beyond 7); 65.0 % of the DB time of #5",
        "#5 (04-Mar-25 12:00:00): average active sessions 4.00, 11.4 median absolute deviations above the median of 1.15 over 6 intervals (MAD 0.25; an outlier beyond 7); 41.7 % of the DB time of the trend",
        "#5 (04-Mar-25 12:00:00): single-block read average 2.40 ms, 24.0 median absolute deviations above the median of 600 µs over 6 intervals (MAD 75.0 µs; an outlier beyond 7); 10.0 % of the DB time of #5",
    ] {
        assert!(outliers.contains(&want), "{want}\nnot in {outliers:#?}");
    }
    let answer = v["verdict"]["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("#5 (04-Mar-25 12:00:00) is the busiest of 6 intervals")
            && answer.ends_with("Outliers, beyond 7 median absolute deviations of the median: #5 (04-Mar-25 12:00:00): 'log file sync' average 12.0 ms, average active sessions 4.00, single-block read average 2.40 ms."),
        "{answer}"
    );
    // Both latencies follow the load hour by hour (ρ = 1); the log
    // writer's write does not: the commit path, not the log device.
    let load = findings_of(&v, "awr.trend.latency_with_load");
    assert_eq!(load.len(), 2, "{load:#?}");
    assert!(
        load.iter().any(|t| t.starts_with(
            "'log file sync' average rises with the load: Spearman ρ 1.00 over 6 intervals (strong from 0.83)"
        ) && t.ends_with("the log writer's posting and scheduling under load (CPU), not the log device")),
        "{load:#?}"
    );
    assert!(
        load.iter()
            .any(|t| t.starts_with("'db file sequential read' average rises with the load")),
        "{load:#?}"
    );
    assert!(v["notes"].as_array().unwrap().is_empty(), "{}", v["notes"]);
    // The log switch event, cut at 30 characters in the top events and at
    // 26 in the foreground list, is one trend event.
    let events: Vec<&str> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        [
            "log file sync",
            "db file sequential read",
            "log file switch (private strand flush incomplete)"
        ]
    );
    // Each interval keeps the figures the rule read.
    let noon = &v["intervals"][4];
    assert_eq!(noon["db_cpu_s"], 3000.0);
    assert!((noon["commits_per_s"].as_f64().unwrap() - 780_000.0 / 3600.0).abs() < 1e-9);
    assert_eq!(noon["single_block_read"]["avg_us"], 2400.0);
}

#[test]
fn five_reports_are_enough_for_the_outlier_rule_four_are_not() {
    let v = trend_of(&hourly(&[8, 9, 10, 11, 12]));
    assert_eq!(findings_of(&v, "awr.trend.outlier").len(), 3);
    assert!(v["notes"].as_array().unwrap().is_empty(), "{}", v["notes"]);
    let v = trend_of(&hourly(&[8, 9, 11, 12]));
    assert!(findings_of(&v, "awr.trend.outlier").is_empty());
    assert!(findings_of(&v, "awr.trend.latency_with_load").is_empty());
    // (After the gap where 10:00 is missing.)
    assert_eq!(
        v["notes"][1],
        "4 reports of one database: no outlier or load rule (a median and its absolute deviations need 5 or more)"
    );
    // The busiest interval still answers.
    assert!(v["verdict"]["answer"]
        .as_str()
        .unwrap()
        .starts_with("#4 (04-Mar-25 12:00:00) is the busiest of 4 intervals"));
}

#[test]
fn a_trend_table_names_its_outliers() {
    let out = dbio()
        .arg("awr")
        .args(hourly(&[8, 9, 10, 11, 12, 13]))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(out).unwrap();
    for want in [
        "Outliers, beyond 7 median absolute deviations of the median",
        "Findings of the trend",
        "rises with the load: Spearman ρ 1.00 over 6 intervals",
        "9360 / 12.0 ms",
    ] {
        assert!(table.contains(want), "missing {want:?} in:\n{table}");
    }
}

#[test]
fn compare_warns_first_when_the_reports_are_of_different_databases() {
    let out = dbio()
        .args(["awr", "--compare"])
        .arg(fixture("trend-0900.txt"))
        .arg(fixture("other-db.txt"))
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let first = &v["findings"][0];
    assert_eq!(first["rule"], "awr.compare.different_databases");
    assert_eq!(first["severity"], "warning");
    let text = first["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "A and B are reports of different databases (SYNTR (DB Id 1111111111) and OTHERDB (DB Id 2222222222))"
        ),
        "{text}"
    );
    assert_eq!(v["verdict"]["top"][0], 0);
    assert!(v["verdict"]["answer"].as_str().unwrap().starts_with(text));
    // Two hours of one database: no warning.
    let out = dbio()
        .args(["awr", "--compare"])
        .arg(fixture("hourly-0800.txt"))
        .arg(fixture("hourly-1200.txt"))
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["rule"] != "awr.compare.different_databases"));
}
