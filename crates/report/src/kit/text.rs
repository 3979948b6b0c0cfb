//! The terminal's building blocks every section uses: a comfy-table with
//! dbio's style, right-aligned figures, a latency summary's cells, the
//! environment block and the findings with their evidence.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::{Environment, LatencySummary};
use std::fmt::Write;

/// Findings, one bullet each, with the severity, the evidence and the
/// source on an indented line below.
pub fn findings(fs: &[dbio_model::Finding]) -> String {
    let mut out = String::new();
    for f in fs {
        let _ = writeln!(out, "* {}", f.text);
        let mut line = weight_line(f);
        if let Some(r) = &f.reference {
            let _ = write!(line, "; source: {r}");
        }
        let _ = writeln!(out, "  ({line})");
    }
    out
}

/// The width the answer block wraps its sentences at (a terminal of 100
/// columns shows each of its lines as one line).
pub const WIDTH: usize = 100;

/// `text` wrapped at [`WIDTH`], the first line after `first`, the others
/// after `rest` (both counted in the width).
pub fn wrapped(first: &str, rest: &str, text: &str) -> String {
    let opts = textwrap::Options::new(WIDTH)
        .initial_indent(first)
        .subsequent_indent(rest);
    let mut out = textwrap::fill(text, opts);
    out.push('\n');
    out
}

/// The answer block a command's terminal output opens with: the question,
/// the answer with its class, the top findings with their impact and
/// evidence, then where the detail is (`detail`, one sentence).
pub fn verdict(v: &dbio_model::Verdict, fs: &[dbio_model::Finding], detail: &str) -> String {
    let mut out = wrapped("", "  ", &v.question);
    // The class in brackets, unless the answer already opens with it or
    // the question says it (what a measurement of storage gives).
    let label = v.class.label();
    let said = v.answer.to_lowercase().starts_with(&label.to_lowercase());
    let answer = match v.class {
        dbio_model::VerdictClass::Capability | dbio_model::VerdictClass::Comparison => {
            v.answer.clone()
        }
        _ if said => v.answer.clone(),
        _ => format!("{} [{label}]", v.answer),
    };
    out.push_str(&wrapped("=> ", "   ", &answer));
    // A finding that is the answer shows its evidence under it, once.
    let top: Vec<&dbio_model::Finding> = v.top.iter().filter_map(|&i| fs.get(i)).collect();
    if let Some(f) = top.iter().find(|f| f.text == v.answer) {
        out.push_str(&one_line("   ", &weight_line(f)));
    }
    let others = top.iter().filter(|f| f.text != v.answer);
    for (n, f) in others.enumerate() {
        out.push_str(&wrapped(&format!("  {}. ", n + 1), "     ", &f.text));
        out.push_str(&one_line("     ", &weight_line(f)));
    }
    if !detail.is_empty() {
        out.push_str(&wrapped("", "", detail));
    }
    out
}

/// `prefix` and as many of `line`'s `; `-separated items as fit in
/// [`WIDTH`], with `…` when some were left out (every item is in the
/// findings list of `--detail`, the JSON and the HTML page).
fn one_line(prefix: &str, line: &str) -> String {
    let mut out = prefix.to_string();
    let mut first = true;
    for item in line.split("; ") {
        let sep = if first { "" } else { "; " };
        if !first && out.chars().count() + sep.len() + item.chars().count() > WIDTH - 2 {
            out.push_str(" …");
            break;
        }
        out.push_str(sep);
        out.push_str(item);
        first = false;
    }
    out.push('\n');
    out
}

/// A finding's weight and evidence in one sentence: severity, its share
/// of the total when it explains one, the numbers it rests on.
pub fn weight_line(f: &dbio_model::Finding) -> String {
    let mut line = f.severity.to_string();
    if let Some(i) = &f.impact {
        let _ = write!(line, ", {:.1} % of {}", i.share_pct, i.of);
    }
    if !f.evidence.is_empty() {
        let _ = write!(line, "; {}", crate::kit::findings::evidence_line(f));
    }
    line
}

/// The answer block of a result with verdict `v` followed by a blank
/// line (nothing for a result written before verdicts).
pub fn opening(
    v: Option<&dbio_model::Verdict>,
    fs: &[dbio_model::Finding],
    detail: &str,
) -> String {
    v.map(|v| verdict(v, fs, detail) + "\n").unwrap_or_default()
}

/// The findings the answer block did not show, as [`findings`] prints
/// them (all of them for a result written before verdicts).
pub fn other_findings(v: Option<&dbio_model::Verdict>, fs: &[dbio_model::Finding]) -> String {
    let shown = v.map(|v| v.top.as_slice()).unwrap_or_default();
    let rest: Vec<dbio_model::Finding> = fs
        .iter()
        .enumerate()
        .filter(|(i, _)| !shown.contains(i))
        .map(|(_, f)| f.clone())
        .collect();
    findings(&rest)
}

/// Where the detail is, for a result whose tables follow its answer.
pub const DETAIL_BELOW: &str =
    "The tables and the other findings follow; --html FILE draws them, --json FILE keeps the result.";

/// `target X on FS`; a target on no filesystem in particular (a watch
/// that saw no data file: the watch's name, with no mount and no
/// device) is named alone.
fn target_on(e: &Environment) -> String {
    if e.fs_type.is_empty() && e.mount_point.is_empty() && e.device.is_none() {
        format!("target {}", e.target)
    } else {
        format!("target {} on {}", e.target, nonempty(&e.fs_type, "?"))
    }
}

/// The environment in two sentences wrapped at [`WIDTH`] (a one-screen
/// layout): the target, its filesystem and device with the settings that
/// decide durability and latency, then the machine.
pub fn environment_brief(e: &Environment) -> String {
    let mut target = target_on(e);
    if let Some(d) = &e.device {
        let _ = write!(target, ", device {}", d.name);
        let mut facts = Vec::new();
        if let Some(r) = d.rotational {
            facts.push(if r { "rotational" } else { "non-rotational" }.to_string());
        }
        if let Some(c) = &d.write_cache {
            facts.push(format!("write cache {c}"));
        }
        if let Some(f) = d.fua {
            facts.push(format!("FUA {}", if f { "yes" } else { "no" }));
        }
        if let Some(s) = &d.scheduler {
            facts.push(format!("scheduler {s}"));
        }
        if !facts.is_empty() {
            let _ = write!(target, " ({})", facts.join(", "));
        }
    }
    let host = format!(
        "host {}, Linux {}, {} CPUs, {} RAM, load {:.2}",
        e.hostname,
        e.kernel,
        e.cpus,
        format_bytes(e.memory_bytes),
        e.loadavg[0]
    );
    wrapped("", "  ", &format!("{target}; {host}"))
}

/// The environment block.
pub fn environment(e: &Environment) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "host {} | Linux {} | {} x {} | {} RAM | load {:.2} {:.2} {:.2}",
        e.hostname,
        e.kernel,
        e.cpus,
        e.cpu_model,
        format_bytes(e.memory_bytes),
        e.loadavg[0],
        e.loadavg[1],
        e.loadavg[2]
    );
    s.push_str(&target_on(e));
    if !e.mount_point.is_empty() {
        let _ = write!(s, " mounted at {} [{}]", e.mount_point, e.mount_options);
    }
    s.push('\n');
    if let Some(d) = &e.device {
        let _ = write!(s, "device {}", d.name);
        if let Some(p) = &d.partition {
            let _ = write!(s, " (partition {p})");
        }
        if let Some(m) = &d.model {
            let _ = write!(s, " \"{m}\"");
        }
        let opt = |v: Option<String>| v.unwrap_or_else(|| "?".into());
        let _ = writeln!(
            s,
            " | rotational {} | scheduler {} | sectors {}/{} B logical/physical | write cache {} | FUA {}",
            opt(d.rotational.map(|r| if r { "yes".into() } else { "no".into() })),
            opt(d.scheduler.clone()),
            opt(d.logical_block_size.map(|v| v.to_string())),
            opt(d.physical_block_size.map(|v| v.to_string())),
            opt(d.write_cache.clone()),
            opt(d.fua.map(|f| if f { "yes".into() } else { "no".into() })),
        );
    }
    if let Some(a) = &e.dio_alignment {
        let _ = writeln!(
            s,
            "O_DIRECT alignment: memory {} B, offsets {} B (statx)",
            a.mem_align, a.offset_align
        );
    }
    s
}

fn nonempty<'a>(s: &'a str, dflt: &'a str) -> &'a str {
    if s.is_empty() {
        dflt
    } else {
        s
    }
}

/// A latency summary's cells: mean, p50, p90, p99, p99.9 and max.
pub fn lat_cells(l: &LatencySummary) -> Vec<Cell> {
    if is_absent(l) {
        return (0..6).map(|_| Cell::new(ABSENT)).collect();
    }
    let mut v = vec![Cell::new(format_ns(l.mean_ns))];
    for p in [50.0, 90.0, 99.0, 99.9] {
        v.push(Cell::new(ns_or_absent(l.percentile_ns(p))));
    }
    v.push(Cell::new(format_ns(l.max_ns as f64)));
    v
}

/// What a table or a sentence prints for a value that was not measured
/// (no waits, no reads): a dash, never "0.00 ns".
pub const ABSENT: &str = "–";

/// A latency summary of nothing (no waits recorded).
pub fn is_absent(l: &LatencySummary) -> bool {
    l.count == 0 && l.max_ns == 0 && l.mean_ns == 0.0
}

/// A latency, or [`ABSENT`] when there is none.
pub fn ns_or_absent(ns: Option<u64>) -> String {
    ns.map_or_else(|| ABSENT.to_string(), |v| format_ns(v as f64))
}

/// Right-aligns every column but the first (the figures).
pub fn right_align(t: &mut Table) {
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// A table in dbio's style with this header.
pub fn new_table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header.iter().map(Cell::new));
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_on_no_filesystem_is_named_alone() {
        let mut e = Environment {
            target: "command true".into(),
            ..Default::default()
        };
        assert!(
            environment(&e).contains("\ntarget command true\n"),
            "{}",
            environment(&e)
        );
        assert!(environment_brief(&e).starts_with("target command true; host"));
        e.target = "/data".into();
        e.fs_type = "xfs".into();
        assert!(environment(&e).contains("target /data on xfs"));
    }
}
