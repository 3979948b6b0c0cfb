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
//!
//! Also `--start-at` itself: its parsing (seconds since the epoch, or an
//! RFC 3339 time), the refusal of a start in the past or more than a day
//! ahead, and the wait for it, which every host does on its own clock.
//! A time in the past is refused rather than started late, since a late
//! host would measure a different interval from the others.

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

/// The farthest ahead a start may be: a day (a typo in the date is far
/// likelier than a wait that long).
pub const MAX_AHEAD_NS: u64 = 24 * 3600 * 1_000_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number (Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A time as RFC 3339 in UTC with milliseconds, for messages.
pub fn format_time(ns: u64) -> String {
    let secs = (ns / 1_000_000_000) as i64;
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ns / 1_000_000 % 1000
    )
}

/// `--start-at`'s value: Unix seconds (`1795000000`, `1795000000.25`) or
/// RFC 3339 (`2026-11-24T12:00:00Z`, fractions and `±HH:MM` offsets
/// allowed), into ns since the Unix epoch.
pub fn parse_time(s: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "'{s}' is not a time: give RFC 3339 (2026-11-24T12:00:00Z) or Unix seconds (1795000000)"
        )
    };
    let t = s.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        // Integer arithmetic: an f64 holds ns since the epoch only to
        // about 256 ns.
        let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
        if whole.is_empty() || whole.len() > 11 || frac.contains('.') {
            return Err(bad());
        }
        let digits = &frac[..frac.len().min(9)];
        let frac_ns = if digits.is_empty() {
            0
        } else {
            digits.parse::<u64>().map_err(|_| bad())? * 10u64.pow(9 - digits.len() as u32)
        };
        return Ok(whole.parse::<u64>().map_err(|_| bad())? * 1_000_000_000 + frac_ns);
    }
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return Err(bad());
    }
    if b[13] != b':' || b[16] != b':' {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| -> Result<u32, String> {
        let x = &t[r];
        if x.bytes().all(|c| c.is_ascii_digit()) {
            x.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return Err(bad());
    }
    let mut rest = &t[19..];
    let mut frac_ns = 0u64;
    if let Some(r) = rest.strip_prefix('.') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return Err(bad());
        }
        let digits = &r[..n.min(9)];
        frac_ns = digits.parse::<u64>().map_err(|_| bad())? * 10u64.pow(9 - digits.len() as u32);
        rest = &r[n..];
    }
    let offset_s: i64 = match rest {
        "Z" | "z" => 0,
        o if o.len() == 6 && (o.starts_with('+') || o.starts_with('-')) && &o[3..4] == ":" => {
            let oh: i64 = o[1..3].parse().map_err(|_| bad())?;
            let om: i64 = o[4..6].parse().map_err(|_| bad())?;
            let v = oh * 3600 + om * 60;
            if o.starts_with('-') {
                -v
            } else {
                v
            }
        }
        _ => return Err(bad()),
    };
    let days = days_from_civil(i64::from(y), mo, d);
    let secs = days * 86_400 + i64::from(h * 3600 + mi * 60 + se) - offset_s;
    if secs < 0 {
        return Err(bad());
    }
    Ok(secs as u64 * 1_000_000_000 + frac_ns)
}

/// Checks `--start-at` against this host's clock now: refused in the past
/// or more than [`MAX_AHEAD_NS`] ahead, with the clock's reading.
pub fn check_start(start_ns: Option<u64>) -> Result<Option<u64>, String> {
    let Some(t) = start_ns else { return Ok(None) };
    let now = now_unix_ns();
    if t <= now {
        return Err(format!(
            "--start-at {} is {:.3} s in the past by this host's clock ({}); give a later time, and check that the hosts' clocks agree (chrony or ntpd)",
            format_time(t),
            (now - t) as f64 / 1e9,
            format_time(now)
        ));
    }
    if t - now > MAX_AHEAD_NS {
        return Err(format!(
            "--start-at {} is {:.1} h ahead of this host's clock ({}); at most 24 h is accepted: check the date and the clock",
            format_time(t),
            (t - now) as f64 / 3.6e12,
            format_time(now)
        ));
    }
    Ok(Some(t))
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

    #[test]
    fn times_parse_in_both_forms_and_bad_ones_are_refused() {
        assert_eq!(parse_time("0").unwrap(), 0);
        assert_eq!(parse_time("1795000000").unwrap(), 1_795_000_000_000_000_000);
        assert_eq!(
            parse_time("1795000000.25").unwrap(),
            1_795_000_000_250_000_000
        );
        assert_eq!(parse_time("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(
            parse_time("2026-11-24T12:00:00Z").unwrap(),
            1_795_521_600 * 1_000_000_000
        );
        assert_eq!(
            parse_time("2026-11-24T13:00:00.5+01:00").unwrap(),
            1_795_521_600 * 1_000_000_000 + 500_000_000
        );
        assert_eq!(
            parse_time("2026-11-24T07:00:00-05:00").unwrap(),
            1_795_521_600 * 1_000_000_000
        );
        for bad in [
            "",
            "tomorrow",
            "2026-11-24",
            "2026-13-01T00:00:00Z",
            "2026-11-24T12:00:00",
            "1e5",
            "12:00",
        ] {
            assert!(parse_time(bad).unwrap_err().contains("not a time"), "{bad}");
        }
        assert_eq!(
            format_time(1_795_521_600_123_000_000),
            "2026-11-24T12:00:00.123Z"
        );
    }

    #[test]
    fn a_start_in_the_past_or_too_far_ahead_is_refused_with_the_clock() {
        let now = now_unix_ns();
        let e = check_start(Some(now - 5_000_000_000))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("in the past") && e.contains("this host's clock"),
            "{e}"
        );
        let e = check_start(Some(now + 2 * MAX_AHEAD_NS))
            .unwrap_err()
            .to_string();
        assert!(e.contains("ahead"), "{e}");
        assert_eq!(
            check_start(Some(now + 60_000_000_000)).unwrap(),
            Some(now + 60_000_000_000)
        );
        assert_eq!(check_start(None).unwrap(), None);
    }
}
