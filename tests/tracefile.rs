//! `dbio tracefile` end to end (issue 5): the real binary on the synthetic
//! traces in `crates/oracle/tests/data`, through every input path (files,
//! directories, globs, gzip, xz, standard input) and output (table, JSON,
//! CSV, comparison), and its error messages.

use assert_cmd::Command;
use predicates::prelude::*;
use std::ffi::OsString;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data"
    ))
    .join(name)
}

fn dbio() -> Command {
    Command::cargo_bin("dbio").unwrap()
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = dbio()
        .arg("tracefile")
        .args(args)
        .args(["--json", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

/// Standard CRC-32 (for building a gzip member by hand).
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A gzip file with one stored (uncompressed) deflate block per 64 KiB.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let chunks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, ch) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let len = ch.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(ch);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[test]
fn table_shows_profile_sessions_and_histograms() {
    dbio()
        .arg("tracefile")
        .arg(data("shared-server-19c.trc"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Response-time profile: R = 20.6 ms",
        ))
        .stdout(predicate::str::contains("Database sessions"))
        .stdout(predicate::str::contains("202.9"))
        .stdout(predicate::str::contains(
            "Latency histogram: direct path read (3 waits)",
        ))
        .stdout(predicate::str::contains("Multiblock latency by I/O size"))
        .stdout(predicate::str::contains("Slowest individual waits"));
}

#[test]
fn json_carries_the_numbers() {
    let v = json_of(&[data("shared-server-19c.trc").to_str().unwrap()]);
    // One schema version for every result; `command` names the variant.
    assert_eq!(v["schema_version"], dbio_model::SCHEMA_VERSION);
    assert_eq!(v["command"], "tracefile");
    assert_eq!(v["profile"]["response_time_us"], 20_565);
    assert_eq!(v["profile"]["cpu_us"], 2_650);
    assert_eq!(v["sessions"].as_array().unwrap().len(), 2);
    assert_eq!(v["settings"]["page_cache_max_ns"], 100_000);
    let idle: Vec<&str> = v["settings"]["idle_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(idle.contains(&"PL/SQL lock timer"));
}

#[test]
fn csv_is_long_form() {
    dbio()
        .args(["tracefile", "--csv", "-"])
        .arg(data("ninei-9201.trc"))
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "group,section,item,metric,value\n",
        ))
        .stdout(predicate::str::contains(
            ",profile,total,response_time_us,7363\n",
        ))
        .stdout(predicate::str::contains(
            ",size_histogram,db file scattered read 8 blocks <1ms,count,1\n",
        ));
}

#[test]
fn directories_globs_gzip_xz_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(data("shared-server-19c.trc")).unwrap();
    std::fs::write(dir.path().join("a.trc.gz"), gzip(&text)).unwrap();
    std::fs::write(dir.path().join("b.trc"), &text).unwrap();
    std::fs::write(dir.path().join("alert.log"), "not a trace").unwrap();
    let d = dir.path().to_str().unwrap();
    // The directory contributes a.trc.gz and b.trc, not alert.log.
    let v = json_of(&[d]);
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert_eq!(v["profile"]["response_time_us"], 2 * 20_565);
    let v = json_of(&["-j", "2", &format!("{d}/*.trc*")]);
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert_eq!(v["profile"]["response_time_us"], 2 * 20_565);
    // xz through the system tool when it is there.
    let xz = std::process::Command::new("xz")
        .args(["-k", "-z"])
        .arg(dir.path().join("b.trc"))
        .status();
    if matches!(xz, Ok(s) if s.success()) {
        let v = json_of(&[dir.path().join("b.trc.xz").to_str().unwrap()]);
        assert_eq!(v["profile"]["response_time_us"], 20_565);
    } else {
        eprintln!("xz part skipped: no xz command");
    }
    let out = dbio()
        .args(["tracefile", "--json", "-", "-"])
        .write_stdin(gzip(&text))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["files"][0]["path"], "-");
    assert_eq!(v["profile"]["response_time_us"], 20_565);
}

#[test]
fn compare_puts_two_groups_side_by_side() {
    let a = data("shared-server-19c.trc");
    let b = data("ninei-9201.trc");
    dbio()
        .args(["tracefile", "--compare"])
        .arg(&a)
        .arg(&b)
        .assert()
        .success()
        .stdout(predicate::str::contains("A count"))
        .stdout(predicate::str::contains(
            "Latency histogram: db file scattered read",
        ))
        .stdout(predicate::str::contains("Tier attribution"));
    let out = dbio()
        .args(["tracefile", "--json", "-", "--compare"])
        .arg(&a)
        .arg(&b)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["a"]["profile"]["response_time_us"], 20_565);
    assert_eq!(v["b"]["profile"]["response_time_us"], 7_363);
}

#[test]
fn calibration_file_sets_the_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let cal = dir.path().join("cal.json");
    std::fs::write(
        &cal,
        r#"{"page_cache_max_ns": 1000000, "storage_cache_max_ns": 2000000, "device": "nvme0n1"}"#,
    )
    .unwrap();
    let v = json_of(&[
        "--calibration",
        cal.to_str().unwrap(),
        data("shared-server-19c.trc").to_str().unwrap(),
    ]);
    assert_eq!(v["settings"]["page_cache_max_ns"], 1_000_000);
    let t = v["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["event"] == "direct path read")
        .unwrap();
    // 90 µs and 700 µs are now page cache, 3 ms device.
    assert_eq!(t["page_cache"]["count"], 2);
    assert_eq!(t["device"]["count"], 1);
    std::fs::write(&cal, "{}").unwrap();
    dbio()
        .args(["tracefile", "--calibration"])
        .arg(&cal)
        .arg(data("shared-server-19c.trc"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "lacks a whole-number field 'page_cache_max_ns'",
        ));
}

#[test]
fn errors_name_the_input_and_never_panic() {
    dbio()
        .args(["tracefile", "/nonexistent/dir/x.trc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot read '/nonexistent/dir/x.trc'",
        ))
        .stderr(predicate::str::contains("panicked").not());
    dbio()
        .args([
            "tracefile",
            "--page-cache-max",
            "5ms",
            "--storage-cache-max",
            "1ms",
        ])
        .arg(data("ninei-9201.trc"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("page-cache threshold"));
    dbio()
        .arg("tracefile")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at least one trace file"));
    // Binary garbage is analysed (and reported as skipped), not refused.
    dbio()
        .args(["tracefile", "-"])
        .write_stdin(vec![
            0u8, 159, 146, 150, b'\n', b'*', b'*', b'*', b'\n', 255,
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("Files"));
}

#[test]
fn parsetrc_histogram_on_the_largest_fixture() {
    let f = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/oracle/pylatencymap-12101-seqread.trc"
    ));
    if !f.is_file() {
        // In CI shared/ is always beside the clone: absence is a failure there.
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is absent, and CI runs with ../shared beside the repository",
            f.display()
        );
        eprintln!("SKIP: {} is absent", f.display());
        return;
    }
    let v = json_of(&[f.to_str().unwrap()]);
    let h = v["io_histograms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["event"] == "db file sequential read")
        .unwrap();
    let counts: Vec<u64> = h["buckets"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(counts[9..], [174, 6193, 1163, 2837, 9416, 9326, 132, 6, 2]);
    assert_eq!(v["profile"]["top_depth"], 1);
}

/// The shared options mean the same here as in every command: a threshold
/// needs a unit and is the same number of nanoseconds as in `dbio read`,
/// `--interval` takes bare seconds like `--runtime`, and `--quiet` is
/// accepted (issue 10).
#[test]
fn shared_options_mean_the_same_as_in_every_command() {
    let r = json_of(&[
        "-q",
        "--page-cache-max",
        "250us",
        "--storage-cache-max",
        "2ms",
        "--interval",
        "60",
        data("ninei-9201.trc").to_str().unwrap(),
    ]);
    let s = &r["settings"];
    assert_eq!(s["page_cache_max_ns"], 250_000, "{s}");
    assert_eq!(s["storage_cache_max_ns"], 2_000_000, "{s}");
    assert_eq!(s["thresholds_from"], "option", "{s}");
    assert_eq!(s["interval_s"], 60, "{s}");
    let d = tempfile::tempdir().unwrap();
    let out = dbio()
        .arg("read")
        .arg(d.path())
        .args(["--engine", "null", "--ops", "10", "--quiet", "--json", "-"])
        .args(["--page-cache-max", "250us", "--storage-cache-max", "2ms"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let t = &v["reads"][0]["thresholds"];
    assert_eq!(t["page_cache_max_ns"], 250_000, "{t}");
    assert_eq!(t["storage_cache_max_ns"], 2_000_000, "{t}");
    dbio()
        .args(["tracefile", "--page-cache-max", "100"])
        .arg(data("ninei-9201.trc"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'100' needs a unit"));
}

/// The profile's rows, as a reader sees them: a wait's mean is its time
/// over its count (2 scattered reads, 2.00 ms in all: 1.00 ms each), CPU
/// has no mean, and 'unaccounted-for' shows the negative remainder.
#[test]
fn profile_rows_carry_counts_times_and_means() {
    let out = dbio()
        .arg("tracefile")
        .arg(data("ninei-9201.trc"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let cells = |name: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.starts_with('│') && l.contains(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{text}"))
            .split(['│', '┆'])
            .map(|c| c.trim().to_string())
            .collect()
    };
    let scattered = cells("db file scattered read");
    assert_eq!(
        scattered[1..7],
        [
            "db file scattered read",
            "wait",
            "2",
            "2.00 ms",
            "27.2%",
            "1.00 ms"
        ]
    );
    let cpu = cells("CPU");
    assert_eq!(cpu[1..7], ["CPU", "cpu", "3", "1.00 ms", "13.6%", ""]);
    let unaccounted = cells("unaccounted-for");
    assert_eq!(unaccounted[4], "-640 µs");
}

/// Runs `dbio` with `args` (with a deadline), expecting success; its
/// standard output.
fn stdout_of(args: &[OsString]) -> Vec<u8> {
    let out = crate::util::dbio().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// An argument list.
fn argv(xs: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    xs.iter().map(|x| x.as_ref().to_os_string()).collect()
}

/// `dbio report --from` re-renders a saved trace analysis, and a saved
/// comparison, to exactly what `tracefile` printed and wrote: the table,
/// the CSV and the JSON, byte for byte.
// See: issue 10, item 4.
#[test]
fn report_from_re_renders_a_trace_analysis_byte_for_byte() {
    let d = tempfile::tempdir().unwrap();
    let (one, two) = (data("ninei-9201.trc"), data("shared-server-19c.trc"));
    let runs = [
        argv(&[&one, &"--top", &"3"]),
        argv(&[&"--compare", &one, &two]),
    ];
    for (i, args) in runs.iter().enumerate() {
        let p = |n: &str| d.path().join(format!("{i}{n}"));
        let (json, csv, json2, csv2) = (p(".json"), p(".csv"), p(".again.json"), p(".again.csv"));
        let mut first = argv(&[&"tracefile"]);
        first.extend(args.iter().cloned());
        first.extend(argv(&[&"--json", &json, &"--csv", &csv]));
        let table = stdout_of(&first);
        assert!(String::from_utf8_lossy(&table).starts_with("dbio tracefile "));
        let again = stdout_of(&argv(&[
            &"report", &"--from", &json, &"--json", &json2, &"--csv", &csv2,
        ]));
        let read = |f: &std::path::Path| std::fs::read(f).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&again),
            String::from_utf8_lossy(&table),
            "{args:?}: the table"
        );
        assert_eq!(
            String::from_utf8_lossy(&read(&csv2)),
            String::from_utf8_lossy(&read(&csv)),
            "{args:?}: the CSV"
        );
        assert!(read(&csv).starts_with(b"group,section,item,metric,value\n"));
        assert_eq!(read(&json2), read(&json), "{args:?}: the JSON");
        // The CSV alone, on standard output.
        let csv3 = stdout_of(&argv(&[&"report", &"--from", &json, &"--csv", &"-"]));
        assert_eq!(csv3, read(&csv), "{args:?}: the CSV on standard output");
    }
}

/// A trace analysis saved before one schema version covered every result
/// (the trace's own `schema_version` 1, no `command`) still re-renders, as
/// the analysis it is.
#[test]
fn report_from_reads_a_trace_result_of_the_old_trace_schema() {
    let d = tempfile::tempdir().unwrap();
    let (one, two) = (data("ninei-9201.trc"), data("eighti-817.trc"));
    for compare in [false, true] {
        let mut args = if compare {
            argv(&[&"tracefile", &"--compare", &one, &two])
        } else {
            argv(&[&"tracefile", &one])
        };
        let table = stdout_of(&args);
        args.extend(argv(&[&"--json", &"-"]));
        let mut v: serde_json::Value = serde_json::from_slice(&stdout_of(&args)).unwrap();
        let o = v.as_object_mut().unwrap();
        assert!(o.remove("command").is_some());
        o.insert("schema_version".into(), 1.into());
        for side in ["a", "b"] {
            if let Some(x) = o.get_mut(side) {
                x["schema_version"] = 1.into();
            }
        }
        let old = d.path().join(format!("old-{compare}.json"));
        std::fs::write(&old, v.to_string()).unwrap();
        let again = stdout_of(&argv(&[&"report", &"--from", &old]));
        assert_eq!(
            String::from_utf8_lossy(&again),
            String::from_utf8_lossy(&table),
            "compare {compare}"
        );
    }
}

/// `tracefile`'s outputs go through the one output path: a destination in
/// a missing or read-only directory is refused in one sentence before any
/// trace is read (standard input here is a pipe that never ends, so
/// reading first would hang until the deadline).
// See: issue 10, item 4.
#[test]
fn tracefile_refuses_a_bad_output_before_reading_the_traces() {
    use std::process::Stdio;
    let d = tempfile::tempdir().unwrap();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    // Root ignores permissions: a read-only mount refuses even root.
    let mount = if crate::util::is_root() {
        match crate::util::Tmpfs::mount("1m") {
            Ok(t) => {
                let st = std::process::Command::new("mount")
                    .args(["-o", "remount,ro"])
                    .arg(t.path())
                    .status()
                    .unwrap();
                assert!(st.success());
                Some(t)
            }
            Err(why) => {
                crate::util::skip_this_test(&why);
                None
            }
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    let ro_dir = mount
        .as_ref()
        .map_or(ro.clone(), |t| t.path().to_path_buf());
    let cases = [
        (
            d.path().join("missing/x.csv"),
            "No such file or directory (os error 2)",
        ),
        (
            ro_dir.join("x.csv"),
            if mount.is_some() {
                "Read-only file system (os error 30)"
            } else {
                "Permission denied (os error 13)"
            },
        ),
    ];
    for (dest, why) in cases {
        let mut child = std::process::Command::new(crate::util::dbio_path())
            .args(["tracefile", "-", "--csv"])
            .arg(&dest)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Held open, never written: a trace on it would never end.
        let _stdin = child.stdin.take();
        let out = crate::util::wait_output_within(child, std::time::Duration::from_secs(20));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "one sentence: {err}");
        assert!(
            err.starts_with(&format!(
                "dbio: error: cannot write results to '{}'",
                dest.display()
            )) && err.contains(why),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    assert_eq!(std::fs::read_dir(&ro_dir).unwrap().count(), 0);
}

/// An existing output file is replaced, never written through: until the
/// new content is complete the old file is whole (a reader holding it open
/// keeps reading the old content), and a run that fails leaves it as it was,
/// with no temporary file beside it.
// See: issue 10, item 4.
#[test]
fn tracefile_replaces_an_existing_output_atomically() {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir().unwrap();
    let (json, csv) = (d.path().join("out.json"), d.path().join("out.csv"));
    std::fs::write(&json, "old json\n").unwrap();
    std::fs::write(&csv, "old csv\n").unwrap();
    let trace = data("ninei-9201.trc");
    // A run that fails (its second input is missing) leaves both as they were.
    let out = crate::util::dbio()
        .arg("tracefile")
        .arg(&trace)
        .arg(d.path().join("absent.trc"))
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "old json\n");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), "old csv\n");
    // A run that succeeds puts a new file in place of the old one.
    let mut held = std::fs::File::open(&csv).unwrap();
    let old_inode = held.metadata().unwrap().ino();
    let out = crate::util::dbio()
        .arg("tracefile")
        .arg(&trace)
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut old = String::new();
    held.read_to_string(&mut old).unwrap();
    assert_eq!(old, "old csv\n", "the old file was written through");
    assert_ne!(std::fs::metadata(&csv).unwrap().ino(), old_inode);
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .starts_with("group,section,item,metric,value\n"));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["command"], "tracefile");
    let mut names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["out.csv", "out.json"], "no temporary file left");
}

#[test]
fn one_bad_gzip_among_several_inputs_is_named_and_the_rest_analysed() {
    // See: issue 13 (one bad .gz aborted the whole run with no output).
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(data("shared-server-19c.trc")).unwrap();
    std::fs::write(dir.path().join("a.trc.gz"), gzip(&text)).unwrap();
    // A gzip header followed by bytes that are no deflate stream.
    let mut bad = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    bad.extend_from_slice(&[0xff; 64]);
    std::fs::write(dir.path().join("b.trc.gz"), bad).unwrap();
    std::fs::write(dir.path().join("c.trc"), &text).unwrap();
    let d = dir.path().to_str().unwrap();
    for threads in ["1", "3"] {
        let out = dbio()
            .args(["tracefile", "-j", threads, "--json", "-", d])
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("cannot read '").and(predicate::str::contains("b.trc.gz")),
            )
            .stderr(predicate::str::contains("panicked").not())
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        // The two good files are there, in full.
        assert_eq!(v["profile"]["response_time_us"], 2 * 20_565, "-j {threads}");
        let notes = v["profile"]["notes"].to_string();
        assert!(notes.contains("b.trc.gz"), "{notes}");
    }
    // When nothing could be read, the run is an error (exit 2).
    dbio()
        .args(["tracefile"])
        .arg(dir.path().join("b.trc.gz"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("b.trc.gz"));
}

#[test]
fn continuation_markers_make_one_note_and_counts_agree_in_number() {
    // See: issue 13 (280 markers gave 100 notes; "1 lines").
    let dir = tempfile::tempdir().unwrap();
    let mut t = String::new();
    for i in 0..280 {
        t.push_str(&format!(
            "*** TRACE CONTINUED FROM FILE /u01/trace/db_ora_{}.trc ***\n",
            i % 7
        ));
        t.push_str("WAIT #1: nam='db file sequential read' ela= 5 file#=1 block#=1 blocks=1 obj#=5 tim=100\n");
    }
    // One line over the 1 MiB line limit.
    t.push_str(&"x".repeat(1_100_000));
    t.push('\n');
    let f = dir.path().join("c.trc");
    std::fs::write(&f, t).unwrap();
    let out = dbio()
        .arg("tracefile")
        .arg(&f)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let notes: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("TRACE CONTINUED") || l.contains(" continues "))
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("280 TRACE CONTINUED markers (7 distinct files"),
        "{}",
        notes[0]
    );
    assert!(out.contains("1 line longer than 1 MiB was cut"), "{out}");
    assert!(!out.contains("1 lines"), "{out}");
}

/// An AWR or Statspack report given to `tracefile` is refused in one
/// sentence that names `dbio awr`, instead of an empty profile.
#[test]
fn a_report_given_as_a_trace_is_sent_to_dbio_awr() {
    for (file, kind) in [
        ("awr-19c-rac-crlf.txt", "an AWR text report"),
        ("awr-11g.html", "an AWR HTML report"),
    ] {
        let path = format!(
            "{}/crates/awr/tests/data/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let out = dbio().args(["tracefile", &path]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(
            err.contains(kind) && err.contains("use `dbio awr`"),
            "{file}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{file}: {err}");
        assert!(out.stdout.is_empty(), "{file}: no profile is printed");
    }
}
