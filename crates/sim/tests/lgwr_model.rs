//! The log-writer model against arithmetic it must obey: an injected
//! service time (null engine) makes group commit predictable, and real
//! files must hold every committed record where the writer said it put it.

use dbio_model::lgwr::{LgwrResult, Protocol};
use dbio_model::Prepare;
use dbio_sim::lgwr::{run, LgwrConfig, LgwrRun, LogGroup, Method, RedoSize};
use std::sync::atomic::AtomicBool;

fn null_run(sessions: u32, commits: u64, delay_ns: u64, size: RedoSize) -> LgwrResult {
    null_run_with(Protocol::Writer, sessions, commits, delay_ns, size)
}

fn null_run_with(
    protocol: Protocol,
    sessions: u32,
    commits: u64,
    delay_ns: u64,
    size: RedoSize,
) -> LgwrResult {
    let cfg = null_cfg(LgwrConfig {
        protocol,
        sessions,
        commits_per_session: Some(commits),
        runtime_ns: None,
        redo_size: size,
        null_delay_ns: Some(delay_ns),
        ..LgwrConfig::default()
    });
    let out = run(&cfg, None, &AtomicBool::new(false)).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    out.measured.summarize("t", &cfg, 1)
}

/// A run of `config` without files.
fn null_cfg(config: LgwrConfig) -> LgwrRun {
    LgwrRun {
        config,
        ..LgwrRun::default()
    }
}

/// `run` with its configuration changed by `f`.
fn edit(mut run: LgwrRun, f: impl FnOnce(&mut LgwrConfig)) -> LgwrRun {
    f(&mut run.config);
    run
}

/// The HDR histograms keep 2 significant digits: a recorded value may come
/// back up to 1 % lower.
fn at_least(v: u64, floor: u64) -> bool {
    v as f64 >= floor as f64 * 0.99
}

/// Both protocols obey the same arithmetic: who flushes changes, what a
/// flush must cover does not.
#[test]
fn injected_service_time_shows_group_commit() {
    for protocol in [Protocol::Writer, Protocol::Leader] {
        group_commit_under(protocol);
    }
}

fn group_commit_under(protocol: Protocol) {
    // Only counts, and bounds that the injected 1 ms write sets and a slow
    // or loaded machine can only move further away from: no ratio of two
    // measured times (such ratios failed on a loaded 2-CPU machine).
    const MS: u64 = 1_000_000;
    let one = null_run_with(protocol, 1, 300, MS, RedoSize::Skewed);
    let ten = null_run_with(protocol, 10, 300, MS, RedoSize::Skewed);
    // One session: every write covers exactly its commit.
    assert_eq!(one.commits, 300);
    assert_eq!(one.writer.writes, 300);
    assert_eq!(one.writer.commits_per_write, 1.0);
    assert_eq!(one.writer.commits_per_write_counts[1], 300);
    // Ten sessions: a write collects what arrived during the previous one,
    // so there are fewer writes than commits; each session's commits are
    // in different writes, so at least 300.
    assert_eq!(ten.commits, 3000);
    assert!(
        (300..=1500).contains(&ten.writer.writes),
        "{} writes for 3000 commits of 10 sessions",
        ten.writer.writes
    );
    let covered: u64 = ten
        .writer
        .commits_per_write_counts
        .iter()
        .enumerate()
        .map(|(n, &w)| n as u64 * w)
        .sum();
    assert_eq!(covered, 3000);
    assert_eq!(
        ten.writer.commits_per_write_counts.iter().sum::<u64>(),
        ten.writer.writes
    );
    assert!(ten.writer.max_commits_per_write <= 10);
    for r in [&one, &ten] {
        // A session's commit waits for at least one 1 ms write, so no
        // session, measured on its own clock, commits faster than 1000/s.
        for sl in &r.sessions {
            assert!(
                sl.tps <= 1000.0 * 1.001,
                "session {}: {} TPS",
                sl.id,
                sl.tps
            );
        }
        // Every write, every commit and every commit's I/O part contains
        // the injected 1 ms; nothing can be shorter.
        let lfpw = &r.writer.log_file_parallel_write;
        assert_eq!(lfpw.count, r.writer.writes);
        assert!(at_least(lfpw.min_ns, MS), "lfpw min {} ns", lfpw.min_ns);
        assert!(at_least(r.log_file_sync.min_ns, MS));
        assert!(at_least(r.breakdown.writer_io.min_ns, MS));
        assert_eq!(r.breakdown.writer_io.count, r.commits);
    }
    // At ten sessions a commit that arrives during a write waits for it
    // and then for its own: some commit took at least two writes' time.
    assert!(
        at_least(ten.log_file_sync.max_ns, 2 * MS),
        "longest commit {} ns",
        ten.log_file_sync.max_ns
    );
    // The per-session lines of "Log File Sync wait event and SSD disks":
    // min/max/TPS.
    assert_eq!(ten.sessions.len(), 10);
    assert!(ten
        .sessions
        .iter()
        .all(|s| s.commits == 300 && at_least(s.min_ns, MS) && s.max_ns >= s.min_ns));
}

/// Every commit's record is in the write that the out-of-order null engine
/// handed back at or before the moment the session ran again, and so is
/// every earlier write: a session is never posted before its redo, and all
/// redo before it, is durable.
#[test]
fn posts_wait_for_their_write_and_every_earlier_one_out_of_order() {
    // Writes overlap when the writer finds more redo than one write takes:
    // it issues writes back to back (up to 4 in flight) and only then
    // waits for the oldest. So a write takes at most 4 KiB, and each takes
    // 20 ms, several scheduler periods, during which the sessions posted
    // before it append again (each record 100-3000 B): the next take
    // finds more than 4 KiB whatever the machine's load. (With 1 ms
    // writes and no limit, one take held all the redo there was, and a
    // loaded 2-CPU machine kept one write in flight for whole runs.)
    // Runs repeat until one had writes finish out of order; every run's
    // posts are checked all the same.
    for _ in 0..5 {
        if posts_follow_completions() > 0 {
            return;
        }
    }
    panic!("in 5 runs the null engine never had two writes in flight");
}

/// One out-of-order run, its posts checked against the engine's journal;
/// returns how many writes came back after a later one.
fn posts_follow_completions() -> usize {
    const DELAY: u64 = 20_000_000;
    let cfg = LgwrRun {
        verify: true,
        journal: true,
        ..null_cfg(LgwrConfig {
            sessions: 8,
            commits_per_session: Some(20),
            runtime_ns: None,
            redo_size: RedoSize::Uniform(100, 3000),
            max_write_bytes: 4096,
            null_delay_ns: Some(DELAY),
            async_depth: 4,
            ..LgwrConfig::default()
        })
    };
    let out = run(&cfg, None, &AtomicBool::new(false)).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    let m = &out.measured;
    // One file, no switch: write offsets grow with the log.
    assert_eq!(m.writer.n_switches, 0);
    let journal = &m.writer.null_journal;
    let mut writes: Vec<_> = journal.clone();
    writes.sort_by_key(|d| d.offset);
    // Latest hand-back among this write and all earlier ones.
    let mut durable_by = Vec::with_capacity(writes.len());
    let mut latest = 0;
    for w in &writes {
        latest = latest.max(w.reaped_ns);
        durable_by.push(latest);
    }
    let mut checked = 0;
    for (i, s) in m.sessions.iter().enumerate() {
        for p in s.positions.as_ref().expect("positions kept") {
            let k = writes.partition_point(|w| w.offset <= p.offset);
            let inside = k > 0
                && p.offset + u64::from(p.len)
                    <= writes[k - 1].offset + u64::from(writes[k - 1].len);
            assert!(
                inside,
                "session {i} commit {} at offset {} was posted, but no completed write holds it",
                p.seq, p.offset
            );
            let k = k - 1;
            assert!(
                durable_by[k] <= p.resumed_ns,
                "session {i} commit {} ran again {} ns before its write (or an earlier one) completed",
                p.seq,
                durable_by[k] - p.resumed_ns
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 8 * 20);
    // Every write came back once.
    assert_eq!(journal.len() as u64, m.writer.writes);
    journal
        .windows(2)
        .filter(|w| w[1].offset < w[0].offset)
        .count()
}

#[test]
fn redo_padding_and_switches_follow_the_arithmetic() {
    // 1000-byte records, 512-byte blocks: each write is 1024 bytes with 24
    // bytes of wastage; 64 writes fill a 64 KiB log, so the writer switches
    // after commits 64, 128 and 192, always at offset 65536.
    let cfg = null_cfg(LgwrConfig {
        sessions: 1,
        commits_per_session: Some(200),
        runtime_ns: None,
        redo_size: RedoSize::Fixed(1000),
        null_delay_ns: Some(0),
        file_size: 64 << 10,
        max_write_bytes: 64 << 10,
        files: 3,
        ..LgwrConfig::default()
    });
    let out = run(&cfg, None, &AtomicBool::new(false)).unwrap();
    let r = out.measured.summarize("t", &cfg, 1);
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
    assert_eq!(r.breakdown.wait_for_writer.count, 50_000);
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch dir")
}

/// A run on real files: the result, the log files' lengths, and two
/// figures taken from elsewhere than the writer's byte counters: the sum
/// of the record lengths the sessions committed, and the bytes the writer
/// advanced through the files (every switch's offset plus where it ended).
fn real_run(cfg: &LgwrRun) -> (LgwrResult, Vec<u64>, u64, u64) {
    let stop = AtomicBool::new(false);
    let mut g = LogGroup::prepare(cfg, &stop).expect("prepare");
    let out = run(cfg, Some(&mut g), &stop).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    let lens = g
        .paths()
        .iter()
        .map(|m| std::fs::metadata(&m[0]).unwrap().len())
        .collect();
    let m = &out.measured;
    let records: u64 = m
        .sessions
        .iter()
        .flat_map(|s| s.positions.as_ref().expect("verify keeps positions"))
        .map(|p| u64::from(p.len))
        .sum();
    assert!(m.writer.switches.len() as u64 == m.writer.n_switches);
    let advanced = m.writer.switches.iter().map(|s| s.at_offset).sum::<u64>() + m.writer.end.1;
    (out.measured.summarize("t", cfg, 1), lens, records, advanced)
}

fn real_cfg(dir: &std::path::Path, method: Method) -> LgwrRun {
    LgwrRun {
        config: LgwrConfig {
            sessions: 4,
            commits_per_session: Some(150),
            runtime_ns: None,
            redo_size: RedoSize::Uniform(100, 3000),
            method,
            file_size: 128 << 10,
            max_write_bytes: 64 << 10,
            // 600 records of at most 3000 bytes, padded, fit in 16 × 128 KiB
            // however the writer groups them: no file is reused, nothing
            // overwritten, on a slow machine too.
            files: 16,
            ..LgwrConfig::default()
        },
        dir: dir.to_path_buf(),
        scratch: None,
        verify: true,
        journal: true,
        keep: false,
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
    for (method, protocol) in [
        (Method::DirectDsync, Protocol::Writer),
        (Method::BufferedFdatasync, Protocol::Writer),
        (Method::BufferedFdatasync, Protocol::Leader),
    ] {
        let cfg = edit(real_cfg(d.path(), method), |c| c.protocol = protocol);
        let (r, _, records, advanced) = real_run(&cfg);
        assert_eq!(r.commits, 600);
        let v = r.verify.as_ref().unwrap();
        assert_eq!(
            (v.checked, v.bad, v.overwritten),
            (600, 0, 0),
            "{:?}",
            v.first_bad
        );
        assert_eq!(r.writer.redo_bytes, records);
        assert_eq!(r.writer.written_bytes, advanced);
        assert_eq!(r.writer.wastage_bytes, advanced - records);
        assert_eq!(r.writer.written_bytes % 512, 0);
        assert_switches_at_the_right_offsets(&r, cfg.config.file_size);
    }
    assert!(
        std::fs::read_dir(d.path()).unwrap().next().is_none(),
        "log files left behind"
    );
}

#[test]
fn appended_files_grow_by_redo_plus_padding() {
    let d = scratch();
    let cfg = edit(real_cfg(d.path(), Method::BufferedFdatasync), |c| {
        c.prepare = Prepare::Append;
        c.bs = 4096;
        c.files = 24;
    });
    let (r, lens, records, _) = real_run(&cfg);
    // No file was reused, so the files hold exactly what was written.
    assert_eq!(lens.iter().sum::<u64>(), r.writer.written_bytes);
    assert_eq!(r.writer.redo_bytes, records);
    assert_eq!(r.writer.wastage_bytes, lens.iter().sum::<u64>() - records);
    assert!(lens.iter().all(|l| l % 4096 == 0), "{lens:?}");
    let v = r.verify.clone().unwrap();
    assert_eq!((v.checked, v.bad), (600, 0));
}

#[test]
fn mirrored_members_and_async_writes_hold_every_record() {
    let d = scratch();
    let cfg = edit(real_cfg(d.path(), Method::DirectFdatasync), |c| {
        c.members = 2
    });
    let (r, ..) = real_run(&cfg);
    let v = r.verify.clone().unwrap();
    assert_eq!(
        (v.checked, v.bad, v.overwritten),
        (600, 0, 0),
        "{:?}",
        v.first_bad
    );
    if let Err(why) = dbio_engine::engines::probe_io_uring() {
        eprintln!("SKIP async part: {why}");
        return;
    }
    let cfg = edit(real_cfg(d.path(), Method::UringFdatasync), |c| {
        c.members = 2;
        c.async_depth = 4;
    });
    let (r, ..) = real_run(&cfg);
    let v = r.verify.clone().unwrap();
    assert_eq!(
        (v.checked, v.bad, v.overwritten),
        (600, 0, 0),
        "{:?}",
        v.first_bad
    );
    assert_switches_at_the_right_offsets(&r, cfg.config.file_size);
}

#[test]
fn bad_input_fails_before_any_file_is_made() {
    let d = scratch();
    let base = real_cfg(d.path(), Method::DirectDsync);
    let stop = AtomicBool::new(false);
    for (cfg, want) in [
        (edit(base.clone(), |c| c.sessions = 0), "--sessions"),
        (
            edit(base.clone(), |c| c.bs = 256),
            "O_DIRECT cannot write 256-byte",
        ),
        (
            edit(base.clone(), |c| c.file_size = 32 << 10),
            "smaller than the largest log write",
        ),
        (
            edit(base.clone(), |c| {
                c.protocol = Protocol::Leader;
                c.method = Method::UringFdatasync;
            }),
            "--method uring-fdatasync needs the log writer",
        ),
        (
            edit(base.clone(), |c| {
                c.protocol = Protocol::Leader;
                c.writer_cpu = Some(0);
            }),
            "--writer-cpu applies to the log writer",
        ),
        (
            edit(base.clone(), |c| {
                c.protocol = Protocol::Leader;
                c.null_delay_ns = Some(1000);
                c.async_depth = 4;
            }),
            "--async-depth must be 1",
        ),
    ] {
        let e = dbio_sim::lgwr::check(&cfg).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        let mut g = None;
        assert!(run(&cfg, g.as_mut(), &stop).is_err());
    }
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
}

/// `txn_cpu_ns` is CPU each transaction spends before its commit, on the
/// session's own CPU clock: the sessions' CPU per commit holds at least
/// it, and no session commits faster than it allows. (Bounds only: a
/// loaded machine can only add time.)
#[test]
fn transaction_cpu_is_spent_before_every_commit() {
    const CPU: u64 = 300_000;
    for protocol in [Protocol::Writer, Protocol::Leader] {
        let cfg = null_cfg(LgwrConfig {
            protocol,
            sessions: 2,
            commits_per_session: Some(100),
            runtime_ns: None,
            txn_cpu_ns: CPU,
            null_delay_ns: Some(0),
            ..LgwrConfig::default()
        });
        let out = run(&cfg, None, &AtomicBool::new(false)).expect("run");
        let r = out.measured.summarize("t", &cfg, 1);
        assert_eq!(r.commits, 200);
        assert_eq!(r.config.txn_cpu_ns, CPU);
        let cpu = r.session_cpu.user_ns + r.session_cpu.system_ns;
        assert!(cpu >= 200 * CPU, "{protocol:?}: {cpu} ns of session CPU");
        for sl in &r.sessions {
            assert!(sl.tps <= 1e9 / CPU as f64, "{protocol:?}: {} TPS", sl.tps);
        }
    }
}

/// With `cpu_includes_commit_path` the sessions spend the measured CPU
/// per commit, not that plus the model's own commit path: the burn is
/// what is left once the round trip, the queue and the wake-ups are
/// paid, so the sessions' CPU per commit comes out at the figure fed
/// (within 5 %: each thread's start and end are in its CPU too, and the
/// path of the last commit of each session is never taken off; the path
/// is taken off as it is spent, not as a lagging mean, so a machine that
/// gets slower during the run does not add to the figure), where without
/// it the sessions spend the figure plus their path. See: issues 11, 21.
#[test]
fn sessions_spend_the_measured_cpu_per_commit_with_their_path_in_it() {
    const CPU: u64 = 200_000;
    let spent = |includes: bool| {
        let cfg = null_cfg(LgwrConfig {
            protocol: Protocol::Leader,
            sessions: 4,
            commits_per_session: Some(300),
            runtime_ns: None,
            txn_cpu_ns: CPU,
            client_cpu_ns: 30_000,
            cpu_includes_commit_path: includes,
            null_delay_ns: Some(100_000),
            ..LgwrConfig::default()
        });
        let r = run(&cfg, None, &AtomicBool::new(false))
            .expect("run")
            .measured
            .summarize("t", &cfg, 1);
        assert_eq!(r.commits, 1200);
        let per_commit = (r.session_cpu.user_ns + r.session_cpu.system_ns) as f64 / 1200.0;
        (per_commit, r)
    };
    let (with, r) = spent(true);
    let path = r
        .writer
        .session_path_cpu_per_commit_ns
        .expect("session path");
    let client = r.writer.client_path_cpu_per_commit_ns.expect("client path");
    assert!(path > 0.0 && client > 0.0, "{path} {client}");
    let ratio = with / CPU as f64;
    assert!(
        (0.95..=1.05).contains(&ratio),
        "{with} ns per commit for {CPU} fed (path {path})"
    );
    let (without, r) = spent(false);
    assert_eq!(r.writer.session_path_cpu_per_commit_ns, None);
    // Without, the path is spent on top of the figure: more than with it,
    // whose excess is one unpaid path per session over 300 commits. (How
    // much more is the path of another run, which a loaded machine makes
    // longer or shorter, so no bound is set on it.)
    assert!(
        without > with,
        "{without} ns per commit without, {with} with, path {path}"
    );
}

/// A transaction as its client sees it holds the session's work and its
/// whole commit: at least the transaction's CPU plus 'log file sync'
/// (wall time can only add to CPU time), with or without client threads,
/// and with them also the client's hand-over. (Lower bounds only: a
/// loaded machine can only add time.)
#[test]
fn the_client_sees_the_statement_with_its_commit() {
    const CPU: u64 = 100_000;
    for client_cpu_ns in [0, 30_000] {
        let cfg = null_cfg(LgwrConfig {
            protocol: Protocol::Leader,
            sessions: 2,
            commits_per_session: Some(50),
            runtime_ns: None,
            txn_cpu_ns: CPU,
            client_cpu_ns,
            null_delay_ns: Some(200_000),
            ..LgwrConfig::default()
        });
        let r = run(&cfg, None, &AtomicBool::new(false))
            .expect("run")
            .measured
            .summarize("t", &cfg, 1);
        let seen = r.client_seen_mean_ns.expect("the client's view");
        let lfs = r.log_file_sync.mean_ns;
        assert!(lfs >= 200_000.0, "{lfs}");
        assert!(
            seen >= lfs + CPU as f64,
            "client CPU {client_cpu_ns}: seen {seen} ns, 'log file sync' {lfs} ns"
        );
    }
}

/// The thread names in this process now.
fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|c| c.trim().to_string())
        .collect()
}

/// Under the leader protocol nobody but the sessions runs: there is no
/// log-writer thread. Under the writer protocol the "lgwr" thread is there
/// for the whole run. The run lasts until the threads that must exist
/// have been seen, and for 50 more looks (1 ms apart) in which no other
/// may appear, then the test stops it: no deadline a busy machine could
/// miss.
#[test]
fn the_leader_protocol_runs_no_writer_thread() {
    use std::sync::atomic::Ordering;
    for (protocol, writer_seen) in [(Protocol::Writer, true), (Protocol::Leader, false)] {
        let stop = AtomicBool::new(false);
        let cfg = null_cfg(LgwrConfig {
            protocol,
            sessions: 4,
            commits_per_session: None,
            // A bound on a hang only: the test stops the run.
            runtime_ns: Some(300_000_000_000),
            null_delay_ns: Some(500_000),
            ..LgwrConfig::default()
        });
        let seen = std::thread::scope(|s| {
            let h = s.spawn(|| run(&cfg, None, &stop).expect("run"));
            let mut seen = std::collections::BTreeSet::new();
            let mut looks_after = 0;
            while !h.is_finished() && looks_after < 50 {
                seen.extend(thread_names());
                let sessions = seen.iter().any(|n| n.starts_with("lgwr-session"));
                if sessions && (!writer_seen || seen.contains("lgwr")) {
                    looks_after += 1;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            stop.store(true, Ordering::Relaxed);
            let out = h.join().unwrap();
            assert!(out.error.is_none(), "{:?}", out.error);
            let r = out.measured.summarize("t", &cfg, 1);
            assert_eq!(r.config.protocol, protocol);
            seen
        });
        assert!(
            seen.iter().any(|n| n.starts_with("lgwr-session")),
            "{protocol:?}: {seen:?}"
        );
        assert_eq!(seen.contains("lgwr"), writer_seen, "{protocol:?}: {seen:?}");
    }
}

/// Damage written into the log files after the run: the constant-memory
/// verifier must still find a changed byte, a zeroed block and a record
/// cut short, and count every committed record exactly once.
#[test]
fn verify_catches_damaged_and_missing_records() {
    use dbio_sim::lgwr::verify::verify;
    use std::os::unix::fs::FileExt;
    let d = scratch();
    let cfg = edit(real_cfg(d.path(), Method::BufferedFdatasync), |c| {
        c.members = 2
    });
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
            cfg.config.seed,
            cfg.config.redo_size.max(),
            cfg.config.bs,
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
    let cfg = edit(real_cfg(d.path(), Method::BufferedFdatasync), |c| {
        c.files = 2
    });
    let (r, ..) = real_run(&cfg);
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

/// `syncs_per_flush` makes each flush that many durable writes one after
/// the other (MariaDB's redo, then its binary log): with an injected
/// service time no flush can be shorter than that many times it. See:
/// issue 11.
#[test]
fn every_flush_makes_its_syncs_one_after_the_other() {
    let delay = 2_000_000;
    for syncs in [1u32, 3] {
        let cfg = null_cfg(LgwrConfig {
            protocol: Protocol::Leader,
            sessions: 2,
            commits_per_session: Some(10),
            runtime_ns: None,
            redo_size: RedoSize::Fixed(512),
            null_delay_ns: Some(delay),
            syncs_per_flush: syncs,
            ..LgwrConfig::default()
        });
        let out = run(&cfg, None, &AtomicBool::new(false)).expect("run");
        assert!(out.error.is_none(), "{:?}", out.error);
        let r = out.measured.summarize("t", &cfg, 1);
        let w = &r.writer.log_file_parallel_write;
        assert!(
            at_least(w.min_ns, u64::from(syncs) * delay),
            "{syncs} syncs per flush: shortest flush {} ns",
            w.min_ns
        );
        assert_eq!(r.commits, 20);
    }
    // Writes kept in flight cannot be made one after the other.
    let e = dbio_sim::lgwr::config::validate(&LgwrConfig {
        syncs_per_flush: 2,
        method: Method::UringFdatasync,
        ..LgwrConfig::default()
    })
    .unwrap_err();
    assert!(e.contains("--syncs-per-flush 2"), "{e}");
    let e = dbio_sim::lgwr::config::validate(&LgwrConfig {
        syncs_per_flush: 0,
        ..LgwrConfig::default()
    })
    .unwrap_err();
    assert!(e.contains("between 1 and 4"), "{e}");
}

/// `client_cpu_ns` gives each session a client thread whose CPU comes
/// before every commit: a run cannot be shorter than its commits' client
/// work, and that work is not on the sessions' CPU. See: issue 11.
#[test]
fn a_client_thread_works_before_every_commit() {
    let cfg = null_cfg(LgwrConfig {
        protocol: Protocol::Leader,
        sessions: 2,
        commits_per_session: Some(5),
        runtime_ns: None,
        redo_size: RedoSize::Fixed(512),
        null_delay_ns: Some(0),
        client_cpu_ns: 4_000_000,
        ..LgwrConfig::default()
    });
    let out = run(&cfg, None, &AtomicBool::new(false)).expect("run");
    assert!(out.error.is_none(), "{:?}", out.error);
    let r = out.measured.summarize("t", &cfg, 1);
    assert_eq!(r.commits, 10);
    // Five turns of 4 ms of CPU each, one after the other per session.
    assert!(r.runtime_ns >= 20_000_000, "{} ns", r.runtime_ns);
    let session_cpu = r.session_cpu.user_ns + r.session_cpu.system_ns;
    assert!(session_cpu < 40_000_000, "{session_cpu} ns on the sessions");
}
