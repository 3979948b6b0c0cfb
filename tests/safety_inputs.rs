//! Inputs and outside text (issue 21, items 4, 5 and 7): what dbio reads
//! by name is a regular file or refused in one sentence (a FIFO with no
//! writer, `/dev/zero`), a result above the cap is refused before it is
//! read, memory running out is one sentence and status 2 (never Rust's
//! abort), and text from traces, AWR reports and file names reaches the
//! terminal and the CSV with its control characters made visible.

use crate::util::{dbio, dbio_path, scratch, wait_output_within, CHILD_DEADLINE};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The escapes an attacker puts in traced SQL text or an event name:
/// retitle the terminal (OSC 0 ... BEL), clear it (CSI 2 J), an 8-bit CSI
/// (C1) and a right-to-left override.
const HOSTILE: &str = "\x1b]0;owned\x07\x1b[2J\u{9b}6n\u{202e}";

/// The bytes a terminal could obey: C0 controls but newline, DEL, and (in
/// UTF-8) the C1 controls and the bidi overrides and isolates.
fn obeyed(b: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(b);
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
        })
        .map(|c| format!("U+{:04X}", c as u32))
        .collect()
}

/// Asserts that `out` holds no character a terminal would obey and shows
/// the hostile escapes in their visible form.
#[track_caller]
fn shown_not_obeyed(what: &str, out: &[u8]) {
    let bad = obeyed(out);
    assert!(bad.is_empty(), "{what} carries {bad:?}");
    let text = String::from_utf8_lossy(out);
    for shown in ["\\x1b]0;owned\\x07", "\\x1b[2J"] {
        assert!(text.contains(shown), "{what} lacks {shown}:\n{text}");
    }
}

/// A 10046 trace whose SQL text and event name carry [`HOSTILE`].
fn hostile_trace(dir: &Path) -> PathBuf {
    let sql = format!("SELECT '{HOSTILE}' FROM dual");
    let mut t = String::from("*** 2024-01-01 00:00:00.000\n");
    t += &format!(
        "PARSING IN CURSOR #1 len={} dep=0 uid=1 oct=3 lid=1 tim=1000 hv=1 ad='a' sqlid='abc'\n{sql}\nEND OF STMT\n",
        sql.len()
    );
    t += "EXEC #1:c=0,e=10,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=1,tim=1010\n";
    for i in 0..5 {
        t += &format!(
            "WAIT #1: nam='db file {HOSTILE} read' ela= 100 file#=1 block#={i} blocks=1 obj#=3 tim={}\n",
            1100 + i * 200
        );
    }
    t += "FETCH #1:c=0,e=10,p=0,cr=0,cu=0,mis=0,r=1,dep=0,og=1,plh=1,tim=3000\n";
    let p = dir.join("hostile.trc");
    std::fs::write(&p, t).unwrap();
    p
}

#[test]
fn safety_inputs_trace_text_and_event_names_are_shown_not_obeyed() {
    let d = scratch();
    let trc = hostile_trace(d.path());
    let table = dbio().arg("tracefile").arg(&trc).output().unwrap();
    assert!(
        table.status.success(),
        "{}",
        String::from_utf8_lossy(&table.stderr)
    );
    shown_not_obeyed("the tracefile table", &table.stdout);
    let csv = dbio()
        .arg("tracefile")
        .arg(&trc)
        .args(["--csv", "-"])
        .output()
        .unwrap();
    assert!(
        csv.status.success(),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
    shown_not_obeyed("the tracefile CSV", &csv.stdout);
    // The JSON keeps the text as it was (escaped by JSON's own rules), so
    // `report --from` renders the same escapes.
    let json = d.path().join("t.json");
    dbio()
        .arg("tracefile")
        .arg(&trc)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let again = dbio()
        .arg("report")
        .arg("--from")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(again.stdout, table.stdout);
}

#[test]
fn safety_inputs_awr_strings_are_shown_not_obeyed() {
    let d = scratch();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/awr/de-2300.txt"
    );
    // The host and instance names, each replaced by as many bytes (the
    // report's columns are fixed-width); 0x9b is C1 CSI in Latin-1.
    let text = std::fs::read(fixture).unwrap();
    let replace = |t: Vec<u8>, from: &[u8], to: &[u8]| -> Vec<u8> {
        let at = t.windows(from.len()).position(|w| w == from).unwrap();
        [&t[..at], to, &t[at + from.len()..]].concat()
    };
    let text = replace(text, b"gerhost", b"g\x1b[2Jst");
    let text = replace(text, b"synger1 ", b"\x1b]0;\x07\x9b\x1b");
    let p = d.path().join("awr.txt");
    std::fs::write(&p, text).unwrap();
    for args in [vec![], vec!["--csv", "-"]] {
        let out = dbio().arg("awr").arg(&p).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bad = obeyed(&out.stdout);
        assert!(bad.is_empty(), "awr {args:?} carries {bad:?}");
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            shown.contains("g\\x1b[2Jst") && shown.contains("\\x1b]0;\\x07\\u{9b}\\x1b"),
            "awr {args:?}:\n{shown}"
        );
    }
}

#[test]
fn safety_inputs_a_file_name_in_an_error_is_shown_not_obeyed() {
    let d = scratch();
    let p = d.path().join(format!("r{HOSTILE}.json"));
    for (cmd, after) in [
        (vec!["report", "--from"], vec![]),
        (vec!["tracefile"], vec![]),
        (vec!["awr"], vec![]),
        (vec!["compare"], vec!["/nonexistent.json"]),
    ] {
        let out = dbio().args(&cmd).arg(&p).args(after).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{cmd:?}: one sentence: {err}");
        assert!(err.ends_with('\n'));
        let bad = obeyed(&out.stderr);
        assert!(bad.is_empty(), "{cmd:?}: stderr carries {bad:?}: {err}");
        assert!(
            err.contains("r\\x1b]0;owned\\x07\\x1b[2J"),
            "{cmd:?}: {err}"
        );
    }
}

/// Runs dbio with `args` and stdin closed, guarded by [`CHILD_DEADLINE`]
/// (a guard only: the assertions are on the outcome).
fn run(args: &[&std::ffi::OsStr], limit_as: Option<u64>) -> Output {
    let mut c = Command::new(dbio_path());
    c.args(args)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(bytes) = limit_as {
        limit_address_space(&mut c, bytes);
    }
    wait_output_within(c.spawn().unwrap(), CHILD_DEADLINE)
}

/// Sets RLIMIT_AS in the child before it runs dbio (as `ulimit -v` would).
fn limit_address_space(c: &mut Command, bytes: u64) {
    // SAFETY: only an async-signal-safe system call between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let l = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &l) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Asserts status 2 and one sentence on stderr that contains `says`.
#[track_caller]
fn refused(what: &str, out: &Output, says: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: {:?} {err}",
        out.status.signal()
    );
    assert_eq!(err.lines().count(), 1, "{what}: one sentence: {err}");
    assert!(
        err.starts_with("dbio: error: ") && err.contains(says),
        "{what}: {err}"
    );
    assert!(!err.contains("memory allocation of"), "{what}: {err}");
    assert!(out.stdout.is_empty(), "{what}: printed {:?}", out.stdout);
}

/// Every command that reads an input by name, with `input` in that place
/// (first, before a valid companion where it needs one).
fn readers(input: &Path, result: &Path, trace: &Path, awr: &Path) -> Vec<(String, Vec<PathBuf>)> {
    let p = |s: &str| PathBuf::from(s);
    let i = input.to_path_buf();
    vec![
        (
            "report --from".into(),
            vec![p("report"), p("--from"), i.clone()],
        ),
        (
            "compare".into(),
            vec![p("compare"), i.clone(), result.into()],
        ),
        ("merge".into(), vec![p("merge"), i.clone(), result.into()]),
        ("tracefile".into(), vec![p("tracefile"), i.clone()]),
        ("awr".into(), vec![p("awr"), i.clone()]),
        (
            "tracefile --calibration".into(),
            vec![p("tracefile"), p("--calibration"), i.clone(), trace.into()],
        ),
        (
            "awr --calibration".into(),
            vec![p("awr"), p("--calibration"), i.clone(), awr.into()],
        ),
        (
            "awr --with-trace".into(),
            vec![p("awr"), awr.into(), p("--with-trace"), i],
        ),
    ]
}

/// A saved result, a trace and an AWR report to stand beside the input
/// under test.
fn companions(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let trace = hostile_trace(dir);
    let result = dir.join("r.json");
    dbio()
        .arg("tracefile")
        .arg(&trace)
        .arg("--json")
        .arg(&result)
        .assert()
        .success();
    let awr = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/awr/de-2300.txt"
    ));
    (result, trace, awr)
}

fn os(v: &[PathBuf]) -> Vec<&std::ffi::OsStr> {
    v.iter().map(|p| p.as_os_str()).collect()
}

#[test]
fn safety_inputs_a_fifo_with_no_writer_is_refused_by_every_reader() {
    let d = scratch();
    let (result, trace, awr) = companions(d.path());
    let fifo = d.path().join("planted.json");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o666),
        0,
    )
    .unwrap();
    for (what, args) in readers(&fifo, &result, &trace, &awr) {
        let out = run(&os(&args), None);
        refused(&what, &out, "is a FIFO (named pipe)");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("give -"),
            "{what}"
        );
    }
    // Standard input named as '-' stays allowed, a pipe included.
    let mut c = Command::new(dbio_path());
    c.args(["report", "--from", "-"])
        .stdin(std::fs::File::open(&result).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = wait_output_within(c.spawn().unwrap(), CHILD_DEADLINE);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn safety_inputs_dev_zero_is_refused_by_every_reader() {
    let d = scratch();
    let (result, trace, awr) = companions(d.path());
    for (what, args) in readers(Path::new("/dev/zero"), &result, &trace, &awr) {
        // Under a 1 GiB address space: reading /dev/zero would end in an
        // allocation failure, not in the refusal asserted.
        let out = run(&os(&args), Some(1 << 30));
        refused(&what, &out, "/dev/zero is a character device");
    }
}

#[test]
fn safety_inputs_a_result_above_the_cap_is_refused_before_reading() {
    let d = scratch();
    let (result, trace, awr) = companions(d.path());
    // Sparse: 1 GiB + 1 byte that take no disk. Under a 512 MiB address
    // space a read would fail for memory; "larger than" shows the size was
    // checked first.
    let big = d.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    for (what, args) in readers(&big, &result, &trace, &awr) {
        if (what.starts_with("tracefile") && !what.contains("calibration"))
            || what.contains("with-trace")
        {
            continue; // traces are streamed, not capped
        }
        let out = run(&os(&args), Some(512 << 20));
        let cap = if what == "awr" {
            "larger than 256 MiB"
        } else {
            "larger than 1024 MiB"
        };
        refused(&what, &out, cap);
    }
}

#[test]
fn safety_inputs_memory_running_out_is_one_sentence_not_an_abort() {
    let d = scratch();
    // 300 MB (under the cap) under a 200 MiB address space: the buffer
    // cannot be reserved, and the reader says so.
    let big = d.path().join("big.json");
    std::fs::write(&big, vec![b' '; 300_000_000]).unwrap();
    let out = run(
        &["report".as_ref(), "--from".as_ref(), big.as_os_str()],
        Some(200 << 20),
    );
    refused("report --from of 300 MB", &out, "needs 287 MiB of memory");
    std::fs::remove_file(&big).unwrap();
    // 48 MB of JSON that parses into far more than 300 MiB: the parser's
    // allocation fails, and the allocator says so.
    let arr = d.path().join("arr.json");
    let mut text = String::from("[");
    for i in 0..6_000_000 {
        text.push_str(if i == 0 { "[1,2,3]" } else { ",[1,2,3]" });
    }
    text.push(']');
    std::fs::write(&arr, text).unwrap();
    let out = run(
        &["report".as_ref(), "--from".as_ref(), arr.as_os_str()],
        Some(300 << 20),
    );
    refused(
        "report --from of 6 million arrays",
        &out,
        "out of memory: an allocation of",
    );

    // tracefile streams: statements without end on standard input grow its
    // tables until an allocation fails under a 150 MiB address space.
    let mut c = Command::new(dbio_path());
    c.args(["tracefile", "--threads", "1", "-"])
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    limit_address_space(&mut c, 150 << 20);
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(&mut stdin);
        let _ = w.write_all(b"*** 2024-01-01 00:00:00.000\n");
        let pad = "x".repeat(200);
        // 2 million distinct statements (about 600 MB of text): far more
        // than 150 MiB can hold; the write fails once dbio has exited.
        for i in 0..2_000_000u64 {
            let sql = format!("SELECT {i} FROM t WHERE c = '{pad}'");
            let r = write!(
                w,
                "PARSING IN CURSOR #{n} len={len} dep=0 uid=1 oct=3 lid=1 tim={t} hv={i} ad='a' sqlid='s{i}'\n{sql}\nEND OF STMT\nEXEC #{n}:c=0,e=10,p=0,cr=0,cu=0,mis=0,r=0,dep=0,og=1,plh=1,tim={t}\n",
                n = i + 1,
                len = sql.len(),
                t = 1000 + i * 10,
            );
            if r.is_err() {
                return i;
            }
        }
        2_000_000
    });
    let out = wait_output_within(child, CHILD_DEADLINE);
    let written = writer.join().unwrap();
    assert!(
        written < 2_000_000,
        "dbio read every statement within 150 MiB"
    );
    refused(
        "tracefile of endless statements",
        &out,
        "out of memory: an allocation of",
    );
}
