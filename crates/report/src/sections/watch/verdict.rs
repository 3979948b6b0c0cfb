//! The answer a watch gives: which file took the traced time, and how
//! much of that time was the device's.
//!
//! The traced time is the time inside every traced I/O call, summed. The
//! busiest file on storage (not a pseudo-file, pipe or socket) answers:
//! its calls' time against the block-layer service time of the requests
//! in its extents (with its part of the flushes and journal writes the
//! watched processes issued) says whether the wait is the storage's
//! (half or more: storage-bound), above it (under a third: the commit
//! path when the file is synced, else not the storage), the page cache's
//! (no request reached the device) or in between (mixed). A process that
//! spent under a tenth of the watched time in I/O calls is not waiting
//! on storage, whatever its files did.

use super::files::{self, Explained};
use crate::verdict::{top, TOP};
use dbio_model::units::format_ns;
use dbio_model::watch::{FileKind, WatchResult};
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// Under this share of the watched time in I/O calls (percent), the
/// processes were not waiting on storage.
pub const IO_WALL_PCT: f64 = 10.0;

/// The pseudo-files' share of the traced time (percent) at or above
/// which, with no file on storage at 10 %, the time is theirs.
pub const PSEUDO_PCT: f64 = 50.0;

/// The verdict of the first watch in `r`.
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    let w = r.watch.first()?;
    Some(answer(w, fs))
}

fn pct(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1} %")
    } else {
        format!("{v:.0} %")
    }
}

/// The answer of one watch, with `fs` its ranked findings.
pub fn answer(w: &WatchResult, fs: &[Finding]) -> Verdict {
    let traced = files::traced_ns(w);
    let question = format!(
        "Is it the storage? (watch {}: {} in I/O calls over {} watched)",
        w.name,
        format_ns(traced as f64),
        format_ns(w.duration_ns as f64)
    );
    let verdict = |class, answer: String, subject: Option<&str>| {
        let mut t: Vec<usize> = subject
            .and_then(|s| {
                fs.iter().position(|f| {
                    f.rule == "watch.file_time" && f.subject.as_deref() == Some(s)
                })
            })
            .into_iter()
            .collect();
        for i in top(fs, TOP) {
            if t.len() < TOP && !t.contains(&i) {
                t.push(i);
            }
        }
        Verdict {
            question: question.clone(),
            class,
            answer,
            top: t,
        }
    };
    if let Some(dev) = &w.config.device {
        let (n, ns) = w
            .block
            .iter()
            .fold((0, 0), |a, b| (a.0 + b.count, a.1 + b.total_ns));
        return verdict(
            VerdictClass::Inconclusive,
            format!(
                "{dev} served {n} requests in {} of device time; a device watch times the device, not what processes wait for: watch them (--pid, --comm, -- COMMAND) to see how much of their time is the storage's",
                format_ns(ns as f64)
            ),
            None,
        );
    }
    if traced == 0 {
        return verdict(
            VerdictClass::Inconclusive,
            "no I/O call was traced: the watched processes did no I/O while watched".into(),
            None,
        );
    }
    let all = files::files(w);
    let pseudo: f64 = all
        .iter()
        .filter(|f| f.kind == FileKind::Pseudo)
        .map(|f| f.share_pct)
        .sum();
    let Some(f) = all.iter().find(|f| f.kind != FileKind::Pseudo) else {
        return verdict(
            VerdictClass::NotStorage,
            format!(
                "not the storage: every traced call was on pseudo-files, pipes, sockets or terminals ({} in all)",
                format_ns(traced as f64)
            ),
            None,
        );
    };
    if f.share_pct < 10.0 && pseudo >= PSEUDO_PCT {
        return verdict(
            VerdictClass::NotStorage,
            format!(
                "not the storage: {} of the traced time was on pseudo-files, pipes, sockets and terminals; the busiest file on storage, {}, took {}",
                pct(pseudo),
                f.key,
                pct(f.share_pct)
            ),
            Some(&f.key),
        );
    }
    let d = files::device_share(w, f);
    let mut class = match d.explained {
        Explained::Device => VerdictClass::StorageBound,
        Explained::Partly => VerdictClass::Mixed,
        Explained::AboveDevice if files::syncs(f) => VerdictClass::CommitPath,
        Explained::AboveDevice | Explained::Pseudo => VerdictClass::NotStorage,
        Explained::CacheReads | Explained::CacheWrites => VerdictClass::PageCache,
        Explained::Unknown => VerdictClass::Inconclusive,
    };
    let mut answer = format!(
        "{} took {} of the traced time ({} of {}); {}",
        f.key,
        pct(f.share_pct),
        format_ns(f.total_ns as f64),
        format_ns(traced as f64),
        files::device_clause(f, &d)
    );
    let io_wall = 100.0 * traced as f64 / w.duration_ns.max(1) as f64;
    if io_wall < IO_WALL_PCT {
        class = VerdictClass::NotStorage;
        answer = format!(
            "not the storage: the watched processes spent {} in I/O calls over {} watched ({}), so most of their time was not I/O. Of the I/O, {answer}",
            format_ns(traced as f64),
            format_ns(w.duration_ns as f64),
            pct(io_wall)
        );
    }
    verdict(class, answer, Some(&f.key))
}
