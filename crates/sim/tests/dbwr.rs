//! The database-writer model on real temporary files: exact read and write
//! counts seen by the engines themselves, checkpoints that write every
//! dirty buffer exactly once, writers confined to their own lists, and a
//! datafile whose every block reads back with the version the model gave
//! it. See: issue 4.

use dbio_engine::engines::{
    self, probe_io_uring, Completion, Dir, Engine, EngineFile, EngineOptions, IoRequest, Queued,
};
use dbio_engine::EngineError;
use dbio_model::EngineKind;
use dbio_sim::dbwr::config::validate;
use dbio_sim::dbwr::{
    block, run, standard_engines, Datafile, DbwrConfig, DbwrError, EngineFactory, Foreground,
    Instance, Placement, Role, Touch, Writer, BLOCK_SIZE,
};
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// One I/O an engine was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    role: Role,
    dir: Dir,
    block: u64,
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// Wraps an engine and logs every I/O queued to it.
struct Recording {
    inner: Box<dyn Engine>,
    role: Role,
    log: Log,
}

impl Engine for Recording {
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        assert_eq!(req.len as usize, BLOCK_SIZE);
        assert_eq!(req.offset % BLOCK_SIZE as u64, 0);
        self.log.lock().unwrap().push(Seen {
            role: self.role,
            dir: req.dir,
            block: req.offset / BLOCK_SIZE as u64,
        });
        // SAFETY: the caller's contract, passed on unchanged.
        unsafe { self.inner.queue(req) }
    }
    fn commit(&mut self) -> Result<(), EngineError> {
        self.inner.commit()
    }
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        self.inner.reap(min, out)
    }
}

/// A datafile of `blocks` blocks filled with a random pattern (no stamps).
fn datafile(dir: &tempfile::TempDir, blocks: u64) -> (Datafile, Vec<u8>) {
    let path = dir.path().join("datafile.dbf");
    let mut rng = fastrand::Rng::with_seed(9);
    let bytes: Vec<u8> = (0..blocks as usize * BLOCK_SIZE)
        .map(|_| rng.u8(..))
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    (
        Datafile {
            file: Arc::new(file),
            path,
        },
        bytes,
    )
}

fn read_block(f: &File, b: u64) -> Vec<u8> {
    let mut buf = vec![0u8; BLOCK_SIZE];
    f.read_exact_at(&mut buf, b * BLOCK_SIZE as u64).unwrap();
    buf
}

fn psync(d: &Datafile, role: Role, log: &Log) -> Box<dyn Engine> {
    Box::new(Recording {
        inner: Box::new(
            engines::open(
                EngineKind::Psync,
                Some(EngineFile {
                    file: &d.file,
                    path: &d.path,
                }),
                &EngineOptions::default(),
            )
            .unwrap(),
        ),
        role,
        log: log.clone(),
    })
}

#[test]
fn a_checkpoint_writes_each_dirty_buffer_exactly_once_and_the_file_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let (d, original) = datafile(&dir, 512);
    let log: Log = Log::default();
    // 128 buffers over 4 lists (32 each), 2 writers: writer 0 owns lists
    // 0 and 2, writer 1 lists 1 and 3.
    let inst = Instance::new(128, 4, 512, 2, true);
    let mut fg = Foreground::new(&inst, psync(&d, Role::Foreground(0), &log), 40);
    // Blocks 0..100 (25 per list: no eviction); change every third, and
    // blocks 0, 30, 60, 90 twice.
    let mut expected: BTreeMap<u64, u64> = BTreeMap::new();
    for b in 0..100u64 {
        let change = b % 3 == 0;
        assert_eq!(fg.touch(b, change).unwrap(), Touch::Miss);
        if change {
            *expected.entry(b).or_default() += 1;
        }
    }
    for b in [0u64, 30, 60, 90, 1] {
        let change = b != 1;
        assert_eq!(fg.touch(b, change).unwrap(), Touch::Hit);
        if change {
            *expected.entry(b).or_default() += 1;
        }
    }
    assert_eq!(fg.stats.ops, 105);
    assert_eq!(fg.stats.blocks_read, 100);
    assert_eq!(fg.stats.hits, 5);
    assert_eq!(fg.stats.changes, 38);
    assert_eq!(inst.cache.dirty_buffers(), 34);
    let reads: Vec<u64> = log.lock().unwrap().iter().map(|s| s.block).collect();
    assert_eq!(reads, (0..100).collect::<Vec<_>>(), "one read per miss");
    log.lock().unwrap().clear();

    let mut written = 0;
    for w in 0..2 {
        let mut wr = Writer::new(&inst, w, psync(&d, Role::Writer(w), &log), 8, 40);
        written += wr.checkpoint().unwrap();
        assert_eq!(wr.stats.blocks_written, wr.stats.checkpoint_writes);
        // Only its own lists.
        for (l, &n) in wr.stats.per_list.iter().enumerate() {
            if l as u32 % 2 != w {
                assert_eq!(n, 0, "writer {w} wrote on list {l}");
            }
        }
        assert!(wr.stats.batch_max <= 8);
        // A second checkpoint finds nothing.
        assert_eq!(wr.checkpoint().unwrap(), 0);
    }
    assert_eq!(written, 34);
    assert_eq!(inst.cache.dirty_buffers(), 0);

    // Every dirty buffer written exactly once, by the writer owning its list.
    let log = log.lock().unwrap().clone();
    let mut count: HashMap<u64, u32> = HashMap::new();
    for s in &log {
        assert_eq!(s.dir, Dir::Write);
        let Role::Writer(w) = s.role else {
            panic!("{s:?}")
        };
        assert_eq!(
            (s.block % 4) as u32 % 2,
            w,
            "block {} by writer {w}",
            s.block
        );
        *count.entry(s.block).or_default() += 1;
    }
    assert_eq!(count.len(), expected.len());
    assert!(count.values().all(|&n| n == 1), "{count:?}");

    // The file: changed blocks carry their version, the rest are untouched,
    // and every cached buffer equals its block on disk.
    for b in 0..512u64 {
        let disk = read_block(&d.file, b);
        match expected.get(&b) {
            Some(&v) => assert_eq!(block::version(&disk, b), Ok(v), "block {b}"),
            None => assert_eq!(
                disk,
                original[b as usize * BLOCK_SIZE..(b as usize + 1) * BLOCK_SIZE],
                "block {b} was never changed but differs"
            ),
        }
    }
    for c in inst.cache.contents() {
        let mem = inst.cache.buffer_bytes(c.list, c.buffer).unwrap();
        assert_eq!(mem, read_block(&d.file, c.block), "block {}", c.block);
        assert_eq!(c.version, expected.get(&c.block).copied().unwrap_or(0));
    }
}

#[test]
fn a_reused_buffer_is_read_again_with_the_version_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (d, _) = datafile(&dir, 64);
    let log: Log = Log::default();
    // One list of 4 buffers: the fifth block evicts the coldest clean one.
    let inst = Instance::new(4, 1, 64, 1, true);
    let mut fg = Foreground::new(&inst, psync(&d, Role::Foreground(0), &log), 100);
    let mut wr = Writer::new(&inst, 0, psync(&d, Role::Writer(0), &log), 4, 100);
    for _ in 0..3 {
        fg.touch(7, true).unwrap();
    }
    assert_eq!(
        wr.pass().unwrap(),
        1,
        "the only dirty buffer is in the scan"
    );
    for b in [1u64, 2, 3, 4] {
        assert_eq!(fg.touch(b, false).unwrap(), Touch::Miss);
    }
    // Block 7 was the coldest clean buffer and was reused for block 4.
    assert_eq!(inst.cache.lru_order(0), vec![4, 3, 2, 1]);
    assert_eq!(fg.touch(7, true).unwrap(), Touch::Miss);
    let v = inst
        .cache
        .contents()
        .into_iter()
        .find(|c| c.block == 7)
        .unwrap();
    assert_eq!((v.version, v.dirty), (4, true));
    wr.checkpoint().unwrap();
    assert_eq!(block::version(&read_block(&d.file, 7), 7), Ok(4));
    let l = log.lock().unwrap();
    assert_eq!(l.iter().filter(|s| s.dir == Dir::Read).count(), 6);
    assert_eq!(l.iter().filter(|s| s.dir == Dir::Write).count(), 2);
}

#[test]
fn a_corrupt_block_is_named_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let (d, _) = datafile(&dir, 16);
    let mut b = vec![0u8; BLOCK_SIZE];
    block::stamp(&mut b, 3, 5); // block 3's stamp, written at block 9
    d.file.write_all_at(&b, 9 * BLOCK_SIZE as u64).unwrap();
    let inst = Instance::new(8, 1, 16, 1, true);
    let log: Log = Log::default();
    let mut fg = Foreground::new(&inst, psync(&d, Role::Foreground(0), &log), 100);
    let e = fg.touch(9, false).unwrap_err();
    assert!(matches!(e, DbwrError::Corrupt { block: 9, .. }), "{e}");
    assert!(e.to_string().contains("block 3's stamp"), "{e}");
    // The buffer was given back: block 9 is not cached.
    assert!(inst.cache.contents().is_empty());
}

fn config(engine: EngineKind, writers: u32, blocks: u64) -> DbwrConfig {
    DbwrConfig {
        buffers: 256,
        lists: 8,
        writers,
        foregrounds: 3,
        dirty_pct: 50.0,
        batch_max: 16,
        scan_depth_pct: 40,
        datafile_bytes: blocks * BLOCK_SIZE as u64,
        engine,
        direct: false,
        null_delay_ns: 0,
        runtime_ns: None,
        ops_limit: Some(20_000),
        rate_iops: None,
        checkpoint_interval_ns: Some(5_000_000),
        placement: Placement::Free,
        seed: 42,
    }
}

/// A full threaded run: exact counts, ownership, and the file afterwards.
fn full_run(engine: EngineKind) {
    let dir = tempfile::tempdir().unwrap();
    let blocks = 1024;
    let (d, _) = datafile(&dir, blocks);
    let cfg = config(engine, 2, blocks);
    let log: Log = Log::default();
    let std_engines = standard_engines(&cfg, Some(&d)).unwrap();
    let factory: Box<EngineFactory<'_>> = Box::new(|role| {
        Ok(Box::new(Recording {
            inner: std_engines(role)?,
            role,
            log: log.clone(),
        }) as Box<dyn Engine>)
    });
    let stop = AtomicBool::new(false);
    let (out, inst) = run(&cfg, &factory, &stop, None, true).unwrap();
    assert!(out.error.is_none(), "{:?}", out.error);
    let r = dbio_sim::dbwr::report::result("t", &cfg, String::new(), &out.data);
    let f = &r.foreground;
    assert_eq!(f.ops, 20_000, "every touch done");
    assert_eq!(f.hits + f.blocks_read, 20_000);
    let log = log.lock().unwrap().clone();
    let reads = log.iter().filter(|s| s.dir == Dir::Read).count() as u64;
    let writes = log.iter().filter(|s| s.dir == Dir::Write).count() as u64;
    assert_eq!(reads, f.blocks_read, "one read per miss, no more");
    assert_eq!(writes, r.writes.blocks_written + r.shutdown_writes);
    assert_eq!(r.dirty_after_shutdown, 0);
    // 256 buffers for 1024 blocks: misses must have reused buffers.
    assert!(f.blocks_read > 256, "{}", f.blocks_read);
    // Writers write only blocks of their own lists.
    for s in log.iter().filter(|s| s.dir == Dir::Write) {
        let Role::Writer(w) = s.role else {
            panic!("{s:?}")
        };
        assert_eq!(
            (s.block % 8) as u32 % 2,
            w,
            "block {} by writer {w}",
            s.block
        );
    }
    for w in &out.data.writers {
        assert_eq!(
            w.lists,
            if w.index == 0 {
                vec![0, 2, 4, 6]
            } else {
                vec![1, 3, 5, 7]
            }
        );
        for (l, &n) in w.stats.per_list.iter().enumerate() {
            if !w.lists.contains(&(l as u32)) {
                assert_eq!(n, 0, "writer {} wrote on list {l}", w.index);
            }
        }
    }
    // Each writer's count is the engine's: its writes during the load plus
    // those of the shutdown checkpoint, and its share follows from those.
    let total = r.writes.blocks_written;
    for (w, line) in out.data.writers.iter().zip(&r.writers) {
        let seen = log
            .iter()
            .filter(|s| s.dir == Dir::Write && s.role == Role::Writer(w.index))
            .count() as u64;
        assert_eq!(
            seen,
            line.blocks_written + w.stats.shutdown_writes,
            "writer {}",
            w.index
        );
        if total > 0 {
            let want = (seen - w.stats.shutdown_writes) as f64 * 100.0 / total as f64;
            assert!((line.share_pct - want).abs() < 1e-9, "writer {}", w.index);
        }
    }
    // No lost write: the versions on disk sum to the changes made, every
    // block's stamp is valid, and the cache equals the file.
    let mut sum = 0;
    for b in 0..blocks {
        sum += block::version(&read_block(&d.file, b), b).unwrap();
    }
    assert_eq!(sum, f.changes);
    for c in inst.cache.contents() {
        assert!(!c.dirty);
        let mem = inst.cache.buffer_bytes(c.list, c.buffer).unwrap();
        assert_eq!(mem, read_block(&d.file, c.block), "block {}", c.block);
    }
}

#[test]
fn a_threaded_psync_run_counts_exactly_and_loses_no_write() {
    full_run(EngineKind::Psync);
}

#[test]
fn a_threaded_io_uring_run_counts_exactly_and_loses_no_write() {
    if let Err(why) = probe_io_uring() {
        eprintln!("SKIP io_uring run: {why}");
        return;
    }
    full_run(EngineKind::IoUring);
}

#[test]
fn the_null_engine_runs_without_a_datafile() {
    let cfg = config(EngineKind::Null, 4, 4096);
    let engines = standard_engines(&cfg, None).unwrap();
    let stop = AtomicBool::new(false);
    let (out, _) = run(&cfg, &engines, &stop, None, false).unwrap();
    assert!(out.error.is_none());
    let r = dbio_sim::dbwr::report::result("null", &cfg, String::new(), &out.data);
    assert_eq!(r.foreground.ops, 20_000);
    assert_eq!(r.writers.len(), 4);
    assert_eq!(r.dirty_after_shutdown, 0);
}

#[test]
fn bad_configurations_are_refused_in_one_sentence() {
    let ok = config(EngineKind::Null, 2, 4096);
    assert!(validate(&ok).is_ok());
    type Edit = fn(&mut DbwrConfig);
    let cases: [(Edit, &str); 7] = [
        (|c| c.datafile_bytes += 1, "a positive multiple of 8 KiB"),
        (|c| c.writers = 0, "--writers must be at least 1"),
        (|c| c.writers = 9, "9 writers cannot share 8 LRU lists"),
        (|c| c.batch_max = 0, "--batch must be between 1"),
        (
            |c| c.datafile_bytes = 100 * BLOCK_SIZE as u64,
            "is larger than the datafile",
        ),
        (|c| c.buffers = 24, "fewer than 4 buffers per list"),
        (|c| c.foregrounds = 0, "--foregrounds must be at least 1"),
    ];
    for (edit, want) in cases {
        let mut c = ok.clone();
        edit(&mut c);
        let e = validate(&c).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
}

/// `--checkpoint-interval` does what it says: over a 1 s load with a 100 ms
/// interval the model checkpoints 10 times (±1 for where the last interval
/// falls), counted against the load's own measured run time. Checkpoints
/// start on a fixed schedule (t0 + k × interval) unless the previous one
/// is still running, so time spent inside checkpoints (long only on a
/// loaded machine) is the one thing that may push the count down.
#[test]
fn checkpoints_follow_the_interval_exactly() {
    const INTERVAL: u64 = 100_000_000;
    let cfg = DbwrConfig {
        ops_limit: None,
        runtime_ns: Some(1_000_000_000),
        rate_iops: Some(20_000),
        checkpoint_interval_ns: Some(INTERVAL),
        ..config(EngineKind::Null, 2, 4096)
    };
    let engines = standard_engines(&cfg, None).unwrap();
    let stop = AtomicBool::new(false);
    let (out, _) = run(&cfg, &engines, &stop, None, false).unwrap();
    assert!(out.error.is_none(), "{:?}", out.error);
    let r = dbio_sim::dbwr::report::result("ckpt", &cfg, String::new(), &out.data);
    let runtime = out.data.runtime_ns;
    assert!(runtime >= 1_000_000_000, "the load ran {runtime} ns");
    let got = r.checkpoints.count;
    assert_eq!(got, out.data.checkpoints_ns.len() as u64);
    let inside: u64 = out.data.checkpoints_ns.iter().sum();
    // Never more often than the interval ...
    assert!(
        got <= runtime / INTERVAL + 1,
        "{got} checkpoints in {runtime} ns at one per {INTERVAL} ns"
    );
    // ... and on time whenever the previous one had finished.
    assert!(
        got + 1 >= (runtime - inside) / INTERVAL,
        "{got} checkpoints in {runtime} ns ({inside} ns inside them) at one per {INTERVAL} ns"
    );
    // They wrote what the foregrounds dirtied: some buffers each time.
    assert!(r.checkpoints.blocks_written > 0);
    assert_eq!(r.checkpoints.duration.count, got);
}

/// A miss looks for a reusable buffer from the cold end of its list and
/// counts what it passes: with the four oldest buffers dirty and the next
/// one clean, it inspects five and four of them are dirty ('dirty buffers
/// inspected', which the writers' lag drives up).
#[test]
fn a_miss_counts_the_dirty_buffers_it_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (d, _) = datafile(&dir, 64);
    let log: Log = Log::default();
    // 8 buffers, one list, no writer running: nothing is cleaned meanwhile.
    let inst = Instance::new(8, 1, 64, 1, true);
    let mut fg = Foreground::new(&inst, psync(&d, Role::Foreground(0), &log), 100);
    for b in 0..8u64 {
        assert_eq!(fg.touch(b, b < 4).unwrap(), Touch::Miss);
    }
    assert_eq!(fg.stats.dirty_inspected, 0);
    let inspected = fg.stats.free_inspected;
    assert_eq!(fg.touch(8, false).unwrap(), Touch::Miss);
    assert_eq!(fg.stats.dirty_inspected, 4);
    assert_eq!(fg.stats.free_inspected - inspected, 5);
}
