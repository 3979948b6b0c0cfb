//! Block devices, for real: loop devices over images that hold what a DBA's
//! server holds (an Oracle ASM disk, squashfs, erofs, ext4, swap, gpt and
//! dos partition tables), a device mounted in another mount namespace, and
//! one another process holds open exclusively. dbio must refuse every one of
//! them, also for read-only jobs, and use only a blank device nobody holds,
//! which it then keeps claimed (O_EXCL) for the whole run.
//!
//! Each test skips with a reason when not run as root or when a tool that
//! makes its image is missing (`scripts/test` installs them).

use crate::util::{
    dbio, dbio_path, json, skip_this_test, tool, unmount, wait_output_within, Loop, Succeeds,
    CHILD_DEADLINE,
};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `dbio bench` with `--allow-block-device` on `lo` with `rw`, expects
/// the refusal (status 2) and that the first MiB of the device is unchanged;
/// returns stderr.
fn refused(lo: &Loop, rw: &str) -> String {
    let before = lo.head(1 << 20);
    let out = dbio()
        .args(["bench", "--rw", rw, "--size", "1m", "--ops", "50"])
        .args(["--allow-block-device", "--quiet", &lo.dev])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{rw} on {}: {err}", lo.dev);
    assert!(err.contains("refusing block device"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one sentence: {err}");
    assert!(lo.head(1 << 20) == before, "{} was changed", lo.dev);
    err
}

fn write_at(image: &Path, off: u64, bytes: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(image)
        .map_err(|e| e.to_string())?;
    f.write_all_at(bytes, off).map_err(|e| e.to_string())
}

/// An image that begins with an Oracle ASM disk header's provisioning string.
fn asm_image(image: &Path) -> Result<(), String> {
    write_at(image, 32, b"ORCLDISKDATA1")
}

fn squashfs_image(image: &Path) -> Result<(), String> {
    let src = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(src.path().join("f"), b"data").map_err(|e| e.to_string())?;
    tool(Command::new("mksquashfs").arg(src.path()).arg(image).args([
        "-quiet",
        "-noappend",
        "-no-progress",
    ]))
    .map(|_| ())
}

#[test]
fn an_oracle_asm_disk_header_is_refused() {
    let lo = or_skip!(Loop::with_image(32 << 20, asm_image));
    for rw in ["randwrite", "randread"] {
        let err = refused(&lo, rw);
        assert!(err.contains("Oracle ASM"), "{err}");
        // libblkid 2.38 names it at 0x20; dbio's own check says byte 32.
        assert!(err.contains("0x20") || err.contains("byte 32"), "{err}");
    }
}

#[test]
fn the_asm_header_is_refused_even_where_libblkid_does_not_know_it() {
    // A wipefs that finds nothing, as one built before libblkid's oracleasm
    // probe would on an ASM disk: dbio's own check must still refuse it.
    let lo = or_skip!(Loop::with_image(32 << 20, asm_image));
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("wipefs");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = dbio()
        .env("PATH", bin.path())
        .args(["bench", "--rw", "randwrite", "--size", "1m", "--ops", "50"])
        .args(["--allow-block-device", "--quiet", &lo.dev])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("Oracle ASM disk header (ORCLDISK at byte 32)"),
        "{err}"
    );
}

#[test]
fn squashfs_and_erofs_are_refused_with_the_signature_named() {
    let sq = or_skip!(Loop::with_image(32 << 20, squashfs_image));
    let err = refused(&sq, "randwrite");
    assert!(
        err.contains("a squashfs filesystem signature at offset 0x0"),
        "{err}"
    );
    let ero = or_skip!(Loop::with_image(32 << 20, |img| {
        let src = tempfile::tempdir().map_err(|e| e.to_string())?;
        std::fs::write(src.path().join("f"), b"data").map_err(|e| e.to_string())?;
        tool(
            Command::new("mkfs.erofs")
                .arg("--quiet")
                .arg(img)
                .arg(src.path()),
        )
        .map(|_| ())
    }));
    let err = refused(&ero, "randwrite");
    assert!(
        err.contains("an erofs filesystem signature at offset 0x400"),
        "{err}"
    );
}

#[test]
fn ext4_and_swap_are_refused_for_writes_and_for_reads() {
    let ext4 = or_skip!(Loop::with_image(32 << 20, |img| {
        tool(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(img)).map(|_| ())
    }));
    for rw in ["randwrite", "randread", "read"] {
        let err = refused(&ext4, rw);
        assert!(
            err.contains("an ext4 filesystem signature at offset 0x438"),
            "{err}"
        );
    }
    let swap = or_skip!(Loop::with_image(32 << 20, |img| {
        tool(Command::new("mkswap").arg("-q").arg(img)).map(|_| ())
    }));
    let err = refused(&swap, "randread");
    assert!(err.contains("a swap signature at offset 0xff6"), "{err}");
}

/// Writes a partition table of `label` (gpt, dos) with one partition
/// over the whole image.
fn partition_image(image: &Path, label: &str) -> Result<(), String> {
    let mut child = Command::new("sfdisk")
        .args(["--quiet", "--no-reread", "--no-tell-kernel"])
        .arg(image)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("sfdisk cannot run: {e}"))?;
    let script = format!("label: {label}\n,\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = wait_output_within(child, CHILD_DEADLINE);
    if !out.status.success() {
        return Err(format!(
            "sfdisk failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

#[test]
fn gpt_and_dos_partition_tables_are_refused() {
    for (label, expect) in [
        ("gpt", "a gpt partition table at offset 0x200"),
        ("dos", "a dos partition table at offset 0x1fe"),
    ] {
        let lo = or_skip!(Loop::with_image(32 << 20, |img| partition_image(
            img, label
        )));
        let err = refused(&lo, "randwrite");
        assert!(err.contains(expect), "{label}: {err}");
    }
}

#[test]
fn a_disk_whose_partitions_the_kernel_knows_is_refused() {
    let lo = or_skip!(Loop::with_image_args(
        32 << 20,
        |img| partition_image(img, "gpt"),
        &["--partscan"]
    ));
    let disk = Path::new(&lo.dev).file_name().unwrap().to_string_lossy();
    let part = format!("{disk}p1");
    let sys = format!("/sys/block/{disk}/{part}");
    if !Path::new(&sys).exists() {
        // Some kernels do not scan at attach time; partx adds them (BLKPG).
        let _ = tool(Command::new("partx").args(["--add", &lo.dev]));
    }
    if !Path::new(&sys).exists() {
        return skip_this_test(&format!("the kernel made no {part}"));
    }
    let err = refused(&lo, "randread");
    assert!(
        err.contains(&format!("it has partitions ({part})")),
        "{err}"
    );
}

#[test]
fn a_device_mounted_here_is_refused_naming_the_mount_point() {
    let lo = or_skip!(Loop::with_image(32 << 20, squashfs_image));
    let mnt = tempfile::tempdir().unwrap();
    if let Err(why) = tool(
        Command::new("mount")
            .args(["-o", "ro", &lo.dev])
            .arg(mnt.path()),
    ) {
        return skip_this_test(&why);
    }
    struct Umount<'a>(&'a Path);
    impl Drop for Umount<'_> {
        fn drop(&mut self) {
            unmount(self.0);
        }
    }
    let _umount = Umount(mnt.path());
    let err = refused(&lo, "randread");
    assert!(
        err.contains(&format!("it is mounted at {}", mnt.path().display())),
        "{err}"
    );
}

#[test]
fn an_active_swap_device_is_refused() {
    let lo = or_skip!(Loop::with_image(32 << 20, |img| {
        tool(Command::new("mkswap").arg("-q").arg(img)).map(|_| ())
    }));
    if let Err(why) = tool(Command::new("swapon").args(["--priority", "-2", &lo.dev])) {
        return skip_this_test(&why);
    }
    // Dropped before the loop device: swapoff first.
    struct Swapoff<'a>(&'a str);
    impl Drop for Swapoff<'_> {
        fn drop(&mut self) {
            let _ = tool(Command::new("swapoff").arg(self.0));
        }
    }
    let _swapoff = Swapoff(&lo.dev);
    let err = refused(&lo, "randread");
    assert!(
        err.contains("it is an active swap area (/proc/swaps)"),
        "{err}"
    );
}

/// The device's major:minor as mountinfo writes it.
fn dev_id(dev: &str) -> String {
    use std::os::unix::fs::MetadataExt;
    let rdev = std::fs::metadata(dev).unwrap().rdev();
    format!("{}:{}", libc::major(rdev), libc::minor(rdev))
}

#[test]
fn a_device_mounted_in_another_mount_namespace_is_refused() {
    // squashfs: a filesystem dbio's old hand-kept signature list did not
    // know, so only the kernel's exclusive-open refusal can catch the mount.
    let lo = or_skip!(Loop::with_image(32 << 20, squashfs_image));
    let mnt = tempfile::tempdir().unwrap();
    // Killed on drop, so a failed assert cannot leave the mount behind.
    struct Holder(std::process::Child);
    impl Drop for Holder {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let child = match Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg(r#"mount -o ro "$1" "$2" && echo mounted && exec cat"#)
        .args(["sh", &lo.dev])
        .arg(mnt.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return skip_this_test(&format!("unshare cannot run: {e}")),
    };
    let mut holder = Holder(child);
    // The mounting process says "mounted" and then waits on its stdin.
    let stdout = holder.0.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(CHILD_DEADLINE).unwrap_or_default();
    if line.trim() != "mounted" {
        drop(holder);
        return skip_this_test("mounting squashfs in a new mount namespace failed");
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let id = dev_id(&lo.dev);
    assert!(
        !mountinfo.lines().any(|l| l.split(' ').nth(2) == Some(&id)),
        "the mount leaked into the test's namespace"
    );
    let err = refused(&lo, "randwrite");
    assert!(err.contains("the kernel refused exclusive access"), "{err}");
    let err = refused(&lo, "randread");
    assert!(err.contains("the kernel refused exclusive access"), "{err}");
    // Closing its stdin ends the holder and with it the namespace and mount.
    drop(holder.0.stdin.take());
}

fn open_exclusive(dev: &str) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(dev)
}

#[test]
fn a_device_another_process_holds_exclusively_is_refused() {
    let lo = or_skip!(Loop::blank(32 << 20));
    let held = open_exclusive(&lo.dev).unwrap();
    for rw in ["randwrite", "randread"] {
        let err = refused(&lo, rw);
        assert!(
            err.contains("another process holds it open exclusively"),
            "{err}"
        );
    }
    drop(held);
}

#[test]
fn dbio_holds_the_device_exclusively_while_it_runs() {
    let lo = or_skip!(Loop::blank(32 << 20));
    // The kernel's own count of writes that reached the device
    // (/sys/block/loopN/stat field 5; it outlives earlier attachments).
    let name = Path::new(&lo.dev)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let writes = || {
        std::fs::read_to_string(format!("/sys/block/{name}/stat"))
            .ok()
            .and_then(|s| s.split_whitespace().nth(4)?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let before = writes();
    let child = Command::new(dbio_path())
        .args(["bench", "--rw", "randwrite", "--direct", "--size", "4m"])
        .args([
            "--runtime",
            "60",
            "--allow-block-device",
            "--quiet",
            "--json",
            "-",
        ])
        .arg(&lo.dev)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait until dbio's writes reach the device, so the check below happens
    // mid-run, not during preparation.
    let t0 = Instant::now();
    let writing = loop {
        if writes() > before {
            break true;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let excl = open_exclusive(&lo.dev);
    // SAFETY: kill has no memory-safety preconditions; pid is our child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let out = wait_output_within(child, CHILD_DEADLINE);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(writing, "dbio never wrote to {}: {err}", lo.dev);
    match excl {
        Ok(_) => panic!("{} could be opened O_EXCL while dbio ran on it", lo.dev),
        Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EBUSY), "{e}"),
    }
    assert_eq!(
        out.status.code(),
        Some(1),
        "SIGINT gives a partial result: {err}"
    );
    let job = &json(&out.stdout)["jobs"][0];
    assert!(job["write"]["ops"].as_u64() > Some(0));
    // The result says the target was a device (its job line then names no
    // file preparation).
    assert_eq!(job["block_device"], true, "{job}");
    // Released when dbio ends.
    open_exclusive(&lo.dev).expect("dbio released the device");
}

#[test]
fn a_blank_device_is_accepted_and_written_through_a_bs_sweep() {
    let lo = or_skip!(Loop::blank(32 << 20));
    // Two jobs (4 KiB and 8 KiB): the sweep keeps the one exclusive claim.
    let out = dbio()
        .args(["bench", "--rw", "randwrite", "--bs", "4k,8k", "--direct"])
        .args(["--size", "1m", "--ops", "100", "--allow-block-device"])
        .args(["--quiet", "--json", "-", &lo.dev])
        .succeeds();
    let v = json(&out.stdout);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    for j in jobs {
        assert_eq!(j["write"]["ops"].as_u64(), Some(100), "{j}");
    }
    // The environment names the device itself, not the filesystem that
    // holds its /dev node.
    let name = lo.dev.trim_start_matches("/dev/");
    assert_eq!(
        v["environment"]["device"]["name"], name,
        "{}",
        v["environment"]
    );
    assert_eq!(v["environment"]["fs_type"], "", "{}", v["environment"]);
    assert!(
        lo.head(1 << 20).iter().any(|&b| b != 0),
        "nothing was written"
    );
    open_exclusive(&lo.dev).expect("dbio released the device");
}

#[test]
fn the_block_device_flag_is_suggested_only_by_commands_that_accept_it() {
    let lo = or_skip!(Loop::blank(32 << 20));
    let run = |args: &[&str]| {
        let out = dbio().args(args).arg(&lo.dev).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    for cmd in [&["bench", "--size", "1m"][..], &["read", "--size", "1m"]] {
        let err = run(cmd);
        assert!(err.contains("pass --allow-block-device"), "{cmd:?}: {err}");
    }
    for cmd in [
        &["calibrate", "--size", "1m"][..],
        &["dbwr", "--size", "16m", "--buffers", "64"],
    ] {
        let err = run(cmd);
        assert!(err.contains("refusing block device"), "{cmd:?}: {err}");
        assert!(!err.contains("--allow-block-device"), "{cmd:?}: {err}");
        // And the flag really is not theirs.
        let out = dbio()
            .args(cmd)
            .arg("--allow-block-device")
            .arg(&lo.dev)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument"));
    }
}

#[test]
fn without_util_linux_a_device_is_refused_with_one_sentence() {
    let lo = or_skip!(Loop::blank(32 << 20));
    let empty = tempfile::tempdir().unwrap();
    let out = dbio()
        .env("PATH", empty.path())
        .args(["bench", "--rw", "randwrite", "--size", "1m", "--ops", "10"])
        .args(["--allow-block-device", &lo.dev])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("neither wipefs nor blkid"), "{err}");
    assert!(err.contains("install util-linux"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn blkid_is_the_fallback_when_wipefs_is_missing() {
    let lo = or_skip!(Loop::with_image(32 << 20, squashfs_image));
    let Some(blkid) = ["/usr/sbin/blkid", "/sbin/blkid", "/usr/bin/blkid"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        return skip_this_test("no blkid");
    };
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(blkid, bin.path().join("blkid")).unwrap();
    let out = dbio()
        .env("PATH", bin.path())
        .args(["bench", "--rw", "randread", "--size", "1m", "--ops", "10"])
        .args(["--allow-block-device", &lo.dev])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("it holds a squashfs filesystem signature (found by blkid)"),
        "{err}"
    );
}

/// Counts the IN_CLOSE_WRITE events on `dev` (closes of a descriptor that
/// was open for writing, by anyone) while `f` runs.
fn closes_after_write(dev: &str, f: impl FnOnce()) -> usize {
    use std::ffi::CString;
    // SAFETY: plain syscalls on a descriptor this function owns and closes.
    unsafe {
        let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
        assert!(
            fd >= 0,
            "inotify_init1: {}",
            std::io::Error::last_os_error()
        );
        let path = CString::new(dev).unwrap();
        let wd = libc::inotify_add_watch(fd, path.as_ptr(), libc::IN_CLOSE_WRITE);
        assert!(
            wd >= 0,
            "inotify_add_watch: {}",
            std::io::Error::last_os_error()
        );
        f();
        let mut n = 0;
        let mut buf = [0u8; 4096];
        loop {
            let r = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if r <= 0 {
                break;
            }
            let mut off = 0;
            while off < r as usize {
                let ev = &*(buf.as_ptr().add(off) as *const libc::inotify_event);
                if ev.mask & libc::IN_CLOSE_WRITE != 0 {
                    n += 1;
                }
                off += std::mem::size_of::<libc::inotify_event>() + ev.len as usize;
            }
        }
        libc::close(fd);
        n
    }
}

#[test]
fn a_refused_device_is_never_opened_for_writing() {
    let asm = or_skip!(Loop::with_image(32 << 20, asm_image));
    let writes = closes_after_write(&asm.dev, || {
        refused(&asm, "randwrite");
    });
    assert_eq!(writes, 0, "{} was opened for writing", asm.dev);
    // The same watch sees dbio's descriptor on a device it does write.
    let blank = Loop::blank(32 << 20).unwrap();
    let writes = closes_after_write(&blank.dev, || {
        dbio()
            .args(["bench", "--rw", "randwrite", "--size", "1m", "--ops", "10"])
            .args(["--allow-block-device", "--quiet", &blank.dev])
            .assert()
            .success();
    });
    assert!(
        writes > 0,
        "inotify saw no close-after-write on {}",
        blank.dev
    );
}

#[test]
fn a_read_only_device_is_refused_for_writes_before_any_io() {
    let lo = or_skip!(Loop::blank_read_only(32 << 20));
    let err = refused(&lo, "randwrite");
    assert!(err.contains("it is read-only (BLKROGET)"), "{err}");
    // Reading it is fine.
    let out = dbio()
        .args(["bench", "--rw", "randread", "--size", "1m", "--ops", "10"])
        .args(["--allow-block-device", "--quiet", "--json", "-", &lo.dev])
        .succeeds();
    assert_eq!(
        json(&out.stdout)["jobs"][0]["read"]["ops"].as_u64(),
        Some(10)
    );
}
