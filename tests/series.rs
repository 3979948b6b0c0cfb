//! Per-second series of `lgwr`, `read`, `dbwr` and `load` (issue 14):
//! recorded on real short runs, in the JSON, the CSV and the table, and
//! absent (not empty) from results written before them.

use crate::util::*;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The series called `name` of `entry`.
fn series<'a>(entry: &'a Value, name: &str) -> &'a Value {
    entry["per_second"]
        .as_array()
        .unwrap_or_else(|| panic!("no per_second in {entry}"))
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no series {name} in {}", entry["per_second"]))
}

/// The sum over the seconds of rate × the second's length: the events the
/// series counted.
fn counted(s: &Value) -> f64 {
    let t = s["t_s"].as_array().unwrap();
    let v = s["values"].as_array().unwrap();
    let mut before = 0.0;
    let mut sum = 0.0;
    for (t, v) in t.iter().zip(v) {
        sum += f(v) * (f(t) - before);
        before = f(t);
    }
    sum
}

/// Every series has one value per second, at increasing times, in its unit.
fn check_shape(entry: &Value, min_seconds: usize) {
    for s in entry["per_second"].as_array().unwrap() {
        let t = s["t_s"].as_array().unwrap();
        assert!(t.len() >= min_seconds, "{s}");
        assert_eq!(t.len(), s["values"].as_array().unwrap().len(), "{s}");
        assert!(t.windows(2).all(|w| f(&w[0]) < f(&w[1])), "{s}");
        assert!(["per_second", "ns", "ratio"].contains(&s["unit"].as_str().unwrap()));
    }
}

fn run_json(args: &[&str]) -> Value {
    let out = dbio()
        .args(args)
        .args(["--quiet", "--json", "-"])
        .succeeds();
    json(&out.stdout)
}

#[test]
fn lgwr_records_tps_log_file_sync_and_group_commit_per_second() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let v = run_json(&[
        "lgwr",
        "--sessions",
        "2",
        "--runtime",
        "2.6s",
        "--file-size",
        "1m",
        "--files",
        "4",
        dir,
    ]);
    let x = &v["lgwr"][0];
    check_shape(x, 2);
    let commits = f(&x["commits"]);
    // The seconds count every commit but those of the last 0.6 s, which
    // is too short an interval to keep.
    let c = counted(series(x, "tps"));
    assert!(c <= commits * 1.001 + 2.0, "{c} of {commits}");
    assert!(c >= commits * 0.5, "{c} of {commits}");
    let p50 = series(x, "log_file_sync_p50")["values"].as_array().unwrap();
    let p99 = series(x, "log_file_sync_p99")["values"].as_array().unwrap();
    for (a, b) in p50.iter().zip(p99) {
        assert!(f(a) > 0.0 && f(a) <= f(b), "{a} {b}");
    }
    let writes = counted(series(x, "writes_per_s"));
    assert!(writes > 0.0 && writes <= f(&x["writer"]["writes"]) + 2.0);
    for cpw in series(x, "commits_per_write")["values"].as_array().unwrap() {
        assert!((1.0..=2.0).contains(&f(cpw)), "2 sessions: {cpw}");
    }

    // The table summarises them; the CSV has a row per second.
    let out = dbio()
        .args([
            "lgwr",
            "--sessions",
            "1",
            "--runtime",
            "1.2s",
            "--file-size",
            "1m",
            "--files",
            "4",
        ])
        .arg(dir)
        .args(["--quiet", "--csv", "-"])
        .succeeds();
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.contains(",per_second.tps@1."), "{csv}");
    assert!(csv.contains(",per_second.log_file_sync_p99@1."), "{csv}");
    assert!(
        !csv.contains("per_second.0."),
        "series are not flattened: {csv}"
    );
    let saved = d.path().join("lgwr.json");
    std::fs::write(&saved, serde_json::to_string(&v).unwrap()).unwrap();
    let out = dbio().args(["report", "--from"]).arg(&saved).succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("second(s) sampled"), "{table}");
    assert!(table.contains("log_file_sync_p99"), "{table}");
}

#[test]
fn read_records_iops_and_latency_per_tier_per_second() {
    let d = scratch();
    let v = run_json(&[
        "read",
        "--size",
        "8m",
        "--runtime",
        "2.3s",
        "--cached",
        "100",
        d.path().to_str().unwrap(),
    ]);
    let x = &v["reads"][0];
    check_shape(x, 2);
    let ops = f(&x["ops"]);
    let c = counted(series(x, "iops"));
    assert!(c <= ops * 1.001 + 2.0 && c >= ops * 0.4, "{c} of {ops}");
    // A cached file is read from the page cache: that tier has a series
    // and its reads are most of each second's.
    let all = series(x, "iops")["values"].as_array().unwrap();
    let pc = series(x, "page_cache_iops")["values"].as_array().unwrap();
    for (a, p) in all.iter().zip(pc) {
        assert!(f(p) <= f(a) * 1.000_001 && f(p) > 0.0, "{p} of {a}");
    }
    let p99 = series(x, "page_cache_p99")["values"].as_array().unwrap();
    let limit = f(&x["thresholds"]["page_cache_max_ns"]);
    for p in p99 {
        assert!(f(p) < limit * 1.125, "page-cache p99 {p} within its tier");
    }
}

#[test]
fn dbwr_records_ops_writes_and_free_buffer_waits_per_second() {
    let d = scratch();
    let v = run_json(&[
        "dbwr",
        "--size",
        "16m",
        "--buffers",
        "256",
        "--runtime",
        "2.3s",
        d.path().to_str().unwrap(),
    ]);
    let x = &v["dbwr"][0];
    check_shape(x, 2);
    let ops = counted(series(x, "ops_per_s"));
    let total = f(&x["foreground"]["ops"]);
    assert!(ops > 0.0 && ops <= total * 1.001 + 16.0, "{ops} of {total}");
    let writes = counted(series(x, "writes_per_s"));
    assert!(writes <= f(&x["writes"]["blocks_written"]) * 1.001 + 64.0);
    let waits = counted(series(x, "free_buffer_waits_per_s"));
    assert!(waits <= f(&x["foreground"]["free_buffer_waits"]["count"]) + 16.0);
}

#[test]
fn load_records_commits_and_commit_latency_per_second_on_sqlite() {
    let d = scratch();
    let v = run_json(&[
        "load",
        "--dir",
        d.path().to_str().unwrap(),
        "--sessions",
        "2",
        "--runtime",
        "2.3s",
    ]);
    let x = &v["load"][0];
    check_shape(x, 2);
    // The commit counts are the older `series`' (the same counters).
    let tps = series(x, "tps")["values"].as_array().unwrap();
    let old: Vec<f64> = x["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| f(&s["tps"]))
        .collect();
    assert_eq!(tps.iter().map(f).collect::<Vec<_>>(), old);
    let p50 = series(x, "commit_p50")["values"].as_array().unwrap();
    let p99 = series(x, "commit_p99")["values"].as_array().unwrap();
    let max = f(&x["commit"]["max_ns"]);
    for (a, b) in p50.iter().zip(p99) {
        if a.is_null() {
            continue;
        }
        assert!(
            f(a) <= f(b) && f(b) <= max * 1.125 + 1.0,
            "{a} {b} max {max}"
        );
    }
}

#[test]
fn results_written_before_series_have_none_and_keep_their_tables() {
    for name in ["lgwr-time", "read", "dbwr-real"] {
        let v = v2_renders_as_then(name);
        let text = v.to_string();
        assert!(!text.contains("per_second"), "{name}: {text}");
    }
}
