//! Live traces (`dbio watch`) with the block layer: table, page, CSV and findings.

pub mod files;
pub mod findings;
pub mod html;
pub mod html_block;
pub mod table;
pub mod verdict;

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, LongRow};
use crate::sections::Section;
use dbio_model::compare::ComparedRow;
use dbio_model::{Finding, RunReport};

/// Watch's [`Section`].
pub struct Watch;

impl Section for Watch {
    fn table(&self, r: &RunReport) -> String {
        table::render(r)
    }

    fn html(&self, r: &RunReport) -> String {
        if r.watch.is_empty() {
            return String::new();
        }
        html::section(&r.watch)
    }

    fn csv(&self, r: &RunReport) -> Result<Vec<LongRow>, ExportError> {
        let mut rows = Vec::new();
        for x in &r.watch {
            for o in &x.ops {
                let item = if o.fd < 0 && o.inode.is_some() {
                    // An io_uring request's file: no descriptor.
                    format!("{} pid {} {} {}", x.name, o.pid, o.file_name(), o.op)
                } else if o.generation > 0 {
                    format!(
                        "{} pid {} fd {} #{} {}",
                        x.name, o.pid, o.fd, o.generation, o.op
                    )
                } else {
                    format!("{} pid {} fd {} {}", x.name, o.pid, o.fd, o.op)
                };
                rows.extend(entry_rows(
                    "watch",
                    &item,
                    o,
                    &["pid", "fd", "generation", "op"],
                )?);
            }
            for d in &x.block {
                let by = d
                    .pid
                    .map_or_else(|| "other".to_string(), |p| format!("pid {p}"));
                let item = format!("{} block {} {} {}", x.name, d.device, d.op, by);
                rows.extend(entry_rows(
                    "watch_block",
                    &item,
                    d,
                    &["device", "op", "pid"],
                )?);
            }
            for f in &x.file_block {
                let item = format!("{} file {} {}", x.name, f.path, f.op);
                rows.extend(entry_rows("watch_file_block", &item, f, &["path", "op"])?);
            }
            for u in &x.block_unattributed {
                let item = format!("{} unattributed {} {}", x.name, u.device, u.op);
                rows.extend(entry_rows("watch_block", &item, u, &["device", "op"])?);
            }
            rows.extend(entry_rows("watch", &x.name, &x.losses, &[])?);
        }
        Ok(rows)
    }

    fn is_in(&self, r: &RunReport) -> bool {
        !r.watch.is_empty()
    }

    fn findings(&self, r: &RunReport) -> Vec<Finding> {
        (findings::RULES.evaluate)(r)
    }

    fn verdict(&self, r: &RunReport, findings: &[Finding]) -> Option<dbio_model::Verdict> {
        verdict::verdict(r, findings)
    }

    /// Live traces are not compared; a warning says so.
    fn compare(
        &self,
        runs: &[&RunReport],
        _rows: &mut Vec<ComparedRow>,
        warnings: &mut Vec<String>,
    ) {
        if runs.iter().any(|r| !r.watch.is_empty()) {
            warnings.push("live traces (watch) are not compared: compare their JSON or CSV".into());
        }
    }

    fn merge_refusal(&self, r: &RunReport) -> Option<&'static str> {
        self.is_in(r).then_some("watch")
    }

    fn page_rank(&self) -> u8 {
        7
    }

    fn comparison_rank(&self) -> u8 {
        5
    }
}
