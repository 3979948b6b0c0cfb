//! Terminal rendering of the `dbio calibrate` section of a report: each
//! tier's measured distribution, the boundaries with how many reads of each
//! side they misplace, and why a tier is missing when it is.

use crate::kit::text::{lat_cells, new_table, right_align};
use comfy_table::Cell;
use dbio_model::calibrate::{Boundary, Calibration, TierMeasurement};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::RunReport;
use std::fmt::Write;

/// Renders the calibration section (empty when the report has none).
pub fn render(r: &RunReport) -> String {
    let Some(c) = &r.calibration else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Tier calibration on {} ({}, {}), {} reads, device reads over {}:",
        c.target,
        if c.fs_type.is_empty() {
            "?"
        } else {
            &c.fs_type
        },
        c.block_device.as_deref().unwrap_or("no block device"),
        format_bytes(c.block_size),
        format_bytes(c.region_bytes)
    );
    out.push_str(&tiers(c));
    out.push_str(&boundaries(c));
    if let Some(why) = &c.no_device_tier {
        let _ = writeln!(out, "No device tier: {why}.");
    }
    for n in &c.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

fn tiers(c: &Calibration) -> String {
    let mut t = new_table(&[
        "tier", "how", "reads", "mean", "p50", "p90", "p99", "p99.9", "max",
    ]);
    let rows: [(&str, &Option<TierMeasurement>); 3] = [
        ("page cache", &c.page_cache),
        ("storage cache", &c.storage_cache),
        ("device", &c.device),
    ];
    for (name, m) in rows {
        match m {
            Some(m) => {
                let mut row = vec![
                    Cell::new(name),
                    Cell::new(&m.method),
                    Cell::new(m.lat.count),
                ];
                row.extend(lat_cells(&m.lat));
                t.add_row(row);
            }
            None => {
                t.add_row(vec![Cell::new(name), Cell::new("not measured")]);
            }
        }
    }
    right_align(&mut t);
    format!("{t}\n")
}

fn boundary_row(name: &str, ns: u64, b: &Option<Boundary>, a: &str, z: &str) -> Vec<Cell> {
    let (fa, sz) = match b {
        Some(b) => (
            format!("{:.1} % of {a}", 100.0 * b.faster_misclassified),
            format!("{:.1} % of {z}", 100.0 * b.slower_misclassified),
        ),
        None => ("-".into(), "-".into()),
    };
    vec![
        Cell::new(name),
        Cell::new(if ns == u64::MAX {
            "none".to_string()
        } else {
            format_ns(ns as f64)
        }),
        Cell::new(if b.is_some() { "measured" } else { "default" }),
        Cell::new(fa),
        Cell::new(sz),
    ]
}

fn boundaries(c: &Calibration) -> String {
    let mut t = new_table(&[
        "boundary",
        "threshold",
        "from",
        "faster side above it",
        "slower side below it",
    ]);
    t.add_row(boundary_row(
        "page cache | storage cache",
        c.page_cache_max_ns,
        &c.page_storage_boundary,
        "page-cache hits",
        "storage-cache hits",
    ));
    let sd_from = if c.no_device_tier.is_some() {
        &None
    } else {
        &c.storage_device_boundary
    };
    let mut row = boundary_row(
        "storage cache | device",
        c.storage_cache_max_ns,
        sd_from,
        "storage-cache hits",
        "device reads",
    );
    if c.no_device_tier.is_some() {
        row[2] = Cell::new("no device");
    }
    t.add_row(row);
    right_align(&mut t);
    format!("Boundaries (a read at a threshold counts in the slower tier):\n{t}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_device_tier_is_said_not_invented() {
        let r = RunReport {
            calibration: Some(Calibration {
                page_cache_max_ns: 3_000,
                storage_cache_max_ns: u64::MAX,
                no_device_tier: Some("no block device under this filesystem (tmpfs)".into()),
                fs_type: "tmpfs".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let s = render(&r);
        assert!(s.contains("No device tier: no block device"), "{s}");
        assert!(s.contains("none"), "{s}");
        assert!(s.contains("no device"), "{s}");
        assert_eq!(render(&RunReport::default()), "");
    }
}
