//! `dbio lgwr`: group commit arithmetic through the binary, real log files
//! read back, bad input refused before any file is made, `--compare`.

use crate::util::{dbio, dbio_files, json, scratch};

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn lgwr_null_engine_groups_commits() {
    let out = dbio()
        .args([
            "lgwr",
            "--null-delay",
            "1ms",
            "--sessions",
            "10",
            "--commits",
            "100",
            "--quiet",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let x = &v["lgwr"][0];
    assert_eq!(x["commits"], 1000);
    assert_eq!(x["config"]["engine"], "null");
    let cpw = f(&x["writer"]["commits_per_write"]);
    assert!(cpw >= 3.0, "{cpw} commits per write");
    // Each write takes the injected 1 ms, so TPS ≈ commits per write / 1 ms
    // when the writer is never off its CPU. It can never be more; on a
    // loaded machine it is less, but still well beyond the 1,000 TPS that
    // writes of one commit each could reach.
    let tps = f(&x["tps"]);
    assert!(
        tps > 1500.0 && tps < 1.05 * cpw * 1000.0,
        "{tps} TPS at {cpw} per write"
    );
    let b = &x["breakdown"];
    let sum: f64 = ["wait_for_writer", "writer_io", "posting", "wake_up"]
        .iter()
        .map(|k| f(&b[k]["mean_ns"]))
        .sum();
    let lfs = f(&x["log_file_sync"]["mean_ns"]);
    assert!(
        (sum - lfs).abs() / lfs < 0.05,
        "parts {sum} vs log file sync {lfs}"
    );
    assert_eq!(x["sessions"].as_array().unwrap().len(), 10);
}

#[test]
fn lgwr_real_files_are_read_back_and_removed() {
    let d = scratch();
    let out = dbio()
        .args([
            "lgwr",
            "--sessions",
            "4",
            "--commits",
            "100",
            "--redo-size",
            "100-3000",
            "--file-size",
            "128k",
            "--max-write",
            "64k",
            "--files",
            "8",
            "--verify",
            "--quiet",
            "--json",
            "-",
        ])
        .arg(d.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let x = &v["lgwr"][0];
    assert_eq!(x["commits"], 400);
    assert_eq!(x["verify"]["checked"], 400, "{}", x["verify"]);
    assert_eq!(x["verify"]["bad"], 0);
    let w = &x["writer"];
    let written = w["written_bytes"].as_u64().unwrap();
    assert_eq!(
        written,
        w["redo_bytes"].as_u64().unwrap() + w["wastage_bytes"].as_u64().unwrap()
    );
    assert_eq!(written % 512, 0);
    assert!(w["log_switches"].as_u64().unwrap() >= 2);
    for s in w["switches"].as_array().unwrap() {
        let at = s["at_offset"].as_u64().unwrap();
        let next = s["next_write_bytes"].as_u64().unwrap();
        assert!(at <= 128 * 1024 && at + next > 128 * 1024, "{s}");
    }
    assert!(dbio_files(d.path()).is_empty(), "log files left behind");
}

#[test]
fn lgwr_refuses_bad_input_before_any_io() {
    let d = scratch();
    for (args, want) in [
        (vec!["--sessions", "0"], "--sessions must be at least 1"),
        (
            vec!["--block-size", "256"],
            "O_DIRECT cannot write 256-byte redo blocks",
        ),
        (
            vec!["--file-size", "512k"],
            "smaller than the largest log write",
        ),
        (
            vec!["--compare", "direct,nonsense"],
            "unknown method 'nonsense'",
        ),
    ] {
        let out = dbio()
            .arg("lgwr")
            .args(&args)
            .arg(d.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            std::fs::read_dir(d.path()).unwrap().next().is_none(),
            "{args:?} made files"
        );
    }
}

#[test]
fn lgwr_compare_puts_configurations_side_by_side() {
    let d = scratch();
    let out = dbio()
        .args([
            "lgwr",
            "--compare",
            "direct,buffered",
            "--rounds",
            "2",
            "--sessions",
            "4",
            "--commits",
            "50",
            "--file-size",
            "4m",
            "--files",
            "2",
            "--quiet",
            "--json",
            "-",
        ])
        .arg(d.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let xs = v["lgwr"].as_array().unwrap();
    assert_eq!(xs.len(), 2);
    assert_eq!(
        (xs[0]["name"].as_str(), xs[1]["name"].as_str()),
        (Some("direct"), Some("buffered"))
    );
    assert_eq!(xs[0]["config"]["method"], "direct-dsync");
    assert_eq!(xs[1]["config"]["method"], "buffered-dsync");
    for x in xs {
        assert_eq!(x["commits"], 400, "two rounds of 4 x 50");
        assert_eq!(x["round_tps"].as_array().unwrap().len(), 2);
    }
    // The table and the CSV render the same result.
    let json_file = d.path().join("r.json");
    std::fs::write(&json_file, &out.stdout).unwrap();
    let table = dbio()
        .args(["report", "--from"])
        .arg(&json_file)
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&table.stdout);
    assert!(
        t.contains("buffered / direct") && t.contains("log file parallel write"),
        "{t}"
    );
    let csv = dbio()
        .args(["report", "--csv", "-", "--from"])
        .arg(&json_file)
        .output()
        .unwrap();
    let c = String::from_utf8_lossy(&csv.stdout);
    assert!(
        c.lines()
            .any(|l| l.starts_with("lgwr,buffered,writer.commits_per_write,")),
        "{c}"
    );
}
