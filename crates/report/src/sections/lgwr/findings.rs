//! The commit path in words (`dbio lgwr` and the commit section of `dbio
//! check`): how often sessions commit, how 'log file sync' compares with
//! 'log file parallel write', where a commit's time goes, what group commit
//! did, reads a buffered log forced, lost records, and which configuration
//! or durability method commits fastest.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, plural, Finding, Severity};
use crate::kit::references::{doc, lgwr_buffered_vs_direct, log_file_sync};
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
            let mut out: Vec<Finding> = r.lgwr.iter().flat_map(run).collect();
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
    let b = &x.breakdown;
    let total = x.log_file_sync.mean_ns.max(1.0);
    let parts = [
        (
            "waiting for the log writer to take the redo",
            b.wait_for_writer.mean_ns,
        ),
        ("the log writer's I/O", b.writer_io.mean_ns),
        ("the writer posting other sessions first", b.posting.mean_ns),
        (
            "getting the CPU back after the writer's post (scheduling, not the disk)",
            b.wake_up.mean_ns,
        ),
    ];
    let (what, most) = parts
        .iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("four parts");
    v.push(finding(
        "commit.breakdown",
        name,
        Severity::Info,
        format!(
            "{}: most of a commit's time ({:.0} %) is {what}.",
            x.name,
            100.0 * most / total
        ),
        vec![
            ev("mean 'log file sync'", x.log_file_sync.mean_ns, "ns"),
            ev("mean of the largest part", most, "ns"),
        ],
        Some(doc("docs/lgwr.md")),
    ));
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
    fn the_largest_part_of_a_commit_is_named() {
        let mut x = result("lgwr", 100.0);
        x.log_file_sync.mean_ns = 100.0;
        x.breakdown.writer_io.mean_ns = 50.0;
        x.breakdown.wake_up.mean_ns = 49.0;
        let f = run(&x);
        assert!(
            f[1].text.contains("(50 %) is the log writer's I/O"),
            "{}",
            f[1].text
        );
        x.breakdown.wake_up.mean_ns = 51.0;
        let f = run(&x);
        assert!(
            f[1].text.contains("(51 %) is getting the CPU back"),
            "{}",
            f[1].text
        );
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
