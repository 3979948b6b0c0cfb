//! Numbers as AWR and Statspack print them.
//!
//! Counts carry thousands separators (`360,121`) or K/M/G/T abbreviations
//! in powers of 1000 (`363.3K`, as the reports' own notes say: "K is
//! 1000, M is 1000000"); averages carry their unit (`109.72us`, `15.94ms`,
//! `27.36 s`, `.00ns`). Localised reports write the decimal separator as
//! a comma (`4,2`): a comma followed by other than exactly three digits,
//! or a comma after the last dot, is read as the decimal point.
//!
//! A bare `1,234` is ambiguous: 1234 where the decimal separator is a
//! point, 1.234 where it is a comma. One number cannot tell, but a report
//! is written in one locale, so [`Locale::detect`] counts the numbers
//! only one locale prints (`60.25`, `48,438,904` against `60,25`,
//! `1.234.567`, `1.234,5`) and [`with_locale`] makes every number of the
//! report read in the winner's way. The locale is a property of the
//! whole report while the number readers are called from every table
//! reader, so it is held in a thread-local for the length of one parse
//! rather than threaded through each of them.

use std::cell::Cell;

/// How a report writes its decimal separator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Locale {
    /// Not decided: `1,234` is 1234 and `4,2` is 4.2 (the shape decides).
    #[default]
    Unknown,
    /// `1,234.5`: comma for thousands, point for decimals.
    DecimalPoint,
    /// `1.234,5`: point for thousands, comma for decimals (`1,234` is
    /// 1.234).
    DecimalComma,
}

/// Unambiguous numbers [`Locale::detect`] counts at most.
pub const VOTES: u64 = 200;

thread_local! {
    static LOCALE: Cell<Locale> = const { Cell::new(Locale::Unknown) };
}

/// Restores the previous locale when dropped (also when unwinding).
struct Restore(Locale);

impl Drop for Restore {
    fn drop(&mut self) {
        LOCALE.with(|l| l.set(self.0));
    }
}

/// Runs `f` with numbers read in `locale` on this thread.
pub fn with_locale<T>(locale: Locale, f: impl FnOnce() -> T) -> T {
    let _restore = Restore(LOCALE.with(|l| l.replace(locale)));
    f()
}

/// The digits-and-separators core of a word (`(60,25` → `60,25`, `363,3K`
/// → `363,3`, `12.5%` → `12.5`), or `None`.
fn core(word: &str) -> Option<&str> {
    let w = word.trim_matches(|c: char| !c.is_ascii_digit() && c != ',' && c != '.');
    let w = w.trim_end_matches([',', '.']);
    let w = w.trim_start_matches(',');
    (!w.is_empty()
        && w.len() <= 40
        && w.bytes().any(|b| b.is_ascii_digit())
        && w.bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b'.'))
    .then_some(w)
}

/// Whether every group after the first separator has exactly 3 digits.
fn thousands_groups(s: &str, sep: char) -> bool {
    s.split(sep).skip(1).all(|g| g.len() == 3)
}

impl Locale {
    /// The locale of a text, from the numbers only one locale prints:
    /// votes for a decimal point are `60.25`, `.4` (one point, not
    /// followed by exactly three digits) and `48,438,904` (two commas or
    /// more, three digits after each); votes for a decimal comma are
    /// `60,25`, `,4`, `1.234.567` and `1.234,5` likewise. Words such as
    /// `12.2.0.1.0` (a release) and a lone `1,234` or `1.234` vote for
    /// nothing. The side with more votes wins; a tie is
    /// [`Locale::Unknown`]. Counting stops at [`VOTES`] votes: every vote
    /// is a number only one locale prints, and a 10 MB report would
    /// otherwise cost 40 ms of splitting.
    pub fn detect(text: &str) -> Locale {
        let (mut point, mut comma) = (0u64, 0u64);
        for w in text.split_whitespace() {
            if point + comma >= VOTES {
                break;
            }
            // A word holding a time or date (`19:00:39`, `04-Feb-23`) or
            // letters inside the number (`12c`, `0x1F`) is no number.
            if w.bytes().any(|b| b == b':' || b == b'/') {
                continue;
            }
            let Some(c) = core(w) else { continue };
            let (dots, commas) = (c.matches('.').count(), c.matches(',').count());
            match (dots, commas) {
                (0, 0) => {}
                (1, 0) => {
                    if !thousands_groups(c, '.') {
                        point += 1;
                    }
                }
                (_, 0) => {
                    if thousands_groups(c, '.') {
                        comma += 1;
                    }
                }
                (0, 1) => {
                    if !thousands_groups(c, ',') {
                        comma += 1;
                    }
                }
                (0, _) => {
                    if thousands_groups(c, ',') {
                        point += 1;
                    }
                }
                _ => {
                    if c.rfind(',') > c.rfind('.') {
                        comma += 1;
                    } else {
                        point += 1;
                    }
                }
            }
        }
        match comma.cmp(&point) {
            std::cmp::Ordering::Greater => Locale::DecimalComma,
            std::cmp::Ordering::Less => Locale::DecimalPoint,
            std::cmp::Ordering::Equal => Locale::Unknown,
        }
    }

    /// The locale numbers are read in on this thread now.
    pub fn current() -> Locale {
        LOCALE.with(|l| l.get())
    }
}

/// A number as printed, with the precision its text gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Printed {
    /// The value (K/M/G/T expanded; a time in µs).
    pub value: f64,
    /// Half a unit of its last printed digit, in the value's unit: the
    /// farthest the true value can be from `value` when the report
    /// rounded (`29` ± 0.5, `29.1` ± 0.05, `363.3K` ± 50, `5` ms ± 500
    /// µs).
    pub half_unit: f64,
    /// Printed with a decimal separator (`123.4`, `1234.`, `.0`).
    pub fraction: bool,
    /// Printed with a K/M/G/T suffix.
    pub abbreviated: bool,
}

/// A plain number with separators and an optional K/M/G/T suffix, as
/// printed; `None` for anything else (`#####`, text, empty).
pub fn count(s: &str) -> Option<f64> {
    count_printed(s).map(|p| p.value)
}

/// [`count`] with the precision of its text.
pub fn count_printed(s: &str) -> Option<Printed> {
    let s = s.trim();
    let (body, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1e3),
        b'M' => (&s[..s.len() - 1], 1e6),
        b'G' => (&s[..s.len() - 1], 1e9),
        b'T' => (&s[..s.len() - 1], 1e12),
        _ => (s, 1.0),
    };
    let (v, decimals) = plain_digits(body)?;
    Some(Printed {
        value: v * mult,
        half_unit: half_unit(decimals) * mult,
        fraction: decimals.is_some(),
        abbreviated: mult > 1.0,
    })
}

/// Half a unit of the last digit: 0.5 for a whole number, 0.05 for one
/// decimal (`1234.` is whole).
fn half_unit(decimals: Option<usize>) -> f64 {
    0.5 * 10f64.powi(-(decimals.unwrap_or(0).min(12) as i32))
}

/// A number with separators, no suffix.
pub fn plain(s: &str) -> Option<f64> {
    plain_digits(s).map(|(v, _)| v)
}

/// A number with separators, no suffix, and how many digits follow its
/// decimal separator (`None` when it has none).
fn plain_digits(s: &str) -> Option<(f64, Option<usize>)> {
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
        // The report's locale decides the ambiguous `1,234`.
        (None, Some(_)) if Locale::current() == Locale::DecimalComma => true,
        // `1.234` in a decimal-comma report is 1234.
        (Some(_), None) => {
            Locale::current() == Locale::DecimalComma && s.split('.').skip(1).all(|g| g.len() == 3)
        }
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
    let decimals = cleaned.split_once('.').map(|(_, f)| f.len());
    let v: f64 = cleaned.parse().ok()?;
    v.is_finite()
        .then_some((if neg { -v } else { v }, decimals))
}

/// A duration in µs: the printed unit (`ns`, `us`, `ms`, `s`) or, when
/// none is printed, `default_us` µs per unit.
pub fn time_us(s: &str, default_us: f64) -> Option<f64> {
    time_us_printed(s, default_us).map(|p| p.value)
}

/// [`time_us`] with the precision of its text (in µs: a whole-ms `5` is
/// 5000 ± 500 µs).
pub fn time_us_printed(s: &str, default_us: f64) -> Option<Printed> {
    let s = s.trim();
    let printed = |body: &str, us: f64| {
        plain_digits(body).map(|(v, d)| Printed {
            value: v * us,
            half_unit: half_unit(d) * us,
            fraction: d.is_some(),
            abbreviated: false,
        })
    };
    for (suffix, us) in [
        ("ns", 1e-3),
        ("us", 1.0),
        ("ms", 1e3),
        ("s", 1e6),
        ("m", 60e6),
        ("h", 3600e6),
    ] {
        if let Some(b) = s.strip_suffix(suffix) {
            if let Some(p) = printed(b, us) {
                return Some(p);
            }
        }
    }
    printed(s, default_us)
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

    #[test]
    fn the_precision_is_half_a_unit_of_the_last_printed_digit() {
        let c = |s| count_printed(s).unwrap();
        assert_eq!((c("29").value, c("29").half_unit), (29.0, 0.5));
        assert!((c("29.1").half_unit - 0.05).abs() < 1e-12);
        assert!((c("363.3K").half_unit - 50.0).abs() < 1e-9);
        assert_eq!(c("363.3K").value, 363_300.0);
        assert!(c("363.3K").abbreviated && c("363.3K").fraction);
        // An 11g histogram total whose K the column cut: a fraction.
        assert!(c("123.4").fraction && !c("123.4").abbreviated);
        assert!(c("1234.").fraction);
        assert_eq!(c("1234.").half_unit, 0.5);
        assert!(!c("1,234").fraction);
        assert!((c(".0").half_unit - 0.05).abs() < 1e-12);
        let t = |s, d| time_us_printed(s, d).unwrap();
        assert_eq!(
            (t("5", 1000.0).value, t("5", 1000.0).half_unit),
            (5000.0, 500.0)
        );
        assert!((t("373.76us", 1.0).half_unit - 0.005).abs() < 1e-12);
        assert!((t("15.94ms", 1.0).half_unit - 5.0).abs() < 1e-9);
        with_locale(Locale::DecimalComma, || {
            assert!((count_printed("4,2").unwrap().half_unit - 0.05).abs() < 1e-12);
            assert_eq!(count_printed("1.234").unwrap().half_unit, 0.5);
        });
    }

    #[test]
    fn the_locale_decides_a_bare_comma_group() {
        assert_eq!(count("1,234"), Some(1234.0));
        with_locale(Locale::DecimalComma, || {
            assert_eq!(count("1,234"), Some(1.234));
            assert_eq!(count("1.234"), Some(1234.0));
            assert_eq!(count("1.234,5"), Some(1234.5));
            assert_eq!(count("363,3K"), Some(363_300.0));
            assert_eq!(time_us("2,000ms", 1.0), Some(2000.0));
        });
        with_locale(Locale::DecimalPoint, || {
            assert_eq!(count("1,234"), Some(1234.0));
        });
        assert_eq!(Locale::current(), Locale::Unknown);
    }

    #[test]
    fn the_locale_is_judged_from_unambiguous_numbers() {
        assert_eq!(
            Locale::detect("Elapsed: 60.25 (mins) redo size 48,438,904 1,234"),
            Locale::DecimalPoint
        );
        assert_eq!(
            Locale::detect("Elapsed: 60,25 (mins) redo size 48.438.904 1,234 12.2.0.1.0"),
            Locale::DecimalComma
        );
        assert_eq!(
            Locale::detect("1,234 1.234 19:00:39 12.2.0.1.0"),
            Locale::Unknown
        );
    }
}
