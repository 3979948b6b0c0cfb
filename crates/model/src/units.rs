//! Human-readable units: every number dbio prints carries one, and every
//! size or duration it reads goes through one parser here.
//!
//! Binary prefixes for sizes (KiB, MiB: what block sizes are made of),
//! decimal SI prefixes for rates of operations (k IOPS), and time from
//! nanoseconds up with three significant digits.
//!
//! One parser per kind of quantity, so that a value means the same in every
//! command: before, `--page-cache-max 100` was 100 s in `read` and 100 µs
//! in `tracefile`. A bare size is bytes (fio's convention, never
//! ambiguous). A bare duration is seconds only where the option is a span
//! of a run (`--runtime 10`); latencies, delays and thresholds, where
//! seconds, milliseconds and microseconds are all plausible, need a unit.

/// Formats nanoseconds with a fitting unit: `850 ns`, `42.1 µs`, `6.59 ms`, `1.41 s`.
pub fn format_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    let (v, unit) = if ns < 1_000.0 {
        (ns, "ns")
    } else if ns < 1_000_000.0 {
        (ns / 1e3, "µs")
    } else if ns < 1_000_000_000.0 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", three_digits(v))
}

/// Formats a byte count: `512 B`, `8 KiB`, `1.5 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{} {}", three_digits(v), UNITS[i])
    }
}

/// Formats a byte rate: `380 MiB/s`.
pub fn format_rate(bytes_per_sec: f64) -> String {
    let mut s = format_bytes(bytes_per_sec.max(0.0) as u64);
    s.push_str("/s");
    s
}

/// Formats an operation rate: `950`, `7.61 k`, `2.59 M` (followed by the caller's unit).
pub fn format_count_rate(per_sec: f64) -> String {
    if per_sec < 1e3 {
        format!("{per_sec:.0}")
    } else if per_sec < 1e6 {
        format!("{} k", three_digits(per_sec / 1e3))
    } else {
        format!("{} M", three_digits(per_sec / 1e6))
    }
}

/// Three significant digits without trailing noise: 1.41, 42.1, 380.
fn three_digits(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Parses a size such as `8k`, `8KiB`, `1m`, `512`, `4g` (binary multiples).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let mult: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(format!(
                "unknown size suffix '{other}' in '{s}' (use k, m, g or t)"
            ))
        }
    };
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a size (examples: 512, 8k, 1m, 4g)"))?;
    let bytes = value * mult as f64;
    if !(0.0..=u64::MAX as f64).contains(&bytes) || bytes.fract() != 0.0 {
        return Err(format!("'{s}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// What a duration written without a unit means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BareNumber {
    /// Seconds: spans of a run (`--runtime 10`), documented as such.
    Seconds,
    /// Refused (except 0): latencies, delays and thresholds, where the
    /// unit would be a guess.
    Refused,
}

/// The rule of one kind of duration option: its upper bound and what a
/// bare number means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DurationRule {
    /// The longest duration accepted, seconds.
    pub max_s: f64,
    /// The bound in words, for the error.
    pub max_text: &'static str,
    /// What a number without unit means.
    pub bare: BareNumber,
}

/// The longest duration any option accepts: 30 days. A longer one would
/// overflow the nanosecond clock and silently become no time at all.
pub const MAX_DURATION_S: f64 = 30.0 * 86400.0;
/// The longest injected delay, think time or spin: 100 s.
pub const MAX_DELAY_S: f64 = 100.0;

/// Spans of a run (`--runtime`, `--warmup`, `--checkpoint-interval`,
/// `--interval`): a bare number is seconds; at most 30 days.
pub const SPAN: DurationRule = DurationRule {
    max_s: MAX_DURATION_S,
    max_text: "30 days",
    bare: BareNumber::Seconds,
};

/// Injected delays, think times and spins (`--null-delay`, `--think-time`,
/// `--commit-delay`, `--post-spin`): a unit is required; at most 100 s.
pub const DELAY: DurationRule = DurationRule {
    max_s: MAX_DELAY_S,
    max_text: "100 s",
    bare: BareNumber::Refused,
};

/// Latency thresholds (`--page-cache-max`, `--storage-cache-max`): a unit
/// is required; at most 30 days.
pub const THRESHOLD: DurationRule = DurationRule {
    max_s: MAX_DURATION_S,
    max_text: "30 days",
    bare: BareNumber::Refused,
};

/// Parses `10s`, `500ms`, `250us`, `250µs`, `100ns`, `2m`, `1h`,
/// `1.5e3ms` (and a bare number where `rule` allows it) into seconds.
/// Refuses what is not a finite, non-negative duration within the rule's
/// bound, in one sentence.
pub fn parse_duration(s: &str, rule: DurationRule) -> Result<f64, String> {
    let t = s.trim();
    let b = t.as_bytes();
    // The number: digits, a point, a sign, and an exponent (1e3).
    let mut split = 0;
    while split < b.len() {
        let c = b[split];
        let exponent = (c == b'e' || c == b'E')
            && split > 0
            && b.get(split + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+');
        let sign = (c == b'-' || c == b'+') && (split == 0 || matches!(b[split - 1], b'e' | b'E'));
        if !(c.is_ascii_digit() || c == b'.' || exponent || sign) {
            break;
        }
        split += 1;
    }
    let (num, unit) = t.split_at(split);
    let example = match rule.bare {
        BareNumber::Seconds => "examples: 10, 10s, 500ms, 2m",
        BareNumber::Refused => "examples: 100us, 1ms, 2s",
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a duration ({example})"))?;
    let mult = match unit {
        "" if rule.bare == BareNumber::Refused && v != 0.0 => {
            return Err(format!(
                "'{s}' needs a unit (ns, us, ms, s, m or h; e.g. {s}us or {s}ms): a bare number is ambiguous here"
            ))
        }
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "unknown time unit '{unit}' in '{s}' (use ns, us, ms, s, m or h)"
            ))
        }
    };
    let secs = v * mult;
    if v.is_sign_negative() && v != 0.0 {
        return Err(format!("'{s}' is negative; a duration must be 0 or more"));
    }
    if !secs.is_finite() || secs > rule.max_s {
        return Err(format!(
            "'{s}' is longer than {}, the most it may be",
            rule.max_text
        ));
    }
    Ok(secs)
}

/// Seconds to whole nanoseconds (rounded); the parsers' bounds keep the
/// value far below `u64::MAX`.
pub fn seconds_to_ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_ns(850.0), "850 ns");
        assert_eq!(format_ns(42_100.0), "42.1 µs");
        assert_eq!(format_ns(6_586_000.0), "6.59 ms");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(8192), "8.00 KiB");
        assert_eq!(format_count_rate(7612.0), "7.61 k");
    }

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_size("8k"), Ok(8192));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert!(parse_size("8q").is_err());
        assert!(parse_size("abc").is_err());
        assert!(parse_size("0.3").is_err());
    }

    #[test]
    fn durations_follow_their_rule() {
        assert_eq!(parse_duration("10", SPAN), Ok(10.0));
        assert_eq!(parse_duration("500ms", SPAN), Ok(0.5));
        assert_eq!(parse_duration("1h", SPAN), Ok(3600.0));
        assert_eq!(parse_duration("250µs", DELAY), Ok(250e-6));
        assert_eq!(parse_duration("0", DELAY), Ok(0.0));
        assert_eq!(
            seconds_to_ns(parse_duration("100us", THRESHOLD).unwrap()),
            100_000
        );
        for bare in ["100", "1", "1e20", "0.5"] {
            for rule in [DELAY, THRESHOLD] {
                let e = parse_duration(bare, rule).unwrap_err();
                assert!(e.contains("needs a unit"), "{bare}: {e}");
            }
        }
        assert!(parse_duration("101s", DELAY)
            .unwrap_err()
            .contains("longer than 100 s"));
        assert!(parse_duration("721h", THRESHOLD)
            .unwrap_err()
            .contains("longer than 30 days"));
        assert!(parse_duration("-1ms", DELAY)
            .unwrap_err()
            .contains("negative"));
        assert!(parse_duration("1d", SPAN).unwrap_err().contains("unit 'd'"));
    }
}
