//! `--engine libaio` (and the log writer's `aio-fdatasync`) from the
//! command line: it runs where io_uring runs, keeps its queue depth, and is
//! refused without O_DIRECT in one sentence. Durability and open flags are
//! tests/durability.rs's, where libaio is one of the engines. See: issue 15.

use crate::util::{dbio, json, scratch};

#[test]
fn bench_runs_libaio_at_queue_depth_and_refuses_it_buffered() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let out = dbio()
        .args([
            "bench",
            dir,
            "--engine",
            "libaio",
            "--direct",
            "--iodepth",
            "8",
        ])
        .args(["--size", "8m", "--ops", "2000", "--quiet", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let j = &v["jobs"][0];
    assert_eq!(j["job"]["engine"], "libaio");
    assert_eq!(j["job"]["iodepth"], 8);
    assert_eq!(j["read"]["ops"], 2000);
    let out = dbio()
        .args([
            "bench",
            dir,
            "--engine",
            "libaio",
            "--iodepth",
            "8",
            "--size",
            "8m",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "dbio: error: the libaio engine needs --direct: the kernel's native AIO is asynchronous only for O_DIRECT, and a buffered io_submit completes the I/O inside the call"
    );
}

#[test]
fn the_log_writer_writes_through_native_aio_with_several_writes_in_flight() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let out = dbio()
        .args(["lgwr", dir, "--method", "libaio", "--async-depth", "4"])
        .args(["--sessions", "4", "--commits", "50", "--files", "2"])
        .args(["--file-size", "2m", "--quiet", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    let r = &v["lgwr"][0];
    assert_eq!(r["config"]["method"], "aio-fdatasync");
    assert_eq!(r["commits"], 200);
    assert!(r["writer"]["writes"].as_u64().unwrap() > 0);
    // The leader protocol writes synchronously in the session: refused.
    let out = dbio()
        .args([
            "lgwr",
            dir,
            "--method",
            "aio-fdatasync",
            "--protocol",
            "leader",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--method aio-fdatasync needs the log writer"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn dbwr_writes_through_libaio_with_o_direct_only() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let small = [
        "--size",
        "4m",
        "--buffers",
        "128",
        "--lists",
        "2",
        "--ops",
        "2000",
    ];
    let out = dbio()
        .args(["dbwr", dir, "--engine", "libaio", "--direct"])
        .args(small)
        .args(["--quiet", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["dbwr"][0]["config"]["engine"], "libaio");
    let out = dbio()
        .args(["dbwr", dir, "--engine", "libaio"])
        .args(small)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the libaio engine needs --direct"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn read_runs_libaio_at_queue_depth_and_refuses_it_buffered() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let out = dbio()
        .args([
            "read",
            dir,
            "--engine",
            "libaio",
            "--direct",
            "--iodepth",
            "4",
        ])
        .args(["--size", "4m", "--ops", "400", "--quiet", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["reads"][0]["config"]["engine"], "libaio", "{v}");
    let out = dbio()
        .args(["read", dir, "--engine", "libaio", "--size", "4m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the libaio engine needs --direct"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
