//! The calibration's part of a page: the tier thresholds measured.

use crate::kit::html::page::{self};
use crate::kit::html::svg::{self, Hist, Tiers};
use crate::sections::read::html::tiers_label;
use dbio_model::calibrate::Calibration;
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::LatencySummary;

/// The calibration's section: each tier's measured latency histogram,
/// overlaid, with the boundaries found between them shaded.
pub fn calibration(c: &Calibration) -> String {
    let mut b = String::from("<h2 id=\"h-calibrate\">Tier calibration</h2>\n");
    let mut rows: Vec<(&str, String)> = vec![
        ("page cache below", tiers_label(c.page_cache_max_ns)),
        ("storage cache below", tiers_label(c.storage_cache_max_ns)),
        ("target", c.target.clone()),
        ("filesystem", c.fs_type.clone()),
        (
            "block device",
            c.block_device.clone().unwrap_or_else(|| "none".into()),
        ),
        ("block size", format_bytes(c.block_size)),
    ];
    if let Some(w) = &c.no_device_tier {
        rows.push(("no device tier", w.clone()));
    }
    for (name, bd) in [
        ("page/storage boundary", &c.page_storage_boundary),
        ("storage/device boundary", &c.storage_device_boundary),
    ] {
        if let Some(bd) = bd {
            rows.push((
                name,
                format!(
                    "{} ({:.2} % of the faster tier and {:.2} % of the slower above/below it)",
                    format_ns(bd.ns as f64),
                    bd.faster_misclassified * 100.0,
                    bd.slower_misclassified * 100.0
                ),
            ));
        }
    }
    b.push_str(&page::pairs("calibration", &rows));
    let tiers: Vec<(String, &LatencySummary)> = [
        ("page cache", &c.page_cache),
        ("storage cache", &c.storage_cache),
        ("device", &c.device),
    ]
    .into_iter()
    .filter_map(|(n, m)| m.as_ref().map(|m| (format!("{n} ({})", m.method), &m.lat)))
    .collect();
    let hists: Vec<Hist> = tiers
        .iter()
        .map(|(n, l)| Hist {
            label: n,
            buckets: &l.log2_us,
        })
        .collect();
    b.push_str(&svg::histogram(
        "calibrate-hist",
        "Each tier's measured read latency, with the boundaries found shaded",
        &hists,
        Some(Tiers {
            page_cache_max_ns: c.page_cache_max_ns,
            storage_cache_max_ns: c.storage_cache_max_ns,
        }),
    ));
    let refs: Vec<(&str, &LatencySummary)> = tiers.iter().map(|(n, l)| (n.as_str(), *l)).collect();
    b.push_str(&svg::percentiles(
        "calibrate-pct",
        "Each tier's read latency percentiles",
        &refs,
    ));
    if !c.notes.is_empty() {
        b.push_str(&page::list(None, &c.notes));
    }
    b
}
