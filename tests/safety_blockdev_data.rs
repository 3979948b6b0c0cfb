//! Issue 21 item 9 (block devices): data dbio cannot name by a signature
//! at offset 0 still keeps it off a device, and a missing device path is
//! never created.
//!
//! * an ext4 at 1 MiB behind zeros (its partition table lost) is found by
//!   probing the usual partition starts, and refused with or without
//!   `--overwrite`;
//! * non-zero bytes in a device's last MiB (a backup GPT, an md 1.0
//!   superblock, anything) refuse a write job unless `--overwrite`;
//! * `--allow-block-device /dev/<missing>` is one sentence, and nothing
//!   appears in /dev.
//!
//! Loop devices over images (see `tests/safety_blockdev.rs`); each test
//! skips with a reason when not root or a tool is missing.

use crate::util::{dbio, is_root, scratch, skip_this_test, tool, Loop, Succeeds};
use std::path::Path;
use std::process::Command;

const MIB: u64 = 1 << 20;

fn write_at(image: &Path, off: u64, bytes: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(image)
        .map_err(|e| e.to_string())?;
    f.write_all_at(bytes, off).map_err(|e| e.to_string())
}

/// The whole device, read through it.
fn contents(lo: &Loop) -> Vec<u8> {
    std::fs::read(&lo.dev).unwrap_or_else(|e| panic!("reading {}: {e}", lo.dev))
}

/// `dbio bench` writing to `lo` with `extra` options: its status and stderr.
fn bench(lo: &Loop, extra: &[&str]) -> (Option<i32>, String) {
    let out = dbio()
        .args(["bench", "--rw", "randwrite", "--size", "1m", "--ops", "20"])
        .args(["--allow-block-device", "--quiet"])
        .args(extra)
        .arg(&lo.dev)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).trim().to_string(),
    )
}

#[test]
fn an_ext4_behind_a_lost_partition_table_is_refused() {
    // A 16 MiB ext4 written at 1 MiB (fdisk's and parted's first
    // partition start) of a 32 MiB device whose first MiB is zero.
    let lo = or_skip!(Loop::with_image(32 * MIB, |img| {
        let fs = img.with_extension("ext4");
        std::fs::File::create(&fs)
            .and_then(|f| f.set_len(16 * MIB))
            .map_err(|e| e.to_string())?;
        tool(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&fs))?;
        write_at(img, MIB, &std::fs::read(&fs).map_err(|e| e.to_string())?)
    }));
    let before = contents(&lo);
    assert!(
        before[..MIB as usize].iter().all(|&b| b == 0),
        "first MiB zero"
    );
    for extra in [&[][..], &["--overwrite"]] {
        let (code, err) = bench(&lo, extra);
        assert_eq!(code, Some(2), "{extra:?}: {err}");
        assert!(err.contains("refusing block device"), "{err}");
        assert!(
            err.contains("an ext4 filesystem signature at offset 1048576 (a partition start)"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "one sentence: {err}");
        assert!(contents(&lo) == before, "{} was changed", lo.dev);
    }
}

#[test]
fn data_in_the_last_mib_needs_overwrite() {
    let size = 32 * MIB;
    let lo = or_skip!(Loop::with_image(size, |img| write_at(
        img,
        size - 4096,
        b"not a signature, but data"
    )));
    let before = contents(&lo);
    let (code, err) = bench(&lo, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("its first or last MiB is not all zero")
            && err.contains(&format!("byte {} is not", size - 4096))
            && err.contains("pass --overwrite"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one sentence: {err}");
    assert!(contents(&lo) == before, "{} was changed", lo.dev);
    // Reading it needs no --overwrite: nothing is written.
    dbio()
        .args(["bench", "--rw", "randread", "--size", "1m", "--ops", "20"])
        .args(["--allow-block-device", "--quiet", &lo.dev])
        .succeeds();
    let (code, err) = bench(&lo, &["--overwrite"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(contents(&lo) != before, "nothing was written");
}

#[test]
fn a_missing_device_path_is_refused_and_nothing_is_created() {
    if !is_root() {
        return skip_this_test("only root could create a file in /dev");
    }
    let on_devtmpfs = std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split(' ').nth(4) == Some("/dev") && l.contains(" - devtmpfs "));
    if !on_devtmpfs {
        return skip_this_test("/dev is not devtmpfs here");
    }
    let missing = format!("/dev/dbio-missing-{}", std::process::id());
    let out_dir = scratch();
    for cmd in [&["bench", "--rw", "randwrite"][..], &["read"], &["matrix"]] {
        let out = dbio()
            .args(cmd)
            .args(["--size", "64m", "--allow-block-device", "--json"])
            .arg(out_dir.path().join("r.json"))
            .arg(&missing)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
        assert!(
            err.contains(&format!("{missing} does not exist")) && err.contains("devtmpfs"),
            "{cmd:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one sentence: {err}");
        assert!(
            std::fs::symlink_metadata(&missing).is_err(),
            "{cmd:?} created {missing}"
        );
    }
}
