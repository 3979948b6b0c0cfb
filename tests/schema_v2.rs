//! Results written by schema version 2 (before each command's echo became
//! its configuration in nanoseconds and bytes) still render: `dbio report
//! --from` prints the very table the run printed, and re-exported they are
//! version-3 results. The fixtures under `tests/fixtures/v2/` are real
//! results of the version-2 binary, with the table it printed beside each.

use crate::util::{dbio, json};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/v2")
        .join(name)
}

/// `report --from` on the version-2 result `name`.json prints `name`.txt,
/// the table the version-2 run printed; its JSON is version 3.
fn renders_as_it_did(name: &str) -> serde_json::Value {
    let from = fixture(&format!("{name}.json"));
    let out = dbio()
        .args(["report", "--from"])
        .arg(&from)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read_to_string(fixture(&format!("{name}.txt"))).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{name}");
    let out = dbio()
        .args(["report", "--json", "-", "--from"])
        .arg(&from)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["schema_version"], 3, "{name}");
    v
}

#[test]
fn a_version_2_bench_result_renders_the_same_table() {
    let v = renders_as_it_did("bench-time");
    let j = &v["jobs"][0];
    assert_eq!(j["job"]["runtime_ns"], 300_000_000);
    assert_eq!(j["job"]["warmup_ns"], 100_000_000);
    assert!(j["job"].get("runtime_s").is_none(), "{j}");
    assert!(j["target"].as_str().unwrap().ends_with(".tmp"), "{j}");
    let v = renders_as_it_did("bench-ops");
    let j = &v["jobs"][0];
    assert_eq!(j["job"]["runtime_ns"], serde_json::Value::Null);
    assert_eq!(j["job"]["ops_limit"], 2000);
}

#[test]
fn a_version_2_read_result_renders_the_same_table() {
    let v = renders_as_it_did("read");
    let r = &v["reads"][1];
    assert_eq!(r["name"], "warm");
    assert_eq!(r["cached_pct"], 100.0);
    assert!(r.get("settings").is_none(), "{r}");
    assert_eq!(r["config"]["runtime_ns"], 1_000_000_000);
    assert_eq!(r["config"]["distribution"], "uniform");
    assert_eq!(r["config"]["rounds"], 3);
    assert!(r["target"].as_str().unwrap().ends_with(".tmp"), "{r}");
}

#[test]
fn a_version_2_calibrate_result_renders_the_same_table() {
    let v = renders_as_it_did("calibrate");
    let c = &v["calibration"];
    // Version 2 recorded only the block size of its configuration.
    assert_eq!(c["block_size"], 8192);
    assert!(c.get("config").is_none(), "{c}");
    assert_eq!(c["page_cache_max_ns"], 14774);
}
