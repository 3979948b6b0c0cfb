//! ASCII latency histograms on power-of-two microsecond buckets, the layout
//! of Oracle's wait histograms, AWR and parsetrc.pl.

use dbio_model::units::format_ns;
use dbio_model::Log2Buckets;
use std::fmt::Write;

/// Width of the longest bar, characters.
const BAR: usize = 40;

/// Renders buckets from the first to the last non-empty one: label, count,
/// share, cumulative share, bar.
pub fn render(b: &Log2Buckets) -> String {
    let total = b.total();
    let mut out = String::new();
    if total == 0 {
        return out;
    }
    let first = b.counts.iter().position(|&c| c > 0).unwrap_or(0);
    let last = b.counts.iter().rposition(|&c| c > 0).unwrap_or(0);
    let max = *b.counts.iter().max().unwrap_or(&1);
    let mut cum = 0u64;
    for i in first..=last {
        let c = b.counts[i];
        cum += c;
        let lo = if i == 0 { 0 } else { 1u64 << (i - 1) };
        let range = format!(
            "{:>8} .. {:<8}",
            format_ns(lo as f64 * 1000.0),
            format_ns((1u64 << i) as f64 * 1000.0)
        );
        let len = ((c as f64 / max as f64) * BAR as f64).round() as usize;
        let bar = if c > 0 {
            "#".repeat(len.max(1))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {range} {c:>10} {:>6.2}% {:>7.2}% |{bar}",
            100.0 * c as f64 / total as f64,
            100.0 * cum as f64 / total as f64,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_between_first_and_last_bucket() {
        let mut b = Log2Buckets::default();
        b.record_us_n(3, 10); // bucket 2: 2..4 µs
        b.record_us_n(100, 30); // bucket 7: 64..128 µs
        let s = render(&b);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 6, "{s}");
        assert!(lines[0].contains("2.00 µs"), "{s}");
        assert!(lines[5].contains("128 µs"), "{s}");
        assert!(lines[5].contains("100.00%"), "{s}");
        assert!(lines[5].ends_with(&"#".repeat(40)), "{s}");
    }
}
