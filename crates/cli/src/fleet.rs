//! `--start-at` and `--label`: what a run needs to be one part of a
//! measurement taken from many hosts at once (`dbio merge` combines the
//! parts). One group, flattened into every measuring command, so the
//! flags mean the same everywhere.

use clap::Args;

/// `--start-at TIME`, `--label NAME`.
#[derive(Debug, Clone, Default, Args)]
pub struct Fleet {
    /// Start measuring at this wall-clock time, shared by hosts started
    /// independently: RFC 3339 (`2026-11-24T12:00:00Z`,
    /// `2026-11-24T13:00:00.5+01:00`) or Unix seconds (`1795000000`). Refused
    /// when it is in the past or more than 24 h ahead (the message says
    /// how far this host's clock is), or when this host's clock cannot be
    /// trusted (--max-clock-error). `bench` waits after preparing its
    /// target(s); the other commands wait before they begin.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<u64>,
    /// A name for this run, recorded in the result (`dbio merge` keeps each
    /// part under its label, or its host name).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// With --start-at: refuse to start when this host's clock is not
    /// synchronised (adjtimex reports STA_UNSYNC) or its maximum error is
    /// larger than this (e.g. 10ms, 500us; a unit is required); `off`
    /// accepts any clock. The clock's state is recorded in the result.
    #[arg(long, value_name = "TIME|off", default_value = "10ms", value_parser = parse_clock_limit)]
    pub max_clock_error: ClockLimit,
}

/// `--max-clock-error`: a bound in µs, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockLimit(pub Option<u64>);

impl Default for ClockLimit {
    fn default() -> Self {
        ClockLimit(Some(10_000))
    }
}

/// `--max-clock-error`'s value: `off`, or a time with a unit, into µs.
pub fn parse_clock_limit(s: &str) -> Result<ClockLimit, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(ClockLimit(None));
    }
    let ns = super::parse_threshold_arg(s)?;
    Ok(ClockLimit(Some(ns / 1000)))
}

/// `--start-at`'s value into ns since the Unix epoch (only the form is
/// checked here; the distance from now when the command starts).
pub fn parse_start_at(s: &str) -> Result<u64, String> {
    dbio_engine::wallclock::parse_time(s)
}
