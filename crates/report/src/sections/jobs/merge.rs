//! `dbio merge`: the results of one job run on many hosts at once, as one
//! result of the same model.
//!
//! Shared storage (a SAN, a NAS, a cloud volume) is tested from many hosts
//! at once; each host writes its own result (`--json`), and this combines
//! them. Operation and byte counts are summed; latency distributions are
//! merged exactly ([`LatencySummary::merge_exact`]: the merged
//! percentiles are those of one HDR histogram holding every host's
//! samples); per-second series are aligned by wall-clock second (each
//! job records when its measured interval began); and each host's own
//! result is kept, unchanged, as a labelled part.
//!
//! Rates of the merged job are over the span from the first host's start
//! to the last host's end, so hosts that ran together add up and hosts
//! that did not are not flattered. Only results of the same command with
//! the same jobs merge; anything else is refused with one sentence.

use dbio_model::stripe::{StripeResult, StripeTarget};
use dbio_model::units::format_bytes;
use dbio_model::{
    CpuUsage, DiskStatsDelta, Finding, JobConfig, JobResult, LatencySummary, OpStats,
    PartialReason, RunReport, SecondSample, Severity, SCHEMA_VERSION,
};
use std::collections::BTreeMap;

/// A part's name in the merged result: its `--label`, else its host name,
/// else its position.
pub fn part_label(r: &RunReport, i: usize) -> String {
    r.label
        .clone()
        .filter(|l| !l.is_empty())
        .or_else(|| Some(r.environment.hostname.clone()).filter(|h| !h.is_empty()))
        .unwrap_or_else(|| format!("part {}", i + 1))
}

/// How far apart the parts' starts may be ([`merge_checked`]).
#[derive(Debug, Clone, Copy)]
pub struct Skew {
    /// Largest spread of the parts' measured-interval starts, ns.
    pub max_ns: u64,
    /// Merge a larger spread anyway, with a warning finding.
    pub allow: bool,
}

/// The spread of the parts' measured-interval starts in each job: (job
/// name, latest minus earliest start ns, the earliest and the latest
/// part's label); jobs where a part recorded no start are left out.
pub fn start_spreads(parts: &[(String, RunReport)]) -> Vec<(String, u64, String, String)> {
    let flat: Vec<&RunReport> = parts
        .iter()
        .flat_map(|(_, r)| {
            if r.parts.is_empty() {
                vec![r]
            } else {
                r.parts.iter().collect()
            }
        })
        .collect();
    let Some(first) = flat.first() else {
        return Vec::new();
    };
    (0..first.jobs.len())
        .filter_map(|i| {
            let starts: Vec<(u64, usize)> = flat
                .iter()
                .enumerate()
                .map(|(p, r)| Some((r.jobs.get(i)?.started_at_unix_ns?, p)))
                .collect::<Option<_>>()?;
            let lo = starts.iter().min()?;
            let hi = starts.iter().max()?;
            Some((
                first.jobs[i].name.clone(),
                hi.0 - lo.0,
                part_label(flat[lo.1], lo.1),
                part_label(flat[hi.1], hi.1),
            ))
        })
        .collect()
}

/// [`merge`], refusing parts whose measured intervals began further apart
/// than `skew.max_ns` (they did not run together: a missing or
/// misconfigured `--start-at`, or clocks that disagree), unless
/// `skew.allow`, when the merged result says so in a warning finding. Parts whose
/// clocks were unsynchronised or beyond their limit when they started
/// are named in a notice finding.
pub fn merge_checked(parts: Vec<(String, RunReport)>, skew: &Skew) -> Result<RunReport, String> {
    let ms = |ns: u64| ns as f64 / 1e6;
    let mut notes = Vec::new();
    let spreads = start_spreads(&parts);
    // The parts must be the same jobs before their timing matters.
    let mut m = merge(parts)?;
    for (job, spread, early, late) in spreads {
        if spread <= skew.max_ns {
            continue;
        }
        let what = format!(
            "in job '{job}' the parts' measured intervals began {:.3} ms apart ({early} first, {late} last), more than --max-skew {:.3} ms",
            ms(spread),
            ms(skew.max_ns)
        );
        if !skew.allow {
            return Err(format!(
                "{what}: they did not run together; start every host with one --start-at on synchronised clocks, or pass --allow-skew to merge them anyway"
            ));
        }
        notes.push(Finding::note(
            "merge.skew_allowed",
            Severity::Warning,
            format!("{what}; merged anyway (--allow-skew): the rates are over the span from the first start to the last end"),
        ).with_evidence("start spread", spread as f64, "ns"));
    }
    for (i, p) in m.parts.iter().enumerate() {
        if let Some(c) = &p.clock {
            if !c.synchronised {
                notes.push(Finding::note(
                    "merge.clock_unsynchronised",
                    Severity::Notice,
                    format!(
                        "{}: its clock was not synchronised when it started (maximum error {:.3} ms), so its start time is only as good as that",
                        part_label(p, i),
                        c.max_error_us as f64 / 1e3
                    ),
                ).with_evidence("maximum clock error", c.max_error_us as f64 * 1e3, "ns"));
            }
        }
    }
    m.findings.extend(notes);
    Ok(m)
}

/// Merges `parts` (each named by its file, for messages) into one result.
pub fn merge(parts: Vec<(String, RunReport)>) -> Result<RunReport, String> {
    // An already merged result contributes its own parts.
    let mut flat: Vec<(String, RunReport)> = Vec::new();
    for (name, r) in parts {
        if r.parts.is_empty() {
            flat.push((name, r));
        } else {
            for p in r.parts {
                flat.push((name.clone(), p));
            }
        }
    }
    if flat.len() < 2 {
        return Err("dbio merge needs the results of at least two runs".into());
    }
    let (first_name, first) = &flat[0];
    for (name, r) in &flat {
        if r.command != first.command {
            return Err(format!(
                "{name} is a '{}' result and {first_name} a '{}' result; only results of the same command merge",
                r.command, first.command
            ));
        }
        let other = crate::sections::in_comparison_order()
            .into_iter()
            .find_map(|s| s.merge_refusal(r));
        if let Some(what) = other {
            return Err(format!(
                "{name} holds {what} results; dbio merge combines raw I/O jobs (bench and the raw sections of check) only"
            ));
        }
        if r.jobs.is_empty() {
            return Err(format!("{name} holds no raw I/O jobs to merge"));
        }
        if r.jobs.len() != first.jobs.len() {
            return Err(format!(
                "{name} ran {} jobs and {first_name} {}; only results of the same jobs merge",
                r.jobs.len(),
                first.jobs.len()
            ));
        }
        for (a, b) in r.jobs.iter().zip(&first.jobs) {
            if a.name != b.name {
                return Err(format!(
                    "{name} has job '{}' where {first_name} has '{}'; only results of the same jobs merge",
                    a.name, b.name
                ));
            }
            if let Some(d) = config_difference(&b.job, &a.job) {
                return Err(format!(
                    "job '{}' differs between {first_name} and {name} ({d}); only results of the same jobs merge",
                    a.name
                ));
            }
        }
    }
    let labels: Vec<String> = flat
        .iter()
        .enumerate()
        .map(|(i, (_, r))| part_label(r, i))
        .collect();
    let mut notes = Vec::new();
    let jobs: Vec<JobResult> = (0..first.jobs.len())
        .map(|i| {
            let js: Vec<&JobResult> = flat.iter().map(|(_, r)| &r.jobs[i]).collect();
            merge_job(&js, &labels, &mut notes)
        })
        .collect();
    let mut partial = None;
    for (label, (_, r)) in labels.iter().zip(&flat) {
        if let Some(p) = &r.partial {
            partial.get_or_insert(PartialReason::Incomplete {
                message: format!("the part {label} is partial ({p})"),
            });
        }
        // A part written before notes were findings: its warnings, named.
        for w in &r.warnings {
            notes.push(Finding::note(
                "merge.part_warning",
                Severity::Notice,
                format!("{label}: {w}"),
            ));
        }
    }
    let mut environment = first.environment.clone();
    environment.hostname = labels.join(", ");
    notes.insert(
        0,
        Finding::note(
            "merge.parts",
            Severity::Info,
            format!(
                "merged from {} runs ({}); the environment shown is the first one's, each part keeps its own",
                flat.len(),
                labels.join(", ")
            ),
        ),
    );
    let (command, layout) = (first.command.clone(), first.layout);
    let parts: Vec<RunReport> = flat
        .into_iter()
        .zip(&labels)
        .map(|((_, mut r), l)| {
            r.label = Some(l.clone());
            r
        })
        .collect();
    Ok(RunReport {
        schema_version: SCHEMA_VERSION,
        tool: format!("dbio {}", env!("CARGO_PKG_VERSION")),
        command,
        started_at_unix: parts.iter().map(|p| p.started_at_unix).min().unwrap_or(0),
        environment,
        jobs,
        partial,
        findings: notes,
        layout,
        start_at_unix_ns: parts[0].start_at_unix_ns,
        parts,
        ..Default::default()
    })
}

/// The first setting that differs between two jobs, in fio's words; None
/// when they are the same job (the seed may differ: hosts draw their own
/// offsets).
fn config_difference(a: &JobConfig, b: &JobConfig) -> Option<String> {
    let same = JobConfig {
        seed: b.seed,
        ..a.clone()
    };
    if same == *b {
        return None;
    }
    let d = if a.engine != b.engine {
        format!("--engine {} against {}", a.engine.name(), b.engine.name())
    } else if a.rw != b.rw {
        format!("--rw {:?} against {:?}", a.rw, b.rw).to_lowercase()
    } else if a.bs != b.bs {
        format!("--bs {} against {}", format_bytes(a.bs), format_bytes(b.bs))
    } else if a.iodepth != b.iodepth {
        format!("--iodepth {} against {}", a.iodepth, b.iodepth)
    } else if a.threads != b.threads {
        format!("--threads {} against {}", a.threads, b.threads)
    } else if a.direct != b.direct {
        format!("--direct {} against {}", a.direct, b.direct)
    } else if a.sync != b.sync {
        format!("--sync {:?} against {:?}", a.sync, b.sync).to_lowercase()
    } else if a.size != b.size {
        format!(
            "--size {} against {}",
            format_bytes(a.size),
            format_bytes(b.size)
        )
    } else {
        "their other settings differ".to_string()
    };
    Some(d)
}

/// When a job's measured interval began, ns since the epoch (None in
/// results written before dbio recorded it).
fn start_ns(j: &JobResult) -> Option<u64> {
    j.started_at_unix_ns
}

fn merge_lat(ls: &[&LatencySummary], what: &str, inexact: &mut Vec<String>) -> LatencySummary {
    let (m, exact) = LatencySummary::merge_exact(ls);
    if !exact && !inexact.iter().any(|w| w == what) {
        inexact.push(what.to_string());
    }
    m
}

fn merge_ops(os: &[&OpStats], secs: f64, inexact: &mut Vec<String>) -> OpStats {
    let ops: u64 = os.iter().map(|o| o.ops).sum();
    let bytes: u64 = os.iter().map(|o| o.bytes).sum();
    OpStats {
        ops,
        bytes,
        iops: ops as f64 / secs,
        bytes_per_sec: bytes as f64 / secs,
        slat: merge_lat(
            &os.iter().map(|o| &o.slat).collect::<Vec<_>>(),
            "slat",
            inexact,
        ),
        clat: merge_lat(
            &os.iter().map(|o| &o.clat).collect::<Vec<_>>(),
            "clat",
            inexact,
        ),
        lat: merge_lat(
            &os.iter().map(|o| &o.lat).collect::<Vec<_>>(),
            "lat",
            inexact,
        ),
    }
}

fn sum_devices(ds: &[&DiskStatsDelta]) -> Option<DiskStatsDelta> {
    if ds.is_empty() {
        return None;
    }
    let sum = |f: fn(&DiskStatsDelta) -> u64| ds.iter().map(|d| f(d)).sum::<u64>();
    let opt = |f: fn(&DiskStatsDelta) -> Option<u64>| {
        ds.iter()
            .map(|d| f(d))
            .collect::<Option<Vec<u64>>>()
            .map(|v| v.iter().sum())
    };
    let mut names: Vec<String> = Vec::new();
    for d in ds {
        if !names.contains(&d.device) {
            names.push(d.device.clone());
        }
    }
    Some(DiskStatsDelta {
        device: names.join("+"),
        reads: sum(|d| d.reads),
        read_merges: sum(|d| d.read_merges),
        read_sectors: sum(|d| d.read_sectors),
        read_ms: sum(|d| d.read_ms),
        writes: sum(|d| d.writes),
        write_merges: sum(|d| d.write_merges),
        write_sectors: sum(|d| d.write_sectors),
        write_ms: sum(|d| d.write_ms),
        io_ms: sum(|d| d.io_ms),
        queue_ms: sum(|d| d.queue_ms),
        flushes: opt(|d| d.flushes),
        flush_ms: opt(|d| d.flush_ms),
    })
}

fn merge_job(js: &[&JobResult], labels: &[String], notes: &mut Vec<Finding>) -> JobResult {
    let first = js[0];
    let starts: Option<Vec<u64>> = js.iter().map(|j| start_ns(j)).collect();
    // The span from the first start to the last end when every part knows
    // its start; else the longest part.
    let runtime_ns = match &starts {
        Some(s) => {
            let begin = *s.iter().min().unwrap_or(&0);
            let end = js
                .iter()
                .zip(s)
                .map(|(j, st)| st + j.runtime_ns)
                .max()
                .unwrap_or(begin);
            let spread = s.iter().max().unwrap_or(&0) - begin;
            notes.push(
                Finding::note(
                    "merge.start_spread",
                    Severity::Info,
                    format!(
                        "job '{}': the {} parts' measured intervals began within {:.3} ms of each other",
                        first.name,
                        js.len(),
                        spread as f64 / 1e6
                    ),
                )
                .with_evidence("start spread", spread as f64, "ns"),
            );
            (end - begin).max(1)
        }
        None => {
            notes.push(Finding::note(
                "merge.start_unknown",
                Severity::Notice,
                format!(
                    "job '{}': a part does not record when its measurement began (written by an older dbio), so its rates are over the longest part and its series are not merged",
                    first.name
                ),
            ));
            js.iter().map(|j| j.runtime_ns).max().unwrap_or(1).max(1)
        }
    };
    let secs = runtime_ns as f64 / 1e9;
    let mut inexact = Vec::new();
    let reads: Vec<&OpStats> = js.iter().filter_map(|j| j.read.as_ref()).collect();
    let writes: Vec<&OpStats> = js.iter().filter_map(|j| j.write.as_ref()).collect();
    let syncs: Vec<&LatencySummary> = js.iter().filter_map(|j| j.sync.as_ref()).collect();
    let commits: Vec<&LatencySummary> = js.iter().filter_map(|j| j.commit.as_ref()).collect();
    let read = (!reads.is_empty()).then(|| merge_ops(&reads, secs, &mut inexact));
    let write = (!writes.is_empty()).then(|| merge_ops(&writes, secs, &mut inexact));
    let sync = (!syncs.is_empty()).then(|| merge_lat(&syncs, "sync", &mut inexact));
    let commit = (!commits.is_empty()).then(|| merge_lat(&commits, "commit", &mut inexact));
    if !inexact.is_empty() {
        notes.push(Finding::note(
            "merge.percentiles_left_out",
            Severity::Notice,
            format!(
                "job '{}': a part carries no HDR histogram (written by an older dbio), so the merged {} percentiles are left out; counts, means and the power-of-two buckets are exact",
                first.name,
                inexact.join(", ")
            ),
        ));
    }
    let ops = read.as_ref().map_or(0, |o| o.ops) + write.as_ref().map_or(0, |o| o.ops);
    let cpu_sum = |f: fn(&CpuUsage) -> u64| js.iter().map(|j| f(&j.cpu)).sum::<u64>();
    let (user_ns, system_ns) = (cpu_sum(|c| c.user_ns), cpu_sum(|c| c.system_ns));
    let cpu = CpuUsage {
        user_ns,
        system_ns,
        voluntary_cs: cpu_sum(|c| c.voluntary_cs),
        involuntary_cs: cpu_sum(|c| c.involuntary_cs),
        per_io_ns: if ops > 0 {
            (user_ns + system_ns) as f64 / ops as f64
        } else {
            0.0
        },
        utilisation: (user_ns + system_ns) as f64 / runtime_ns as f64,
    };
    let devices: Vec<&DiskStatsDelta> = js.iter().filter_map(|j| j.device.as_ref()).collect();
    let series = match &starts {
        Some(s) => merge_series(js, s),
        None => Vec::new(),
    };
    JobResult {
        name: first.name.clone(),
        job: first.job.clone(),
        target: labels
            .iter()
            .zip(js)
            .map(|(l, j)| format!("{l}:{}", j.target))
            .collect::<Vec<_>>()
            .join(", "),
        runtime_ns,
        read,
        write,
        sync,
        commit,
        cpu,
        device: if devices.len() == js.len() {
            sum_devices(&devices)
        } else {
            None
        },
        cached_before: None,
        cached_after: None,
        series,
        started_at_unix_ns: starts.as_ref().and_then(|s| s.iter().min().copied()),
        stripe: merge_stripes(js),
        block_device: js.iter().all(|j| j.block_device),
    }
}

/// Per-second samples of all parts, keyed by the wall-clock second in
/// which each sample's interval ended (a sample ends about a second after
/// the previous one, so each part has at most one sample per key, give or
/// take the reporter's few ms of lateness). Rates add up; the latency
/// percentiles of a second cannot be merged from per-second summaries, so
/// the merged sample shows the worst part's (the highest p50 and p99).
fn merge_series(js: &[&JobResult], starts: &[u64]) -> Vec<SecondSample> {
    let begin = starts.iter().min().copied().unwrap_or(0);
    let mut by_second: BTreeMap<u64, SecondSample> = BTreeMap::new();
    for (j, &st) in js.iter().zip(starts) {
        for s in &j.series {
            let end_ns = st + (s.t_s * 1e9) as u64;
            let key = (end_ns + 500_000_000) / 1_000_000_000;
            let m = by_second.entry(key).or_default();
            m.read_iops += s.read_iops;
            m.write_iops += s.write_iops;
            m.bytes_per_sec += s.bytes_per_sec;
            m.p50_ns = m.p50_ns.max(s.p50_ns);
            m.p99_ns = m.p99_ns.max(s.p99_ns);
        }
    }
    by_second
        .into_iter()
        .map(|(key, mut m)| {
            m.t_s = (key as f64 * 1e9 - begin as f64) / 1e9;
            m
        })
        .collect()
}

/// The members of stripes that every part ran with the same layout,
/// member by member; None otherwise.
fn merge_stripes(js: &[&JobResult]) -> Option<StripeResult> {
    let ss: Vec<&StripeResult> = js.iter().filter_map(|j| j.stripe.as_ref()).collect();
    let first = *ss.first()?;
    if ss.len() != js.len()
        || ss.iter().any(|s| {
            s.layout != first.layout
                || s.stripe_bytes != first.stripe_bytes
                || s.targets.len() != first.targets.len()
        })
    {
        return None;
    }
    let targets = (0..first.targets.len())
        .map(|i| {
            let ts: Vec<&StripeTarget> = ss.iter().map(|s| &s.targets[i]).collect();
            let devs: Vec<&DiskStatsDelta> = ts.iter().filter_map(|t| t.device.as_ref()).collect();
            StripeTarget {
                path: ts
                    .iter()
                    .map(|t| t.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                size: ts[0].size,
                reads: ts.iter().map(|t| t.reads).sum(),
                writes: ts.iter().map(|t| t.writes).sum(),
                bytes: ts.iter().map(|t| t.bytes).sum(),
                lat: LatencySummary::merge_exact(&ts.iter().map(|t| &t.lat).collect::<Vec<_>>()).0,
                device: if devs.len() == ts.len() {
                    sum_devices(&devs)
                } else {
                    None
                },
            }
        })
        .collect();
    Some(StripeResult {
        layout: first.layout,
        stripe_bytes: first.stripe_bytes,
        targets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(start_ns: u64, iops: &[f64]) -> JobResult {
        let series: Vec<serde_json::Value> = iops
            .iter()
            .enumerate()
            .map(|(i, r)| {
                serde_json::json!({"t_s": (i + 1) as f64 + 0.003, "read_iops": r, "write_iops": 0.0,
                    "bytes_per_sec": r * 4096.0, "p50_ns": 1000 * (i + 1), "p99_ns": 5000})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "name": "bench", "job": JobConfig::default(), "target": "/x",
            "runtime_ns": iops.len() as u64 * 1_000_000_000,
            "cpu": CpuUsage::default(), "series": series,
            "started_at_unix_ns": start_ns,
        }))
        .unwrap()
    }

    #[test]
    fn series_are_aligned_by_wall_clock_second() {
        let t0 = 1_795_521_600_000_000_000;
        // The second host began 1.2 s after the first: its first second
        // ends with the first host's second one.
        let (a, b) = (
            job(t0, &[100.0, 110.0, 120.0]),
            job(t0 + 1_200_000_000, &[7.0, 9.0]),
        );
        let mut w = Vec::new();
        let m = merge_job(&[&a, &b], &["a".into(), "b".into()], &mut w);
        let rates: Vec<f64> = m.series.iter().map(|s| s.read_iops).collect();
        assert_eq!(rates, vec![100.0, 117.0, 129.0]);
        let t: Vec<f64> = m.series.iter().map(|s| s.t_s.round()).collect();
        assert_eq!(t, vec![1.0, 2.0, 3.0]);
        // The span from the first start to the last end.
        assert_eq!(m.runtime_ns, 3_200_000_000);
        assert!(w[0].text.contains("within 1200.000 ms"), "{w:?}");
    }

    #[test]
    fn other_commands_and_jobs_are_refused() {
        let r = |command: &str, j: JobResult| RunReport {
            command: command.into(),
            jobs: vec![j],
            ..Default::default()
        };
        let t0 = 1_795_521_600_000_000_000;
        let e = merge(vec![
            ("a.json".into(), r("bench", job(t0, &[1.0]))),
            ("b.json".into(), r("check", job(t0, &[1.0]))),
        ])
        .unwrap_err();
        assert!(e.contains("only results of the same command merge"), "{e}");
        let mut other = job(t0, &[1.0]);
        other.job.bs = 4096;
        let e = merge(vec![
            ("a.json".into(), r("bench", job(t0, &[1.0]))),
            ("b.json".into(), r("bench", other)),
        ])
        .unwrap_err();
        assert!(e.contains("--bs 8.00 KiB against 4.00 KiB"), "{e}");
        let e = merge(vec![("a.json".into(), r("bench", job(t0, &[1.0])))]).unwrap_err();
        assert!(e.contains("at least two"), "{e}");
    }
}
