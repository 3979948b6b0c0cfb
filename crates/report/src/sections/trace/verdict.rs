//! A trace analysis's answer: is the storage what this response time is
//! made of? The profile's components are summed by what they are (storage
//! I/O at device or cache speed, I/O at memory speed, commit waits, CPU,
//! the client or the application between and inside calls, other waits,
//! unaccounted time); a group at half of R or more answers, else the
//! answer is mixed, or "not the storage" when I/O is under a tenth of R.

use super::findings::{event_name, io_tier};
use crate::kit::wait_class::{wait_class, WaitClass};
use crate::verdict::TOP;
use dbio_model::trace::{ProfileKind, TraceReport};
use dbio_model::units::format_ns;
use dbio_model::{Finding, Verdict, VerdictClass};

/// The question a trace answers, naming the trace and its response time.
pub fn question(t: &TraceReport) -> String {
    format!(
        "Is it the storage? Trace {}, response time R = {}",
        t.label,
        format_ns(t.profile.response_time_us as f64 * 1e3)
    )
}

/// A group at or above this share of R (0..=1) is the answer.
pub const DOMINANT: f64 = 0.5;

/// The profile summed by what its components are, shares of R (0..=1).
#[derive(Debug, Default)]
struct Groups {
    /// I/O waits at a storage cache's or the device's speed.
    storage: f64,
    /// I/O waits at memory speed.
    memory: f64,
    commit: f64,
    cpu: f64,
    /// Idle events (the client, the application sleeping).
    idle: f64,
    other_waits: f64,
    unaccounted: f64,
}

fn groups(t: &TraceReport) -> Groups {
    let mut g = Groups::default();
    for line in &t.profile.lines {
        let share = line.share.max(0.0);
        match line.kind {
            ProfileKind::Cpu => g.cpu += share,
            ProfileKind::Unaccounted => g.unaccounted += share,
            ProfileKind::Idle | ProfileKind::Wait => {
                let name = event_name(&line.name);
                let idle = line.kind == ProfileKind::Idle
                    || t.events.iter().any(|e| e.name == name && e.idle);
                let mean_ns = line.total_us as f64 * 1e3 / line.count.max(1) as f64;
                match wait_class(name, idle) {
                    c if c.is_io() && name != "Disk file operations I/O" => {
                        if mean_ns < t.settings.page_cache_max_ns as f64 {
                            g.memory += share
                        } else {
                            g.storage += share
                        }
                    }
                    WaitClass::Commit => g.commit += share,
                    WaitClass::Idle => g.idle += share,
                    _ => g.other_waits += share,
                }
            }
        }
    }
    g
}

/// The verdict of a ranked trace analysis.
pub fn verdict(t: &TraceReport) -> Option<Verdict> {
    let fs = &t.findings;
    let top = crate::verdict::top(fs, TOP);
    if t.profile.response_time_us <= 0 {
        return crate::verdict::from_top_finding(question(t), VerdictClass::Inconclusive, fs);
    }
    let g = groups(t);
    let pct = |x: f64| format!("{:.1} %", x * 100.0);
    let biggest = biggest_component(fs);
    let io = g.storage + g.memory;
    let (class, answer) = if g.storage >= DOMINANT {
        let what = biggest
            .filter(|f| f.rule == "trace.component")
            .and_then(|f| io_line(t, f))
            .unwrap_or_default();
        (
            VerdictClass::StorageBound,
            format!(
                "Storage-bound: I/O waits at storage speed are {} of R{what}.",
                pct(g.storage)
            ),
        )
    } else if g.memory >= DOMINANT {
        (
            VerdictClass::PageCache,
            format!(
                "Served from memory: I/O waits are {} of R, at memory speed (under {} each): the OS page cache answered, not the storage.",
                pct(g.memory),
                format_ns(t.settings.page_cache_max_ns as f64)
            ),
        )
    } else if g.commit >= DOMINANT {
        (
            VerdictClass::CommitPath,
            format!(
                "Commit-bound: 'log file sync' is {} of R; the log writer's 'log file parallel write' (its trace, or AWR) tells the log device from the commit path.",
                pct(g.commit)
            ),
        )
    } else if g.cpu >= DOMINANT {
        (
            VerdictClass::Cpu,
            format!(
                "Not the storage: CPU is {} of R; I/O waits {}.",
                pct(g.cpu),
                pct(io)
            ),
        )
    } else if g.idle >= DOMINANT {
        let name = biggest
            .and_then(|f| f.subject.as_deref())
            .map(event_name)
            .unwrap_or_default()
            .to_string();
        (
            VerdictClass::NotStorage,
            format!(
                "Not the storage: {} of R is '{name}', {}; I/O waits are {} of R.",
                pct(g.idle),
                crate::kit::wait_class::what_it_waits_for(&name).unwrap_or("an idle wait"),
                pct(io)
            ),
        )
    } else if io < 0.10 {
        (
            VerdictClass::NotStorage,
            format!(
                "Not the storage: I/O waits are {} of R; CPU {}, other waits {}, unaccounted {}.",
                pct(io),
                pct(g.cpu),
                pct(g.other_waits + g.idle + g.commit),
                pct(g.unaccounted)
            ),
        )
    } else {
        (
            VerdictClass::Mixed,
            format!(
                "Mixed: I/O waits are {} of R ({} at storage speed), CPU {}, commits {}, other waits {}.",
                pct(io),
                pct(g.storage),
                pct(g.cpu),
                pct(g.commit),
                pct(g.other_waits + g.idle)
            ),
        )
    };
    Some(Verdict {
        question: question(t),
        class,
        answer,
        top,
    })
}

/// The largest component's finding (the ranked list's first component).
fn biggest_component(fs: &[Finding]) -> Option<&Finding> {
    fs.iter()
        .filter(|f| f.impact.is_some())
        .max_by(|a, b| a.share().total_cmp(&b.share()))
}

/// `; 'event' alone is N % at M per wait, device latency` for the largest
/// I/O component.
fn io_line(t: &TraceReport, f: &Finding) -> Option<String> {
    let name = event_name(f.subject.as_deref()?);
    let e = t.events.iter().find(|e| e.name == name)?;
    let mean_ns = e.mean_us * 1e3;
    Some(format!(
        "; '{name}' alone is {:.1} % at {} per wait, {}",
        f.share(),
        format_ns(mean_ns),
        io_tier(mean_ns, t)
    ))
}
