//! The measurement clock: CLOCK_MONOTONIC in nanoseconds.
//!
//! clock_gettime through the vDSO costs about 20 ns on x86_64 and does not
//! enter the kernel; its resolution is 1 ns on machines with a TSC
//! clocksource. All timestamps in a run share this clock.

use rustix::time::{clock_gettime, ClockId};

/// Monotonic time in nanoseconds.
#[inline]
pub fn now_ns() -> u64 {
    let t = clock_gettime(ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Waits until `deadline_ns` (monotonic). Sleeps for long waits and spins
/// for the last 50 µs, because a sleep overshoots by tens of microseconds
/// (timer slack and wake-up latency), which would distort rate-limited runs.
pub fn wait_until(deadline_ns: u64) {
    const SPIN_NS: u64 = 50_000;
    loop {
        let now = now_ns();
        if now >= deadline_ns {
            return;
        }
        let left = deadline_ns - now;
        if left > SPIN_NS {
            std::thread::sleep(std::time::Duration::from_nanos(left - SPIN_NS));
        } else {
            std::hint::spin_loop();
        }
    }
}
