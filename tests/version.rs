//! `dbio --version` and `dbio version --json` name the build: the git
//! revision the binary was built from (checked against `git rev-parse`),
//! whether the tree was dirty, the target, the glibc it needs (checked
//! against the binary's own symbol versions), the features and the result
//! schema; every result records the same `build`, and a re-rendered
//! result keeps what its writer recorded.

use crate::util::{dbio, dbio_path, json};
use std::process::Command;

fn git(args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn version_json() -> serde_json::Value {
    let out = dbio().args(["version", "--json"]).output().unwrap();
    assert!(out.status.success());
    json(&out.stdout)
}

#[test]
fn version_names_the_git_revision_and_whether_the_tree_was_dirty() {
    let head = git(&["rev-parse", "HEAD"]);
    let dirty = !git(&["status", "--porcelain", "--untracked-files=no"]).is_empty();
    let v = version_json();
    assert_eq!(v["revision"], head.as_str());
    assert_eq!(v["dirty"], dirty);
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["schema_version"], 3);
    assert_eq!(v["target"], "x86_64-unknown-linux-gnu");
    let features: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(features, ["postgres", "mysql", "watch"]);
    assert_eq!(v["bpf_sha256"].as_str().unwrap().len(), 64);

    let out = dbio().arg("--version").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    let want = format!(
        "dbio {} ({}{})",
        env!("CARGO_PKG_VERSION"),
        &head[..12],
        if dirty { ", dirty" } else { "" }
    );
    assert_eq!(first, want);
    assert!(text.contains(&format!("revision: {head}")), "{text}");
    // -V is the one line.
    let out = dbio().arg("-V").output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("dbio {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// The glibc floor `dbio version` states is the newest GLIBC_ version
/// among the binary's dynamic symbols, as `objdump -T` lists them.
#[test]
fn the_stated_glibc_floor_is_the_newest_glibc_symbol_version_the_binary_needs() {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(dbio_path())
        .output()
        .expect("objdump (binutils) runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let newest = text
        .split_whitespace()
        .filter_map(|w| {
            w.trim_start_matches('(')
                .trim_end_matches(')')
                .strip_prefix("GLIBC_")
        })
        .filter_map(|v| {
            v.split('.')
                .map(str::parse)
                .collect::<Result<Vec<u32>, _>>()
                .ok()
        })
        .max()
        .expect("a glibc binary");
    let newest: Vec<String> = newest.iter().map(u32::to_string).collect();
    assert_eq!(version_json()["glibc"], newest.join("."));
}

/// A result records the build that wrote it; `report --from` re-renders
/// an older result without adding one.
#[test]
fn every_result_records_its_build_and_a_rerendered_one_keeps_what_it_had() {
    let out = dbio()
        .args([
            "bench", "--engine", "null", "--ops", "10", "--quiet", "--json", "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let r = json(&out.stdout);
    assert_eq!(r["build"], version_json());

    let old = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/render/bench.json"
    );
    let out = dbio()
        .args(["report", "--from", old, "--json", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let again = json(&out.stdout);
    assert!(again.get("build").is_none(), "{again}");
    let awr = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/awr/de-0000.txt"
    );
    let out = dbio().args(["awr", awr, "--json", "-"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(json(&out.stdout)["build"], version_json());
}
