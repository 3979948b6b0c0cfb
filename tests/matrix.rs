//! `dbio matrix` end to end: a small real matrix on dbio's own scratch
//! file (O_DIRECT through libaio, checked against the device's own
//! counters), ORION's CSV layout, the CALIBRATE_IO search on the null
//! engine's injected service time (arithmetic with known answers), and bad
//! input refused in one sentence before anything is touched. See: issue 15.

use crate::util::{dbio, dbio_files, json, scratch};

fn matrix_json(args: &[&str]) -> serde_json::Value {
    let out = dbio()
        .arg("matrix")
        .args(args)
        .args(["--json", "-", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "dbio matrix {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

#[test]
fn matrix_measures_a_small_real_grid_on_its_own_scratch_file() {
    let d = scratch();
    let orion = scratch();
    let dir = d.path().to_str().unwrap();
    let v = matrix_json(&[
        dir,
        "--small",
        "1,2",
        "--large",
        "0,1",
        "--runtime",
        "0.3",
        "--warmup",
        "0.05",
        "--size",
        "64m",
        "--orion-csv",
        orion.path().to_str().unwrap(),
        "--orion-name",
        "t",
    ]);
    assert_eq!(v["command"], "matrix");
    let m = &v["matrix"];
    assert_eq!(m["config"]["engine"], "libaio");
    assert_eq!(m["config"]["ladder_source"], "given");
    let points = m["points"].as_array().unwrap();
    let pairs: Vec<(u64, u64)> = points
        .iter()
        .map(|p| (p["small"].as_u64().unwrap(), p["large"].as_u64().unwrap()))
        .collect();
    assert_eq!(pairs, vec![(1, 0), (2, 0), (1, 1), (2, 1)]);
    for p in points {
        let iops = p["small_iops"].as_f64().unwrap();
        assert!(iops > 0.0, "{p}");
        let l = &p["small_lat"];
        let (p50, p99, p999) = (
            l["p50_ns"].as_u64().unwrap(),
            l["p99_ns"].as_u64().unwrap(),
            l["p99_9_ns"].as_u64().unwrap(),
        );
        assert!(0 < p50 && p50 <= p99 && p99 <= p999, "{p}");
        let large = p["large"].as_u64().unwrap();
        assert_eq!(p["large_mbps"].as_f64().unwrap() > 0.0, large > 0, "{p}");
        // O_DIRECT: every small read of the point reached the device (the
        // counter is the whole disk's, so it can only be larger).
        if let Some(dev) = p.get("device") {
            let ops = iops * p["runtime_ns"].as_f64().unwrap() / 1e9;
            let reads = dev["reads"].as_f64().unwrap();
            assert!(
                reads >= 0.99 * ops,
                "{reads} device reads for {ops} small reads: {p}"
            );
            let util = p["device_util_pct"].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&util), "{p}");
        }
    }
    // dbio's scratch file is gone.
    assert!(dbio_files(d.path()).is_empty());
    // ORION's layout, cell for cell the JSON's figures.
    let read = |s: &str| std::fs::read_to_string(orion.path().join(format!("t_{s}.csv"))).unwrap();
    let iops = read("iops");
    let lines: Vec<&str> = iops.lines().collect();
    assert_eq!(lines[0], "Large/Small,1,2");
    let cell = |s, l| {
        let p = points
            .iter()
            .find(|p| p["small"] == s && p["large"] == l)
            .unwrap();
        format!("{:.0}", p["small_iops"].as_f64().unwrap())
    };
    assert_eq!(lines[1], format!("0,{},{}", cell(1, 0), cell(2, 0)));
    assert_eq!(lines[2], format!("1,{},{}", cell(1, 1), cell(2, 1)));
    let mbps = read("mbps");
    assert!(mbps.starts_with("Large/Small,1,2\n0,,\n1,"), "{mbps}");
    assert_eq!(read("lat").lines().count(), 3);
}

/// The null engine with 1 ms per I/O: latency can never be below 1 ms, and
/// n outstanding I/Os can never exceed n / 1 ms. A 20 ms target is met by
/// the whole ladder; a 900 µs one by nothing (exact, whatever the load on
/// the machine), which skips the rest of the ladder and says so.
#[test]
fn matrix_search_on_the_null_engine_does_calibrate_ios_arithmetic() {
    let base = [
        "--engine",
        "null",
        "--null-delay",
        "1ms",
        "--small",
        "1,2,4",
        "--large",
        "0,1",
        "--runtime",
        "0.3",
        "--warmup",
        "0.05",
    ];
    let mut args = base.to_vec();
    args.extend(["--max-latency", "20ms", "--label", "host-7"]);
    let v = matrix_json(&args);
    // `--label` is recorded as in every measuring command (issue 15).
    assert_eq!(v["label"], "host-7");
    let s = &v["matrix"]["search"];
    assert_eq!(s["max_latency_ns"], 20_000_000);
    assert_eq!(s["max_iops_outstanding"], 4);
    let iops = s["max_iops"].as_f64().unwrap();
    assert!(iops > 0.0 && iops <= 4000.0, "{iops} IOPS at 4 × 1 ms");
    // Little's law on every point: outstanding = IOPS × mean latency. The
    // worker's own time between I/Os is outside the latency, so the
    // product may fall short of n (by any amount on a starved machine,
    // whose scheduler leaves the worker waiting between I/Os), but can
    // never exceed it.
    for p in v["matrix"]["points"].as_array().unwrap() {
        let n = p["small"].as_f64().unwrap();
        if n == 0.0 {
            continue;
        }
        let lat = p["small_lat"]["mean_ns"].as_f64().unwrap();
        assert!(
            lat >= 1e6 && p["small_lat"]["p50_ns"].as_u64().unwrap() >= 1_000_000,
            "{p}"
        );
        let busy = p["small_iops"].as_f64().unwrap() * lat / 1e9;
        assert!(
            busy > 0.0 && busy <= 1.02 * n,
            "{busy} in flight of {n}: {p}"
        );
    }
    let one = s["latency_at_one_ns"].as_f64().unwrap();
    assert!(
        (1e6..5e6).contains(&one),
        "{one} ns at one outstanding 1 ms I/O"
    );
    // Large I/Os alone: 1 stream of 1 MiB per ≥ 1 ms ≤ 1048.6 MB/s.
    let mbps = s["max_mbps"].as_f64().unwrap();
    assert!(mbps > 0.0 && mbps <= 1048.6, "{mbps}");
    assert_eq!(s["max_mbps_outstanding"], 1);
    assert_eq!(s["skipped_points"], 0);
    let mut args = base.to_vec();
    args.extend(["--max-latency", "900us"]);
    let v = matrix_json(&args);
    let m = &v["matrix"];
    let s = &m["search"];
    assert!(s.get("max_iops_outstanding").is_none(), "{s}");
    assert_eq!(s["max_iops"], 0.0);
    assert_eq!(s["skipped_points"], 2, "2 and 4 are past the knee: {s}");
    let small: Vec<u64> = m["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["large"] == 0)
        .map(|p| p["small"].as_u64().unwrap())
        .collect();
    assert_eq!(small, vec![1]);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"matrix.target_unmet"), "{rules:?}");
}

#[test]
fn matrix_refuses_bad_input_in_one_sentence_before_touching_anything() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let mine = d.path().join("datafile.dbf");
    std::fs::write(&mine, vec![7u8; 4 << 20]).unwrap();
    let missing = d.path().join("no/such/dir");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![dir, "--small", "4,2"],
            "--small must climb: each count larger than the one before, not 4,2",
        ),
        (
            vec![dir, "--small", "0", "--large", "0"],
            "--small and --large are both 0 only: the matrix would have no I/O to measure",
        ),
        (vec![dir, "--small", "1,two"], "'two' is not a whole number"),
        (vec![dir, "--max-latency", "fast"], "--max-latency"),
        (vec![dir, "--max-latency", "5"], "--max-latency"),
        (
            vec![dir, "--small", "0", "--large", "1", "--max-latency", "5ms"],
            "--max-latency searches the small-I/O ladder, and --small has no count above 0",
        ),
        (
            vec![
                mine.to_str().unwrap(),
                "--write-pct",
                "10",
                "--size",
                "4m",
                "--large",
                "0",
            ],
            "--overwrite",
        ),
        (
            vec![missing.to_str().unwrap(), "--size", "4m"],
            "no/such does not exist",
        ),
        (
            vec![dir, "--orion-csv", missing.to_str().unwrap()],
            "is not a directory",
        ),
    ];
    for (args, want) in cases {
        let out = dbio().arg("matrix").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(
            err.trim().lines().count(),
            1,
            "{args:?}: one sentence, not {err}"
        );
    }
    // Nothing made, nothing changed.
    assert!(dbio_files(d.path()).is_empty());
    assert_eq!(std::fs::read(&mine).unwrap(), vec![7u8; 4 << 20]);
}

/// A target dbio cannot write (a read-only filesystem, even for root):
/// one sentence, status 2, nothing measured.
#[test]
fn matrix_on_a_target_it_cannot_write_fails_before_measuring() {
    let fs = or_skip!(crate::util::Tmpfs::mount("8m"));
    let st = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(fs.path())
        .status()
        .unwrap();
    assert!(st.success(), "remount ro: {st}");
    let out = dbio()
        .arg("matrix")
        .arg(fs.path())
        .args([
            "--size", "4m", "--small", "1", "--large", "0", "--json", "-",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        out.stdout.is_empty(),
        "a result was written: nothing was measured"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("Read-only file system") || err.contains("read-only"),
        "{err}"
    );
}

/// A search cut short by SIGINT keeps the points it measured but gives no
/// answer (an unfinished climb has not found the highest load), says why
/// in the JSON and the table, and exits 1. The null engine's 1 ms I/Os
/// keep every point under the 100 ms target, so the search would climb
/// all 4 small and 2 large points (about 7 s); the signal comes at 3.5 s.
#[test]
fn a_search_cut_short_by_sigint_keeps_its_points_and_gives_no_answer() {
    use std::process::{Command, Stdio};
    let d = scratch();
    let json_path = d.path().join("cut.json");
    let child = Command::new(crate::util::dbio_path())
        .args(["matrix", "--engine", "null", "--null-delay", "1ms"])
        .args([
            "--small",
            "1,2,4,8",
            "--large",
            "0,1,2",
            "--max-latency",
            "100ms",
        ])
        .args(["--runtime", "1", "--warmup", "0.1", "--quiet", "--json"])
        .arg(&json_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3500));
    // SAFETY: kill with a valid pid and signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = crate::util::wait_output_within(child, std::time::Duration::from_secs(30));
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    let v = json(&std::fs::read(&json_path).unwrap());
    assert_eq!(v["partial"]["signal"], "SIGINT");
    let m = &v["matrix"];
    let n = m["points"].as_array().unwrap().len();
    assert!((1..6).contains(&n), "{n} points: {m}");
    assert!(m.get("search").is_none(), "no answer: {m}");
    let why = m["no_answer"].as_str().unwrap();
    assert!(
        why.contains("interrupted by SIGINT") && why.contains(&format!("the {n} point")),
        "{why}"
    );
    assert!(
        table.contains("Search: no answer, the search was cut short"),
        "{table}"
    );
    assert!(!table.contains("max IOPS"), "{table}");
}
