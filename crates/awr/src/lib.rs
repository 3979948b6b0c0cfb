//! AWR and Statspack reports: the parser and the figures derived from it.
//!
//! The DBA's arithmetic on a report ('redo size' / 'redo writes', 'redo
//! write time' from centiseconds into ms per write, 'log file sync'
//! against 'log file parallel write') needs the numbers as the report
//! printed them, from any release and any shape the report reached the
//! reader in: a whole text or HTML report, or a section pasted into an
//! e-mail whose whitespace was collapsed. So the reader is two layers:
//! [`text`] and `html` turn the input into sections of tables (columns
//! found from each table's dashed underline, not from a release's column
//! positions), and this module reads the sections it knows by their
//! titles and the columns by their headings. A section it does not know
//! is listed and skipped; nothing in the input is fatal except not being
//! a report at all ([`detect`]).
//!
//! Every number kept equals the text it came from (`crate::num`); the
//! derived figures are computed in [`mod@derive`].
#![deny(missing_docs)]

pub mod derive;
pub mod detect;
mod html;
pub mod join;
pub mod month;
pub mod num;
pub mod text;
pub mod trend;

use dbio_model::awr::*;
use dbio_model::Log2Buckets;
use text::{Section, Table};

/// Why an input was refused: one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAReport(pub String);

impl std::fmt::Display for NotAReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotAReport {}

/// Reads one report (or pasted sections). `source` names the input in
/// the result and in the refusal.
pub fn parse(bytes: &[u8], source: &str) -> Result<AwrReport, NotAReport> {
    let kind = detect::classify(bytes)
        .map_err(|why| NotAReport(format!("{source} is not an AWR or Statspack report: {why}")))?;
    let text = decode(bytes);
    let locale = num::Locale::detect(&text);
    let mut r = num::with_locale(locale, || read_report(bytes, source, kind, &text));
    r.decimal_comma = locale == num::Locale::DecimalComma;
    Ok(r)
}

/// The report's text: UTF-8 when it is valid UTF-8, else ISO 8859-1
/// (a report spooled in a `WE8ISO8859P1` or `WE8MSWIN1252` session, where
/// `Mär` is the byte 0xE4 and would otherwise be lost to U+FFFD). Every
/// byte below 0x80 reads the same either way, so numbers and section
/// titles do not depend on the choice.
fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Reads a report of a known kind, numbers in the locale set by the
/// caller.
fn read_report(bytes: &[u8], source: &str, kind: ReportKind, text: &str) -> AwrReport {
    let lines = text::lines(text);
    let sections = match kind {
        ReportKind::AwrHtml => html::sections(text),
        _ => text::sections(&lines, known),
    };
    let mut r = AwrReport {
        schema_version: dbio_model::SCHEMA_VERSION,
        source: source.to_string(),
        kind,
        bytes: bytes.len() as u64,
        lines: lines.len() as u64,
        ..Default::default()
    };
    let mut hist = Histograms::default();
    let mut all_events = Vec::new();
    // Statspack's header tables look like sections (`Database` over a
    // line of `~`): what comes before the first section dbio reads is
    // header.
    let mut body = false;
    for s in &sections {
        let t = s.title.to_ascii_lowercase();
        let known = read_section(&mut r, &mut hist, &mut all_events, s, &t);
        body |= known && !t.is_empty();
        let parsed = known || !body;
        if parsed && !known {
            header(&mut r, s);
        }
        if !s.title.is_empty() {
            r.sections.push(SectionInfo {
                title: s.title.clone(),
                parsed,
            });
        }
    }
    if r.foreground_events.is_empty() {
        r.foreground_events = all_events;
    }
    if kind == ReportKind::Pasted {
        collapsed_statistics(&mut r, text);
    }
    if r.header.db_name.is_none() {
        if let Some((d, i)) = lines.iter().find_map(|l| text::db_inst(l)) {
            r.header.db_name = Some(d);
            r.header.instance.get_or_insert(i);
        }
    }
    r.header.instances = r.header.instances.max(1);
    r.histograms = hist.finish();
    // A statistic printed on two pages (or in the key statistics too) is
    // kept once, as first printed.
    let mut seen = std::collections::HashSet::new();
    r.statistics.retain(|s| seen.insert(s.name.clone()));
    r
}

/// Titles (lower-cased prefixes) of the sections dbio reads.
const KNOWN: &[&str] = &[
    "load profile",
    "foreground wait events",
    "background wait events",
    "wait events (fg and bg)",
    "wait event histogram",
    "instance activity stats",
    "host cpu",
    "iostat by",
    "io stat by",
    "io stats function",
    "file io stats",
    "file read histogram",
    "tablespace io stats",
    "init.ora parameters",
    "initialization parameters",
    "workload repository report",
    "statspack report",
];

/// Whether dbio reads a section of this (lower-cased) title.
fn known(t: &str) -> bool {
    t == "wait events"
        || (t.starts_with("top ") && t.contains("event"))
        || KNOWN.iter().any(|k| t.starts_with(k))
}

/// Reads one section into the report; false when dbio does not read it.
fn read_section(
    r: &mut AwrReport,
    hist: &mut Histograms,
    all_events: &mut Vec<WaitEventRow>,
    s: &Section,
    t: &str,
) -> bool {
    if t.is_empty() {
        header(r, s);
        if r.kind == ReportKind::Pasted {
            for tb in &s.tables {
                events_of(tb, &mut r.foreground_events, &mut r.statistics);
                stats_of(tb, &mut r.statistics);
            }
            load_profile(r, s);
        }
        return true;
    }
    if !known(t) {
        return false;
    }
    if t.starts_with("load profile") {
        load_profile(r, s);
    } else if t.starts_with("top ") && t.contains("event") {
        for tb in &s.tables {
            events_of(tb, &mut r.top_events, &mut r.statistics);
        }
    } else if t.starts_with("foreground wait events") {
        for tb in &s.tables {
            events_of(tb, &mut r.foreground_events, &mut r.statistics);
        }
    } else if t.starts_with("background wait events") {
        for tb in &s.tables {
            events_of(tb, &mut r.background_events, &mut r.statistics);
        }
    } else if t == "wait events" || t.starts_with("wait events (fg and bg)") {
        for tb in &s.tables {
            events_of(tb, all_events, &mut r.statistics);
        }
    } else if t.starts_with("wait event histogram") {
        for tb in &s.tables {
            hist.read(tb, t);
        }
    } else if t.starts_with("instance activity stats") && !t.contains("absolute") {
        for tb in &s.tables {
            stats_of(tb, &mut r.statistics);
        }
    } else if t.starts_with("host cpu") {
        host_cpu(r, s);
    } else if [
        "iostat by",
        "io stat by",
        "io stats function",
        "file io stats",
        "file read histogram",
        "tablespace io stats",
        "init.ora parameters",
        "initialization parameters",
    ]
    .iter()
    .any(|p| t.starts_with(p))
    {
        for tb in &s.tables {
            r.tables.push(RawTable {
                section: s.title.clone(),
                columns: tb.headers.clone(),
                rows: tb.rows.clone(),
            });
        }
    } else if t.starts_with("workload repository report") || t.starts_with("statspack report") {
        header(r, s);
    } else {
        return false;
    }
    true
}

/// Lines of a section with table rows joined back into text.
fn flat_lines(s: &Section) -> Vec<String> {
    let mut v = s.lines.clone();
    v.retain(|l| l.contains(':'));
    for t in &s.tables {
        for row in &t.rows {
            let cells: Vec<&str> = row
                .iter()
                .map(String::as_str)
                .filter(|c| !c.is_empty())
                .collect();
            v.push(cells.join(" "));
        }
    }
    v
}

/// The number after `label` on a line (`Elapsed:  60.25 (mins)` into
/// seconds when followed by `(mins)`).
fn labelled(line: &str, label: &str) -> Option<f64> {
    let lower = line.to_ascii_lowercase();
    let p = lower.find(label)?;
    let mut w = line[p + label.len()..].split_whitespace();
    let v = num::count(w.next()?)?;
    Some(match w.next() {
        Some(u) if u.starts_with("(min") => v * 60.0,
        Some(u) if u.starts_with("(hour") => v * 3600.0,
        _ => v,
    })
}

/// The snapshot time after `label` and the snapshot id
/// (`Begin Snap:  2668 04-Feb-23 19:00:39  104  3.7` gives
/// `04-Feb-23 19:00:39`), as printed.
fn snap_time(line: &str, label: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let p = lower.find(label)?;
    let mut w = line[p + label.len()..].split_whitespace();
    w.next()?.parse::<u64>().ok()?;
    // `Month` and some languages' `Mon` are blank-padded to the longest
    // name (`04-Mai   -23`): the date is the words up to the time.
    let mut date = String::new();
    let time = loop {
        let word = w.next()?;
        if word.contains(':') && !date.is_empty() {
            break word;
        }
        if date.len() > 40 {
            return None;
        }
        date.push_str(word);
    };
    (sortable_time(&date, time).is_some()).then(|| format!("{date} {time}"))
}

/// `04-Feb-23` `19:00:39` as `2023-02-04T19:00:39`, which sorts in time
/// order (two-digit years are 2000 + YY, as Oracle's `RR` reads them up
/// to 2049; AWR exists since 2004). The month may be spelled in any of
/// the languages of [`month::month`] (`04-Mär-23`, `04-déc.-23`).
pub fn sortable_time(date: &str, time: &str) -> Option<String> {
    let mut d = date.split('-');
    let day: u32 = d.next()?.parse().ok()?;
    let month = month::month(d.next()?)?;
    let year: u32 = d.next()?.parse().ok()?;
    let year = if year < 100 { 2000 + year } else { year };
    let hms: Vec<u32> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u32>>>()?;
    if !(1..=31).contains(&day) || hms.len() < 2 || hms.len() > 3 || hms[0] > 23 || hms[1] > 59 {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        hms[0],
        hms[1],
        hms.get(2).copied().unwrap_or(0)
    ))
}

fn header(r: &mut AwrReport, s: &Section) {
    let h = &mut r.header;
    for t in &s.tables {
        for (i, name) in t.headers.iter().enumerate() {
            let name = name.to_ascii_lowercase();
            let first = t
                .rows
                .first()
                .map(|row| at(row, i).to_string())
                .unwrap_or_default();
            if first.is_empty() {
                continue;
            }
            let set = |x: &mut Option<String>| {
                x.get_or_insert(first.clone());
            };
            if name == "db name" || name == "database" {
                set(&mut h.db_name);
            } else if name == "instance" || name == "inst name" {
                set(&mut h.instance);
                h.instances = h.instances.max(t.rows.len() as u32);
            } else if name == "db id" {
                set(&mut h.dbid);
            } else if name == "release" {
                set(&mut h.version);
            } else if name == "host name" || name == "host" {
                set(&mut h.host);
            } else if name == "platform" {
                set(&mut h.platform);
            } else if name == "cpus" {
                h.cpus = h.cpus.or(num::count(&first));
            } else if name == "rac" {
                h.rac |= first.eq_ignore_ascii_case("yes");
            }
        }
    }
    if h.host.is_none() {
        // Statspack wraps the host heading (`Host Name Platform CPUs` /
        // `Cores Sockets Memory (G)`): read its row as words.
        if let Some(t) = s.tables.iter().find(|t| {
            let h = t.headers.join(" ");
            h.contains("Platform") || h.contains("Sockets")
        }) {
            let words: Vec<&str> = t
                .rows
                .first()
                .into_iter()
                .flatten()
                .flat_map(|c| c.split_whitespace())
                .collect();
            if let Some(n) = words.iter().skip(1).position(|w| num::count(w).is_some()) {
                h.host = words.first().map(|w| w.to_string());
                h.platform = Some(words[1..=n].join(" "));
                h.cpus = num::count(words[n + 1]);
            }
        }
    }
    for l in flat_lines(s) {
        if let Some(v) = labelled(&l, "begin snap:") {
            h.begin_snap.get_or_insert(v as u64);
        }
        if let Some(v) = labelled(&l, "end snap:") {
            h.end_snap.get_or_insert(v as u64);
        }
        if let Some(t) = snap_time(&l, "begin snap:") {
            h.begin_time.get_or_insert(t);
        }
        if let Some(t) = snap_time(&l, "end snap:") {
            h.end_time.get_or_insert(t);
        }
        if let Some(v) = labelled(&l, "elapsed:") {
            h.elapsed_s.get_or_insert(v);
        }
        if let Some(v) = labelled(&l, "db time:") {
            h.db_time_s.get_or_insert(v);
        }
    }
    if h.instances > 1 {
        h.rac = true;
    }
}

fn load_profile(r: &mut AwrReport, s: &Section) {
    for l in flat_lines(s) {
        let Some((name, rest)) = l.split_once(':') else {
            continue;
        };
        let name = name.trim();
        let nums: Vec<f64> = rest.split_whitespace().map_while(num::count).collect();
        if name.is_empty() || nums.is_empty() || name.len() > 60 {
            continue;
        }
        if r.load_profile.iter().any(|p| p.name == name) {
            continue;
        }
        r.load_profile.push(LoadProfileRow {
            name: name.to_string(),
            per_second: nums.first().copied(),
            per_transaction: nums.get(1).copied(),
        });
    }
}

/// The first column's heading, lower-cased (`""` when there is none).
fn head0(t: &Table) -> String {
    t.headers
        .first()
        .map_or(String::new(), |h| h.to_ascii_lowercase())
}

/// The cell `i` of a row (`""` past its end).
fn at(row: &[String], i: usize) -> &str {
    row.get(i).map_or("", String::as_str)
}

/// Index of the first heading that `pred` accepts.
fn col(t: &Table, pred: impl Fn(&str) -> bool) -> Option<usize> {
    t.headers
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, h)| pred(&h.to_ascii_lowercase()))
        .map(|(i, _)| i)
}

/// Rows of a wait event table; a row that is no event (a statistic line
/// pasted under the table) goes to the statistics.
fn events_of(t: &Table, out: &mut Vec<WaitEventRow>, stats: &mut Vec<StatRow>) {
    if !head0(t).contains("event") {
        return;
    }
    let waits = col(t, |h| {
        h.contains("waits") && !h.contains("/txn") && !h.contains('%') && !h.contains("time")
    });
    let time = col(t, |h| {
        (h.contains("(s)") || h.contains("(sec)") || h.contains("time(s)"))
            && !h.starts_with("avg")
            && !h.contains('%')
    });
    let avg = col(t, |h| h.starts_with("avg"));
    let class = col(t, |h| h.contains("class"));
    // `% DB time`, `%Total Call Time` (10g), `% Total Ela Time` (9i
    // Statspack and 10g's first AWR), `% bg time`.
    let pct = col(t, |h| {
        h.contains("db time")
            || h.contains("call time")
            || h.contains("ela time")
            || h.contains("bg time")
    });
    let avg_unit = avg.map_or(1000.0, |i| {
        let h = t.headers[i].to_ascii_lowercase();
        if h.contains("(us)") {
            1.0
        } else if h.contains("(s)") {
            1e6
        } else {
            1000.0
        }
    });
    let cell = |row: &[String], i: Option<usize>| i.and_then(|i| row.get(i)).cloned();
    for row in &t.rows {
        let name = at(row, 0).trim();
        if name.is_empty() || name.starts_with('-') {
            continue;
        }
        let w = cell(row, waits).and_then(|c| num::count(&c));
        let ts = cell(row, time).and_then(|c| num::count(&c));
        if w.is_none() && ts.is_none() {
            let line: Vec<&str> = row.iter().map(String::as_str).collect();
            stats_from_words(&line.join(" "), stats);
            continue;
        }
        let avg_us = cell(row, avg)
            .and_then(|c| num::time_us(&c, avg_unit))
            .or_else(|| match (w, ts) {
                (Some(w), Some(ts)) if w > 0.0 => Some(ts * 1e6 / w),
                _ => None,
            });
        out.push(WaitEventRow {
            name: name.to_string(),
            class: cell(row, class).filter(|c| !c.is_empty()),
            waits: w,
            time_s: ts,
            avg_us,
            avg_error_us: None,
            pct_db_time: cell(row, pct).and_then(|c| num::count(&c)),
        });
    }
}

/// Rows of a statistics table (`Statistic  Total  per Second  per Trans`).
fn stats_of(t: &Table, out: &mut Vec<StatRow>) {
    if !head0(t).contains("statistic") {
        return;
    }
    let Some(total) = col(t, |h| h.contains("total")) else {
        return;
    };
    let per_s = col(t, |h| h.contains("per second") || h.contains("per hour"));
    let per_t = col(t, |h| h.contains("per trans"));
    for row in &t.rows {
        let name = at(row, 0).trim();
        let Some(v) = num::count(at(row, total)) else {
            // A row shifted off its columns (a hand-edited paste): read
            // it as words.
            let line: Vec<&str> = row.iter().map(String::as_str).collect();
            stats_from_words(&line.join(" "), out);
            continue;
        };
        if name.is_empty() {
            continue;
        }
        out.push(StatRow {
            name: name.to_string(),
            total: v,
            per_second: per_s.and_then(|i| num::count(at(row, i))),
            per_transaction: per_t.and_then(|i| num::count(at(row, i))),
        });
    }
}

/// Statistics from words whose columns were lost: each name is the words
/// up to a number, followed by up to three numbers (total, per second,
/// per transaction); a unit word after the numbers (`s`, `cs`) is
/// dropped.
fn stats_from_words(text: &str, out: &mut Vec<StatRow>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let start = i;
        while i < words.len() && num::count(words[i]).is_none() {
            i += 1;
        }
        let name = words[start..i].join(" ");
        let mut nums = Vec::new();
        while i < words.len() && nums.len() < 3 {
            match num::count(words[i]) {
                Some(v) => nums.push(v),
                None => break,
            }
            i += 1;
        }
        while i < words.len() && matches!(words[i], "s" | "cs" | "ms" | "us") {
            i += 1;
        }
        if !name.is_empty() && !nums.is_empty() {
            out.push(StatRow {
                name,
                total: nums[0],
                per_second: nums.get(1).copied(),
                per_transaction: nums.get(2).copied(),
            });
        }
        if start == i {
            i += 1;
        }
    }
}

/// A statistics paste whose whitespace was collapsed into one line
/// (`Event Statistic Total per Second per Trans redo size 48,438,904 ...`).
fn collapsed_statistics(r: &mut AwrReport, text: &str) {
    const HEAD: &str = "statistic total per second per trans";
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = collapsed.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(HEAD) {
        let start = from + p + HEAD.len();
        let end = lower[start..].find(HEAD).map_or(lower.len(), |q| start + q);
        stats_from_words(&collapsed[start..end], &mut r.statistics);
        from = end;
        if from >= lower.len() {
            break;
        }
    }
}

fn host_cpu(r: &mut AwrReport, s: &Section) {
    for t in &s.tables {
        if let Some(i) = col(t, |h| h.ends_with("idle")) {
            // The first column of Host CPU is a number too (CPUs).
            if let Some(idle) = t.rows.first().and_then(|row| num::count(at(row, i))) {
                r.derived.host_cpu_busy_pct = Some(100.0 - idle);
            }
        }
    }
}

/// One event's histogram as read so far: its total waits (main section),
/// a detail section's waits in its range with the share of its bounded
/// cells, and every cell.
type EventCells = (Option<f64>, Option<(f64, f64)>, Vec<HistogramCell>);

/// Wait event histogram rows gathered over every bucket set, merged at
/// the end.
#[derive(Default)]
struct Histograms {
    order: Vec<String>,
    /// Per event.
    by_event: std::collections::HashMap<String, EventCells>,
}

/// µs per unit of a histogram heading (`us`, `ms` = 1024 µs, `s` = 1024
/// ms; `m` is minutes, 64 s, in the sections up to 2 min and 1 hr and
/// 1024 µs elsewhere, where it abbreviates `ms`).
fn unit_us(unit: &str, minutes: bool) -> Option<f64> {
    Some(match unit {
        "" | "u" | "us" | "usec" => 1.0,
        "ms" | "msec" => 1024.0,
        "m" if !minutes => 1024.0,
        "m" | "min" => 64.0 * 1_048_576.0,
        "s" | "sec" => 1_048_576.0,
        "h" | "hr" => 4096.0 * 1_048_576.0,
        _ => return None,
    })
}

/// A histogram heading (`<8us`, `>=512`, `<1/8s`, `<=1s`) into
/// (is a lower bound, edge µs).
fn edge(label: &str, minutes: bool) -> Option<(bool, u64)> {
    let p = label.rfind(['<', '>'])?;
    let l = &label[p..];
    let (lower, rest) = if let Some(r) = l.strip_prefix(">=") {
        (true, r)
    } else if let Some(r) = l.strip_prefix('>') {
        (true, r)
    } else if let Some(r) = l.strip_prefix("<=") {
        (false, r)
    } else {
        (false, &l[1..])
    };
    let rest = rest.trim();
    let split = rest
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let (n, unit) = rest.split_at(split);
    let v = match n.split_once('/') {
        Some((a, b)) => num::plain(a)? / num::plain(b)?,
        None => num::plain(n)?,
    };
    let us = v * unit_us(unit, minutes)?;
    (0.0..1e18)
        .contains(&us)
        .then_some((lower, us.round() as u64))
}

impl Histograms {
    fn read(&mut self, t: &Table, title: &str) {
        if t.headers.len() < 3 || !head0(t).contains("event") {
            return;
        }
        let main = title.trim() == "wait event histogram";
        let minutes = title.contains("min") || title.contains("hr");
        let edges: Vec<Option<(bool, u64)>> =
            t.headers.iter().skip(2).map(|h| edge(h, minutes)).collect();
        for row in &t.rows {
            let name = at(row, 0).trim();
            let Some(total) = row.get(1).and_then(|c| num::count(c)) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let entry = self.by_event.entry(name.to_string()).or_insert_with(|| {
                self.order.push(name.to_string());
                (None, None, Vec::new())
            });
            let mut lo = 0u64;
            let mut bounded = 0.0;
            for (i, e) in edges.iter().enumerate() {
                let Some((lower, x)) = *e else { continue };
                let text = row.get(i + 2).map(String::as_str).unwrap_or("").trim();
                let pct = if text.is_empty() {
                    0.0
                } else {
                    match num::plain(text) {
                        Some(p) => p,
                        None => continue,
                    }
                };
                let label = t.headers[i + 2].clone();
                let label = label
                    .rfind(['<', '>'])
                    .map_or(label.clone(), |p| label[p..].to_string());
                let cell = if lower {
                    HistogramCell {
                        label,
                        lo_us: x,
                        hi_us: None,
                        pct,
                    }
                } else {
                    let c = HistogramCell {
                        label,
                        lo_us: lo,
                        hi_us: Some(x),
                        pct,
                    };
                    if i > 0 {
                        bounded += pct;
                    }
                    lo = x;
                    c
                };
                entry.2.push(cell);
            }
            if main {
                entry.0.get_or_insert(total);
            } else if entry.1.is_none() {
                entry.1 = Some((total, bounded));
            }
        }
    }

    fn finish(mut self) -> Vec<AwrHistogram> {
        let mut out = Vec::new();
        for name in self.order {
            let Some((total, range, cells)) = self.by_event.remove(&name) else {
                continue;
            };
            // Without the main section, the total follows from a detail
            // section's waits in its range and their share.
            let total = total
                .or_else(|| range.filter(|r| r.1 > 0.0).map(|(w, p)| w * 100.0 / p))
                .unwrap_or(0.0);
            let buckets = merge(&cells, total);
            out.push(AwrHistogram {
                event: name,
                total_waits: total,
                cells,
                buckets,
            });
        }
        out
    }
}

/// The cells that describe a histogram best: the finest ones, none
/// overlapping another (a cell below an edge spans from the previous
/// edge; an open cell spans to infinity).
pub fn chosen_cells(cells: &[HistogramCell]) -> Vec<&HistogramCell> {
    let width = |c: &HistogramCell| c.hi_us.map_or(u64::MAX, |h| h.saturating_sub(c.lo_us));
    let mut order: Vec<&HistogramCell> = cells.iter().collect();
    // Narrowest first; of the open cells (`>=512`, `>=64u`), the one
    // with the highest edge says the most.
    order.sort_by_key(|c| {
        let lo = if c.hi_us.is_none() {
            u64::MAX - c.lo_us
        } else {
            c.lo_us
        };
        (width(c), lo)
    });
    let mut taken: Vec<(u64, u64)> = Vec::new();
    let mut out = Vec::new();
    for c in order {
        let (lo, hi) = (c.lo_us, c.hi_us.unwrap_or(u64::MAX));
        if hi <= lo || taken.iter().any(|&(a, z)| lo < z && a < hi) {
            continue;
        }
        taken.push((lo, hi));
        out.push(c);
    }
    out.sort_by_key(|c| c.lo_us);
    out
}

/// Waits of a cell: its share of the event's total, rounded.
pub fn cell_waits(c: &HistogramCell, total: f64) -> f64 {
    let n = (c.pct / 100.0 * total).round();
    if n.is_finite() && n > 0.0 {
        n
    } else {
        0.0
    }
}

/// The chosen cells onto power-of-two µs buckets: a bounded cell counts
/// in the bucket just below its upper edge, an open one at its lower edge.
fn merge(cells: &[HistogramCell], total: f64) -> Log2Buckets {
    let mut b = Log2Buckets::default();
    for c in chosen_cells(cells) {
        let n = cell_waits(c, total);
        if n < 1.0 {
            continue;
        }
        let us = match c.hi_us {
            Some(h) => h - 1,
            None => c.lo_us,
        };
        b.record_us_n(us, n as u64);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_edges_are_powers_of_two_microseconds() {
        assert_eq!(edge("<8us", false), Some((false, 8)));
        assert_eq!(edge("<128u", false), Some((false, 128)));
        assert_eq!(edge(">=512", false), Some((true, 512)));
        assert_eq!(edge("<1ms", false), Some((false, 1024)));
        assert_eq!(edge(">=32m", false), Some((true, 32768)));
        assert_eq!(edge("<1/8s", false), Some((false, 131_072)));
        assert_eq!(edge("% of Total <=1s", false), Some((false, 1_048_576)));
        assert_eq!(edge("Total Waits", false), None);
    }

    #[test]
    fn the_finest_cells_win_and_catch_alls_fill_the_rest() {
        let c = |lo, hi: Option<u64>, pct| HistogramCell {
            label: String::new(),
            lo_us: lo,
            hi_us: hi,
            pct,
        };
        // Main: <8us 50, >=512 50; detail: <2us 25, <4us 25, >=64u 50.
        let cells = [
            c(0, Some(8), 50.0),
            c(512, None, 50.0),
            c(0, Some(1), 0.0),
            c(1, Some(2), 25.0),
            c(2, Some(4), 25.0),
            c(4, Some(8), 0.0),
            c(64, None, 50.0),
        ];
        let b = merge(&cells, 4.0);
        assert_eq!(b.counts, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2]);
    }
}
