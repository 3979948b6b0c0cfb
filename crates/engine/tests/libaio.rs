//! The libaio engine on real files, with O_DIRECT as the engine requires:
//! it writes the very blocks psync writes for the same seed, keeps several
//! I/Os in flight, makes each write durable with an asynchronous
//! fdatasync, refuses buffered I/O in one sentence, and names a short read.

use dbio_engine::buf::AlignedBuf;
use dbio_engine::engines::{open, Completion, Dir, Engine, EngineFile, EngineOptions};
use dbio_engine::engines::{IoRequest, Queued, SyncOp};
use dbio_engine::runner::{run_job, Control, NoProgress};
use dbio_engine::target::{Target, PREWRITE_SEED};
use dbio_engine::{Job, JobTarget};
use dbio_model::{Durability, EngineKind, JobConfig, Pattern};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Arc;

const BS: usize = 4096;
const SIZE: usize = 1 << 20;

fn job(engine: EngineKind, iodepth: u32, direct: bool, sync: Durability) -> JobConfig {
    JobConfig {
        engine,
        iodepth,
        direct,
        sync,
        rw: Pattern::Randwrite,
        bs: BS as u64,
        size: SIZE as u64,
        ops_limit: Some(100),
        seed: 99,
        ..JobConfig::default()
    }
}

/// Runs `spec` on a new file at `path`; the blocks that no longer hold the
/// pre-written pattern.
fn changed_blocks(path: &Path, spec: &JobConfig) -> Vec<usize> {
    let job = Job::resolve(spec, &JobTarget::scratch(path)).unwrap();
    let control = Control::default();
    let target = Target::prepare(job.target.as_ref().unwrap(), &control.stop).unwrap();
    let out = run_job("t", &job, Some(&target), &control, &NoProgress).unwrap();
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.result.write.as_ref().unwrap().ops, 100);
    drop(target);
    let data = std::fs::read(path).unwrap();
    let pattern = AlignedBuf::patterned(1 << 20, PREWRITE_SEED);
    (0..SIZE / BS)
        .filter(|b| data[b * BS..(b + 1) * BS] != pattern.as_slice()[b * BS..(b + 1) * BS])
        .collect()
}

#[test]
fn libaio_writes_the_same_blocks_as_psync_with_and_without_a_sync() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let a = changed_blocks(
        &dir.path().join("a"),
        &job(EngineKind::Psync, 1, true, Durability::None),
    );
    assert!(!a.is_empty() && a.len() <= 100);
    for (i, sync) in [Durability::None, Durability::Fdatasync, Durability::Fsync]
        .into_iter()
        .enumerate()
    {
        let b = changed_blocks(
            &dir.path().join(format!("b{i}")),
            &job(EngineKind::Libaio, 16, true, sync),
        );
        assert_eq!(
            a, b,
            "{sync:?}: same seed, same offsets, whatever the engine"
        );
    }
}

#[test]
fn libaio_without_o_direct_is_refused_in_one_sentence() {
    let spec = job(EngineKind::Libaio, 8, false, Durability::None);
    let err = Job::resolve(&spec, &JobTarget::scratch("x")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the libaio engine needs --direct: the kernel's native AIO is asynchronous only for O_DIRECT, and a buffered io_submit completes the I/O inside the call"
    );
    // QD > 1 is what the engine is for: accepted with O_DIRECT.
    Job::resolve(
        &job(EngineKind::Libaio, 8, true, Durability::None),
        &JobTarget::scratch("x"),
    )
    .unwrap();
}

/// Several reads in flight at once: every one is queued before the first
/// is reaped, each comes back once with its own tag and its own block.
#[test]
fn libaio_keeps_several_reads_in_flight_and_hands_each_back_once() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("f");
    // Block i holds the byte i + 1.
    let mut data = vec![0u8; 8 * BS];
    for (i, b) in data.chunks_mut(BS).enumerate() {
        b.fill(i as u8 + 1);
    }
    std::fs::write(&path, &data).unwrap();
    let file = Arc::new(
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap(),
    );
    let mut bufs: Vec<AlignedBuf> = (0..8).map(|_| AlignedBuf::patterned(BS, 0)).collect();
    let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let f = EngineFile {
        file: &file,
        path: &path,
    };
    let opts = EngineOptions {
        depth: 8,
        ..EngineOptions::default()
    };
    let mut e = open(EngineKind::Libaio, Some(f), &opts).unwrap();
    for tag in 0..8u32 {
        // Tag t reads block 7 - t.
        let req = IoRequest {
            tag,
            dir: Dir::Read,
            offset: (7 - tag as u64) * BS as u64,
            len: BS as u32,
            buf: ptrs[tag as usize],
            sync: SyncOp::None,
        };
        // SAFETY: the buffers outlive the engine (dropped first).
        assert!(matches!(
            unsafe { e.queue(&req) }.unwrap(),
            Queued::InFlight
        ));
    }
    e.commit().unwrap();
    let mut out: Vec<Completion> = Vec::with_capacity(8);
    let mut tags = Vec::new();
    while tags.len() < 8 {
        out.clear();
        e.reap(1, &mut out).unwrap();
        tags.extend(out.iter().map(|c| c.tag));
    }
    drop(e);
    tags.sort_unstable();
    assert_eq!(tags, (0..8).collect::<Vec<_>>());
    for (t, b) in bufs.iter().enumerate() {
        assert!(
            b.as_slice()[..BS].iter().all(|&x| x == 8 - t as u8),
            "tag {t}"
        );
    }
}

/// A read past the end of the file is a short transfer, reported with the
/// offset, not a silently shorter measurement.
#[test]
fn a_short_libaio_read_is_an_error_that_names_it() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![1u8; BS]).unwrap();
    let file = Arc::new(
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap(),
    );
    let mut buf = AlignedBuf::patterned(2 * BS, 0);
    let f = EngineFile {
        file: &file,
        path: &path,
    };
    let opts = EngineOptions {
        depth: 1,
        ..EngineOptions::default()
    };
    let mut e = open(EngineKind::Libaio, Some(f), &opts).unwrap();
    let req = IoRequest {
        tag: 0,
        dir: Dir::Read,
        offset: 0,
        len: 2 * BS as u32,
        buf: buf.as_mut_ptr(),
        sync: SyncOp::None,
    };
    // SAFETY: the buffer outlives the engine.
    unsafe { e.queue(&req) }.unwrap();
    e.commit().unwrap();
    let mut out = Vec::with_capacity(1);
    let err = e.reap(1, &mut out).unwrap_err().to_string();
    assert!(
        err.contains("read of 8192 bytes at offset 0 (only 4096 transferred)"),
        "{err}"
    );
}
