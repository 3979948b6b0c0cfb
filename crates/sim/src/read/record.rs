//! The datafile-read model's recorder: reads split by (class, size), each
//! counted in a page-cache / storage-cache / disk tier by its latency. It
//! lives with the model because tiers are the model's idea; the engine only
//! asks for an [`IoRecord`]. The measurement loop does not allocate for the
//! (class, size) pairs announced up front.

use dbio_engine::recorder::{new_histogram, IoRecord, IoTimes};
use dbio_engine::workload::Io;
use dbio_model::read::{Tier, TierThresholds};
use hdrhistogram::Histogram;

/// Reads of one class and size: count, latency and tier attribution.
#[derive(Clone)]
pub struct ClassStats {
    /// The stream's class.
    pub class: u8,
    /// Bytes per I/O.
    pub len: u32,
    /// I/Os.
    pub ops: u64,
    /// Bytes.
    pub bytes: u64,
    /// Latency from intended start to completion, ns.
    pub lat: Histogram<u64>,
    /// I/Os per tier, in [`Tier::ALL`] order.
    pub tier_count: [u64; 3],
    /// Summed latency per tier, ns.
    pub tier_ns: [u64; 3],
}

impl ClassStats {
    fn new(class: u8, len: u32) -> Self {
        Self {
            class,
            len,
            ops: 0,
            bytes: 0,
            lat: new_histogram(),
            tier_count: [0; 3],
            tier_ns: [0; 3],
        }
    }

    fn merge(&mut self, o: &ClassStats) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.lat.add(&o.lat).expect("same bounds");
        for i in 0..3 {
            self.tier_count[i] += o.tier_count[i];
            self.tier_ns[i] += o.tier_ns[i];
        }
    }
}

/// Records I/Os split by (class, size), each counted in a tier by its exact
/// latency (not the histogram's 1 %-rounded one, so a latency at a
/// threshold lands on the documented side).
#[derive(Clone)]
pub struct ClassRecorder {
    thresholds: TierThresholds,
    /// One entry per (class, size) seen, in first-seen order.
    pub groups: Vec<ClassStats>,
}

impl ClassRecorder {
    /// A recorder classifying tiers with `thresholds`; `expected` (class,
    /// size) pairs are allocated up front so the measurement loop does not
    /// allocate for them.
    pub fn new(thresholds: TierThresholds, expected: &[(u8, u32)]) -> Self {
        let mut groups = Vec::with_capacity(expected.len() + 4);
        for &(c, l) in expected {
            groups.push(ClassStats::new(c, l));
        }
        Self { thresholds, groups }
    }

    /// Records one I/O of `class` and `len` bytes that took `lat_ns`.
    #[inline]
    pub fn record_one(&mut self, class: u8, len: u32, lat_ns: u64) {
        let i = match self
            .groups
            .iter()
            .position(|g| g.class == class && g.len == len)
        {
            Some(i) => i,
            None => {
                // A size not announced up front (a truncated multiblock
                // read): one allocation the first time it occurs.
                self.groups.push(ClassStats::new(class, len));
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[i];
        g.ops += 1;
        g.bytes += u64::from(len);
        g.lat.saturating_record(lat_ns);
        let t = self.thresholds.classify(lat_ns).index();
        g.tier_count[t] += 1;
        g.tier_ns[t] += lat_ns;
    }

    /// Adds another recorder's groups.
    pub fn merge(&mut self, o: &ClassRecorder) {
        for og in &o.groups {
            match self
                .groups
                .iter_mut()
                .find(|g| g.class == og.class && g.len == og.len)
            {
                Some(g) => g.merge(og),
                None => self.groups.push(og.clone()),
            }
        }
    }

    /// The groups with at least one I/O, sorted by class then size.
    pub fn nonempty(&self) -> Vec<&ClassStats> {
        let mut v: Vec<&ClassStats> = self.groups.iter().filter(|g| g.ops > 0).collect();
        v.sort_by_key(|g| (g.class, g.len));
        v
    }

    /// The tier a latency goes to.
    pub fn tier_of(&self, lat_ns: u64) -> Tier {
        self.thresholds.classify(lat_ns)
    }
}

impl IoRecord for ClassRecorder {
    #[inline]
    fn record(&mut self, io: &Io, t: &IoTimes) {
        self.record_one(io.class, io.len, t.io_done - t.intended);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_recorder_counts_tiers_exactly_at_the_boundaries() {
        let th = TierThresholds {
            page_cache_max_ns: 50_000,
            storage_cache_max_ns: 700_000,
            source: "test".into(),
        };
        let mut a = ClassRecorder::new(th.clone(), &[(0, 8192)]);
        let mut b = ClassRecorder::new(th, &[(0, 8192)]);
        for lat in [49_999, 50_000, 699_999, 700_000, 1] {
            a.record_one(0, 8192, lat);
        }
        b.record_one(1, 131_072, 50_000);
        b.record_one(1, 65_536, 5);
        a.merge(&b);
        let g = a.nonempty();
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].class, g[0].len, g[0].ops), (0, 8192, 5));
        assert_eq!(g[0].tier_count, [2, 2, 1]);
        assert_eq!(g[0].tier_ns, [50_000, 749_999, 700_000]);
        assert_eq!(g[0].bytes, 5 * 8192);
        assert_eq!((g[1].len, g[1].tier_count), (65_536, [1, 0, 0]));
        assert_eq!((g[2].len, g[2].tier_count), (131_072, [0, 1, 0]));
        assert_eq!(g[2].lat.len(), 1);
    }
}
