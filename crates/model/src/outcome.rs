//! The one top-level result: what any dbio command produced.
//!
//! Every exporter (table, JSON, CSV, and HTML next) takes an [`Outcome`],
//! and `dbio report --from` reads one back, so a command's output can be
//! re-rendered from its saved JSON whatever the command was. Each kind of
//! result is one variant; a new command adds a variant (an AWR or
//! Statspack report, a live trace) or a section of [`RunReport`] (a
//! real-database commit load is one more measured section).
//!
//! Why [`RunReport`] keeps a list per section rather than being split into
//! a variant per measuring command: `dbio check` is a composite of all of
//! them (raw I/O jobs, the log writer, datafile reads, the database
//! writer) in one result, so every measuring command writes the same
//! report with the sections it filled, and each section renders itself
//! when present.
//!
//! In JSON every variant is one object carrying [`crate::SCHEMA_VERSION`]
//! and a `command` field that names the variant: `tracefile` for a
//! [`TraceReport`], `tracefile --compare` for a [`TraceComparison`],
//! `awr`, `awr --compare` and `awr trend` for an [`AwrReport`], an
//! [`AwrComparison`] and an [`AwrTrend`], `compare` for a [`Comparison`],
//! and
//! the measuring command (`bench`, `check`, `lgwr`, `read`, `dbwr`,
//! `calibrate`) for a [`RunReport`], whose own `command` field it is.
//! Reading one back is `dbio_report::from_json`'s, not a `Deserialize`
//! here: it looks at the JSON before choosing the variant and migrates
//! older files, which needs `serde_json`, a dependency this crate avoids.

use crate::awr::{AwrComparison, AwrReport, AwrTrend};
use crate::compare::Comparison;
use crate::trace::{TraceComparison, TraceReport};
use crate::RunReport;
use serde::{Serialize, Serializer};

/// The `command` of a [`TraceReport`] in JSON.
pub const TRACE_COMMAND: &str = "tracefile";
/// The `command` of a [`TraceComparison`] in JSON.
pub const TRACE_COMPARISON_COMMAND: &str = "tracefile --compare";
/// The `command` of an [`AwrReport`] in JSON.
pub const AWR_COMMAND: &str = "awr";
/// The `command` of an [`AwrComparison`] in JSON.
pub const AWR_COMPARISON_COMMAND: &str = "awr --compare";
/// The `command` of a [`Comparison`] in JSON.
pub const COMPARE_COMMAND: &str = "compare";
/// The `command` of an [`AwrTrend`] in JSON.
pub const AWR_TREND_COMMAND: &str = "awr trend";

/// What one dbio command produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A measurement (`bench`, `check`, `lgwr`, `read`, `dbwr`,
    /// `calibrate`).
    Run(RunReport),
    /// An Oracle trace analysis (`tracefile`).
    Trace(TraceReport),
    /// Two trace analyses side by side (`tracefile --compare`).
    TraceComparison(TraceComparison),
    /// An AWR or Statspack report read (`awr`).
    Awr(AwrReport),
    /// Two AWR or Statspack reports side by side (`awr --compare`;
    /// boxed: two whole reports would make every result that large).
    AwrComparison(Box<AwrComparison>),
    /// Saved results of one command side by side (`dbio compare`).
    Comparison(Box<Comparison>),
    /// Several AWR or Statspack reports as a trend (`awr FILE...`).
    AwrTrend(Box<AwrTrend>),
}

impl Outcome {
    /// The `command` field of its JSON.
    pub fn command(&self) -> &str {
        match self {
            Outcome::Run(r) => &r.command,
            Outcome::Trace(_) => TRACE_COMMAND,
            Outcome::TraceComparison(_) => TRACE_COMPARISON_COMMAND,
            Outcome::Awr(_) => AWR_COMMAND,
            Outcome::AwrComparison(_) => AWR_COMPARISON_COMMAND,
            Outcome::Comparison(_) => COMPARE_COMMAND,
            Outcome::AwrTrend(_) => AWR_TREND_COMMAND,
        }
    }
}

/// A result with the `command` field put in front of its own fields.
#[derive(Serialize)]
struct Tagged<'a, T> {
    command: &'static str,
    #[serde(flatten)]
    result: &'a T,
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Run(r) => r.serialize(s),
            Outcome::Trace(t) => Tagged {
                command: TRACE_COMMAND,
                result: t,
            }
            .serialize(s),
            Outcome::TraceComparison(c) => Tagged {
                command: TRACE_COMPARISON_COMMAND,
                result: c,
            }
            .serialize(s),
            Outcome::Awr(r) => Tagged {
                command: AWR_COMMAND,
                result: r,
            }
            .serialize(s),
            Outcome::AwrComparison(c) => Tagged {
                command: AWR_COMPARISON_COMMAND,
                result: c,
            }
            .serialize(s),
            Outcome::Comparison(c) => Tagged {
                command: COMPARE_COMMAND,
                result: c,
            }
            .serialize(s),
            Outcome::AwrTrend(t) => Tagged {
                command: AWR_TREND_COMMAND,
                result: t,
            }
            .serialize(s),
        }
    }
}
