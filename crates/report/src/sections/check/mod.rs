//! `dbio check`: the findings over the battery as a whole (its jobs, log writer, reads and writers each render in their own folder).

pub mod brief;
pub mod findings;
pub mod verdict;

use crate::sections::Section;
use dbio_model::{Finding, RunReport};

/// Check's [`Section`].
pub struct Check;

impl Section for Check {
    fn findings(&self, r: &RunReport) -> Vec<Finding> {
        (findings::RULES.evaluate)(r)
    }

    fn verdict(&self, r: &RunReport, fs: &[Finding]) -> Option<dbio_model::Verdict> {
        verdict::verdict(r, fs)
    }

    fn page_rank(&self) -> u8 {
        8
    }

    fn comparison_rank(&self) -> u8 {
        8
    }
}
