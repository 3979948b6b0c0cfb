//! Datafile reads with cache tiers (`dbio read`, issue 4).
//!
//! A database reads its datafiles in two ways: one block at a random place
//! ('db file sequential read') and several adjacent blocks of a scan ('db
//! file scattered read'). Whether such a "physical" read touched a device
//! is invisible to the database; Kyle Hailey's "Oracle 'Physical I/O'? not
//! always physical" shows the same query averaging 9 ms on one
//! database and 5 ms on another only because the OS had cached more of the
//! second one, visible as a tri-modal latency histogram. This module runs
//! such a read mix on a real file through dbio's engines and worker loop
//! ([`dbio_engine::runner::run_workers`]) in explicit cache states, counts
//! every read in a tier by its latency, and runs several cache states in
//! interleaved rounds so that they can be compared side by side.
//!
//! Flow: a [`ReadConfig`] (the model's, also the result's echo), the tier
//! thresholds and the [`CacheState`]s → for each round, for each
//! state: [`cache::prepare`], then [`ReadRun::round`] → [`ReadRun::finish`]
//! gives one [`ReadResult`] per state.
//!
//! A striped datafile (`--targets`) runs over every member through the
//! same loop: scans are cut at stripe-unit ends ([`mix::ReadMix::with_unit`]),
//! a cache state is the same prefix of the logical file on each member,
//! and each member's reads are counted beside the totals.

pub mod attribute;
pub mod cache;
pub mod datafile;
pub mod mix;
pub mod record;
pub mod rounds;

use dbio_engine::live::live_bucket_upper;
use dbio_engine::runner::{cpu_usage, run_workers_on, Control, Progress, RunParams};
use dbio_engine::rusage::Usage;
use dbio_engine::series::quantile;
use dbio_engine::stripe::{MemberTally, StripeMap, StripeRecorder};
use dbio_engine::target::Target;
use dbio_engine::workload::BlockPicker;
use dbio_engine::EngineError;
use dbio_model::read::Tier;
use dbio_model::read::{
    ReadConfig, ReadGroup, ReadKind, ReadResult, TierAttribution, TierSplit, TierThresholds,
};
use dbio_model::series::{Series, SeriesUnit};
use dbio_model::units::format_bytes;
use dbio_model::EngineKind;
use dbio_model::{DiskStatsDelta, Durability, LatencySummary, PageCacheResidency, SecondSample};
use hdrhistogram::Histogram;
use mix::ReadMix;
use record::{ClassRecorder, ClassStats};

/// Largest multiblock read: 8 MiB, the engine's largest I/O (Oracle's
/// multiblock reads stop at 1 MiB on most platforms).
pub const MAX_MULTIBLOCK_BYTES: u64 = 8 << 20;

/// Checks a read configuration; one sentence naming the options on error.
pub fn validate(cfg: &ReadConfig) -> Result<(), String> {
    let bs = cfg.bs;
    if !(512..=(1 << 20)).contains(&bs) || !bs.is_power_of_two() {
        return Err(format!(
            "--bs must be a power of two between 512 B and 1 MiB, not {}",
            format_bytes(bs)
        ));
    }
    if cfg.multiblock_count == 0 {
        return Err("--multiblock-count must be at least 1".into());
    }
    if bs * u64::from(cfg.multiblock_count) > MAX_MULTIBLOCK_BYTES {
        return Err(format!(
            "--multiblock-count {} × --bs {} exceeds the largest read, {}",
            cfg.multiblock_count,
            format_bytes(bs),
            format_bytes(MAX_MULTIBLOCK_BYTES)
        ));
    }
    if cfg.multiblock_pct > 100 {
        return Err("--multiblock-pct must be between 0 and 100".into());
    }
    if cfg.size / bs < u64::from(cfg.threads.max(1)) {
        return Err(format!(
            "--size {} holds fewer blocks than there are --threads ({})",
            format_bytes(cfg.size),
            cfg.threads
        ));
    }
    if cfg.threads == 0 || cfg.threads > 1024 {
        return Err("--threads must be between 1 and 1024".into());
    }
    if cfg.rounds == 0 || cfg.rounds > 1000 {
        return Err("--rounds must be between 1 and 1000".into());
    }
    if cfg.iodepth == 0 || cfg.iodepth > 1024 {
        return Err("--iodepth must be between 1 and 1024".into());
    }
    if cfg.runtime_ns == Some(0) {
        return Err("--runtime must be a positive number of seconds".into());
    }
    // Every thread holds iodepth buffers of the largest read.
    let buffers = u64::from(cfg.threads) * u64::from(cfg.iodepth) * cfg.max_read();
    if buffers > 64 << 20 {
        dbio_engine::buf::check_memory(
            buffers,
            &format!(
                "--threads {} × --iodepth {} × reads of {}",
                cfg.threads,
                cfg.iodepth,
                format_bytes(cfg.max_read())
            ),
        )?;
    }
    if let Some(ops) = cfg.ops_limit {
        if ops < u64::from(cfg.threads) {
            return Err(format!(
                "--ops {ops} is fewer than one read per thread ({} threads)",
                cfg.threads
            ));
        }
    }
    Ok(())
}

/// A cache state to measure in.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheState {
    /// Row label (`cold`, `warm`, `cached=30%`).
    pub name: String,
    /// Share of the file brought into the cache first, percent.
    pub cached_pct: f64,
}

impl CacheState {
    /// Parses `cold` (0 %), `warm` (100 %) or a percentage such as `30%`.
    pub fn parse(s: &str) -> Result<CacheState, String> {
        let t = s.trim();
        let pct = match t {
            "cold" => 0.0,
            "warm" | "hot" => 100.0,
            _ => {
                let v: f64 = t.trim_end_matches('%').parse().map_err(|_| {
                    format!(
                        "'{s}' is not a cache state (use cold, warm or a percentage such as 30%)"
                    )
                })?;
                if !(0.0..=100.0).contains(&v) {
                    return Err(format!("'{s}': a cached share must be between 0% and 100%"));
                }
                v
            }
        };
        let name = match t {
            "cold" | "warm" => t.to_string(),
            "hot" => "warm".into(),
            _ => format!("cached={}%", pct),
        };
        Ok(CacheState {
            name,
            cached_pct: pct,
        })
    }
}

/// What one state has accumulated over its rounds.
struct Acc {
    state: CacheState,
    rec: Option<ClassRecorder>,
    runtime_ns: u64,
    usage: Usage,
    device: Option<DiskStatsDelta>,
    cached_before: Option<PageCacheResidency>,
    cached_after: Option<PageCacheResidency>,
    /// The runner's per-second samples with their latency buckets, rounds
    /// end to end.
    seconds: Vec<(SecondSample, Vec<(u16, u64)>)>,
    /// A stripe's members: what each did, rounds together.
    members: Vec<MemberTally>,
    /// Each member's disk counters, rounds together.
    member_devices: Vec<Option<DiskStatsDelta>>,
}

/// A multi-state, multi-round read measurement in progress.
pub struct ReadRun {
    cfg: ReadConfig,
    thresholds: TierThresholds,
    picker: BlockPicker,
    accs: Vec<Acc>,
    /// A stripe's translation and its members' paths (from the first
    /// round on).
    stripe: Option<(StripeMap, Vec<String>)>,
}

impl ReadRun {
    /// Prepares the accumulators (and the access distribution, O(blocks)
    /// for zipf) for `states`; reads are counted in the tiers of
    /// `thresholds`.
    pub fn new(cfg: ReadConfig, thresholds: TierThresholds, states: &[CacheState]) -> Self {
        let picker = BlockPicker::new(cfg.distribution, cfg.blocks());
        let accs = states
            .iter()
            .map(|s| Acc {
                state: s.clone(),
                rec: None,
                runtime_ns: 0,
                usage: Usage::default(),
                device: None,
                cached_before: None,
                cached_after: None,
                seconds: Vec::new(),
                members: Vec::new(),
                member_devices: Vec::new(),
            })
            .collect();
        Self {
            cfg,
            thresholds,
            picker,
            accs,
            stripe: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ReadConfig {
        &self.cfg
    }

    /// The measured time of one state in one round, ns: the run time
    /// split evenly over the rounds.
    pub fn round_runtime_ns(&self) -> Option<u64> {
        self.cfg
            .runtime_ns
            .map(|r| r / u64::from(self.cfg.rounds.max(1)))
    }

    /// Puts the target into state `state`'s cache state and runs one round
    /// of it. `targets` is empty only for the null engine; several are the
    /// members of a stripe laid out by `stripe` (the cached share is of
    /// the logical file, which is a prefix of each member).
    pub fn round(
        &mut self,
        state: usize,
        round: u32,
        targets: &[&Target],
        stripe: Option<StripeMap>,
        control: &Control,
        progress: &dyn Progress,
    ) -> Result<(), EngineError> {
        let cfg = &self.cfg;
        let page = 4096u64.max(cfg.bs);
        let bytes = cache::cached_bytes(cfg.size, self.accs[state].state.cached_pct, page);
        for (i, t) in targets.iter().enumerate() {
            let (size, share) = match stripe {
                Some(m) => (m.member_size, m.member_prefix(bytes, i as u32)),
                None => (cfg.size, bytes),
            };
            cache::prepare(t, size, share, cfg.direct, &control.stop)?;
        }
        if let Some(m) = stripe {
            let paths = targets
                .iter()
                .map(|t| t.path.display().to_string())
                .collect();
            self.stripe = Some((m, paths));
        }
        let p = RunParams {
            engine: cfg.engine,
            iodepth: cfg.iodepth,
            iodepth_batch: 1,
            threads: cfg.threads,
            buf_len: cfg.max_read() as usize,
            sync: Durability::None,
            warmup_ns: 0,
            runtime_ns: if cfg.ops_limit.is_some() {
                None
            } else {
                self.round_runtime_ns()
            },
            ops_limit: cfg.ops_limit,
            rate_iops: None,
            null_delay_ns: 0,
            seed: cfg.seed,
        };
        let expected = [
            (ReadKind::Single.class(), cfg.bs as u32),
            (ReadKind::Multi.class(), cfg.max_read() as u32),
        ];
        let seed = cfg.seed.wrapping_add(u64::from(round));
        let picker = &self.picker;
        let make = |i: u32| {
            let mix = ReadMix::new(
                picker.clone(),
                cfg.bs,
                cfg.multiblock_count,
                cfg.multiblock_pct,
                seed,
                i,
                cfg.threads,
            );
            (
                match stripe {
                    Some(m) => mix.with_unit(m.unit / cfg.bs),
                    None => mix,
                },
                StripeRecorder::new(
                    ClassRecorder::new(
                        if self.cfg.direct {
                            self.thresholds.without_page_cache()
                        } else {
                            self.thresholds.clone()
                        },
                        &expected,
                    ),
                    stripe,
                ),
            )
        };
        let targets_before = stripe.and_then(|_| residency(targets));
        let out = run_workers_on(&p, targets, stripe, control, progress, &make)?;
        let acc = &mut self.accs[state];
        for r in &out.recorders {
            match &mut acc.rec {
                Some(a) => a.merge(&r.inner),
                None => acc.rec = Some(r.inner.clone()),
            }
            if acc.members.len() < r.members.len() {
                acc.members.resize(r.members.len(), MemberTally::default());
            }
            for (a, b) in acc.members.iter_mut().zip(&r.members) {
                a.add(b);
            }
        }
        if stripe.is_some() {
            acc.member_devices.resize(out.devices.len(), None);
            for (a, b) in acc.member_devices.iter_mut().zip(&out.devices) {
                *a = match (a.take(), b) {
                    (Some(a), Some(b)) => Some(add_disk(a, b)),
                    (a, b) => a.or(b.clone()),
                };
            }
        }
        let offset_s = acc.seconds.last().map_or(0.0, |(s, _)| s.t_s);
        for (s, b) in out.series.iter().zip(out.second_buckets) {
            let s = SecondSample {
                t_s: s.t_s + offset_s,
                ..*s
            };
            acc.seconds.push((s, b));
        }
        acc.runtime_ns += out.runtime_ns;
        acc.usage = acc.usage.plus(&out.usage);
        acc.device = match (acc.device.take(), out.device) {
            (Some(a), Some(b)) => Some(add_disk(a, &b)),
            (a, b) => a.or(b),
        };
        // The runner reads the first target's residency; a stripe's is
        // every member's together.
        let (before, after) = match stripe {
            Some(_) => (targets_before, residency(targets)),
            None => (out.cached_before, out.cached_after),
        };
        if acc.cached_before.is_none() {
            acc.cached_before = before;
        }
        acc.cached_after = after;
        match out.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The latency of every read of state `state` so far (None before its
    /// first round).
    pub fn histogram(&self, state: usize) -> Option<Histogram<u64>> {
        let rec = self.accs.get(state)?.rec.as_ref()?;
        let mut h = dbio_engine::recorder::new_histogram();
        for g in &rec.groups {
            h.add(&g.lat).expect("same bounds");
        }
        Some(h)
    }

    /// One result per state (states that never ran are left out).
    pub fn finish(self, target: &str) -> Vec<ReadResult> {
        self.finish_attributed(target, None)
    }

    /// As [`ReadRun::finish`], with the tiers attributed by `att` (its
    /// `direct` is this run's) instead of the configured thresholds.
    pub fn finish_attributed(self, target: &str, att: Option<&TierAttribution>) -> Vec<ReadResult> {
        let (cfg, thresholds, stripe) = (self.cfg, self.thresholds, self.stripe);
        let att = att.map(|a| TierAttribution {
            direct: cfg.direct,
            ..a.clone()
        });
        self.accs
            .into_iter()
            .filter_map(|a| {
                let rec = a.rec?;
                let members = stripe.as_ref().map(|(m, paths)| {
                    dbio_engine::stripe::result(m, &a.members, paths, &a.member_devices)
                });
                Some(
                    build(
                        &cfg,
                        &thresholds,
                        target,
                        a.state,
                        &rec,
                        a.runtime_ns,
                        a.usage,
                        a.device,
                        a.cached_before,
                        a.cached_after,
                        att.as_ref(),
                    )
                    .with_series(&a.seconds)
                    .with_stripe(members),
                )
            })
            .collect()
    }
}

/// The per-second series of a state: reads per second and the total
/// latency's p50 and p99 (the runner's samples), then per tier its reads
/// per second and p50 and p99.
///
/// A tier's share of a second is read from the runner's log-linear
/// buckets, each counted in the tier of its upper edge: reads in the one
/// bucket that straddles a boundary (at most 12.5 % of it wide) may be
/// counted in the next tier, and a tier's percentiles carry the buckets'
/// 12.5 %.
fn per_second(
    seconds: &[(SecondSample, Vec<(u16, u64)>)],
    tier_of: &dyn Fn(u64) -> Tier,
) -> Vec<Series> {
    if seconds.is_empty() {
        return Vec::new();
    }
    let mut iops = Series::new("iops", SeriesUnit::PerSecond);
    let mut p50 = Series::new("p50", SeriesUnit::Ns);
    let mut p99 = Series::new("p99", SeriesUnit::Ns);
    let mut tiers: Vec<[Series; 3]> = Tier::ALL
        .iter()
        .map(|t| {
            let name = match t {
                Tier::PageCache => "page_cache",
                Tier::StorageCache => "storage_cache",
                Tier::Device => "device",
            };
            [
                Series::new(format!("{name}_iops"), SeriesUnit::PerSecond),
                Series::new(format!("{name}_p50"), SeriesUnit::Ns),
                Series::new(format!("{name}_p99"), SeriesUnit::Ns),
            ]
        })
        .collect();
    for (s, buckets) in seconds {
        let any = s.read_iops > 0.0;
        iops.push(s.t_s, Some(s.read_iops));
        p50.push(s.t_s, any.then_some(s.p50_ns as f64));
        p99.push(s.t_s, any.then_some(s.p99_ns as f64));
        let total: u64 = buckets.iter().map(|b| b.1).sum();
        for (tier, out) in Tier::ALL.iter().zip(tiers.iter_mut()) {
            let keep = |up: u64| tier_of(up) == *tier;
            let n: u64 = buckets
                .iter()
                .filter(|(b, _)| keep(live_bucket_upper(*b as usize)))
                .map(|b| b.1)
                .sum();
            let share = if total > 0 {
                n as f64 / total as f64
            } else {
                0.0
            };
            out[0].push(s.t_s, Some(s.read_iops * share));
            out[1].push(s.t_s, quantile(buckets, 0.5, keep).map(|v| v as f64));
            out[2].push(s.t_s, quantile(buckets, 0.99, keep).map(|v| v as f64));
        }
    }
    let mut all = vec![iops, p50, p99];
    // Tiers no read of the state reached stay out.
    for t in tiers {
        if t[1].values.iter().any(Option::is_some) {
            all.extend(t);
        }
    }
    all
}

trait WithSeries {
    fn with_series(self, seconds: &[(SecondSample, Vec<(u16, u64)>)]) -> Self;
    fn with_stripe(self, s: Option<dbio_model::stripe::StripeResult>) -> Self;
}

impl WithSeries for ReadResult {
    fn with_series(mut self, seconds: &[(SecondSample, Vec<(u16, u64)>)]) -> Self {
        // An O_DIRECT read is never a page-cache hit, whatever its speed.
        self.per_second = match &self.attribution {
            Some(a) => per_second(seconds, &|ns| a.tier(ns)),
            None => per_second(seconds, &|ns| self.thresholds.classify(ns)),
        };
        self
    }

    fn with_stripe(mut self, s: Option<dbio_model::stripe::StripeResult>) -> Self {
        self.stripe = s;
        self
    }
}

/// The page-cache residency of several files together (None when one
/// cannot be read, as for a block device).
fn residency(targets: &[&Target]) -> Option<PageCacheResidency> {
    let mut sum: Option<PageCacheResidency> = None;
    for t in targets {
        let r = dbio_engine::sysinfo::page_cache_residency_fd(&t.file)?;
        sum = Some(match sum {
            Some(s) => PageCacheResidency {
                resident_pages: s.resident_pages + r.resident_pages,
                total_pages: s.total_pages + r.total_pages,
                ..s
            },
            None => r,
        });
    }
    sum
}

fn add_disk(mut a: DiskStatsDelta, b: &DiskStatsDelta) -> DiskStatsDelta {
    a.reads += b.reads;
    a.read_merges += b.read_merges;
    a.read_sectors += b.read_sectors;
    a.read_ms += b.read_ms;
    a.writes += b.writes;
    a.write_merges += b.write_merges;
    a.write_sectors += b.write_sectors;
    a.write_ms += b.write_ms;
    a.io_ms += b.io_ms;
    a.queue_ms += b.queue_ms;
    a.flushes = a.flushes.zip(b.flushes).map(|(x, y)| x + y);
    a.flush_ms = a.flush_ms.zip(b.flush_ms).map(|(x, y)| x + y);
    a
}

fn group(
    kind: ReadKind,
    io_bytes: Option<u64>,
    bs: u64,
    parts: &[&ClassStats],
    att: Option<&TierAttribution>,
) -> ReadGroup {
    let mut h = dbio_engine::recorder::new_histogram();
    let (mut ops, mut bytes) = (0, 0);
    let (mut count, mut ns) = ([0u64; 3], [0u64; 3]);
    for g in parts {
        h.add(&g.lat).expect("same bounds");
        ops += g.ops;
        bytes += g.bytes;
        for i in 0..3 {
            count[i] += g.tier_count[i];
            ns[i] += g.tier_ns[i];
        }
    }
    ReadGroup {
        kind: Some(kind),
        io_bytes,
        ops,
        blocks: bytes / bs,
        bytes,
        lat: LatencySummary::from_histogram(&h),
        tiers: match att {
            Some(a) => attribute::split(&h, a),
            None => TierSplit::from_arrays(count, ns),
        },
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    cfg: &ReadConfig,
    thresholds: &TierThresholds,
    target: &str,
    state: CacheState,
    rec: &ClassRecorder,
    runtime_ns: u64,
    usage: Usage,
    device: Option<DiskStatsDelta>,
    cached_before: Option<PageCacheResidency>,
    cached_after: Option<PageCacheResidency>,
    att: Option<&TierAttribution>,
) -> ReadResult {
    let bs = cfg.bs;
    let groups = rec.nonempty();
    let by_size: Vec<ReadGroup> = groups
        .iter()
        .map(|g| {
            group(
                ReadKind::from_class(g.class),
                Some(u64::from(g.len)),
                bs,
                &[g],
                att,
            )
        })
        .collect();
    let by_kind: Vec<ReadGroup> = [ReadKind::Single, ReadKind::Multi]
        .into_iter()
        .filter_map(|k| {
            let parts: Vec<&ClassStats> = groups
                .iter()
                .copied()
                .filter(|g| g.class == k.class())
                .collect();
            (!parts.is_empty()).then(|| group(k, None, bs, &parts, att))
        })
        .collect();
    let all = group(ReadKind::Single, None, bs, &groups, att);
    ReadResult {
        name: state.name,
        config: cfg.clone(),
        cached_pct: state.cached_pct,
        target: target.to_string(),
        thresholds: att.map_or_else(|| thresholds.clone(), TierAttribution::thresholds),
        runtime_ns,
        ops: all.ops,
        blocks: all.blocks,
        bytes: all.bytes,
        iops: all.ops as f64 / (runtime_ns.max(1) as f64 / 1e9),
        lat: all.lat,
        tiers: all.tiers,
        by_kind,
        by_size,
        cached_before,
        cached_after,
        device,
        cpu: cpu_usage(&usage, all.ops, runtime_ns),
        attribution: att.cloned(),
        per_second: Vec::new(),
        stripe: None,
    }
}

/// Checks that `engine` can read as asked (`iodepth` reads in flight per
/// thread, O_DIRECT or not) before anything is made; the refusal is one
/// sentence naming the options.
pub fn check_engine(engine: EngineKind, iodepth: u32, direct: bool) -> Result<(), String> {
    if iodepth > 1 && !dbio_engine::engines::Capabilities::of(engine).queue_depth {
        return Err(format!(
            "--iodepth {} needs --engine io_uring or libaio (psync runs one read at a time per thread; use --threads)",
            iodepth
        ));
    }
    if engine == EngineKind::Libaio && !direct {
        return Err(
            "the libaio engine needs --direct: the kernel's native AIO is asynchronous only for O_DIRECT, and a buffered io_submit completes the read inside the call".into()
        );
    }
    if engine == EngineKind::Null && direct {
        return Err("the null engine does no I/O, so --direct has no meaning with it".into());
    }
    if engine == EngineKind::IoUring {
        dbio_engine::engines::probe_io_uring()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::EngineKind;

    #[test]
    fn cache_states_parse() {
        assert_eq!(CacheState::parse("cold").unwrap().cached_pct, 0.0);
        assert_eq!(CacheState::parse("warm").unwrap().cached_pct, 100.0);
        let s = CacheState::parse("30%").unwrap();
        assert_eq!((s.name.as_str(), s.cached_pct), ("cached=30%", 30.0));
        assert!(CacheState::parse("130%").is_err());
        assert!(CacheState::parse("lukewarm")
            .unwrap_err()
            .contains("cold, warm"));
    }

    fn cfg() -> ReadConfig {
        ReadConfig {
            engine: EngineKind::Null,
            threads: 2,
            multiblock_pct: 50,
            size: 8192 * 100,
            runtime_ns: None,
            ops_limit: Some(1000),
            rounds: 2,
            seed: 1,
            ..ReadConfig::default()
        }
    }

    #[test]
    fn validation_names_the_option() {
        assert!(validate(&cfg()).is_ok());
        let c = ReadConfig {
            multiblock_count: 2048,
            ..cfg()
        };
        assert!(validate(&c).unwrap_err().contains("--multiblock-count"));
        let c = ReadConfig { bs: 3000, ..cfg() };
        assert!(validate(&c).unwrap_err().contains("--bs"));
        let c = ReadConfig {
            runtime_ns: Some(0),
            ..cfg()
        };
        assert!(validate(&c).unwrap_err().contains("--runtime"));
    }

    #[test]
    fn null_engine_rounds_count_every_read_and_block() {
        // 100 blocks over 2 readers: slices of 50 blocks, scans of 16 cut
        // to 2 at the slice end; the null engine makes every read a
        // page-cache hit (well below 100 µs).
        let c = cfg();
        let states = [CacheState::parse("cold").unwrap()];
        let mut run = ReadRun::new(c, TierThresholds::default(), &states);
        let control = Control::default();
        for r in 0..2 {
            run.round(0, r, &[], None, &control, &dbio_engine::runner::NoProgress)
                .unwrap();
        }
        let res = run.finish("null");
        let r = &res[0];
        assert_eq!(r.ops, 2000);
        let single = &r.by_kind[0];
        let multi = &r.by_kind[1];
        assert_eq!(single.ops + multi.ops, 2000);
        assert_eq!(single.blocks, single.ops);
        let sizes: u64 = r
            .by_size
            .iter()
            .filter(|g| g.kind == Some(ReadKind::Multi))
            .map(|g| g.blocks)
            .sum();
        assert_eq!(sizes, multi.blocks);
        assert!(r.by_size.iter().any(|g| g.io_bytes == Some(2 * 8192)));
        assert_eq!(r.blocks, single.blocks + multi.blocks);
        assert_eq!(r.tiers.count(), 2000);
        assert_eq!(r.lat.count, 2000);
    }
}
