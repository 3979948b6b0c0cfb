//! `dbio watch`: files named at open time, descriptor numbers reused after
//! close_range and exec, and the `--device` target, against real
//! processes, a real loop device and the real kernel. Tests that load BPF
//! programs need root and print a skip reason without it.

use crate::util::{dbio, is_root, json, scratch, wait_output_within, Loop, CHILD_DEADLINE};
use serde_json::Value;

/// Runs `dbio watch ARGS` in `dir`; its JSON result, or why the test
/// must be skipped (no privilege, BPF refused by this kernel).
fn watch_in(dir: &std::path::Path, args: &[&str]) -> Result<Value, String> {
    if !is_root() {
        return Err("dbio watch needs root to load BPF programs".into());
    }
    let out = dbio()
        .current_dir(dir)
        .arg("watch")
        .args(args)
        .output()
        .expect("dbio watch");
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("the kernel refused") || err.contains("no syscall tracepoint") {
        return Err(format!("BPF on tracepoints is unavailable here: {err}"));
    }
    assert!(out.status.success(), "dbio watch failed: {err}");
    Ok(json(&out.stdout))
}

/// (fd, generation, path, count, bytes) of one `write` row.
type Row = (i64, u64, Option<String>, u64, u64);

/// Every `write` row.
fn writes(w: &Value) -> Vec<Row> {
    w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["op"] == "write")
        .map(|o| {
            (
                o["fd"].as_i64().unwrap(),
                o["generation"].as_u64().unwrap_or(0),
                o["path"].as_str().map(str::to_string),
                o["count"].as_u64().unwrap(),
                o["bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

// See: issue 12 (gap 1).
#[test]
fn watch_names_the_files_a_short_lived_command_opens_and_closes() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    // The shell opens each file, writes a few bytes through a duplicate
    // on its standard output and closes it, all within a few ms; the dd
    // children (watched with --follow) open theirs by absolute path. Two
    // of the shell's files are named relative to its working directory.
    let script = format!(
        "echo a > rel1; echo bb > '{dir}/abs2'; exec 3>rel3; echo ccc >&3; exec 3>&-; \
         for i in 4 5; do dd if=/dev/zero of='{dir}/dd'$i bs=512 count=$i oflag=dsync status=none; done"
    );
    let r = or_skip!(watch_in(
        d.path(),
        &[
            "--json",
            "-",
            "--no-block",
            "--follow",
            "--",
            "sh",
            "-c",
            &script
        ]
    ));
    let w = &r["watch"][0];
    let rows = writes(w);
    let named = |name: &str, bytes: u64| {
        let p = format!("{dir}/{name}");
        rows.iter()
            .any(|r| r.2.as_deref() == Some(p.as_str()) && r.4 == bytes)
    };
    for (name, bytes) in [
        ("rel1", 2),
        ("abs2", 3),
        ("rel3", 4),
        ("dd4", 2048),
        ("dd5", 2560),
    ] {
        assert!(
            named(name, bytes),
            "{name} not named with {bytes} B: {rows:?}: {w}"
        );
    }
    // Every write row names its file; the flags of an open are shown.
    assert!(rows.iter().all(|r| r.2.is_some()), "{rows:?}");
    let dd = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["path"] == format!("{dir}/dd4").as_str())
        .unwrap();
    let flags = dd["open_flags"].as_str().unwrap();
    assert!(
        flags.contains("O_WRONLY") && flags.contains("O_DSYNC"),
        "{dd}"
    );
    assert!(
        r["findings"].as_array().is_none_or(|v| !v
            .iter()
            .any(|x| x["text"].as_str().unwrap().contains("closed before"))),
        "{}",
        r["findings"]
    );
}

/// The write rows of a perl program that writes 1 byte to `a` on a
/// descriptor, gets rid of it by `how`, then writes 2 bytes to `b` on
/// the same number.
fn reused(how: &str) -> Result<(Value, Vec<Row>), String> {
    let d = scratch();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let second = format!("open(my $b, '>', '{b}') or die; syswrite($b, 'yy') == 2 or die");
    let program = match how {
        // close_range(2) is 436 on every architecture (a syscall numbered
        // after the tables were unified).
        "close_range" => format!(
            "open(my $a, '>', '{a}') or die; syswrite($a, 'x') == 1 or die; \
             syscall(436, fileno($a), 0xffffffff, 0) == 0 or die \"close_range: $!\"; {second}"
        ),
        // Perl opens its files close-on-exec: after the exec the number is
        // free, and the new program's open takes it again.
        _ => format!(
            "open(my $a, '>', '{a}') or die; syswrite($a, 'x') == 1 or die; \
             exec('perl', '-e', q{{{second}}}) or die"
        ),
    };
    let r = watch_in(
        d.path(),
        &["--json", "-", "--no-block", "--", "perl", "-e", &program],
    )?;
    let w = r["watch"][0].clone();
    let rows = writes(&w);
    assert_eq!(std::fs::read_to_string(b).unwrap(), "yy");
    let rows = rows
        .into_iter()
        .filter(|r| r.2.as_deref().is_some_and(|p| p == a || p == b))
        .collect();
    Ok((w, rows))
}

fn assert_two_rows(how: &str) {
    let (w, rows) = or_skip!(reused(how));
    assert_eq!(rows.len(), 2, "{how}: {rows:?}: {w}");
    let (ra, rb) = (&rows[0], &rows[1]);
    assert!(ra.2.as_deref().unwrap().ends_with("/a"), "{rows:?}");
    assert!(rb.2.as_deref().unwrap().ends_with("/b"), "{rows:?}");
    assert_eq!((ra.3, ra.4, rb.3, rb.4), (1, 1, 1, 2), "{how}: {rows:?}");
    assert_eq!(ra.0, rb.0, "the same number: {rows:?}");
    assert!(rb.1 > ra.1, "{how}: a later generation: {rows:?}");
}

// See: issue 12 (gap 2).
#[test]
fn watch_starts_a_new_row_for_a_number_reused_after_close_range() {
    assert_two_rows("close_range");
}

// See: issue 12 (gap 2).
#[test]
fn watch_starts_a_new_row_for_a_number_reused_after_exec() {
    assert_two_rows("exec");
}

// See: issue 12 (gap 4).
#[test]
fn watch_device_counts_every_request_on_a_loop_device_by_issuer() {
    let lo = or_skip!(Loop::blank(8 << 20));
    let d = scratch();
    let result = d.path().join("watch.json");
    let mut watch = std::process::Command::new(crate::util::dbio_path())
        .args(["watch", "--device", &lo.dev, "--json"])
        .arg(&result)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbio watch");
    {
        use std::io::{BufRead, BufReader};
        let mut line = String::new();
        BufReader::new(watch.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        if line.contains("the kernel refused") || line.contains("block tracepoints") {
            let _ = watch.kill();
            let _ = watch.wait();
            return crate::util::skip_this_test(&line);
        }
        assert!(line.contains("watching every request on loop"), "{line}");
    }
    // 37 direct 4 KiB writes, each waited for: 37 requests, none merged.
    let dd = std::process::Command::new("dd")
        .args(["if=/dev/zero", &format!("of={}", lo.dev)])
        .args(["bs=4k", "count=37", "oflag=direct", "status=none"])
        .output()
        .unwrap();
    assert!(
        dd.status.success(),
        "{}",
        String::from_utf8_lossy(&dd.stderr)
    );
    unsafe { libc::kill(watch.id() as i32, libc::SIGINT) };
    let done = wait_output_within(watch, CHILD_DEADLINE);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    let w = &v["watch"][0];
    assert_eq!(w["config"]["device"], lo.dev.as_str(), "{w}");
    assert!(
        w["ops"].as_array().unwrap().is_empty(),
        "no system calls: {w}"
    );
    let block = w["block"].as_array().unwrap();
    let name = lo.dev.trim_start_matches("/dev/");
    assert!(block.iter().all(|b| b["name"] == name), "only {name}: {w}");
    let by_dd: Vec<&Value> = block
        .iter()
        .filter(|b| b["comm"] == "dd" && b["op"] == "write")
        .collect();
    assert_eq!(by_dd.len(), 1, "{w}");
    let b = by_dd[0];
    assert_eq!(b["count"], 37, "{b}");
    assert_eq!(b["bytes"], 37 * 4096, "{b}");
    let hist: u64 = b["latency"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(hist, 37, "{b}");
    // Nothing was in flight on the fresh device when the watch began:
    // no completion without an issue (those of other devices are not
    // this watch's).
    assert!(
        w["losses"].get("block_unmatched").is_none(),
        "{}",
        w["losses"]
    );
    // The issuer is listed with its name.
    let pid = b["pid"].as_u64().unwrap();
    assert!(
        w["processes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["pid"] == pid && p["comm"] == "dd"),
        "{w}"
    );
}

// See: issue 12 (gap 4).
#[test]
fn watch_device_refuses_what_is_not_a_block_device_in_one_sentence() {
    let d = scratch();
    let f = d.path().join("file");
    std::fs::write(&f, "x").unwrap();
    for (arg, says) in [
        (
            f.to_str().unwrap(),
            "is not a block device (it is a regular file)",
        ),
        (
            "/dev/null",
            "is not a block device (it is a character device)",
        ),
        ("4095:1048575", "no block device 4095:1048575"),
    ] {
        let out = dbio().args(["watch", "--device", arg]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{arg}: {err}");
        assert!(err.contains(says), "{arg}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

// See: issue 12 (gap 3).
#[test]
fn watch_attributes_requests_another_process_issued_before_the_first_tick() {
    let d = scratch();
    let f = d.path().join("buffered");
    // 1 MiB written to the page cache and at once pushed out by `sync
    // FILE` (an fsync in another, unwatched process), usually before
    // watch's first 50 ms tick has seen the file or its device (the
    // unit test a_request_on_a_device_not_yet_known_waits_a_few_ticks_for_its_file
    // pins that case whatever the timing); the file stays open a while,
    // to be mapped.
    let program = format!(
        "open(F, '>', '{0}') or die; syswrite(F, 'x' x 1048576) == 1048576 or die; \
         system('sync', '{0}') == 0 or die; select(undef, undef, undef, 0.3)",
        f.display()
    );
    let r = or_skip!(watch_in(
        d.path(),
        &["--json", "-", "--", "perl", "-e", &program]
    ));
    let w = &r["watch"][0];
    let path = f.to_str().unwrap();
    if w["unavailable"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u.as_str().unwrap().starts_with("block:block_rq"))
    {
        return crate::util::skip_this_test(&format!("no block tracepoints: {}", w["unavailable"]));
    }
    if let Some(u) = w["unmapped"]
        .as_array()
        .and_then(|u| u.iter().find(|u| u["path"] == path))
    {
        return crate::util::skip_this_test(&format!("the scratch file cannot be mapped: {u}"));
    }
    let rows: Vec<&Value> = w["file_block"]
        .as_array()
        .unwrap_or_else(|| panic!("no file_block: {w}"))
        .iter()
        .filter(|b| b["path"] == path && b["op"] == "write")
        .collect();
    assert_eq!(rows.len(), 1, "{w}");
    // Every byte of the file reached the device in requests the watched
    // process did not issue.
    assert_eq!(rows[0]["bytes"], 1 << 20, "{}", rows[0]);
    assert_eq!(rows[0]["by_watched"], 0, "{}", rows[0]);
}

// See: issue 12 (gap 1).
#[test]
fn watch_names_a_file_opened_with_openat2_and_its_flags() {
    let d = scratch();
    // openat2(2) is 437 on every architecture; its flags are in a
    // struct open_how in the caller's memory (O_WRONLY|O_CREAT|O_TRUNC|
    // O_DSYNC here), which the BPF program reads.
    let program = "my $p = 'o2'; \
        my $how = pack('QQQ', 01|0100|01000|010000, 0644, 0); \
        my $fd = syscall(437, -100, $p, $how, 24); $fd >= 0 or die \"openat2: $!\"; \
        open(my $h, '>&=', $fd) or die; syswrite($h, 'zzzzz') == 5 or die";
    let r = or_skip!(watch_in(
        d.path(),
        &["--json", "-", "--no-block", "--", "perl", "-e", program]
    ));
    let w = &r["watch"][0];
    let path = d.path().join("o2");
    let row = w["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["op"] == "write" && o["path"] == path.to_str().unwrap())
        .unwrap_or_else(|| panic!("o2 not named: {w}"));
    assert_eq!(
        (row["count"].as_u64(), row["bytes"].as_u64()),
        (Some(1), Some(5)),
        "{row}"
    );
    assert_eq!(
        row["open_flags"], "O_WRONLY|O_CREAT|O_TRUNC|O_DSYNC",
        "{row}"
    );
}
