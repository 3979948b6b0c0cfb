//! `dbio lgwr --pipeline` and `--cpu-includes-commit-path` through the
//! binary: the later stage is reported, the options are refused in one
//! sentence where they cannot apply. See: issue 11.

use crate::util::{dbio, json, Succeeds};

#[test]
fn lgwr_pipeline_reports_its_later_stage() {
    let args = [
        "lgwr",
        "--null-delay",
        "1ms",
        "--protocol",
        "leader",
        "--syncs-per-flush",
        "2",
        "--pipeline",
        "--txn-cpu",
        "50us",
        "--cpu-includes-commit-path",
        "--sessions",
        "4",
        "--commits",
        "25",
    ];
    let out = dbio()
        .args(args)
        .args(["--quiet", "--json", "-"])
        .succeeds();
    let v = json(&out.stdout);
    let x = &v["lgwr"][0];
    assert_eq!(x["commits"], 100);
    assert_eq!(x["config"]["pipeline"], true);
    assert_eq!(x["config"]["cpu_includes_commit_path"], true);
    let st = &x["stages"][0];
    let writes = st["writes"].as_u64().unwrap();
    let cpw = st["commits_per_write"].as_f64().unwrap();
    // Every commit passed the later stage once.
    assert_eq!((writes as f64 * cpw).round() as u64, 100, "{st}");
    assert!(
        x["writer"]["flush_cpu_per_commit_ns"].as_f64().is_some(),
        "{x}"
    );
    let text = dbio().args(args).succeeds();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("stage 2 (a group commit of its own)"),
        "{text}"
    );
    assert!(text.contains("as pipelined group commits"), "{text}");
    // The later stages' time is named where the breakdown puts it.
    assert!(
        text.contains("post until the session runs: the later stages, scheduling"),
        "{text}"
    );
}

#[test]
fn lgwr_pipeline_without_a_leader_is_refused_before_any_file() {
    let d = crate::util::scratch();
    for (extra, says) in [
        (
            &["--syncs-per-flush", "2", "--pipeline"][..],
            "--pipeline makes each durable write a group commit with a leader of its own: it needs --protocol leader",
        ),
        (
            &["--txn-cpu", "10us", "--cpu-includes-commit-path"][..],
            "--cpu-includes-commit-path takes the sessions' own commit-path CPU, flushes included, off --txn-cpu: it needs --protocol leader",
        ),
    ] {
        let out = dbio()
            .args(["lgwr", "--commits", "5"])
            .args(extra)
            .arg(d.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
