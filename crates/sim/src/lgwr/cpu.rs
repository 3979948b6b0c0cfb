//! The CPU a model thread spends on purpose (`--txn-cpu`, `--client-cpu`)
//! and the CPU it spends on the model's own machinery.
//!
//! `dbio load --predict` feeds the model CPU per commit measured on a real
//! database: a backend's CPU holds everything it did for the commit, not
//! only the statement's work but also its system calls to receive the
//! statement and send the answer, its lock waits and wake-ups and, as a
//! leader, its log writes and syncs. The model's session threads do the
//! same kinds of work themselves (a round trip with the client thread, a
//! queue on the flush lock, futex waits and wakes, the flushes they lead),
//! so burning the whole measured figure on top spends those parts twice:
//! on 2 CPUs with 10 sessions that was about 18 µs of a 74 µs figure, and
//! the model predicted PostgreSQL's throughput 19–26 % low (issue 11).
//! With `--cpu-includes-commit-path` each thread measures its own CPU
//! outside the burn ([`CpuAccount`], shared by the sessions and, apart, by
//! the clients) and burns only the rest of the measured figure.

use std::sync::atomic::{AtomicU64, Ordering};

/// This thread's CPU time, ns (CLOCK_THREAD_CPUTIME_ID: the scheduler's
/// own account, to the nanosecond, not ticks).
pub(crate) fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Spends `ns` of this thread's CPU time (not wall time: a session that
/// is preempted keeps its work to do, as a database backend does) and
/// returns the CPU time it really spent, ns. The clock is read after every
/// 256 multiply-adds (well under 1 µs of work), so the spend is at most
/// about 1 µs plus one clock read longer than asked.
fn burn_cpu(ns: u64) -> u64 {
    let cpu0 = thread_cpu_ns();
    let until = cpu0 + ns;
    let mut x = 0u64;
    let mut now = cpu0;
    while now < until {
        for i in 0..256u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        now = thread_cpu_ns();
    }
    std::hint::black_box(x);
    now - cpu0
}

/// One thread's burns: each spends what it is asked on average, since
/// what a burn overshoots (up to one clock read and 256 steps, a few µs in
/// an unoptimised build) is taken off the next.
#[derive(Default)]
pub struct Burner {
    /// CPU burnt so far beyond what was asked, ns.
    ahead_ns: u64,
}

impl Burner {
    /// Burns `ns` of CPU (less what earlier burns overshot); what it
    /// really spent counts as `unit`'s burn when there is one.
    #[inline]
    pub fn burn(&mut self, unit: Option<&mut UnitClock>, ns: u64) {
        let ask = ns.saturating_sub(self.ahead_ns);
        let spent = if ask > 0 { burn_cpu(ask) } else { 0 };
        self.ahead_ns = (self.ahead_ns + spent).saturating_sub(ns);
        if let Some(u) = unit {
            u.burned += spent;
        }
    }
}

/// CPU that threads spent per unit of work (a commit, a round trip)
/// outside their burns: the model's own cost of the commit path.
///
/// The path's CPU is taken off later burns as it is spent, not as a mean:
/// `unpaid_ns` holds what the path has cost that no burn has taken off
/// yet, and each [`CpuAccount::rest_of`] takes off as much of it as the
/// measured figure allows. Over a run the threads then spend the measured
/// figure per unit exactly, plus only what is still unpaid at the end
/// (about one unit's path per thread), however the path's cost moves
/// while the run goes on. A mean of the path so far lags a path that
/// grows (on a loaded machine each wake-up costs more as the run goes
/// on), and every unit then spent the lag on top: up to 3.8 % of a
/// 200 µs figure under CI's load (issue 21).
#[derive(Default)]
pub struct CpuAccount {
    spent_ns: AtomicU64,
    units: AtomicU64,
    unpaid_ns: AtomicU64,
}

impl CpuAccount {
    /// Adds one unit of work that cost `ns` of CPU outside the burn.
    #[inline]
    pub fn add(&self, ns: u64) {
        self.spent_ns.fetch_add(ns, Ordering::Relaxed);
        self.unpaid_ns.fetch_add(ns, Ordering::Relaxed);
        self.units.fetch_add(1, Ordering::Relaxed);
    }

    /// CPU outside the burns so far, ns, and the units it covers.
    pub fn totals(&self) -> (u64, u64) {
        (
            self.spent_ns.load(Ordering::Relaxed),
            self.units.load(Ordering::Relaxed),
        )
    }

    /// Mean CPU per unit so far, ns; None before the first unit.
    pub fn per_unit(&self) -> Option<u64> {
        let units = self.units.load(Ordering::Relaxed);
        (units > 0).then(|| self.spent_ns.load(Ordering::Relaxed) / units)
    }

    /// What is left of `measured_ns` once the path's CPU that no burn has
    /// taken off yet is taken off (never below 0: what does not fit stays
    /// unpaid for the next). Until the first unit is done nothing is
    /// taken off.
    #[inline]
    pub fn rest_of(&self, measured_ns: u64) -> u64 {
        let taken = self
            .unpaid_ns
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |unpaid| {
                Some(unpaid.saturating_sub(measured_ns))
            })
            .map_or(0, |unpaid| unpaid.min(measured_ns));
        measured_ns - taken
    }
}

/// Measures one unit of work of the calling thread: CPU from `start` to
/// [`UnitClock::end`] less what the burn in between spent.
pub struct UnitClock {
    cpu0: u64,
    burned: u64,
}

impl UnitClock {
    /// Starts the unit now.
    #[inline]
    pub fn start() -> Self {
        Self {
            cpu0: thread_cpu_ns(),
            burned: 0,
        }
    }

    /// Ends the unit: its CPU outside the burns goes to `account`.
    #[inline]
    pub fn end(self, account: &CpuAccount) {
        let spent = thread_cpu_ns().saturating_sub(self.cpu0);
        account.add(spent.saturating_sub(self.burned));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The burn spends what it is asked (and says so), and a unit's
    /// account holds only the CPU spent outside the burn.
    #[test]
    fn a_unit_counts_its_cpu_outside_the_burn() {
        let burned = burn_cpu(2_000_000);
        assert!(
            (2_000_000..2_500_000).contains(&burned),
            "{burned} ns burned for 2 ms asked"
        );
        let account = CpuAccount::default();
        assert_eq!(account.per_unit(), None);
        assert_eq!(account.rest_of(100_000), 100_000, "nothing taken off yet");
        let mut burner = Burner::default();
        for _ in 0..4 {
            let mut unit = UnitClock::start();
            burner.burn(Some(&mut unit), 3_000_000);
            // 1 ms of other work: also CPU, but not the burn's.
            let _ = burn_cpu(1_000_000);
            unit.end(&account);
        }
        let per = account.per_unit().unwrap();
        assert!(
            (1_000_000..1_400_000).contains(&per),
            "{per} ns outside the burn per unit, 1 ms spent"
        );
        let (spent, units) = account.totals();
        assert_eq!(units, 4);
        // All four units' path is unpaid: a figure that covers it is spent
        // less all of it, and the next burn pays none.
        assert_eq!(account.rest_of(10_000_000), 10_000_000 - spent);
        assert_eq!(account.rest_of(5_000_000), 5_000_000);
    }

    /// What a burn cannot take off stays unpaid for the next: the figures
    /// asked add up to what was spent outside the burns plus what the
    /// burns were given, to the nanosecond.
    #[test]
    fn the_path_is_taken_off_exactly_once() {
        let account = CpuAccount::default();
        account.add(700);
        account.add(900);
        assert_eq!(account.rest_of(1_000), 0, "never below 0");
        assert_eq!(account.rest_of(1_000), 400, "600 ns were still unpaid");
        assert_eq!(account.rest_of(1_000), 1_000);
        account.add(50);
        assert_eq!(account.rest_of(1_000), 950);
        assert_eq!(account.per_unit(), Some(550));
    }

    /// A burner's overshoot is taken off its next burn: many small burns
    /// add up to what was asked plus only what the burner is still ahead
    /// by, which is one burn's overshoot (each burn overshoots by about a
    /// clock read and 256 steps, more when an interrupt is charged to it:
    /// without the carry the 200 overshoots would all add up).
    #[test]
    fn burns_add_up_to_what_was_asked() {
        let mut burner = Burner::default();
        let mut unit = UnitClock::start();
        for _ in 0..200 {
            burner.burn(Some(&mut unit), 5_000);
        }
        let spent = unit.burned;
        assert_eq!(
            spent,
            1_000_000 + burner.ahead_ns,
            "{spent} ns for 1 ms asked"
        );
        assert!(burner.ahead_ns < 100_000, "{} ns ahead", burner.ahead_ns);
    }
}
