//! Striping (`--targets a,b,c --stripe 1m --layout raid0|concat`) in
//! `matrix`, `read` and `dbwr`, as `bench` has it (tests/stripe.rs): the
//! load goes to the member and the offset the layout says, each member is
//! reported beside the totals, and a bad stripe is refused before
//! anything is created.
// See: issue 15

use crate::util::{dbio, dbio_files, json, scratch, Succeeds};
use std::path::{Path, PathBuf};

/// `n` empty directories under `d`, and their comma list.
fn member_dirs(d: &Path, n: usize) -> (Vec<PathBuf>, String) {
    let dirs: Vec<PathBuf> = (0..n).map(|i| d.join(format!("m{i}"))).collect();
    for x in &dirs {
        std::fs::create_dir(x).unwrap();
    }
    let list = dirs
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    (dirs, list)
}

fn refused(args: &[&str]) -> String {
    let out = dbio().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim().lines().count(), 1, "one sentence: {err}");
    err
}

fn no_files_left(dirs: &[PathBuf]) {
    for x in dirs {
        assert!(
            dbio_files(x).is_empty(),
            "temporary file left in {}",
            x.display()
        );
    }
}

fn member_ops(m: &serde_json::Value) -> u64 {
    m["reads"].as_u64().unwrap() + m["writes"].as_u64().unwrap()
}

/// Both of a point's loads go over every member through native AIO (one
/// context, a control block per member file): 1 MiB sequential streams
/// walk the members unit by unit (counts within one of each other), 8 KiB
/// random reads spread evenly.
#[test]
fn matrix_stripes_small_and_large_io_over_every_member() {
    let d = scratch();
    let (dirs, list) = member_dirs(d.path(), 3);
    let out = dbio()
        .args(["matrix", "--targets", &list, "--size", "6m"])
        .args(["--small", "0,4", "--large", "0,1", "--runtime", "0.3"])
        .args(["--warmup", "0.05", "--json", "-", "--quiet"])
        .succeeds();
    let v = json(&out.stdout);
    let m = &v["matrix"];
    for x in &dirs {
        assert!(
            m["target"].as_str().unwrap().contains(x.to_str().unwrap()),
            "{}",
            m["target"]
        );
    }
    let points = m["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        let s = &p["stripe"];
        assert_eq!(s["layout"], "raid0");
        assert_eq!(s["stripe_bytes"], 1 << 20);
        let ms = s["targets"].as_array().unwrap();
        assert_eq!(ms.len(), 3);
        let ops: Vec<u64> = ms.iter().map(member_ops).collect();
        let total: u64 = ops.iter().sum();
        assert!(total >= 3, "{p}");
        for (i, m) in ms.iter().enumerate() {
            assert_eq!(m["size"], 2 << 20, "6 MiB over 3 members");
            assert_eq!(m["writes"], 0);
            assert_eq!(m["lat"]["count"].as_u64().unwrap(), ops[i]);
        }
        let (lo, hi) = (*ops.iter().min().unwrap(), *ops.iter().max().unwrap());
        if p["small"] == 0 {
            // One stream: units 0,1,2,0,1,2,... of 1 MiB each.
            assert!(hi - lo <= 1, "{ops:?}");
            for (m, n) in ms.iter().zip(&ops) {
                assert_eq!(m["bytes"].as_u64().unwrap(), n << 20);
            }
        } else {
            // Random 8 KiB reads, uniform over the members.
            assert!(lo * 100 >= total * 15, "unbalanced: {ops:?}");
        }
    }
    no_files_left(&dirs);
    // The table says the points were striped.
    let out = dbio()
        .args(["matrix", "--targets", &list, "--size", "6m"])
        .args(["--small", "2", "--large", "0", "--runtime", "0.1"])
        .args(["--warmup", "0", "--quiet"])
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("raid0 over 3 targets"), "{table}");
}

#[test]
fn matrix_refuses_a_bad_stripe_before_anything_is_made() {
    let d = scratch();
    let (dirs, list) = member_dirs(d.path(), 2);
    let e = refused(&["matrix", "--targets", &list, "--stripe", "64k"]);
    assert!(e.contains("not a multiple of the large I/O"), "{e}");
    let e = refused(&["matrix", "--targets", dirs[0].to_str().unwrap()]);
    assert!(e.contains("at least two"), "{e}");
    let e = refused(&["matrix", "--targets", &list, "--engine", "null"]);
    assert!(e.contains("null engine"), "{e}");
    let e = refused(&["matrix", dirs[0].to_str().unwrap(), "--layout", "concat"]);
    assert!(e.contains("--targets"), "{e}");
    let e = refused(&[
        "matrix",
        "--targets",
        &list,
        "--size",
        "1m",
        "--large",
        "0,1",
    ]);
    assert!(e.contains("too small"), "{e}");
    no_files_left(&dirs);
}

/// `dbio read --targets`: single-block reads spread evenly over the
/// members, each multiblock read stays inside one stripe unit (16-block
/// scans are cut at the 8-block unit, so none is larger than 64 KiB),
/// the members add up to the totals, and a cached share of the logical
/// file is the same share of every member together.
#[test]
fn read_stripes_and_cuts_scans_at_the_stripe_unit() {
    let d = scratch();
    let (dirs, list) = member_dirs(d.path(), 3);
    let out = dbio()
        .args([
            "read",
            "--targets",
            &list,
            "--size",
            "6m",
            "--stripe",
            "64k",
        ])
        .args(["--multiblock-count", "16", "--multiblock-pct", "50"])
        .args(["--cached", "50%", "--ops", "3000", "--json", "-", "--quiet"])
        .succeeds();
    let v = json(&out.stdout);
    let r = &v["reads"][0];
    assert_eq!(r["ops"], 3000);
    for x in &dirs {
        assert!(r["target"].as_str().unwrap().contains(x.to_str().unwrap()));
    }
    // The scans: every multiblock read at most one unit.
    let multi: Vec<u64> = r["by_size"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["kind"] == "multi")
        .map(|g| g["io_bytes"].as_u64().unwrap())
        .collect();
    assert!(!multi.is_empty(), "{}", r["by_size"]);
    assert!(multi.iter().all(|&b| b <= 64 << 10), "{multi:?}");
    let s = &r["stripe"];
    assert_eq!(s["layout"], "raid0");
    assert_eq!(s["stripe_bytes"], 64 << 10);
    let ms = s["targets"].as_array().unwrap();
    assert_eq!(ms.len(), 3);
    let (mut ops, mut bytes) = (0, 0);
    for m in ms {
        let n = member_ops(m);
        // 3000 reads, half of them uniform single-block ones, half scans
        // walking each reader's slice: a third each, give or take.
        assert!((700..1300).contains(&n), "{n} of 3000 on one member");
        assert_eq!(m["writes"], 0);
        assert_eq!(m["size"], 2 << 20);
        ops += n;
        bytes += m["bytes"].as_u64().unwrap();
    }
    assert_eq!(ops, 3000);
    assert_eq!(bytes, r["bytes"].as_u64().unwrap());
    // 50 % of 6 MiB: 48 units of 64 KiB spread over the members' starts,
    // which together hold exactly half their pages before the run.
    let c = &r["cached_before"];
    assert_eq!(
        c["resident_pages"].as_u64().unwrap() * 2,
        c["total_pages"].as_u64().unwrap(),
        "{c}"
    );
    assert_eq!(
        c["total_pages"].as_u64().unwrap() * c["page_size"].as_u64().unwrap(),
        6 << 20
    );
    no_files_left(&dirs);
    // The table shows the members.
    let out = dbio()
        .args(["read", "--targets", &list, "--size", "6m", "--ops", "300"])
        .arg("--quiet")
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("stripe: raid0 over 3 targets"), "{table}");
}

#[test]
fn read_refuses_a_bad_stripe_and_removes_what_it_made() {
    let d = scratch();
    let (dirs, list) = member_dirs(d.path(), 2);
    let e = refused(&["read", "--targets", &list, "--stripe", "12k"]);
    assert!(e.contains("not a multiple of --bs"), "{e}");
    let e = refused(&[
        "read",
        "--targets",
        &format!("{list},{}", dirs[0].display()),
    ]);
    assert!(e.contains("twice"), "{e}");
    let e = refused(&["read", "--targets", &list, "--engine", "null"]);
    assert!(e.contains("null engine"), "{e}");
    let e = refused(&["read", "--targets", &list, "--size", "1m", "--stripe", "1m"]);
    assert!(e.contains("too small"), "{e}");
    // The third member cannot be made: the two made before it are removed.
    let missing = d.path().join("no/such/dir/x.dbf");
    let out = dbio()
        .args(["read", "--targets"])
        .arg(format!("{list},{}", missing.display()))
        .args(["--size", "3m", "--ops", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    no_files_left(&dirs);
}

/// Where block `b` (8 KiB) of a raid0 stripe of `k` members with units of
/// `unit` blocks lives: (member, block on it).
fn raid0_home(b: u64, unit: u64, k: u64) -> (u64, u64) {
    let n = b / unit;
    (n % k, n / k * unit + b % unit)
}

/// `dbio dbwr --targets`: the writers' batches, the checkpoints and the
/// shutdown checkpoint land on the member and offset the layout says
/// (every stamped block read back from the member files names its own
/// logical block), every member is written, and the per-member counts
/// add up to the writes and reads the model counted.
#[test]
fn dbwr_writes_each_block_to_its_member_and_offset() {
    let d = scratch();
    let m: Vec<PathBuf> = (0..3).map(|i| d.path().join(format!("m{i}.dbf"))).collect();
    let list = m
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect::<Vec<_>>()
        .join(",");
    let out = dbio()
        .args([
            "dbwr",
            "--targets",
            &list,
            "--stripe",
            "64k",
            "--size",
            "6m",
        ])
        .args(["--buffers", "128", "--lists", "4", "--foregrounds", "2"])
        .args(["--dirty", "100", "--writers", "2", "--engine", "io_uring"])
        .args(["--checkpoint-interval", "0.05", "--ops", "4000"])
        .args(["--json", "-", "--quiet"])
        .succeeds();
    let v = json(&out.stdout);
    let r = &v["dbwr"][0];
    assert_eq!(r["dirty_after_shutdown"], 0);
    let mut stamped = [0u64; 3];
    for (i, p) in m.iter().enumerate() {
        let data = std::fs::read(p).unwrap();
        assert_eq!(data.len(), 2 << 20, "each member holds 2 MiB");
        for (k, blk) in data.chunks(8192).enumerate() {
            if blk[..8] != 0x504d_5453_5257_4244u64.to_le_bytes() {
                continue;
            }
            let b = u64::from_le_bytes(blk[8..16].try_into().unwrap());
            assert_eq!(
                raid0_home(b, 8, 3),
                (i as u64, k as u64),
                "logical block {b} found on member {i} at block {k}"
            );
            stamped[i] += 1;
        }
    }
    assert!(stamped.iter().all(|&n| n > 0), "{stamped:?}");
    let ms = r["stripe"]["targets"].as_array().unwrap();
    assert_eq!(ms.len(), 3);
    let writes: u64 = ms.iter().map(|m| m["writes"].as_u64().unwrap()).sum();
    let reads: u64 = ms.iter().map(|m| m["reads"].as_u64().unwrap()).sum();
    assert_eq!(
        writes,
        r["writes"]["blocks_written"].as_u64().unwrap() + r["shutdown_writes"].as_u64().unwrap()
    );
    assert_eq!(reads, r["foreground"]["blocks_read"].as_u64().unwrap());
    for (mm, n) in ms.iter().zip(stamped) {
        assert!(mm["writes"].as_u64().unwrap() >= n, "{mm}");
        assert_eq!(mm["size"], 2 << 20);
    }
    let out = dbio()
        .args([
            "dbwr",
            "--targets",
            &list,
            "--stripe",
            "64k",
            "--size",
            "6m",
        ])
        .args(["--buffers", "128", "--ops", "500", "--quiet"])
        .succeeds();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("stripe: raid0 over 3 targets"), "{table}");
}

#[test]
fn dbwr_refuses_a_bad_stripe_and_removes_what_it_made() {
    let d = scratch();
    let (dirs, list) = member_dirs(d.path(), 2);
    let e = refused(&["dbwr", "--targets", &list, "--stripe", "12k"]);
    assert!(e.contains("not a multiple of the block (8.00 KiB)"), "{e}");
    let e = refused(&["dbwr", "--targets", &list, "--engine", "null"]);
    assert!(e.contains("null engine"), "{e}");
    let e = refused(&[
        "dbwr",
        "--targets",
        &format!("{list},{}", dirs[1].display()),
    ]);
    assert!(e.contains("twice"), "{e}");
    // Someone else's file as the third member: refused after the first
    // two were made, which are removed again; theirs is untouched.
    let theirs = d.path().join("theirs.dat");
    std::fs::write(&theirs, vec![7u8; 1 << 20]).unwrap();
    let e = refused(&[
        "dbwr",
        "--targets",
        &format!("{list},{}", theirs.display()),
        "--size",
        "3m",
        "--buffers",
        "128",
    ]);
    assert!(e.contains("--overwrite"), "{e}");
    no_files_left(&dirs);
    assert_eq!(std::fs::read(&theirs).unwrap(), vec![7u8; 1 << 20]);
}
