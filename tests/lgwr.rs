//! `dbio lgwr`: group commit arithmetic through the binary, real log files
//! read back, bad input refused before any file is made, `--compare`.

use crate::util::{dbio, dbio_files, json, scratch, Succeeds};

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
        .succeeds();
    let v = json(&out.stdout);
    let x = &v["lgwr"][0];
    assert_eq!(x["commits"], 1000);
    // The null engine with its injected time, as the configuration says.
    assert_eq!(x["config"]["null_delay_ns"], 1_000_000);
    // Counts, and bounds the injected 1 ms sets, which a slow or loaded
    // machine can only move further away from: no ratio of measured times.
    let w = &x["writer"];
    let writes = w["writes"].as_u64().unwrap();
    // Each session's 100 commits are in different writes; ten sessions
    // committing during a 1 ms write share the next one.
    assert!((100..=500).contains(&writes), "{writes} writes");
    let counts: Vec<u64> = w["commits_per_write_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), writes);
    let covered: u64 = counts.iter().enumerate().map(|(n, c)| n as u64 * c).sum();
    assert_eq!(covered, 1000);
    assert_eq!(w["log_file_parallel_write"]["count"], writes);
    // Nothing that contains the 1 ms write can be shorter (HDR: 1 %).
    for v in [
        &w["log_file_parallel_write"],
        &x["log_file_sync"],
        &x["breakdown"]["writer_io"],
    ] {
        assert!(f(&v["min_ns"]) >= 0.99e6, "{v}");
    }
    assert_eq!(x["breakdown"]["writer_io"]["count"], 1000);
    // A session waits for at least one 1 ms write per commit.
    let sessions = x["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 10);
    for s in sessions {
        assert_eq!(s["commits"], 100);
        assert!(f(&s["tps"]) <= 1001.0, "{s}");
    }
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
            "1000",
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
        .succeeds();
    let v = json(&out.stdout);
    let x = &v["lgwr"][0];
    assert_eq!(x["commits"], 400);
    assert_eq!(x["verify"]["checked"], 400, "{}", x["verify"]);
    assert_eq!(x["verify"]["bad"], 0);
    let w = &x["writer"];
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    // Redo from the arithmetic (400 records of 1000 bytes), bytes written
    // against the kernel's count for this process (O_DIRECT writes, one
    // member, files made before the measured run), wastage the rest. The
    // kernel's count also holds the metadata pages the process dirtied
    // (an inode's mtime, a directory block: `mark_buffer_dirty` charges a
    // clean page to the task that dirties it), whole pages and only when
    // writeback had cleaned them since, which depends on the journal's
    // timing: at most two per log file here.
    let written = n(&w["written_bytes"]);
    assert_eq!(n(&w["redo_bytes"]), 400 * 1000);
    let kernel = n(&x["io"]["proc_write_bytes"]);
    assert!(
        kernel >= written && (kernel - written) % 4096 == 0 && kernel - written <= 16 * 4096,
        "written {written}, the kernel counted {kernel}"
    );
    assert_eq!(n(&w["wastage_bytes"]), written - 400 * 1000);
    assert_eq!(written % 512, 0);
    // The per-commit device figures are the device's counts over the
    // commits (where the disk under the scratch directory is known).
    if let Some(dev) = x["io"]["device"].as_object() {
        for (count, per) in [
            ("writes", "device_writes_per_commit"),
            ("reads", "device_reads_per_commit"),
        ] {
            let want = dev[count].as_f64().unwrap() / 400.0;
            let got = x["io"][per].as_f64().unwrap();
            assert!((got - want).abs() < 1e-9, "{per}: {got} vs {want}");
        }
    }
    assert!(n(&w["wastage_bytes"]) < 512 * n(&w["writes"]));
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
            vec!["--bs", "256"],
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
        .succeeds();
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

/// The writer's CPUs in the result are what the kernel reports for the
/// running writer thread, not the option echoed: pinned with --writer-cpu,
/// and, without it, whatever the process was confined to from outside.
#[test]
fn lgwr_writer_cpus_are_read_back_from_the_kernel() {
    let cpus = crate::util::allowed_cpus();
    let last = *cpus.last().expect("sched_getaffinity lists a CPU");
    let run = |extra: &[&str], confine: Option<usize>| {
        let mut args = vec![
            "lgwr",
            "--null-delay",
            "10us",
            "--sessions",
            "2",
            "--commits",
            "20",
            "--quiet",
            "--json",
            "-",
        ];
        args.extend(extra);
        let out = match confine {
            Some(c) => crate::util::dbio_on_cpu(c, &args),
            None => dbio().args(&args).output().unwrap(),
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out.stdout);
        let got: Vec<usize> = v["lgwr"][0]["writer"]["cpus"]
            .as_array()
            .unwrap_or_else(|| panic!("no writer.cpus in {}", v["lgwr"][0]["writer"]))
            .iter()
            .map(|c| c.as_u64().unwrap() as usize)
            .collect();
        got
    };
    let pinned = last.to_string();
    assert_eq!(run(&["--writer-cpu", &pinned], None), [last]);
    // Unpinned, confined from outside (taskset): the kernel's answer.
    assert_eq!(run(&[], Some(last)), [last]);
    assert_eq!(run(&[], None), cpus);
}

/// Every `--compare` key and method alias the parser accepts is named in
/// `dbio lgwr --help`, and each is accepted.
#[test]
fn lgwr_help_names_every_compare_key() {
    let help = dbio().args(["lgwr", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    let keys = [
        "method=",
        "bs=",
        "block=",
        "block-size=",
        "sessions=",
        "members=",
        "files=",
        "async=",
        "prepare=",
        "dir=",
        "redo=",
        "delay=",
        "siblings=",
        "spin=",
        "null-delay=",
    ];
    for k in keys {
        assert!(text.contains(&format!("`{k}")), "--help lacks {k}: {text}");
    }
    for alias in ["`direct`", "`buffered`", "`uring`"] {
        assert!(text.contains(alias), "--help lacks {alias}");
    }
    let item = "method=direct-dsync+bs=512+block=512+block-size=512+sessions=1+members=1+files=2+async=1+prepare=prewrite+redo=512+delay=0+siblings=5+spin=0+null-delay=1us,uring+null-delay=1us";
    dbio()
        .args([
            "lgwr",
            "--null",
            "--commits",
            "5",
            "--sessions",
            "1",
            "--quiet",
        ])
        .args(["--compare", item])
        .succeeds();
}

/// Durations reach the model in nanoseconds, whatever unit the user wrote:
/// `--post-spin 5us`, `--think-time 2ms`, `--commit-delay 0.1ms`.
#[test]
fn lgwr_durations_reach_the_model_in_nanoseconds() {
    let out = dbio()
        .args(["lgwr", "--null", "--sessions", "2", "--commits", "10"])
        .args(["--post-spin", "5us", "--think-time", "2ms"])
        .args(["--commit-delay", "0.1ms", "--quiet", "--json", "-"])
        .succeeds();
    let c = &json(&out.stdout)["lgwr"][0]["config"];
    assert_eq!(c["post_spin_ns"], 5_000, "{c}");
    assert_eq!(c["think_time_ns"], 2_000_000, "{c}");
    assert_eq!(c["commit_delay_ns"], 100_000, "{c}");
    // Count-based: no run time.
    assert_eq!(c["commits_per_session"], 10, "{c}");
    assert_eq!(c["runtime_ns"], serde_json::Value::Null, "{c}");
    let out = dbio()
        .args(["lgwr", "--null", "--sessions", "1", "--runtime", "100ms"])
        .args(["--seed", "7", "--quiet", "--json", "-"])
        .succeeds();
    let c = &json(&out.stdout)["lgwr"][0]["config"];
    assert_eq!(c["runtime_ns"], 100_000_000, "{c}");
    assert_eq!(c["commits_per_session"], serde_json::Value::Null, "{c}");
    assert_eq!(c["seed"], 7, "{c}");
}

/// 16 sessions released together, 16 KiB of redo each, a 64 KiB log
/// buffer: at most four records fit, so at least twelve commits of the
/// first round wait for room, and each wait is a 'log buffer space' wait
/// (never part of 'log file sync' or of another session's count).
#[test]
fn lgwr_counts_log_buffer_space_waits() {
    let out = dbio()
        .args(["lgwr", "--null", "--null-delay", "1ms", "--sessions", "16"])
        .args([
            "--log-buffer",
            "64k",
            "--redo-size",
            "16k",
            "--commits",
            "20",
        ])
        .args(["--quiet", "--json", "-"])
        .succeeds();
    let x = &json(&out.stdout)["lgwr"][0];
    assert_eq!(x["commits"], 320);
    let waits = x["log_buffer_space"]["count"].as_u64().unwrap();
    assert!(
        (12..=320).contains(&waits),
        "{waits} 'log buffer space' waits"
    );
}

/// Before any file is made, lgwr checks the whole group against the free
/// space and an O_DIRECT method against the filesystem, and says which
/// option to change.
#[test]
fn lgwr_checks_the_group_and_the_filesystem_before_making_files() {
    let small = or_skip!(crate::util::Tmpfs::mount("8m"));
    let out = dbio()
        .args(["lgwr", "--method", "buffered-fdatasync", "--commits", "10"])
        .args(["--file-size", "4m", "--files", "3", "--quiet"])
        .arg(small.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the log files need 12.0 MiB") && err.contains("fewer --files"),
        "{err}"
    );
    assert!(dbio_files(small.path()).is_empty());

    let ram = crate::util::Tmpfs::ramfs().expect("ramfs where tmpfs mounts");
    let out = dbio()
        .args([
            "lgwr",
            "--method",
            "direct-dsync",
            "--commits",
            "10",
            "--quiet",
        ])
        .arg(ram.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not support O_DIRECT; use a buffered --method"),
        "{err}"
    );
    assert!(dbio_files(ram.path()).is_empty());
}

/// Results saved at schema version 2 (the configuration echoed through a
/// separate struct, the run time in seconds, engine, target and rounds
/// inside `config`) render the table they rendered then, and are written
/// again in the current form: the configuration as the command takes it,
/// in ns. Fixtures: `--null-delay 20us --compare direct,buffered+bs=4k
/// --rounds 2`, `--null --runtime 200ms --post-spin 5us --commit-delay
/// 10us`, and a real directory with `--verify`.
#[test]
fn version_2_lgwr_results_render_as_they_did() {
    let v = crate::util::v2_renders_as_then("lgwr-null");
    let x = &v["lgwr"][1];
    assert_eq!(
        (x["name"].as_str(), x["rounds"].as_u64()),
        (Some("buffered+bs=4k"), Some(2))
    );
    assert_eq!(x["config"]["method"], "buffered-dsync");
    assert_eq!(x["config"]["null_delay_ns"], 20_000);
    assert_eq!(x["target"], "(null engine: no files)");
    assert!(x["config"].get("engine").is_none(), "{x}");

    let v = crate::util::v2_renders_as_then("lgwr-time");
    let c = &v["lgwr"][0]["config"];
    assert_eq!(c["runtime_ns"], 200_000_000, "{c}");
    assert!(c.get("runtime_s").is_none(), "{c}");
    assert_eq!(
        (c["post_spin_ns"].as_u64(), c["commit_delay_ns"].as_u64()),
        (Some(5_000), Some(10_000))
    );

    let v = crate::util::v2_renders_as_then("lgwr-real");
    let x = &v["lgwr"][0];
    assert_eq!(x["config"]["null_delay_ns"], serde_json::Value::Null, "{x}");
    assert_eq!(x["config"]["redo_size"], "uniform:512-8192");
    assert_eq!(x["target"], "logs");
    assert_eq!(x["verify"]["bad"], 0);
}

/// See: issue 23. One session, a 2 ms write through the null engine and
/// no queue: the write is nearly all of a commit, so the answer is the
/// (simulated) log device; on tmpfs the answer names memory, never a
/// good log.
#[test]
fn lgwr_answers_whether_a_commit_is_the_log_device() {
    let out = dbio()
        .args([
            "lgwr",
            "--null-delay",
            "2ms",
            "--sessions",
            "1",
            "--commits",
            "50",
            "--quiet",
            "--json",
            "-",
        ])
        .succeeds();
    let v = json(&out.stdout);
    let verdict = &v["verdict"];
    assert_eq!(verdict["class"], "storage_bound", "{verdict}");
    let answer = verdict["answer"].as_str().unwrap();
    assert!(answer.contains("'log file parallel write'"), "{answer}");
    let first = &v["findings"][verdict["top"][0].as_u64().unwrap() as usize];
    assert_eq!(first["rule"], "commit.breakdown", "{first}");
    assert_eq!(first["impact"]["of"], "commit time");
    let t = match crate::util::Tmpfs::mount("64m") {
        Ok(t) => t,
        Err(why) => {
            eprintln!("SKIP the tmpfs half: {why}");
            return;
        }
    };
    let out = dbio()
        .args([
            "lgwr",
            "--sessions",
            "2",
            "--commits",
            "50",
            "--file-size",
            "1m",
            "--quiet",
            "--json",
            "-",
        ])
        .arg(t.dir.path())
        .succeeds();
    let v = json(&out.stdout);
    assert_eq!(v["verdict"]["class"], "non_durable", "{}", v["verdict"]);
    assert!(!v["verdict"]["answer"].as_str().unwrap().contains("good"));
}
