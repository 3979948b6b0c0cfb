//! Reads the wall clock's synchronisation state (adjtimex(2) with no
//! modes set: a read, allowed without privileges) and decides whether a
//! shared `--start-at` can be trusted on it.
//!
//! Why: hosts started independently start together only if their clocks
//! agree. A single host cannot see the others' clocks, but the kernel
//! keeps, for its own, whether a time source disciplines it (`STA_UNSYNC`
//! clear) and a bound on its error (`maxerror`, µs). Two hosts whose
//! bounds are each under L start within 2 L of each other (plus the wait's
//! few hundred µs), which is what `dbio merge --max-skew` checks after.

use dbio_model::clock::ClockStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The kernel's "clock not synchronised" status bit (linux/timex.h).
const STA_UNSYNC: i32 = 0x0040;

/// This host's clock state; None when adjtimex(2) fails (not Linux, or a
/// seccomp filter refusing it).
pub fn read() -> Option<ClockStatus> {
    // SAFETY: `timex` is a plain C struct; all zeroes is a valid value
    // and `modes == 0` asks adjtimex only to fill it in.
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    // SAFETY: `t` is a valid, writable timex for the call's duration.
    let state = unsafe { libc::adjtimex(&mut t) };
    if state < 0 {
        return None;
    }
    Some(ClockStatus {
        // TIME_ERROR (5) is returned when STA_UNSYNC is set, among other
        // leap-second states: the status bit is the one that says it.
        synchronised: t.status & STA_UNSYNC == 0,
        max_error_us: t.maxerror.max(0) as u64,
        est_error_us: t.esterror.max(0) as u64,
        limit_us: None,
    })
}

/// Whether a shared start can be trusted on a clock in state `c` with
/// `--max-clock-error` at `limit_us` (None: `off`, anything is accepted);
/// the refusal is one sentence naming the figures.
pub fn verdict(c: Option<&ClockStatus>, limit_us: Option<u64>) -> Result<(), String> {
    let Some(limit) = limit_us else {
        return Ok(());
    };
    let ms = |us: u64| us as f64 / 1000.0;
    let Some(c) = c else {
        return Err(format!(
            "--start-at cannot be trusted: adjtimex(2) did not report this host's clock state, so its error is unknown (--max-clock-error {} ms); pass --max-clock-error off to start anyway",
            ms(limit)
        ));
    };
    if !c.synchronised {
        return Err(format!(
            "--start-at cannot be trusted: this host's clock is not synchronised (adjtimex reports STA_UNSYNC, maximum error {} ms); synchronise it with chrony or ntpd, or pass --max-clock-error off to start anyway",
            ms(c.max_error_us)
        ));
    }
    if c.max_error_us > limit {
        return Err(format!(
            "--start-at cannot be trusted: this host's clock may be off by up to {} ms (adjtimex maximum error; estimated {} ms), more than --max-clock-error {} ms; wait for chrony or ntpd to settle, raise the limit, or pass --max-clock-error off",
            ms(c.max_error_us),
            ms(c.est_error_us),
            ms(limit)
        ));
    }
    Ok(())
}

/// Now on the wall clock, ns since the Unix epoch.
pub fn now_unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Waits until the wall clock reads `t` (ns since the epoch): sleeps in
/// steps of at most 100 ms (so a signal's stop flag is seen) until 2 ms
/// before, then polls the clock. False when `stop` was raised first.
pub fn wait_until(t: u64, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = now_unix_ns();
        if now >= t {
            return true;
        }
        let left = t - now;
        if left > 2_000_000 {
            std::thread::sleep(Duration::from_nanos((left - 2_000_000).min(100_000_000)));
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(sync: bool, max: u64) -> ClockStatus {
        ClockStatus {
            synchronised: sync,
            max_error_us: max,
            est_error_us: max / 4,
            limit_us: None,
        }
    }

    #[test]
    fn the_clock_state_is_read_on_this_host() {
        // Whatever this machine's NTP state, the call works and its
        // figures are the kernel's (maxerror is capped at 16 s).
        let c = read().expect("adjtimex(2) reads without privileges");
        assert!(c.max_error_us <= 16_000_000, "{c:?}");
        assert!(c.est_error_us <= 16_000_000, "{c:?}");
    }

    #[test]
    fn an_unsynchronised_or_uncertain_clock_is_refused_with_its_figures() {
        assert_eq!(verdict(Some(&clock(true, 2_000)), Some(10_000)), Ok(()));
        assert_eq!(verdict(Some(&clock(true, 10_000)), Some(10_000)), Ok(()));
        let e = verdict(Some(&clock(false, 16_000_000)), Some(10_000)).unwrap_err();
        assert!(
            e.contains("not synchronised") && e.contains("16000 ms") && e.contains("off"),
            "{e}"
        );
        let e = verdict(Some(&clock(true, 25_000)), Some(10_000)).unwrap_err();
        assert!(
            e.contains("up to 25 ms") && e.contains("--max-clock-error 10 ms"),
            "{e}"
        );
        assert!(verdict(None, Some(10_000)).unwrap_err().contains("unknown"));
        // `off` accepts anything, even an unknown clock.
        assert_eq!(verdict(Some(&clock(false, 16_000_000)), None), Ok(()));
        assert_eq!(verdict(None, None), Ok(()));
    }
}
