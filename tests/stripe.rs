//! `dbio bench --targets`: striping across several targets. Data lands on
//! the member and at the offset the layout says (read back from the
//! files), the load is reported per member and adds up to the totals,
//! and bad stripes are refused before anything is created.
// See: issue 15

use crate::util::{dbio, dbio_files, json, scratch, Succeeds};
use std::path::Path;

/// Which 4 KiB blocks of `file` hold anything but zeros.
fn written_blocks(file: &Path) -> Vec<bool> {
    std::fs::read(file)
        .unwrap()
        .chunks(4096)
        .map(|b| b.iter().any(|&x| x != 0))
        .collect()
}

fn stripe_write(layout: &str, members: &[&Path], ops: u32, engine: &[&str]) -> serde_json::Value {
    let targets = members
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    let out = dbio()
        .args(["bench", "--targets", &targets, "--layout", layout])
        .args(["--stripe", "64k", "--bs", "4k", "--size", "768k"])
        .args([
            "--rw",
            "write",
            "--prepare",
            "sparse",
            "--sync",
            "fdatasync",
        ])
        .args(["--ops", &ops.to_string(), "--json", "-", "--quiet"])
        .args(engine)
        .succeeds();
    json(&out.stdout)
}

#[test]
fn raid0_puts_each_stripe_unit_on_the_next_target_at_the_right_offset() {
    for engine in [
        &["--engine", "psync"][..],
        &["--engine", "io_uring", "--iodepth", "4"][..],
    ] {
        raid0_placement(engine);
    }
}

fn raid0_placement(engine: &[&str]) {
    let d = scratch();
    let m: Vec<_> = (0..3).map(|i| d.path().join(format!("m{i}.dbf"))).collect();
    let refs: Vec<&Path> = m.iter().map(|p| p.as_path()).collect();
    // 5 units of 64 KiB written in order: units 0..4 go to members
    // 0,1,2,0,1, units 3 and 4 at offset 64 KiB of members 0 and 1.
    let v = stripe_write("raid0", &refs, 80, engine);
    let blocks: Vec<Vec<bool>> = m.iter().map(|p| written_blocks(p)).collect();
    // Each member holds 256 KiB (768 KiB / 3, whole units): 64 blocks.
    for b in &blocks {
        assert_eq!(b.len(), 64);
    }
    let expect = |upto: usize| (0..64).map(|k| k < upto).collect::<Vec<_>>();
    assert_eq!(blocks[0], expect(32), "member 0: units 0 and 3");
    assert_eq!(blocks[1], expect(32), "member 1: units 1 and 4");
    assert_eq!(blocks[2], expect(16), "member 2: unit 2");
    let s = &v["jobs"][0]["stripe"];
    assert_eq!(s["layout"], "raid0");
    let writes: Vec<u64> = (0..3)
        .map(|i| s["targets"][i]["writes"].as_u64().unwrap())
        .collect();
    assert_eq!(writes, vec![32, 32, 16]);
    assert_eq!(v["jobs"][0]["write"]["ops"].as_u64().unwrap(), 80);
}

#[test]
fn concat_fills_the_first_target_before_the_second() {
    let d = scratch();
    let m: Vec<_> = (0..3).map(|i| d.path().join(format!("c{i}.dbf"))).collect();
    let refs: Vec<&Path> = m.iter().map(|p| p.as_path()).collect();
    // 80 blocks of 4 KiB: member 0's 64 blocks, then 16 of member 1's.
    let v = stripe_write("concat", &refs, 80, &[]);
    let count = |p: &Path| written_blocks(p).iter().filter(|&&b| b).count();
    assert_eq!(count(&m[0]), 64);
    assert_eq!(written_blocks(&m[1])[..16], [true; 16]);
    assert_eq!(count(&m[1]), 16);
    assert_eq!(count(&m[2]), 0);
    assert_eq!(v["jobs"][0]["stripe"]["layout"], "concat");
}

#[test]
fn random_load_is_balanced_and_the_members_add_up_to_the_totals() {
    let d = scratch();
    let dirs: Vec<_> = (0..3).map(|i| d.path().join(format!("d{i}"))).collect();
    for x in &dirs {
        std::fs::create_dir(x).unwrap();
    }
    let targets = dirs
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    for engine in [
        ["--engine", "psync", "--iodepth", "1"],
        ["--engine", "io_uring", "--iodepth", "8"],
    ] {
        let out = dbio()
            .args([
                "bench",
                "--targets",
                &targets,
                "--size",
                "12m",
                "--bs",
                "4k",
            ])
            .args(["--rw", "randrw", "--ops", "6000", "--json", "-", "--quiet"])
            .args(engine)
            .succeeds();
        let v = json(&out.stdout);
        let j = &v["jobs"][0];
        let total = j["read"]["ops"].as_u64().unwrap() + j["write"]["ops"].as_u64().unwrap();
        assert_eq!(total, 6000);
        let ms = j["stripe"]["targets"].as_array().unwrap();
        assert_eq!(ms.len(), 3);
        let mut sum = 0;
        let mut bytes = 0;
        let mut lat = 0;
        for m in ms {
            let ops = m["reads"].as_u64().unwrap() + m["writes"].as_u64().unwrap();
            // Uniform over 3 equal members: 2000 each, sd ≈ 37; ±400 is > 10 sd.
            assert!(
                (1600..2400).contains(&ops),
                "{engine:?}: {ops} of 6000 on one member"
            );
            sum += ops;
            bytes += m["bytes"].as_u64().unwrap();
            lat += m["lat"]["count"].as_u64().unwrap();
            assert_eq!(m["size"].as_u64().unwrap(), 4 << 20);
            assert!(m["path"].as_str().unwrap().contains("/d"));
        }
        assert_eq!(sum, 6000);
        assert_eq!(lat, 6000);
        assert_eq!(bytes, 6000 * 4096);
        // The table names every member.
        let out = dbio()
            .args([
                "bench",
                "--targets",
                &targets,
                "--size",
                "12m",
                "--ops",
                "300",
                "--quiet",
            ])
            .succeeds();
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(table.contains("stripe: raid0 over 3 targets"), "{table}");
        for x in &dirs {
            assert!(
                dbio_files(x).is_empty(),
                "temporary file left in {}",
                x.display()
            );
        }
    }
}

fn refused(args: &[&str]) -> String {
    let out = dbio().arg("bench").args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim().lines().count(), 1, "one sentence: {err}");
    err
}

#[test]
fn bad_stripes_are_refused_and_leave_nothing_behind() {
    let d = scratch();
    let a = d.path().join("a");
    let b = d.path().join("b");
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let both = format!("{a},{b}");
    let e = refused(&["--targets", &both, "--stripe", "12k", "--bs", "8k"]);
    assert!(e.contains("not a multiple of --bs"), "{e}");
    let e = refused(&["--targets", &format!("{a},{a}/")]);
    assert!(e.contains("twice"), "{e}");
    let e = refused(&[a, "--stripe", "2m"]);
    assert!(e.contains("--targets"), "{e}");
    let e = refused(&["--targets", a]);
    assert!(e.contains("at least two"), "{e}");
    let e = refused(&["--targets", &both, "--size", "1m", "--stripe", "1m"]);
    assert!(e.contains("too small"), "{e}");
    if Path::new("/dev/vda").exists() || Path::new("/dev/loop0").exists() {
        let dev = if Path::new("/dev/vda").exists() {
            "/dev/vda"
        } else {
            "/dev/loop0"
        };
        let e = refused(&["--targets", &format!("{a},{dev}")]);
        assert!(e.contains("mixes block devices and files"), "{e}");
    }
    // The third member is someone else's file: refused after the first
    // two were made, which are removed again (the named new file too).
    let theirs = d.path().join("theirs.dat");
    std::fs::write(&theirs, vec![7u8; 1 << 20]).unwrap();
    let named = d.path().join("new.dbf");
    let e = refused(&[
        "--targets",
        &format!("{a},{},{}", named.display(), theirs.display()),
        "--rw",
        "randwrite",
        "--size",
        "3m",
    ]);
    assert!(
        e.contains("not created by dbio") && e.contains("--overwrite"),
        "{e}"
    );
    assert!(
        dbio_files(Path::new(a)).is_empty(),
        "temporary file left behind"
    );
    assert!(
        !named.exists(),
        "the named member made for the refused run is still there"
    );
    assert_eq!(std::fs::read(&theirs).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn block_devices_stripe_and_every_member_gets_the_device_checks() {
    use crate::util::{tool, Loop};
    let a = or_skip!(Loop::blank(8 << 20));
    let b = or_skip!(Loop::blank(8 << 20));
    let both = format!("{},{}", a.dev, b.dev);
    // Without --allow-block-device, refused as a single device is.
    let out = dbio()
        .args(["bench", "--targets", &both, "--rw", "write", "--ops", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-block-device"));
    // Allowed: 4 units of 64 KiB written in order, 2 on each device.
    let out = dbio()
        .args(["bench", "--targets", &both, "--allow-block-device"])
        .args([
            "--stripe", "64k", "--bs", "64k", "--size", "16m", "--direct",
        ])
        .args(["--rw", "write", "--ops", "4", "--json", "-", "--quiet"])
        .succeeds();
    let v = json(&out.stdout);
    let s = &v["jobs"][0]["stripe"]["targets"];
    assert_eq!(
        (s[0]["writes"].as_u64(), s[1]["writes"].as_u64()),
        (Some(2), Some(2))
    );
    for lo in [&a, &b] {
        let head = lo.head(256 << 10);
        assert!(
            head[..128 << 10].iter().any(|&x| x != 0),
            "{}: units 0..2 written",
            lo.dev
        );
        assert!(
            head[128 << 10..].iter().all(|&x| x == 0),
            "{}: nothing beyond",
            lo.dev
        );
    }
    // A member holding a filesystem is refused, and the blank member
    // before it is not written.
    let c = or_skip!(Loop::blank(8 << 20));
    let ext4 = or_skip!(Loop::with_image(32 << 20, |img| {
        tool(
            std::process::Command::new("mkfs.ext4")
                .args(["-q", "-F"])
                .arg(img),
        )
        .map(|_| ())
    }));
    let out = dbio()
        .args(["bench", "--targets", &format!("{},{}", c.dev, ext4.dev)])
        .args([
            "--allow-block-device",
            "--size",
            "16m",
            "--rw",
            "write",
            "--ops",
            "10",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ext4"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        c.head(1 << 20).iter().all(|&x| x == 0),
        "the blank member was written"
    );
}
