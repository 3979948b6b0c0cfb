//! `dbio watch --bpf-stats`: the tracer's own BPF programs, timed by the
//! kernel's run-time statistics, against a command with a known number of
//! calls.

use crate::util::{dbio, dbio_path, is_root, json, scratch};
use serde_json::Value;

/// `dbio watch EXTRA -- dbio bench` (500 pwrite64 calls); its watch.
fn watched_bench(extra: &[&str]) -> Result<Value, String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let d = scratch();
    let f = d.path().join("data");
    let bin = dbio_path();
    let out = dbio()
        .args(["watch", "--no-block", "--json", "-"])
        .args(extra)
        .arg("--")
        .arg(&bin)
        .args([
            "bench", "--ops", "500", "--rw", "write", "--bs", "4k", "--size", "8M",
        ])
        .args([
            "--sync",
            "none",
            "--engine",
            "psync",
            "--prepare",
            "sparse",
            "--quiet",
        ])
        .args(["--json", "/dev/null"])
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return Err(format!("BPF on tracepoints is unavailable here: {err}"));
    }
    assert!(out.status.success(), "{err}");
    Ok(json(&out.stdout)["watch"][0].clone())
}

// See: issue 12.
#[test]
fn watch_reports_its_own_programs_run_time_with_bpf_stats() {
    let w = or_skip!(watched_bench(&["--bpf-stats"]));
    let progs = w["bpf_programs"].as_array().expect("bpf_programs");
    let prog = |name: &str| {
        progs
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {w}"))
    };
    for name in ["enter_pwrite64", "exit_pwrite64"] {
        let p = prog(name);
        // Every process's pwrite64 runs the programs: at least the
        // bench's 500.
        assert!(p["runs"].as_u64().unwrap() >= 500, "{p}");
        let ns = p["run_ns"].as_u64().unwrap();
        assert!(ns > 0, "{p}");
    }
    // Without the option the statistics are neither turned on nor
    // reported.
    let w = or_skip!(watched_bench(&[]));
    assert!(w.get("bpf_programs").is_none(), "{w}");
}
