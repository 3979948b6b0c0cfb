//! `dbio matrix`: ORION's load matrix and CALIBRATE_IO's search, on dbio's
//! engines.
//!
//! Why: ORION (Oracle's I/O calibration tool) answers "how far does this
//! storage go before latency breaks" with a grid of outstanding small
//! random I/Os (database blocks) × outstanding large I/Os (scans, backups),
//! and DBMS_RESOURCE_MANAGER.CALIBRATE_IO with three figures: max IOPS at a
//! latency, max MB/s, and the latency of one outstanding I/O. Neither runs
//! without Oracle; fio can measure each point but not the grid, the search
//! or the conclusion. Seed 001 (shared/seeds) asks the same question by
//! hand for each storage layout.
//!
//! Each point runs two jobs at once on one prepared target, through the
//! same worker loop as `dbio bench` ([`dbio_engine::run_job`]): the small job
//! (8 KiB random, reads or a write share) with N I/Os outstanding and the
//! large job (1 MiB, M sequential streams or M random I/Os outstanding).
//! An asynchronous engine keeps the outstanding I/Os on one thread's queue
//! (as ORION does with native AIO); a synchronous engine uses one thread
//! per outstanding I/O. Both jobs warm up for the same time, then measure
//! for the point time; the device counters are the small job's window.
//! With `--targets` both jobs run over a stripe's members
//! ([`dbio_engine::stripe`]), and each point keeps what each member did.
//!
//! The search ([`search`]) is generic over how a point is measured, so its
//! arithmetic is tested on a modelled device without I/O.

use dbio_engine::runner::{Control, NoProgress, Progress};
use dbio_engine::stripe::StripeMap;
use dbio_engine::target::Target;
use dbio_engine::{EngineError, Job, JobTarget};
use dbio_model::matrix::{LargePattern, MatrixConfig, MatrixPoint, MatrixSearch, PointLatency};
use dbio_model::stripe::StripeResult;
use dbio_model::{EngineKind, JobConfig, JobResult, LatencySummary, OpStats, Pattern};

pub mod session;

/// Most outstanding I/Os of one kind at one point (the engine's queue
/// depth limit, or one thread each for a synchronous engine).
pub const MAX_OUTSTANDING: u32 = dbio_engine::job::MAX_IODEPTH;

/// Longest point time, ns (an hour).
pub const MAX_POINT_TIME_NS: u64 = 3_600_000_000_000;

/// MB/s growth below which one more step of large I/Os is past the knee
/// (the search stops adding streams): 5 %, above the run-to-run noise of
/// a 2 s point on a quiet device.
pub const MBPS_FLAT: f64 = 0.05;

/// The default ladders for a device whose queue holds `nr_requests`
/// requests, on a machine with `cores` cores; and the sentence saying so.
///
/// Small I/Os: 0, then powers of two up to the device's queue depth (past
/// it requests wait in the block layer, not in the device; ORION's default
/// goes to 5 × the number of disks, which dbio cannot count), at least 8
/// and at most 256. Large I/Os: 0, then powers of two up to twice the core
/// count (a 1 MiB stream keeps a device busy with one I/O in flight; more
/// streams than that measure the CPU), at most a sixteenth of the queue
/// depth (a 1 MiB request splits into several at max_sectors_kb) and at
/// least 1.
pub fn default_ladders(nr_requests: Option<u64>, cores: u32) -> (Vec<u32>, Vec<u32>, String) {
    let q = nr_requests.unwrap_or(64).clamp(1, 1 << 20) as u32;
    let small_max = q.clamp(8, 256);
    let large_max = (2 * cores.max(1)).min(q / 16).max(1);
    let pow2 = |max: u32| {
        let mut v = vec![0];
        let mut n = 1;
        while n <= max {
            v.push(n);
            n *= 2;
        }
        if *v.last().unwrap() != max {
            v.push(max);
        }
        v
    };
    let source = match nr_requests {
        Some(n) => format!("default: the device's queue depth (nr_requests {n}) and {cores} cores"),
        None => format!("default: queue depth unknown (64 assumed) and {cores} cores"),
    };
    (pow2(small_max), pow2(large_max), source)
}

/// Parses a ladder (`1,2,4,8`); the error is one sentence naming `flag`.
pub fn parse_ladder(flag: &str, s: &str) -> Result<Vec<u32>, String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| {
            x.trim().parse::<u32>().map_err(|_| {
                format!("{flag} takes a comma list of outstanding I/O counts (e.g. 0,1,2,4), and '{x}' is not a whole number")
            })
        })
        .collect::<Result<_, _>>()?;
    check_ladder(flag, &v)?;
    Ok(v)
}

fn check_ladder(flag: &str, v: &[u32]) -> Result<(), String> {
    if v.is_empty() {
        return Err(format!("{flag} needs at least one outstanding I/O count"));
    }
    if v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{flag} must climb: each count larger than the one before, not {}",
            v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        ));
    }
    if let Some(&big) = v.iter().find(|&&n| n > MAX_OUTSTANDING) {
        return Err(format!(
            "{flag} {big} is more than {MAX_OUTSTANDING} outstanding I/Os"
        ));
    }
    Ok(())
}

/// Checks a configuration before anything is prepared; one sentence.
pub fn validate(c: &MatrixConfig) -> Result<(), String> {
    check_ladder("--small", &c.small_ladder)?;
    check_ladder("--large", &c.large_ladder)?;
    if c.small_ladder.iter().all(|&n| n == 0) && c.large_ladder.iter().all(|&n| n == 0) {
        return Err(
            "--small and --large are both 0 only: the matrix would have no I/O to measure".into(),
        );
    }
    if c.max_latency_ns.is_some() && !c.small_ladder.iter().any(|&n| n > 0) {
        return Err(
            "--max-latency searches the small-I/O ladder, and --small has no count above 0".into(),
        );
    }
    if c.max_latency_ns == Some(0) {
        return Err("--max-latency must be a positive time".into());
    }
    if c.write_pct > 100 {
        return Err("--write-pct must be between 0 and 100".into());
    }
    if c.runtime_ns == 0 || c.runtime_ns > MAX_POINT_TIME_NS {
        return Err(
            "--runtime (the time per point) must be a positive time of at most an hour".into(),
        );
    }
    let streams = c.large_ladder.iter().copied().max().unwrap_or(0);
    if c.large_pattern == LargePattern::Sequential
        && streams > 0
        && c.size / c.large_bs < u64::from(streams)
    {
        return Err(format!(
            "--size holds {} large I/Os of 1 MiB, fewer than the {streams} sequential streams of --large; each stream needs its own region",
            c.size / c.large_bs
        ));
    }
    if c.size < c.large_bs {
        return Err("--size must hold at least one 1 MiB large I/O".into());
    }
    if c.engine == EngineKind::Null && c.null_delay_ns == 0 {
        // Allowed (dbio's own cost), nothing to check.
    }
    Ok(())
}

/// The bench job that keeps `n` small I/Os outstanding.
pub fn small_job(c: &MatrixConfig, n: u32) -> JobConfig {
    let (threads, iodepth) = spread(c.engine, n);
    JobConfig {
        engine: c.engine,
        rw: if c.write_pct == 0 {
            Pattern::Randread
        } else {
            Pattern::Randrw
        },
        read_pct: 100 - c.write_pct,
        bs: c.small_bs,
        iodepth,
        threads,
        direct: c.engine != EngineKind::Null,
        size: c.size,
        runtime_ns: Some(c.runtime_ns),
        warmup_ns: c.warmup_ns,
        null_delay_ns: c.null_delay_ns,
        seed: c.seed,
        ..JobConfig::default()
    }
}

/// The bench job that keeps `m` large I/Os outstanding: `m` sequential
/// streams (one thread each, one I/O in flight each), or `m` random I/Os
/// on one queue.
pub fn large_job(c: &MatrixConfig, m: u32) -> JobConfig {
    let (rw, (threads, iodepth)) = match c.large_pattern {
        LargePattern::Sequential => (Pattern::Read, (m, 1)),
        LargePattern::Random => (Pattern::Randread, spread(c.engine, m)),
    };
    JobConfig {
        engine: c.engine,
        rw,
        bs: c.large_bs,
        iodepth,
        threads,
        direct: c.engine != EngineKind::Null,
        size: c.size,
        runtime_ns: Some(c.runtime_ns),
        warmup_ns: c.warmup_ns,
        null_delay_ns: c.null_delay_ns,
        seed: c.seed ^ 0x1a29e,
        ..JobConfig::default()
    }
}

/// (threads, iodepth) that keep `n` I/Os outstanding with `engine`.
fn spread(engine: EngineKind, n: u32) -> (u32, u32) {
    if dbio_engine::engines::Capabilities::of(engine).queue_depth {
        (1, n)
    } else {
        (n, 1)
    }
}

/// Checks every job the ladders will run against `place`, so a bad
/// combination (an engine without O_DIRECT support, too much memory) is
/// refused before the target is prepared.
pub fn resolve_jobs(c: &MatrixConfig, place: &JobTarget) -> Result<(), EngineError> {
    for &n in c.small_ladder.iter().filter(|&&n| n > 0) {
        Job::resolve(&small_job(c, n), place)?;
    }
    for &m in c.large_ladder.iter().filter(|&&m| m > 0) {
        Job::resolve(&large_job(c, m), place)?;
    }
    Ok(())
}

/// Measures one point on `targets` (none for the null engine; several,
/// laid out by `stripe`, for a stripe): both loads at once, each for the point time after the warm-up. An I/O error ends
/// the point with what the other job measured kept out (a point is whole
/// or not at all). Each job has its own stop flag (the worker loop raises
/// it at its deadline); `control`'s flag (signals) is passed on to both
/// within 5 ms. `progress` follows the small job (the large one when the
/// point has no small I/Os).
#[allow(clippy::too_many_arguments)]
pub fn measure_point(
    c: &MatrixConfig,
    place: &JobTarget,
    targets: &[&Target],
    stripe: Option<StripeMap>,
    small: u32,
    large: u32,
    control: &Control,
    progress: &dyn Progress,
) -> Result<MatrixPoint, EngineError> {
    let run = |cfg: JobConfig, own: &Control, p: &dyn Progress| -> Result<JobResult, EngineError> {
        let job = Job::resolve(&cfg, place)?;
        let out = dbio_engine::bench::run_job_on("matrix", &job, targets, stripe, own, p)?;
        match out.error {
            Some(e) => Err(e),
            None => Ok(out.result),
        }
    };
    let (cs, cl) = (Control::default(), Control::default());
    let (s, l) = std::thread::scope(|scope| {
        let s = (small > 0).then(|| scope.spawn(|| run(small_job(c, small), &cs, progress)));
        let lp: &dyn Progress = if small > 0 { &NoProgress } else { progress };
        let (run, cl_ref) = (&run, &cl);
        let l = (large > 0).then(|| scope.spawn(move || run(large_job(c, large), cl_ref, lp)));
        let running = |h: &Option<std::thread::ScopedJoinHandle<'_, _>>| {
            h.as_ref().is_some_and(|h| !h.is_finished())
        };
        while running(&s) || running(&l) {
            if control.stopped() {
                cs.stop.store(true, std::sync::atomic::Ordering::Relaxed);
                cl.stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let join = |h: Option<
            std::thread::ScopedJoinHandle<'_, Result<JobResult, EngineError>>,
        >| {
            h.map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(EngineError::Invalid("a matrix job panicked".into())))
            })
        };
        (join(s), join(l))
    });
    let s = s.transpose()?;
    let l = l.transpose()?;
    Ok(point_of(small, large, s.as_ref(), l.as_ref()))
}

/// A point from its two jobs' results.
pub fn point_of(
    small: u32,
    large: u32,
    s: Option<&JobResult>,
    l: Option<&JobResult>,
) -> MatrixPoint {
    fn iops(r: &JobResult) -> f64 {
        r.read.as_ref().map_or(0.0, |x| x.iops) + r.write.as_ref().map_or(0.0, |x| x.iops)
    }
    // A small job that completed nothing has no latency to report.
    let small_lat = s.filter(|r| r.total_ops() > 0).map(|r| {
        let (rd, wr) = (r.read.as_ref(), r.write.as_ref());
        // Reads and writes of the small load as one distribution: the
        // larger of each percentile is reported when both exist (an upper
        // bound of the mixed percentile).
        let lat = |o: Option<&OpStats>| o.filter(|o| o.ops > 0).map(|o| o.lat.clone());
        let (a, b) = (lat(rd), lat(wr));
        let pick = |p: f64| {
            [&a, &b]
                .iter()
                .filter_map(|x| x.as_ref()?.percentile_ns(p))
                .max()
                .unwrap_or(0)
        };
        let (na, nb) = (
            a.as_ref().map_or(0, |x| x.count),
            b.as_ref().map_or(0, |x| x.count),
        );
        let mean = (a.as_ref().map_or(0.0, |x| x.mean_ns * na as f64)
            + b.as_ref().map_or(0.0, |x| x.mean_ns * nb as f64))
            / (na + nb).max(1) as f64;
        PointLatency {
            mean_ns: mean,
            p50_ns: pick(50.0),
            p99_ns: pick(99.0),
            p99_9_ns: pick(99.9),
        }
    });
    let window = s.or(l);
    let device = window.and_then(|r| r.device.clone());
    let runtime_ns = window.map_or(0, |r| r.runtime_ns);
    let ms = runtime_ns as f64 / 1e6;
    MatrixPoint {
        small,
        large,
        runtime_ns,
        small_iops: s.map_or(0.0, iops),
        large_mbps: l.map_or(0.0, |r| {
            (r.read.as_ref().map_or(0.0, |x| x.bytes_per_sec)
                + r.write.as_ref().map_or(0.0, |x| x.bytes_per_sec))
                / 1e6
        }),
        small_lat,
        device_util_pct: device
            .as_ref()
            .filter(|_| ms > 0.0)
            .map(|d| (100.0 * d.io_ms as f64 / ms).min(100.0)),
        device_queue: device
            .as_ref()
            .filter(|_| ms > 0.0)
            .map(|d| d.queue_ms as f64 / ms),
        device,
        stripe: members(s, l),
    }
}

/// Each member of a stripe over both jobs of a point: counts summed,
/// latencies merged exactly (one HDR histogram of both loads' I/Os), the
/// device counters of the small job's window (the large job's when the
/// point has no small I/Os).
fn members(s: Option<&JobResult>, l: Option<&JobResult>) -> Option<StripeResult> {
    let (a, b) = (
        s.and_then(|r| r.stripe.as_ref()),
        l.and_then(|r| r.stripe.as_ref()),
    );
    let (first, other) = match (a, b) {
        (Some(a), b) => (a, b),
        (None, Some(b)) => (b, None),
        (None, None) => return None,
    };
    let mut out = first.clone();
    if let Some(o) = other {
        for (t, u) in out.targets.iter_mut().zip(&o.targets) {
            t.reads += u.reads;
            t.writes += u.writes;
            t.bytes += u.bytes;
            t.lat = LatencySummary::merge_exact(&[&t.lat, &u.lat]).0;
        }
    }
    Some(out)
}

/// The full grid: every (small, large) pair of the ladders but (0, 0),
/// large-major (ORION's order). `measure` returns None when the run was
/// stopped, which ends the grid with what it has.
pub fn grid<F>(c: &MatrixConfig, mut measure: F) -> Result<Vec<MatrixPoint>, EngineError>
where
    F: FnMut(u32, u32) -> Result<Option<MatrixPoint>, EngineError>,
{
    let mut out = Vec::new();
    for &l in &c.large_ladder {
        for &s in &c.small_ladder {
            if s == 0 && l == 0 {
                continue;
            }
            match measure(s, l)? {
                Some(p) => out.push(p),
                None => return Ok(out),
            }
        }
    }
    Ok(out)
}

/// Most points the bisection adds between the last load under the
/// latency target and the first over it.
pub const MAX_BISECT: u32 = 4;

/// CALIBRATE_IO's search. Small I/Os alone climb the small ladder until a
/// point's p99 exceeds `c.max_latency_ns`; the rest of the ladder is
/// skipped (past the knee), and up to [`MAX_BISECT`] points bisect the
/// gap between the last load under the target and the first over it.
/// Large I/Os alone climb the large ladder until MB/s grows by less than
/// [`MBPS_FLAT`]. `measure` as for [`grid`].
pub fn search<F>(
    c: &MatrixConfig,
    mut measure: F,
) -> Result<(Vec<MatrixPoint>, MatrixSearch), EngineError>
where
    F: FnMut(u32, u32) -> Result<Option<MatrixPoint>, EngineError>,
{
    let target = c.max_latency_ns.unwrap_or(u64::MAX);
    let mut points: Vec<MatrixPoint> = Vec::new();
    let mut skipped = 0u32;
    let over = |p: &MatrixPoint| p.small_lat.is_some_and(|l| l.p99_ns > target);
    let small: Vec<u32> = c.small_ladder.iter().copied().filter(|&n| n > 0).collect();
    let mut good: Option<u32> = None;
    let mut bad: Option<u32> = None;
    let mut stopped = false;
    for (i, &n) in small.iter().enumerate() {
        let Some(p) = measure(n, 0)? else {
            stopped = true;
            break;
        };
        let is_over = over(&p);
        points.push(p);
        if is_over {
            bad = Some(n);
            skipped += (small.len() - i - 1) as u32;
            break;
        }
        good = Some(n);
    }
    // Bisect between the last good and the first bad load.
    if let (Some(mut g), Some(mut b), false) = (good, bad, stopped) {
        for _ in 0..MAX_BISECT {
            if b - g <= 1 {
                break;
            }
            let mid = g + (b - g) / 2;
            let Some(p) = measure(mid, 0)? else {
                stopped = true;
                break;
            };
            if over(&p) {
                b = mid;
            } else {
                g = mid;
            }
            points.push(p);
        }
    }
    let mut max_mbps = 0.0;
    let mut max_mbps_outstanding = 0;
    if !stopped {
        let large: Vec<u32> = c.large_ladder.iter().copied().filter(|&n| n > 0).collect();
        for (i, &m) in large.iter().enumerate() {
            let Some(p) = measure(0, m)? else {
                break;
            };
            let mbps = p.large_mbps;
            points.push(p);
            let flat = max_mbps > 0.0 && mbps < max_mbps * (1.0 + MBPS_FLAT);
            if mbps > max_mbps {
                max_mbps = mbps;
                max_mbps_outstanding = m;
            }
            if flat {
                skipped += (large.len() - i - 1) as u32;
                break;
            }
        }
    }
    // The point that reached the most IOPS under the target, with its own
    // outstanding count and p99 (not the highest count under the target:
    // past the knee IOPS can fall while the p99 still keeps under).
    let best = dbio_model::matrix::max_iops_point(&points, target);
    let found = MatrixSearch {
        max_latency_ns: target,
        max_iops_outstanding: best.map(|p| p.small),
        max_iops: best.map_or(0.0, |p| p.small_iops),
        max_iops_p99_ns: best.and_then(|p| p.small_lat.map(|l| l.p99_ns)),
        max_mbps,
        max_mbps_outstanding,
        latency_at_one_ns: points
            .iter()
            .find(|p| p.small == 1 && p.large == 0)
            .and_then(|p| p.small_lat.map(|l| l.mean_ns)),
        skipped_points: skipped,
    };
    Ok((points, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A modelled device: `servers` I/Os served at once, each taking
    /// `service_ns`; past saturation the rest queue (Little's law). Large
    /// I/Os stream at `mbps_per_stream` up to `mbps_max`.
    fn device(
        service_ns: f64,
        servers: u32,
    ) -> impl FnMut(u32, u32) -> Result<Option<MatrixPoint>, EngineError> {
        move |s, l| {
            let lat = service_ns * (f64::from(s) / f64::from(servers)).max(1.0);
            Ok(Some(MatrixPoint {
                small: s,
                large: l,
                runtime_ns: 1_000_000_000,
                small_iops: if s > 0 { f64::from(s) / lat * 1e9 } else { 0.0 },
                large_mbps: (f64::from(l) * 100.0).min(250.0),
                small_lat: (s > 0).then_some(PointLatency {
                    mean_ns: lat,
                    p50_ns: lat as u64,
                    p99_ns: (lat * 1.5) as u64,
                    p99_9_ns: (lat * 2.0) as u64,
                }),
                ..MatrixPoint::default()
            }))
        }
    }

    fn cfg(small: &[u32], large: &[u32], max_ms: f64) -> MatrixConfig {
        MatrixConfig {
            small_ladder: small.to_vec(),
            large_ladder: large.to_vec(),
            max_latency_ns: Some((max_ms * 1e6) as u64),
            ..MatrixConfig::default()
        }
    }

    /// 1 ms service, 8 servers: p99 = 1.5 ms × max(1, n/8). A 6 ms target
    /// allows n ≤ 32; the ladder goes from 16 (3 ms) to 64 (12 ms), and
    /// four bisections measure 40 (7.5 ms, over), 28 (5.25), 34 (6.375,
    /// over) and 31 (5.8125): 31 is the highest load under the target
    /// within the bisection's budget, but 8 outstanding already reached
    /// the 8000 IOPS of saturation (p99 1.5 ms): the maximum is reported
    /// at the point that reached it.
    #[test]
    fn the_search_finds_the_highest_load_under_the_target_and_skips_the_rest() {
        let c = cfg(&[1, 2, 4, 8, 16, 64, 128, 256], &[0, 1, 2, 4, 8], 6.0);
        let (points, s) = search(&c, device(1e6, 8)).unwrap();
        assert!(points.iter().any(|p| p.small == 31 && p.large == 0));
        assert_eq!(s.max_iops_outstanding, Some(8));
        // IOPS at saturation: 8 servers / 1 ms.
        assert!((s.max_iops - 8000.0).abs() < 1e-6, "{}", s.max_iops);
        assert_eq!(s.max_iops_p99_ns, Some(1_500_000));
        assert_eq!(s.latency_at_one_ns, Some(1e6));
        // 128 and 256 skipped on the small side; large: 100, 200, 250
        // (+25 %), then 250 at 8 (flat: the end of the ladder anyway).
        assert_eq!(s.max_mbps, 250.0);
        assert_eq!(s.max_mbps_outstanding, 4);
        assert_eq!(s.skipped_points, 2);
        assert!(!points.iter().any(|p| p.small >= 128));
        let bisected: Vec<u32> = points
            .iter()
            .filter(|p| p.large == 0 && p.small > 16 && p.small < 64)
            .map(|p| p.small)
            .collect();
        assert_eq!(bisected, vec![40, 28, 34, 31]);
    }

    /// The case: past the knee IOPS fall (120,772 at 208
    /// outstanding, 118,000 at 216) while the p99 still keeps under the
    /// 5 ms target (4.78 ms at 216): max IOPS is 208's, with 208's p99.
    #[test]
    fn max_iops_is_reported_with_the_point_that_reached_it() {
        let c = cfg(&[1, 208, 216], &[0], 5.0);
        let (_, s) = search(&c, |n: u32, l: u32| {
            let (iops, p99) = match n {
                1 => (10_000.0, 200_000),
                208 => (120_772.0, 4_600_000),
                _ => (118_000.0, 4_780_000),
            };
            Ok(Some(MatrixPoint {
                small: n,
                large: l,
                runtime_ns: 1_000_000_000,
                small_iops: iops,
                small_lat: Some(PointLatency {
                    mean_ns: 1.0,
                    p50_ns: 1,
                    p99_ns: p99,
                    p99_9_ns: p99,
                }),
                ..MatrixPoint::default()
            }))
        })
        .unwrap();
        assert_eq!(s.max_iops, 120_772.0);
        assert_eq!(s.max_iops_outstanding, Some(208));
        assert_eq!(s.max_iops_p99_ns, Some(4_600_000));
    }

    #[test]
    fn a_target_that_even_one_outstanding_io_misses_is_reported_as_none() {
        let c = cfg(&[1, 2, 4], &[0], 1.0);
        let (points, s) = search(&c, device(1e6, 8)).unwrap();
        assert_eq!(s.max_iops_outstanding, None);
        assert_eq!(s.max_iops, 0.0);
        assert_eq!(points.len(), 1);
        assert_eq!(s.skipped_points, 2);
    }

    /// A point whose small job completed nothing (a point time shorter
    /// than one I/O) reports no latency rather than zeros.
    #[test]
    fn a_small_job_without_completions_has_no_latency() {
        let empty = JobResult {
            name: "matrix".into(),
            job: JobConfig::default(),
            target: String::new(),
            runtime_ns: 10_000_000,
            read: None,
            write: None,
            sync: None,
            commit: None,
            cpu: dbio_model::CpuUsage::default(),
            device: None,
            cached_before: None,
            cached_after: None,
            series: Vec::new(),
            started_at_unix_ns: None,
            stripe: None,
            block_device: false,
        };
        let p = point_of(8, 0, Some(&empty), None);
        assert_eq!(p.small_lat, None);
        assert_eq!(p.small_iops, 0.0);
    }

    #[test]
    fn the_grid_measures_every_pair_but_the_empty_one() {
        let c = cfg(&[0, 1, 2], &[0, 1], 1.0);
        let p = grid(&c, device(1e6, 8)).unwrap();
        let pairs: Vec<(u32, u32)> = p.iter().map(|p| (p.small, p.large)).collect();
        assert_eq!(pairs, vec![(1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]);
    }

    #[test]
    fn ladders_are_checked_and_sized_to_the_device() {
        assert_eq!(parse_ladder("--small", "1,2,4").unwrap(), vec![1, 2, 4]);
        for (bad, want) in [
            ("4,2", "--small must climb: each count larger than the one before, not 4,2"),
            ("1,x", "--small takes a comma list of outstanding I/O counts (e.g. 0,1,2,4), and 'x' is not a whole number"),
            ("2000", "--small 2000 is more than 1024 outstanding I/Os"),
        ] {
            assert_eq!(parse_ladder("--small", bad).unwrap_err(), want);
        }
        let (s, l, why) = default_ladders(Some(256), 2);
        assert_eq!(s, vec![0, 1, 2, 4, 8, 16, 32, 64, 128, 256]);
        assert_eq!(l, vec![0, 1, 2, 4]);
        assert!(
            why.contains("nr_requests 256") && why.contains("2 cores"),
            "{why}"
        );
        let (s, l, _) = default_ladders(Some(32), 16);
        assert_eq!(s, vec![0, 1, 2, 4, 8, 16, 32]);
        assert_eq!(l, vec![0, 1, 2]);
        let (s, _, _) = default_ladders(Some(100), 1);
        assert_eq!(*s.last().unwrap(), 100);
        let c = MatrixConfig {
            small_ladder: vec![0],
            large_ladder: vec![0],
            ..MatrixConfig::default()
        };
        assert_eq!(
            validate(&c).unwrap_err(),
            "--small and --large are both 0 only: the matrix would have no I/O to measure"
        );
    }
}
