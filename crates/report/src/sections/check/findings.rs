//! The `dbio check` battery in words: whether the storage keeps a commit
//! at all, how often one session can commit and whether the commit tail
//! suits a database log, whether the battery's two measurements of one
//! session's commit agree, which durability method to put the log on,
//! what class of storage the random-read latency points to, and the
//! streaming throughput. The classes and their thresholds are the kit's
//! ([`crate::kit::classes`], from `docs/GUIDE.md`).

pub use crate::kit::classes::{commit_verdict, read_class};
use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use dbio_model::lgwr::Method;
use dbio_model::units::{format_bytes, format_count_rate, format_ns, format_rate};
use dbio_model::{Durability, JobResult, LatencySummary, Pattern, RunReport};

/// The battery's rules (the jobs of a `check` report).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "check",
    evaluate,
};

/// Two measurements of one session's commit disagree when their rates
/// differ by more than this factor beyond what the log writer's hand-off
/// explains: a run-to-run spread of 50 % is what a shared or virtual
/// machine shows between back-to-back runs (docs/GUIDE.md, "noise").
pub const DISAGREE_FACTOR: f64 = 1.5;

/// ... and when the per-commit times differ from what the hand-off
/// explains by more than this, ns: at memory speeds (tmpfs) the hand-off
/// alone is most of a commit and a few µs of scheduling noise changes the
/// ratio without meaning anything.
pub const DISAGREE_MIN_GAP_NS: f64 = 100_000.0;

/// Two commit methods whose means are within this share are "within
/// noise" for one session.
pub const METHOD_NOISE: f64 = 0.10;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    if r.command != "check" {
        return Vec::new();
    }
    let commits = commit_jobs(r);
    let mut out = Vec::new();
    out.extend(non_durable(r, &commits));
    out.extend(commit_rate(r, &commits));
    out.extend(disagreement(r, &commits));
    out.extend(commit_method(r, &commits));
    out.extend(random_read(r));
    out.extend(streaming(r));
    out
}

/// A raw commit test: its name without the battery's prefix, the job.
struct CommitJob<'a> {
    method: &'a str,
    job: &'a JobResult,
    commit: &'a LatencySummary,
    rate: f64,
    flushes_per_commit: Option<f64>,
}

fn commit_jobs(r: &RunReport) -> Vec<CommitJob<'_>> {
    r.jobs
        .iter()
        .filter_map(|j| {
            let c = j.commit.as_ref().filter(|c| c.count > 0)?;
            Some(CommitJob {
                method: j.name.trim_start_matches("log write 8k "),
                job: j,
                commit: c,
                rate: c.count as f64 / (j.runtime_ns.max(1) as f64 / 1e9),
                flushes_per_commit: j
                    .device
                    .as_ref()
                    .and_then(|d| d.flushes)
                    .map(|f| f as f64 / c.count as f64),
            })
        })
        .collect()
}

/// Storage that does not keep what it acknowledges: a memory filesystem,
/// a mount without flushes, or a write-back device without FUA that
/// counted no cache flush while every commit asked for one (the flushes
/// are dropped on the way: a virtual disk with an unsafe cache mode, a
/// controller cache without a battery).
fn non_durable(r: &RunReport, commits: &[CommitJob]) -> Option<Finding> {
    let guide = Some(doc("docs/GUIDE.md"));
    let fastest = commits.iter().map(|c| c.rate).fold(0.0, f64::max);
    if let Some(why) = r.environment.non_durable_reason() {
        return Some(finding(
            "check.non_durable",
            None,
            Severity::Warning,
            format!(
                "Not durable storage: {why}; its {} commits/s are memory's speed, not a database log's",
                format_count_rate(fastest)
            ),
            vec![ev("commits per second, fastest method", fastest, "ops/s")],
            guide,
        ));
    }
    let dropped = commits
        .iter()
        .filter(|c| c.job.job.direct || c.job.job.sync != Durability::None)
        .find(|c| c.flushes_per_commit == Some(0.0) && c.commit.count >= 100)?;
    let why = r
        .environment
        .dropped_flushes_reason(dropped.commit.count, dropped.method)?;
    Some(finding(
        "check.non_durable",
        Some(&dropped.job.name),
        Severity::Warning,
        format!("Not durable storage: {why}"),
        vec![
            ev("commits", dropped.commit.count as f64, "count"),
            ev("cache flushes per commit", 0.0, "count"),
        ],
        Some(doc("docs/GUIDE.md")),
    ))
}

/// One session's commit rate and tail for every raw commit method, in one
/// finding, judged by the best method's p99.
fn commit_rate(r: &RunReport, commits: &[CommitJob]) -> Option<Finding> {
    let best = commits.iter().min_by_key(|c| c.commit.p99_ns())?;
    let methods: Vec<String> = commits
        .iter()
        .map(|c| {
            format!(
                "{} {}/s, p99 {}",
                c.method,
                format_count_rate(c.rate),
                format_ns(c.commit.p99_ns() as f64)
            )
        })
        .collect();
    let flushes = best
        .flushes_per_commit
        .map(|f| format!(", {f:.2} cache flushes per commit"))
        .unwrap_or_default();
    let (verdict, severity) = if r.environment.non_durable_reason().is_some() {
        ("memory's figures, not a durable log's", Severity::Notice)
    } else {
        commit_verdict(best.commit.p99_ns())
    };
    let mut evidence = vec![
        ev("commits per second", best.rate, "ops/s"),
        ev("median commit", best.commit.p50_ns() as f64, "ns"),
        ev("p99 commit", best.commit.p99_ns() as f64, "ns"),
    ];
    if let Some(f) = best.flushes_per_commit {
        evidence.push(ev("cache flushes per commit", f, "count"));
    }
    Some(finding(
        "check.commit_rate",
        None,
        severity,
        format!(
            "One session commits up to {}/s ({}){flushes}: {verdict}",
            format_count_rate(best.rate),
            methods.join("; ")
        ),
        evidence,
        Some(doc("docs/GUIDE.md")),
    ))
}

/// The log writer's one-session run against the raw commit test of the
/// same method: the log writer adds a hand-off (its wake-up share), so it
/// is slower by about 1 / (1 - share); beyond [`DISAGREE_FACTOR`] of that,
/// one of the two measured something else (a busy machine, a device whose
/// latency changed during the run).
fn disagreement(r: &RunReport, commits: &[CommitJob]) -> Option<Finding> {
    let one = r.lgwr.iter().find(|x| x.config.sessions == 1)?;
    let same = raw_equivalent(one.config.method);
    let raw = commits
        .iter()
        .find(|c| (c.job.job.direct, c.job.job.sync) == same)?;
    let lfs = one.log_file_sync.mean_ns;
    let hand_off = if lfs > 0.0 {
        (one.breakdown.wake_up.mean_ns / lfs).clamp(0.0, 0.9)
    } else {
        0.0
    };
    let expected = 1.0 / (1.0 - hand_off);
    let ratio = raw.rate / one.tps.max(f64::MIN_POSITIVE);
    let beyond = (ratio / expected).max(expected / ratio);
    let gap_ns = (1e9 / one.tps.max(f64::MIN_POSITIVE) - 1e9 / raw.rate * expected).abs();
    (one.tps > 0.0 && beyond > DISAGREE_FACTOR && gap_ns > DISAGREE_MIN_GAP_NS).then(|| {
        finding(
            "check.disagreement",
            None,
            Severity::Warning,
            format!(
                "One session's commit, measured twice, disagrees: {}/s through the log writer, {}/s in the raw test of the same method ({:.1}x apart; the hand-off to the log writer explains {:.2}x): the machine or the device was busy part of the run, rerun before trusting either",
                format_count_rate(one.tps),
                format_count_rate(raw.rate),
                ratio.max(1.0 / ratio),
                expected
            ),
            vec![
                ev("commits per second, log writer, 1 session", one.tps, "ops/s"),
                ev("commits per second, raw test", raw.rate, "ops/s"),
                ev("raw test / log writer", ratio, "x"),
                ev("explained by the hand-off", expected, "x"),
                ev("hand-off share of 'log file sync'", hand_off * 100.0, "%"),
                ev("p99 'log file sync'", one.log_file_sync.p99_ns() as f64, "ns"),
                ev("p99 raw commit", raw.commit.p99_ns() as f64, "ns"),
            ],
            Some(doc("docs/GUIDE.md")),
        )
    })
}

/// The raw job settings (O_DIRECT, durability) that make a log write
/// durable the way a log-writer method does.
fn raw_equivalent(m: Method) -> (bool, Durability) {
    match m {
        Method::DirectDsync => (true, Durability::Dsync),
        Method::DirectFdatasync | Method::UringFdatasync | Method::AioFdatasync => {
            (true, Durability::Fdatasync)
        }
        Method::BufferedFdatasync => (false, Durability::Fdatasync),
        Method::BufferedDsync => (false, Durability::Dsync),
        Method::BufferedFsync => (false, Durability::Fsync),
    }
}

/// The durability method to put the log on: the log writer's methods
/// under group commit when the battery ran them, and the two raw methods
/// for one session, "within noise" when their means are within
/// [`METHOD_NOISE`].
fn commit_method(r: &RunReport, commits: &[CommitJob]) -> Option<Finding> {
    let most = r.lgwr.iter().map(|x| x.config.sessions).max().unwrap_or(0);
    let at_most: Vec<_> = r
        .lgwr
        .iter()
        .filter(|x| x.config.sessions == most && most > 1)
        .collect();
    let best = at_most.iter().max_by(|a, b| a.tps.total_cmp(&b.tps));
    let worst = at_most.iter().min_by(|a, b| a.tps.total_cmp(&b.tps));
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    if let (Some(b), Some(w)) = (best, worst) {
        if at_most.len() > 1 {
            parts.push(format!(
                "under group commit ({most} sessions) {} is fastest at {} commits/s and {} slowest at {}",
                b.config.method,
                format_count_rate(b.tps),
                w.config.method,
                format_count_rate(w.tps)
            ));
            evidence.push(ev(
                &format!("commits per second, {}", b.config.method),
                b.tps,
                "ops/s",
            ));
            evidence.push(ev(
                &format!("commits per second, {}", w.config.method),
                w.tps,
                "ops/s",
            ));
        }
    }
    if let [a, b] = commits {
        let (fast, slow) = if a.commit.mean_ns <= b.commit.mean_ns {
            (a, b)
        } else {
            (b, a)
        };
        let gap = slow.commit.mean_ns / fast.commit.mean_ns.max(1.0) - 1.0;
        parts.push(if gap <= METHOD_NOISE {
            format!(
                "for one session alone {} and {} are within {:.0} % (mean {} and {}), inside run-to-run noise",
                fast.method,
                slow.method,
                gap * 100.0,
                format_ns(fast.commit.mean_ns),
                format_ns(slow.commit.mean_ns)
            )
        } else {
            format!(
                "for one session alone {} is faster (mean {} against {} for {})",
                fast.method,
                format_ns(fast.commit.mean_ns),
                format_ns(slow.commit.mean_ns),
                slow.method
            )
        });
        evidence.push(ev(
            &format!("mean commit, {}", fast.method),
            fast.commit.mean_ns,
            "ns",
        ));
        evidence.push(ev(
            &format!("mean commit, {}", slow.method),
            slow.commit.mean_ns,
            "ns",
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let mut text = format!("Durability method for the log: {}.", parts.join("; "));
    if let Some(first) = text.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    Some(finding(
        "check.commit_method",
        None,
        Severity::Info,
        text,
        evidence,
        Some(doc("docs/lgwr.md")),
    ))
}

/// The random-read job: one session's single-block read and the class of
/// storage its median points to.
fn random_read(r: &RunReport) -> Option<Finding> {
    let (j, rd) = r.jobs.iter().find_map(|j| match (&j.read, j.job.rw) {
        (Some(rd), Pattern::Randread) => Some((j, rd)),
        _ => None,
    })?;
    let p50 = rd.lat.p50_ns();
    let kind = read_class(j.job.direct, p50);
    Some(finding(
        "check.random_read",
        Some(&j.name),
        if j.job.direct {
            Severity::Info
        } else {
            Severity::Notice
        },
        format!(
            "A single-block read takes {} median, {} at p99 ({} reads/s for one session): {kind}",
            format_ns(p50 as f64),
            format_ns(rd.lat.p99_ns() as f64),
            format_count_rate(rd.iops)
        ),
        vec![
            ev("median read", p50 as f64, "ns"),
            ev("p99 read", rd.lat.p99_ns() as f64, "ns"),
            ev("reads per second", rd.iops, "ops/s"),
        ],
        Some(doc("docs/GUIDE.md")),
    ))
}

/// The streaming jobs (sequential 1 MiB writes and reads) in one finding.
fn streaming(r: &RunReport) -> Option<Finding> {
    let mut parts = Vec::new();
    let mut evidence = Vec::new();
    for j in &r.jobs {
        if j.commit.is_some() || j.job.rw == Pattern::Randread {
            continue;
        }
        let Some((s, what)) = j
            .write
            .as_ref()
            .map(|w| (w, "write"))
            .or_else(|| j.read.as_ref().map(|r| (r, "read")))
        else {
            continue;
        };
        parts.push(format!(
            "{} {}s {} (p99 {} per {} {what})",
            if j.job.rw.is_random() {
                "random"
            } else {
                "sequential"
            },
            what,
            format_rate(s.bytes_per_sec),
            format_ns(s.lat.p99_ns() as f64),
            format_bytes(j.job.bs)
        ));
        evidence.push(ev(
            &format!("{what} throughput"),
            s.bytes_per_sec,
            "bytes/s",
        ));
        evidence.push(ev(&format!("p99 {what}"), s.lat.p99_ns() as f64, "ns"));
    }
    let depth = r
        .jobs
        .iter()
        .filter(|j| j.commit.is_none())
        .map(|j| j.job.iodepth)
        .max()?;
    (!parts.is_empty()).then(|| {
        finding(
            "check.throughput",
            None,
            Severity::Info,
            format!("Streaming with {depth} in flight: {}", parts.join("; ")),
            evidence,
            Some(doc("docs/GUIDE.md")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::fixtures::job;
    use dbio_model::OpStats;

    fn lat(ns: u64) -> LatencySummary {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for _ in 0..100 {
            h.record(ns).unwrap();
        }
        LatencySummary::from_histogram(&h)
    }

    fn commit_job(name: &str, ns: u64) -> JobResult {
        JobResult {
            commit: Some(lat(ns)),
            ..job(name, Pattern::Write, true)
        }
    }

    fn check(jobs: Vec<JobResult>) -> RunReport {
        RunReport {
            command: "check".into(),
            jobs,
            ..Default::default()
        }
    }

    fn rules(fs: &[Finding]) -> Vec<&str> {
        fs.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn commit_verdict_changes_at_1_ms_and_10_ms() {
        assert_eq!(commit_verdict(1_000_000).1, Severity::Info);
        assert_eq!(commit_verdict(1_000_001).1, Severity::Notice);
        assert_eq!(commit_verdict(10_000_000).1, Severity::Notice);
        assert_eq!(commit_verdict(10_000_001).1, Severity::Warning);
        // Through a whole report: 990 µs and 1.01 ms (the histogram keeps
        // three significant digits).
        for (ns, sev, words) in [
            (990_000, Severity::Info, "good for a commit-heavy"),
            (1_010_000, Severity::Notice, "usable for a database log"),
            (9_900_000, Severity::Notice, "usable for a database log"),
            (10_100_000, Severity::Warning, "slow for a database log"),
        ] {
            let f = evaluate(&check(vec![commit_job("log write 8k x", ns)]));
            assert_eq!(rules(&f), ["check.commit_rate", "check.commit_method"][..1]);
            assert_eq!(f[0].severity, sev, "{ns}");
            assert!(f[0].text.contains(words), "{}", f[0].text);
            assert!(
                f[0].text
                    .starts_with("One session commits up to 100/s (x 100/s, p99"),
                "{}",
                f[0].text
            );
            assert_eq!(f[0].evidence[0].value, 100.0);
        }
    }

    #[test]
    fn the_best_method_judges_the_tail_and_every_method_is_named() {
        let f = evaluate(&check(vec![
            commit_job("log write 8k slow", 20_000_000),
            commit_job("log write 8k fast", 500_000),
        ]));
        assert_eq!(rules(&f), ["check.commit_rate", "check.commit_method"]);
        assert!(f[0].text.contains("slow 100/s"), "{}", f[0].text);
        assert!(f[0].text.contains("fast 100/s"), "{}", f[0].text);
        assert!(f[0].text.ends_with("good for a commit-heavy database log"));
    }

    #[test]
    fn memory_storage_is_named_and_never_good_for_a_log() {
        let mut r = check(vec![commit_job("log write 8k x", 2_000)]);
        r.environment.target = "/dev/shm/x".into();
        r.environment.fs_type = "tmpfs".into();
        let f = evaluate(&r);
        assert_eq!(f[0].rule, "check.non_durable");
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(f[0].text.contains("tmpfs (memory)"), "{}", f[0].text);
        assert!(f.iter().all(|f| !f.text.contains("good for")), "{f:?}");
    }

    #[test]
    fn a_write_back_device_without_fua_that_counts_no_flush_drops_them() {
        let with_flushes = |n| {
            let mut j = commit_job("log write 8k O_DIRECT+O_DSYNC", 100_000);
            j.job.sync = Durability::Dsync;
            j.device = Some(dbio_model::DiskStatsDelta {
                flushes: Some(n),
                ..Default::default()
            });
            j
        };
        let mut r = check(vec![with_flushes(0)]);
        r.environment.device = Some(dbio_model::BlockDevice {
            name: "vda".into(),
            write_cache: Some("write back".into()),
            fua: Some(false),
            ..Default::default()
        });
        assert_eq!(evaluate(&r)[0].rule, "check.non_durable");
        r.jobs = vec![with_flushes(100)];
        assert_eq!(evaluate(&r)[0].rule, "check.commit_rate");
        // With FUA an O_DSYNC write needs no separate flush.
        r.jobs = vec![with_flushes(0)];
        r.environment.device.as_mut().unwrap().fua = Some(true);
        assert_eq!(evaluate(&r)[0].rule, "check.commit_rate");
    }

    fn lgwr_one(tps: f64, wake_share: f64) -> dbio_model::lgwr::LgwrResult {
        let mut x = dbio_model::lgwr::LgwrResult {
            name: "1 session, direct-dsync".into(),
            tps,
            ..Default::default()
        };
        x.config.sessions = 1;
        x.log_file_sync.mean_ns = 100_000.0;
        x.breakdown.wake_up.mean_ns = 100_000.0 * wake_share;
        x
    }

    #[test]
    fn the_log_writer_and_the_raw_test_disagree_beyond_the_hand_off() {
        let mut raw = commit_job("log write 8k O_DIRECT+O_DSYNC", 100_000);
        raw.job.sync = Durability::Dsync;
        // The raw test: 100 commits in 1 s. A hand-off of 20 % explains
        // 1.25x; 1.5x beyond that is 1.875x.
        for (lgwr_tps, disagree) in [(80.0, false), (54.0, false), (53.0, true), (300.0, true)] {
            disagrees(&raw, lgwr_tps, disagree);
        }
        // At memory speed (a 2 µs raw commit, 500 k/s) a 5x gap is a few
        // µs of scheduling: not a disagreement.
        let mut fast = raw.clone();
        fast.commit = Some(LatencySummary {
            count: 500_000,
            ..lat(2_000)
        });
        disagrees(&fast, 100_000.0 / 1.25 / 5.0, false);
        disagrees(&fast, 1_000.0, true);
    }

    fn disagrees(raw: &JobResult, lgwr_tps: f64, disagree: bool) {
        let mut r = check(vec![raw.clone()]);
        r.lgwr = vec![lgwr_one(lgwr_tps, 0.2)];
        let f = evaluate(&r);
        assert_eq!(
            rules(&f).contains(&"check.disagreement"),
            disagree,
            "{lgwr_tps}: {f:?}"
        );
    }

    #[test]
    fn read_class_changes_at_each_boundary() {
        for (ns, words) in [
            (19_999, "cache in front of the device"),
            (20_000, "solid-state"),
            (299_999, "solid-state"),
            (300_000, "network or virtualised"),
            (1_999_999, "network or virtualised"),
            (2_000_000, "spinning-disk"),
        ] {
            assert!(read_class(true, ns).contains(words), "{ns}");
        }
        assert!(read_class(false, 1).contains("buffered reads"));
        let j = JobResult {
            read: Some(OpStats {
                lat: lat(250_000),
                iops: 4000.0,
                ..Default::default()
            }),
            ..job("random read 8k", Pattern::Randread, true)
        };
        let f = evaluate(&check(vec![j]));
        assert_eq!(
            f[0].text,
            "A single-block read takes 250 µs median, 250 µs at p99 (4.00 k reads/s for one session): solid-state class latency"
        );
        assert_eq!(f[0].rule, "check.random_read");
    }

    #[test]
    fn streaming_jobs_read_as_one_throughput_finding() {
        let stream = |name, rw, write: bool| {
            let s = OpStats {
                lat: lat(2_000_000),
                bytes_per_sec: 1_073_741_824.0,
                ..Default::default()
            };
            let mut j = job(name, rw, true);
            j.job.bs = 1 << 20;
            j.job.iodepth = 4;
            if write {
                j.write = Some(s);
            } else {
                j.read = Some(s);
            }
            j
        };
        let f = evaluate(&check(vec![
            stream("sequential write 1m", Pattern::Write, true),
            stream("sequential read 1m", Pattern::Read, false),
        ]));
        assert_eq!(rules(&f), ["check.throughput"]);
        assert_eq!(
            f[0].text,
            "Streaming with 4 in flight: sequential writes 1.00 GiB/s (p99 2.00 ms per 1.00 MiB write); sequential reads 1.00 GiB/s (p99 2.00 ms per 1.00 MiB read)"
        );
        assert_eq!(f[0].evidence[0].unit, "bytes/s");
    }

    #[test]
    fn the_commit_method_compares_group_commit_and_says_when_one_session_is_noise() {
        let two = check(vec![
            commit_job("log write 8k A", 2_000_000),
            commit_job("log write 8k B", 1_000_000),
        ]);
        let f = evaluate(&two);
        let m = f.iter().find(|f| f.rule == "check.commit_method").unwrap();
        assert!(
            m.text.starts_with(
                "Durability method for the log: for one session alone B is faster (mean"
            ),
            "{}",
            m.text
        );
        let close = check(vec![
            commit_job("log write 8k A", 1_050_000),
            commit_job("log write 8k B", 1_000_000),
        ]);
        let f = evaluate(&close);
        let m = f.iter().find(|f| f.rule == "check.commit_method").unwrap();
        assert!(m.text.contains("inside run-to-run noise"), "{}", m.text);
        // With the log writer's methods at ten sessions.
        let mut r = check(vec![commit_job("log write 8k A", 1_000_000)]);
        for (m, tps) in [(Method::DirectDsync, 500.0), (Method::BufferedFsync, 300.0)] {
            let mut x = lgwr_one(tps, 0.0);
            x.config.sessions = 10;
            x.config.method = m;
            r.lgwr.push(x);
        }
        let f = evaluate(&r);
        let m = f.iter().find(|f| f.rule == "check.commit_method").unwrap();
        assert_eq!(
            m.text,
            "Durability method for the log: under group commit (10 sessions) direct-dsync is fastest at 500 commits/s and buffered-fsync slowest at 300."
        );
        // Not a check report: nothing.
        let bench = RunReport {
            command: "bench".into(),
            ..two
        };
        assert!(evaluate(&bench).is_empty());
    }
}
