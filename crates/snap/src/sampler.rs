//! Active-session sampling for PostgreSQL, as Oracle's ASH does it: at a
//! fixed period, on a connection of its own, read what every session and
//! background process is doing (`pg_stat_activity`: `state`,
//! `wait_event_type`, `wait_event`) and count it. A session seen active
//! in n samples of period p was active about n × p seconds; the sum over
//! sessions is DB time, split by what they waited on.
//!
//! The sampler never samples itself (`pid <> pg_backend_pid()`) nor
//! dbio's monitoring connection (`application_name = 'dbio snap'`), and
//! counts only client sessions that are `active` (a session `idle in
//! transaction` waits for its client: Oracle's idle 'SQL*Net message
//! from client', not DB time). Background processes are counted apart,
//! their idle main loops (`Activity:*`) left out.
//!
//! Its cost is measured, not assumed: each sample query's time as this
//! client sees it, the samples that came late, and, when the server runs
//! on this host, the CPU its backend used over the interval (utime +
//! stime from /proc/PID/stat of the backend whose process title names
//! the sampler's client port). `scripts/bench-snap` measures what it
//! costs a commit load.

use crate::{SnapError, SAMPLER_APP};
use dbio_load::postgres::Monitor;
use dbio_model::snap::SamplerCost;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the sampler saw over one interval.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Samples {
    /// Samples per (background process, backend type, event): `event`
    /// is `wait_event_type:wait_event`, or [`crate::mapping::CPU`].
    pub counts: BTreeMap<(bool, String, String), u64>,
    /// The sampler's cost.
    pub cost: SamplerCost,
    /// Transactions the sampler's connection committed (its start-up,
    /// every sample query, its last statistics flush): dbio's own, to be
    /// subtracted from the server's commit count.
    pub committed: u64,
}

/// A running sampler thread.
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Result<Samples, SnapError>>,
}

/// The sample query: every client session that is active and every
/// background process, never the sampler itself nor dbio's monitor.
const SAMPLE_SQL: &str = "SELECT backend_type, state, wait_event_type, wait_event \
     FROM pg_stat_activity WHERE pid <> pg_backend_pid() \
     AND coalesce(application_name, '') <> 'dbio snap' \
     AND (backend_type NOT IN ('client backend', 'parallel worker') \
          OR state IN ('active', 'fastpath function call'))";

/// Backend types whose time is a session's (DB time): client backends
/// and the parallel workers they start (Oracle counts its PX slaves).
fn is_session(backend_type: &str) -> bool {
    matches!(backend_type, "client backend" | "parallel worker")
}

impl Sampler {
    /// Connects the sampler's own connection (from `monitor`'s target)
    /// and starts sampling every `period_s` seconds.
    pub fn start(monitor: &Monitor, period_s: f64) -> Result<Sampler, SnapError> {
        let mut conn = monitor.another(SAMPLER_APP)?;
        let cpu = BackendCpu::find(&mut conn);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("dbio-snap-sampler".into())
            .spawn(move || run(conn, cpu, period_s, &flag))
            .map_err(|e| SnapError::Failed(format!("cannot start the sampler thread: {e}")))?;
        Ok(Sampler { stop, handle })
    }

    /// Stops sampling and returns what was seen.
    pub fn finish(self) -> Result<Samples, SnapError> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .join()
            .unwrap_or_else(|_| Err(SnapError::Failed("the sampler thread panicked".into())))
    }
}

fn run(
    mut conn: Monitor,
    cpu: Option<BackendCpu>,
    period_s: f64,
    stop: &AtomicBool,
) -> Result<Samples, SnapError> {
    let period = Duration::from_secs_f64(period_s.max(0.001));
    let cpu_before = cpu.as_ref().and_then(BackendCpu::seconds);
    let mut out = Samples::default();
    let mut total = Duration::ZERO;
    let mut max = Duration::ZERO;
    let mut next = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        // A lost connection (the server restarted) ends sampling; the
        // interval keeps what was sampled until then.
        let Ok(rows) = conn.query(SAMPLE_SQL) else {
            break;
        };
        let took = t.elapsed();
        total += took;
        max = max.max(took);
        out.cost.samples += 1;
        for row in rows {
            let get = |i: usize| row.get(i).cloned().flatten();
            let backend = get(0).unwrap_or_default();
            let event = match (get(2), get(3)) {
                (Some(t), Some(e)) => format!("{t}:{e}"),
                _ => crate::mapping::CPU.to_string(),
            };
            let background = !is_session(&backend);
            if background && event.starts_with("Activity:") {
                continue;
            }
            *out.counts.entry((background, backend, event)).or_insert(0) += 1;
        }
        next += period;
        let now = Instant::now();
        if now > next + period {
            // Fell behind by more than a period: count it and start the
            // schedule again from now rather than sampling in a burst.
            out.cost.late += 1;
            next = now;
        }
        while !stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now >= next {
                break;
            }
            std::thread::sleep((next - now).min(Duration::from_millis(10)));
        }
    }
    if let (Some(c), Some(before)) = (cpu.as_ref(), cpu_before) {
        out.cost.server_cpu_s = c.seconds().map(|after| (after - before).max(0.0));
    }
    // The sampler's statistics out before the closing snapshot reads the
    // commit count (PG15+; earlier servers report asynchronously).
    if conn.version_num() >= 150_000 {
        let _ = conn.query("SELECT pg_stat_force_next_flush()");
    }
    out.committed = conn.committed();
    out.cost.period_s = period_s;
    if out.cost.samples > 0 {
        out.cost.mean_query_us = total.as_secs_f64() * 1e6 / out.cost.samples as f64;
        out.cost.max_query_us = max.as_secs_f64() * 1e6;
    }
    Ok(out)
}

/// The sampler's backend process, when the server runs on this host.
struct BackendCpu {
    pid: u32,
}

impl BackendCpu {
    fn find(conn: &mut Monitor) -> Option<BackendCpu> {
        local_backend(conn).map(|pid| BackendCpu { pid })
    }

    /// utime + stime of the backend, s.
    fn seconds(&self) -> Option<f64> {
        proc_cpu_seconds(&format!("/proc/{}/stat", self.pid))
    }
}

/// The backend process serving `conn`, when the server runs on this
/// host: found in /proc by its pid and checked by its process title
/// (`postgres: ... 127.0.0.1(PORT) ...`, the client port of this
/// connection, or `[local]` for a socket), so a pid of a remote server's
/// backend is never taken for a process on this host.
pub(crate) fn local_backend(conn: &mut Monitor) -> Option<u32> {
    let rows = conn
        .query(
            "SELECT pg_backend_pid(), client_port FROM pg_stat_activity \
             WHERE pid = pg_backend_pid()",
        )
        .ok()?;
    let row = rows.first()?;
    let pid: u32 = row.first()?.as_deref()?.parse().ok()?;
    let want = match row.get(1).cloned().flatten() {
        Some(port) if port != "-1" => format!("({port})"),
        _ => "[local]".to_string(),
    };
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let title = String::from_utf8_lossy(&cmdline);
    (title.starts_with("postgres:") && title.contains(&want)).then_some(pid)
}

/// utime + stime from a /proc `stat` file (fields 14 and 15, after the
/// parenthesised command name, which may hold spaces), s.
pub(crate) fn proc_cpu_seconds(path: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    let after = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Field 3 (state) is the first after the name: utime is field 14.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (tick > 0).then(|| (utime + stime) / tick as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_cpu_is_read_from_proc() {
        let t = Instant::now();
        while t.elapsed() < Duration::from_millis(50) {
            std::hint::black_box(0u64.wrapping_add(1));
        }
        let s = proc_cpu_seconds("/proc/self/stat").unwrap();
        assert!(s > 0.0 && s < 3600.0, "{s}");
        assert_eq!(proc_cpu_seconds("/proc/nonexistent/stat"), None);
    }

    #[test]
    fn sessions_are_client_backends_and_parallel_workers() {
        assert!(is_session("client backend"));
        assert!(is_session("parallel worker"));
        for b in [
            "walwriter",
            "checkpointer",
            "io worker",
            "autovacuum worker",
        ] {
            assert!(!is_session(b), "{b}");
        }
    }
}
