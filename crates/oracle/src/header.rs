//! The file header and the `***` timestamps.
//!
//! The header tells the release, and the release tells the time unit:
//! before 9i every time in the trace is in centiseconds. `***` timestamps
//! are the only wall clock a trace has (`tim` is the Unix epoch on some
//! systems and time since boot on others), so they are parsed into a naive
//! local-time number of microseconds that `tim` offsets are anchored to.

use crate::lexer::{parse_u64_prefix, trim};
use memchr::memmem;

/// Release found in a header line: (`major`, full text such as `12.1.0.1.0`).
///
/// Recognises the banner (`... Release 12.1.0.1.0 - 64bit Production`,
/// `Oracle8i ... Release 8.1.7.4.0`) and the 18c+ `Version 19.14.2.0.0` line,
/// never the OS `Version:` line.
pub fn release_of(line: &[u8]) -> Option<(u32, String)> {
    let rest = if let Some(i) = memmem::find(line, b"Release ") {
        &line[i + 8..]
    } else {
        line.strip_prefix(b"Version ")?
    };
    let rest = trim(rest);
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'.'))
        .unwrap_or(rest.len());
    let text = &rest[..end];
    let (major, n) = parse_u64_prefix(text);
    if n == 0 || major == 0 || major > 99 {
        return None;
    }
    Some((major as u32, String::from_utf8_lossy(text).into_owned()))
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn digits(s: &[u8], at: usize, n: usize) -> Option<i64> {
    let d = s.get(at..at + n)?;
    if !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(d.iter().fold(0i64, |v, b| v * 10 + (b - b'0') as i64))
}

/// Parses `2013-08-26 14:40:23.035` or
/// `2019-07-09T09:57:07.703476-07:00 (PDB(8))` into microseconds since
/// 1970-01-01 of the *local* time written (the zone offset is ignored:
/// before 12.2 there is none, and local time is what the DBA reads).
pub fn parse_timestamp(s: &[u8]) -> Option<i64> {
    let y = digits(s, 0, 4)?;
    if s.get(4) != Some(&b'-') || s.get(7) != Some(&b'-') {
        return None;
    }
    let mo = digits(s, 5, 2)?;
    let d = digits(s, 8, 2)?;
    if !matches!(s.get(10), Some(b' ') | Some(b'T')) {
        return None;
    }
    let h = digits(s, 11, 2)?;
    let mi = digits(s, 14, 2)?;
    let se = digits(s, 17, 2)?;
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut us = 0i64;
    if s.get(19) == Some(&b'.') {
        let mut scale = 100_000;
        let mut i = 20;
        while let Some(b) = s.get(i).filter(|b| b.is_ascii_digit()) {
            us += (b - b'0') as i64 * scale;
            scale /= 10;
            i += 1;
        }
    }
    let days = days_from_civil(y, mo, d);
    Some(((days * 24 + h) * 60 + mi) * 60_000_000 + se * 1_000_000 + us)
}

/// Formats naive local microseconds as `YYYY-MM-DD HH:MM:SS`.
pub fn format_wall(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // civil_from_days
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases() {
        let b = b"Oracle Database 12c Enterprise Edition Release 12.1.0.1.0 - 64bit Production";
        assert_eq!(release_of(b), Some((12, "12.1.0.1.0".into())));
        assert_eq!(
            release_of(b"Oracle8i Enterprise Edition Release 8.1.7.4.0 - Production"),
            Some((8, "8.1.7.4.0".into()))
        );
        assert_eq!(
            release_of(b"Version 19.14.2.0.0"),
            Some((19, "19.14.2.0.0".into()))
        );
        assert_eq!(release_of(b"Version:\t#2 SMP Tue"), None);
    }

    #[test]
    fn timestamps_old_and_iso() {
        let old = parse_timestamp(b"2013-08-26 14:40:23.035").unwrap();
        // 2013-08-26 14:40:23 UTC is 1377528023.
        assert_eq!(old, 1_377_528_023_035_000);
        let iso = parse_timestamp(b"2019-07-09T09:57:07.703476-07:00 (EXAMPLESPDB(8))").unwrap();
        assert_eq!(iso % 1_000_000, 703_476);
        assert_eq!(format_wall(iso), "2019-07-09 09:57:07");
        assert_eq!(format_wall(old), "2013-08-26 14:40:23");
        assert_eq!(parse_timestamp(b"2019-13-01 00:00:00"), None);
        assert_eq!(parse_timestamp(b"garbage"), None);
    }
}
