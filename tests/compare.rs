//! `dbio compare` (issue 14) on results saved by real short runs of every
//! measuring command and by `tracefile` and `awr` on small fixtures, its
//! outputs (table, JSON that `dbio report --from` re-renders, CSV), and
//! its refusals of bad input, each one sentence with status 2.

use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Runs `dbio ARGS --json FILE` (quiet), the result saved as `name` in `dir`.
fn saved(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    dbio()
        .args(args)
        .arg("--quiet")
        .arg("--json")
        .arg(&path)
        .succeeds();
    path
}

fn compare_json(files: &[&Path]) -> Value {
    let out = dbio()
        .arg("compare")
        .args(files)
        .args(["--json", "-"])
        .succeeds();
    json(&out.stdout)
}

/// The row of `section`, `entry`, `metric`.
fn row<'a>(c: &'a Value, section: &str, entry: &str, metric: &str) -> &'a Value {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["section"] == section && r["entry"] == entry && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {section} {entry} {metric} in {}", c["rows"]))
}

fn fails(args: &[&str], files: &[&Path]) -> String {
    let out = dbio()
        .args(args)
        .args(files)
        .output()
        .expect("running dbio");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "nothing printed before the refusal");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "one sentence: {err}");
    err
}

#[test]
fn lgwr_runs_are_aligned_with_ratios_spreads_verdicts_and_differing_settings() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let run = |name: &str, bs: &str| {
        saved(
            d.path(),
            name,
            &[
                "lgwr",
                "--sessions",
                "2",
                "--runtime",
                "3.3s",
                "--bs",
                bs,
                "--file-size",
                "1m",
                "--files",
                "4",
                dir,
            ],
        )
    };
    let a = run("a.json", "512");
    let b = run("b.json", "4096");
    let c = compare_json(&[&a, &b, &a]);
    assert_eq!(c["command"], "compare");
    assert_eq!(c["compared_command"], "lgwr");
    assert_eq!(c["inputs"][1]["label"], "B");
    assert_eq!(c["inputs"][1]["file"], b.display().to_string());

    // The block size is named as a setting that differs, with its values.
    let s = c["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "block_size")
        .unwrap_or_else(|| panic!("block_size not among {}", c["settings"]));
    assert_eq!(s["scope"], "lgwr");
    assert_eq!(s["values"], serde_json::json!(["512", "4096", "512"]));

    // Values are each input's own figure; ratios against the first.
    let va: Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let vb: Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    let tps = row(&c, "lgwr", "lgwr", "TPS");
    let (ta, tb) = (
        va["lgwr"][0]["tps"].as_f64().unwrap(),
        vb["lgwr"][0]["tps"].as_f64().unwrap(),
    );
    assert_eq!(tps["values"][0].as_f64().unwrap(), ta);
    assert_eq!(tps["values"][1].as_f64().unwrap(), tb);
    assert!((tps["ratios"][1].as_f64().unwrap() - tb / ta).abs() < 1e-9);
    assert!(tps["ratios"][0].is_null());
    assert_eq!(tps["unit"], "per_second");
    assert_eq!(tps["higher_is_better"], true);

    // One round each: the spread is the per-second TPS; the input compared
    // with itself is within the noise, by the stated rule.
    assert_eq!(tps["spread_source"]["kind"], "per_second");
    assert_eq!(tps["spread_source"]["series"], "tps");
    assert_eq!(tps["spreads"][0]["n"], 3, "3.3 s: three whole seconds");
    assert_eq!(tps["verdicts"][2], "within_noise");
    assert!(["within_noise", "beyond_noise"].contains(&tps["verdicts"][1].as_str().unwrap()));
    assert!(c["noise_rule"].as_str().unwrap().contains("interquartile"));

    // The table shows the same, and the saved comparison re-renders to it.
    let table = dbio().arg("compare").args([&a, &b, &a]).succeeds().stdout;
    let table = String::from_utf8(table).unwrap();
    for want in [
        "Comparing 3 'lgwr' results",
        "block_size",
        "B/A",
        "C/A",
        "~",
        "log file sync p99",
    ] {
        assert!(table.contains(want), "{want:?} missing in:\n{table}");
    }
    let cmp = d.path().join("cmp.json");
    dbio()
        .arg("compare")
        .args([&a, &b, &a])
        .arg("--json")
        .arg(&cmp)
        .succeeds();
    let again = dbio()
        .args(["report", "--from"])
        .arg(&cmp)
        .succeeds()
        .stdout;
    assert_eq!(String::from_utf8(again).unwrap(), table);

    // CSV: a row per input and figure, and the differing setting.
    let csv = dbio()
        .arg("compare")
        .args([&a, &b])
        .args(["--csv", "-"])
        .succeeds()
        .stdout;
    let csv = String::from_utf8(csv).unwrap();
    assert!(
        csv.starts_with("kind,section,entry,metric,unit,input,value,ratio,"),
        "{csv}"
    );
    assert!(
        csv.contains(&format!("figure,lgwr,lgwr,TPS,per_second,B,{tb},")),
        "{csv}"
    );
    assert!(csv.contains("setting,lgwr,,block_size,,B,4096"), "{csv}");
}

#[test]
fn bench_read_dbwr_and_load_results_compare_by_job_and_configuration() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let bench = saved(
        d.path(),
        "bench.json",
        &[
            "bench",
            dir,
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--size",
            "2m",
            "--runtime",
            "1.2s",
        ],
    );
    let bench4 = saved(
        d.path(),
        "bench8k.json",
        &[
            "bench",
            dir,
            "--rw",
            "randread",
            "--bs",
            "8k",
            "--size",
            "2m",
            "--runtime",
            "1.2s",
        ],
    );
    let c = compare_json(&[&bench, &bench4]);
    assert_eq!(c["compared_command"], "bench");
    let iops = row(&c, "job", "bench", "read IOPS");
    assert!(iops["values"][1].as_f64().unwrap() > 0.0);
    // bench's own samples, in the common shape: one whole second each.
    assert_eq!(iops["spread_source"]["series"], "read_iops");
    assert_eq!(iops["spreads"][0]["n"], 1);
    assert!(
        iops["verdicts"][1].is_null(),
        "one second is too few to judge"
    );
    assert!(c["settings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["scope"] == "job 'bench'" && s["name"] == "bs" && s["values"][1] == "8192"));

    for (name, args, section, entry, metric) in [
        (
            "read.json",
            vec![
                "read",
                "--size",
                "4m",
                "--runtime",
                "1.1s",
                "--cached",
                "100",
                dir,
            ],
            "read",
            "cached=100%",
            "IOPS",
        ),
        (
            "dbwr.json",
            vec![
                "dbwr",
                "--size",
                "8m",
                "--buffers",
                "256",
                "--runtime",
                "1.1s",
                dir,
            ],
            "dbwr",
            "writers=1",
            "ops/s",
        ),
        (
            "load.json",
            vec!["load", "--dir", dir, "--sessions", "1", "--runtime", "1.1s"],
            "load",
            "load",
            "TPS",
        ),
    ] {
        let f = saved(d.path(), name, &args);
        let c = compare_json(&[&f, &f]);
        assert_eq!(c["compared_command"], args[0]);
        let r = row(&c, section, entry, metric);
        assert_eq!(r["ratios"][1], 1.0, "{name}: {r}");
        assert!(
            c["settings"].as_array().unwrap().is_empty(),
            "{name}: {}",
            c["settings"]
        );
    }
}

#[test]
fn trace_and_awr_results_compare_events_by_name() {
    let d = scratch();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/oracle/tests/data");
    let t1 = saved(
        d.path(),
        "t1.json",
        &["tracefile", data.join("ninei-9201.trc").to_str().unwrap()],
    );
    let t2 = saved(
        d.path(),
        "t2.json",
        &[
            "tracefile",
            data.join("shared-server-19c.trc").to_str().unwrap(),
        ],
    );
    let c = compare_json(&[&t1, &t2]);
    assert_eq!(c["compared_command"], "tracefile");
    let v1: Value = serde_json::from_str(&std::fs::read_to_string(&t1).unwrap()).unwrap();
    let resp = row(&c, "response time", "all", "response time");
    assert_eq!(
        resp["values"][0],
        v1["profile"]["response_time_us"].as_f64().unwrap()
    );
    let ev = &v1["events"][0];
    let r = row(&c, "event", ev["name"].as_str().unwrap(), "count");
    assert_eq!(r["values"][0], ev["count"].as_f64().unwrap());

    let awr = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/awr/tests/data");
    let a1 = saved(
        d.path(),
        "a1.json",
        &["awr", awr.join("awr-19c-rac-crlf.txt").to_str().unwrap()],
    );
    let a2 = saved(
        d.path(),
        "a2.json",
        &["awr", awr.join("awr-11g.html").to_str().unwrap()],
    );
    let c = compare_json(&[&a1, &a2]);
    assert_eq!(c["compared_command"], "awr");
    assert!(c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["section"] == "top event"));
    assert!(
        c["settings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "header.version"),
        "{}",
        c["settings"]
    );
}

#[test]
fn a_version_2_result_a_partial_one_and_standard_input_are_compared() {
    let (old, _) = v2_fixture("lgwr-time");
    let d = scratch();
    let new = saved(
        d.path(),
        "new.json",
        &["lgwr", "--null", "--sessions", "2", "--commits", "200"],
    );
    let c = compare_json(&[&old, &new]);
    let r = row(&c, "lgwr", "lgwr", "log file sync p50");
    assert!(r["values"][0].as_f64().unwrap() > 0.0 && r["values"][1].as_f64().unwrap() > 0.0);
    // The old file has no series: no spread and no verdict for it.
    assert!(row(&c, "lgwr", "lgwr", "TPS")["verdicts"].is_null());

    // A partial input is marked, and said so; standard input is one input.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&new).unwrap()).unwrap();
    v["partial"] = serde_json::json!({"kind": "signal", "signal": "SIGINT"});
    let out = dbio()
        .args(["compare", "-"])
        .arg(&old)
        .args(["--json", "-"])
        .write_stdin(serde_json::to_string(&v).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = json(&out.stdout);
    assert_eq!(c["inputs"][0]["file"], "standard input");
    assert_eq!(c["inputs"][0]["partial"], "interrupted by SIGINT");
    assert!(
        c["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "compare.note"
                && f["text"]
                    .as_str()
                    .unwrap()
                    .contains("A (standard input) is partial")),
        "{}",
        c["findings"]
    );
}

#[test]
fn bad_input_is_refused_in_one_sentence_before_anything_is_printed() {
    let d = scratch();
    let lgwr = saved(
        d.path(),
        "lgwr.json",
        &["lgwr", "--null", "--sessions", "1", "--commits", "50"],
    );
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/oracle/tests/data");
    let trace = saved(
        d.path(),
        "trace.json",
        &["tracefile", data.join("ninei-9201.trc").to_str().unwrap()],
    );
    let missing = d.path().join("missing.json");
    let err = fails(&["compare"], &[&lgwr, &missing]);
    assert!(
        err.contains("missing.json") && err.contains("No such file"),
        "{err}"
    );

    let not_json = d.path().join("notes.txt");
    std::fs::write(&not_json, "cold cache, 3 runs\n").unwrap();
    let err = fails(&["compare"], &[&lgwr, &not_json]);
    assert!(err.contains("notes.txt: not a dbio JSON result"), "{err}");

    let text = std::fs::read_to_string(&lgwr).unwrap();
    let cut = d.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let err = fails(&["compare"], &[&lgwr, &cut]);
    assert!(err.contains("cut.json: not a dbio JSON result"), "{err}");

    let binary = d.path().join("binary.json");
    std::fs::write(&binary, b"{\xff\xfe}").unwrap();
    let err = fails(&["compare"], &[&lgwr, &binary]);
    assert!(err.contains("not UTF-8"), "{err}");

    let err = fails(&["compare"], &[&lgwr, &trace]);
    assert!(
        err.contains("'tracefile' result") && err.contains("'lgwr' result"),
        "{err}"
    );
    assert!(
        err.contains("only compares results of one command"),
        "{err}"
    );

    let err = fails(&["compare"], &[&lgwr]);
    assert!(err.contains("at least two results, got 1"), "{err}");

    let cmp = d.path().join("cmp.json");
    dbio()
        .arg("compare")
        .args([&lgwr, &lgwr])
        .arg("--json")
        .arg(&cmp)
        .succeeds();
    let err = fails(&["compare"], &[&cmp, &cmp]);
    assert!(err.contains("already a comparison"), "{err}");
}

// See: issue 23.
#[test]
fn two_runs_on_different_targets_say_the_target_differs() {
    let d = scratch();
    let mut saved = Vec::new();
    for t in ["a", "b"] {
        let dir = d.path().join(t);
        std::fs::create_dir(&dir).unwrap();
        let json = d.path().join(format!("{t}.json"));
        let out = dbio()
            .args(["lgwr", "--quiet", "--sessions", "1", "--commits", "50"])
            .args(["--file-size", "1M", "--json", json.to_str().unwrap()])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        saved.push(json);
    }
    let out = dbio().arg("compare").args(&saved).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("No setting differs"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("environment") && l.contains(" target "))
        .unwrap_or_else(|| panic!("no target row: {text}"));
    assert!(row.contains("/a") && row.contains("/b"), "{row}");
}
