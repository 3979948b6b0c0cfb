//! Numbers as AWR and Statspack print them.
//!
//! Counts carry thousands separators (`360,121`) or K/M/G/T abbreviations
//! in powers of 1000 (`363.3K`, as the reports' own notes say: "K is
//! 1000, M is 1000000"); averages carry their unit (`109.72us`, `15.94ms`,
//! `27.36 s`, `.00ns`). Localised reports write the decimal separator as
//! a comma (`4,2`): a comma followed by other than exactly three digits,
//! or a comma after the last dot, is read as the decimal point.

/// A plain number with separators and an optional K/M/G/T suffix, as
/// printed; `None` for anything else (`#####`, text, empty).
pub fn count(s: &str) -> Option<f64> {
    let s = s.trim();
    let (body, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1e3),
        b'M' => (&s[..s.len() - 1], 1e6),
        b'G' => (&s[..s.len() - 1], 1e9),
        b'T' => (&s[..s.len() - 1], 1e12),
        _ => (s, 1.0),
    };
    plain(body).map(|v| v * mult)
}

/// A number with separators, no suffix.
pub fn plain(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() || s.len() > 40 {
        return None;
    }
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    if s.is_empty()
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b'.')
    {
        return None;
    }
    if !s.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let last_dot = s.rfind('.');
    let last_comma = s.rfind(',');
    let decimal_comma = match (last_dot, last_comma) {
        (Some(d), Some(c)) => c > d,
        (None, Some(_)) => s
            .split(',')
            .skip(1)
            .any(|g| g.len() != 3 || !g.bytes().all(|b| b.is_ascii_digit())),
        _ => false,
    };
    let cleaned: String = if decimal_comma {
        s.chars()
            .filter(|&c| c != '.')
            .map(|c| if c == ',' { '.' } else { c })
            .collect()
    } else {
        s.chars().filter(|&c| c != ',').collect()
    };
    if cleaned.matches('.').count() > 1 {
        return None;
    }
    let v: f64 = cleaned.parse().ok()?;
    v.is_finite().then_some(if neg { -v } else { v })
}

/// A duration in µs: the printed unit (`ns`, `us`, `ms`, `s`) or, when
/// none is printed, `default_us` µs per unit.
pub fn time_us(s: &str, default_us: f64) -> Option<f64> {
    let s = s.trim();
    for (suffix, us) in [
        ("ns", 1e-3),
        ("us", 1.0),
        ("ms", 1e3),
        ("s", 1e6),
        ("m", 60e6),
        ("h", 3600e6),
    ] {
        if let Some(b) = s.strip_suffix(suffix) {
            if let Some(v) = plain(b) {
                return Some(v * us);
            }
        }
    }
    plain(s).map(|v| v * default_us)
}

/// Whether a word is a number (for pastes that lost their columns).
pub fn is_number(s: &str) -> bool {
    count(s).is_some() || time_us(s, 1.0).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_times_equal_their_text() {
        assert_eq!(count("360,121"), Some(360_121.0));
        assert_eq!(count("48,438,904"), Some(48_438_904.0));
        assert_eq!(count("363.3K"), Some(363_300.0));
        assert_eq!(count("2M"), Some(2_000_000.0));
        assert_eq!(count(".4"), Some(0.4));
        assert_eq!(count("146,118.4"), Some(146_118.4));
        assert_eq!(count("4,2"), Some(4.2));
        assert_eq!(count("1.234,5"), Some(1234.5));
        assert_eq!(count("-1,234"), Some(-1234.0));
        assert_eq!(count(""), None);
        assert_eq!(count("abc"), None);
        assert_eq!(count("1.2.3"), None);
        assert_eq!(time_us("109.72us", 1.0), Some(109.72));
        assert_eq!(time_us("15.94ms", 1.0), Some(15_940.0));
        assert_eq!(time_us("27.36 s", 1.0), Some(27_360_000.0));
        assert_eq!(time_us(".00ns", 1.0), Some(0.0));
        assert_eq!(time_us("5", 1000.0), Some(5000.0));
    }
}
