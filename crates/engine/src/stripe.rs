//! Striping: one logical address space over several targets.
//!
//! `--targets a,b,c --stripe 1m` lays the job's logical offsets over K
//! files or devices the way RAID-0 and Oracle ASM's coarse striping do
//! (stripe unit `n` on member `n mod K`), or, with `--layout concat`, one
//! after the other. The workload generators are unchanged: they draw
//! logical offsets over `K × member size`, and [`StripeMap::locate`] turns
//! each into (member, offset) with two integer divisions: no allocation,
//! no lookup table, in the measurement loop.
//!
//! A stripe unit must be a whole number of blocks, so a block-aligned I/O
//! never straddles two members (an I/O split across members would be two
//! I/Os, and its latency the slower one's: not what the job asked for).
//!
//! Every member is prepared by [`crate::target::Target::prepare`], the
//! same code and the same refusals as a single target; a member that
//! cannot be prepared removes what was already created for the others.
//!
//! Commands other than `bench` reuse the pieces: [`StripeRecorder`] counts
//! each I/O on its member around any recorder of the worker loop (`read`,
//! `matrix`), and [`StripedEngine`] puts the translation under callers that
//! address one logical file with their own threads (`dbwr`).

use crate::clock::now_ns;
use crate::engines::{Completion, Dir, Engine, IoRequest, Queued};
use crate::recorder::{new_histogram, IoRecord, IoTimes};
use crate::target::{Target, TargetSpec};
use crate::workload::Io;
use crate::{EngineError, Job};
use dbio_model::stripe::{StripeLayout, StripeResult, StripeTarget};
use dbio_model::units::format_bytes;
use dbio_model::{DiskStatsDelta, LatencySummary};
use hdrhistogram::Histogram;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// Most members of one stripe (io_uring registers one descriptor per
/// member; ASM disk groups of more than a few hundred disks are rare).
pub const MAX_MEMBERS: usize = 256;

/// The offset translation of a stripe: cheap to copy into every worker
/// and recorder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StripeMap {
    /// Layout.
    pub layout: StripeLayout,
    /// Stripe unit, bytes (raid0).
    pub unit: u64,
    /// Bytes of each member the stripe uses (a whole number of units).
    pub member_size: u64,
    /// Members.
    pub members: u32,
}

impl StripeMap {
    /// The logical size: every member's share.
    pub fn logical_size(&self) -> u64 {
        self.member_size * u64::from(self.members)
    }

    /// The member and the offset on it of logical offset `off`
    /// (`off < logical_size()`).
    #[inline]
    pub fn locate(&self, off: u64) -> (u32, u64) {
        match self.layout {
            StripeLayout::Raid0 => {
                let unit_no = off / self.unit;
                let k = u64::from(self.members);
                (
                    (unit_no % k) as u32,
                    (unit_no / k) * self.unit + off % self.unit,
                )
            }
            StripeLayout::Concat => ((off / self.member_size) as u32, off % self.member_size),
        }
    }
}

impl StripeMap {
    /// How many bytes of member `member` lie in the first `logical` bytes
    /// of the stripe, which are on each member a prefix of its share (raid0
    /// puts logical unit `n` at unit `n / K` of member `n mod K`; concat
    /// fills the members in order): what a command caches on each member
    /// to cache that much of the logical file.
    pub fn member_prefix(&self, logical: u64, member: u32) -> u64 {
        let logical = logical.min(self.logical_size());
        let m = u64::from(member);
        match self.layout {
            StripeLayout::Raid0 => {
                let k = u64::from(self.members);
                let (full, rem) = (logical / self.unit, logical % self.unit);
                let units = full / k + u64::from(m < full % k);
                // The partial unit is the next one, on member `full mod K`.
                let part = if m == full % k { rem } else { 0 };
                (units * self.unit + part).min(self.member_size)
            }
            StripeLayout::Concat => logical
                .saturating_sub(m * self.member_size)
                .min(self.member_size),
        }
    }

    /// Blocks of `bs` bytes from logical block `block` to the end of its
    /// stripe unit (for concat, of its member): how far a multiblock read
    /// may go before it would straddle two members.
    #[inline]
    pub fn blocks_to_unit_end(&self, block: u64, bs: u64) -> u64 {
        let per = (self.unit / bs).max(1);
        per - block % per
    }
}

/// What one member of a stripe did, as counted by a [`StripeRecorder`].
#[derive(Clone)]
pub struct MemberTally {
    /// Reads completed on it.
    pub reads: u64,
    /// Writes completed on it.
    pub writes: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// Total latency (fio's lat) of its I/Os.
    pub lat: Histogram<u64>,
}

impl Default for MemberTally {
    fn default() -> Self {
        Self {
            reads: 0,
            writes: 0,
            bytes: 0,
            lat: new_histogram(),
        }
    }
}

impl MemberTally {
    /// Adds `o`'s counts and latencies.
    pub fn add(&mut self, o: &MemberTally) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.bytes += o.bytes;
        self.lat.add(&o.lat).expect("same bounds");
    }

    /// Counts one I/O of `len` bytes taking `lat_ns`.
    #[inline]
    pub fn count(&mut self, read: bool, len: u64, lat_ns: u64) {
        if read {
            self.reads += 1;
        } else {
            self.writes += 1;
        }
        self.bytes += len;
        self.lat.saturating_record(lat_ns);
    }
}

/// A recorder that, for a stripe, also counts each I/O on its member
/// (the tallies are allocated before the run; recording indexes them),
/// then hands it to `inner`. Without a map it is `inner` alone.
pub struct StripeRecorder<R> {
    /// The command's own recorder.
    pub inner: R,
    /// The stripe's translation.
    pub map: Option<StripeMap>,
    /// One tally per member.
    pub members: Vec<MemberTally>,
}

impl<R> StripeRecorder<R> {
    /// Wraps `inner` for `map` (None: no stripe).
    pub fn new(inner: R, map: Option<StripeMap>) -> Self {
        let members = map.map_or(0, |m| m.members as usize);
        Self {
            inner,
            map,
            members: vec![MemberTally::default(); members],
        }
    }
}

impl<R: IoRecord> IoRecord for StripeRecorder<R> {
    #[inline]
    fn record(&mut self, io: &Io, t: &IoTimes) {
        if let Some(map) = &self.map {
            self.members[map.locate(io.offset).0 as usize].count(
                io.dir == Dir::Read,
                u64::from(io.len),
                t.sync_done.saturating_sub(t.intended),
            );
        }
        self.inner.record(io, t);
    }
}

/// The result section of a stripe: its layout and each member's tally,
/// path and disk counters (`devices` in member order).
pub fn result(
    map: &StripeMap,
    members: &[MemberTally],
    paths: &[String],
    devices: &[Option<DiskStatsDelta>],
) -> StripeResult {
    StripeResult {
        layout: map.layout,
        stripe_bytes: map.unit,
        targets: members
            .iter()
            .enumerate()
            .map(|(i, r)| StripeTarget {
                path: paths.get(i).cloned().unwrap_or_default(),
                size: map.member_size,
                reads: r.reads,
                writes: r.writes,
                bytes: r.bytes,
                lat: LatencySummary::from_histogram(&r.lat),
                device: devices.get(i).cloned().flatten(),
            })
            .collect(),
    }
}

/// An engine over a stripe's members for callers that address one
/// logical file (`dbio dbwr`'s writers and foregrounds): each request's
/// logical offset goes to its member and offset ([`StripeMap::locate`]),
/// and each I/O is counted on its member from queue to completion. The
/// tallies are this engine's alone (no sharing per I/O) and are added to
/// `sink` when it is dropped, at its thread's end.
pub struct StripedEngine<E> {
    inner: E,
    map: StripeMap,
    /// Per tag: its member, when it was queued, whether a read, its length.
    slots: Vec<(u32, u64, bool, u32)>,
    tally: Vec<MemberTally>,
    sink: std::sync::Arc<std::sync::Mutex<Vec<MemberTally>>>,
}

impl<E> StripedEngine<E> {
    /// `inner` opened on the members in order, for tags below `depth`.
    pub fn new(
        inner: E,
        map: StripeMap,
        depth: u32,
        sink: std::sync::Arc<std::sync::Mutex<Vec<MemberTally>>>,
    ) -> Self {
        Self {
            inner,
            map,
            slots: vec![(0, 0, false, 0); depth.max(1) as usize],
            tally: vec![MemberTally::default(); map.members as usize],
            sink,
        }
    }

    #[inline]
    fn done(&mut self, c: &Completion) {
        if let Some(&(m, t0, read, len)) = self.slots.get(c.tag as usize) {
            self.tally[m as usize].count(
                read,
                u64::from(len),
                c.sync_done_ns.max(c.io_done_ns).saturating_sub(t0),
            );
        }
    }
}

impl<E> Drop for StripedEngine<E> {
    fn drop(&mut self) {
        // A poisoned lock means another thread panicked: its run is lost
        // anyway, and this one's tallies with it.
        if let Ok(mut all) = self.sink.lock() {
            if all.len() < self.tally.len() {
                all.resize(self.tally.len(), MemberTally::default());
            }
            for (a, b) in all.iter_mut().zip(&self.tally) {
                a.add(b);
            }
        }
    }
}

impl<E: Engine> Engine for StripedEngine<E> {
    #[inline]
    unsafe fn queue(&mut self, req: &IoRequest) -> Result<Queued, EngineError> {
        let (file, offset) = self.map.locate(req.offset);
        if let Some(s) = self.slots.get_mut(req.tag as usize) {
            *s = (file, now_ns(), req.dir == Dir::Read, req.len);
        }
        let r = IoRequest { offset, ..*req };
        // SAFETY: the caller's contract is queue's; only the offset changed.
        match unsafe { self.inner.queue_on(file, &r) }? {
            Queued::Done(c) => {
                self.done(&c);
                Ok(Queued::Done(c))
            }
            Queued::InFlight => Ok(Queued::InFlight),
        }
    }

    #[inline]
    fn commit(&mut self) -> Result<(), EngineError> {
        self.inner.commit()
    }

    #[inline]
    fn reap(&mut self, min: u32, out: &mut Vec<Completion>) -> Result<(), EngineError> {
        let from = out.len();
        let r = self.inner.reap(min, out);
        for c in &out[from..] {
            self.done(c);
        }
        r
    }
}

/// A striped job's members and layout, checked before any I/O.
#[derive(Debug, Clone)]
pub struct StripePlan {
    /// The translation.
    pub map: StripeMap,
    /// Each member's target, in `--targets` order (the job's own
    /// `target` is the first).
    pub members: Vec<TargetSpec>,
}

/// Checks a striped job: the `job` resolved on the first member, and the
/// members' paths. Sizes the members (the job's `--size` is the logical
/// size, split evenly and rounded down to whole stripe units) and gives
/// every member the first one's rules (overwrite, block devices, keep).
pub fn plan(
    job: &mut Job,
    paths: &[PathBuf],
    layout: StripeLayout,
    unit: u64,
) -> Result<StripePlan, EngineError> {
    let invalid = |m: String| Err(EngineError::Invalid(m));
    let bs = job.config.bs;
    let Some(first) = job.target.clone() else {
        return invalid("the null engine does no I/O, so --targets has nothing to stripe".into());
    };
    if paths.len() < 2 {
        return invalid(format!(
            "--targets needs at least two targets to stripe over (got {})",
            paths.len()
        ));
    }
    if paths.len() > MAX_MEMBERS {
        return invalid(format!(
            "--targets names {} targets; at most {MAX_MEMBERS} are supported",
            paths.len()
        ));
    }
    for (i, a) in paths.iter().enumerate() {
        if let Some(b) = paths[..i].iter().find(|b| same_place(a, b)) {
            return invalid(format!(
                "--targets names {} twice (as {} and {}); each member of a stripe must be a different file or device",
                a.display(),
                b.display(),
                a.display()
            ));
        }
    }
    let devices = paths.iter().filter(|p| is_block_device(p)).count();
    if devices > 0 && devices < paths.len() {
        return invalid(
            "--targets mixes block devices and files; a stripe's members must be all devices or all files (their caching and alignment differ)"
                .into(),
        );
    }
    if unit == 0 || !unit.is_multiple_of(bs) {
        return invalid(format!(
            "--stripe {} is not a multiple of --bs {}: an I/O would straddle two targets",
            format_bytes(unit),
            format_bytes(bs)
        ));
    }
    let k = paths.len() as u64;
    // Both layouts give each member a whole number of stripe units (for
    // concat the unit is only the granule of the split), so a sweep over
    // block sizes lays out the same members for every job.
    let member_size = job.config.size / k / unit * unit;
    if member_size == 0 {
        return invalid(format!(
            "--size {} is too small to give each of {k} targets one stripe unit of {}",
            format_bytes(job.config.size),
            format_bytes(unit)
        ));
    }
    let map = StripeMap {
        layout,
        unit: if layout == StripeLayout::Raid0 {
            unit
        } else {
            member_size
        },
        member_size,
        members: k as u32,
    };
    if !job.config.rw.is_random() && map.logical_size() / bs < u64::from(job.config.threads) {
        return invalid(format!(
            "the stripe holds fewer blocks than there are --threads ({})",
            job.config.threads
        ));
    }
    job.config.size = map.logical_size();
    let members: Vec<TargetSpec> = paths
        .iter()
        .map(|p| TargetSpec {
            path: p.clone(),
            size: member_size,
            ..first.clone()
        })
        .collect();
    job.target = Some(members[0].clone());
    job.target_name = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(",");
    Ok(StripePlan { map, members })
}

/// Whether two paths name the same place: the same text once normalised,
/// or, for what exists, the same device and inode.
fn same_place(a: &std::path::Path, b: &std::path::Path) -> bool {
    let norm = |p: &std::path::Path| p.components().collect::<PathBuf>();
    if norm(a) == norm(b) {
        return true;
    }
    match (rustix::fs::stat(a), rustix::fs::stat(b)) {
        (Ok(x), Ok(y)) => {
            let block = |s: &rustix::fs::Stat| {
                rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::BlockDevice
            };
            if block(&x) && block(&y) {
                x.st_rdev == y.st_rdev
            } else {
                x.st_dev == y.st_dev && x.st_ino == y.st_ino
            }
        }
        _ => false,
    }
}

fn is_block_device(p: &std::path::Path) -> bool {
    rustix::fs::stat(p).is_ok_and(|s| {
        rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::BlockDevice
    })
}

/// Prepares every member with [`Target::prepare`]; when one fails, the
/// members already prepared are discarded (what dbio created for them is
/// removed, named files included) and the error stands.
pub fn prepare_members(
    specs: &[TargetSpec],
    stop: &AtomicBool,
) -> Result<Vec<Target>, EngineError> {
    let mut out: Vec<Target> = Vec::with_capacity(specs.len());
    for s in specs {
        match Target::prepare(s, stop) {
            Ok(t) => out.push(t),
            Err(e) => {
                for t in out {
                    t.discard();
                }
                return Err(e);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raid0_walks_the_members_unit_by_unit() {
        let m = StripeMap {
            layout: StripeLayout::Raid0,
            unit: 1 << 20,
            member_size: 4 << 20,
            members: 3,
        };
        assert_eq!(m.locate(0), (0, 0));
        assert_eq!(m.locate((1 << 20) + 8192), (1, 8192));
        assert_eq!(m.locate(2 << 20), (2, 0));
        assert_eq!(m.locate(3 << 20), (0, 1 << 20));
        assert_eq!(m.locate((7 << 20) + 4096), (1, (2 << 20) + 4096));
        // Every logical unit lands on exactly one (member, unit) pair.
        let mut seen = std::collections::HashSet::new();
        for u in 0..m.logical_size() / m.unit {
            let (t, o) = m.locate(u * m.unit);
            assert!(o < m.member_size);
            assert!(seen.insert((t, o)));
        }
    }

    #[test]
    fn a_logical_prefix_is_a_prefix_of_each_member() {
        let m = StripeMap {
            layout: StripeLayout::Raid0,
            unit: 1 << 20,
            member_size: 4 << 20,
            members: 3,
        };
        // 4.5 units: units 0..3 on members 0,1,2,0, half of unit 4 on 1.
        let logical = (4 << 20) + (1 << 19);
        let per: Vec<u64> = (0..3).map(|i| m.member_prefix(logical, i)).collect();
        assert_eq!(per, vec![2 << 20, (1 << 20) + (1 << 19), 1 << 20]);
        assert_eq!(per.iter().sum::<u64>(), logical);
        // Brute force: count the logical bytes each member holds.
        for logical in [0, 4096, 3 << 20, (7 << 20) + 8192, 12 << 20, 13 << 20] {
            let mut want = [0u64; 3];
            let mut off = 0;
            while off < logical.min(m.logical_size()) {
                want[m.locate(off).0 as usize] += 4096;
                off += 4096;
            }
            let got: Vec<u64> = (0..3).map(|i| m.member_prefix(logical, i)).collect();
            assert_eq!(got, want.to_vec(), "{logical}");
        }
        let c = StripeMap {
            layout: StripeLayout::Concat,
            unit: 4 << 20,
            ..m
        };
        assert_eq!(
            (0..3)
                .map(|i| c.member_prefix(5 << 20, i))
                .collect::<Vec<_>>(),
            vec![4 << 20, 1 << 20, 0]
        );
        assert_eq!(m.blocks_to_unit_end(0, 8192), 128);
        assert_eq!(m.blocks_to_unit_end(130, 8192), 126);
    }

    #[test]
    fn concat_fills_one_member_after_the_other() {
        let m = StripeMap {
            layout: StripeLayout::Concat,
            unit: 1 << 20,
            member_size: 1 << 20,
            members: 2,
        };
        assert_eq!(m.locate(4096), (0, 4096));
        assert_eq!(m.locate((1 << 20) + 4096), (1, 4096));
    }
}
