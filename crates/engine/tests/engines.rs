//! The engines on real files: psync and io_uring perform the same
//! operations, and every I/O lands where the workload says.

use dbio_engine::buf::AlignedBuf;
use dbio_engine::runner::{run_job, Control, NoProgress};
use dbio_engine::target::{Target, PREWRITE_SEED};
use dbio_engine::{Job, JobTarget};
use dbio_model::{EngineKind, JobConfig, Pattern};
use std::path::Path;

const BS: usize = 4096;
const SIZE: usize = 1 << 20;

/// Runs a job on a new file at `path` and returns the indexes of the
/// blocks that no longer hold the pre-written pattern.
fn changed_blocks(
    path: &Path,
    engine: EngineKind,
    iodepth: u32,
    rw: Pattern,
    ops: u64,
) -> Vec<usize> {
    let spec = JobConfig {
        engine,
        iodepth,
        rw,
        bs: BS as u64,
        size: SIZE as u64,
        ops_limit: Some(ops),
        seed: 99,
        ..JobConfig::default()
    };
    let job = Job::resolve(&spec, &JobTarget::scratch(path)).unwrap();
    let control = Control::default();
    let target = Target::prepare(job.target.as_ref().unwrap(), &control.stop).unwrap();
    let out = run_job("t", &job, Some(&target), &control, &NoProgress).unwrap();
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.result.write.as_ref().unwrap().ops, ops);
    drop(target);
    let data = std::fs::read(path).unwrap();
    let pattern = AlignedBuf::patterned(1 << 20, PREWRITE_SEED);
    (0..SIZE / BS)
        .filter(|b| {
            let off = b * BS;
            data[off..off + BS] != pattern.as_slice()[off % (1 << 20)..off % (1 << 20) + BS]
        })
        .collect()
}

fn uring_available() -> bool {
    match dbio_engine::engines::probe_io_uring() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("SKIP: {why}");
            false
        }
    }
}

#[test]
fn psync_and_io_uring_write_the_same_blocks() {
    if !uring_available() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let a = changed_blocks(
        &dir.path().join("a"),
        EngineKind::Psync,
        1,
        Pattern::Randwrite,
        100,
    );
    let b = changed_blocks(
        &dir.path().join("b"),
        EngineKind::IoUring,
        16,
        Pattern::Randwrite,
        100,
    );
    assert!(!a.is_empty() && a.len() <= 100);
    assert_eq!(a, b, "same seed, same offsets, whatever the engine");
}

#[test]
fn sequential_writes_cover_the_file_exactly_once() {
    if !uring_available() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let blocks = (SIZE / BS) as u64;
    let all: Vec<usize> = (0..SIZE / BS).collect();
    assert_eq!(
        changed_blocks(
            &dir.path().join("a"),
            EngineKind::Psync,
            1,
            Pattern::Write,
            blocks
        ),
        all
    );
    assert_eq!(
        changed_blocks(
            &dir.path().join("b"),
            EngineKind::IoUring,
            8,
            Pattern::Write,
            blocks
        ),
        all
    );
    // Half the ops: exactly the first half of the file.
    let half: Vec<usize> = (0..SIZE / BS / 2).collect();
    assert_eq!(
        changed_blocks(
            &dir.path().join("c"),
            EngineKind::IoUring,
            8,
            Pattern::Write,
            blocks / 2
        ),
        half
    );
}

/// Records every progress update the reporter sends.
#[derive(Default)]
struct Recorded(std::sync::Mutex<Vec<dbio_engine::runner::ProgressInfo>>);

impl dbio_engine::runner::Progress for Recorded {
    fn update(&self, info: &dbio_engine::runner::ProgressInfo) {
        self.0.lock().unwrap().push(*info);
    }
}

/// The progress bar is told the whole plan (warm-up plus runtime) and
/// which updates fall in the warm-up: updates before its end say so, later
/// ones do not. Judged by each update's own elapsed time, so a slow machine
/// changes how many updates there are, not whether they are right.
#[test]
fn progress_reports_the_plan_and_the_warm_up_as_they_are() {
    let spec = JobConfig {
        engine: EngineKind::Null,
        rw: Pattern::Randread,
        bs: 4096,
        runtime_ns: Some(600_000_000),
        warmup_ns: 300_000_000,
        ..JobConfig::default()
    };
    let job = Job::resolve(&spec, &JobTarget::scratch(".")).unwrap();
    let rec = Recorded::default();
    let out = run_job("t", &job, None, &Control::default(), &rec).unwrap();
    assert!(out.error.is_none(), "{:?}", out.error);
    let updates = rec.0.into_inner().unwrap();
    assert!(updates.len() >= 2, "{} updates", updates.len());
    for u in &updates {
        let planned = u.planned_s.expect("a time-based job has a plan");
        assert!((planned - 0.9).abs() < 1e-9, "{u:?}");
        // The flag is set from the same clock a moment after elapsed_s
        // was read; 1 ms either side of the boundary is left undecided.
        if u.elapsed_s < 0.299 {
            assert!(u.warming_up, "{u:?}");
        } else if u.elapsed_s > 0.301 {
            assert!(!u.warming_up, "{u:?}");
        }
    }
    assert!(updates.iter().any(|u| u.warming_up));
    assert!(updates.iter().any(|u| !u.warming_up));
}

/// Every engine `open` makes does what its declared capabilities say: a
/// write (with its fdatasync) completes inside `queue` unless the engine
/// keeps I/Os in flight, and a file engine's bytes land in the file.
#[test]
fn open_makes_engines_that_do_what_their_capabilities_declare() {
    use dbio_engine::engines::{
        open, Capabilities, Completion, Dir, Engine, EngineFile, EngineOptions, IoRequest, Queued,
        SyncOp,
    };
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let mut kinds = vec![EngineKind::Null, EngineKind::Psync, EngineKind::Libaio];
    if uring_available() {
        kinds.push(EngineKind::IoUring);
    }
    for kind in kinds {
        let caps = Capabilities::of(kind);
        let path = dir.path().join(format!("{kind:?}"));
        let file = Arc::new(
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .unwrap(),
        );
        let mut buf = AlignedBuf::patterned(BS, 7);
        let ptrs = [buf.as_mut_ptr()];
        let f = EngineFile {
            file: &file,
            path: &path,
        };
        let opts = EngineOptions {
            depth: 1,
            bufs: &ptrs,
            buf_len: BS,
            ..EngineOptions::default()
        };
        let mut engine = open(kind, caps.needs_file.then_some(f), &opts).unwrap();
        let req = IoRequest {
            tag: 0,
            dir: Dir::Write,
            offset: BS as u64,
            len: BS as u32,
            buf: ptrs[0],
            sync: SyncOp::Fdatasync,
        };
        // SAFETY: `buf` outlives the engine (dropped below, first) and is
        // not touched until the write is reaped or done.
        let queued = unsafe { engine.queue(&req) }.unwrap();
        let done = match queued {
            Queued::Done(c) => {
                assert!(!caps.queue_depth, "{kind:?} completed inside queue");
                c
            }
            Queued::InFlight => {
                assert!(caps.queue_depth, "{kind:?} left a write in flight");
                engine.commit().unwrap();
                let mut out: Vec<Completion> = Vec::with_capacity(1);
                while out.is_empty() {
                    engine.reap(1, &mut out).unwrap();
                }
                out[0]
            }
        };
        assert_eq!(done.tag, 0);
        assert!(done.sync_done_ns >= done.io_done_ns);
        drop(engine);
        let data = std::fs::read(&path).unwrap();
        if caps.needs_file {
            assert_eq!(&data[BS..2 * BS], buf.as_slice(), "{kind:?}");
        } else {
            assert!(data.is_empty(), "the null engine wrote to the file");
        }
    }
}

/// A file engine asked for without a file is one sentence naming it, not
/// a panic.
#[test]
fn open_refuses_a_file_engine_without_a_file() {
    use dbio_engine::engines::{open, Capabilities, EngineOptions};
    for kind in [EngineKind::Psync, EngineKind::IoUring, EngineKind::Libaio] {
        assert!(Capabilities::of(kind).needs_file);
        let err = match open(kind, None, &EngineOptions::default()) {
            Ok(_) => panic!("{kind:?} opened without a file"),
            Err(e) => e.to_string(),
        };
        let name = dbio_engine::engines::name(kind);
        assert_eq!(err, format!("the {name} engine needs a target file"));
    }
}

/// Dropping an io_uring engine waits for every I/O that uses a caller's
/// buffer, including one queued but not yet submitted when the drop
/// starts: the drop submits it along with its wait, so returning before it
/// completes would let the caller free a buffer the kernel still fills.
/// A read from an empty pipe stays pending until the test writes to it.
#[test]
fn dropping_an_io_uring_engine_waits_for_io_queued_but_not_submitted() {
    use dbio_engine::engines::{open, Dir, Engine, EngineFile, EngineOptions, IoRequest, SyncOp};
    use std::io::Write;
    use std::sync::{mpsc, Arc};
    use std::time::Duration;
    if !uring_available() {
        return;
    }
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills `fds` with two new descriptors on success.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors are new and owned by nothing else.
    let (rd, mut wr) = unsafe {
        use std::os::fd::FromRawFd;
        (
            Arc::new(std::fs::File::from_raw_fd(fds[0])),
            std::fs::File::from_raw_fd(fds[1]),
        )
    };
    wr.write_all(&[1u8; BS]).unwrap();
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let path = Path::new("pipe");
        let mut bufs = [vec![0u8; BS], vec![0u8; BS]];
        let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
        let file = EngineFile { file: &rd, path };
        let opts = EngineOptions {
            depth: 2,
            ..EngineOptions::default()
        };
        let mut engine = open(EngineKind::IoUring, Some(file), &opts).unwrap();
        let read = |tag: u32| IoRequest {
            tag,
            dir: Dir::Read,
            offset: 0,
            len: BS as u32,
            buf: ptrs[tag as usize],
            sync: SyncOp::None,
        };
        // SAFETY: `bufs` outlives the engine, dropped below, and is read
        // only after that.
        unsafe { engine.queue(&read(0)) }.unwrap();
        engine.commit().unwrap();
        // SAFETY: as above.
        unsafe { engine.queue(&read(1)) }.unwrap();
        tx.send("queued").unwrap();
        drop(engine);
        tx.send("dropped").unwrap();
        bufs
    });
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok("queued"));
    // The second read has no data yet: the drop must still be waiting.
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "the engine was dropped while a read into its caller's buffer was pending"
    );
    wr.write_all(&[2u8; BS]).unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok("dropped"));
    let bufs = worker.join().unwrap();
    assert!(bufs[0].iter().all(|&b| b == 1));
    assert!(bufs[1].iter().all(|&b| b == 2), "the pending read landed");
}
