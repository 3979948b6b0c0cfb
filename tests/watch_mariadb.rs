//! `dbio watch` on a MariaDB 10.11 server whose InnoDB does its data I/O
//! through io_uring, under a commit load (`dbio load`): the redo log's
//! writes (system calls) and the data files' writes (io_uring requests,
//! whichever InnoDB thread or kernel worker ran them) are named, and
//! counted within 1 % of the server's own counters over the same span.
//! Needs root and the private servers of scripts/db-servers
//! (`DBIO_TEST_MYSQL_URL`, `DBIO_TEST_MYSQL_ADMIN_URL`, which scripts/test
//! exports); without them it prints why it skips.

use crate::util::{dbio, is_root, json, scratch, skip_this_test};
use crate::util::{wait_output_within, CHILD_DEADLINE};
use serde_json::Value;
use std::process::Command;

/// The `mariadb` client's arguments for a `mysql://user:pw@host:port/db`
/// URL (the servers' passwords are letters and digits).
fn client(url: &str) -> Vec<String> {
    let rest = url.strip_prefix("mysql://").expect("a mysql:// URL");
    let (auth, at) = rest.split_once('@').unwrap();
    let (user, pw) = auth.split_once(':').unwrap();
    let (hostport, db) = at.split_once('/').unwrap_or((at, ""));
    let (host, port) = hostport.split_once(':').unwrap_or((hostport, "3306"));
    let mut v: Vec<String> = vec![
        "-N".into(),
        "-B".into(),
        format!("--host={host}"),
        format!("--port={port}"),
        format!("--user={user}"),
        format!("--password={pw}"),
    ];
    if !db.is_empty() {
        v.push(db.split('?').next().unwrap().to_string());
    }
    v
}

/// Runs `sql` through the `mariadb` client: its tab-separated output.
fn sql(url: &str, sql: &str) -> String {
    let out = Command::new("mariadb")
        .args(client(url))
        .args(["-e", sql])
        .output()
        .expect("the mariadb client (scripts/db-servers installs it)");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A global status counter.
fn status(url: &str, name: &str) -> Option<u64> {
    let line = sql(url, &format!("SHOW GLOBAL STATUS LIKE '{name}'"));
    line.split('\t').nth(1).and_then(|v| v.parse().ok())
}

/// The redo log's write counter: `Innodb_os_log_writes`, which MariaDB
/// 10.11 no longer has, else `Innodb_log_writes` (writes to the log file).
fn log_writes(url: &str) -> u64 {
    status(url, "Innodb_os_log_writes")
        .or_else(|| status(url, "Innodb_log_writes"))
        .expect("neither Innodb_os_log_writes nor Innodb_log_writes")
}

/// The load's table, dropped on drop (also when the test fails).
struct Table<'a> {
    admin: &'a str,
    name: String,
}

impl Drop for Table<'_> {
    fn drop(&mut self) {
        let _ = Command::new("mariadb")
            .args(client(self.admin))
            .args(["-e", &format!("DROP TABLE IF EXISTS {}", self.name)])
            .output();
    }
}

/// `innodb_max_dirty_pages_pct` set to 0 (the page cleaner writes every
/// dirty page), put back on drop.
struct FlushAll<'a> {
    admin: &'a str,
    was: String,
}

impl<'a> FlushAll<'a> {
    fn new(admin: &'a str) -> FlushAll<'a> {
        let was = sql(admin, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct");
        sql(admin, "SET GLOBAL innodb_max_dirty_pages_pct = 0");
        FlushAll { admin, was }
    }
}

impl Drop for FlushAll<'_> {
    fn drop(&mut self) {
        let _ = Command::new("mariadb")
            .args(client(self.admin))
            .args([
                "-e",
                &format!("SET GLOBAL innodb_max_dirty_pages_pct = {}", self.was),
            ])
            .output();
    }
}

/// Whether InnoDB says, in the server's error log, that it does its
/// asynchronous I/O through io_uring ("InnoDB: Using io_uring"; a build
/// without liburing says "Using Linux native AIO").
fn innodb_uses_io_uring(admin: &str) -> Result<bool, String> {
    let log = sql(admin, "SELECT @@GLOBAL.log_error");
    let text =
        std::fs::read_to_string(&log).map_err(|e| format!("the server's error log {log}: {e}"))?;
    // The last start's line (the log may hold several).
    let uring = text.rfind("InnoDB: Using io_uring");
    let native = text.rfind("InnoDB: Using Linux native AIO");
    Ok(uring.is_some() && uring > native)
}

/// Whether `path` is an InnoDB data file (the system tablespace, a
/// table's file, an undo tablespace), not the redo log.
fn innodb_data_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.starts_with("ibdata") || name.ends_with(".ibd") || name.starts_with("undo")
}

fn is_write(op: &str) -> bool {
    matches!(op, "write" | "pwrite64" | "writev" | "pwritev" | "pwritev2")
        || (op.starts_with("uring_") && op.contains("write"))
        || (op.starts_with("aio_") && op.contains("pwrite"))
}

// See: issue 26.
#[test]
fn watch_counts_mariadbs_redo_and_io_uring_data_writes_under_commit_load() {
    let (Some(url), Some(admin)) = (
        std::env::var("DBIO_TEST_MYSQL_URL")
            .ok()
            .filter(|u| !u.is_empty()),
        std::env::var("DBIO_TEST_MYSQL_ADMIN_URL")
            .ok()
            .filter(|u| !u.is_empty()),
    ) else {
        return skip_this_test(
            "DBIO_TEST_MYSQL_URL and DBIO_TEST_MYSQL_ADMIN_URL are not set (scripts/test starts a private server as root)",
        );
    };
    if !is_root() {
        return skip_this_test("dbio watch needs root to load BPF programs");
    }
    // InnoDB's asynchronous I/O is on, and it is io_uring: the server says
    // so at start, and the watch must then see io_uring requests on its
    // data files.
    assert_eq!(sql(&admin, "SELECT @@GLOBAL.innodb_use_native_aio"), "1");
    let uring = innodb_uses_io_uring(&admin).unwrap();
    let pid_file = sql(&admin, "SELECT @@GLOBAL.pid_file");
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    let d = scratch();
    let result = d.path().join("watch.json");
    let args = ["watch", "--pid", &pid].map(str::to_string);
    let watch = match crate::util::start_watch(&args, &result) {
        Ok(w) => w,
        Err(why) => return skip_this_test(&why),
    };
    let (log0, data0) = (
        log_writes(&admin),
        status(&admin, "Innodb_data_writes").unwrap(),
    );
    let load = dbio()
        .args([
            "load",
            &url,
            "--sessions",
            "2",
            "--commits",
            "300",
            "--keep",
        ])
        .args(["--quiet", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        load.status.success(),
        "{}",
        String::from_utf8_lossy(&load.stderr)
    );
    let l = json(&load.stdout);
    let table = Table {
        admin: &admin,
        name: l["load"][0]["table"].as_str().unwrap().to_string(),
    };
    // The page cleaner writes every dirty page out: the table's, the
    // undo log's, through the doublewrite buffer.
    {
        let _flush = FlushAll::new(&admin);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while status(&admin, "Innodb_buffer_pool_pages_dirty") != Some(0) {
            assert!(
                std::time::Instant::now() < deadline,
                "dirty pages were not written within 60 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
    let (log1, data1) = (
        log_writes(&admin),
        status(&admin, "Innodb_data_writes").unwrap(),
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
    let w = &v["watch"][0];
    let ops = w["ops"].as_array().unwrap();
    let writes_on = |keep: &dyn Fn(&str) -> bool| -> (u64, Vec<String>) {
        let mut n = 0;
        let mut how = Vec::new();
        for o in ops {
            let (Some(p), op) = (o["path"].as_str(), o["op"].as_str().unwrap()) else {
                continue;
            };
            if keep(p) && is_write(op) {
                n += o["count"].as_u64().unwrap();
                how.push(format!("{op} {p} x{}", o["count"]));
            }
        }
        (n, how)
    };
    let within = |seen: u64, counted: u64| seen.abs_diff(counted) <= (counted / 100).max(1);
    // The redo log: its writes are system calls, named.
    let (redo, how) = writes_on(&|p| p.ends_with("/ib_logfile0"));
    let log = log1 - log0;
    assert!(log > 300, "{log} log writes for 600 commits");
    assert!(
        within(redo, log),
        "{redo} writes seen on the redo log, the server counted {log}: {how:?}"
    );
    // The data files: every write, whatever path it took, against the
    // server's count; through io_uring when InnoDB says it uses it.
    let (data, how) = writes_on(&|p| innodb_data_file(p));
    let counted = data1 - data0;
    assert!(counted > 0, "no data write counted");
    assert!(
        within(data, counted),
        "{data} writes seen on the data files, the server counted {counted}: {how:?}"
    );
    let via = if uring { "uring_" } else { "aio_" };
    let requests: u64 = ops
        .iter()
        .filter(|o| o["op"].as_str().unwrap().starts_with(via))
        .filter(|o| o["path"].as_str().is_some_and(innodb_data_file))
        .map(|o| o["count"].as_u64().unwrap())
        .sum();
    assert!(
        requests * 100 >= counted * 99,
        "InnoDB {} ({via}): {requests} of {counted} data writes seen so: {how:?}",
        if uring {
            "uses io_uring"
        } else {
            "uses Linux native AIO"
        }
    );
    // The load's table's own file is named among them.
    let ibd = format!("/{}.ibd", table.name);
    assert!(
        ops.iter()
            .any(|o| o["path"].as_str().is_some_and(|p| p.ends_with(&ibd))
                && o["op"].as_str().unwrap().starts_with(via)),
        "{ibd}: {how:?}"
    );
    // All of it under the server's one process, whichever of its threads
    // or kernel workers did it.
    assert!(
        ops.iter()
            .filter(|o| o["op"].as_str().unwrap().starts_with(via))
            .all(|o| o["pid"].as_u64().map(|p| p.to_string()).as_deref() == Some(pid.as_str())),
        "{w}"
    );
}
