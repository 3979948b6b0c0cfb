//! Text reports into sections of tables.
//!
//! AWR and Statspack text reports are fixed-width tables: each table's
//! columns are given by the dashed line under its headings
//! (`------------------------- ------ -----`), numbers are right-aligned
//! in their column and names left-aligned in the first one. So a row is
//! cut into cells by where each of its words *ends* (a number one
//! character wider than its column still lands in it), and a column's
//! heading is the text above it on the heading lines. Nothing depends on a
//! version's exact column positions, which is what lets one reader cover
//! 9i Statspack to 23ai AWR and pastes that kept their alignment.
//!
//! Page breaks (form feeds, glued to the next heading or on lines of their
//! own) and the section title and headings a report repeats on every page
//! are absorbed: a section continued on a new page is the same section.

/// One table: headings per column and rows of cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Column headings (heading lines joined, `~` and extra spaces gone).
    pub headers: Vec<String>,
    /// Cells of each row (`""` for an empty cell).
    pub rows: Vec<Vec<String>>,
}

/// One section: its title, its tables and its other lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Section {
    /// Title as printed (before `DB/Inst:`).
    pub title: String,
    /// Tables in order.
    pub tables: Vec<Table>,
    /// Lines that are in no table (label: value lines, notes).
    pub lines: Vec<String>,
}

/// Lines of a report with CR, form feeds and trailing blanks gone
/// (borrowed: a 10 MB report is not copied line by line).
pub fn lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .flat_map(|l| l.split('\x0c'))
        .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
        .collect()
}

/// Column spans `[start, end)` of a dashed underline, or `None` when the
/// line is not one (fewer than two groups of dashes, or other characters;
/// a leading group of `~` counts as a column).
fn spans(line: &str) -> Option<Vec<(usize, usize)>> {
    if !line.contains('-') || line.chars().any(|c| !matches!(c, '-' | '~' | ' ')) {
        return None;
    }
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b' ' {
            i += 1;
            continue;
        }
        let s = i;
        while i < b.len() && b[i] != b' ' {
            i += 1;
        }
        out.push((s, i));
    }
    (out.len() >= 2).then_some(out)
}

/// A line of dashes only (a rule under a title or closing a table).
fn is_rule(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.chars().all(|c| c == '-' || c == '~' || c == '=')
}

/// Words of a line with their byte spans (no allocation: rows of a
/// large report are cut one after another).
fn words(line: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut at = 0;
    line.split([' ', '\t']).filter_map(move |w| {
        let s = at;
        at += w.len() + 1;
        (!w.is_empty()).then_some((s, s + w.len(), w))
    })
}

/// Cuts a row into cells by where each word ends.
fn cells(line: &str, cols: &[(usize, usize)]) -> Vec<String> {
    let mut out = vec![String::new(); cols.len()];
    for (s, e, w) in words(line) {
        // The first column is left-aligned text: a word starting inside it
        // belongs to it even if it ends past it.
        let i = if s < cols[0].1 {
            0
        } else {
            cols.iter()
                .position(|&(_, ce)| e <= ce)
                .unwrap_or(cols.len() - 1)
        };
        let c = &mut out[i];
        if !c.is_empty() {
            c.push(' ');
        }
        c.push_str(w);
    }
    out
}

/// Headings of the columns from the heading lines above the underline.
fn headers(lines: &[&str], cols: &[(usize, usize)]) -> Vec<String> {
    let mut out = vec![String::new(); cols.len()];
    for l in lines {
        let l = l.replace('~', " ");
        for (i, c) in cells(&l, cols).into_iter().enumerate() {
            if !c.is_empty() {
                if !out[i].is_empty() {
                    out[i].push(' ');
                }
                out[i].push_str(&c);
            }
        }
    }
    out
}

/// The title of a section heading line, if it is one: a line naming
/// `DB/Inst:`, or a line at column 0 followed by a line of `~`.
pub fn title_of(line: &str, next: Option<&str>) -> Option<String> {
    if let Some(p) = db_inst_at(line) {
        let t = line[..p].trim();
        return (!t.is_empty()).then(|| t.to_string());
    }
    let starts = line.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let tilde = next.is_some_and(|n| n.starts_with("~~~"));
    if starts && tilde {
        // `Load Profile      Per Second ...`: the title ends at a wide gap.
        let t = match line.find("   ") {
            Some(p) => &line[..p],
            None => line,
        };
        return Some(t.trim().to_string());
    }
    None
}

/// Where `DB/Inst:` starts in a line (found through its `/`, a byte
/// search, since this is asked of every line).
fn db_inst_at(line: &str) -> Option<usize> {
    line.match_indices('/')
        .map(|(p, _)| p)
        .find(|&p| line[..p].ends_with("DB") && line[p + 1..].starts_with("Inst:"))
        .map(|p| p - 2)
}

/// `DB/Inst: NAME/inst` of a heading line.
pub fn db_inst(line: &str) -> Option<(String, String)> {
    let p = db_inst_at(line)?;
    let w = line[p + 8..].split_whitespace().next()?;
    let (d, i) = w.split_once('/')?;
    Some((d.to_string(), i.to_string()))
}

/// Splits report lines into sections (the header before the first
/// section is one titled `""`) and each section into tables. Only the
/// sections `wanted` accepts (by lower-cased title), the header and what
/// comes before the first wanted section are cut into tables: the others
/// are only listed, which keeps a 10 MB report of SQL text cheap.
pub fn sections(all: &[&str], wanted: impl Fn(&str) -> bool) -> Vec<Section> {
    let mut out: Vec<Section> = vec![Section::default()];
    let mut i = 0;
    // Lines of the current section since its title.
    let mut body: Vec<&str> = Vec::new();
    let mut read = true;
    let mut started = false;
    let flush = |out: &mut Vec<Section>, body: &mut Vec<&str>, read: bool| {
        if read {
            let (tables, rest) = tables(body);
            let s = out.last_mut().expect("one section at least");
            s.tables.extend(tables);
            s.lines.extend(rest);
        }
        body.clear();
    };
    while i < all.len() {
        let line = all[i];
        let next = all.get(i + 1).copied();
        if let Some(t) = title_of(line, next) {
            flush(&mut out, &mut body, read);
            let w = wanted(&t.to_ascii_lowercase());
            started |= w;
            read = w || !started;
            // A section continued on the next page repeats its title.
            if out.last().map(|s| s.title.as_str()) != Some(t.as_str()) {
                out.push(Section {
                    title: t,
                    ..Default::default()
                });
            }
            body.push(line);
        } else {
            body.push(line);
        }
        i += 1;
    }
    flush(&mut out, &mut body, read);
    out
}

/// Finds the tables in a section's lines; returns them and the lines that
/// are in none.
pub fn tables(body: &[&str]) -> (Vec<Table>, Vec<String>) {
    let mut out = Vec::new();
    let mut rest = Vec::new();
    // Heading candidates since the last blank line or table.
    let mut pending: Vec<&str> = Vec::new();
    let mut cur: Option<(Vec<(usize, usize)>, Table)> = None;
    for &line in body {
        if let Some((cols, t)) = &mut cur {
            if line.trim().is_empty() || is_rule(line) || spans(line).is_some() {
                out.push(std::mem::take(t));
                cur = None;
                if let Some(c) = spans(line) {
                    // A new underline right after a table: headings lost.
                    let headers = vec![String::new(); c.len()];
                    cur = Some((
                        c,
                        Table {
                            headers,
                            rows: Vec::new(),
                        },
                    ));
                }
                pending.clear();
                continue;
            }
            let row = cells(line, cols);
            // A wrapped row: a name alone, then the numbers on the next
            // line with an empty name.
            if let Some(last) = t.rows.last_mut() {
                let only_name = last.iter().skip(1).all(String::is_empty);
                if row[0].is_empty() && only_name {
                    for (a, b) in last.iter_mut().zip(row).skip(1) {
                        *a = b;
                    }
                    continue;
                }
            }
            t.rows.push(row);
            continue;
        }
        if let Some(cols) = spans(line) {
            let h = headers(&pending, &cols);
            cur = Some((
                cols,
                Table {
                    headers: h,
                    rows: Vec::new(),
                },
            ));
            pending.clear();
            continue;
        }
        rest.push(line.to_string());
        if line.trim().is_empty() {
            pending.clear();
        } else if !line.trim_start().starts_with("->") && !is_rule(line) {
            pending.push(line);
        }
    }
    if let Some((_, t)) = cur {
        out.push(t);
    }
    out.retain(|t| !t.rows.is_empty());
    (out, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_wider_than_its_column_stays_in_it_and_headings_join() {
        let text = "
                       Total
Event            Waits  Time (s)  Avg wait
--------------- ------ --------- ---------
log file sync    1,234        29  373.76us
watchdog main l 2,410     7,230 30000.06ms
";
        let (t, _) = tables(&lines(text));
        assert_eq!(
            t[0].headers,
            ["Event", "Waits", "Total Time (s)", "Avg wait"]
        );
        assert_eq!(t[0].rows[0], ["log file sync", "1,234", "29", "373.76us"]);
        assert_eq!(
            t[0].rows[1],
            ["watchdog main l", "2,410", "7,230", "30000.06ms"]
        );
    }

    #[test]
    fn a_section_repeated_on_the_next_page_is_one_section() {
        let text = "\
Foreground Wait Events      DB/Inst: X/x  Snaps: 1-2
Event            Waits
--------------- ------
a                    1
\x0cForeground Wait Events      DB/Inst: X/x  Snaps: 1-2
Event            Waits
--------------- ------
b                    2
";
        let s = sections(&lines(text), |_| true);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].title, "Foreground Wait Events");
        assert_eq!(s[1].tables.len(), 2);
        assert_eq!(s[1].tables[1].rows[0], ["b", "2"]);
    }
}
