//! `dbio awr` end to end (issue 13): the real binary on the synthetic
//! reports in `crates/awr/tests/data`, the shared real fixtures when
//! present, pastes on standard input, `--compare`, every output, `dbio
//! report --from`, and its refusals.

use crate::util::{dbio, json, scratch};
use std::path::PathBuf;

fn data(name: &str) -> String {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/awr/tests/data"
    ))
    .join(name)
    .display()
    .to_string()
}

fn shared(name: &str) -> Option<String> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/oracle"
    ))
    .join(name);
    if p.exists() {
        Some(p.display().to_string())
    } else {
        eprintln!("skipped: fixture {} is absent", p.display());
        None
    }
}

#[test]
fn awr_prints_the_tables_and_findings_of_a_report() {
    let out = dbio()
        .args(["awr", &data("awr-19c-rac-crlf.txt")])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let s = String::from_utf8(out).unwrap();
    for want in [
        "an AWR text report",
        "SYNRAC",
        "synrac1 (RAC)",
        "redo write size (redo size / redo writes)",
        "6000 B",
        "'log file sync' / 'log file parallel write'",
        "Mystery Section Nobody Knows",
        "Findings",
        "'log file switch (checkpoint in",
    ] {
        assert!(s.contains(want), "missing {want:?} in:\n{s}");
    }
}

#[test]
fn the_real_awr_fixture_gives_the_text_s_numbers_in_json() {
    let Some(f) = shared("jasmin-awr-12201-aix.txt") else {
        return;
    };
    let out = dbio()
        .args(["awr", &f, "--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["command"], "awr");
    assert_eq!(v["kind"], "awr_text");
    let ev = |list: &str, name: &str| {
        v[list]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} not in {list}"))
    };
    let lfs = ev("foreground_events", "log file sync");
    assert_eq!(
        (lfs["waits"].as_f64(), lfs["avg_us"].as_f64()),
        (Some(77_820.0), Some(373.76))
    );
    let lfpw = ev("background_events", "log file parallel write");
    assert_eq!(
        (lfpw["waits"].as_f64(), lfpw["avg_us"].as_f64()),
        (Some(103_636.0), Some(386.73))
    );
}

#[test]
fn the_real_statspack_fixture_is_read() {
    let Some(f) = shared("jasmin-statspack-12102.txt") else {
        return;
    };
    let out = dbio()
        .args(["awr", &f, "--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["kind"], "statspack");
    assert_eq!(v["header"]["instance"], "clinprd1");
    assert_eq!(v["derived"]["log_switches_per_hour"], 2.0);
}

#[test]
fn a_paste_on_standard_input_reproduces_the_article_s_arithmetic() {
    let paste = "Event Statistic Total per Second per Trans redo size 48,438,904 267,760.27 2,734.50 redo write time 7,381 40.80 0.42 redo writes 17,734 98.03 1.00";
    let out = dbio()
        .args(["awr", "-", "--json", "-"])
        .write_stdin(paste)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["kind"], "pasted");
    assert_eq!(v["source"], "-");
    let size = v["derived"]["redo_write_size_bytes"].as_f64().unwrap();
    assert_eq!(size.floor(), 2731.0);
    let us = v["derived"]["redo_write_time_us"].as_f64().unwrap();
    assert_eq!((us / 100.0).round(), 42.0);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"awr.small_redo_writes"), "{rules:?}");
}

#[test]
fn what_is_not_a_report_is_refused_in_one_sentence() {
    let dir = scratch();
    let trace = dir.path().join("x.trc");
    std::fs::write(&trace, "PARSING IN CURSOR #1 len=5 dep=0\nselect 1\nEND OF STMT\nWAIT #1: nam='db file sequential read' ela= 5\n").unwrap();
    let bin = dir.path().join("x.bin");
    std::fs::write(&bin, [0u8, 159, 146, 150]).unwrap();
    for (p, why) in [
        (&trace, "it is an Oracle trace file; use `dbio tracefile`"),
        (&bin, "it is binary data"),
    ] {
        let out = dbio()
            .args(["awr"])
            .arg(p)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("is not an AWR or Statspack report") && err.contains(why),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = dbio()
        .args(["awr", "/nonexistent/report.txt"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot read /nonexistent/report.txt: No such file or directory"),
        "{err}"
    );
}

#[test]
fn compare_aligns_events_and_report_from_re_renders_it() {
    let dir = scratch();
    let a = dir.path().join("ssd.txt");
    let b = dir.path().join("usb.txt");
    let table = |lfs: &str, lfpw: &str| {
        format!(
            "Event                          Wait Class           Waits      Time(s)  Avg Time(ms)    %DB time
------------------------------ ------------- ------------ ------------ ------------- -----------
 log file sync                 Commit         {lfs}
 log file parallel write       System I/O     {lfpw}
"
        )
    };
    std::fs::write(
        &a,
        table(
            "    100,027        408.5           4.1        77.2",
            "     22,179          1.1           0.0         0.2",
        ),
    )
    .unwrap();
    std::fs::write(
        &b,
        table(
            "    100,030      2,084.1          20.8        95.5",
            "     14,032          0.9           0.1         0.0",
        ),
    )
    .unwrap();
    let saved = dir.path().join("cmp.json");
    let out = dbio()
        .args(["awr", "--compare"])
        .arg(&a)
        .arg(&b)
        .arg("--json")
        .arg(&saved)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let s = String::from_utf8(out).unwrap();
    // 20.8 ms against A's 4.1 ms, which 408.5 s over 100,027 waits puts
    // at 4.084 ms (the printed 4.1 is 4.05 to 4.15): B/A 5.09x, aligned
    // on the event's name.
    assert!(s.contains("Wait events (aligned by name)"), "{s}");
    let row = s
        .lines()
        .find(|l| l.starts_with("│ log file sync "))
        .unwrap();
    assert!(row.contains("5.09x") && row.contains("16.7 ms"), "{row}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(v["command"], "awr --compare");
    let again = dbio()
        .args(["report", "--from"])
        .arg(&saved)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(again).unwrap(), s);
    let csv = dbio()
        .args(["report", "--from"])
        .arg(&saved)
        .args(["--csv", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.starts_with("group,section,item,metric,value"), "{csv}");
    assert!(
        csv.contains("B,foreground_event,log file sync,avg_us,20800"),
        "{csv}"
    );
}

#[test]
fn the_same_report_twice_and_none_are_refused() {
    let f = data("awr-11g.html");
    let out = dbio()
        .args(["awr", &f, &f])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is given twice"), "{err}");
    let out = dbio().args(["awr"]).assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "give one AWR or Statspack report (several for a trend), or - for standard input"
        ),
        "{err}"
    );
}
