//! An AWR or Statspack report's answer: is the storage what this DB time
//! is made of?

use crate::verdict::from_top_finding;
use dbio_model::awr::AwrReport;
use dbio_model::{Verdict, VerdictClass};

/// The question a report answers, naming the database and its DB time.
pub fn question(a: &AwrReport) -> String {
    let db = a.header.db_name.as_deref().unwrap_or("the database");
    match a.header.db_time_s {
        Some(s) => format!("Is it the storage? {db}, DB time {s:.1} s"),
        None => format!("Is it the storage? {db}"),
    }
}

/// The verdict of a ranked report analysis.
pub fn verdict(a: &AwrReport) -> Option<Verdict> {
    from_top_finding(question(a), VerdictClass::Inconclusive, &a.findings)
}
