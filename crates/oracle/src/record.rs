//! One trace line → one typed record.
//!
//! Keywords are matched at the start of the line only (parsetrc matches
//! `WAIT` anywhere, so a bind value or dump containing the word is misread).
//! Records borrow from the line; the caller decides what a record means in
//! context (SQL text, BINDS blocks). Parsing is total: a line that does not
//! have the expected shape becomes [`Record::Other`], never an error.

use crate::lexer::{digits, find_byte, pairs, parse_int, parse_int_prefix, parse_u64_prefix, trim};
use memchr::memmem;

/// Database call types that carry `c=`/`e=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// PARSE.
    Parse,
    /// EXEC.
    Exec,
    /// FETCH.
    Fetch,
    /// CLOSE (11.2+).
    Close,
    /// UNMAP or SORT UNMAP.
    Unmap,
    /// A LOB call (`LOBREAD:`, `LOBWRITE:`, ...): no cursor, user level.
    Lob,
}

/// A database call line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Call {
    /// Cursor number (0 for LOB calls).
    pub cursor: u64,
    /// CPU, trace units.
    pub c: i64,
    /// Elapsed, trace units.
    pub e: i64,
    /// Physical reads.
    pub p: i64,
    /// Consistent gets.
    pub cr: i64,
    /// Current gets.
    pub cu: i64,
    /// Library-cache misses.
    pub mis: i64,
    /// Rows.
    pub r: i64,
    /// Recursive depth (0 when absent).
    pub dep: i64,
    /// Plan hash value.
    pub plh: Option<i64>,
    /// Completion time, trace units.
    pub tim: Option<i64>,
}

impl Call {
    /// Stores `x` as the field of key `CALL_KEYS[n]` (what [`Call::set`]
    /// does with that key's name).
    #[inline]
    fn set_nth(&mut self, n: usize, x: i64) {
        match n {
            0 => self.c = x,
            1 => self.e = x,
            2 => self.p = x,
            3 => self.cr = x,
            4 => self.cu = x,
            5 => self.mis = x,
            6 => self.r = x,
            7 => self.dep = x,
            9 => self.plh = Some(x),
            10 => self.tim = Some(x),
            _ => {}
        }
    }

    /// Stores the value of the field named `key` (`c`, `e`, `p`, `cr`,
    /// `cu`, `mis`, `r`, `dep`, `plh`, `tim`); other names (`og`, `type`,
    /// `bytes`, ...) are not counted and are ignored.
    #[inline]
    pub fn set(&mut self, key: &[u8], x: i64) {
        match key {
            b"c" => self.c = x,
            b"e" => self.e = x,
            b"p" => self.p = x,
            b"cr" => self.cr = x,
            b"cu" => self.cu = x,
            b"mis" => self.mis = x,
            b"r" => self.r = x,
            b"dep" => self.dep = x,
            b"plh" => self.plh = Some(x),
            b"tim" => self.tim = Some(x),
            _ => {}
        }
    }
}

/// A WAIT line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wait<'a> {
    /// Cursor number (`#0`: none).
    pub cursor: u64,
    /// Event name (between the quotes of `nam='...'`).
    pub name: &'a [u8],
    /// Wait time, trace units.
    pub ela: i64,
    /// The first three parameters by position (p1, p2, p3), whatever their
    /// names (`file#`, `p1`, or empty).
    pub p: [Option<i64>; 3],
    /// I/O size in blocks from `blocks=` or `block cnt=`.
    pub size: Option<i64>,
    /// `obj#` (None when absent or -1 / 4294967295).
    pub obj: Option<i64>,
    /// End time of the wait, trace units.
    pub tim: Option<i64>,
}

/// `PARSING IN CURSOR`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parsing<'a> {
    /// Cursor number.
    pub cursor: u64,
    /// Recursive depth.
    pub dep: i64,
    /// Hash value.
    pub hv: Option<u64>,
    /// SQL_ID without quotes.
    pub sqlid: Option<&'a [u8]>,
}

/// Lines starting with `***`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stars<'a> {
    /// A line carrying a timestamp (bare, or after `*** KEY:(value)`).
    /// `session` is set for `*** SESSION ID:(sid.serial)`.
    Timestamp {
        /// The timestamp text.
        ts: &'a [u8],
        /// `sid.serial` of a SESSION ID line.
        session: Option<&'a [u8]>,
    },
    /// `*** [ Unix process pid: N ]` (trcsess).
    Pid(u64),
    /// `*** TRACE CONTINUED FROM FILE path ***`.
    Continued(&'a [u8]),
    /// Any other `***` line.
    Other,
}

/// One classified line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    /// WAIT.
    Wait(Wait<'a>),
    /// A database call.
    Call(CallKind, Call),
    /// PARSING IN CURSOR (SQL text follows).
    Parsing(Parsing<'a>),
    /// END OF STMT.
    EndOfStmt,
    /// PARSE ERROR (statement text follows).
    ParseError,
    /// ERROR #c:err=...
    Error(u64),
    /// XCTEND; `true` for a rollback.
    Xctend(bool),
    /// STAT.
    Stat,
    /// BINDS #c: (bind detail lines follow).
    Binds,
    /// RPC CALL / RPC BINDS / RPC EXEC / APPNAME and other known lines that
    /// carry no time.
    Known,
    /// `***` lines.
    Stars(Stars<'a>),
    /// `=====================` or a blank line.
    Blank,
    /// A line starting with a blank (bind detail, wrapped text).
    Indented,
    /// Anything else.
    Other,
}

/// Classifies one line.
#[inline]
pub fn classify(line: &[u8]) -> Record<'_> {
    let Some(&first) = line.first() else {
        return Record::Blank;
    };
    match first {
        b'W' if line.starts_with(b"WAIT #") => {
            parse_wait(&line[6..]).map_or(Record::Other, Record::Wait)
        }
        b'F' if line.starts_with(b"FETCH #") => call(CallKind::Fetch, &line[7..]),
        b'E' => {
            if line.starts_with(b"EXEC #") {
                call(CallKind::Exec, &line[6..])
            } else if line.starts_with(b"END OF STMT") {
                Record::EndOfStmt
            } else if line.starts_with(b"ERROR #") {
                Record::Error(parse_u64_prefix(&line[7..]).0)
            } else {
                Record::Other
            }
        }
        b'P' => {
            if line.starts_with(b"PARSE #") {
                call(CallKind::Parse, &line[7..])
            } else if line.starts_with(b"PARSING IN CURSOR #") {
                Record::Parsing(parse_parsing(&line[19..]))
            } else if line.starts_with(b"PARSE ERROR") {
                Record::ParseError
            } else {
                Record::Other
            }
        }
        b'C' if line.starts_with(b"CLOSE #") => call(CallKind::Close, &line[7..]),
        b'S' => {
            if line.starts_with(b"STAT #") {
                Record::Stat
            } else if line.starts_with(b"SORT UNMAP #") {
                call(CallKind::Unmap, &line[12..])
            } else {
                Record::Other
            }
        }
        b'U' if line.starts_with(b"UNMAP #") => call(CallKind::Unmap, &line[7..]),
        b'B' if line.starts_with(b"BINDS #") => Record::Binds,
        b'X' if line.starts_with(b"XCTEND ") => {
            let rollback =
                pairs(&line[7..], b',').any(|(k, v)| k == b"rlbk" && parse_int(v) == Some(1));
            Record::Xctend(rollback)
        }
        b'L' if line.starts_with(b"LOB") => lob(line),
        b'R' if line.starts_with(b"RPC ") => Record::Known,
        b'A' if line.starts_with(b"APPNAME ") => Record::Known,
        b'*' if line.starts_with(b"***") => Record::Stars(stars(&line[3..])),
        b'=' if line.iter().all(|&b| b == b'=') => Record::Blank,
        b' ' | b'\t' => {
            if line.iter().all(|b| b.is_ascii_whitespace()) {
                Record::Blank
            } else {
                Record::Indented
            }
        }
        _ => Record::Other,
    }
}

/// `LOBREAD: type=...,bytes=...,c=...` → a LOB call.
fn lob(line: &[u8]) -> Record<'_> {
    let Some(colon) = memchr::memchr(b':', line) else {
        return Record::Other;
    };
    if !line[3..colon].iter().all(|b| b.is_ascii_uppercase()) {
        return Record::Other;
    }
    let mut c = Call::default();
    fill_call(&mut c, &line[colon + 1..]);
    Record::Call(CallKind::Lob, c)
}

/// `<cursor>:c=..,e=..` after `EXEC #` and friends.
#[inline]
fn call(kind: CallKind, rest: &[u8]) -> Record<'_> {
    let (cursor, n) = parse_u64_prefix(rest);
    if n == 0 || rest.get(n) != Some(&b':') {
        return Record::Other;
    }
    let mut c = Call {
        cursor,
        ..Call::default()
    };
    fill_call(&mut c, &rest[n + 1..]);
    Record::Call(kind, c)
}

/// The `key=value` pairs of a call line (`c=2431,e=3192,p=0,...`) into
/// `c`.
///
/// The same reading as [`pairs`] + [`parse_int`] (pieces split at `,`,
/// the key trimmed, a value that is not an integer ignored), written as
/// one pass: call lines are most lines of a call-heavy trace, and the
/// iterator's per-byte split and a memchr call per pair were 40 % of its
/// instructions. A value that is a plain run of at most 18 digits (all
/// of them, in practice) is parsed in place by [`digits`]; anything else
/// goes through [`parse_int`].
///
/// Oracle writes the keys in one order ([`CALL_KEYS`]): where the next
/// piece starts with the key expected there and its value is such a run
/// of digits ending at `,` or the end, the piece is taken in place (no
/// search for `,` and `=`, no match on the key name). The result is the
/// one the general path gives: that key holds neither `,` nor `=`, so
/// the general path would split the piece at the same places.
#[inline]
fn fill_call(c: &mut Call, s: &[u8]) {
    let n = s.len();
    let mut i = 0;
    let mut slot = 0;
    while i < n {
        if let (Some(k), Some(b)) = (CALL_KEYS.get(slot), s.get(i..i + 4)) {
            let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let (pat, mask) = CALL_KEY_WORDS[slot];
            if (w ^ pat) & mask == 0 {
                let vs = i + k.len();
                // One digit and a `,` (most values of a call line: p=0,
                // cu=0, dep=0, og=1): found by a branch the CPU predicts,
                // so the next piece's position does not wait for the
                // digit search below (a chain of dependent loads).
                if let Some(&[d, b',']) = s.get(vs..vs + 2) {
                    if d.is_ascii_digit() {
                        c.set_nth(slot, (d - b'0') as i64);
                        slot += 1;
                        i = vs + 2;
                        continue;
                    }
                }
                let neg = s.get(vs) == Some(&b'-');
                let ds = vs + neg as usize;
                let (x, e) = digits(s, ds);
                if e > ds && e - ds <= 18 && (e == n || s[e] == b',') {
                    let x = x as i64;
                    c.set_nth(slot, if neg { -x } else { x });
                    slot += 1;
                    i = e + 1;
                    continue;
                }
            }
        }
        let pe = find_byte(s, i, b',');
        let piece = &s[..pe];
        let eq = find_byte(piece, i, b'=');
        let key = &s[i..eq];
        i = pe + 1;
        if eq == pe {
            // No `=`: a piece without a value.
            continue;
        }
        let v = &s[eq + 1..pe];
        let neg = v.first() == Some(&b'-');
        let ds = neg as usize;
        let (x, e) = digits(v, ds);
        let x = if e > ds && e == v.len() && e - ds <= 18 {
            let x = x as i64;
            if neg {
                -x
            } else {
                x
            }
        } else {
            // `parse_int` reads blanks, a sign and digits first; a value
            // starting otherwise (`type=TEMPORARY LOB`) is none, no call.
            if !matches!(v.first(), Some(b' ' | b'-' | b'0'..=b'9')) {
                continue;
            }
            match parse_int(v) {
                Some(x) => x,
                None => continue,
            }
        };
        c.set(trim_key(key), x);
        // Expect the key after this one next (keys out of the usual order
        // just take the general path).
        slot = match key {
            b"c" => 1,
            b"e" => 2,
            b"p" => 3,
            b"cr" => 4,
            b"cu" => 5,
            b"mis" => 6,
            b"r" => 7,
            b"dep" => 8,
            b"og" => 9,
            b"plh" => 10,
            b"tim" => 11,
            _ => slot,
        };
    }
}

/// The keys of a call line with their `=`, in the order Oracle writes them
/// (9i to 23ai; 9i and 10g have no `plh`, LOB calls start with `type` and
/// `bytes`). [`Call::set_nth`] stores by this index.
const CALL_KEYS: [&[u8]; 11] = [
    b"c=", b"e=", b"p=", b"cr=", b"cu=", b"mis=", b"r=", b"dep=", b"og=", b"plh=", b"tim=",
];

/// [`CALL_KEYS`] as little-endian words with masks over their bytes (all
/// are at most 4 bytes): one compare per piece, not a `memcmp` call.
const CALL_KEY_WORDS: [(u32, u32); 11] = {
    let mut out = [(0u32, 0u32); 11];
    let mut k = 0;
    while k < 11 {
        let key = CALL_KEYS[k];
        let mut j = 0;
        while j < key.len() {
            out[k].0 |= (key[j] as u32) << (8 * j);
            out[k].1 |= 0xff << (8 * j);
            j += 1;
        }
        k += 1;
    }
    out
};

/// `<cursor>: nam='...' ela= N name=value ... obj#=N tim=N` after `WAIT #`.
///
/// Parameter names run from just after the previous value's terminating
/// blank up to `=` and may contain blanks and symbols or be empty; values
/// run to the next blank.
#[inline]
pub fn parse_wait(rest: &[u8]) -> Option<Wait<'_>> {
    let (cursor, n) = parse_u64_prefix(rest);
    if n == 0 || rest.get(n) != Some(&b':') {
        return None;
    }
    let s = &rest[n + 1..];
    // Usually " nam='" right after the colon.
    let nam = if s.starts_with(b" nam='") {
        6
    } else {
        memmem::find(s, b"nam='")? + 5
    };
    let s = &s[nam..];
    let q = find_byte(s, 0, b'\'');
    if q == s.len() {
        return None;
    }
    let name = &s[..q];
    let s = &s[q + 1..];
    let e = if s.starts_with(b" ela=") {
        5
    } else {
        memmem::find(s, b"ela=")? + 4
    };
    let s = &s[e..];
    let (ela, used) = parse_int_prefix(s)?;
    let mut w = Wait {
        cursor,
        name,
        ela,
        ..Wait::default()
    };
    // One pass over the `key=value` pairs: the spans are 3 to 20 bytes,
    // where a memchr call costs more than it saves, so keys are found 8
    // bytes at a time (`find_byte`) and values are parsed as they are read. A
    // value is the run of non-blank bytes after `=`; it counts only when
    // the whole run is an integer (so `p1= 7` has an empty value, and
    // `x=12ab` none). This loop is most of the parser's time on I/O-heavy
    // traces: keep it free of calls and allocation.
    let n = s.len();
    let mut i = used;
    let mut pos = 0;
    while i < n {
        // Skip the blank that ended the previous value.
        i += 1;
        let ks = i;
        i = find_byte(s, i, b'=');
        if i >= n {
            break;
        }
        let key = trim_key(&s[ks..i]);
        let (val, e) = param_value(s, i + 1);
        i = e;
        apply_param(&mut w, param_role(key), val, &mut pos);
    }
    Some(w)
}

/// A `key=value` pair's key without blanks around it. Keys seldom carry
/// any (`block cnt` has one inside, which stays), so the first and last
/// bytes are looked at before `trim` is called.
#[inline]
pub(crate) fn trim_key(key: &[u8]) -> &[u8] {
    match (key.first(), key.last()) {
        (Some(a), Some(b)) if !a.is_ascii_whitespace() && !b.is_ascii_whitespace() => key,
        _ => trim(key),
    }
}

/// What a WAIT parameter's (trimmed) name means to [`parse_wait`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `tim`.
    Tim,
    /// `obj#`.
    Obj,
    /// `blocks` or `block cnt`: the I/O size, and a positional parameter.
    Size,
    /// Any other name: a positional parameter (p1, p2, p3).
    Param,
}

/// The [`Role`] of a trimmed parameter name.
#[inline]
pub(crate) fn param_role(key: &[u8]) -> Role {
    match key {
        b"tim" => Role::Tim,
        b"obj#" => Role::Obj,
        b"blocks" | b"block cnt" => Role::Size,
        _ => Role::Param,
    }
}

/// The value of a WAIT parameter starting at `i` (just after its `=`) and
/// where it ends. A value is the run of non-blank bytes; it counts only
/// when the whole run is an integer (so `p1= 7` has an empty value, and
/// `x=12ab` none).
#[inline(always)]
pub(crate) fn param_value(s: &[u8], mut i: usize) -> (Option<i64>, usize) {
    let n = s.len();
    let vs = i;
    let neg = i < n && s[i] == b'-';
    if neg {
        i += 1;
    }
    let ds = i;
    let (v, e) = digits(s, i);
    i = e;
    let val = if i > ds && (i == n || s[i] == b' ') {
        if i - ds <= 18 {
            let v = v as i64;
            Some(if neg { -v } else { v })
        } else {
            parse_int(&s[vs..i]) // saturates
        }
    } else {
        while i < n && s[i] != b' ' {
            i += 1;
        }
        None
    };
    (val, i)
}

/// Stores a parameter's value in `w` by its role; `pos` counts the
/// positional parameters taken so far.
#[inline(always)]
pub(crate) fn apply_param(w: &mut Wait<'_>, role: Role, val: Option<i64>, pos: &mut usize) {
    match role {
        Role::Tim => w.tim = val,
        Role::Obj => w.obj = val.filter(|&o| o != -1 && o != 4_294_967_295),
        Role::Size | Role::Param => {
            if role == Role::Size {
                w.size = val;
            }
            if *pos < 3 {
                w.p[*pos] = val;
                *pos += 1;
            }
        }
    }
}

fn parse_parsing(rest: &[u8]) -> Parsing<'_> {
    let (cursor, n) = parse_u64_prefix(rest);
    let mut p = Parsing {
        cursor,
        ..Parsing::default()
    };
    for (k, v) in blank_pairs(&rest[n..]) {
        match k {
            b"dep" => p.dep = parse_int(v).unwrap_or(0),
            b"hv" => p.hv = parse_int(v).and_then(|x| u64::try_from(x).ok()),
            b"sqlid" => {
                let v = trim(v);
                let v = v.strip_prefix(b"'").unwrap_or(v);
                let v = v.strip_suffix(b"'").unwrap_or(v);
                if !v.is_empty() {
                    p.sqlid = Some(v);
                }
            }
            _ => {}
        }
    }
    p
}

/// What [`pairs`]`(s, b' ')` yields, found 8 bytes at a time: `pairs`
/// splits byte by byte through a closure and calls memchr per pair, about
/// 2,000 instructions per PARSING IN CURSOR line (3 % of the trctools
/// parse time).
fn blank_pairs(s: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < s.len() {
            let e = find_byte(s, i, b' ');
            let p = &s[i..e];
            i = e + 1;
            if p.is_empty() {
                continue;
            }
            let q = find_byte(p, 0, b'=');
            return Some(if q < p.len() {
                (trim(&p[..q]), &p[q + 1..])
            } else {
                (trim(p), &p[p.len()..])
            });
        }
        None
    })
}

/// First position of the two bytes `a b` in `s` (`memmem::find` builds a
/// searcher per call, which on the short `***` lines cost more than the
/// search: 3 % of the trctools parse time).
#[inline]
fn find_pair(s: &[u8], a: u8, b: u8) -> Option<usize> {
    memchr::memchr_iter(a, s).find(|&i| s.get(i + 1) == Some(&b))
}

/// Last position of the two bytes `a b` in `s`.
#[inline]
fn rfind_pair(s: &[u8], a: u8, b: u8) -> Option<usize> {
    memchr::memrchr_iter(a, s).find(|&i| s.get(i + 1) == Some(&b))
}

fn stars(rest: &[u8]) -> Stars<'_> {
    let s = trim(rest);
    if s.first().is_some_and(|b| b.is_ascii_digit()) {
        return Stars::Timestamp {
            ts: s,
            session: None,
        };
    }
    if let Some(r) = s.strip_prefix(b"[ Unix process pid:") {
        return Stars::Pid(parse_int_prefix(r).map_or(0, |(v, _)| v.max(0) as u64));
    }
    if let Some(r) = s.strip_prefix(b"TRACE CONTINUED FROM FILE") {
        let r = trim(r);
        let r = r.strip_suffix(b"***").unwrap_or(r);
        return Stars::Continued(trim(r));
    }
    // *** KEY:(value) timestamp
    if let Some(open) = find_pair(s, b':', b'(') {
        if let Some(close) = rfind_pair(s, b')', b' ') {
            if close > open {
                let session = s.starts_with(b"SESSION ID:").then(|| &s[open + 2..close]);
                return Stars::Timestamp {
                    ts: trim(&s[close + 2..]),
                    session,
                };
            }
        }
        if s.starts_with(b"SESSION ID:") {
            let close = memchr::memchr(b')', s).unwrap_or(s.len());
            if close > open + 2 {
                return Stars::Timestamp {
                    ts: &s[s.len()..],
                    session: Some(&s[open + 2..close]),
                };
            }
        }
    }
    Stars::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_with_named_parameters() {
        let Record::Wait(w) = classify(b"WAIT #139623166535832: nam='db file sequential read' ela= 335 file#=414 block#=3286763 blocks=1 obj#=89440 tim=5793964643459") else { panic!() };
        assert_eq!(w.cursor, 139623166535832);
        assert_eq!(w.name, b"db file sequential read");
        assert_eq!(w.ela, 335);
        assert_eq!(w.p, [Some(414), Some(3286763), Some(1)]);
        assert_eq!(w.size, Some(1));
        assert_eq!(w.obj, Some(89440));
        assert_eq!(w.tim, Some(5793964643459));
    }

    #[test]
    fn wait_with_spaces_symbols_and_empty_names() {
        let Record::Wait(w) =
            classify(b"WAIT #0: nam='ADR block file read' ela= 2212  =0  =7  =-3 obj#=-1 tim=1")
        else {
            panic!()
        };
        assert_eq!(w.ela, 2212);
        assert_eq!(w.p, [Some(0), Some(7), Some(-3)]);
        assert_eq!(w.obj, None);
        let Record::Wait(w) = classify(b"WAIT #1: nam='direct path read' ela=17 file number=4 first dba=1234 block cnt=16 obj#=4294967295 tim=9") else { panic!() };
        assert_eq!(w.ela, 17);
        assert_eq!(w.size, Some(16));
        assert_eq!(w.p, [Some(4), Some(1234), Some(16)]);
        assert_eq!(w.obj, None);
        let Record::Wait(w) = classify(b"WAIT #2: nam='library cache lock' ela= 50 handle address=1 lock address=2 100*mode+namespace=-4288151550 obj#=3 tim=4") else { panic!() };
        assert_eq!(w.p[2], Some(-4288151550));
        assert_eq!(w.obj, Some(3));
    }

    #[test]
    fn nine_i_wait_has_positional_parameters_and_no_tim() {
        let Record::Wait(w) =
            classify(b"WAIT #3: nam='db file scattered read' ela= 12 p1=5 p2=99 p3=8")
        else {
            panic!()
        };
        assert_eq!(w.p, [Some(5), Some(99), Some(8)]);
        assert_eq!(w.tim, None);
        assert_eq!(w.size, None);
    }

    #[test]
    fn calls_and_lob_calls() {
        let Record::Call(CallKind::Exec, c) = classify(b"EXEC #140386304541280:c=2431,e=3192,p=0,cr=3,cu=0,mis=1,r=0,dep=0,og=1,plh=2910648220,tim=7098546247170") else { panic!() };
        assert_eq!(
            (c.cursor, c.c, c.e, c.mis, c.dep),
            (140386304541280, 2431, 3192, 1, 0)
        );
        assert_eq!(c.tim, Some(7098546247170));
        let Record::Call(CallKind::Lob, c) =
            classify(b"LOBWRITE: type=TEMPORARY LOB,bytes=5,c=169,e=169,p=0,cr=0,cu=7,tim=42")
        else {
            panic!()
        };
        assert_eq!((c.c, c.e, c.cu, c.tim), (169, 169, 7, Some(42)));
        assert_eq!(classify(b"PARSE ERROR #1:len=5 dep=0"), Record::ParseError);
        assert_eq!(
            classify(b"XCTEND rlbk=1, rd_only=0, tim=5"),
            Record::Xctend(true)
        );
        assert_eq!(classify(b"SOME WAIT #1: nam='x' ela= 5"), Record::Other);
    }

    /// The one-pass call reader agrees with the pair iterator it replaced.
    fn by_pairs(fields: &[u8]) -> Call {
        let mut c = Call::default();
        for (k, v) in pairs(fields, b',') {
            let Some(x) = parse_int(v) else { continue };
            c.set(k, x);
        }
        c
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]
        /// The one-pass call reader agrees with the pair iterator on random
        /// field lists.
        #[test]
        fn call_fields_read_as_the_reference_reads_them(
            v in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just(&b","[..]),
                proptest::strategy::Just(&b"="[..]),
                proptest::strategy::Just(&b" "[..]),
                proptest::strategy::Just(&b"-"[..]),
                proptest::strategy::Just(&b"c"[..]),
                proptest::strategy::Just(&b"e"[..]),
                proptest::strategy::Just(&b"cr"[..]),
                proptest::strategy::Just(&b"mis"[..]),
                proptest::strategy::Just(&b"dep"[..]),
                proptest::strategy::Just(&b"plh"[..]),
                proptest::strategy::Just(&b"tim"[..]),
                proptest::strategy::Just(&b"type=TEMPORARY LOB"[..]),
                proptest::strategy::Just(&b"7"[..]),
                proptest::strategy::Just(&b"2910648220"[..]),
                proptest::strategy::Just(&b"99999999999999999999999"[..]),
                proptest::strategy::Just(&b"\t"[..]),
                proptest::strategy::Just(&b"c=1,e=2,p=3,cr=4,cu=5,mis=6,r=7,dep=8,og=9,plh=10,tim=11"[..]),
                proptest::strategy::Just(&b"p=0,"[..]),
                proptest::strategy::Just(&b"og"[..]),
                proptest::strategy::Just(&b"r"[..]),
                proptest::strategy::Just(&b"cu"[..]),
            ], 0..30)
        ) {
            let f: Vec<u8> = v.concat();
            let mut c = Call::default();
            fill_call(&mut c, &f);
            proptest::prop_assert_eq!(c, by_pairs(&f));
        }
    }

    #[test]
    fn call_fields_read_as_the_pair_iterator_reads_them() {
        for f in [
            &b"c=2431,e=3192,p=0,cr=3,cu=0,mis=1,r=0,dep=0,og=1,plh=2910648220,tim=7098546247170"[..],
            b"type=TEMPORARY LOB,bytes=5,c=169,e=169,p=0,cr=0,cu=7,tim=42",
            b"c=-5,e= 7 ,p=x,cr=,cu=1a,,mis,r=99999999999999999999999,dep=-0,tim=1",
            b" c = 4 , e=5,=6,c",
            b"",
            b",,,",
            b"e=12345678901234567,tim=123456789012345678,r=1234567890123456789",
            b"a,b=1,c=2",
            b"x,y,c=3,e=4,",
            b"c=3=4,e=-,p=--1,cr=-12",
        ] {
            let mut c = Call::default();
            fill_call(&mut c, f);
            assert_eq!(c, by_pairs(f), "{}", String::from_utf8_lossy(f));
        }
    }

    #[test]
    fn parsing_in_cursor() {
        let Record::Parsing(p) = classify(b"PARSING IN CURSOR #140472196921016 len=391 dep=1 uid=120 oct=47 lid=120 tim=664029098820 hv=1220421353 ad='a313b4b0' sqlid='9x825n14bw9r9'") else { panic!() };
        assert_eq!(p.cursor, 140472196921016);
        assert_eq!(p.dep, 1);
        assert_eq!(p.hv, Some(1220421353));
        assert_eq!(p.sqlid, Some(&b"9x825n14bw9r9"[..]));
    }

    #[test]
    fn blank_pairs_agree_with_pairs() {
        for s in [
            &b""[..],
            b" ",
            b"   ",
            b" len=391 dep=1 uid=120 oct=47 lid=120 tim=664029098820 hv=1220421353 ad='a313b4b0' sqlid='9x825n14bw9r9'",
            b"a=1  b= =2 c d= e=f=g \th\t=1\t ",
            b"x",
            b"=",
            b"sqlid=' a b '",
        ] {
            let got: Vec<_> = blank_pairs(s).collect();
            let want: Vec<_> = pairs(s, b' ').collect();
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn pair_search_agrees_with_memmem() {
        for s in [
            &b""[..],
            b":",
            b":(",
            b"a:(b:(c",
            b"::((",
            b"x) y) z",
            b") ",
            b")",
            b"*** SESSION ID:(504.46635) 2019-07-09T09:57:07.703508-07:00",
        ] {
            assert_eq!(find_pair(s, b':', b'('), memmem::find(s, b":("));
            assert_eq!(rfind_pair(s, b')', b' '), memmem::rfind(s, b") "));
        }
    }

    #[test]
    fn star_lines() {
        assert_eq!(
            classify(b"*** 2019-07-09T09:57:07.703476-07:00 (EXAMPLESPDB(8))"),
            Record::Stars(Stars::Timestamp {
                ts: b"2019-07-09T09:57:07.703476-07:00 (EXAMPLESPDB(8))",
                session: None
            })
        );
        assert_eq!(
            classify(b"*** SESSION ID:(504.46635) 2019-07-09T09:57:07.703508-07:00"),
            Record::Stars(Stars::Timestamp {
                ts: b"2019-07-09T09:57:07.703508-07:00",
                session: Some(b"504.46635")
            })
        );
        assert_eq!(
            classify(b"*** [ Unix process pid: 9854 ]"),
            Record::Stars(Stars::Pid(9854))
        );
        assert_eq!(
            classify(b"*** TRACE CONTINUED FROM FILE /u01/a_ora_1.trc ***"),
            Record::Stars(Stars::Continued(b"/u01/a_ora_1.trc"))
        );
    }
}
