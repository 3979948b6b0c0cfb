//! The answer a watch gives: which file took the traced time, and how
//! much of that time was the device's.
//!
//! The traced time is the time inside every traced I/O call, summed. The
//! busiest file on storage (not a pseudo-file, pipe or socket) answers:
//! its calls' time against the block-layer service time of the requests
//! in its extents (with its part of the flushes and journal writes the
//! watched processes issued) says whether the wait is the storage's
//! (half or more: storage-bound), above it (under a third: the commit
//! path when the file is synced, else not the storage), the page cache's
//! (no request reached the device) or in between (mixed). A process that
//! spent under a tenth of the watched time in I/O calls is not waiting
//! on storage, whatever its files did (a page-cache answer stays: it
//! says so already).

use super::files::{self, Explained};

use dbio_model::units::format_ns;
use dbio_model::watch::{FileKind, WatchResult};
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// Under this share of the watched time in I/O calls (percent), the
/// processes were not waiting on storage.
pub const IO_WALL_PCT: f64 = 10.0;

/// The pseudo-files' share of the traced time (percent) at or above
/// which, with no file on storage at 10 %, the time is theirs.
pub const PSEUDO_PCT: f64 = 50.0;

/// The verdict of the first watch in `r`.
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    let w = r.watch.first()?;
    Some(answer(w, fs))
}

fn pct(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1} %")
    } else {
        format!("{v:.0} %")
    }
}

/// The answer of one watch, with `fs` its ranked findings.
pub fn answer(w: &WatchResult, fs: &[Finding]) -> Verdict {
    let traced = files::traced_ns(w);
    let question = format!(
        "Is it the storage? (watch {}: {} in I/O calls over {} watched)",
        w.name,
        format_ns(traced as f64),
        format_ns(w.duration_ns as f64)
    );
    let verdict = |class, answer: String, subject: Option<&str>| {
        let t: Vec<usize> = subject
            .and_then(|s| {
                fs.iter()
                    .position(|f| f.rule == "watch.file_time" && f.subject.as_deref() == Some(s))
            })
            .into_iter()
            .collect();
        let t = crate::verdict::top_after(t, fs);
        Verdict {
            question: question.clone(),
            class,
            answer,
            top: t,
        }
    };
    if let Some(dev) = &w.config.device {
        let (n, ns) = w
            .block
            .iter()
            .fold((0, 0), |a, b| (a.0 + b.count, a.1 + b.total_ns));
        return verdict(
            VerdictClass::Inconclusive,
            format!(
                "{dev} served {n} requests in {} of device time; a device watch times the device, not what processes wait for: watch them (--pid, --comm, -- COMMAND) to see how much of their time is the storage's",
                format_ns(ns as f64)
            ),
            None,
        );
    }
    if traced == 0 {
        return verdict(
            VerdictClass::Inconclusive,
            "no I/O call was traced: the watched processes did no I/O while watched".into(),
            None,
        );
    }
    let all = files::files(w);
    let pseudo: f64 = all
        .iter()
        .filter(|f| f.kind == FileKind::Pseudo)
        .map(|f| f.share_pct)
        .sum();
    let Some(f) = all.iter().find(|f| f.kind != FileKind::Pseudo) else {
        return verdict(
            VerdictClass::NotStorage,
            format!(
                "not the storage: every traced call was on pseudo-files, pipes, sockets or terminals ({} in all)",
                format_ns(traced as f64)
            ),
            None,
        );
    };
    if f.share_pct < 10.0 && pseudo >= PSEUDO_PCT {
        return verdict(
            VerdictClass::NotStorage,
            format!(
                "not the storage: {} of the traced time was on pseudo-files, pipes, sockets and terminals; the busiest file on storage, {}, took {}",
                pct(pseudo),
                f.key,
                pct(f.share_pct)
            ),
            Some(&f.key),
        );
    }
    let d = files::device_share(w, f);
    let mut class = match d.explained {
        // A full queue in front of the device is still the storage's:
        // the answer says it is the queue, not the service time.
        Explained::Device | Explained::Queue => VerdictClass::StorageBound,
        Explained::Partly => VerdictClass::Mixed,
        Explained::AboveDevice if files::syncs(f) => VerdictClass::CommitPath,
        Explained::AboveDevice | Explained::Pseudo => VerdictClass::NotStorage,
        Explained::CacheReads | Explained::CacheWrites => VerdictClass::PageCache,
        Explained::Unknown => VerdictClass::Inconclusive,
    };
    let mut answer = format!(
        "{} took {} of the traced time ({} of {}); {}",
        f.key,
        pct(f.share_pct),
        format_ns(f.total_ns as f64),
        format_ns(traced as f64),
        files::device_clause(f, &d)
    );
    let io_wall = 100.0 * traced as f64 / w.duration_ns.max(1) as f64;
    // Reads from memory are not the storage either way: that answer
    // stays; a storage answer does not hold for a process that hardly
    // waited on I/O.
    if io_wall < IO_WALL_PCT && class != VerdictClass::PageCache {
        class = VerdictClass::NotStorage;
        answer = format!(
            "not the storage: the watched processes spent {} in I/O calls over {} watched ({}), so most of their time was not I/O. Of the I/O, {answer}",
            format_ns(traced as f64),
            format_ns(w.duration_ns as f64),
            pct(io_wall)
        );
    }
    verdict(class, answer, Some(&f.key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::watch::findings::watch as findings_of;
    use dbio_model::watch::{
        BlockOp, SyscallOp, WatchConfig, WatchEnd, WatchFileBlock, WatchFileOp, WatchLosses,
        WatchUnattributed,
    };

    fn op(path: &str, op: SyscallOp, count: u64, total_ns: u64) -> WatchFileOp {
        WatchFileOp {
            pid: 1,
            fd: 3,
            path: Some(path.into()),
            op,
            count,
            total_ns,
            ..Default::default()
        }
    }

    fn blk(path: &str, op: BlockOp, count: u64, total_ns: u64) -> WatchFileBlock {
        WatchFileBlock {
            path: path.into(),
            device: "254:0".into(),
            op,
            count,
            total_ns,
            by_watched: count,
            ..Default::default()
        }
    }

    /// A watch of 1 s with block tracing on.
    fn result(ops: Vec<WatchFileOp>, file_block: Vec<WatchFileBlock>) -> WatchResult {
        WatchResult {
            name: "pid 1".into(),
            config: WatchConfig {
                block: true,
                ..Default::default()
            },
            duration_ns: 1_000_000_000,
            ended: WatchEnd::Exited,
            command_status: None,
            processes: vec![],
            ops,
            losses: WatchLosses::default(),
            streamed: 0,
            unavailable: vec![],
            block: vec![],
            file_block,
            block_unattributed: vec![],
            unmapped: vec![],
            bpf_programs: vec![],
            block_queue: vec![],
            command_signal: None,
        }
    }

    fn judge(w: &WatchResult) -> (Verdict, Vec<Finding>) {
        let fs = crate::verdict::rank(findings_of(w));
        (answer(w, &fs), fs)
    }

    // The redo log: 600 ms of 700 ms traced in 1000 writes and syncs; the
    // device served its requests in 500 ms (83 %): storage-bound, and the
    // proc reads beside it are not the answer.
    #[test]
    fn a_log_whose_device_time_is_most_of_its_calls_is_storage_bound() {
        let w = result(
            vec![
                op("/proc/self/mountinfo", SyscallOp::Read, 50, 100_000_000),
                op("/redo", SyscallOp::Pwrite64, 500, 300_000_000),
                op("/redo", SyscallOp::Fdatasync, 500, 300_000_000),
            ],
            vec![blk("/redo", BlockOp::Write, 500, 500_000_000)],
        );
        let (v, fs) = judge(&w);
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer
                .starts_with("/redo took 86 % of the traced time (600 ms of 700 ms)"),
            "{}",
            v.answer
        );
        assert!(v.answer.contains("83 % of the calls' time"), "{}", v.answer);
        let first = &fs[v.top[0]];
        assert_eq!(first.rule, "watch.file_time");
        assert_eq!(first.subject.as_deref(), Some("/redo"));
        assert!((first.share() - 600.0 / 7.0).abs() < 0.01);
        assert!(
            v.question.contains("700 ms in I/O calls over 1.00 s"),
            "{}",
            v.question
        );
    }

    // The same calls, the device served them in 150 ms (25 %, under a
    // third): the wait is above the device; synced, so the commit path.
    // Flushes the process issued outside the file's extents count as the
    // file's device time: 50 ms more makes 33.3 % (a third: mixed).
    #[test]
    fn a_synced_file_far_above_its_device_time_is_the_commit_path() {
        let mut w = result(
            vec![
                op("/redo", SyscallOp::Pwrite64, 500, 300_000_000),
                op("/redo", SyscallOp::Fdatasync, 500, 300_000_000),
            ],
            vec![blk("/redo", BlockOp::Write, 500, 150_000_000)],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::CommitPath, "{}", v.answer);
        assert!(v.answer.contains("only 25 %"), "{}", v.answer);
        w.block_unattributed.push(WatchUnattributed {
            device: "254:0".into(),
            op: BlockOp::Flush,
            count: 500,
            by_watched: 500,
            total_ns: 50_000_001,
            ..Default::default()
        });
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::Mixed, "{}", v.answer);
        assert!(
            v.answer.contains("cache flushes and journal writes"),
            "{}",
            v.answer
        );
        // Without syncs, a wait far above the device is not the storage.
        let w = result(
            vec![op("/data", SyscallOp::Pread64, 100, 100_000_000)],
            vec![blk("/data", BlockOp::Read, 100, 10_000_000)],
        );
        assert_eq!(judge(&w).0.class, VerdictClass::NotStorage);
    }

    // 10,000 reads of 2 µs, no request reached the device (writeback of
    // the file's pages is no read's wait): the page cache.
    #[test]
    fn reads_that_reach_no_device_are_the_page_cache() {
        let w = result(
            vec![op("/data", SyscallOp::Pread64, 10_000, 20_000_000)],
            vec![blk("/data", BlockOp::Write, 10, 5_000_000)],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::PageCache, "{}", v.answer);
        assert!(
            v.answer.contains("the page cache served the reads"),
            "{}",
            v.answer
        );
        // Without the block layer, the mean alone says memory below 10 µs.
        let mut nb = w.clone();
        nb.config.block = false;
        assert_eq!(judge(&nb).0.class, VerdictClass::PageCache);
        nb.ops[0].total_ns = 10_000 * 10_000;
        assert_eq!(judge(&nb).0.class, VerdictClass::Inconclusive);
    }

    // 50 ms of I/O calls in a 1 s watch (5 %, under a tenth): whatever
    // the file, the processes were not waiting on storage.
    #[test]
    fn little_time_in_io_calls_is_not_the_storage() {
        let w = result(
            vec![op("/redo", SyscallOp::Pwrite64, 10, 50_000_000)],
            vec![blk("/redo", BlockOp::Write, 10, 50_000_000)],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::NotStorage, "{}", v.answer);
        assert!(v.answer.contains("(5.0 %)"), "{}", v.answer);
    }

    // Pipes and /proc: 90 % of the traced time; the one file on storage
    // 10 %... just under: not the storage.
    #[test]
    fn pseudo_files_are_not_the_storage() {
        let w = result(
            vec![
                op("pipe:[123]", SyscallOp::Read, 10, 900_000_000),
                op("/data", SyscallOp::Read, 10, 99_000_000),
            ],
            vec![],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::NotStorage, "{}", v.answer);
        assert!(
            v.answer.contains("the busiest file on storage, /data"),
            "{}",
            v.answer
        );
        let none = result(vec![], vec![]);
        assert_eq!(judge(&none).0.class, VerdictClass::Inconclusive);
    }

    #[test]
    fn files_at_a_tenth_get_a_time_finding_and_fold_below_a_hundredth() {
        let w = result(
            vec![
                op("/a", SyscallOp::Pwrite64, 10, 899_000_000),
                op("/b", SyscallOp::Pwrite64, 10, 100_000_000),
                op("/c", SyscallOp::Pwrite64, 10, 999_999),
                op("/lib/libc.so.6", SyscallOp::Read, 1, 1),
            ],
            vec![],
        );
        let fs = findings_of(&w);
        let subjects: Vec<_> = fs
            .iter()
            .filter(|f| f.rule == "watch.file_time")
            .map(|f| f.subject.clone().unwrap())
            .collect();
        assert_eq!(subjects, ["/a", "/b"]);
        let all = files::files(&w);
        let folded: Vec<_> = all
            .iter()
            .filter(|f| files::folded(&w, f))
            .map(|f| f.key.as_str())
            .collect();
        assert_eq!(folded, ["/c", "/lib/libc.so.6"]);
        let mut every = w.clone();
        every.config.all_files = true;
        assert!(!files::files(&every)
            .iter()
            .any(|f| files::folded(&every, f)));
    }

    /// `blk` with a queue time for every request.
    fn queued(mut b: WatchFileBlock, queue_ns: u64) -> WatchFileBlock {
        b.queued = b.count;
        b.queue_ns = queue_ns;
        b
    }

    // 1000 direct writes took 600 ms; the device served them in 100 ms
    // (17 %). A queue of 250 ms before issue makes queue and device 58 %
    // of the calls' time, the queue more than the device: the queue in
    // front of the device. At 190 ms (48 %) it is not half: the wait is
    // above the block layer (a throttle holds bios before it). A queue of
    // 90 ms under a device of 300 ms (50 %) is the device's.
    #[test]
    fn a_queue_longer_than_the_device_is_told_from_a_slow_device_and_from_a_throttle() {
        let calls = || vec![op("/data", SyscallOp::Pwrite64, 1000, 600_000_000)];
        let w = result(
            calls(),
            vec![queued(
                blk("/data", BlockOp::Write, 1000, 100_000_000),
                250_000_000,
            )],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer
                .contains("held its 1000 requests 250 µs on average before issuing them")
                && v.answer.contains("against 100 µs of device service each")
                && v.answer.contains("with the queue, 58 % of the calls' time")
                && v.answer
                    .contains("the wait is the queue in front of the device"),
            "{}",
            v.answer
        );
        let w = result(
            calls(),
            vec![queued(
                blk("/data", BlockOp::Write, 1000, 100_000_000),
                190_000_000,
            )],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::NotStorage, "{}", v.answer);
        assert!(
            v.answer
                .contains("queued them 190 ms more, only 48 % of the calls' time together")
                && v.answer
                    .contains("above the block layer (a cgroup's io.max throttle"),
            "{}",
            v.answer
        );
        let w = result(
            calls(),
            vec![queued(
                blk("/data", BlockOp::Write, 1000, 300_000_000),
                90_000_000,
            )],
        );
        let (v, _) = judge(&w);
        assert_eq!(v.class, VerdictClass::StorageBound, "{}", v.answer);
        assert!(
            v.answer
                .contains("50 % of the calls' time: the wait is the storage's"),
            "{}",
            v.answer
        );
        // Without queue times (an old result) the sentence is the old one.
        let w = result(
            calls(),
            vec![blk("/data", BlockOp::Write, 1000, 100_000_000)],
        );
        let (v, _) = judge(&w);
        assert!(
            v.answer.contains("only 17 % of the calls' time: most of the wait is above the device (the filesystem's journal"),
            "{}",
            v.answer
        );
    }
}
