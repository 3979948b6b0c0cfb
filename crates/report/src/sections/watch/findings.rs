//! A live trace in words (`dbio watch`): per file, what the watched
//! process did that matters to storage.
//!
//! The rules come from the buffered-redo case ("Analyzing Oracle Logwriter
//! w/ buffered vs. direct I/O"): on a buffered filesystem the log writer
//! rewrote the same block again and again and the filesystem read the log
//! file before writing it (a write that covers part of a page must read
//! the rest first), and each write took longer than with direct I/O. So:
//! the same 4 KiB block written by consecutive writes; reads of a file the
//! process also writes; write offsets that are not multiples of 512 B or
//! 4 KiB; and, per file, the time spent syncing against the time spent
//! writing. Lost records are always a finding: a count that looks exact
//! must not hide what the tracer missed.

use super::files;
use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, plural, Finding, Severity};
use crate::kit::references::lgwr_buffered_vs_direct;
use dbio_model::units::format_ns;
use dbio_model::watch::{WatchFileOp, WatchResult};
use dbio_model::RunReport;
use std::collections::BTreeMap;

/// The live-trace rules (the `watch` section).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "watch",
    evaluate,
};

/// A file is called rewritten in place when at least this share of its
/// writes start in the 4 KiB block the previous write ended in.
pub const SAME_BLOCK_SHARE: f64 = 0.5;

/// Fewer writes than this say nothing about a pattern.
pub const MIN_WRITES: u64 = 10;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    r.watch.iter().flat_map(watch).collect()
}

/// The findings of one watch. Each finding about a file carries the
/// file's share of the traced time (the time inside every traced call)
/// as its impact.
pub fn watch(w: &WatchResult) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(losses(w));
    let times = files::files(w);
    let share = |file: &str| {
        times
            .iter()
            .find(|f| f.key == file)
            .map_or(0.0, |f| f.share_pct)
    };
    for f in &times {
        if f.share_pct >= FILE_SHARE_PCT {
            out.push(file_time(w, f));
        }
    }
    for (file, ops) in by_file(w) {
        let pct = share(&file);
        let mut fs = Vec::new();
        fs.extend(same_block(&file, &ops));
        fs.extend(reads_of_written_file(&file, &ops));
        fs.extend(alignment(&file, &ops));
        fs.extend(sync_vs_write(&file, &ops));
        // A file with a share of its own says this in its time finding.
        if pct < FILE_SHARE_PCT {
            fs.extend(device_vs_calls(w, &file, &ops));
        }
        out.extend(fs.into_iter().map(|x| x.with_impact(pct, TRACED)));
    }
    out
}

/// What a watch finding's impact is a share of.
pub const TRACED: &str = "traced time";

/// A file at or above this share of the traced time (percent) gets a
/// finding of its own that names it and says how much of its time the
/// device explains.
pub const FILE_SHARE_PCT: f64 = 10.0;

/// One file's share of the traced time, and whether the storage
/// explains it: the block-layer service time of the requests in its
/// extents (with its part of the flushes and journal writes) against the
/// time of its calls.
pub fn file_time(w: &WatchResult, f: &files::FileTime) -> Finding {
    let d = files::device_share(w, f);
    let mut calls: Vec<String> = f
        .rows
        .iter()
        .filter(|o| o.count > 0)
        .take(3)
        .map(|o| {
            format!(
                "{} x{} mean {}",
                o.op,
                o.count,
                format_ns(o.total_ns as f64 / o.count as f64)
            )
        })
        .collect();
    if f.rows.len() > 3 {
        calls.push("...".into());
    }
    let text = format!(
        "{} took {:.0} % of the traced time ({} in {} calls: {}); {}",
        f.key,
        f.share_pct,
        format_ns(f.total_ns as f64),
        f.calls,
        calls.join(", "),
        files::device_clause(f, &d)
    );
    let mut evidence = vec![
        ev("calls", f.calls as f64, "count"),
        ev("time in the calls", f.total_ns as f64, "ns"),
        ev("share of the traced time", f.share_pct, "%"),
    ];
    if d.requests > 0 || d.flush_ns > 0 {
        evidence.push(ev(
            "device requests in the file",
            d.requests as f64,
            "count",
        ));
        evidence.push(ev(
            "device service time",
            (d.file_ns + d.flush_ns) as f64,
            "ns",
        ));
        evidence.push(ev("device share of the calls' time", d.share_pct, "%"));
    }
    finding(
        "watch.file_time",
        Some(&f.key),
        crate::verdict::severity_of_share(f.share_pct),
        text,
        evidence,
        None,
    )
    .with_impact(f.share_pct, TRACED)
}

/// The calls on a file take this many times the device's service time of
/// its requests, or more, before the gap is called not the device's.
pub const CALL_DEVICE_RATIO: f64 = 3.0;

/// The time of the writes and syncs on a file against the device time of
/// the requests in its extents: Oracle's `log file sync` (what the caller
/// waits) against `log file parallel write` (what the I/O took), one
/// level lower. A wide gap is time above the device: the filesystem's
/// journal, queueing in the kernel, flushes, CPU.
fn device_vs_calls(w: &WatchResult, file: &str, ops: &[&WatchFileOp]) -> Option<Finding> {
    let s = sums(ops);
    let calls = s.writes + s.syncs;
    let call_ns = s.write_ns + s.sync_ns;
    let (mut requests, mut device_ns) = (0u64, 0u64);
    for f in w.file_block.iter().filter(|f| f.path == file) {
        requests += f.count;
        device_ns += f.total_ns;
    }
    if calls < MIN_WRITES || requests == 0 {
        return None;
    }
    let ratio = call_ns as f64 / device_ns.max(1) as f64;
    let evidence = vec![
        ev("write and sync calls", calls as f64, "count"),
        ev("time in the calls", call_ns as f64, "ns"),
        ev("device requests in the file", requests as f64, "count"),
        ev("device service time", device_ns as f64, "ns"),
        ev("calls / device", ratio, "x"),
    ];
    if ratio >= CALL_DEVICE_RATIO {
        Some(finding(
            "watch.calls_above_device",
            Some(file),
            Severity::Notice,
            format!(
                "{file}: {calls} write and sync calls took {} in all, while the device served the file's {requests} requests in {} ({ratio:.1}x): most of the wait is above the device (the filesystem journal, cache flushes, queueing, CPU), not the storage's service time",
                format_ns(call_ns as f64),
                format_ns(device_ns as f64)
            ),
            evidence,
            None,
        ))
    } else {
        Some(finding(
            "watch.calls_vs_device",
            Some(file),
            Severity::Info,
            format!(
                "{file}: {calls} write and sync calls took {}, the device served the file's {requests} requests in {} ({ratio:.1}x): the device's service time is most of the calls' time",
                format_ns(call_ns as f64),
                format_ns(device_ns as f64)
            ),
            evidence,
            None,
        ))
    }
}

/// Operations grouped by file (path, or `pid P fd F` when unknown).
fn by_file(w: &WatchResult) -> BTreeMap<String, Vec<&WatchFileOp>> {
    let mut m: BTreeMap<String, Vec<&WatchFileOp>> = BTreeMap::new();
    for o in &w.ops {
        // io_submit, io_getevents: no file; an io_uring request's file
        // has no descriptor but is a file.
        if o.fd < 0 && o.inode.is_none() {
            continue;
        }
        let key = match (&o.path, o.fd) {
            (Some(p), _) => p.clone(),
            (None, fd) if fd < 0 => o.file_name(),
            (None, fd) => format!("pid {} fd {fd}", o.pid),
        };
        m.entry(key).or_default().push(o);
    }
    m
}

/// Sums of the write, read and sync calls on one file.
struct Sums {
    writes: u64,
    write_ns: u64,
    reads: u64,
    read_bytes: u64,
    syncs: u64,
    sync_ns: u64,
    same_block: u64,
    /// Writes on descriptors not known to be O_DIRECT, and their
    /// same-block writes: direct I/O reads no block back.
    buffered_writes: u64,
    buffered_same_block: u64,
    unaligned_512: u64,
    unaligned_4k: u64,
}

/// The descriptor ran with O_DIRECT (opened with it, or switched on by
/// fcntl(F_SETFL)).
pub fn is_direct(o: &WatchFileOp) -> bool {
    o.open_flags
        .as_deref()
        .is_some_and(|f| f.split('|').any(|x| x == "O_DIRECT"))
}

fn sums(ops: &[&WatchFileOp]) -> Sums {
    let mut s = Sums {
        writes: 0,
        write_ns: 0,
        reads: 0,
        read_bytes: 0,
        syncs: 0,
        sync_ns: 0,
        same_block: 0,
        buffered_writes: 0,
        buffered_same_block: 0,
        unaligned_512: 0,
        unaligned_4k: 0,
    };
    for o in ops {
        if o.op.is_write() {
            s.writes += o.count;
            s.write_ns += o.total_ns;
            s.same_block += o.same_block;
            if !is_direct(o) {
                s.buffered_writes += o.count;
                s.buffered_same_block += o.same_block;
            }
            s.unaligned_512 += o.unaligned_512;
            s.unaligned_4k += o.unaligned_4k;
        } else if o.op.is_read() {
            s.reads += o.count;
            s.read_bytes += o.bytes;
        } else if o.op.is_sync() {
            s.syncs += o.count;
            s.sync_ns += o.total_ns;
        }
    }
    s
}

/// What the tracer missed, when it missed anything.
fn losses(w: &WatchResult) -> Option<Finding> {
    let l = &w.losses;
    let dropped = l.start_table_full + l.histogram_table_full + l.ring_drops + l.block_dropped();
    if dropped == 0 {
        return None;
    }
    Some(finding(
        "watch.lost",
        Some(&w.name),
        Severity::Warning,
        format!(
            "the tracer lost {dropped} record{}: the counts are lower bounds",
            plural(dropped)
        ),
        vec![
            ev("start table full", l.start_table_full as f64, "count"),
            ev(
                "histogram table full",
                l.histogram_table_full as f64,
                "count",
            ),
            ev("ring buffer drops", l.ring_drops as f64, "count"),
            ev("block requests dropped", l.block_dropped() as f64, "count"),
        ],
        None,
    ))
}

/// The same 4 KiB block written by consecutive buffered writes (an
/// O_DIRECT write goes to the device as it is and reads nothing back, so
/// its descriptors are left out).
fn same_block(file: &str, ops: &[&WatchFileOp]) -> Option<Finding> {
    let s = sums(ops);
    let (writes, same) = (s.buffered_writes, s.buffered_same_block);
    if writes < MIN_WRITES || (same as f64) < SAME_BLOCK_SHARE * writes as f64 {
        return None;
    }
    Some(finding(
        "watch.same_block",
        Some(file),
        Severity::Notice,
        format!(
            "{file}: {same} of {writes} buffered writes started in the 4 KiB block the previous write ended in: the same block is written again and again (partial-block writes); through the page cache each one may read the block back first, which direct I/O avoids",
        ),
        vec![
            ev("buffered writes", writes as f64, "count"),
            ev("same-block writes", same as f64, "count"),
            ev("same-block share", 100.0 * same as f64 / writes as f64, "%"),
        ],
        Some(lgwr_buffered_vs_direct()),
    ))
}

/// Reads of a file the process also writes (a read-modify-write).
fn reads_of_written_file(file: &str, ops: &[&WatchFileOp]) -> Option<Finding> {
    let s = sums(ops);
    if s.writes < MIN_WRITES || s.reads == 0 {
        return None;
    }
    Some(finding(
        "watch.reads_of_written_file",
        Some(file),
        Severity::Notice,
        format!(
            "{file} is read ({} calls) as well as written ({} calls) by the watched process",
            s.reads, s.writes
        ),
        vec![
            ev("reads", s.reads as f64, "count"),
            ev("bytes read", s.read_bytes as f64, "bytes"),
            ev("writes", s.writes as f64, "count"),
        ],
        Some(lgwr_buffered_vs_direct()),
    ))
}

/// Positioned writes not aligned to 512 B or 4 KiB.
fn alignment(file: &str, ops: &[&WatchFileOp]) -> Option<Finding> {
    let s = sums(ops);
    if s.writes < MIN_WRITES || s.unaligned_4k == 0 {
        return None;
    }
    Some(finding(
        "watch.alignment",
        Some(file),
        Severity::Info,
        format!(
            "{file}: {} of {} positioned writes are not whole 4 KiB blocks at 4 KiB offsets ({} not even at a 512 B offset): the page cache, or a 4 KiB-sector device, must merge them with what is already there",
            s.unaligned_4k, s.writes, s.unaligned_512
        ),
        vec![
            ev("writes", s.writes as f64, "count"),
            ev("not 4 KiB aligned", s.unaligned_4k as f64, "count"),
            ev("not 512 B aligned", s.unaligned_512 as f64, "count"),
        ],
        None,
    ))
}

/// Time syncing against time writing, per file.
fn sync_vs_write(file: &str, ops: &[&WatchFileOp]) -> Option<Finding> {
    let s = sums(ops);
    if s.syncs < MIN_WRITES || s.writes == 0 {
        return None;
    }
    let ratio = s.sync_ns as f64 / s.write_ns.max(1) as f64;
    Some(finding(
        "watch.sync_vs_write",
        Some(file),
        Severity::Info,
        format!(
            "{file}: {} syncs took {} on average against {} per write ({} writes): syncing takes {ratio:.2}x the writing time",
            s.syncs,
            format_ns(s.sync_ns as f64 / s.syncs as f64),
            format_ns(s.write_ns as f64 / s.writes as f64),
            s.writes
        ),
        vec![
            ev("sync time", s.sync_ns as f64, "ns"),
            ev("write time", s.write_ns as f64, "ns"),
            ev("sync / write", ratio, "x"),
        ],
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::watch::{SyscallOp, WatchConfig, WatchEnd, WatchLosses};

    fn op(op: SyscallOp, count: u64, total_ns: u64) -> WatchFileOp {
        WatchFileOp {
            pid: 1,
            fd: 3,
            path: Some("/redo".into()),
            op,
            count,
            total_ns,
            ..Default::default()
        }
    }

    fn result(ops: Vec<WatchFileOp>) -> WatchResult {
        WatchResult {
            name: "pid 1".into(),
            config: WatchConfig::default(),
            duration_ns: 1,
            ended: WatchEnd::Exited,
            command_status: None,
            processes: vec![],
            ops,
            losses: WatchLosses::default(),
            streamed: 0,
            unavailable: vec![],
            block: vec![],
            file_block: vec![],
            block_unattributed: vec![],
            unmapped: vec![],
            bpf_programs: vec![],
            block_queue: vec![],
            command_signal: None,
        }
    }

    fn rules(w: &WatchResult) -> Vec<String> {
        watch(w).into_iter().map(|f| f.rule).collect()
    }

    #[test]
    fn same_block_fires_at_half_the_writes_and_not_below() {
        let mut w = op(SyscallOp::Pwrite64, 100, 1000);
        w.same_block = 50;
        assert!(rules(&result(vec![w.clone()])).contains(&"watch.same_block".into()));
        w.same_block = 49;
        assert!(!rules(&result(vec![w.clone()])).contains(&"watch.same_block".into()));
        // Too few writes to speak of a pattern.
        let mut few = op(SyscallOp::Pwrite64, MIN_WRITES - 1, 1000);
        few.same_block = MIN_WRITES - 1;
        assert!(!rules(&result(vec![few])).contains(&"watch.same_block".into()));
    }

    #[test]
    fn same_block_is_not_said_of_o_direct_writes() {
        let mut w = op(SyscallOp::Pwrite64, 100, 1000);
        w.same_block = 90;
        w.open_flags = Some("O_RDWR|O_DIRECT|O_DSYNC".into());
        assert!(!rules(&result(vec![w.clone()])).contains(&"watch.same_block".into()));
        // A buffered descriptor on the same file is still counted, alone.
        let mut b = op(SyscallOp::Pwrite64, 20, 1000);
        b.fd = 4;
        b.same_block = 10;
        b.open_flags = Some("O_RDWR|O_DSYNC".into());
        let f = watch(&result(vec![w, b]));
        let f = f.iter().find(|f| f.rule == "watch.same_block").unwrap();
        assert!(f.text.contains("10 of 20 buffered writes"), "{}", f.text);
        assert!(!is_direct(&op(SyscallOp::Pwrite64, 1, 1)));
    }

    #[test]
    fn reads_of_a_written_file_and_unaligned_writes_are_named() {
        let mut w = op(SyscallOp::Pwrite64, 20, 1000);
        w.unaligned_4k = 20;
        w.unaligned_512 = 0;
        let r = op(SyscallOp::Pread64, 3, 10);
        let got = rules(&result(vec![w.clone(), r]));
        assert!(
            got.contains(&"watch.reads_of_written_file".into()),
            "{got:?}"
        );
        assert!(got.contains(&"watch.alignment".into()), "{got:?}");
        w.unaligned_4k = 0;
        let got = rules(&result(vec![w]));
        assert!(
            !got.contains(&"watch.reads_of_written_file".into()),
            "{got:?}"
        );
        assert!(!got.contains(&"watch.alignment".into()), "{got:?}");
    }

    #[test]
    fn sync_time_is_compared_with_write_time() {
        let w = op(SyscallOp::Pwrite64, 10, 10_000);
        let s = op(SyscallOp::Fdatasync, 10, 40_000);
        let f = watch(&result(vec![w.clone(), s]));
        let f = f.iter().find(|f| f.rule == "watch.sync_vs_write").unwrap();
        assert!(f.text.contains("4.00x"), "{}", f.text);
        // One fsync at close says nothing about a sync pattern.
        let once = op(SyscallOp::Fsync, 1, 40_000);
        assert!(!rules(&result(vec![w, once])).contains(&"watch.sync_vs_write".into()));
    }

    #[test]
    fn calls_far_above_the_device_time_are_not_the_storage() {
        use dbio_model::watch::{BlockOp, WatchFileBlock};
        let w = op(SyscallOp::Pwrite64, 10, 1_000_000);
        let s = op(SyscallOp::Fdatasync, 10, 8_000_000);
        // Under a tenth of the traced time: no time finding of its own,
        // this one says it.
        let mut big = op(SyscallOp::Pread64, 10, 100_000_000);
        big.path = Some("/data".into());
        let mut r = result(vec![w, s, big]);
        // No block rows: nothing to compare.
        assert!(!rules(&r).iter().any(|x| x.contains("device")));
        r.file_block.push(WatchFileBlock {
            path: "/redo".into(),
            device: "254:0".into(),
            op: BlockOp::Write,
            count: 10,
            total_ns: 3_000_000,
            ..Default::default()
        });
        let f = watch(&r);
        let f = f
            .iter()
            .find(|f| f.rule == "watch.calls_above_device")
            .unwrap();
        assert!(f.text.contains("(3.0x)"), "{}", f.text);
        assert!((f.share() - 900.0 / 109.0).abs() < 0.01, "{f:?}");
        r.file_block[0].total_ns = 3_000_001;
        assert!(rules(&r).contains(&"watch.calls_vs_device".into()));
    }

    #[test]
    fn losses_are_a_warning_and_unmatched_exits_are_not() {
        let mut r = result(vec![]);
        r.losses.unmatched = 5;
        assert!(rules(&r).is_empty());
        r.losses.ring_drops = 2;
        let f = watch(&r);
        assert_eq!(f[0].rule, "watch.lost");
        assert_eq!(f[0].severity, Severity::Warning);
    }
}
