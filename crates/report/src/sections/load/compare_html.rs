//! `dbio load --compare`'s panel: the configurations measured in
//! interleaved rounds, each with its median commits per second and the
//! range over its rounds (a difference is only worth reporting when the
//! ranges do not overlap), its commit latency, the settings changed with
//! their scope and whether each is back, and the device baseline beside
//! the commit latency: what the storage allows (4 KiB write + `fdatasync`
//! at queue depth 1) next to what the database made of it.
//!
//! A round summary holds a median, a minimum and a maximum only (no
//! quartiles: with a handful of rounds they would mean nothing), so the
//! whiskers here have a median tick and no box.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Whisker};
use dbio_model::load_compare::{self as lc, LoadBaseline, LoadComparison};
use dbio_model::series::Spread;
use dbio_model::units::format_ns;
use maud::html;
use std::fmt::Write;

/// A round spread as a whisker row: median tick, min–max line, no box.
fn whisker(label: &str, s: lc::Spread, n: u32) -> Whisker<'_> {
    Whisker {
        label,
        spread: Spread {
            n: n as usize,
            min: s.min,
            p25: s.median,
            median: s.median,
            p75: s.median,
            max: s.max,
        },
    }
}

fn range(s: lc::Spread, fmt: fn(f64) -> String) -> String {
    format!("{} ({} – {})", fmt(s.median), fmt(s.min), fmt(s.max))
}

/// The panel of a load comparison.
pub fn section(c: &LoadComparison) -> String {
    let mut b =
        String::from("<h2 id=\"h-load-compare\">Commit load: configurations compared</h2>\n");
    let _ = write!(
        b,
        "<p class=\"muted\">{} configurations, {} rounds each, interleaved (A B A B ...) so that drift in the machine falls on every configuration alike. A difference is beyond the run-to-run range when the rounds' ranges (min – max) do not overlap.</p>",
        c.configs.len(),
        c.rounds
    );
    if !c.settings.is_empty() {
        let rows: Vec<Vec<String>> = c
            .settings
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    s.scope.clone(),
                    s.original.clone(),
                    if s.restored {
                        "yes".into()
                    } else {
                        "NO: still changed, set it back by hand".into()
                    },
                ]
            })
            .collect();
        b.push_str("<h3>Settings changed</h3>");
        b.push_str(&page::table(
            "load-compare-settings",
            &["setting", "scope", "value before", "restored"],
            &rows,
        ));
    }
    let rows: Vec<Vec<String>> = c
        .configs
        .iter()
        .map(|k| {
            vec![
                k.config.clone(),
                k.rounds.to_string(),
                range(k.tps, svg::fmt_count),
                format!("{:.3}", k.tps_ratio),
                if k.beyond_range {
                    "beyond the range".into()
                } else {
                    "-".into()
                },
                range(k.commit_p50_ns, format_ns),
                range(k.commit_p99_ns, format_ns),
                k.flush_latency_ns
                    .map_or("-".into(), |s| range(s, format_ns)),
                k.commits_per_flush
                    .map_or("-".into(), |s| range(s, |v| format!("{v:.2}"))),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "load-compare-configs",
        &[
            "configuration",
            "#rounds",
            "#commits/s median (min – max)",
            "#ratio to the first",
            "difference",
            "#commit p50 median (min – max)",
            "#commit p99 median (min – max)",
            "#flush latency",
            "#commits per flush",
        ],
        &rows,
    ));
    let tps: Vec<Whisker> = c
        .configs
        .iter()
        .map(|k| whisker(&k.config, k.tps, k.rounds))
        .collect();
    b.push_str(&svg::whiskers(
        "load-compare-tps",
        "Commits per second of each configuration: median (tick) and the range over its rounds (line)",
        &tps,
        svg::fmt_count,
    ));
    let labels: Vec<(String, String)> = c
        .configs
        .iter()
        .map(|k| (format!("{} p50", k.config), format!("{} p99", k.config)))
        .collect();
    let lat: Vec<Whisker> = c
        .configs
        .iter()
        .zip(&labels)
        .flat_map(|(k, (l50, l99))| {
            [
                whisker(l50, k.commit_p50_ns, k.rounds),
                whisker(l99, k.commit_p99_ns, k.rounds),
            ]
        })
        .collect();
    b.push_str(&svg::whiskers(
        "load-compare-latency",
        "Commit latency p50 and p99 of each configuration: median (tick) and the range over its rounds (line)",
        &lat,
        svg::fmt_ns,
    ));
    if let Some(base) = &c.baseline {
        let db: Vec<(String, f64, f64)> = c
            .configs
            .iter()
            .map(|k| {
                (
                    format!("commit, {}", k.config),
                    k.commit_p50_ns.median,
                    k.commit_p99_ns.median,
                )
            })
            .collect();
        b.push_str(&storage_vs_database("load-compare-baseline", base, &db));
    }
    b
}

/// The device baseline beside the commit latency: p50 and p99 of the
/// storage's 4 KiB write + `fdatasync` (before and after the load) and of
/// the database's commits (`db`: label, p50 ns, p99 ns), as bars on one
/// scale.
pub fn storage_vs_database(id: &str, base: &LoadBaseline, db: &[(String, f64, f64)]) -> String {
    let mut rows: Vec<(String, f64)> = Vec::new();
    for (when, p) in [("before", &base.before), ("after", &base.after)] {
        if let Some(p) = p {
            rows.push((
                format!("storage {when}: write+fdatasync p50"),
                p.latency.p50_ns() as f64,
            ));
            rows.push((
                format!("storage {when}: write+fdatasync p99"),
                p.latency.p99_ns() as f64,
            ));
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    for (label, p50, p99) in db {
        rows.push((format!("{label} p50"), *p50));
        rows.push((format!("{label} p99"), *p99));
    }
    let mut b = svg::bars(
        id,
        &format!(
            "Storage against database: the device baseline ({} KiB written and made durable at queue depth 1 in {}, {}) beside the commit latency the database gave",
            base.before
                .as_ref()
                .or(base.after.as_ref())
                .map_or(4, |p| p.block_bytes / 1024),
            base.dir,
            base.place
        ),
        &rows,
        svg::fmt_ns,
    );
    b.push_str(&html! { p.muted { (Text(&baseline_words(base, db))) } }.into_string());
    b
}

/// One sentence: how many times the storage's p50 the database's commit
/// p50 is.
fn baseline_words(base: &LoadBaseline, db: &[(String, f64, f64)]) -> String {
    let storage = base
        .before
        .as_ref()
        .or(base.after.as_ref())
        .map(|p| p.latency.p50_ns() as f64)
        .unwrap_or(0.0);
    let parts: Vec<String> = db
        .iter()
        .filter(|_| storage > 0.0)
        .map(|(l, p50, _)| format!("{l}: {:.1}x the storage's p50", p50 / storage))
        .collect();
    if parts.is_empty() {
        "No baseline p50 to compare with.".into()
    } else {
        format!(
            "Median commit against the storage's median durable write: {}.",
            parts.join("; ")
        )
    }
}
