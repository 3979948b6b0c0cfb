//! The pipelined commit (`--pipeline`): each durable write of a commit is
//! a group commit of its own, with its own leader, and the stages
//! overlap between groups (MariaDB's InnoDB prepare and binary log). An
//! injected service time (the null engine) makes its arithmetic
//! checkable; real files show the later stage writes its own file. See:
//! issue 11.

use dbio_model::lgwr::{LgwrResult, Protocol};
use dbio_sim::lgwr::{run, LgwrConfig, LgwrRun, LogGroup, Method, RedoSize};
use std::sync::atomic::AtomicBool;

/// Every flush and every stage write takes this long (the default
/// method, O_DIRECT+O_DSYNC, has no separate sync: one delay per write).
const DELAY: u64 = 2_000_000;

fn null_leader(sessions: u32, commits: u64, pipeline: bool) -> LgwrResult {
    let run_cfg = LgwrRun {
        config: LgwrConfig {
            protocol: Protocol::Leader,
            sessions,
            commits_per_session: Some(commits),
            runtime_ns: None,
            redo_size: RedoSize::Fixed(512),
            null_delay_ns: Some(DELAY),
            syncs_per_flush: 2,
            pipeline,
            ..LgwrConfig::default()
        },
        ..LgwrRun::default()
    };
    let out = run(&run_cfg, None, &AtomicBool::new(false)).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    out.measured.summarize("t", &run_cfg, 1)
}

/// HDR histograms keep 2 significant digits: a value may come back up to
/// 1 % lower.
fn at_least(v: u64, floor: u64) -> bool {
    v as f64 >= floor as f64 * 0.99
}

/// One session: a pipelined commit still waits for both durable writes
/// in order, so no commit is shorter than two service times, and each
/// stage's write covers that one commit.
#[test]
fn a_pipelined_commit_passes_both_stages_in_order() {
    let r = null_leader(1, 20, true);
    assert_eq!(r.commits, 20);
    assert!(
        at_least(r.log_file_sync.min_ns, 2 * DELAY),
        "shortest commit {} ns",
        r.log_file_sync.min_ns
    );
    // The first stage makes one durable write per flush, not two.
    assert!(at_least(r.writer.log_file_parallel_write.min_ns, DELAY));
    assert_eq!(r.writer.writes, 20);
    assert_eq!(r.stages.len(), 1);
    let st = &r.stages[0];
    assert_eq!((st.writes, st.commits_per_write), (20, 1.0));
    assert!(at_least(st.write_sync.min_ns, DELAY), "{:?}", st.write_sync);
    assert!(r.writer.flush_cpu_per_commit_ns.is_some());
}

/// Ten sessions: with one leader making both writes, a flush takes two
/// service times and gathers every waiting session; pipelined, each
/// stage takes one, and while the second stage syncs one group the next
/// gathers in the first, so a flush covers about half as many commits
/// and there are about twice as many (the server's 2.7 commits per
/// InnoDB flush against the one-leader model's 4.7-5.0 at 10 sessions,
/// docs/realdb-notes.md §7). Every commit passes every stage.
#[test]
fn pipelined_stages_overlap_and_split_the_groups() {
    let serial = null_leader(10, 40, false);
    let piped = null_leader(10, 40, true);
    assert_eq!((serial.commits, piped.commits), (400, 400));
    assert!(serial.stages.is_empty());
    assert!(at_least(
        serial.writer.log_file_parallel_write.min_ns,
        2 * DELAY
    ));
    let st = &piped.stages[0];
    // Each stage covered every commit once.
    assert_eq!(
        (st.commits_per_write * st.writes as f64).round() as u64,
        400
    );
    assert_eq!(
        (piped.writer.commits_per_write * piped.writer.writes as f64).round() as u64,
        400
    );
    // The groups split: fewer commits per flush than the serial leader's,
    // and more flushes. By how much depends on when the woken sessions
    // get a CPU (on an idle 2-CPU machine about half; with two other
    // CPU-bound jobs 4.0-4.7 against 5.0-5.2, and with longer service
    // times too), so only the direction is checked.
    assert!(
        piped.writer.commits_per_write < serial.writer.commits_per_write,
        "pipelined {:.2} vs serial {:.2} commits per flush",
        piped.writer.commits_per_write,
        serial.writer.commits_per_write
    );
    assert!(
        piped.writer.writes > serial.writer.writes,
        "pipelined {} vs serial {} flushes",
        piped.writer.writes,
        serial.writer.writes
    );
    // And a commit still waits for both.
    assert!(at_least(piped.log_file_sync.min_ns, 2 * DELAY));
}

/// A pipelined run of 4 sessions × 50 commits of 512 B on real files in
/// `dir`, buffered-fdatasync, two files: `base` gives the rest.
fn real_pipeline(dir: &std::path::Path, base: LgwrConfig) -> LgwrRun {
    LgwrRun {
        config: LgwrConfig {
            protocol: Protocol::Leader,
            sessions: 4,
            commits_per_session: Some(50),
            runtime_ns: None,
            redo_size: RedoSize::Fixed(512),
            method: Method::BufferedFdatasync,
            files: 2,
            syncs_per_flush: 2,
            pipeline: true,
            ..base
        },
        dir: dir.to_path_buf(),
        ..LgwrRun::default()
    }
}

/// On real files the later stage writes a file of its own, made and
/// removed with the log files; options that cannot pipeline are refused
/// in one sentence.
#[test]
fn the_later_stage_writes_its_own_file_on_real_storage() {
    let d = tempfile::tempdir().unwrap();
    let mut cfg = real_pipeline(
        d.path(),
        LgwrConfig {
            file_size: 1 << 20,
            txn_cpu_ns: 20_000,
            cpu_includes_commit_path: true,
            ..LgwrConfig::default()
        },
    );
    cfg.verify = true;
    dbio_sim::lgwr::check(&cfg).expect("check");
    let stop = AtomicBool::new(false);
    let mut group = LogGroup::prepare(&cfg, &stop).expect("prepare");
    // Two log files and the stage's file.
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 3);
    let out = run(&cfg, Some(&mut group), &stop).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    let r = out.measured.summarize("t", &cfg, 1);
    assert_eq!(r.commits, 200);
    let st = &r.stages[0];
    assert!(st.writes > 0 && st.writes <= 200, "{st:?}");
    assert_eq!(r.verify.as_ref().unwrap().bad, 0);
    let f = r
        .writer
        .flush_cpu_per_commit_ns
        .expect("leaders' flush CPU");
    assert!(f > 0.0, "{f}");
    // The flushes the sessions led are part of their commit path.
    let path = r.writer.session_path_cpu_per_commit_ns.expect("path CPU");
    assert!(path >= f, "{path} ns of path per commit, {f} of flushes");
    drop(group);
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);

    let refuse = |c: LgwrConfig, what: &str| {
        let e = dbio_sim::lgwr::config::validate(&c).unwrap_err();
        assert!(e.contains(what), "{e}");
    };
    refuse(
        LgwrConfig {
            syncs_per_flush: 2,
            pipeline: true,
            ..LgwrConfig::default()
        },
        "needs --protocol leader",
    );
    refuse(
        LgwrConfig {
            protocol: Protocol::Leader,
            pipeline: true,
            ..LgwrConfig::default()
        },
        "--syncs-per-flush 2 or more",
    );
    refuse(
        LgwrConfig {
            cpu_includes_commit_path: true,
            ..LgwrConfig::default()
        },
        "--cpu-includes-commit-path",
    );
}

/// `--stage-append`: the later stage appends the records' exact bytes to
/// a file that starts empty (MariaDB's binary log), so after 200 commits
/// of 512 B it holds exactly 102,400 B, where the first stage's log files
/// keep their prepared size; a full file starts again empty (its size
/// stays within the file size); without `--pipeline` the option is
/// refused in one sentence.
#[test]
fn an_appended_stage_grows_by_the_records_exact_bytes() {
    for (file_size, wraps) in [(1u64 << 20, false), (64 << 10, true)] {
        let d = tempfile::tempdir().unwrap();
        let cfg = real_pipeline(
            d.path(),
            LgwrConfig {
                file_size,
                stage_append: true,
                max_write_bytes: 16 << 10,
                ..LgwrConfig::default()
            },
        );
        dbio_sim::lgwr::check(&cfg).expect("check");
        let stop = AtomicBool::new(false);
        let mut group = LogGroup::prepare(&cfg, &stop).expect("prepare");
        let sizes = || {
            let mut v: Vec<u64> = std::fs::read_dir(d.path())
                .unwrap()
                .map(|e| e.unwrap().metadata().unwrap().len())
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(sizes(), [0, file_size, file_size], "the stage starts empty");
        let out = run(&cfg, Some(&mut group), &stop).expect("run");
        assert!(out.error.is_none(), "{:?}", out.error);
        let r = out.measured.summarize("t", &cfg, 1);
        assert_eq!(r.commits, 200);
        let covered = r.stages[0].commits_per_write * r.stages[0].writes as f64;
        assert!(
            (covered - 200.0).abs() < 1e-6,
            "{covered} commits in the stage"
        );
        let s = sizes();
        assert_eq!(&s[1..], [file_size, file_size], "log files keep their size");
        if wraps {
            assert!(s[0] > 0 && s[0] <= file_size && s[0] % 512 == 0, "{s:?}");
            assert!(s[0] < 200 * 512, "{s:?}");
        } else {
            assert_eq!(s[0], 200 * 512, "exact bytes appended, no padding");
        }
    }
    let e = dbio_sim::lgwr::config::validate(&LgwrConfig {
        stage_append: true,
        ..LgwrConfig::default()
    })
    .unwrap_err();
    assert!(
        e.contains("--stage-append") && e.contains("needs --pipeline"),
        "{e}"
    );
}
