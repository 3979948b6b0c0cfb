//! `dbio matrix` rendered: the points as one table (ORION's three tables
//! side by side, with the device's own utilisation and queue), the
//! search's CALIBRATE_IO figures, and ORION's CSV layout for users who
//! compare with old ORION runs.

use crate::kit::text::{new_table, right_align};
use comfy_table::Cell;
use dbio_model::matrix::{LargePattern, MatrixPoint, MatrixResult};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::{EngineKind, RunReport};
use std::fmt::Write;

/// Renders the matrix section (empty when the report has none).
pub fn render(r: &RunReport) -> String {
    let Some(m) = &r.matrix else {
        return String::new();
    };
    let c = &m.config;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Load matrix on {} ({} engine{}): {} random I/Os{} × {} {} I/Os, {} per point after {} warm-up; ladders {}:",
        m.target,
        c.engine.name(),
        if c.engine == EngineKind::Null { "" } else { ", O_DIRECT" },
        format_bytes(c.small_bs),
        if c.write_pct > 0 {
            format!(" ({} % writes)", c.write_pct)
        } else {
            String::new()
        },
        format_bytes(c.large_bs),
        match c.large_pattern {
            LargePattern::Sequential => "sequential-stream",
            LargePattern::Random => "random",
        },
        format_ns(c.runtime_ns as f64),
        format_ns(c.warmup_ns as f64),
        c.ladder_source
    );
    let mut t = new_table(&[
        "small",
        "large",
        "small IOPS",
        "large MB/s",
        "p50",
        "p99",
        "p99.9",
        "dev util",
        "dev queue",
    ]);
    for p in &m.points {
        t.add_row(point_row(p));
    }
    right_align(&mut t);
    let _ = writeln!(out, "{t}");
    if let Some(s) = &m.search {
        let _ = writeln!(
            out,
            "Search (CALIBRATE_IO's figures, small-I/O p99 under {}):",
            format_ns(s.max_latency_ns as f64)
        );
        match m.search_max() {
            Some((iops, n, p99)) => {
                let _ = writeln!(
                    out,
                    "  max IOPS {iops:.0} at {n} outstanding, p99 {} (the load under the target that reached the most IOPS)",
                    p99.map_or("-".into(), |x| format_ns(x as f64))
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  max IOPS: none; even one outstanding I/O has a p99 over the target"
                );
            }
        }
        let _ = writeln!(
            out,
            "  max MB/s {:.1} ({} outstanding large I/Os)",
            s.max_mbps, s.max_mbps_outstanding
        );
        if let Some(l) = s.latency_at_one_ns {
            let _ = writeln!(
                out,
                "  latency at one outstanding I/O {} (mean)",
                format_ns(l)
            );
        }
        if s.skipped_points > 0 {
            let _ = writeln!(
                out,
                "  {} ladder point{} skipped: past the knee",
                s.skipped_points,
                if s.skipped_points == 1 { "" } else { "s" }
            );
        }
    }
    if let Some(first) = m.points.iter().find_map(|p| p.stripe.as_ref()) {
        let _ = writeln!(
            out,
            "Stripe: {} over {} targets, unit {}, {} each; each target's share of a point's I/Os (small and large):",
            first.layout.name(),
            first.targets.len(),
            format_bytes(first.stripe_bytes),
            format_bytes(first.targets.first().map_or(0, |t| t.size))
        );
        let mut head = vec!["small".to_string(), "large".to_string()];
        head.extend(first.targets.iter().map(|t| t.path.clone()));
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        let mut t = new_table(&head);
        for p in &m.points {
            let Some(s) = &p.stripe else { continue };
            let total: u64 = s.targets.iter().map(|t| t.ops()).sum();
            let mut row = vec![Cell::new(p.small), Cell::new(p.large)];
            row.extend(s.targets.iter().map(|t| {
                Cell::new(format!(
                    "{:.1} %",
                    t.ops() as f64 * 100.0 / total.max(1) as f64
                ))
            }));
            t.add_row(row);
        }
        right_align(&mut t);
        let _ = writeln!(out, "{t}");
    }
    if let Some(why) = &m.no_answer {
        let _ = writeln!(out, "Search: no answer, {why}");
    }
    out
}

fn point_row(p: &MatrixPoint) -> Vec<Cell> {
    let lat = |f: fn(&dbio_model::matrix::PointLatency) -> u64| {
        p.small_lat
            .as_ref()
            .map_or("-".to_string(), |l| format_ns(f(l) as f64))
    };
    vec![
        Cell::new(p.small),
        Cell::new(p.large),
        Cell::new(if p.small > 0 {
            format!("{:.0}", p.small_iops)
        } else {
            "-".into()
        }),
        Cell::new(if p.large > 0 {
            format!("{:.1}", p.large_mbps)
        } else {
            "-".into()
        }),
        Cell::new(lat(|l| l.p50_ns)),
        Cell::new(lat(|l| l.p99_ns)),
        Cell::new(lat(|l| l.p99_9_ns)),
        Cell::new(
            p.device_util_pct
                .map_or("-".into(), |u| format!("{u:.0} %")),
        ),
        Cell::new(p.device_queue.map_or("-".into(), |q| format!("{q:.1}"))),
    ]
}

/// ORION's three tables, `<name>_iops.csv`, `<name>_mbps.csv` and
/// `<name>_lat.csv`: a header row of outstanding small I/Os
/// (`Large/Small,1,2,...`), then one row per outstanding large-I/O count,
/// a cell per point (empty where none was measured). Latency is the mean
/// small-I/O latency in microseconds, as ORION writes it; IOPS and MB/s
/// are ORION's units (MB = 10^6 bytes).
pub fn orion_csv(m: &MatrixResult) -> [String; 3] {
    let c = &m.config;
    let table = |cell: &dyn Fn(&MatrixPoint) -> Option<String>, small_cols: &[u32]| {
        let mut s = String::from("Large/Small");
        for n in small_cols {
            let _ = write!(s, ",{n}");
        }
        s.push('\n');
        for &l in &c.large_ladder {
            let _ = write!(s, "{l}");
            for &n in small_cols {
                let v = m.point(n, l).and_then(cell).unwrap_or_default();
                let _ = write!(s, ",{v}");
            }
            s.push('\n');
        }
        s
    };
    let with_small: Vec<u32> = c.small_ladder.iter().copied().filter(|&n| n > 0).collect();
    [
        table(
            &|p| (p.small > 0).then(|| format!("{:.0}", p.small_iops)),
            &with_small,
        ),
        table(
            &|p| (p.large > 0).then(|| format!("{:.2}", p.large_mbps)),
            &c.small_ladder,
        ),
        table(
            &|p| p.small_lat.map(|l| format!("{:.2}", l.mean_ns / 1000.0)),
            &with_small,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::matrix::{MatrixConfig, PointLatency};

    fn point(small: u32, large: u32) -> MatrixPoint {
        MatrixPoint {
            small,
            large,
            small_iops: f64::from(small) * 1000.0,
            large_mbps: f64::from(large) * 100.5,
            small_lat: (small > 0).then_some(PointLatency {
                mean_ns: 250_500.0,
                p50_ns: 200_000,
                p99_ns: 900_000,
                p99_9_ns: 2_000_000,
            }),
            device_util_pct: Some(97.0),
            device_queue: Some(3.5),
            ..MatrixPoint::default()
        }
    }

    fn result() -> MatrixResult {
        MatrixResult {
            name: "matrix".into(),
            target: "/data/x".into(),
            config: MatrixConfig {
                small_ladder: vec![0, 1, 2],
                large_ladder: vec![0, 1],
                ..MatrixConfig::default()
            },
            points: vec![point(1, 0), point(2, 0), point(0, 1), point(1, 1)],
            search: None,
            no_answer: None,
        }
    }

    /// ORION's layout: rows are large counts, columns small counts; a cell
    /// not measured (2 small with 1 large here) stays empty; the IOPS and
    /// latency tables have no small=0 column, the MB/s table has it.
    #[test]
    fn orion_tables_have_orions_rows_columns_and_units() {
        let [iops, mbps, lat] = orion_csv(&result());
        assert_eq!(iops, "Large/Small,1,2\n0,1000,2000\n1,1000,\n");
        assert_eq!(mbps, "Large/Small,0,1,2\n0,,,\n1,100.50,100.50,\n");
        assert_eq!(lat, "Large/Small,1,2\n0,250.50,250.50\n1,250.50,\n");
    }

    #[test]
    fn the_table_shows_every_point_with_the_devices_figures() {
        let r = RunReport {
            matrix: Some(Box::new(result())),
            ..RunReport::default()
        };
        let s = render(&r);
        assert!(
            s.starts_with("Load matrix on /data/x (libaio engine, O_DIRECT)"),
            "{s}"
        );
        assert!(s.contains("97 %") && s.contains("3.5"), "{s}");
        assert!(s.contains("100.5") && s.contains("2000"), "{s}");
        assert!(!s.contains("Search"), "{s}");
    }
}
