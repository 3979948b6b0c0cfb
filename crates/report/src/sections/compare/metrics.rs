//! The compared rows of each kind of result: a measurement's sections each
//! compare their own entries (`Section::compare`); a trace analysis and an
//! AWR report name their figures in their own folders.

use crate::kit::metrics::section_rows;
use crate::sections::{awr, trace};
use dbio_model::awr::{AwrReport, WaitEventRow};
use dbio_model::compare::ComparedRow;
use dbio_model::trace::TraceReport;
use dbio_model::{Outcome, RunReport};

/// Every compared row of `outcomes` (all of one command), and warnings
/// for what is not compared.
pub(crate) fn rows(outcomes: &[&Outcome], rows: &mut Vec<ComparedRow>, warnings: &mut Vec<String>) {
    fn each<'a, R: 'a, T: 'a>(xs: &[&'a R], f: impl Fn(&'a R) -> &'a [T]) -> Vec<Vec<&'a T>> {
        xs.iter().map(|r| f(r).iter().collect()).collect()
    }
    match outcomes[0] {
        Outcome::Run(_) => {
            let runs: Vec<&RunReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Run(r) => Some(r),
                    _ => None,
                })
                .collect();
            for s in crate::sections::in_comparison_order() {
                s.compare(&runs, rows, warnings);
            }
        }
        Outcome::Trace(_) => {
            let ts: Vec<&TraceReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Trace(t) => Some(t),
                    _ => None,
                })
                .collect();
            let resp: Vec<Vec<&TraceReport>> = ts.iter().map(|t| vec![*t]).collect();
            section_rows(
                "response time",
                &resp,
                &trace::compare::response_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "profile",
                &each(&ts, |t| &t.profile.lines),
                &trace::compare::profile_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "event",
                &each(&ts, |t| &t.events),
                &trace::compare::event_metrics(),
                rows,
                warnings,
            );
        }
        Outcome::Awr(_) => {
            let rs: Vec<&AwrReport> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Outcome::Awr(r) => Some(r),
                    _ => None,
                })
                .collect();
            section_rows(
                "load profile",
                &each(&rs, |r| &r.load_profile),
                &awr::compare::load_profile_metrics(),
                rows,
                warnings,
            );
            // Idle events left out, names cut at the column width joined.
            let lists =
                |pick: fn(&AwrReport) -> &[WaitEventRow]| awr::compare::event_lists(&rs, pick);
            let (top, fg) = (lists(|r| &r.top_events), lists(|r| &r.foreground_events));
            section_rows(
                "top event",
                &top.iter().map(|l| l.iter().collect()).collect::<Vec<_>>(),
                &awr::compare::wait_event_metrics(),
                rows,
                warnings,
            );
            section_rows(
                "foreground event",
                &fg.iter().map(|l| l.iter().collect()).collect::<Vec<_>>(),
                &awr::compare::wait_event_metrics(),
                rows,
                warnings,
            );
        }
        _ => {}
    }
}
