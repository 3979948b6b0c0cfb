//! `dbio read` on real temporary files: exact counts of reads and blocks by
//! type and size, the asked page-cache residency, cold/warm comparison,
//! thresholds from a calibration file, and refusals.

use crate::util::{dbio, dbio_files, json, scratch, Succeeds};
use std::os::unix::fs::OpenOptionsExt;

fn read_json(args: &[&str]) -> serde_json::Value {
    let out = dbio()
        .arg("read")
        .args(args)
        .args(["--json", "-", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "dbio read {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a u64: {v}"))
}

fn kind<'a>(r: &'a serde_json::Value, k: &str) -> &'a serde_json::Value {
    r["by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["kind"] == k)
        .unwrap_or_else(|| panic!("no {k} group in {r}"))
}

#[test]
fn exact_reads_and_blocks_by_type() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    for engine in [["--engine", "psync"], ["--engine", "io_uring"]] {
        let mut args = vec![
            dir,
            "--size",
            "4m",
            "--ops",
            "1000",
            "--multiblock-pct",
            "30",
            "--multiblock-count",
            "16",
        ];
        args.extend(engine);
        if engine[1] == "io_uring" {
            args.extend(["--iodepth", "8"]);
        }
        let v = read_json(&args);
        let r = &v["reads"][0];
        assert_eq!(u(&r["ops"]), 1000, "{engine:?}");
        let single = kind(r, "single");
        let multi = kind(r, "multi");
        let (s_ops, m_ops) = (u(&single["ops"]), u(&multi["ops"]));
        assert_eq!(s_ops + m_ops, 1000);
        assert!(
            (220..380).contains(&m_ops),
            "{m_ops} multiblock reads of 1000 at 30 %"
        );
        assert_eq!(u(&single["blocks"]), s_ops);
        // 512 blocks, one reader: the scan is 32 whole chunks, never cut.
        assert_eq!(u(&multi["blocks"]), 16 * m_ops);
        assert_eq!(u(&r["blocks"]), s_ops + 16 * m_ops);
        assert_eq!(u(&r["bytes"]), 8192 * u(&r["blocks"]));
        assert_eq!(u(&r["lat"]["count"]), 1000);
        let t = &r["tiers"];
        let tiers = u(&t["page_cache"]["count"])
            + u(&t["storage_cache"]["count"])
            + u(&t["device"]["count"]);
        assert_eq!(tiers, 1000);
    }
    assert!(
        dbio_files(d.path()).is_empty(),
        "temporary file left behind"
    );
}

#[test]
fn multiblock_reads_are_cut_at_the_end_of_the_scan() {
    // 40 blocks, 16 per read: 16, 16, 8, 16, 16, 8.
    let d = scratch();
    let v = read_json(&[
        d.path().to_str().unwrap(),
        "--size",
        "320k",
        "--ops",
        "6",
        "--multiblock-pct",
        "100",
    ]);
    let r = &v["reads"][0];
    assert_eq!(u(&r["blocks"]), 80);
    // IOPS is the reads over the measured time.
    let iops = 6.0 / (u(&r["runtime_ns"]) as f64 / 1e9);
    assert!(
        (r["iops"].as_f64().unwrap() - iops).abs() < 1e-6 * iops,
        "{r}"
    );
    let sizes: Vec<(u64, u64, u64)> = r["by_size"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (u(&g["io_bytes"]), u(&g["ops"]), u(&g["blocks"])))
        .collect();
    assert_eq!(sizes, vec![(65_536, 2, 16), (131_072, 4, 64)]);
    assert_eq!(u(&kind(r, "multi")["ops"]), 6);
}

#[test]
fn cached_share_is_resident_before_the_run() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    // 8 MiB = 2048 pages of 4 KiB; 30 % rounds down to 307 blocks of 8 KiB.
    for (state, pages) in [("0%", 0u64), ("30%", 614), ("warm", 2048)] {
        let v = read_json(&[
            dir,
            "--size",
            "8m",
            "--ops",
            "10",
            "--cached",
            state,
            "--multiblock-pct",
            "0",
        ]);
        let c = &v["reads"][0]["cached_before"];
        assert_eq!(u(&c["total_pages"]) * u(&c["page_size"]), 8 << 20);
        let page = u(&c["page_size"]);
        assert_eq!(u(&c["resident_pages"]), pages * 4096 / page, "{state}: {c}");
    }
}

#[test]
fn cold_and_warm_side_by_side() {
    let d = scratch();
    let out = dbio()
        .arg("read")
        .arg(d.path())
        .args(["--size", "16m", "--ops", "500", "--cached", "cold,warm"])
        .args(["--rounds", "2", "--multiblock-pct", "0", "--quiet"])
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    for want in [
        "cold reads",
        "warm reads",
        "page cache",
        "Where the reads were served from",
    ] {
        assert!(table.contains(want), "missing '{want}' in:\n{table}");
    }
    let v = read_json(&[
        d.path().to_str().unwrap(),
        "--size",
        "16m",
        "--ops",
        "500",
        "--compare",
        "cold,warm",
        "--rounds",
        "2",
        "--multiblock-pct",
        "0",
    ]);
    let reads = v["reads"].as_array().unwrap();
    assert_eq!(reads.len(), 2);
    assert_eq!(
        (reads[0]["name"].as_str(), reads[1]["name"].as_str()),
        (Some("cold"), Some("warm"))
    );
    for r in reads {
        assert_eq!(u(&r["ops"]), 1000, "two rounds of 500");
    }
    let warm = &reads[1]["cached_before"];
    assert_eq!(warm["resident_pages"], warm["total_pages"]);
    assert_eq!(reads[0]["cached_before"]["resident_pages"], 0);
    let findings = v["findings"].as_array().unwrap();
    assert!(findings
        .iter()
        .any(|c| c["text"].as_str().unwrap().contains("the latency of")));
}

/// O_DIRECT reads bypass the page cache: however fast (this machine's
/// storage may answer in microseconds), none is a page-cache hit, in the
/// tiers, in every group, in the per-second series and in the words; the
/// storage-cache boundary is measured in the run (issue 23: the README's
/// `--direct --cached cold,warm` example called 77.6 % of its O_DIRECT
/// reads page-cache hits with the fixed 100 µs boundary).
#[test]
fn o_direct_reads_are_never_page_cache_hits() {
    let d = scratch();
    let probe = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .custom_flags(libc::O_DIRECT)
        .open(d.path().join("probe"));
    if probe.is_err() {
        return crate::util::skip_this_test("the scratch filesystem refuses O_DIRECT");
    }
    let dir = d.path().to_str().unwrap();
    let args = [
        dir,
        "--size",
        "4m",
        "--ops",
        "300",
        "--direct",
        "--cached",
        "cold,warm",
        "--rounds",
        "1",
    ];
    let v = read_json(&args);
    let reads = v["reads"].as_array().unwrap();
    assert_eq!(reads.len(), 2);
    for r in reads {
        assert_eq!(u(&r["ops"]), 300, "{}", r["name"]);
        assert_eq!(u(&r["tiers"]["page_cache"]["count"]), 0, "{}", r["tiers"]);
        for g in r["by_kind"]
            .as_array()
            .unwrap()
            .iter()
            .chain(r["by_size"].as_array().unwrap())
        {
            assert_eq!(u(&g["tiers"]["page_cache"]["count"]), 0, "{g}");
        }
        let att = &r["attribution"];
        assert_eq!(att["direct"], true, "{att}");
        assert_eq!(att["storage_cache_max"]["source"], "measured", "{att}");
        assert!(att["rereads"]["count"].as_u64().unwrap() > 0, "{att}");
        // A run under a second may have no per-second series at all.
        let series = r["per_second"].as_array().cloned().unwrap_or_default();
        assert!(
            series
                .iter()
                .all(|s| !s["name"].as_str().unwrap().starts_with("page_cache")),
            "{series:?}"
        );
    }
    let texts: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    for t in &texts {
        assert!(!t.contains("not all physical"), "{t}");
        if t.contains("page-cache hits") {
            assert!(
                t.contains("0.0 % page-cache hits") || t.contains("never a page-cache hit"),
                "{t}"
            );
        }
    }
    let out = dbio().arg("read").args(args).arg("--quiet").succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("an O_DIRECT read is never counted as a page-cache hit"),
        "{table}"
    );
    // Thresholds given on the command line are used as given, still with
    // no page-cache tier.
    let v = read_json(&[
        dir,
        "--size",
        "1m",
        "--ops",
        "100",
        "--direct",
        "--page-cache-max",
        "1s",
        "--storage-cache-max",
        "2s",
    ]);
    let r = &v["reads"][0];
    assert_eq!(u(&r["tiers"]["page_cache"]["count"]), 0);
    assert_eq!(u(&r["tiers"]["storage_cache"]["count"]), 100);
    assert_eq!(r["attribution"]["storage_cache_max"]["source"], "given");
}

#[test]
fn thresholds_come_from_a_calibration_file() {
    let d = scratch();
    let cal = d.path().join("cal.json");
    // Every real read takes at least 2 ns: all are device reads.
    std::fs::write(
        &cal,
        r#"{"page_cache_max_ns": 1, "storage_cache_max_ns": 2}"#,
    )
    .unwrap();
    let v = read_json(&[
        d.path().to_str().unwrap(),
        "--size",
        "1m",
        "--ops",
        "200",
        "--calibration",
        cal.to_str().unwrap(),
    ]);
    let r = &v["reads"][0];
    assert_eq!(u(&r["tiers"]["device"]["count"]), 200);
    assert_eq!(u(&r["tiers"]["page_cache"]["count"]), 0);
    assert_eq!(r["thresholds"]["source"].as_str(), cal.to_str());
}

#[test]
fn refuses_impossible_options_in_one_sentence() {
    let d = scratch();
    for (args, msg) in [
        (vec!["--iodepth", "4"], "needs --engine io_uring"),
        (vec!["--multiblock-count", "2048"], "--multiblock-count"),
        (vec!["--cached", "lukewarm"], "cache state"),
        (vec!["--distribution", "zipf:1"], "--distribution"),
        (
            vec!["--page-cache-max", "2ms"],
            "above the storage-cache threshold",
        ),
    ] {
        dbio()
            .arg("read")
            .arg(d.path())
            .args(["--size", "1m", "--ops", "10"])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(msg));
    }
    assert!(dbio_files(d.path()).is_empty());
}

/// Without `--size`, an existing datafile is read whole: its own size
/// (rounded down to blocks), not the 1 GiB default it would be refused for.
#[test]
fn read_existing_file_defaults_to_its_own_size() {
    let d = scratch();
    let f = d.path().join("small.dbf");
    std::fs::write(&f, vec![7u8; (3 << 20) + 100]).unwrap();
    let v = read_json(&[f.to_str().unwrap(), "--ops", "200"]);
    assert_eq!(u(&v["reads"][0]["config"]["size"]), 3 << 20, "{v}");
    assert_eq!(u(&v["reads"][0]["ops"]), 200);
    // An explicit --size larger than the file is still refused.
    let out = dbio()
        .args([
            "read",
            f.to_str().unwrap(),
            "--size",
            "1g",
            "--ops",
            "10",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use a smaller --size"));
    assert_eq!(std::fs::metadata(&f).unwrap().len(), (3 << 20) + 100);
}

/// See: issue 23. O_DIRECT reads answer what the storage gives (never
/// page-cache hits), each tier with its share of the read time; on a
/// memory filesystem the answer is memory.
#[test]
fn read_answers_whether_the_reads_measured_the_storage() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let v = read_json(&[dir, "--direct", "--size", "4m", "--ops", "300"]);
    let verdict = &v["verdict"];
    let memory = matches!(
        v["environment"]["fs_type"].as_str(),
        Some("tmpfs" | "ramfs")
    );
    assert_eq!(
        verdict["class"],
        if memory { "page_cache" } else { "capability" },
        "{verdict}"
    );
    if !memory {
        assert!(verdict["answer"]
            .as_str()
            .unwrap()
            .ends_with("an O_DIRECT read is never a page-cache hit"));
    }
    let first = &v["findings"][verdict["top"][0].as_u64().unwrap() as usize];
    assert_eq!(first["rule"], "read.tier_time", "{first}");
    assert_eq!(first["impact"]["of"], "read time");
    assert!(!first["text"].as_str().unwrap().contains("page cache reads"));
}
