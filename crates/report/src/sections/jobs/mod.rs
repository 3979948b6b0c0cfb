//! Raw jobs (`dbio bench`, `check`'s jobs): their table, page, CSV, compared figures and settings, the fleet's parts and stripes, and merging one job run on many hosts.

pub mod compare;
pub mod csv;
pub mod findings;
pub mod fleet;
pub mod html;
pub mod merge;
pub mod table;

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, LongRow};
use crate::kit::metrics::section_rows;
use crate::kit::settings;
use crate::sections::Section;
use dbio_model::compare::{ComparedRow, SettingDifference};
use dbio_model::{Layout, RunReport};

/// Jobs's [`Section`].
pub struct Jobs;

impl Section for Jobs {
    /// Each job in full (a detail layout), the summary table when there
    /// are several or the layout is a summary, and a merged result's parts.
    fn table(&self, r: &RunReport) -> String {
        let detail = r.layout == Layout::Detail;
        let mut pieces = Vec::new();
        if detail {
            pieces.extend(r.jobs.iter().map(table::job_detail));
        }
        if !r.jobs.is_empty() && (r.jobs.len() > 1 || !detail) {
            pieces.push(table::summary(&r.jobs));
        }
        if !r.parts.is_empty() {
            pieces.push(fleet::parts(r));
        }
        pieces.join("\n")
    }

    fn findings(&self, r: &RunReport) -> Vec<dbio_model::Finding> {
        (findings::RULES.evaluate)(r)
    }

    /// A bench run's answer: what the target gives the jobs' workload (the
    /// first job's rate and latency class), a non-durable target first.
    fn verdict(&self, r: &RunReport, fs: &[dbio_model::Finding]) -> Option<dbio_model::Verdict> {
        if r.command != "bench" {
            return None;
        }
        const ANSWERS: [&str; 4] = [
            "bench.non_durable",
            "bench.commit",
            "bench.latency",
            "bench.throughput",
        ];
        let answer = ANSWERS
            .iter()
            .find_map(|rule| fs.iter().position(|f| f.rule == *rule))?;
        let top = crate::verdict::top_after(vec![answer], fs);
        let class = if fs[answer].rule == "bench.non_durable" {
            dbio_model::VerdictClass::NonDurable
        } else {
            dbio_model::VerdictClass::Capability
        };
        Some(dbio_model::Verdict {
            question: format!(
                "What does {} give this workload? ({} job{})",
                r.environment.target,
                r.jobs.len(),
                if r.jobs.len() == 1 { "" } else { "s" }
            ),
            class,
            answer: fs[answer].text.clone(),
            top,
        })
    }

    fn html(&self, r: &RunReport) -> String {
        if r.jobs.is_empty() {
            return String::new();
        }
        html::section(&r.jobs)
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        let mut rows = Vec::new();
        for j in &r.jobs {
            rows.extend(entry_rows("job", &j.name, j, &["name"])?);
        }
        Ok(rows)
    }

    fn is_in(&self, r: &RunReport) -> bool {
        !r.jobs.is_empty()
    }

    /// Raw jobs alone are the wide CSV (one row per job and direction).
    fn needs_long_csv(&self, _r: &RunReport) -> bool {
        false
    }

    fn compare(
        &self,
        runs: &[&RunReport],
        rows: &mut Vec<ComparedRow>,
        warnings: &mut Vec<String>,
    ) {
        let per_input: Vec<Vec<_>> = runs.iter().map(|r| r.jobs.iter().collect()).collect();
        section_rows("job", &per_input, &compare::metrics(), rows, warnings);
    }

    fn settings(&self, runs: &[&RunReport], out: &mut Vec<SettingDifference>) {
        settings::section(
            "job",
            &runs.iter().map(|r| r.jobs.as_slice()).collect::<Vec<_>>(),
            |j| &j.name,
            |j| serde_json::to_value(&j.job).unwrap_or_default(),
            out,
        );
    }

    fn page_rank(&self) -> u8 {
        0
    }

    fn comparison_rank(&self) -> u8 {
        0
    }
}
