//! The figures `dbio compare` puts side by side for a calibration.

use crate::kit::metrics::{m, Entry, Metric, Spr};
use dbio_model::compare::MetricUnit;

use MetricUnit::Ns;

impl Entry for dbio_model::calibrate::Calibration {
    fn name(&self) -> String {
        self.name.clone()
    }
}

pub(crate) fn metrics() -> Vec<Metric<dbio_model::calibrate::Calibration>> {
    vec![
        m(
            "page cache boundary",
            Ns,
            None,
            |c| Some(c.page_cache_max_ns as f64),
            Spr::No,
        ),
        m(
            "storage cache boundary",
            Ns,
            None,
            |c| Some(c.storage_cache_max_ns as f64),
            Spr::No,
        ),
    ]
}
