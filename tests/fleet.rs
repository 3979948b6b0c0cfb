//! Runs across many hosts: `--start-at` and `--label`, `dbio merge`, and
//! the orchestration in docs/fleet (an Ansible playbook run for real
//! against several local hosts, a Kubernetes manifest checked for shape).
// See: issue 15

use crate::util::{dbio, dbio_files, dbio_path, json, scratch, skip_this_test, Succeeds};
use std::path::Path;
use std::process::Command;

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

fn refused(args: &[&str]) -> String {
    let out = dbio().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim().lines().count(), 1, "one sentence: {err}");
    err
}

#[test]
fn a_start_in_the_past_or_a_day_ahead_is_refused_before_anything_is_made() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let past = (now_ns() / 1_000_000_000 - 10).to_string();
    let e = refused(&["bench", dir, "--start-at", &past]);
    assert!(
        e.contains("in the past") && e.contains("this host's clock"),
        "{e}"
    );
    let e = refused(&["read", dir, "--start-at", "2020-01-01T00:00:00Z"]);
    assert!(e.contains("in the past"), "{e}");
    let ahead = (now_ns() / 1_000_000_000 + 3 * 86_400).to_string();
    let e = refused(&["dbwr", dir, "--start-at", &ahead]);
    assert!(e.contains("ahead"), "{e}");
    let e = refused(&["bench", dir, "--start-at", "noon"]);
    assert!(e.contains("not a time"), "{e}");
    assert!(dbio_files(d.path()).is_empty());
}

#[test]
fn a_start_on_a_clock_less_certain_than_the_limit_is_refused_before_anything_is_made() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let start = (now_ns() / 1_000_000_000 + 30).to_string();
    // No kernel clock is within 1 µs of true time (an unsynchronised one
    // is refused for that; a synchronised one for its maximum error), so
    // this is refused whatever this machine's NTP state.
    for cmd in ["bench", "read", "matrix"] {
        let e = refused(&[cmd, dir, "--start-at", &start, "--max-clock-error", "1us"]);
        assert!(
            e.contains("cannot be trusted") && e.contains(" ms") && e.contains("off"),
            "{e}"
        );
    }
    assert!(dbio_files(d.path()).is_empty());
    let e = refused(&[
        "bench",
        dir,
        "--start-at",
        &start,
        "--max-clock-error",
        "soon",
    ]);
    assert!(e.contains("--max-clock-error"), "{e}");
}

#[test]
fn a_run_starts_at_its_start_time_and_records_it_with_its_label() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let start = now_ns() + 1_500_000_000;
    let t = format!("{}.{:09}", start / 1_000_000_000, start % 1_000_000_000);
    let out = dbio()
        .args([
            "bench",
            dir,
            "--size",
            "4m",
            "--ops",
            "200",
            "--start-at",
            &t,
        ])
        .args(["--label", "rack-7", "--json", "-", "--quiet"])
        // This test machine's clock need not be synchronised.
        .args(["--max-clock-error", "off"])
        .succeeds();
    let v = json(&out.stdout);
    assert_eq!(v["label"], "rack-7");
    // The clock's state, as adjtimex(2) read it, is recorded with the
    // limit in force (none: off).
    let c = &v["clock"];
    assert!(c["synchronised"].is_boolean(), "{c}");
    assert!(c["max_error_us"].as_u64().unwrap() <= 16_000_000, "{c}");
    assert!(c["est_error_us"].is_u64(), "{c}");
    assert!(c.get("limit_us").is_none(), "{c}");
    // The table says when the run was told to start and what the clock
    // was worth.
    let d2 = scratch();
    let saved = d2.path().join("r.json");
    std::fs::write(&saved, &out.stdout).unwrap();
    let out = dbio().args(["report", "--from"]).arg(&saved).succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(&format!("start at {}.", start / 1_000_000_000))
            && table.contains("maximum error")
            && table.contains("--max-clock-error off"),
        "{table}"
    );
    assert_eq!(v["start_at_unix_ns"].as_u64().unwrap(), start);
    let began = v["jobs"][0]["started_at_unix_ns"].as_u64().unwrap();
    // Never before the start (a wait on the same clock cannot end early).
    assert!(
        began >= start,
        "began {} ns before the start",
        start - began
    );
}

fn bench_part(dir: &str, label: &str, json_out: &Path, extra: &[&str]) {
    dbio()
        .args(["bench", dir, "--size", "4m", "--rw", "randrw", "--bs", "4k"])
        .args(["--ops", "3000", "--label", label, "--quiet", "--json"])
        .arg(json_out)
        .args(extra)
        .succeeds();
}

fn read(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Sums `[value, count]` HDR buckets by value.
fn hdr_sum(vs: &[&serde_json::Value]) -> std::collections::BTreeMap<u64, u64> {
    let mut m = std::collections::BTreeMap::new();
    for v in vs {
        for b in v.as_array().unwrap() {
            *m.entry(b[0].as_u64().unwrap()).or_insert(0) += b[1].as_u64().unwrap();
        }
    }
    m
}

#[test]
fn merge_sums_counts_merges_histograms_exactly_and_keeps_each_part() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let (a, b, c) = (
        d.path().join("a.json"),
        d.path().join("b.json"),
        d.path().join("c.json"),
    );
    bench_part(dir, "alpha", &a, &[]);
    bench_part(dir, "beta", &b, &["--engine", "psync", "--seed", "9"]);
    bench_part(dir, "gamma", &c, &[]);
    let m = d.path().join("m.json");
    // The parts ran one after the other here, not together.
    dbio()
        .arg("merge")
        .args([&a, &b])
        .arg("--allow-skew")
        .arg("--json")
        .arg(&m)
        .succeeds();
    let (va, vb, vm) = (read(&a), read(&b), read(&m));
    assert_eq!(vm["command"], "bench");
    let labels: Vec<&str> = vm["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["alpha", "beta"]);
    assert_eq!(
        vm["parts"][0]["jobs"], va["jobs"],
        "a part is kept unchanged"
    );
    let (ja, jb, jm) = (&va["jobs"][0], &vb["jobs"][0], &vm["jobs"][0]);
    for dir in ["read", "write"] {
        for k in ["ops", "bytes"] {
            assert_eq!(
                jm[dir][k].as_u64().unwrap(),
                ja[dir][k].as_u64().unwrap() + jb[dir][k].as_u64().unwrap(),
                "{dir} {k}"
            );
        }
        let lat = &jm[dir]["lat"];
        assert_eq!(
            lat["count"].as_u64().unwrap(),
            jm[dir]["ops"].as_u64().unwrap()
        );
        // The merged histogram is the sum of the parts' histograms.
        let merged: std::collections::BTreeMap<u64, u64> = hdr_sum(&[&lat["hdr"]]);
        assert_eq!(
            merged,
            hdr_sum(&[&ja[dir]["lat"]["hdr"], &jb[dir]["lat"]["hdr"]])
        );
        assert_eq!(
            lat["max_ns"].as_u64().unwrap(),
            ja[dir]["lat"]["max_ns"]
                .as_u64()
                .unwrap()
                .max(jb[dir]["lat"]["max_ns"].as_u64().unwrap())
        );
    }
    // A merged result merges again, and every output takes it.
    let out = dbio()
        .arg("merge")
        .args([&m, &c])
        .args(["--allow-skew", "--json", "-", "--quiet"])
        .succeeds();
    let v3 = json(&out.stdout);
    assert_eq!(v3["parts"].as_array().unwrap().len(), 3);
    assert_eq!(
        v3["jobs"][0]["read"]["ops"].as_u64().unwrap()
            + v3["jobs"][0]["write"]["ops"].as_u64().unwrap(),
        9000
    );
    let out = dbio()
        .arg("merge")
        .args([&a, &b, &c])
        .args(["--allow-skew", "--csv", "-"])
        .succeeds();
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.lines().count() >= 2, "{csv}");
    let out = dbio().args(["report", "--from"]).arg(&m).succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("merged from 2 parts") && table.contains("beta"),
        "{table}"
    );
}

/// A copy of the result at `from` whose measured interval began `shift_ns`
/// later, labelled `label`, written to `to`.
fn shifted(from: &Path, to: &Path, label: &str, shift_ns: u64) {
    let mut v = read(from);
    let t = v["jobs"][0]["started_at_unix_ns"].as_u64().unwrap();
    v["jobs"][0]["started_at_unix_ns"] = (t + shift_ns).into();
    v["label"] = label.into();
    std::fs::write(to, v.to_string()).unwrap();
}

#[test]
fn merge_refuses_parts_that_began_too_far_apart_and_shows_the_spread() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let a = d.path().join("a.json");
    bench_part(dir, "alpha", &a, &[]);
    let (near, far) = (d.path().join("near.json"), d.path().join("far.json"));
    shifted(&a, &near, "near", 5_000_000);
    shifted(&a, &far, "far", 50_000_000);
    let (a_s, near_s, far_s) = (
        a.to_str().unwrap(),
        near.to_str().unwrap(),
        far.to_str().unwrap(),
    );
    // 5 ms apart: within the default 20 ms, merged, the spread shown.
    let out = dbio()
        .args(["merge", a_s, near_s, "--json", "-", "--quiet"])
        .succeeds();
    let v = json(&out.stdout);
    let warnings = v["findings"].to_string();
    assert!(warnings.contains("within 5.000 ms"), "{warnings}");
    // 50 ms apart: refused in one sentence naming the spread and the parts.
    let e = refused(&["merge", a_s, far_s]);
    assert!(
        e.contains("50.000 ms apart")
            && e.contains("alpha first, far last")
            && e.contains("--max-skew 20.000 ms")
            && e.contains("--allow-skew"),
        "{e}"
    );
    // A wider tolerance takes it; --allow-skew takes it with a warning.
    dbio()
        .args(["merge", a_s, far_s, "--max-skew", "60ms", "--json", "-"])
        .succeeds();
    let out = dbio()
        .args(["merge", a_s, far_s, "--allow-skew", "--json", "-"])
        .succeeds();
    let v = json(&out.stdout);
    let warnings = v["findings"].to_string();
    assert!(
        warnings.contains("50.000 ms apart") && warnings.contains("merged anyway"),
        "{warnings}"
    );
    // A part whose clock was unsynchronised is named.
    let mut u = read(&near);
    u["clock"] = serde_json::json!({"synchronised": false, "max_error_us": 16000000, "est_error_us": 16000000});
    std::fs::write(&near, u.to_string()).unwrap();
    let out = dbio()
        .args(["merge", a_s, near_s, "--json", "-"])
        .succeeds();
    let warnings = json(&out.stdout)["findings"].to_string();
    assert!(
        warnings.contains("near: its clock was not synchronised"),
        "{warnings}"
    );
}

#[test]
fn merge_refuses_other_commands_and_other_jobs() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let (a, b) = (d.path().join("a.json"), d.path().join("b.json"));
    bench_part(dir, "a", &a, &[]);
    bench_part(dir, "b", &b, &["--threads", "2"]);
    let e = refused(&["merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(
        e.contains("differs") && e.contains("--threads 1 against 2"),
        "{e}"
    );
    let mut v = read(&a);
    v["command"] = "check".into();
    let c = d.path().join("c.json");
    std::fs::write(&c, v.to_string()).unwrap();
    let e = refused(&["merge", a.to_str().unwrap(), c.to_str().unwrap()]);
    assert!(e.contains("same command"), "{e}");
    let e = refused(&["merge", a.to_str().unwrap(), "/nonexistent/x.json"]);
    assert!(e.contains("x.json"), "{e}");
}

fn docs_fleet(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/fleet")
        .join(name)
}

/// Whether a tool is here; in CI (scripts/test installs it) its absence
/// is a failure, elsewhere a skip.
/// The interpreter Debian's python3-yaml is installed for.
const DEBIAN_PYTHON: &str = "/usr/bin/python3";

fn have(tool: &str, args: &[&str]) -> bool {
    let ok = Command::new(tool)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is missing, and scripts/test installs it in CI"
        );
        skip_this_test(&format!(
            "{tool} is not installed (scripts/test installs it)"
        ));
    }
    ok
}

#[test]
fn the_ansible_playbook_runs_every_host_at_one_start_and_merges() {
    if !have("ansible-playbook", &["--version"]) {
        return;
    }
    let d = scratch();
    let work = d.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let inv = d.path().join("inventory");
    let hosts = ["db1", "db2", "db3"];
    let mut text = String::from("[dbio]\n");
    for h in hosts {
        text.push_str(&format!("{h} ansible_connection=local\n"));
    }
    std::fs::write(&inv, text).unwrap();
    let results = d.path().join("results");
    let out_dir = d.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let args = format!(
        "dbio_args='bench {} --rw randread --size 8m --bs 4k --runtime 1 --max-clock-error off'",
        work.display()
    );
    let out = Command::new("ansible-playbook")
        .arg("-i")
        .arg(&inv)
        .arg(docs_fleet("dbio-fleet.yml"))
        .arg("-e")
        .arg(format!("dbio={}", dbio_path().display()))
        // The start is 30 s away: three local "hosts" launched by
        // ansible on a loaded 2-CPU machine have taken over 10 s to reach
        // their wait. Their wake-ups at the start are the scheduler's, so
        // merge is told to accept any skew, and the test checks what
        // merge says about it rather than a bound of its own.
        .args(["-e", &args, "-e", "dbio_delay_s=30"])
        .args(["-e", "dbio_merge_args=--allow-skew"])
        .arg("-e")
        .arg(format!("dbio_workdir={}", out_dir.display()))
        .arg("-e")
        .arg(format!("dbio_results={}", results.display()))
        .env("ANSIBLE_LOCAL_TEMP", d.path().join("ansible-tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ansible-playbook failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let m = read(&results.join("merged.json"));
    let parts = m["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3);
    let mut sum = 0;
    let mut starts = Vec::new();
    for (p, h) in parts.iter().zip(hosts) {
        assert_eq!(p["label"], h);
        assert_eq!(
            p["start_at_unix_ns"], m["start_at_unix_ns"],
            "one start for all"
        );
        sum += p["jobs"][0]["read"]["ops"].as_u64().unwrap();
        starts.push(p["jobs"][0]["started_at_unix_ns"].as_u64().unwrap());
        // Each host's own result, as collected, is the part.
        let own = read(&results.join(format!("{h}.json")));
        assert_eq!(own["jobs"], p["jobs"]);
    }
    assert_eq!(m["jobs"][0]["read"]["ops"].as_u64().unwrap(), sum);
    assert_eq!(m["jobs"][0]["read"]["lat"]["count"].as_u64().unwrap(), sum);
    // Merge names a skew beyond its default --max-skew (20 ms) and
    // merges anyway; within it, it says nothing.
    let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
    let warnings = m["findings"].to_string();
    assert_eq!(
        warnings.contains("merged anyway"),
        spread > 20_000_000,
        "the parts began {} ms apart: {warnings}",
        spread as f64 / 1e6
    );
    assert!(
        dbio_files(&work).is_empty(),
        "a temporary file was left behind"
    );
}

#[test]
fn the_kubernetes_manifest_is_an_indexed_job_running_dbio_at_one_start() {
    // Debian's python3, where scripts/test installs python3-yaml (a
    // `python3` earlier on PATH, such as pyenv's, may not have it).
    if !have(DEBIAN_PYTHON, &["-c", "import yaml"]) {
        return;
    }
    let script = r#"
import json, sys, yaml
print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))
"#;
    let load = |name: &str| -> Vec<serde_json::Value> {
        let out = Command::new(DEBIAN_PYTHON)
            .args(["-c", script])
            .arg(docs_fleet(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let docs = load("dbio-indexed-job.yaml");
    assert_eq!(docs.len(), 1);
    let job = &docs[0];
    assert_eq!(job["apiVersion"], "batch/v1");
    assert_eq!(job["kind"], "Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(
        spec["completions"], spec["parallelism"],
        "every pod at once"
    );
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never");
    let c = &pod["containers"][0];
    assert_eq!(c["command"][0], "dbio");
    let args: Vec<&str> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let after = |flag: &str| args[args.iter().position(|a| *a == flag).unwrap() + 1];
    assert_eq!(after("--start-at"), "$(START_AT)");
    assert!(after("--json").contains("$(JOB_COMPLETION_INDEX)"));
    assert!(after("--label").contains("$(JOB_COMPLETION_INDEX)"));
    let env = c["env"].as_array().unwrap();
    assert!(env.iter().any(|e| e["name"] == "START_AT"));
    // The arguments are ones dbio takes (with the variables filled in).
    let filled: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace(
                "$(START_AT)",
                &(now_ns() / 1_000_000_000 + 3600).to_string(),
            )
            .replace("$(JOB_COMPLETION_INDEX)", "0")
        })
        .collect();
    let out = dbio().args(&filled).arg("--help").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merge = load("dbio-merge-job.yaml");
    assert_eq!(merge[0]["kind"], "Job");
    let cmd = merge[0]["spec"]["template"]["spec"]["containers"][0]["args"][0]
        .as_str()
        .unwrap();
    assert!(cmd.contains("dbio merge /results/dbio-*.json"), "{cmd}");
}
