//! Output files (`--json`, `--csv`, `calibrate --save`) and measurements
//! that must not be lost: outputs are checked before anything is measured,
//! regular files are replaced by rename and never written through a
//! symlink, devices, FIFOs and standard output are written in place and
//! never replaced, and a result that cannot be saved is still printed.
// See: issue 8, sections 1 and 4.

use crate::util::{dbio, dbio_files, dbio_path, is_root, json, scratch, skip_this_test, Tmpfs};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A quick run that writes results: the null engine, no target file.
const QUICK: &[&str] = &["bench", "--engine", "null", "--ops", "200", "--quiet"];

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn safety_outputs_planted_symlinks_are_replaced_never_followed() {
    let d = scratch();
    let victim = d.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    // The old fixed temporary name, and the destination itself, both
    // planted as symlinks to a file dbio must not touch.
    std::os::unix::fs::symlink(&victim, d.path().join("out.json.dbio-partial")).unwrap();
    std::os::unix::fs::symlink(&victim, d.path().join("out.csv")).unwrap();
    let out = dbio()
        .args(QUICK)
        .arg("--json")
        .arg(d.path().join("out.json"))
        .arg("--csv")
        .arg(d.path().join("out.csv"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let v = json(&std::fs::read(d.path().join("out.json")).unwrap());
    assert_eq!(v["jobs"][0]["read"]["ops"].as_u64(), Some(200));
    let csv = std::fs::symlink_metadata(d.path().join("out.csv")).unwrap();
    assert!(csv.is_file(), "the symlink named as --csv is replaced");
    assert!(std::fs::read_to_string(d.path().join("out.csv"))
        .unwrap()
        .starts_with("job,op,"));
    assert_eq!(
        names_in(d.path()),
        ["out.csv", "out.json", "out.json.dbio-partial", "victim"],
        "no temporary file left"
    );
}

#[test]
fn safety_outputs_a_character_device_stays_a_device() {
    if !is_root() {
        return skip_this_test("mknod needs root");
    }
    // A private null device, so the machine's /dev/null is never at risk.
    let d = scratch();
    let null = d.path().join("null");
    let st = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(st.success());
    let out = dbio()
        .args(QUICK)
        .arg("--json")
        .arg(&null)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("bench"),
        "the table still goes to standard output"
    );
    let m = std::fs::symlink_metadata(&null).unwrap();
    assert!(m.file_type().is_char_device(), "the device was replaced");
    assert_eq!(names_in(d.path()), ["null"]);
}

/// See: issue 21 §2. A link that leads to standard output is a file name
/// like any other: replaced by the results, never followed (only a name
/// typed as a descriptor, such as /dev/stdout itself, writes to one).
#[test]
fn safety_outputs_a_symlink_to_dev_stdout_is_replaced_not_followed() {
    let d = scratch();
    let link = d.path().join("to-stdout");
    std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
    let out = dbio().args(QUICK).arg("--csv").arg(&link).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("job,op,ops,") && text.contains("bench"),
        "standard output holds the table, not the CSV: {text}"
    );
    let m = std::fs::symlink_metadata(&link).unwrap();
    assert!(m.is_file(), "the symlink is replaced by a regular file");
    assert!(std::fs::read_to_string(&link)
        .unwrap()
        .starts_with("job,op,ops,"));
    assert_eq!(names_in(d.path()), ["to-stdout"]);
    // Typed as a descriptor name, standard output takes the CSV.
    let out = dbio()
        .args(QUICK)
        .args(["--csv", "/dev/stdout"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("job,op,ops,"), "{text}");
    assert!(
        !text.contains("lat (usec)") && text.lines().count() < 10,
        "standard output holds the CSV, not the table too: {text}"
    );
    // The system's links in /dev are neither followed nor replaced, even
    // when typed (`/dev/./stdout` is not the descriptor name `/dev/stdout`).
    if is_root() {
        for typed in ["/dev/./stdout", "/dev/stdin"] {
            let out = dbio().args(QUICK).args(["--csv", typed]).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{typed}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("symbolic link in /dev"),
                "{typed}: {}",
                stderr(&out)
            );
        }
        for link in ["/dev/stdout", "/dev/stdin"] {
            assert!(
                std::fs::symlink_metadata(link)
                    .unwrap()
                    .file_type()
                    .is_symlink(),
                "{link} is still the system's link"
            );
        }
    }
}

#[test]
fn safety_outputs_a_descriptor_path_is_written_where_it_stands() {
    // `--json /dev/fd/3` with descriptor 3 opened by the shell on a file:
    // dbio writes through descriptor 3 (as `>&3` would), creates nothing.
    let d = scratch();
    let file = d.path().join("three.json");
    let script = format!(
        "exec '{}' bench --engine null --ops 200 --quiet --json /dev/fd/3 3>'{}'",
        dbio_path().display(),
        file.display()
    );
    let child = Command::new("bash")
        .args(["-c", &script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = crate::util::wait_output_within(child, Duration::from_secs(60));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bench"));
    let v = json(&std::fs::read(&file).unwrap());
    assert_eq!(v["jobs"][0]["read"]["ops"].as_u64(), Some(200));
    assert_eq!(names_in(d.path()), ["three.json"]);
}

/// Opens the read end of `fifo` without waiting for a writer and reads it
/// on a thread, once a writer has come, to its end. The read end is open
/// before this returns, so a writer started afterwards finds its reader.
fn read_fifo(fifo: &Path) -> std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(fifo)
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::os::fd::AsRawFd;
        let fd = f.as_raw_fd();
        // Blocking from here; poll waits for the first writer (a read now
        // would see end-of-file: no writer yet).
        // SAFETY: fcntl and poll on a descriptor this thread owns.
        unsafe {
            libc::fcntl(fd, libc::F_SETFL, 0);
            let mut p = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            libc::poll(&mut p, 1, -1);
        }
        let mut v = Vec::new();
        let _ = tx.send(f.read_to_end(&mut v).map(|_| v));
    });
    rx
}

/// A FIFO the user names, with its reader started first, is written as a
/// stream. (A FIFO without a reader fails at once: see
/// `safety_outputs_a_fifo_without_a_reader_fails_at_once`.)
#[test]
fn safety_outputs_a_fifo_is_written_as_a_stream() {
    let d = scratch();
    let fifo = d.path().join("results.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    let got = read_fifo(&fifo);
    let child = Command::new(dbio_path())
        .args(QUICK)
        .arg("--json")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = crate::util::wait_output_within(child, Duration::from_secs(60));
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = got
        .recv_timeout(Duration::from_secs(60))
        .expect("dbio never wrote the FIFO")
        .expect("reading the FIFO");
    assert_eq!(json(&bytes)["jobs"][0]["read"]["ops"].as_u64(), Some(200));
    let m = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(m.file_type().is_fifo(), "the FIFO was replaced");
    assert_eq!(names_in(d.path()), ["results.fifo"]);
}

#[test]
fn safety_outputs_a_unix_socket_is_written_as_a_stream() {
    let d = scratch();
    let sock = d.path().join("results.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let got = listener.accept().and_then(|(mut c, _)| {
            let mut v = Vec::new();
            c.read_to_end(&mut v).map(|_| v)
        });
        let _ = tx.send(got);
    });
    let out = dbio().args(QUICK).arg("--csv").arg(&sock).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let got = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("dbio never connected")
        .expect("reading the socket");
    assert!(String::from_utf8_lossy(&got).starts_with("job,op,ops,"));
    let m = std::fs::symlink_metadata(&sock).unwrap();
    assert!(m.file_type().is_socket(), "the socket was replaced");
    assert_eq!(names_in(d.path()), ["results.sock"]);
}

#[test]
fn safety_outputs_calibrate_never_replaces_an_existing_default_file() {
    let d = scratch();
    let cal = d.path().join("dbio-calibration.json");
    std::fs::write(&cal, "{\"mine\": true}\n").unwrap();
    let out = dbio()
        .current_dir(d.path())
        .args([
            "calibrate",
            ".",
            "--size",
            "1m",
            "--samples",
            "10",
            "--runtime",
            "100ms",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("dbio-calibration.json already exists") && err.contains("--save"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(&cal).unwrap(), "{\"mine\": true}\n");
    assert_eq!(names_in(d.path()), ["dbio-calibration.json"]);
    // Naming it with --save replaces it (by rename), as asked.
    let out = dbio()
        .current_dir(d.path())
        .args([
            "calibrate",
            ".",
            "--size",
            "1m",
            "--samples",
            "10",
            "--runtime",
            "100ms",
            "--quiet",
            "--save",
            "dbio-calibration.json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&std::fs::read(&cal).unwrap());
    assert!(v["page_cache_max_ns"].as_u64().is_some(), "{v}");
    assert_eq!(names_in(d.path()), ["dbio-calibration.json"]);
}

#[test]
fn safety_outputs_a_bad_output_path_fails_before_measuring() {
    let d = scratch();
    let dir = d.path().to_str().unwrap().to_string();
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/oracle/tests/data/shared-server-19c.trc"
    );
    let bad = "/nonexistent/dbio-out/x.json";
    // Each would measure for 10 s or more before writing its results.
    let runs: Vec<Vec<&str>> = vec![
        vec!["bench", &dir, "--runtime", "10", "--quiet", "--json", bad],
        vec!["bench", &dir, "--runtime", "10", "--quiet", "--csv", bad],
        vec!["check", &dir, "--runtime", "10", "--quiet", "--json", bad],
        vec![
            "read",
            &dir,
            "--size",
            "8m",
            "--runtime",
            "10",
            "--quiet",
            "--json",
            bad,
        ],
        vec!["lgwr", &dir, "--runtime", "10", "--quiet", "--json", bad],
        vec![
            "dbwr",
            &dir,
            "--size",
            "128m",
            "--runtime",
            "10",
            "--quiet",
            "--csv",
            bad,
        ],
        vec![
            "calibrate",
            &dir,
            "--size",
            "8m",
            "--runtime",
            "5",
            "--quiet",
            "--save",
            bad,
        ],
        vec![
            "calibrate",
            &dir,
            "--size",
            "8m",
            "--no-save",
            "--quiet",
            "--json",
            bad,
        ],
        vec!["tracefile", trace, "--json", bad],
        vec!["report", "--from", trace, "--json", bad],
    ];
    for args in runs {
        let t0 = Instant::now();
        let out = dbio().args(&args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            t0.elapsed() < Duration::from_secs(4),
            "{args:?} took {:?} before refusing",
            t0.elapsed()
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: one sentence: {err}");
        assert!(
            err.starts_with("dbio: error: cannot write results to '/nonexistent/dbio-out/x.json'")
                && err.contains("No such file or directory (os error 2)"),
            "{args:?}: {err}"
        );
        assert!(
            names_in(d.path()).is_empty(),
            "{args:?} created {:?}",
            names_in(d.path())
        );
    }
}

#[test]
fn safety_outputs_the_same_file_for_json_and_csv_is_refused() {
    let d = scratch();
    let f = d.path().join("r.out");
    let same_by_another_name = d.path().join(".").join("r.out");
    let cases: Vec<(std::ffi::OsString, std::ffi::OsString)> = vec![
        (f.clone().into(), same_by_another_name.into()),
        ("-".into(), "/dev/stdout".into()),
    ];
    for (j, c) in cases {
        let out = dbio()
            .args(QUICK)
            .arg("--json")
            .arg(&j)
            .arg("--csv")
            .arg(&c)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{j:?} {c:?}: {err}");
        assert!(
            err.contains("--json and --csv name the same destination"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "nothing measured, nothing printed");
    }
    assert!(names_in(d.path()).is_empty());
}

#[test]
fn safety_outputs_a_full_disk_for_the_results_still_prints_the_table() {
    let fs = or_skip!(Tmpfs::mount("256k"));
    // Fill it: dd stops at ENOSPC (an empty file still fits: inodes remain).
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=4k"])
        .arg(format!("of={}", fs.path().join("filler").display()))
        .stderr(Stdio::null())
        .status();
    let dest = fs.path().join("results.json");
    let out = dbio()
        .args(QUICK)
        .arg("--json")
        .arg(&dest)
        .output()
        .unwrap();
    let err = stderr(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{err}");
    assert!(stdout.contains("bench"), "the table is printed: {stdout}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("cannot write results to '{}'", dest.display()))
            && err.contains("No space left on device (os error 28)"),
        "{err}"
    );
    assert_eq!(names_in(fs.path()), ["filler"], "no partial file left");
}

#[test]
fn safety_outputs_check_on_a_small_filesystem_scales_its_sections() {
    let fs = or_skip!(Tmpfs::mount("64m"));
    let out = dbio()
        .args(["check", "--runtime", "200ms", "--quiet", "--json", "-"])
        .arg(fs.path())
        .output()
        .unwrap();
    let err = stderr(&out);
    let v = json(&out.stdout);
    assert!(
        out.status.code() == Some(0) || (out.status.code() == Some(1) && v["partial"].is_object()),
        "{err}"
    );
    let warnings = v["findings"].to_string();
    assert!(
        warnings.contains("to fit within 32.0 MiB of scratch space")
            && warnings.contains("the read section a 32.0 MiB file"),
        "{warnings}"
    );
    assert_eq!(v["jobs"].as_array().unwrap().len(), 5, "{v}");
    assert!(
        v["lgwr"].as_array().is_some_and(|a| !a.is_empty()),
        "{} {}",
        v["partial"],
        v["findings"]
    );
    assert_eq!(
        v["reads"][0]["config"]["size"].as_u64(),
        Some(32 << 20),
        "{}",
        v["reads"]
    );
    // See: issue 10. No block device under tmpfs: where it takes O_DIRECT
    // (Linux 6.6 and later), those reads are memory reads, neither
    // page-cache hits nor device reads.
    if let Some(storage) = v["reads"].as_array().and_then(|r| r.get(1)) {
        let att = &storage["attribution"];
        assert_eq!(att["storage_cache_max"]["source"], "no_device", "{att}");
        assert_eq!(storage["tiers"]["page_cache"]["count"], 0, "{att}");
        assert_eq!(storage["tiers"]["device"]["count"], 0, "{att}");
    }
    assert!(
        dbio_files(fs.path()).is_empty(),
        "scratch files left behind"
    );
}

#[test]
fn safety_outputs_lgwr_writer_fifo_unprivileged_fails_before_creating_files() {
    if !is_root() {
        return skip_this_test("needs root to run dbio as another user");
    }
    let d = scratch();
    std::fs::set_permissions(
        d.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    // Each option needs CAP_SYS_NICE; nobody lacks it.
    for (opt, val, what) in [
        ("--writer-fifo", "10", "SCHED_FIFO"),
        ("--writer-nice", "-5", "nice -5"),
    ] {
        let t0 = Instant::now();
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(dbio_path())
            .arg("lgwr")
            .arg(d.path())
            .args([opt, val, "--runtime", "5", "--keep", "--quiet", "--json"])
            .arg(d.path().join("out.json"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map(|c| crate::util::wait_output_within(c, Duration::from_secs(60)));
        let out = match out {
            Ok(o) => o,
            Err(e) => return skip_this_test(&format!("setpriv: {e}")),
        };
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{opt}: {err}");
        assert!(err.contains(what) && err.contains("(os error "), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            names_in(d.path()).is_empty(),
            "{opt}: files were made before the refusal: {:?}",
            names_in(d.path())
        );
        assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    }
}

#[test]
fn safety_outputs_sigterm_during_check_prints_what_was_measured() {
    let d = scratch();
    let out_dir = scratch();
    let json_path = out_dir.path().join("check.json");
    let child = Command::new(dbio_path())
        .args(["check", "--runtime", "300ms", "--size", "64m", "--quiet"])
        .arg("--json")
        .arg(&json_path)
        .arg(d.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Results are saved after each test and each section: wait until the
    // commit section's are there, then stop the run in a later section.
    let t0 = Instant::now();
    let mut ready = false;
    while t0.elapsed() < Duration::from_secs(60) {
        if let Some(v) = std::fs::read(&json_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        {
            if v["lgwr"].as_array().is_some_and(|a| !a.is_empty()) {
                ready = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill with a valid pid and signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let out = crate::util::wait_output_within(child, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        ready,
        "the commit section's results were never saved: {stdout}"
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{}", stderr(&out));
    assert!(
        stdout.contains("PARTIAL RESULT: interrupted by SIGTERM"),
        "{stdout}"
    );
    assert!(
        stdout.contains("commit 8k") || stdout.contains("log write 8k"),
        "{stdout}"
    );
    let v = json(&std::fs::read(&json_path).unwrap());
    assert_eq!(v["partial"]["signal"], "SIGTERM");
    assert_eq!(v["jobs"].as_array().unwrap().len(), 5);
    assert!(!v["lgwr"].as_array().unwrap().is_empty());
    assert!(dbio_files(d.path()).is_empty(), "scratch files left behind");
}

#[test]
fn safety_outputs_lgwr_compare_keeps_earlier_results_when_a_later_one_fails() {
    let fs = or_skip!(Tmpfs::mount("12m"));
    // Two 4 MiB log files fit; the second configuration's fresh
    // fallocated pair does not fit beside them.
    let out = dbio()
        .arg("lgwr")
        .arg(fs.path())
        .args([
            "--method",
            "buffered-fdatasync",
            "--compare",
            "buffered-fdatasync,prepare=fallocate",
            "--runtime",
            "200ms",
            "--file-size",
            "4m",
            "--files",
            "2",
            "--sessions",
            "2",
            "--json",
            "-",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out.stdout);
    assert_eq!(v["partial"]["kind"], "io_error", "{}", v["partial"]);
    let lgwr = v["lgwr"].as_array().unwrap();
    assert_eq!(lgwr.len(), 1, "the first configuration's result is kept");
    assert!(lgwr[0]["commits"].as_u64().unwrap() > 0);
    assert!(dbio_files(fs.path()).is_empty(), "log files left behind");
}

/// See: issue 10 §3 (lgwr saved its `--json` only at the end, so a run of
/// many rounds killed with SIGKILL lost every round it had measured).
/// The run context saves after each run, as it does after each bench job.
#[test]
fn safety_outputs_lgwr_saves_after_each_run_so_sigkill_loses_only_the_current_one() {
    let d = scratch();
    let out_dir = scratch();
    let json_path = out_dir.path().join("lgwr.json");
    let mut child = Command::new(dbio_path())
        .args(["lgwr", "--compare", "direct,buffered", "--rounds", "1000"])
        .args([
            "--runtime",
            "200ms",
            "--file-size",
            "8m",
            "--quiet",
            "--json",
        ])
        .arg(&json_path)
        .arg(d.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The whole run takes 400 s: a result in the file before then was
    // saved after a step, not at the end.
    let t0 = Instant::now();
    let mut saved = None;
    while t0.elapsed() < Duration::from_secs(60) && saved.is_none() {
        saved = std::fs::read(&json_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .filter(|v| v["lgwr"].as_array().is_some_and(|a| !a.is_empty()));
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let out = crate::util::wait_output_within(child, Duration::from_secs(60));
    let v = saved.unwrap_or_else(|| {
        panic!(
            "no lgwr result was saved during the run ({:?}): {}",
            out.status,
            stderr(&out)
        )
    });
    let first = &v["lgwr"][0];
    assert_eq!(first["name"], "direct", "{v}");
    assert!(first["commits"].as_u64().unwrap() > 0, "{v}");
    // What SIGKILL interrupted is not in the file; the file is whole JSON.
    let after = json(&std::fs::read(&json_path).unwrap());
    assert!(!after["lgwr"].as_array().unwrap().is_empty());
}

/// A replaced result keeps its owner and mode where the file belonged to
/// the directory's owner (a DBA's own directory), and takes dbio's default
/// where someone else planted it in a directory they do not own.
#[test]
fn safety_outputs_a_replaced_file_keeps_its_owner_and_mode_only_from_the_directory_owner() {
    use std::os::unix::fs::{chown, MetadataExt, PermissionsExt};
    if !is_root() {
        skip_this_test("changing a file's owner needs root");
        return;
    }
    let d = scratch();
    let own = d.path().join("dba");
    std::fs::create_dir(&own).unwrap();
    chown(&own, Some(4321), Some(4322)).unwrap();
    let kept = own.join("kept.json");
    std::fs::write(&kept, "old").unwrap();
    chown(&kept, Some(4321), Some(4322)).unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o4740)).unwrap();
    // In a directory owned by root (as /tmp is), a file of another user.
    let planted = d.path().join("planted.csv");
    std::fs::write(&planted, "old").unwrap();
    chown(&planted, Some(4321), Some(4322)).unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = dbio()
        .args(QUICK)
        .arg("--json")
        .arg(&kept)
        .arg("--csv")
        .arg(&planted)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let k = std::fs::metadata(&kept).unwrap();
    assert_eq!(
        (k.uid(), k.gid()),
        (4321, 4322),
        "the DBA's file stays theirs"
    );
    assert_eq!(
        k.mode() & 0o7777,
        0o640,
        "read and write bits kept, set-id and execute dropped"
    );
    assert_eq!(
        json(&std::fs::read(&kept).unwrap())["jobs"][0]["read"]["ops"].as_u64(),
        Some(200)
    );
    let p = std::fs::metadata(&planted).unwrap();
    assert_eq!(
        (p.uid(), p.gid()),
        (0, 0),
        "a planted file does not choose the owner"
    );
    assert_eq!(p.mode() & 0o7777, 0o644, "nor the mode");
}

// See: issue 21 §1, §2, §5 and §9. The attacker is uid 65534 (nobody),
// who owns a directory where root writes results and plants links there.

/// The unprivileged attacker's uid and gid.
const NOBODY: u32 = 65534;

/// A directory owned by nobody inside `d` (as a user's own directory).
fn nobodys_dir(d: &Path) -> std::path::PathBuf {
    // The scratch directory is rwx------: nobody needs to search it.
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let u = d.join("user");
    std::fs::create_dir(&u).unwrap();
    std::os::unix::fs::chown(&u, Some(NOBODY), Some(NOBODY)).unwrap();
    u
}

/// Runs `args` as nobody (setpriv); Err when setpriv cannot run.
fn as_nobody(args: &[&std::ffi::OsStr]) -> Result<std::process::Output, String> {
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .args(args)
        .output()
        .map_err(|e| format!("setpriv: {e}"))
}

/// Plants the symbolic link `link -> target` as nobody.
fn plant_link(target: &Path, link: &Path) -> Result<(), String> {
    let out = as_nobody(&["ln".as_ref(), "-s".as_ref(), target.as_ref(), link.as_ref()])?;
    if !out.status.success() {
        return Err(format!("ln -s as nobody failed: {}", stderr(&out)));
    }
    let m = std::fs::symlink_metadata(link).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&m), NOBODY);
    Ok(())
}

/// A root-owned file nobody may read but must never be able to change.
fn victim_in(d: &Path) -> std::path::PathBuf {
    let v = d.join("victim");
    std::fs::write(&v, "precious\n").unwrap();
    std::fs::set_permissions(&v, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    v
}

/// Asserts that `dest` is now a regular file dbio wrote (the planted link
/// replaced) holding `starts`.
fn assert_replaced(dest: &Path, starts: &str) {
    let m = std::fs::symlink_metadata(dest).unwrap();
    assert!(m.is_file(), "{} is still a link", dest.display());
    let text = std::fs::read_to_string(dest).unwrap();
    assert!(text.starts_with(starts), "{}: {text:.200}", dest.display());
}

/// A link planted to /proc/self/root/<victim> under every output option
/// (bench's --json, --csv, --html, calibrate --save, matrix's
/// dbio_iops.csv): each is replaced, the victim never written.
#[test]
fn safety_outputs_links_into_proc_root_are_replaced_never_followed() {
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let victim = victim_in(d.path());
    let user = nobodys_dir(d.path());
    let via_proc = Path::new("/proc/self/root").join(victim.strip_prefix("/").unwrap());
    for name in ["r.json", "r.csv", "r.html", "cal.json", "dbio_iops.csv"] {
        or_skip!(plant_link(&via_proc, &user.join(name)));
    }
    // One option a run: each on its own would reach the victim.
    for (opt, name) in [
        ("--json", "r.json"),
        ("--csv", "r.csv"),
        ("--html", "r.html"),
    ] {
        let out = dbio()
            .args(QUICK)
            .arg(opt)
            .arg(user.join(name))
            .output()
            .unwrap();
        assert!(out.status.success(), "{opt}: {}", stderr(&out));
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "precious\n",
            "{opt}"
        );
    }
    let data = d.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let out = dbio()
        .arg("calibrate")
        .arg(&data)
        .args(["--size", "1m", "--samples", "10", "--runtime", "100ms"])
        .args(["--quiet", "--save"])
        .arg(user.join("cal.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let out = dbio()
        .arg("matrix")
        .arg(&data)
        .args(["--engine", "null", "--small", "1", "--large", "0"])
        .args(["--runtime", "0.05", "--warmup", "0", "--size", "8m"])
        .args(["--quiet", "--orion-csv"])
        .arg(&user)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_replaced(&user.join("r.json"), "{");
    assert_replaced(&user.join("r.csv"), "job,op,");
    assert_replaced(&user.join("r.html"), "<!DOCTYPE html>");
    assert_replaced(&user.join("cal.json"), "{");
    assert_replaced(&user.join("dbio_iops.csv"), "");
}

/// A link planted to /proc/PID/fd/N of the attacker's own process, which
/// holds a read-only descriptor of the victim: replaced, never reopened
/// for writing.
#[test]
fn safety_outputs_a_link_to_another_process_descriptor_is_replaced() {
    use std::io::BufRead;
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let victim = victim_in(d.path());
    let user = nobodys_dir(d.path());
    let dest = user.join("out.csv");
    // The attacker opens the victim read-only as descriptor 3, links to
    // it through /proc, says so and waits.
    let script = r#"exec 3<"$1" && ln -s "/proc/$$/fd/3" "$2" && echo ready && exec sleep 120"#;
    let mut attacker = match Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .args(["sh", "-c", script, "sh"])
        .arg(&victim)
        .arg(&dest)
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return skip_this_test(&format!("setpriv: {e}")),
    };
    let mut line = String::new();
    std::io::BufReader::new(attacker.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n", "the attacker could not plant its link");
    let link = std::fs::read_link(&dest).unwrap();
    let out = dbio().args(QUICK).arg("--csv").arg(&dest).output().unwrap();
    let _ = attacker.kill();
    let _ = attacker.wait();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(link.starts_with("/proc/"), "{}", link.display());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_replaced(&dest, "job,op,");
}

/// Links to a FIFO with a reader waiting and to a listening Unix socket in
/// a root-only directory: both replaced, nothing delivered to either.
#[test]
fn safety_outputs_links_to_a_fifo_and_a_socket_are_replaced_nothing_delivered() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let private = d.path().join("root-only");
    std::fs::create_dir(&private).unwrap();
    let fifo = private.join("f");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let sock = private.join("s");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    // A reader waiting on the FIFO: a writer that followed the link would
    // find it and deliver the JSON.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    std::fs::set_permissions(
        &private,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let user = nobodys_dir(d.path());
    or_skip!(plant_link(&fifo, &user.join("out.json")));
    or_skip!(plant_link(&sock, &user.join("out.csv")));
    let child = Command::new(dbio_path())
        .args(QUICK)
        .arg("--json")
        .arg(user.join("out.json"))
        .arg("--csv")
        .arg(user.join("out.csv"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = crate::util::wait_output_within(child, Duration::from_secs(60));
    assert!(out.status.success(), "{}", stderr(&out));
    let mut got = Vec::new();
    // No writer ever opened it: end of file, or nothing yet (EAGAIN).
    let _ = reader.read_to_end(&mut got);
    assert!(got.is_empty(), "the FIFO received {} bytes", got.len());
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the socket was connected to: {other:?}"),
    }
    assert_replaced(&user.join("out.json"), "{");
    assert_replaced(&user.join("out.csv"), "job,op,");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

/// A FIFO at the --json path with nobody reading it: one sentence and exit
/// status 2, at once, before anything is measured (it used to block in
/// open). The deadline only keeps a regression from hanging the suite.
#[test]
fn safety_outputs_a_fifo_without_a_reader_fails_at_once() {
    let d = scratch();
    let fifo = d.path().join("results.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let child = Command::new(dbio_path())
        .args(["bench", "--engine", "null", "--runtime", "60", "--quiet"])
        .arg("--json")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = crate::util::wait_output_within(child, Duration::from_secs(50));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "dbio: error: cannot write results to '{}': it is a FIFO with no reader",
            fifo.display()
        )),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing measured");
    assert_eq!(names_in(d.path()), ["results.fifo"]);
}

/// An output's directory reached through a link owned by nobody is
/// refused with one sentence naming the link and its owner; the same link
/// owned by root is followed. A magic link (/proc/self/cwd) is refused
/// whoever owns it, and any /proc path but a descriptor of dbio's own.
#[test]
fn safety_outputs_an_output_directory_through_another_users_link_is_refused() {
    if !is_root() {
        return skip_this_test("needs root to plant as another user");
    }
    let d = scratch();
    let elsewhere = d.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let user = nobodys_dir(d.path());
    let link = user.join("reports");
    or_skip!(plant_link(&elsewhere, &link));
    let out = dbio()
        .args(QUICK)
        .arg("--json")
        .arg(link.join("r.json"))
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{} is a symbolic link owned by uid 65534",
            link.display()
        )),
        "{err}"
    );
    assert!(names_in(&elsewhere).is_empty());
    // The same link, owned by root: followed.
    std::os::unix::fs::lchown(&link, Some(0), Some(0)).unwrap();
    let out = dbio()
        .args(QUICK)
        .arg("--json")
        .arg(link.join("r.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(names_in(&elsewhere), ["r.json"]);
    // A magic link, even root's own, and other /proc paths.
    let cwd = scratch();
    let magic = d.path().join("magic");
    std::os::unix::fs::symlink("/proc/self/cwd", &magic).unwrap();
    for (dest, says) in [
        (magic.join("r.json"), "is a magic link of /proc"),
        (
            Path::new("/proc/self/cwd/r.json").to_path_buf(),
            "dbio writes in /proc only to its own descriptors",
        ),
        (
            Path::new("/proc/1/fd/1").to_path_buf(),
            "dbio writes in /proc only to its own descriptors",
        ),
    ] {
        let out = dbio()
            .current_dir(cwd.path())
            .args(QUICK)
            .arg("--json")
            .arg(&dest)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", dest.display());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{}: {err}", dest.display());
        assert!(names_in(cwd.path()).is_empty());
    }
}

/// Swaps two names with renameat2(RENAME_EXCHANGE) in a loop, as nobody,
/// in a forked child, until dropped.
struct Flipper {
    pid: libc::pid_t,
}

impl Flipper {
    fn start(a: &Path, b: &Path) -> Flipper {
        use std::os::unix::ffi::OsStrExt;
        let a = std::ffi::CString::new(a.as_os_str().as_bytes()).unwrap();
        let b = std::ffi::CString::new(b.as_os_str().as_bytes()).unwrap();
        // SAFETY: the child calls only raw system calls (no allocation, no
        // locks) and never returns.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: raw system calls on valid C strings.
            unsafe {
                let n = libc::c_long::from(NOBODY as i32);
                if libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0
                    || libc::syscall(libc::SYS_setresgid, n, n, n) != 0
                    || libc::syscall(libc::SYS_setresuid, n, n, n) != 0
                {
                    libc::_exit(1);
                }
                loop {
                    libc::syscall(
                        libc::SYS_renameat2,
                        libc::AT_FDCWD,
                        a.as_ptr(),
                        libc::AT_FDCWD,
                        b.as_ptr(),
                        libc::RENAME_EXCHANGE,
                    );
                }
            }
        }
        Flipper { pid }
    }
}

impl Drop for Flipper {
    fn drop(&mut self) {
        // SAFETY: kill and waitpid on our own child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// See: issue 21 §9. The output's directory is swapped, 200 times over a
/// run each, between nobody's own directory and nobody's link to a
/// root-owned directory (renameat2 RENAME_EXCHANGE in a loop): each run
/// either writes into nobody's directory or refuses the link with one
/// sentence; the root-owned directory and its file are never touched.
#[test]
fn safety_outputs_race_an_output_directory_swapped_for_a_link_never_writes_the_victim() {
    const TRIES: usize = 200;
    if !is_root() {
        return skip_this_test("needs root to race as another user");
    }
    let d = scratch();
    let victim_dir = d.path().join("victim-dir");
    std::fs::create_dir(&victim_dir).unwrap();
    let victim = victim_dir.join("r.json");
    std::fs::write(&victim, "precious\n").unwrap();
    let user = nobodys_dir(d.path());
    let out = user.join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::chown(&out, Some(NOBODY), Some(NOBODY)).unwrap();
    or_skip!(plant_link(&victim_dir, &user.join("swap")));
    let flipper = Flipper::start(&out, &user.join("swap"));
    // The flipper runs: both states of `out` are seen (a bounded count of
    // looks, not a time).
    let (mut dirs, mut links) = (0, 0);
    for _ in 0..10_000_000 {
        match std::fs::symlink_metadata(&out) {
            Ok(m) if m.is_dir() => dirs += 1,
            Ok(m) if m.file_type().is_symlink() => links += 1,
            _ => {}
        }
        if dirs > 0 && links > 0 {
            break;
        }
    }
    assert!(dirs > 0 && links > 0, "the flipper never swapped");
    let (mut wrote, mut refused) = (0, 0);
    for _ in 0..TRIES {
        let run = dbio()
            .args(QUICK)
            .arg("--json")
            .arg(out.join("r.json"))
            .output()
            .unwrap();
        let err = stderr(&run);
        match run.status.code() {
            Some(0) => wrote += 1,
            Some(2) => {
                assert_eq!(err.lines().count(), 1, "{err}");
                assert!(
                    err.contains("is a symbolic link owned by uid 65534"),
                    "{err}"
                );
                refused += 1;
            }
            other => panic!("dbio ended with {other:?}: {err}"),
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(names_in(&victim_dir), ["r.json"]);
    }
    drop(flipper);
    eprintln!("{TRIES} tries: {wrote} wrote into nobody's directory, {refused} refused the link");
}
