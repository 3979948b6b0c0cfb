//! `dbio watch` on a PostgreSQL 18 server (the registry package
//! scripts/db-servers installs) whose reads go through its I/O worker
//! processes (`io_method = worker`, 18's default): watching the postmaster
//! and its children, with `--follow` for the backend that runs the query,
//! a sequential scan of a table evicted from shared buffers is seen as
//! reads on the table's file, every byte of it once, most of them by the
//! I/O workers rather than by the backend that asked.
//! Needs root and `DBIO_TEST_PG18_ADMIN_URL` and `DBIO_DB_DIR` (which
//! scripts/test exports); without them it prints why it skips.

use crate::util::{is_root, scratch, skip_this_test};
use crate::util::{wait_output_within, CHILD_DEADLINE};
use serde_json::Value;
use std::process::Command;

/// One statement through Debian's psql (the registry package has no
/// client): its unaligned output, one line per row.
fn psql(url: &str, q: &str) -> String {
    let out = Command::new("psql")
        .args(["-XAtq", url, "-c", q])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "psql {q}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The table, dropped on drop (also when the test fails).
struct Table<'a>(&'a str);

impl Drop for Table<'_> {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .args([
                "-XAtq",
                self.0,
                "-c",
                "DROP TABLE IF EXISTS dbio_watch_pg18",
            ])
            .output();
    }
}

#[test]
fn watch_follows_postgresql_18_reads_to_its_io_workers() {
    let (Ok(admin), Ok(dir)) = (
        std::env::var("DBIO_TEST_PG18_ADMIN_URL"),
        std::env::var("DBIO_DB_DIR"),
    ) else {
        return skip_this_test(
            "DBIO_TEST_PG18_ADMIN_URL or DBIO_DB_DIR is not set (scripts/test starts the private servers as root)",
        );
    };
    if !is_root() {
        return skip_this_test("dbio watch needs root to load BPF programs");
    }
    assert_eq!(psql(&admin, "SHOW io_method"), "worker");
    let _table = Table(&admin);
    psql(
        &admin,
        "CREATE TABLE dbio_watch_pg18 AS \
         SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 100000) g",
    );
    let path = psql(&admin, "SELECT pg_relation_filepath('dbio_watch_pg18')");
    let size: u64 = psql(&admin, "SELECT pg_relation_size('dbio_watch_pg18')")
        .parse()
        .unwrap();
    // Written out and dropped from shared buffers: the scan must read it.
    psql(&admin, "CHECKPOINT");
    psql(&admin, "CREATE EXTENSION IF NOT EXISTS pg_buffercache");
    psql(
        &admin,
        "SELECT pg_buffercache_evict_relation('dbio_watch_pg18'::regclass)",
    );
    let workers: Vec<u64> = psql(
        &admin,
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'io worker'",
    )
    .lines()
    .map(|l| l.parse().unwrap())
    .collect();
    assert!(!workers.is_empty(), "no I/O worker");
    // The postmaster and every process it has started (the I/O workers
    // among them); the scan's backend is forked later: --follow.
    let pm = std::fs::read_to_string(format!("{dir}/pg18/postmaster.pid")).unwrap();
    let pm = pm.lines().next().unwrap().trim().to_string();
    let children = Command::new("pgrep").args(["-P", &pm]).output().unwrap();
    let mut args = vec!["watch".to_string(), "--follow".into(), "--pid".into(), pm];
    for c in String::from_utf8_lossy(&children.stdout).split_whitespace() {
        args.extend(["--pid".to_string(), c.to_string()]);
    }
    let d = scratch();
    let result = d.path().join("watch.json");
    let watch = match crate::util::start_watch(&args, &result) {
        Ok(w) => w,
        Err(why) => return skip_this_test(&why),
    };
    assert_eq!(
        psql(&admin, "SELECT count(*) FROM dbio_watch_pg18"),
        "100000"
    );
    // SAFETY: kill(2) on the pid of the watch this test started.
    unsafe { libc::kill(watch.id() as i32, libc::SIGINT) };
    let done = wait_output_within(watch, CHILD_DEADLINE);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    let ops = v["watch"][0]["ops"].as_array().unwrap();
    let on_table = |o: &&Value| {
        o["path"]
            .as_str()
            .is_some_and(|p| p.ends_with(&format!("/{path}")))
            && o["op"].as_str().unwrap().contains("read")
    };
    let bytes = |by_worker: bool| -> u64 {
        ops.iter()
            .filter(on_table)
            .filter(|o| o["pid"].as_u64().is_some_and(|p| workers.contains(&p)) == by_worker)
            .map(|o| o["bytes"].as_u64().unwrap())
            .sum()
    };
    let all: Vec<String> = ops
        .iter()
        .filter(on_table)
        .map(|o| format!("pid {} {} {} B", o["pid"], o["op"], o["bytes"]))
        .collect();
    // Every block once, whoever read it; the I/O workers most of it (a
    // backend reads for itself only when the workers' queue is full).
    let (workers_read, others_read) = (bytes(true), bytes(false));
    assert_eq!(workers_read + others_read, size, "{path}: {all:?}");
    assert!(
        workers_read * 2 > size,
        "the I/O workers {workers:?} read {workers_read} of {size} B of {path}: {all:?}"
    );
}
