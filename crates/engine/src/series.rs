//! Per-second series for the models that run their own threads (`lgwr`,
//! `dbwr`, `load`): per-thread probes that a sampler thread reads once a
//! second.
//!
//! Why this shape: the measuring threads must neither block nor allocate
//! for the series. Each thread owns one [`Probe`] (its own cache lines)
//! and is its only writer, so an update is a relaxed load and store (a
//! plain `mov` on x86_64, no locked instruction) into preallocated
//! counters and log-linear latency buckets ([`crate::live`]); where
//! several threads take turns on one probe (a leader under a lock), the
//! lock orders their updates. The sampler thread sums the probes every
//! second and keeps the differences: it alone allocates, and nothing waits
//! for it.
//!
//! Error bounds: counts are exact, but a snapshot is not atomic across
//! threads, so an event that completes while the sampler reads may land in
//! the next second (rates per second can move by one event per thread
//! between neighbouring seconds; their sum is exact). Rates divide by the
//! interval's measured length. Percentiles are the upper edge of the
//! log-linear bucket holding the rank, within 12.5 % of the true value
//! (8 sub-buckets per power of two). The final statistics of a result come
//! from its HDR histograms, not from these. An interval shorter than half a
//! second at the end of a run is dropped (too short to be a rate one can
//! compare); the first interval starts when the run released its threads
//! and counts everything since its probes were made.

use crate::clock::now_ns;
use crate::live::{live_bucket, live_bucket_upper, LIVE_BUCKETS};
use crate::runner::{Counted, Progress, ProgressInfo};
use dbio_model::series::{Series, SeriesUnit};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Counters per probe.
pub const COUNTS: usize = 4;

/// One thread's counters and latency buckets, on their own cache lines.
#[repr(align(128))]
pub struct Probe {
    counts: [AtomicU64; COUNTS],
    buckets: Box<[AtomicU64]>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            counts: Default::default(),
            buckets: (0..LIVE_BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

#[inline]
fn bump(a: &AtomicU64, by: u64) {
    a.store(a.load(Relaxed).wrapping_add(by), Relaxed);
}

impl Probe {
    /// Adds `n` to counter `i` (< [`COUNTS`]). Only its owner may call it.
    #[inline]
    pub fn add(&self, i: usize, n: u64) {
        if let Some(c) = self.counts.get(i) {
            bump(c, n);
        }
    }

    /// Records one latency, ns. Only its owner may call it.
    #[inline]
    pub fn latency(&self, ns: u64) {
        bump(&self.buckets[live_bucket(ns)], 1);
    }
}

/// The probes of one run, made before its threads start.
pub struct Probes {
    probes: Vec<Probe>,
    claimed: AtomicUsize,
}

impl Probes {
    /// `n` probes.
    pub fn new(n: usize) -> Self {
        Probes {
            probes: (0..n).map(|_| Probe::default()).collect(),
            claimed: AtomicUsize::new(0),
        }
    }

    /// Probe `i` (None past the end: the thread then records no series).
    pub fn get(&self, i: usize) -> Option<&Probe> {
        self.probes.get(i)
    }

    /// The next unclaimed probe below index `below`, for threads that do
    /// not know their index (None once those are taken).
    pub fn claim(&self, below: usize) -> Option<&Probe> {
        let i = self.claimed.fetch_add(1, Relaxed);
        self.probes[..below.min(self.probes.len())].get(i)
    }

    /// Number of probes.
    pub fn len(&self) -> usize {
        self.probes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.probes.is_empty()
    }

    /// Counter `i` summed over every probe (relaxed reads: it may lag by
    /// an event per thread).
    pub fn total(&self, i: usize) -> u64 {
        self.probes
            .iter()
            .filter_map(|p| p.counts.get(i))
            .fold(0u64, |a, c| a.wrapping_add(c.load(Relaxed)))
    }

    /// Sums every probe's latency buckets into `out` (length
    /// [`LIVE_BUCKETS`]), for a caller that samples on its own schedule.
    pub fn buckets_into(&self, out: &mut [u64]) {
        out.iter_mut().for_each(|b| *b = 0);
        for p in &self.probes {
            for (a, b) in out.iter_mut().zip(p.buckets.iter()) {
                *a += b.load(Relaxed);
            }
        }
    }

    fn snapshot(&self, counts: &mut [u64; COUNTS], buckets: &mut [u64]) {
        *counts = [0; COUNTS];
        buckets.iter_mut().for_each(|b| *b = 0);
        for p in &self.probes {
            for (a, c) in counts.iter_mut().zip(&p.counts) {
                *a += c.load(Relaxed);
            }
            for (a, b) in buckets.iter_mut().zip(p.buckets.iter()) {
                *a += b.load(Relaxed);
            }
        }
    }
}

/// One sampled interval: the counters' and the latency buckets' changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tick {
    /// End of the interval, seconds since the sampler started.
    pub t_s: f64,
    /// Its measured length, seconds.
    pub dt_s: f64,
    /// How much each counter grew.
    pub counts: [u64; COUNTS],
    /// Latencies recorded in the interval: (bucket, count), non-empty
    /// buckets only, in bucket order.
    pub buckets: Vec<(u16, u64)>,
}

impl Tick {
    /// Counter `i` per second.
    pub fn rate(&self, i: usize) -> f64 {
        self.counts[i] as f64 / self.dt_s.max(1e-9)
    }

    /// The latency quantile `q` (0..1) of the interval, ns (None when no
    /// latency was recorded).
    pub fn quantile(&self, q: f64) -> Option<u64> {
        quantile(&self.buckets, q, |_| true)
    }
}

/// The quantile `q` of the sparse buckets whose upper edge passes `keep`:
/// the upper edge of the bucket holding the rank, ns.
pub fn quantile(buckets: &[(u16, u64)], q: f64, keep: impl Fn(u64) -> bool) -> Option<u64> {
    let kept = || {
        buckets
            .iter()
            .map(|&(b, n)| (live_bucket_upper(b as usize), n))
            .filter(|&(up, _)| keep(up))
    };
    let total: u64 = kept().map(|(_, n)| n).sum();
    if total == 0 {
        return None;
    }
    let rank = ((q * total as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (up, n) in kept() {
        seen += n;
        if seen >= rank {
            return Some(up);
        }
    }
    None
}

/// The non-empty differences of two bucket arrays.
pub fn sparse_diff(now: &[u64], before: &[u64]) -> Vec<(u16, u64)> {
    now.iter()
        .zip(before)
        .enumerate()
        .filter(|(_, (a, b))| a > b)
        .map(|(i, (a, b))| (i as u16, a - b))
        .collect()
}

/// Samples `probes` once a second from `t0_ns` (monotonic, when the
/// measuring threads were released) until `done` is raised; run it on a
/// thread of its own. The first interval counts everything since the
/// probes were made (fresh probes: the run), however late this thread
/// starts. The interval in progress when `done` rises is kept when it is
/// at least half a second long.
pub fn sample(probes: &Probes, done: &AtomicBool, t0_ns: u64) -> Vec<Tick> {
    let mut ticks = Vec::new();
    let (mut c0, mut b0) = ([0u64; COUNTS], vec![0u64; LIVE_BUCKETS]);
    let (mut c1, mut b1) = ([0u64; COUNTS], vec![0u64; LIVE_BUCKETS]);
    let t0 = t0_ns;
    let mut from = t0;
    loop {
        let next = from + 1_000_000_000;
        while !done.load(Relaxed) && now_ns() < next {
            let left = next.saturating_sub(now_ns()).clamp(1, 10_000_000);
            std::thread::sleep(std::time::Duration::from_nanos(left));
        }
        let finished = done.load(Relaxed);
        let now = now_ns().max(from);
        if finished && now - from < 500_000_000 {
            break;
        }
        probes.snapshot(&mut c1, &mut b1);
        let mut counts = [0; COUNTS];
        for i in 0..COUNTS {
            counts[i] = c1[i].wrapping_sub(c0[i]);
        }
        ticks.push(Tick {
            t_s: (now - t0) as f64 / 1e9,
            dt_s: (now - from) as f64 / 1e9,
            counts,
            buckets: sparse_diff(&b1, &b0),
        });
        std::mem::swap(&mut c0, &mut c1);
        std::mem::swap(&mut b0, &mut b1);
        from = now;
        if finished {
            break;
        }
    }
    ticks
}

/// What a model's run plans, for its progress display.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plan {
    /// Planned seconds, for a timed run.
    pub planned_s: Option<f64>,
    /// Planned operations, for a count-based run.
    pub ops_planned: Option<u64>,
    /// The probe counter that counts the operations.
    pub counter: usize,
    /// What they are.
    pub counted: Counted,
}

/// Tells `progress` ten times a second where a model's run is, from
/// counter `plan.counter` of `probes` (fresh probes: everything they
/// counted is the run's), from `t0_ns` until `done` rises; run it on a
/// thread of its own. Only this thread reads the counters
/// for it and formats nothing: the measuring threads do no more than
/// for the series.
pub fn report_progress(
    probes: &Probes,
    done: &AtomicBool,
    t0_ns: u64,
    plan: Plan,
    progress: &dyn Progress,
) {
    const TICK_NS: u64 = 100_000_000;
    let (mut last_ops, mut last_t) = (0u64, t0_ns);
    while !done.load(Relaxed) {
        let next = last_t + TICK_NS;
        while !done.load(Relaxed) && now_ns() < next {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let now = now_ns();
        let ops = probes.total(plan.counter);
        let dt = now.saturating_sub(last_t).max(1) as f64 / 1e9;
        progress.update(&ProgressInfo {
            elapsed_s: now.saturating_sub(t0_ns) as f64 / 1e9,
            planned_s: plan.planned_s,
            ops_done: ops,
            ops_planned: plan.ops_planned,
            iops: ops.saturating_sub(last_ops) as f64 / dt,
            bytes_per_sec: 0.0,
            warming_up: false,
            counted: plan.counted,
        });
        (last_ops, last_t) = (ops, now);
    }
}

/// Appends `more` to `ticks`, shifted to start `offset_s` seconds later
/// (rounds of one configuration, end to end).
pub fn append(ticks: &mut Vec<Tick>, more: &[Tick], offset_s: f64) {
    ticks.extend(more.iter().map(|t| Tick {
        t_s: t.t_s + offset_s,
        ..t.clone()
    }));
}

/// A series of `f` over `ticks`.
pub fn series_of(
    ticks: &[Tick],
    name: &str,
    unit: SeriesUnit,
    f: impl Fn(&Tick) -> Option<f64>,
) -> Series {
    let mut s = Series::new(name, unit);
    for t in ticks {
        s.push(t.t_s, f(t));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every report it is given.
    struct Seen(std::sync::Mutex<Vec<ProgressInfo>>);

    impl Progress for Seen {
        fn update(&self, info: &ProgressInfo) {
            self.0.lock().unwrap().push(*info);
        }
    }

    #[test]
    fn progress_counts_what_the_run_s_probes_counted() {
        let probes = Probes::new(2);
        probes.get(0).unwrap().add(0, 5);
        let done = AtomicBool::new(false);
        let seen = Seen(Default::default());
        let plan = Plan {
            planned_s: Some(10.0),
            counter: 0,
            counted: Counted::Commits,
            ..Plan::default()
        };
        std::thread::scope(|s| {
            s.spawn(|| report_progress(&probes, &done, now_ns(), plan, &seen));
            probes.get(1).unwrap().add(0, 3);
            probes.get(1).unwrap().add(1, 100);
            std::thread::sleep(std::time::Duration::from_millis(250));
            done.store(true, Relaxed);
        });
        let seen = seen.0.into_inner().unwrap();
        let last = seen.last().expect("reported at least once");
        assert_eq!(last.ops_done, 8);
        assert_eq!(last.counted, Counted::Commits);
        assert_eq!(last.planned_s, Some(10.0));
        assert!(last.elapsed_s > 0.1, "{}", last.elapsed_s);
    }

    #[test]
    fn a_step_is_placed_within_the_whole() {
        let whole = Seen(Default::default());
        let step = crate::runner::Spanned {
            inner: &whole,
            done_s: 2.0,
            total_s: 8.0,
        };
        let info = |elapsed_s| ProgressInfo {
            elapsed_s,
            planned_s: Some(2.0),
            ops_done: 0,
            ops_planned: None,
            iops: 0.0,
            bytes_per_sec: 0.0,
            warming_up: false,
            counted: Counted::Ios,
        };
        step.update(&info(1.0));
        // A step that runs over its plan is counted at its plan.
        step.update(&info(5.0));
        // A step is shown where its whole is; nothing is started for a
        // whole that shows nothing.
        assert!(step.shown());
        let hidden = crate::runner::Spanned {
            inner: &crate::runner::NoProgress,
            done_s: 0.0,
            total_s: 1.0,
        };
        assert!(!hidden.shown());
        let seen = whole.0.into_inner().unwrap();
        assert_eq!(seen[0].elapsed_s, 3.0);
        assert_eq!(seen[0].planned_s, Some(8.0));
        assert_eq!(seen[1].elapsed_s, 4.0);
    }

    #[test]
    fn the_sampler_sees_what_the_threads_counted_and_stops_when_told() {
        let probes = Probes::new(2);
        let done = AtomicBool::new(false);
        let t0 = now_ns();
        let ticks = std::thread::scope(|s| {
            let h = s.spawn(|| sample(&probes, &done, t0));
            let a = probes.claim(2).unwrap();
            let b = probes.claim(2).unwrap();
            assert!(probes.claim(2).is_none());
            for v in 1..=100u64 {
                a.add(0, 1);
                a.latency(v * 1000);
                b.add(1, 2);
            }
            std::thread::sleep(std::time::Duration::from_millis(1100));
            done.store(true, Relaxed);
            h.join().unwrap()
        });
        // One whole second; the 0.1 s after it is too short to keep.
        assert_eq!(ticks.len(), 1, "{ticks:?}");
        let c0: u64 = ticks.iter().map(|t| t.counts[0]).sum();
        let c1: u64 = ticks.iter().map(|t| t.counts[1]).sum();
        assert_eq!((c0, c1), (100, 200));
        let first = &ticks[0];
        assert!(first.dt_s >= 0.99, "{first:?}");
        let p50 = first.quantile(0.5).unwrap();
        assert!((50_000..=56_250).contains(&p50), "{p50}");
        assert!(quantile(&first.buckets, 0.5, |up| up > 1_000_000).is_none());
    }

    #[test]
    fn appended_rounds_follow_each_other() {
        let t = Tick {
            t_s: 1.0,
            dt_s: 1.0,
            ..Tick::default()
        };
        let mut all = vec![t.clone()];
        append(&mut all, &[t], 2.0);
        let s = series_of(&all, "tps", SeriesUnit::PerSecond, |t| Some(t.rate(0)));
        assert_eq!(s.t_s, vec![1.0, 3.0]);
        assert_eq!(s.values, vec![Some(0.0), Some(0.0)]);
    }
}
