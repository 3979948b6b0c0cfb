//! The figures compared for each kind of entry, and how entries are named
//! and found in each kind of result.

use super::{section_rows, Entry, Metric, Spr};
use dbio_model::awr::{AwrReport, LoadProfileRow, WaitEventRow};
use dbio_model::compare::{ComparedRow, MetricUnit};
use dbio_model::dbwr::DbwrResult;
use dbio_model::lgwr::LgwrResult;
use dbio_model::load::LoadResult;
use dbio_model::read::{ReadResult, Tier};
use dbio_model::series::{Series, SeriesUnit};
use dbio_model::trace::{EventStats, ProfileLine, TraceReport};
use dbio_model::{JobResult, LatencySummary, OpStats, Outcome, RunReport};

use MetricUnit::{Bytes, BytesPerSecond, Ns, Number, PerSecond, Percent, Us, S};

const UP: Option<bool> = Some(true);
const DOWN: Option<bool> = Some(false);

fn m<T>(
    name: &'static str,
    unit: MetricUnit,
    higher_is_better: Option<bool>,
    get: fn(&T) -> Option<f64>,
    spread: Spr<T>,
) -> Metric<T> {
    Metric {
        name,
        unit,
        higher_is_better,
        get,
        spread,
    }
}

fn p50(l: &LatencySummary) -> Option<f64> {
    (l.count > 0).then(|| l.p50_ns() as f64)
}

fn p99(l: &LatencySummary) -> Option<f64> {
    (l.count > 0).then(|| l.p99_ns() as f64)
}

fn mean(l: &LatencySummary) -> Option<f64> {
    (l.count > 0).then_some(l.mean_ns)
}

impl Entry for JobResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    /// `bench`'s own samples in the common shape; the latency series are
    /// of every I/O, so a job of both directions gets none.
    fn per_second(&self) -> Vec<Series> {
        let mut all = JobResult::per_second(self);
        if !one_direction(self) {
            all.retain(|s| s.unit != SeriesUnit::Ns);
        }
        all
    }
}

/// The per-second latency series describe a job's only direction; a
/// mixed job's are of both together, so its latency rows get none.
fn one_direction(j: &JobResult) -> bool {
    j.read.is_none() || j.write.is_none()
}

fn job_metrics() -> Vec<Metric<JobResult>> {
    fn op(s: &Option<OpStats>, f: fn(&OpStats) -> Option<f64>) -> Option<f64> {
        s.as_ref().and_then(f)
    }
    vec![
        m(
            "read IOPS",
            PerSecond,
            UP,
            |j| op(&j.read, |s| Some(s.iops)),
            Spr::Series("read_iops"),
        ),
        m(
            "read bandwidth",
            BytesPerSecond,
            UP,
            |j| op(&j.read, |s| Some(s.bytes_per_sec)),
            Spr::No,
        ),
        m(
            "read lat p50",
            Ns,
            DOWN,
            |j| op(&j.read, |s| p50(&s.lat)),
            Spr::Series("p50"),
        ),
        m(
            "read lat p99",
            Ns,
            DOWN,
            |j| op(&j.read, |s| p99(&s.lat)),
            Spr::Series("p99"),
        ),
        m(
            "write IOPS",
            PerSecond,
            UP,
            |j| op(&j.write, |s| Some(s.iops)),
            Spr::Series("write_iops"),
        ),
        m(
            "write bandwidth",
            BytesPerSecond,
            UP,
            |j| op(&j.write, |s| Some(s.bytes_per_sec)),
            Spr::No,
        ),
        m(
            "write lat p50",
            Ns,
            DOWN,
            |j| op(&j.write, |s| p50(&s.lat)),
            Spr::Series("p50"),
        ),
        m(
            "write lat p99",
            Ns,
            DOWN,
            |j| op(&j.write, |s| p99(&s.lat)),
            Spr::Series("p99"),
        ),
        m(
            "sync p50",
            Ns,
            DOWN,
            |j| j.sync.as_ref().and_then(p50),
            Spr::No,
        ),
        m(
            "sync p99",
            Ns,
            DOWN,
            |j| j.sync.as_ref().and_then(p99),
            Spr::No,
        ),
        m(
            "commit p50",
            Ns,
            DOWN,
            |j| j.commit.as_ref().and_then(p50),
            Spr::No,
        ),
        m(
            "commit p99",
            Ns,
            DOWN,
            |j| j.commit.as_ref().and_then(p99),
            Spr::No,
        ),
        m("CPU per I/O", Ns, DOWN, |j| Some(j.cpu.per_io_ns), Spr::No),
    ]
}

impl Entry for LgwrResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

fn lgwr_metrics() -> Vec<Metric<LgwrResult>> {
    vec![
        m(
            "TPS",
            PerSecond,
            UP,
            |x| Some(x.tps),
            Spr::RoundsElse(|x| x.round_tps.clone(), "tps"),
        ),
        m(
            "log file sync mean",
            Ns,
            DOWN,
            |x| mean(&x.log_file_sync),
            Spr::No,
        ),
        m(
            "log file sync p50",
            Ns,
            DOWN,
            |x| p50(&x.log_file_sync),
            Spr::Series("log_file_sync_p50"),
        ),
        m(
            "log file sync p99",
            Ns,
            DOWN,
            |x| p99(&x.log_file_sync),
            Spr::Series("log_file_sync_p99"),
        ),
        m(
            "log file parallel write p50",
            Ns,
            DOWN,
            |x| p50(&x.writer.log_file_parallel_write),
            Spr::No,
        ),
        m(
            "log file parallel write p99",
            Ns,
            DOWN,
            |x| p99(&x.writer.log_file_parallel_write),
            Spr::No,
        ),
        m(
            "writes/s",
            PerSecond,
            None,
            |x| Some(x.writer.writes_per_sec),
            Spr::Series("writes_per_s"),
        ),
        m(
            "commits per write",
            Number,
            None,
            |x| Some(x.writer.commits_per_write),
            Spr::Series("commits_per_write"),
        ),
        m(
            "redo wastage per commit",
            Bytes,
            DOWN,
            |x| Some(x.writer.wastage_bytes as f64 / x.commits.max(1) as f64),
            Spr::No,
        ),
        m(
            "device writes per commit",
            Number,
            DOWN,
            |x| x.io.device_writes_per_commit,
            Spr::No,
        ),
        m(
            "device flushes per commit",
            Number,
            DOWN,
            |x| x.io.device_flushes_per_commit,
            Spr::No,
        ),
    ]
}

impl Entry for ReadResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

fn tier_pct(x: &ReadResult, t: Tier) -> Option<f64> {
    (x.ops > 0).then(|| x.tiers.get(t).count as f64 / x.ops as f64 * 100.0)
}

fn read_metrics() -> Vec<Metric<ReadResult>> {
    vec![
        m("IOPS", PerSecond, UP, |x| Some(x.iops), Spr::Series("iops")),
        m("lat mean", Ns, DOWN, |x| mean(&x.lat), Spr::No),
        m("lat p50", Ns, DOWN, |x| p50(&x.lat), Spr::Series("p50")),
        m("lat p99", Ns, DOWN, |x| p99(&x.lat), Spr::Series("p99")),
        m(
            "page cache reads",
            Percent,
            None,
            |x| tier_pct(x, Tier::PageCache),
            Spr::No,
        ),
        m(
            "storage cache reads",
            Percent,
            None,
            |x| tier_pct(x, Tier::StorageCache),
            Spr::No,
        ),
        m(
            "device reads",
            Percent,
            None,
            |x| tier_pct(x, Tier::Device),
            Spr::No,
        ),
        m(
            "device read p50",
            Ns,
            DOWN,
            |x| {
                x.per_second
                    .iter()
                    .find(|s| s.name == "device_p50")
                    .and_then(|s| s.spread())
                    .map(|s| s.median)
            },
            Spr::Series("device_p50"),
        ),
    ]
}

impl Entry for DbwrResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

fn dbwr_metrics() -> Vec<Metric<DbwrResult>> {
    vec![
        m(
            "ops/s",
            PerSecond,
            UP,
            |x| Some(x.foreground.ops_per_sec),
            Spr::Series("ops_per_s"),
        ),
        m(
            "write IOPS",
            PerSecond,
            None,
            |x| Some(x.writes.write_iops),
            Spr::Series("writes_per_s"),
        ),
        m(
            "free buffer waits",
            Number,
            DOWN,
            |x| Some(x.foreground.free_buffer_waits.count as f64),
            Spr::No,
        ),
        m(
            "free buffer waits/s",
            PerSecond,
            DOWN,
            |x| {
                Some(
                    x.foreground.free_buffer_waits.count as f64
                        / (x.runtime_ns.max(1) as f64 / 1e9),
                )
            },
            Spr::Series("free_buffer_waits_per_s"),
        ),
        m(
            "hit ratio",
            Percent,
            None,
            |x| Some(x.foreground.hit_ratio * 100.0),
            Spr::No,
        ),
        m(
            "read p50",
            Ns,
            DOWN,
            |x| p50(&x.foreground.read_time),
            Spr::No,
        ),
        m(
            "batch mean",
            Number,
            None,
            |x| Some(x.writes.batch_mean),
            Spr::No,
        ),
        m(
            "write p50",
            Ns,
            DOWN,
            |x| p50(&x.writes.parallel_write),
            Spr::No,
        ),
        m(
            "writers CPU per write",
            Ns,
            DOWN,
            |x| Some(x.writers_cpu.per_io_ns),
            Spr::No,
        ),
    ]
}

impl Entry for LoadResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

fn load_metrics() -> Vec<Metric<LoadResult>> {
    vec![
        m("TPS", PerSecond, UP, |x| Some(x.tps), Spr::Series("tps")),
        m("commit mean", Ns, DOWN, |x| mean(&x.commit), Spr::No),
        m(
            "commit p50",
            Ns,
            DOWN,
            |x| p50(&x.commit),
            Spr::Series("commit_p50"),
        ),
        m(
            "commit p99",
            Ns,
            DOWN,
            |x| p99(&x.commit),
            Spr::Series("commit_p99"),
        ),
        m(
            "commits per flush",
            Number,
            None,
            |x| x.derived.commits_per_flush,
            Spr::No,
        ),
        m(
            "flush latency",
            Ns,
            DOWN,
            |x| x.derived.flush_latency_ns,
            Spr::No,
        ),
        m(
            "CPU per commit",
            Ns,
            DOWN,
            |x| Some(x.cpu.per_io_ns),
            Spr::No,
        ),
    ]
}

impl Entry for EventStats {
    fn name(&self) -> String {
        self.name.clone()
    }
}

fn event_metrics() -> Vec<Metric<EventStats>> {
    vec![
        m("count", Number, None, |e| Some(e.count as f64), Spr::No),
        m("total", Us, DOWN, |e| Some(e.total_us as f64), Spr::No),
        m("mean", Us, DOWN, |e| Some(e.mean_us), Spr::No),
        m("p50", Us, DOWN, |e| Some(e.p50_us as f64), Spr::No),
        m("p99", Us, DOWN, |e| Some(e.p99_us as f64), Spr::No),
    ]
}

impl Entry for ProfileLine {
    fn name(&self) -> String {
        self.name.clone()
    }
}

fn profile_metrics() -> Vec<Metric<ProfileLine>> {
    vec![
        m("time", Us, DOWN, |p| Some(p.total_us as f64), Spr::No),
        m("share", Percent, None, |p| Some(p.share * 100.0), Spr::No),
        m("count", Number, None, |p| Some(p.count as f64), Spr::No),
    ]
}

impl Entry for WaitEventRow {
    fn name(&self) -> String {
        self.name.clone()
    }
}

fn wait_event_metrics() -> Vec<Metric<WaitEventRow>> {
    vec![
        m("waits", Number, None, |e| e.waits, Spr::No),
        m("time", S, DOWN, |e| e.time_s, Spr::No),
        m("avg wait", Us, DOWN, |e| e.avg_us, Spr::No),
        m("% DB time", Percent, None, |e| e.pct_db_time, Spr::No),
    ]
}

impl Entry for LoadProfileRow {
    fn name(&self) -> String {
        self.name.clone()
    }
}

fn load_profile_metrics() -> Vec<Metric<LoadProfileRow>> {
    vec![
        m("per second", Number, None, |r| r.per_second, Spr::No),
        m(
            "per transaction",
            Number,
            None,
            |r| r.per_transaction,
            Spr::No,
        ),
    ]
}

/// Every compared row of `outcomes` (all of one command), and warnings
/// for what is not compared.
pub(crate) fn rows(outcomes: &[&Outcome], rows: &mut Vec<ComparedRow>, warnings: &mut Vec<String>) {
    fn each<'a, R: 'a, T: 'a>(xs: &[&'a R], f: impl Fn(&'a R) -> &'a [T]) -> Vec<Vec<&'a T>> {
        xs.iter().map(|r| f(r).iter().collect()).collect()
    }
    match outcomes[0] {
        Outcome::Run(_) => {
            let runs: Vec<&RunReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Run(r) => Some(r),
                    _ => None,
                })
                .collect();
            section_rows(
                "job",
                &each(&runs, |r| &r.jobs),
                &job_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "lgwr",
                &each(&runs, |r| &r.lgwr),
                &lgwr_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "read",
                &each(&runs, |r| &r.reads),
                &read_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "dbwr",
                &each(&runs, |r| &r.dbwr),
                &dbwr_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "load",
                &each(&runs, |r| &r.load),
                &load_metrics(),
                rows,
                warnings,
            );
            if runs.iter().any(|r| !r.watch.is_empty()) {
                warnings
                    .push("live traces (watch) are not compared: compare their JSON or CSV".into());
            }
            if runs.iter().any(|r| r.calibration.is_some()) {
                let th: Vec<Vec<&dbio_model::calibrate::Calibration>> = runs
                    .iter()
                    .map(|r| r.calibration.iter().collect())
                    .collect();
                section_rows("calibrate", &th, &calibrate_metrics(), rows, warnings);
            }
        }
        Outcome::Trace(_) => {
            let ts: Vec<&TraceReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Trace(t) => Some(t),
                    _ => None,
                })
                .collect();
            let resp: Vec<Vec<&TraceReport>> = ts.iter().map(|t| vec![*t]).collect();
            section_rows("response time", &resp, &response_metrics(), rows, warnings);
            section_rows(
                "profile",
                &each(&ts, |t| &t.profile.lines),
                &profile_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "event",
                &each(&ts, |t| &t.events),
                &event_metrics(),
                rows,
                warnings,
            );
        }
        Outcome::Awr(_) => {
            let rs: Vec<&AwrReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Awr(r) => Some(r),
                    _ => None,
                })
                .collect();
            section_rows(
                "load profile",
                &each(&rs, |r| &r.load_profile),
                &load_profile_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "top event",
                &each(&rs, |r| &r.top_events),
                &wait_event_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "foreground event",
                &each(&rs, |r| &r.foreground_events),
                &wait_event_metrics(),
                rows,
                warnings,
            );
        }
        _ => {}
    }
}

impl Entry for TraceReport {
    fn name(&self) -> String {
        "all".into()
    }
}

fn response_metrics() -> Vec<Metric<TraceReport>> {
    vec![
        m(
            "response time",
            Us,
            DOWN,
            |t| Some(t.profile.response_time_us as f64),
            Spr::No,
        ),
        m("CPU", Us, DOWN, |t| Some(t.profile.cpu_us as f64), Spr::No),
        m(
            "unaccounted",
            Us,
            DOWN,
            |t| Some(t.profile.unaccounted_us as f64),
            Spr::No,
        ),
    ]
}

impl Entry for dbio_model::calibrate::Calibration {
    fn name(&self) -> String {
        self.name.clone()
    }
}

fn calibrate_metrics() -> Vec<Metric<dbio_model::calibrate::Calibration>> {
    vec![
        m(
            "page cache boundary",
            Ns,
            None,
            |c| Some(c.page_cache_max_ns as f64),
            Spr::No,
        ),
        m(
            "storage cache boundary",
            Ns,
            None,
            |c| Some(c.storage_cache_max_ns as f64),
            Spr::No,
        ),
    ]
}
