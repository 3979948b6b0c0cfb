//! Findings end to end: the real binary prints each conclusion with its
//! severity, evidence (with units) and source in the table, the JSON and
//! the CSV; `tracefile` draws its own; and a result written before
//! findings (a `conclusions` list of strings, per-entry `conclusion`s and
//! `notes`) still renders with `report --from`. See: issue 10.

use crate::util::{dbio, json, scratch, Succeeds};

/// A two-configuration writer sweep on the null engine (no I/O, fast).
const SWEEP: [&str; 15] = [
    "dbwr",
    "--engine",
    "null",
    "--ops",
    "2000",
    "--writers",
    "1,2",
    "--size",
    "4m",
    "--buffers",
    "128",
    "--lists",
    "4",
    "--foregrounds",
    "2",
];

#[test]
fn findings_carry_severity_evidence_and_source_in_every_output() {
    let d = scratch();
    let (j, c) = (d.path().join("r.json"), d.path().join("r.csv"));
    let out = dbio()
        .args(SWEEP)
        .arg(d.path())
        .arg("--json")
        .arg(&j)
        .arg("--csv")
        .arg(&c)
        .arg("-q")
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("* Highest throughput with "),
        "the sweep's finding: {table}"
    );
    assert!(
        table.contains(
            "source: Kevin Closson, \"Over-Configuring DBWR Processes \u{2013} Part III\")"
        ),
        "{table}"
    );
    // In the answer block or in the list after the tables.
    assert!(
        table.contains("info; buffer operations per minute "),
        "{table}"
    );

    let v = json(&std::fs::read(&j).unwrap());
    let fs = v["findings"].as_array().unwrap();
    let first = fs
        .iter()
        .find(|f| f["subject"] == "writers=1" && f["rule"].as_str().unwrap().ends_with("cpu_bound"))
        .unwrap_or_else(|| panic!("{fs:?}"));
    assert_eq!(first["subject"], "writers=1");
    assert!(["info", "notice"].contains(&first["severity"].as_str().unwrap()));
    let ev = first["evidence"].as_array().unwrap();
    assert_eq!(ev[0]["what"], "buffer operations per minute");
    assert_eq!(ev[0]["unit"], "ops/min");
    // The evidence is the result's own number, not a rounded copy.
    assert_eq!(ev[0]["value"], v["dbwr"][0]["foreground"]["ops_per_min"]);
    assert_eq!(first["reference"]["author"], "Kevin Closson");
    assert!(v.get("conclusions").is_none());
    assert!(v["dbwr"][0].get("conclusion").is_none());
    assert!(
        fs.iter()
            .all(|f| !f["text"].as_str().unwrap().contains("seed 00")),
        "findings cite the article, not a seed: {fs:?}"
    );

    let csv = std::fs::read_to_string(&c).unwrap();
    assert!(csv.contains("finding,dbwr.sweep,severity,info\n"), "{csv}");
    assert!(
        csv.contains("finding,dbwr.sweep,highest throughput (ops/min),"),
        "{csv}"
    );
}

#[test]
fn a_result_written_before_findings_still_renders() {
    let d = scratch();
    let out = dbio()
        .args(SWEEP)
        .arg(d.path())
        .args(["--json", "-", "-q"])
        .succeeds();
    // Turn it into the shape results had before findings.
    let mut v = json(&out.stdout);
    let o = v.as_object_mut().unwrap();
    o.remove("findings");
    o.remove("verdict");
    o.insert("schema_version".into(), serde_json::json!(1));
    o.insert(
        "conclusions".into(),
        serde_json::json!(["an old report-wide line"]),
    );
    v["dbwr"][0]["conclusion"] = serde_json::json!("an old per-configuration line");
    let old = d.path().join("old.json");
    std::fs::write(&old, serde_json::to_vec(&v).unwrap()).unwrap();

    let out = dbio().args(["report", "--from"]).arg(&old).succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("* an old report-wide line\n"), "{table}");
    assert!(
        table.contains("* an old per-configuration line\n"),
        "{table}"
    );

    let out = dbio()
        .args(["report", "--json", "-", "--from"])
        .arg(&old)
        .succeeds();
    let back = json(&out.stdout);
    // Migrated: written again, it is a result of the current version.
    assert_eq!(back["schema_version"], dbio_model::SCHEMA_VERSION);
    let fs = back["findings"].as_array().unwrap();
    assert_eq!(fs.len(), 2, "{fs:?}");
    assert_eq!(fs[0]["rule"], "legacy");
    assert_eq!(fs[0]["text"], "an old report-wide line");
    assert_eq!(fs[1]["subject"], "writers=1");
    assert_eq!(fs[1]["text"], "an old per-configuration line");
}

#[test]
fn tracefile_says_when_physical_reads_were_page_cache_hits() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data/ninei-9201.trc"
    );
    let out = dbio().args(["tracefile", trace, "--json", "-"]).succeeds();
    let v = json(&out.stdout);
    let fs = v["findings"].as_array().unwrap();
    let f = fs
        .iter()
        .find(|f| f["rule"] == "trace.page_cache_reads")
        .unwrap_or_else(|| panic!("{fs:?}"));
    assert_eq!(f["subject"], "db file sequential read");
    assert_eq!(f["reference"]["author"], "Kyle Hailey");
    // With a page-cache threshold of 0, no wait is under it: nothing is said.
    let out = dbio()
        .args(["tracefile", trace, "--page-cache-max", "0", "--json", "-"])
        .succeeds();
    let fs = json(&out.stdout)["findings"].clone();
    assert!(
        fs.as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] != "trace.page_cache_reads"),
        "{fs}"
    );
    // The table prints the finding with its evidence.
    let out = dbio().args(["tracefile", trace]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("'db file sequential read': its one wait took under 100 µs"),
        "{table}"
    );
    assert!(
        table.contains("waits under the page-cache threshold 100.0 %; waits 1;"),
        "{table}"
    );
}
