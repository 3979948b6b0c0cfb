//! `dbio bench` on real temporary files: exact counts, page-cache effects,
//! device flushes, and the outputs.

use crate::util::{dbio, dbio_files, json, scratch, skip};

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

#[test]
fn fdatasync_per_write_shows_in_device_flushes() {
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
    assert_eq!(j["commit"]["count"].as_u64(), Some(300));
    assert_eq!(j["sync"]["count"].as_u64(), Some(300));
    let dev = &v["environment"]["device"];
    if dev.is_null() || dev["write_cache"].as_str() != Some("write back") {
        return skip(
            "fdatasync_per_write_shows_in_device_flushes",
            "the device has no volatile write cache, so the kernel sends no flushes",
        );
    }
    let Some(flushes) = j["device"]["flushes"].as_u64() else {
        return skip(
            "fdatasync_per_write_shows_in_device_flushes",
            "the kernel does not report flushes in /proc/diskstats",
        );
    };
    // Other processes may add flushes; none of ours may be missing.
    assert!(
        flushes >= 300,
        "{flushes} device flushes for 300 fdatasync calls"
    );
    // commit = write + sync: its median is at least the sync's.
    assert!(
        j["commit"]["percentiles"][0]["ns"].as_u64() >= j["sync"]["percentiles"][0]["ns"].as_u64()
    );
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
    let lat = &v["jobs"][0]["read"]["lat"];
    let p50 = lat["percentiles"][0]["ns"].as_u64().unwrap();
    // The injected 200 µs (less the histogram's 1 %) plus the loop's
    // overhead; the upper bound leaves room for a loaded machine's sleeps.
    assert!((198_000..1_000_000).contains(&p50), "p50 {p50} ns");
    assert!(lat["min_ns"].as_u64().unwrap() >= 198_000);
}

#[test]
fn rate_limit_holds_the_rate() {
    let v = bench_json(&[
        "--engine", "null", "--rw", "randread", "--ops", "200", "--rate", "1000",
    ]);
    let j = &v["jobs"][0];
    let secs = j["runtime_ns"].as_f64().unwrap() / 1e9;
    assert!(
        (0.18..0.3).contains(&secs),
        "200 ops at 1000 IOPS took {secs} s"
    );
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
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let ops = j["read"]["ops"].as_u64().unwrap();
    assert!(
        (2100..=2300).contains(&ops),
        "{ops} measured ops: the warm-up must not count"
    );
    let series = j["series"].as_array().unwrap();
    assert_eq!(series.len(), 2, "{series:?}");
    for s in series {
        // 1000 per second; a stall on a loaded machine moves some I/Os into
        // the next second (the schedule catches up), hence the margin.
        let iops = s["read_iops"].as_f64().unwrap();
        assert!((700.0..1300.0).contains(&iops), "{s}");
        assert!(s["p99_ns"].as_u64().unwrap() >= s["p50_ns"].as_u64().unwrap());
    }
}
