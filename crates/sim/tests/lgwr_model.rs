//! The log-writer model against arithmetic it must obey: an injected
//! service time (null engine) makes group commit predictable, and real
//! files must hold every committed record where the writer said it put it.

use dbio_model::lgwr::LgwrResult;
use dbio_model::Prepare;
use dbio_sim::lgwr::{echo, run, LgwrConfig, LogGroup, Method, RedoSize};
use std::sync::atomic::AtomicBool;

fn null_run(sessions: u32, commits: u64, delay_ns: u64, size: RedoSize) -> LgwrResult {
    let cfg = LgwrConfig {
        sessions,
        commits: Some(commits),
        runtime_s: None,
        redo_size: size,
        null_delay_ns: Some(delay_ns),
        ..LgwrConfig::default()
    };
    let out = run(&cfg, None, &AtomicBool::new(false)).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    out.measured.summarize("t", echo(&cfg, 1))
}

/// The four parts telescope, so their means add up to the mean commit
/// latency; HDR summaries keep each mean within 1 %.
fn parts_add_up(r: &LgwrResult) -> f64 {
    let b = &r.breakdown;
    let sum =
        b.wait_for_writer.mean_ns + b.writer_io.mean_ns + b.posting.mean_ns + b.wake_up.mean_ns;
    (sum - r.log_file_sync.mean_ns).abs() / r.log_file_sync.mean_ns
}

#[test]
fn injected_service_time_shows_group_commit() {
    const MS: u64 = 1_000_000;
    let one = null_run(1, 300, MS, RedoSize::Skewed);
    let ten = null_run(10, 300, MS, RedoSize::Skewed);
    // One session: every write covers exactly its commit, and a commit
    // costs the 1 ms write plus the model's own overhead.
    assert_eq!(one.commits, 300);
    assert_eq!(one.writer.writes, 300);
    assert_eq!(one.writer.commits_per_write, 1.0);
    assert!(
        one.tps > 500.0 && one.tps < 1000.0,
        "1 session: {} TPS",
        one.tps
    );
    // Ten sessions: a write collects what arrived during the previous one.
    assert_eq!(ten.commits, 3000);
    assert!(
        ten.writer.commits_per_write >= 3.0,
        "{} commits per write",
        ten.writer.commits_per_write
    );
    // TPS rises roughly in proportion to the commits per write: the writer
    // is busy all the time either way, so TPS ≈ commits per write / write
    // time (1 ms injected; longer when a loaded machine wakes the writer
    // late, which is why the measured mean write time is used).
    let per_write = |r: &LgwrResult| {
        r.tps * r.writer.log_file_parallel_write.mean_ns / 1e9 / r.writer.commits_per_write
    };
    let (u1, u10) = (per_write(&one), per_write(&ten));
    assert!(
        (u10 / u1 - 1.0).abs() < 0.4,
        "TPS per (commits per write / write time): {u1:.2} at 1 session, {u10:.2} at 10"
    );
    assert!(ten.tps > 2.0 * one.tps, "{} vs {} TPS", ten.tps, one.tps);
    for r in [&one, &ten] {
        let err = parts_add_up(r);
        assert!(
            err < 0.05,
            "parts differ from the commit latency by {:.1} %",
            err * 100.0
        );
        // The writer's I/O part is the injected 1 ms plus copying (< 0.5 ms
        // even on a loaded machine), and 'log file parallel write' too.
        let io = r.breakdown.writer_io.mean_ns;
        assert!((0.99e6..1.5e6).contains(&io), "writer I/O {io} ns");
        let lfpw = r.writer.log_file_parallel_write.p50_ns() as f64;
        assert!((0.99e6..1.5e6).contains(&lfpw), "lfpw p50 {lfpw} ns");
    }
    // At 1 session 'log file sync' ≈ 'log file parallel write'; at 10 it
    // is about twice (wait for the write in progress, then for your own).
    let lfs_over_lfpw =
        |r: &LgwrResult| r.log_file_sync.mean_ns / r.writer.log_file_parallel_write.mean_ns;
    assert!(lfs_over_lfpw(&one) < 1.3, "{}", lfs_over_lfpw(&one));
    assert!(lfs_over_lfpw(&ten) > 1.5, "{}", lfs_over_lfpw(&ten));
    // Seed 003's lines: per-session min/max/TPS.
    assert_eq!(ten.sessions.len(), 10);
    assert!(ten
        .sessions
        .iter()
        .all(|s| s.commits == 300 && s.min_ns >= MS && s.max_ns >= s.min_ns));
}

#[test]
fn redo_padding_and_switches_follow_the_arithmetic() {
    // 1000-byte records, 512-byte blocks: each write is 1024 bytes with 24
    // bytes of wastage; 64 writes fill a 64 KiB log, so the writer switches
    // after commits 64, 128 and 192, always at offset 65536.
    let cfg = LgwrConfig {
        sessions: 1,
        commits: Some(200),
        runtime_s: None,
        redo_size: RedoSize::Fixed(1000),
        null_delay_ns: Some(0),
        file_size: 64 << 10,
        max_write: 64 << 10,
        files: 3,
        ..LgwrConfig::default()
    };
    let out = run(&cfg, None, &AtomicBool::new(false)).unwrap();
    let r = out.measured.summarize("t", echo(&cfg, 1));
    assert_eq!(r.writer.writes, 200);
    assert_eq!(r.writer.redo_bytes, 200_000);
    assert_eq!(r.writer.wastage_bytes, 200 * 24);
    assert_eq!(r.writer.written_bytes, 200 * 1024);
    assert_eq!(r.writer.log_switches, 3);
    let sw: Vec<(u32, u64, u64, u32)> = r
        .writer
        .switches
        .iter()
        .map(|s| (s.from_file, s.at_offset, s.next_write_bytes, s.to_file))
        .collect();
    assert_eq!(
        sw,
        [
            (0, 65536, 1024, 1),
            (1, 65536, 1024, 2),
            (2, 65536, 1024, 0)
        ]
    );
    assert_eq!(out.measured.writer.uses, [2, 1, 1]);
    assert_eq!(out.measured.writer.end, (0, 8 * 1024));
}

#[test]
fn the_model_alone_is_fast_and_loses_nothing() {
    // No I/O at all: every commit must still be acknowledged exactly once.
    let r = null_run(10, 5_000, 0, RedoSize::Fixed(512));
    assert_eq!(r.commits, 50_000);
    assert_eq!(r.writer.redo_bytes, 50_000 * 512);
    assert_eq!(r.writer.wastage_bytes, 0);
    let covered: u64 = r
        .writer
        .commits_per_write_counts
        .iter()
        .enumerate()
        .map(|(n, &w)| n as u64 * w)
        .sum();
    assert_eq!(covered, 50_000);
    assert!(parts_add_up(&r) < 0.05);
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch dir")
}

fn real_run(cfg: &LgwrConfig) -> (LgwrResult, Vec<u64>) {
    let stop = AtomicBool::new(false);
    let mut g = LogGroup::prepare(cfg, &stop).expect("prepare");
    let out = run(cfg, Some(&mut g), &stop).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    let lens = g
        .paths()
        .iter()
        .map(|m| std::fs::metadata(&m[0]).unwrap().len())
        .collect();
    (out.measured.summarize("t", echo(cfg, 1)), lens)
}

fn real_cfg(dir: &std::path::Path, method: Method) -> LgwrConfig {
    LgwrConfig {
        dir: dir.to_path_buf(),
        sessions: 4,
        commits: Some(150),
        runtime_s: None,
        redo_size: RedoSize::Uniform(100, 3000),
        method,
        file_size: 128 << 10,
        max_write: 64 << 10,
        files: 8,
        verify: true,
        ..LgwrConfig::default()
    }
}

fn assert_switches_at_the_right_offsets(r: &LgwrResult, file_size: u64) {
    assert!(
        r.writer.log_switches >= 2,
        "{} switches",
        r.writer.log_switches
    );
    for s in &r.writer.switches {
        // The writer leaves a file only when the next write would not fit.
        assert!(
            s.at_offset <= file_size && s.at_offset + s.next_write_bytes > file_size,
            "{s:?}"
        );
        assert_eq!(s.at_offset % 512, 0);
        assert_eq!(s.to_file, s.from_file + 1);
    }
}

#[test]
fn real_files_hold_every_committed_record() {
    let d = scratch();
    for method in [Method::DirectDsync, Method::BufferedFdatasync] {
        let cfg = real_cfg(d.path(), method);
        let (r, _) = real_run(&cfg);
        assert_eq!(r.commits, 600);
        let v = r.verify.as_ref().unwrap();
        assert_eq!(
            (v.checked, v.bad, v.overwritten),
            (600, 0, 0),
            "{:?}",
            v.first_bad
        );
        assert_eq!(
            r.writer.written_bytes,
            r.writer.redo_bytes + r.writer.wastage_bytes
        );
        assert_eq!(r.writer.written_bytes % 512, 0);
        assert_switches_at_the_right_offsets(&r, cfg.file_size);
    }
    assert!(
        std::fs::read_dir(d.path()).unwrap().next().is_none(),
        "log files left behind"
    );
}

#[test]
fn appended_files_grow_by_redo_plus_padding() {
    let d = scratch();
    let cfg = LgwrConfig {
        prepare: Prepare::Append,
        block_size: 4096,
        files: 24,
        ..real_cfg(d.path(), Method::BufferedFdatasync)
    };
    let (r, lens) = real_run(&cfg);
    // No file was reused, so the files hold exactly what was written.
    assert_eq!(lens.iter().sum::<u64>(), r.writer.written_bytes);
    assert_eq!(
        r.writer.written_bytes,
        r.writer.redo_bytes + r.writer.wastage_bytes
    );
    assert!(lens.iter().all(|l| l % 4096 == 0), "{lens:?}");
    let v = r.verify.clone().unwrap();
    assert_eq!((v.checked, v.bad), (600, 0));
}

#[test]
fn mirrored_members_and_async_writes_hold_every_record() {
    let d = scratch();
    let cfg = LgwrConfig {
        members: 2,
        ..real_cfg(d.path(), Method::DirectFdatasync)
    };
    let (r, _) = real_run(&cfg);
    let v = r.verify.clone().unwrap();
    assert_eq!((v.checked, v.bad), (600, 0), "{:?}", v.first_bad);
    if let Err(why) = dbio_engine::engines::probe_io_uring() {
        eprintln!("SKIP async part: {why}");
        return;
    }
    let cfg = LgwrConfig {
        members: 2,
        async_depth: 4,
        ..real_cfg(d.path(), Method::UringFdatasync)
    };
    let (r, _) = real_run(&cfg);
    let v = r.verify.clone().unwrap();
    assert_eq!((v.checked, v.bad), (600, 0), "{:?}", v.first_bad);
    assert_switches_at_the_right_offsets(&r, cfg.file_size);
}

#[test]
fn bad_input_fails_before_any_file_is_made() {
    let d = scratch();
    let base = real_cfg(d.path(), Method::DirectDsync);
    let stop = AtomicBool::new(false);
    for (cfg, want) in [
        (
            LgwrConfig {
                sessions: 0,
                ..base.clone()
            },
            "--sessions",
        ),
        (
            LgwrConfig {
                block_size: 256,
                ..base.clone()
            },
            "O_DIRECT cannot write 256-byte",
        ),
        (
            LgwrConfig {
                file_size: 32 << 10,
                ..base.clone()
            },
            "smaller than the largest log write",
        ),
    ] {
        let e = dbio_sim::lgwr::check(&cfg).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        let mut g = None;
        assert!(run(&cfg, g.as_mut(), &stop).is_err());
    }
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
}

/// Damage written into the log files after the run: the constant-memory
/// verifier must still find a changed byte, a zeroed block and a record
/// cut short, and count every committed record exactly once.
#[test]
fn verify_catches_damaged_and_missing_records() {
    use dbio_sim::lgwr::verify::verify;
    use std::os::unix::fs::FileExt;
    let d = scratch();
    let cfg = LgwrConfig {
        members: 2,
        ..real_cfg(d.path(), Method::BufferedFdatasync)
    };
    let stop = AtomicBool::new(false);
    let mut g = LogGroup::prepare(&cfg, &stop).expect("prepare");
    let out = run(&cfg, Some(&mut g), &stop).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    let m = &out.measured;
    let v = m.verify.clone().unwrap();
    assert_eq!((v.checked, v.bad, v.overwritten), (600, 0, 0), "{v:?}");
    let paths = g.paths();
    let readers = g.readers();
    let again = || {
        verify(
            &m.sessions,
            &readers,
            &m.writer.uses,
            cfg.seed,
            cfg.redo_size.max(),
            cfg.block_size,
        )
    };
    assert_eq!(again().checked, 600, "reading back twice changes nothing");
    let poke = |file: usize, member: usize, off: u64, bytes: &[u8]| {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&paths[file][member])
            .unwrap();
        f.write_all_at(bytes, off).unwrap();
    };
    // One payload byte of the first record of log file 0, member 1 only
    // (records are at least 100 B, so byte 40 is payload).
    let mut b = [0u8; 1];
    std::fs::File::open(&paths[0][1])
        .unwrap()
        .read_exact_at(&mut b, 40)
        .unwrap();
    poke(0, 1, 40, &[b[0] ^ 0x10]);
    let v = again();
    assert_eq!((v.checked, v.bad), (599, 1), "{v:?}");
    let why = v.first_bad.unwrap();
    assert!(why.contains("log file 0 member 1"), "{why}");
    // A whole redo block of log file 2 zeroed on both members: the records
    // in it (and those after it in the same write) are missing.
    for member in 0..2 {
        poke(2, member, 4096, &[0u8; 512]);
    }
    let v = again();
    assert!(v.bad >= 2, "{v:?}");
    assert_eq!(v.checked + v.bad, 600, "{v:?}");
    // The last log file used loses everything written to it: its records
    // are missing at the end of the walk.
    let (last, end) = (m.writer.end.0 as usize, m.writer.end.1);
    assert!(end > 0, "the writer ended in a file it wrote to");
    for member in 0..2 {
        poke(last, member, 0, &vec![0u8; end as usize]);
    }
    let v2 = again();
    assert!(v2.bad > v.bad, "{v2:?} after {v:?}");
    assert_eq!(v2.checked + v2.bad, 600, "{v2:?}");
}

/// Log files reused during the run: the records they held then are counted
/// as overwritten, every other one is checked, and together they are every
/// commit (the spans a session keeps per file account for both).
#[test]
fn verify_counts_reused_log_files_as_overwritten() {
    let d = scratch();
    let cfg = LgwrConfig {
        files: 2,
        ..real_cfg(d.path(), Method::BufferedFdatasync)
    };
    let (r, _) = real_run(&cfg);
    assert!(
        r.writer.log_switches >= 4,
        "{} switches",
        r.writer.log_switches
    );
    let v = r.verify.unwrap();
    assert_eq!(v.bad, 0, "{:?}", v.first_bad);
    assert!(v.overwritten > 0 && v.checked > 0, "{v:?}");
    assert_eq!(v.checked + v.overwritten, 600, "{v:?}");
}
