//! `dbio watch -- COMMAND` behaves as a wrapper: it exits with the
//! command's status (128 + the signal that killed it) and says so when the
//! command failed; the table lists files busiest first, folds pseudo-files
//! and libraries, and warns of no "not mapped" pseudo-file; and the
//! examples of docs/watch.md run as written. Tests that load BPF programs
//! need root and print a skip reason without it.

use crate::util::{dbio_path, is_root, scratch, wait_output_within, CHILD_DEADLINE};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `dbio watch ARGS` run to completion (its status is the test's to
/// judge), or why the test must be skipped.
fn watch(args: &[&str]) -> Result<Output, String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let child = Command::new(dbio_path())
        .arg("watch")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbio watch");
    let out = wait_output_within(child, CHILD_DEADLINE);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return Err(format!("BPF on tracepoints is unavailable here: {err}"));
    }
    Ok(out)
}

fn result(path: &Path) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["watch"][0].clone()
}

// See: issue 26.
#[test]
fn watch_exits_with_the_commands_status_and_says_so() {
    let d = scratch();
    let saved = d.path().join("w.json");
    let s = saved.to_str().unwrap();
    let out = or_skip!(watch(&["--quiet", "--json", s, "--", "sh", "-c", "exit 3"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("dbio watch: the command exited with status 3; dbio watch exits with 3"),
        "{err}"
    );
    // The result is written all the same.
    assert_eq!(result(&saved)["command_status"], 3);
    // A command a signal killed: 128 + the signal, as a shell says.
    let out = or_skip!(watch(&[
        "--quiet",
        "--json",
        s,
        "--",
        "sh",
        "-c",
        "kill -TERM $$"
    ]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{err}");
    assert!(
        err.contains("the command was killed by signal 15; dbio watch exits with 143"),
        "{err}"
    );
    let w = result(&saved);
    assert_eq!(w["command_signal"], libc::SIGTERM, "{w}");
    assert_eq!(w["command_status"], Value::Null, "{w}");
    // A command that succeeded: 0, and nothing said.
    let out = or_skip!(watch(&["--quiet", "--json", s, "--", "true"]));
    assert!(out.status.success(), "{out:?}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("exits with"),
        "{out:?}"
    );
}

// See: issue 26.
#[test]
fn watch_lists_files_by_time_and_warns_of_no_pseudo_file() {
    let d = scratch();
    let (small, big) = (d.path().join("small"), d.path().join("big"));
    // The small file is written first, the big one takes the time; the
    // process reads its own /proc files on the way, which dbio would find
    // naming its own files, not the command's.
    let script = format!(
        "cat /proc/self/status /proc/self/mountinfo > /dev/null; \
         dd if=/dev/zero of={} bs=4k count=4 oflag=dsync status=none; \
         dd if=/dev/zero of={} bs=4k count=64 oflag=dsync status=none",
        small.display(),
        big.display()
    );
    // The shell's commands are its children: --follow.
    let out = or_skip!(watch(&["--follow", "--", "sh", "-c", &script]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let row = |p: &Path| {
        text.lines()
            .position(|l| l.contains(&format!(" {} ", p.display())) && l.contains("write"))
            .unwrap_or_else(|| panic!("no row for {}: {text}", p.display()))
    };
    assert!(row(&big) < row(&small), "busiest first: {text}");
    assert!(text.contains("other files ("), "{text}");
    // (The command line names /proc/self/status too: the rows are
    // table cells.)
    assert!(!text.contains("┆ /proc/self/status"), "{text}");
    assert!(!text.contains("not mapped to the device: /proc"), "{text}");
    // --all-files lists the pseudo-files, and still warns of none.
    let out = or_skip!(watch(&[
        "--follow",
        "--all-files",
        "--",
        "sh",
        "-c",
        &script
    ]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("┆ /proc/self/status"), "{text}");
    assert!(!text.contains("not mapped to the device: /proc"), "{text}");
}

/// The `dbio watch` lines of docs/watch.md's first code block, without
/// their comments.
fn documented_examples() -> Vec<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/watch.md"))
        .unwrap();
    doc.split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap()
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim().to_string())
        .filter(|l| l.starts_with("dbio watch"))
        .collect()
}

// See: issue 26.
#[test]
fn watch_runs_the_examples_of_its_document_as_written() {
    let examples = documented_examples();
    assert!(examples.len() >= 10, "{examples:?}");
    if !is_root() {
        return crate::util::skip_this_test("dbio watch needs root to load BPF programs");
    }
    let d = scratch();
    let (data, redo) = (d.path().join("data"), d.path().join("redo"));
    std::fs::create_dir(&redo).unwrap();
    let bin = dbio_path();
    let mut ran = 0;
    for example in &examples {
        // Each runs as written but for what names this machine: a process
        // to watch (a short sleep), the files of the commands dbio starts,
        // and dbio itself. A PostgreSQL data directory and a systemd unit
        // are not here.
        if example.contains("$PGDATA") || example.contains("--cgroup") {
            continue;
        }
        let mut sleeper = Command::new("sleep").arg("2").spawn().unwrap();
        let pid = sleeper.id().to_string();
        let line = example
            .replace("4242", &pid)
            .replace("4250", &pid)
            .replace("'ora_lgwr_*'", "sleep")
            .replace("'postgres: walwriter'", "sleep")
            .replace("/data", data.to_str().unwrap())
            .replace("/u01/redo", redo.to_str().unwrap())
            .replace("run.json", d.path().join("run.json").to_str().unwrap())
            .replace("-- dbio ", &format!("-- {} ", bin.display()));
        let args = shell_words(&line);
        let mut cmd = Command::new(&bin);
        cmd.args(&args[1..])
            .current_dir(d.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let child = cmd.spawn().unwrap();
        // --comm keeps looking for new processes: Ctrl-C ends it.
        if line.contains("--comm") {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            // SAFETY: kill(2) on the pid of a child this test started.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        }
        let out = wait_output_within(child, CHILD_DEADLINE);
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("the kernel refused") {
            return crate::util::skip_this_test(&format!("BPF unavailable: {err}"));
        }
        assert!(out.status.success(), "{example}\n{line}\n{err}");
        ran += 1;
    }
    assert!(ran >= 10, "{ran} of {examples:?}");
}

/// The words of a shell command line with its single and double quotes
/// (no variables, no escapes: the documented examples use none once
/// `$PGDATA` is left out).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            (_, c) => {
                cur.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(cur);
    }
    words
}
