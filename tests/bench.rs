//! `dbio bench` on real temporary files: exact counts, page-cache effects,
//! device flushes, and the outputs.

use crate::util::{dbio, dbio_files, json, scratch, skip_this_test, Succeeds};

fn bench_json(args: &[&str]) -> serde_json::Value {
    let out = dbio()
        .arg("bench")
        .args(args)
        .args(["--json", "-", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "dbio bench {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

#[test]
fn exact_operation_counts_and_bytes() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    for engine in [
        ["--engine", "psync", "--iodepth", "1"],
        ["--engine", "io_uring", "--iodepth", "8"],
    ] {
        let v = bench_json(
            &[
                dir,
                "--rw",
                "randrw",
                "--read-pct",
                "30",
                "--bs",
                "4k",
                "--size",
                "4m",
                "--ops",
                "1000",
            ]
            .iter()
            .copied()
            .chain(engine)
            .collect::<Vec<_>>(),
        );
        let j = &v["jobs"][0];
        let reads = j["read"]["ops"].as_u64().unwrap();
        let writes = j["write"]["ops"].as_u64().unwrap();
        assert_eq!(reads + writes, 1000, "{engine:?}");
        assert_eq!(j["read"]["bytes"].as_u64().unwrap(), reads * 4096);
        assert_eq!(j["write"]["bytes"].as_u64().unwrap(), writes * 4096);
        assert!((200..400).contains(&reads), "{reads} reads of 1000 at 30 %");
        assert_eq!(j["read"]["lat"]["count"].as_u64().unwrap(), reads);
    }
    assert!(
        dbio_files(d.path()).is_empty(),
        "temporary file left behind"
    );
}

#[test]
fn ops_split_across_threads_exactly() {
    let d = scratch();
    let v = bench_json(&[
        d.path().to_str().unwrap(),
        "--rw",
        "write",
        "--bs",
        "8k",
        "--size",
        "8m",
        "--ops",
        "1001",
        "--threads",
        "3",
    ]);
    assert_eq!(v["jobs"][0]["write"]["ops"].as_u64(), Some(1001));
    assert_eq!(v["jobs"][0]["write"]["bytes"].as_u64(), Some(1001 * 8192));
}

#[test]
fn direct_reads_bypass_the_page_cache_and_buffered_reads_fill_it() {
    let d = scratch();
    let f = d.path().join("data");
    let f = f.to_str().unwrap();
    // 4 MiB in 64 KiB blocks: 64 sequential reads cover the file exactly once.
    let direct = bench_json(&[
        f, "--rw", "read", "--bs", "64k", "--size", "4m", "--ops", "64", "--direct",
    ]);
    let j = &direct["jobs"][0];
    assert_eq!(
        j["cached_before"]["resident_pages"].as_u64(),
        Some(0),
        "prepare drops the file from the cache"
    );
    assert_eq!(
        j["cached_after"]["resident_pages"].as_u64(),
        Some(0),
        "O_DIRECT reads must not populate the page cache"
    );
    let buffered = bench_json(&[
        f, "--rw", "read", "--bs", "64k", "--size", "4m", "--ops", "64",
    ]);
    let j = &buffered["jobs"][0];
    let after = &j["cached_after"];
    assert_eq!(
        after["resident_pages"], after["total_pages"],
        "buffered reads must bring the whole file in"
    );
}

/// Every write gets its own fdatasync, and the commit (write + sync) holds
/// both: with the null engine's injected 200 µs per write and per sync, no
/// sync can be shorter than 200 µs and no commit shorter than 400 µs. (The
/// device's flush count is checked on a private loop device in
/// durability.rs: a shared disk's count includes other processes' flushes.)
#[test]
fn fdatasync_per_write_is_counted_and_timed_inside_the_commit() {
    let d = scratch();
    let v = bench_json(&[
        d.path().to_str().unwrap(),
        "--rw",
        "write",
        "--bs",
        "8k",
        "--size",
        "8m",
        "--ops",
        "300",
        "--sync",
        "fdatasync",
        "--direct",
    ]);
    let j = &v["jobs"][0];
    assert_eq!(j["write"]["ops"].as_u64(), Some(300));
    assert_eq!(j["commit"]["count"].as_u64(), Some(300));
    assert_eq!(j["sync"]["count"].as_u64(), Some(300));
    let v = bench_json(&[
        "--engine",
        "null",
        "--rw",
        "write",
        "--ops",
        "100",
        "--sync",
        "fdatasync",
        "--null-delay",
        "200us",
    ]);
    let j = &v["jobs"][0];
    let min = |k: &str| j[k]["min_ns"].as_u64().unwrap();
    // HDR summaries may read up to 1 % low.
    assert!(min("sync") >= 198_000, "sync min {} ns", min("sync"));
    assert!(j["write"]["lat"]["min_ns"].as_u64().unwrap() >= 198_000);
    assert!(min("commit") >= 396_000, "commit min {} ns", min("commit"));
    assert_eq!(j["sync"]["count"].as_u64(), Some(100));
    // 100 commits of at least 400 µs each, one after another.
    assert!(j["runtime_ns"].as_u64().unwrap() >= 100 * 400_000);
}

#[test]
fn io_uring_linked_fdatasync_commits() {
    let d = scratch();
    let v = bench_json(&[
        d.path().to_str().unwrap(),
        "--engine",
        "io_uring",
        "--iodepth",
        "4",
        "--rw",
        "write",
        "--bs",
        "4k",
        "--size",
        "4m",
        "--ops",
        "200",
        "--sync",
        "fdatasync",
    ]);
    let j = &v["jobs"][0];
    assert_eq!(j["write"]["ops"].as_u64(), Some(200));
    assert_eq!(j["sync"]["count"].as_u64(), Some(200));
    assert_eq!(j["commit"]["count"].as_u64(), Some(200));
}

#[test]
fn null_engine_injected_delay_is_measured() {
    let v = bench_json(&[
        "--engine",
        "null",
        "--rw",
        "randread",
        "--ops",
        "200",
        "--null-delay",
        "200us",
    ]);
    let j = &v["jobs"][0];
    let lat = &j["read"]["lat"];
    // Nothing can take less than the injected 200 µs (less the histogram's
    // 1 %); a slow machine only adds to it, so there is no upper bound.
    assert_eq!(lat["count"].as_u64(), Some(200));
    assert!(lat["min_ns"].as_u64().unwrap() >= 198_000);
    assert!(lat["percentiles"][0]["ns"].as_u64().unwrap() >= 198_000);
    // 200 reads of at least 200 µs, one after another.
    assert!(j["runtime_ns"].as_u64().unwrap() >= 200 * 200_000);
}

/// The limiter holds the rate: in a fixed run time at most rate × time
/// operations start (a slow machine can only do fewer), and a count-based
/// run cannot finish before its schedule does.
#[test]
fn rate_limit_holds_the_rate() {
    let v = bench_json(&[
        "--engine", "null", "--rw", "randread", "--ops", "200", "--rate", "1000",
    ]);
    let j = &v["jobs"][0];
    // The 200th operation is scheduled 199 ms after the first.
    let ns = j["runtime_ns"].as_u64().unwrap();
    assert!(ns >= 199_000_000, "200 ops at 1000 IOPS took {ns} ns");
    let v = bench_json(&[
        "--engine",
        "null",
        "--rw",
        "randread",
        "--runtime",
        "300ms",
        "--rate",
        "1000",
    ]);
    let j = &v["jobs"][0];
    let ops = j["read"]["ops"].as_u64().unwrap();
    let secs = j["runtime_ns"].as_f64().unwrap() / 1e9;
    assert!(
        ops as f64 <= 1000.0 * secs + 1.0,
        "{ops} ops in {secs} s at 1000 IOPS"
    );
    // How many fewer a stalled machine does is not bounded (a 2-CPU
    // machine under load stalled a worker for over 250 ms): only that the
    // load ran.
    assert!(ops > 0, "{ops} ops in {secs} s at 1000 IOPS");
}

#[test]
fn table_csv_and_report_rerender() {
    let d = scratch();
    let json_path = d.path().join("r.json");
    let csv_path = d.path().join("r.csv");
    let out = dbio()
        .args([
            "bench",
            d.path().to_str().unwrap(),
            "--rw",
            "randwrite",
            "--bs",
            "4k,16k",
            "--size",
            "2m",
            "--ops",
            "300",
            "--quiet",
        ])
        .arg("--json")
        .arg(&json_path)
        .arg("--csv")
        .arg(&csv_path)
        .succeeds();
    let table = String::from_utf8(out.stdout).unwrap();
    for want in [
        "[bs=4.00 KiB]",
        "[bs=16.0 KiB]",
        "write lat",
        "p99.9",
        "IOPS",
        "CPU:",
        "histogram",
        "target ",
    ] {
        assert!(table.contains(want), "table lacks {want:?}:\n{table}");
    }
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("job,op,ops,bytes,ops_per_sec"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(
        lines[1].starts_with("bs=4.00 KiB,write,300,1228800,"),
        "{}",
        lines[1]
    );
    let re = dbio()
        .arg("report")
        .arg("--from")
        .arg(&json_path)
        .output()
        .unwrap();
    assert!(re.status.success());
    assert_eq!(
        String::from_utf8(re.stdout).unwrap(),
        table,
        "report --from must reproduce the table"
    );
    // `-` reads the result from standard input.
    let re = dbio()
        .args(["report", "--from", "-"])
        .write_stdin(std::fs::read(&json_path).unwrap())
        .output()
        .unwrap();
    assert!(
        re.status.success(),
        "{}",
        String::from_utf8_lossy(&re.stderr)
    );
    assert_eq!(
        String::from_utf8(re.stdout).unwrap(),
        table,
        "report --from - must reproduce the table"
    );
}

#[test]
fn report_refuses_foreign_json() {
    let d = scratch();
    let p = d.path().join("x.json");
    std::fs::write(&p, "{\"schema_version\": 99}").unwrap();
    dbio()
        .args(["report", "--from"])
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("schema version 99"));
    // From standard input, the error names it so.
    dbio()
        .args(["report", "--from", "-"])
        .write_stdin("{\"schema_version\": 99}")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "standard input: schema version 99",
        ));
}

#[test]
fn warmup_is_excluded_and_seconds_are_sampled() {
    // 1000 IOPS for 0.5 s of warm-up and 2.2 s of measurement.
    let v = bench_json(&[
        "--engine",
        "null",
        "--rw",
        "randread",
        "--rate",
        "1000",
        "--warmup",
        "500ms",
        "--runtime",
        "2200ms",
    ]);
    let j = &v["jobs"][0];
    // The echo is the configuration as asked, in nanoseconds.
    assert_eq!(j["job"]["warmup_ns"], 500_000_000, "{}", j["job"]);
    assert_eq!(j["job"]["runtime_ns"], 2_200_000_000u64, "{}", j["job"]);
    let ops = j["read"]["ops"].as_u64().unwrap();
    let secs = j["runtime_ns"].as_f64().unwrap() / 1e9;
    // At most 1000 per measured second: the 500 of the warm-up would push
    // it over. (A slow machine can only do fewer.)
    assert!(secs >= 2.2, "measured {secs} s");
    assert!(
        ops as f64 <= 1000.0 * secs + 1.0,
        "{ops} measured ops in {secs} s: the warm-up must not count"
    );
    assert!(ops > 0, "no measured ops in {secs} s");
    // One sample per whole measured second, each counting only its own
    // second's I/Os: together no more than were measured.
    let series = j["series"].as_array().unwrap();
    assert_eq!(series.len(), 2, "{series:?}");
    let sampled: f64 = series
        .iter()
        .map(|s| s["read_iops"].as_f64().unwrap())
        .sum();
    assert!(sampled <= ops as f64 + 0.5, "{sampled} sampled of {ops}");
    assert!(series
        .iter()
        .all(|s| s["read_iops"].as_f64().unwrap() > 0.0));
}

/// The O_DIRECT alignment (statx) is recorded and printed for a directory
/// target too: statx reports it for files only, so it is read from the
/// file dbio makes there (bench, dbwr) or a probe file (lgwr).
#[test]
fn statx_alignment_is_reported_for_directory_targets() {
    let d = scratch();
    let f = d.path().join("data");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let file = bench_json(&[
        f.to_str().unwrap(),
        "--size",
        "1m",
        "--rw",
        "randread",
        "--ops",
        "10",
    ]);
    let want = &file["environment"]["dio_alignment"];
    if want.is_null() {
        skip_this_test("the kernel reports no O_DIRECT alignment (STATX_DIOALIGN) for files here");
        return;
    }
    std::fs::remove_file(&f).unwrap();
    let dir = d.path().to_str().unwrap();
    let runs: [&[&str]; 3] = [
        &["bench", dir, "--size", "1m", "--ops", "10"],
        &[
            "dbwr",
            dir,
            "--size",
            "4m",
            "--buffers",
            "128",
            "--lists",
            "2",
            "--ops",
            "500",
        ],
        &[
            "lgwr",
            dir,
            "--commits",
            "20",
            "--file-size",
            "128k",
            "--max-write",
            "64k",
            "--files",
            "2",
        ],
    ];
    for args in runs {
        let out = dbio()
            .args(args)
            .args(["--json", "-", "--quiet"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out.stdout);
        assert_eq!(&v["environment"]["dio_alignment"], want, "{args:?}");
        let table = dbio().args(args).arg("--quiet").output().unwrap();
        let text = String::from_utf8_lossy(&table.stdout);
        assert!(
            text.contains(&format!(
                "O_DIRECT alignment: memory {} B, offsets {} B (statx)",
                want["mem_align"], want["offset_align"]
            )),
            "{args:?}: {text}"
        );
    }
}

/// Laying out an existing dbio file again (`--prepare fallocate`) frees its
/// blocks first, so the free-space check counts them as available: 40 MiB
/// again on a 64 MiB filesystem that holds the 40 MiB file is fine.
#[test]
fn preparing_a_file_again_counts_its_own_blocks_as_free() {
    let fs = or_skip!(crate::util::Tmpfs::mount("64m"));
    let file = fs.path().join("f.dat");
    let file = file.to_str().unwrap();
    for prepare in ["prewrite", "fallocate"] {
        let out = dbio()
            .args(["bench", "--rw", "write", "--size", "40m", "--ops", "1"])
            .args(["--prepare", prepare, "--quiet", file])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "--prepare {prepare}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(std::fs::metadata(file).unwrap().len(), 40 << 20);
}

/// A file dbio is about to create is described by the filesystem of its
/// directory (the report said "on ?" for a new named file).
#[test]
fn a_new_named_file_is_described_by_its_directorys_filesystem() {
    let d = scratch();
    let file = d.path().join("new.dat");
    let out = dbio()
        .args(["bench", "--rw", "write", "--size", "1m", "--ops", "8"])
        .args(["--quiet", "--json", "-"])
        .arg(&file)
        .succeeds();
    let env = &json(&out.stdout)["environment"];
    let dir = dbio_engine::sysinfo::mount_of(d.path()).expect("the scratch dir is mounted");
    assert_eq!(env["fs_type"], dir.fs_type.as_str(), "{env}");
    assert_eq!(env["mount_point"], dir.mount_point.as_str(), "{env}");
}
