//! Human-readable units: every number dbio prints carries one.
//!
//! Binary prefixes for sizes (KiB, MiB: what block sizes are made of),
//! decimal SI prefixes for rates of operations (k IOPS), and time from
//! nanoseconds up with three significant digits.

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
}
