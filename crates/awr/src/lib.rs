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
pub mod events;
pub mod histogram;
mod html;
pub mod input;
pub mod join;
pub mod month;
/// Event names joined back to Oracle's full names (in the model, which
/// the rules and comparisons share).
pub use dbio_model::event_names as names;
pub mod num;
pub mod text;
pub mod trend;

use dbio_model::awr::*;
use events::List;
use histogram::Histograms;
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
/// the result and in the refusal. A gzip or xz input is decompressed, a
/// byte-order mark dropped, UTF-16 read ([`input`]).
pub fn parse(bytes: &[u8], source: &str) -> Result<AwrReport, NotAReport> {
    let refuse =
        |why: String| NotAReport(format!("{source} is not an AWR or Statspack report: {why}"));
    let (unpacked, packing) = input::unpack(bytes).map_err(refuse)?;
    let bytes = &*unpacked;
    // Oracle's other reports are refused as what they are ("FILE is an
    // AWR compare-periods report ..."), anything else as no report.
    let kind = detect::classify(bytes).map_err(|why| {
        if why.starts_with("is ") {
            NotAReport(format!("{source} {why}"))
        } else {
            refuse(why)
        }
    })?;
    let text = decode(bytes);
    let locale = num::Locale::detect(&text);
    let mut r = num::with_locale(locale, || read_report(bytes, source, kind, &text));
    r.decimal_comma = locale == num::Locale::DecimalComma;
    match packing {
        input::Packing::Plain => {}
        input::Packing::Gzip => r.notes.insert(0, "read from gzip-compressed input".into()),
        input::Packing::Xz => r.notes.insert(0, "read from xz-compressed input".into()),
        input::Packing::Utf16 => r.notes.insert(0, "read from UTF-16 text".into()),
    }
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
    let combined = !all_events.is_empty();
    if r.foreground_events.is_empty() {
        r.foreground_events = all_events.clone();
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
    if r.header.instances > 1 {
        r.header.rac = true;
    }
    let waits = event_waits(&r, if combined { Some(&all_events) } else { None });
    r.histograms = hist.finish(|name| waits.get(name).copied());
    join_cut_names(&mut r);
    note_histogram_totals(&mut r);
    // A statistic printed on two pages (or in the key statistics too) is
    // kept once, as first printed.
    let mut seen = std::collections::HashSet::new();
    r.statistics.retain(|s| seen.insert(s.name.clone()));
    r.truncated = truncation(kind, text, &lines, &r.sections);
    r
}

/// Each event's waits in the wait event tables, by full name: the
/// combined fg+bg table when the report prints one, else foreground plus
/// background.
fn event_waits(
    r: &AwrReport,
    combined: Option<&Vec<WaitEventRow>>,
) -> std::collections::HashMap<String, f64> {
    let mut m = std::collections::HashMap::new();
    let rows: Vec<&WaitEventRow> = match combined {
        Some(all) => all.iter().collect(),
        None => r
            .foreground_events
            .iter()
            .chain(&r.background_events)
            .collect(),
    };
    // A list printed over two pages repeats no row; a row printed twice
    // in one list (a paste) is counted once.
    let mut seen = std::collections::HashSet::new();
    for e in rows {
        let Some(w) = e.waits else { continue };
        if combined.is_some() && !seen.insert(e.name.as_str()) {
            continue;
        }
        *m.entry(e.name.clone()).or_insert(0.0) += w;
    }
    m
}

/// Names cut at one width and printed whole (or cut wider) elsewhere in
/// the report are joined to the longest print ([`names::join_within`]),
/// for the names the known list does not know.
fn join_cut_names(r: &mut AwrReport) {
    let all: Vec<String> = r
        .top_events
        .iter()
        .chain(&r.foreground_events)
        .chain(&r.background_events)
        .map(|e| e.name.clone())
        .chain(r.histograms.iter().map(|h| h.event.clone()))
        .collect();
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let join = |name: &mut String, printed: &mut Option<String>| {
        if let Some(full) = names::join_within(name, &refs) {
            printed.get_or_insert_with(|| name.clone());
            *name = full.to_string();
        }
    };
    for e in r
        .top_events
        .iter_mut()
        .chain(r.foreground_events.iter_mut())
        .chain(r.background_events.iter_mut())
    {
        join(&mut e.name, &mut e.printed_name);
    }
    for h in &mut r.histograms {
        join(&mut h.event, &mut h.printed_event);
    }
}

/// A note on histogram totals not taken as printed.
fn note_histogram_totals(r: &mut AwrReport) {
    let cut: Vec<&AwrHistogram> = r
        .histograms
        .iter()
        .filter(|h| {
            h.total_waits_from != TotalWaitsFrom::Printed
                && h.printed_total_waits
                    .is_some_and(|p| h.total_waits >= 100.0 * p.max(1.0))
        })
        .collect();
    let guessed: Vec<&AwrHistogram> = r
        .histograms
        .iter()
        .filter(|h| h.total_waits_from == TotalWaitsFrom::PrintedThousands)
        .collect();
    if !cut.is_empty() {
        let named: Vec<String> = cut
            .iter()
            .take(3)
            .map(|h| {
                format!(
                    "'{}' {} for a printed {}",
                    h.event,
                    h.total_waits,
                    h.printed_total_waits.unwrap_or_default()
                )
            })
            .collect();
        r.notes.push(format!(
            "{} wait event histogram total{} printed without {} K (a column too narrow for it) {} read as thousands: {}{}",
            cut.len(),
            if cut.len() == 1 { "" } else { "s" },
            if cut.len() == 1 { "its" } else { "their" },
            if cut.len() == 1 { "is" } else { "are" },
            named.join(", "),
            if guessed.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} of them with no wait event row to confirm the count",
                    guessed.len()
                )
            }
        ));
    }
}

/// Where a whole report ends when it ends before its closing line (`End
/// of Report`, and `</html>` for HTML), else `None`. Pastes are sections
/// of a report and have no end to miss.
fn truncation(
    kind: ReportKind,
    text: &str,
    lines: &[&str],
    sections: &[SectionInfo],
) -> Option<String> {
    if kind == ReportKind::Pasted {
        return None;
    }
    let tail = text.as_bytes();
    let tail =
        String::from_utf8_lossy(&tail[tail.len().saturating_sub(8192)..]).to_ascii_lowercase();
    let closed = match kind {
        ReportKind::AwrHtml => tail.contains("</html>") || tail.contains("end of report"),
        _ => tail.contains("end of report"),
    };
    if closed {
        return None;
    }
    let last_line = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    let section = sections
        .last()
        .map_or(String::new(), |s| format!(" in section '{}'", s.title));
    let what = if kind == ReportKind::AwrHtml {
        "`End of Report` or `</html>`"
    } else {
        "`End of Report`"
    };
    Some(format!(
        "the report stops at line {last_line}{section}, before its closing {what}: the sections after it are missing"
    ))
}

/// Titles (lower-cased prefixes) of the sections dbio reads.
const KNOWN: &[&str] = &[
    "load profile",
    "foreground wait events",
    "background wait events",
    "wait events (fg and bg)",
    "wait event histogram",
    "instance activity stats",
    "key instance activity stats",
    "other instance activity stats",
    "rac statistics",
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
                events::read(tb, List::Waits, &mut r.foreground_events, &mut r.statistics);
                stats_of(tb, &mut r.statistics);
            }
            load_profile(r, s);
        }
        return true;
    }
    if !known(t) {
        return false;
    }
    let pct = &mut r.event_pct_of;
    if t.starts_with("load profile") {
        load_profile(r, s);
    } else if t.starts_with("top ") && t.contains("event") {
        for tb in &s.tables {
            let share = events::read(tb, List::Top, &mut r.top_events, &mut r.statistics);
            pct.top = pct.top.or(share);
        }
    } else if t.starts_with("foreground wait events") {
        for tb in &s.tables {
            let share = events::read(tb, List::Waits, &mut r.foreground_events, &mut r.statistics);
            pct.foreground = pct.foreground.or(share);
        }
    } else if t.starts_with("background wait events") {
        for tb in &s.tables {
            let share = events::read(tb, List::Waits, &mut r.background_events, &mut r.statistics);
            pct.background = pct.background.or(share);
        }
    } else if t == "wait events" || t.starts_with("wait events (fg and bg)") {
        // Statspack's and 10g's combined list: the foreground list when
        // the report prints no other.
        for tb in &s.tables {
            let share = events::read(tb, List::Waits, all_events, &mut r.statistics);
            if r.foreground_events.is_empty() {
                pct.foreground = pct.foreground.or(share);
            }
        }
    } else if t.starts_with("wait event histogram") {
        for tb in &s.tables {
            hist.read(tb, t);
        }
    } else if (t.starts_with("instance activity stats")
        || t.starts_with("key instance activity stats")
        || t.starts_with("other instance activity stats"))
        && !t.contains("absolute")
    {
        for tb in &s.tables {
            stats_of(tb, &mut r.statistics);
        }
    } else if t.starts_with("rac statistics") {
        rac_statistics(r, s);
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
pub(crate) fn stats_from_words(text: &str, out: &mut Vec<StatRow>) {
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

/// `Number of Instances:  2  2` of RAC Statistics: the instances the
/// database had (the larger of begin and end).
fn rac_statistics(r: &mut AwrReport, s: &Section) {
    for l in flat_lines(s) {
        let lower = l.to_ascii_lowercase();
        let Some(p) = lower.find("number of instances:") else {
            continue;
        };
        let n = l[p + "number of instances:".len()..]
            .split_whitespace()
            .map_while(num::count)
            .fold(0.0f64, f64::max);
        if (1.0..=1024.0).contains(&n) {
            r.header.instances = r.header.instances.max(n as u32);
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
