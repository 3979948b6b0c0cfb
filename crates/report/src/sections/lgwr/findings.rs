//! The commit path in words (`dbio lgwr` and the commit section of `dbio
//! check`): how often sessions commit, how 'log file sync' compares with
//! 'log file parallel write', where a commit's time goes, what group commit
//! did, reads a buffered log forced, lost records, and which configuration
//! or durability method commits fastest.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, pct, plural, Finding, Severity};
use crate::kit::references::{doc, lgwr_buffered_vs_direct, log_file_sync};
use crate::verdict::severity_of_share;
use dbio_model::lgwr::LgwrResult;
use dbio_model::units::{format_bytes, format_count_rate, format_ns};
use dbio_model::RunReport;

/// The commit path's rules (the `lgwr` section of `lgwr` and `check`).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "commit",
    evaluate,
};

fn evaluate(r: &RunReport) -> Vec<Finding> {
    match r.command.as_str() {
        "lgwr" => {
            let mut out: Vec<Finding> = non_durable(r).into_iter().collect();
            out.extend(r.lgwr.iter().flat_map(run));
            out.extend(versus_first(&r.lgwr));
            out
        }
        "check" => check_section(&r.lgwr),
        _ => Vec::new(),
    }
}

/// One configuration's findings.
pub fn run(x: &LgwrResult) -> Vec<Finding> {
    let mut v = Vec::new();
    if x.commits == 0 {
        return v;
    }
    let name = Some(x.name.as_str());
    let lfs = x.log_file_sync.p50_ns() as f64;
    let lfpw = x.writer.log_file_parallel_write.p50_ns() as f64;
    v.push(finding(
        "commit.sync_vs_write",
        name,
        Severity::Info,
        format!(
            "{}: {} session{} committed about {} times per second with a median 'log file sync' of {} against a median 'log file parallel write' of {} ({:.1}x); group commit put {:.1} commits in each write.",
            x.name,
            x.config.sessions,
            plural(x.config.sessions),
            format_count_rate(x.tps),
            format_ns(lfs),
            format_ns(lfpw),
            lfs / lfpw.max(1.0),
            x.writer.commits_per_write
        ),
        vec![
            ev("commits per second", x.tps, "ops/s"),
            ev("median 'log file sync'", lfs, "ns"),
            ev("median 'log file parallel write'", lfpw, "ns"),
            ev("commits per write", x.writer.commits_per_write, "count"),
        ],
        Some(log_file_sync()),
    ));
    v.extend(breakdown(x));
    if x.io.proc_read_bytes > 0 {
        v.push(finding(
            "commit.log_reads",
            name,
            Severity::Notice,
            format!(
                "{}: the log writer's storage reads were {} during the run ({} per commit): partial-block buffered rewrites read the log file (as the 1 MiB log-file reads of buffered redo in \"Analyzing Oracle Logwriter w/ buffered vs. direct I/O\").",
                x.name,
                format_bytes(x.io.proc_read_bytes),
                format_bytes(x.io.proc_read_bytes / x.commits)
            ),
            vec![
                ev("bytes read from storage", x.io.proc_read_bytes as f64, "bytes"),
                ev("commits", x.commits as f64, "count"),
            ],
            Some(lgwr_buffered_vs_direct()),
        ));
    }
    if let Some(vr) = &x.verify {
        if vr.bad > 0 {
            v.push(finding(
                "commit.lost_records",
                name,
                Severity::Warning,
                format!(
                    "{}: {} committed records were missing or damaged when read back: {}",
                    x.name,
                    vr.bad,
                    vr.first_bad.clone().unwrap_or_default()
                ),
                vec![
                    ev("records missing or damaged", vr.bad as f64, "count"),
                    ev("records intact", vr.checked as f64, "count"),
                ],
                Some(doc("docs/lgwr.md")),
            ));
        }
    }
    v
}

/// Storage that does not keep what it acknowledges, as `dbio lgwr` sees
/// it: a memory filesystem or a mount without flushes on a write-back
/// cache ([`dbio_model::Environment::non_durable_reason`]), a write-back
/// device without FUA that counted no cache flush in a real run's 100
/// commits or more, or committed records missing when read back. Such a
/// commit rate is memory's, never "good for a commit log".
pub fn non_durable(r: &RunReport) -> Option<Finding> {
    let x = r.lgwr.iter().find(|x| x.commits > 0)?;
    let why = r.environment.non_durable_reason().or_else(|| {
        let dropped = r.lgwr.iter().find(|x| {
            x.config.real_io() && x.commits >= 100 && x.io.device_flushes_per_commit == Some(0.0)
        })?;
        r.environment
            .dropped_flushes_reason(dropped.commits, &dropped.name)
    });
    let lost = r
        .lgwr
        .iter()
        .find(|x| x.verify.as_ref().is_some_and(|v| v.bad > 0));
    let (why, so) = match (why, lost) {
        (Some(w), _) => (w, "are memory's speed, not a database log's"),
        (None, Some(l)) => (
            format!(
                "{} committed records of {} were missing or damaged when read back",
                l.verify.as_ref().map_or(0, |v| v.bad),
                l.name
            ),
            "were acknowledged for records the storage did not keep",
        ),
        (None, None) => return None,
    };
    Some(finding(
        "commit.non_durable",
        None,
        Severity::Warning,
        format!(
            "Not durable storage: {why}; its {} commits/s (mean 'log file sync' {}) {so}",
            format_count_rate(x.tps),
            format_ns(x.log_file_sync.mean_ns)
        ),
        vec![
            ev("commits per second", x.tps, "ops/s"),
            ev("mean 'log file sync'", x.log_file_sync.mean_ns, "ns"),
        ],
        Some(doc("docs/GUIDE.md")),
    ))
}

/// A part of a commit's time ('log file sync'), as the breakdown splits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Waiting for the writer to take the redo.
    WaitForWriter,
    /// The writer's write and sync (the device's time).
    WriterIo,
    /// The writer posting sessions ahead of this one.
    Posting,
    /// From the writer's post until the session ran again.
    WakeUp,
}

impl Part {
    /// The four parts, in the order a commit passes them.
    pub const ALL: [Part; 4] = [
        Part::WaitForWriter,
        Part::WriterIo,
        Part::Posting,
        Part::WakeUp,
    ];

    /// The part in words.
    pub fn label(self) -> &'static str {
        match self {
            Part::WaitForWriter => "waiting for the log writer to take the redo",
            Part::WriterIo => "the log writer's write and sync",
            Part::Posting => "the writer posting other sessions first",
            Part::WakeUp => "getting the CPU back after the writer's post",
        }
    }

    /// Its mean in `x`, ns.
    pub fn mean_ns(self, x: &LgwrResult) -> f64 {
        let b = &x.breakdown;
        match self {
            Part::WaitForWriter => b.wait_for_writer.mean_ns,
            Part::WriterIo => b.writer_io.mean_ns,
            Part::Posting => b.posting.mean_ns,
            Part::WakeUp => b.wake_up.mean_ns,
        }
    }

    /// Its share of the mean 'log file sync' in `x`, percent.
    pub fn share_pct(self, x: &LgwrResult) -> f64 {
        let total = x.log_file_sync.mean_ns;
        if total > 0.0 {
            100.0 * self.mean_ns(x) / total
        } else {
            0.0
        }
    }

    /// Whether the part is the log device's time in `x`: the writer's
    /// I/O always; the wait for the writer when it is at most one write
    /// (a session that arrives during a write waits for it to end, then
    /// for its own: Nikolay Savvinov's queueing); posting and waking never.
    pub fn is_storage(self, x: &LgwrResult) -> bool {
        match self {
            Part::WriterIo => true,
            Part::WaitForWriter => {
                self.mean_ns(x)
                    <= x.writer
                        .log_file_parallel_write
                        .mean_ns
                        .max(Part::WriterIo.mean_ns(x))
            }
            Part::Posting | Part::WakeUp => false,
        }
    }

    /// What the part is, for the reader: the device's time or not.
    fn reading(self, x: &LgwrResult) -> &'static str {
        let null = !x.config.real_io();
        match self {
            Part::WriterIo if null => "the null engine's injected write time (no storage)",
            Part::WriterIo => "the log device's time",
            Part::WaitForWriter if self.is_storage(x) => {
                "at most one log write: queueing behind the write in progress, the log device's time again"
            }
            Part::WaitForWriter => {
                "longer than a log write: the writer was not running (CPU, scheduling, commit_delay), not the disk"
            }
            Part::Posting => "CPU, not the disk",
            Part::WakeUp => "scheduling, not the disk",
        }
    }
}

/// A commit's time split into its parts, each with its share of commit
/// time: every part at or above a tenth, and the largest always. Each
/// names whether the log device explains it ("Log File Sync wait event
/// and SSD disks": 20.8 ms of 'log file sync' against 0.1 ms of 'log file
/// parallel write' was scheduling).
pub fn breakdown(x: &LgwrResult) -> Vec<Finding> {
    if x.log_file_sync.mean_ns <= 0.0 {
        return Vec::new();
    }
    let largest = Part::ALL
        .into_iter()
        .max_by(|a, b| a.mean_ns(x).total_cmp(&b.mean_ns(x)))
        .expect("four parts");
    Part::ALL
        .into_iter()
        .filter(|p| *p == largest || p.share_pct(x) >= 10.0)
        .map(|p| {
            let share = p.share_pct(x);
            finding(
                "commit.breakdown",
                Some(&x.name),
                severity_of_share(share),
                format!(
                    "{}: {} is {} of a commit's time ({} of a mean 'log file sync' of {}): {}.",
                    x.name,
                    p.label(),
                    pct(share),
                    format_ns(p.mean_ns(x)),
                    format_ns(x.log_file_sync.mean_ns),
                    p.reading(x)
                ),
                vec![
                    ev("mean 'log file sync'", x.log_file_sync.mean_ns, "ns"),
                    ev(&format!("mean of {}", p.label()), p.mean_ns(x), "ns"),
                    ev("share of commit time", share, "%"),
                ],
                Some(if p == Part::WriterIo {
                    doc("docs/lgwr.md")
                } else {
                    log_file_sync()
                }),
            )
            .with_impact(share, "commit time")
        })
        .collect()
}

/// Each configuration after the first against the first (`--compare`).
pub fn versus_first(xs: &[LgwrResult]) -> Vec<Finding> {
    let Some((base, rest)) = xs.split_first() else {
        return Vec::new();
    };
    rest.iter()
        .map(|x| {
            let ratio = x.tps / base.tps.max(1e-9);
            finding(
                "commit.compare",
                Some(&x.name),
                Severity::Info,
                format!(
                    "{} commits {ratio:.2}x as fast as {} ({} vs {} TPS).",
                    x.name,
                    base.name,
                    format_count_rate(x.tps),
                    format_count_rate(base.tps)
                ),
                vec![
                    ev(&format!("commits per second, {}", x.name), x.tps, "ops/s"),
                    ev(
                        &format!("commits per second, {}", base.name),
                        base.tps,
                        "ops/s",
                    ),
                    ev("ratio", ratio, "x"),
                ],
                Some(doc("docs/lgwr.md")),
            )
        })
        .collect()
}

/// `dbio check`'s commit section: one session, then ten sessions (the
/// methods compared at ten sessions are check's `check.commit_method`,
/// beside the raw tests of the same methods).
fn check_section(xs: &[LgwrResult]) -> Vec<Finding> {
    let (Some(one), Some(ten)) = (xs.first(), xs.get(1)) else {
        return Vec::new();
    };
    vec![finding(
        "commit.check_sessions",
        None,
        Severity::Info,
        format!(
            "Commit path: one session commits about {} times per second here (median 'log file sync' {}); at 10 sessions this storage commits about {} times per second with a median 'log file sync' of {}; group commit puts {:.1} commits in each write.",
            format_count_rate(one.tps),
            format_ns(one.log_file_sync.p50_ns() as f64),
            format_count_rate(ten.tps),
            format_ns(ten.log_file_sync.p50_ns() as f64),
            ten.writer.commits_per_write
        ),
        vec![
            ev("commits per second, 1 session", one.tps, "ops/s"),
            ev("median 'log file sync', 1 session", one.log_file_sync.p50_ns() as f64, "ns"),
            ev("commits per second, 10 sessions", ten.tps, "ops/s"),
            ev("median 'log file sync', 10 sessions", ten.log_file_sync.p50_ns() as f64, "ns"),
            ev("commits per write, 10 sessions", ten.writer.commits_per_write, "count"),
        ],
        Some(log_file_sync()),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::lgwr::{Method, VerifyResult};

    fn result(name: &str, tps: f64) -> LgwrResult {
        let mut x = LgwrResult {
            name: name.into(),
            commits: 1000,
            tps,
            ..Default::default()
        };
        x.config.sessions = 1;
        x
    }

    fn with_method(mut x: LgwrResult, method: Method) -> LgwrResult {
        x.config.method = method;
        x
    }

    fn report(command: &str, lgwr: Vec<LgwrResult>) -> RunReport {
        RunReport {
            command: command.into(),
            lgwr,
            ..Default::default()
        }
    }

    #[test]
    fn log_reads_and_lost_records_appear_from_the_first_one() {
        let mut x = result("lgwr", 100.0);
        x.log_file_sync.mean_ns = 100.0;
        x.breakdown.writer_io.mean_ns = 100.0;
        let rules = |x: &LgwrResult| run(x).into_iter().map(|f| f.rule).collect::<Vec<_>>();
        assert_eq!(rules(&x), ["commit.sync_vs_write", "commit.breakdown"]);
        x.verify = Some(VerifyResult::default());
        assert_eq!(rules(&x).len(), 2, "nothing lost, nothing said");
        x.io.proc_read_bytes = 1;
        x.verify = Some(VerifyResult {
            bad: 1,
            ..Default::default()
        });
        let f = run(&x);
        assert_eq!(f[2].rule, "commit.log_reads");
        assert_eq!(f[3].rule, "commit.lost_records");
        assert_eq!(f[3].severity, Severity::Warning);
        assert!(f[2].reference.as_ref().unwrap().title.contains("Logwriter"));
        // No commits: nothing to say.
        x.commits = 0;
        assert!(run(&x).is_empty());
    }

    #[test]
    fn each_part_of_a_commit_from_a_tenth_carries_its_share() {
        let mut x = result("lgwr", 100.0);
        x.log_file_sync.mean_ns = 100.0;
        x.writer.log_file_parallel_write.mean_ns = 50.0;
        x.breakdown.writer_io.mean_ns = 50.0;
        x.breakdown.wake_up.mean_ns = 40.0;
        x.breakdown.posting.mean_ns = 9.9;
        let f = breakdown(&x);
        assert_eq!(f.len(), 2, "posting, under a tenth, is left out");
        assert_eq!(
            f[0].text,
            "lgwr: the log writer's write and sync is 50 % of a commit's time (50.0 ns of a mean 'log file sync' of 100 ns): the log device's time."
        );
        assert_eq!(f[0].severity, Severity::Warning);
        assert_eq!(f[0].impact.as_ref().unwrap().share_pct, 50.0);
        assert_eq!(f[0].impact.as_ref().unwrap().of, "commit time");
        assert!(f[1]
            .text
            .contains("getting the CPU back after the writer's post is 40 %"));
        assert!(
            f[1].text.ends_with("scheduling, not the disk."),
            "{}",
            f[1].text
        );
        assert_eq!(f[1].severity, Severity::Notice);
        // The largest part is named even under a tenth.
        x.breakdown.writer_io.mean_ns = 5.0;
        x.breakdown.wake_up.mean_ns = 9.9;
        x.breakdown.posting.mean_ns = 5.0;
        let f = breakdown(&x);
        assert_eq!(f.len(), 1);
        assert!(f[0].text.contains("post is 9.9 % of"), "{}", f[0].text);
        // Waiting for the writer: at most one write is the device's queue,
        // longer is the writer not running.
        x.breakdown.wait_for_writer.mean_ns = 50.0;
        assert!(Part::WaitForWriter.is_storage(&x));
        x.breakdown.wait_for_writer.mean_ns = 51.0;
        assert!(!Part::WaitForWriter.is_storage(&x));
        assert!(breakdown(&x)[0].text.contains("longer than a log write"));
    }

    #[test]
    fn compare_names_the_fastest_and_check_compares_sessions() {
        let r = report("lgwr", vec![result("a", 100.0), result("b", 250.0)]);
        let f = evaluate(&r);
        let last = f.last().unwrap();
        assert_eq!(last.text, "b commits 2.50x as fast as a (250 vs 100 TPS).");
        let c = report(
            "check",
            vec![
                result("one", 100.0),
                with_method(result("ten", 500.0), Method::DirectDsync),
                with_method(result("other", 300.0), Method::BufferedFsync),
            ],
        );
        // The methods at ten sessions are compared by check's own rules,
        // beside the raw tests of the same methods.
        let f = evaluate(&c);
        assert_eq!(f.len(), 1);
        assert!(f[0]
            .text
            .contains("at 10 sessions this storage commits about 500 times"));
        assert!(evaluate(&report("check", vec![result("one", 1.0)])).is_empty());
        assert!(evaluate(&report("dbwr", vec![result("one", 1.0)])).is_empty());
    }
}
