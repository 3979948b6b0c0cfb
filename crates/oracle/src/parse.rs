//! Reading one trace file: the line-by-line state machine.
//!
//! Keeps what only matters while the file is read (the mode: SQL text,
//! BINDS block, PARSE ERROR text; the database sessions with their cursor
//! tables and pending waits; the header facts) and feeds every record into
//! the [`Analyzer`]'s tables. At the end of the file each session's profile
//! is settled and added to the analyzer's totals.

use crate::aggregate::{Analyzer, Point, MAX_OBJECTS};
use crate::header::{parse_timestamp, release_of};
use crate::lexer::{trim, LineReader};
use crate::record::{classify, Call, CallKind, Parsing, Record, Stars, Wait};
use crate::runs::{add_run, Run};
use crate::session::{CallTimes, CursorState, Session, Settled};
use crate::waitline::{ShapeUse, WaitReader, SHAPES};
use crate::Units;
use dbio_model::read::Tier;
use dbio_model::trace::{SessionProfile, SlowWait, TraceAnomaly, TraceFileInfo, TraceUnits};
use std::collections::HashMap;
use std::io::{self, Read};

/// Header lines looked at for the release; later unknown lines are skipped.
const HEADER_LINES: u64 = 200;
/// Statement text kept per statement, characters.
const TEXT_MAX: usize = 300;
/// Largest time value taken from a line, µs (about 12.7 days): garbled
/// numbers are clamped so sums over billions of lines cannot overflow.
const MAX_TIME_US: i64 = 1 << 40;
/// Distinct timeline seconds kept (about 12 days at one per second).
const MAX_TIMELINE_SECONDS: usize = 1 << 20;
/// Sessions open at once in one file (each holds its cursors and pending
/// waits); past that the others are settled early, so 200,000 `SESSION ID`
/// blocks cost no more memory than 256.
const MAX_LIVE_SESSIONS: usize = 256;
/// Line numbers of skipped lines kept per file.
const SKIPPED_KEPT: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    /// SQL text after PARSING IN CURSOR; the statement whose text is still
    /// being captured, if any.
    SqlText(Option<u32>),
    Binds,
    ErrorText,
}

/// Parses one file into `an`.
pub fn parse_into<R: Read>(an: &mut Analyzer, path: &str, reader: R) -> io::Result<()> {
    let mut p = FileParser::new(an, path);
    let mut lr = LineReader::new(reader);
    let res = lr.for_each_line(|line| p.line(line));
    p.info.bytes = lr.bytes;
    p.info.truncated_lines = lr.truncated;
    p.finish();
    res
}

struct FileParser<'a> {
    an: &'a mut Analyzer,
    path: String,
    info: TraceFileInfo,
    mode: Mode,
    in_header: bool,
    scale: i64,
    units_fixed: bool,
    sessions: Vec<Session>,
    session_ix: HashMap<String, usize>,
    cur: usize,
    pid: Option<u64>,
    sid: Option<String>,
    pid_sid: HashMap<u64, String>,
    settled: Vec<Settled>,
    tim_checked: bool,
    /// WAIT lines are read with a memory of the previous ones.
    waits: WaitReader,
    /// Per shape of the reader: the event id of its name, when the
    /// analyzer counts that name under its own row (see
    /// [`FileParser::wait`]).
    shape_events: [Option<u32>; SHAPES],
    /// Waits not yet added to a statement's, an object's and a file's row
    /// (see [`crate::runs`]).
    stmt_run: Run<u32>,
    obj_run: Run<i64>,
    file_run: Run<i64>,
    /// Last (cursor, statement) looked up in the current session.
    last_cursor: Option<(u64, u32)>,
    /// Timeline second being filled: (anchored, second, totals).
    tl: Option<(bool, i64, Point)>,
    /// Wall times `[lo, hi)` of the second in `tl`: a wait in the same
    /// second (most of them) needs no division to know it.
    tl_span: (i64, i64),
    /// Per [`Anomaly`]: (count, first line).
    anomalies: [(u64, u64); 3],
    /// Sessions with a profile.
    session_count: u32,
    /// Sessions settled early because too many were open.
    retired: u64,
}

/// Absurd values counted per file.
#[derive(Debug, Clone, Copy)]
enum Anomaly {
    Negative,
    Clamped,
    TimRange,
}

impl Anomaly {
    const ALL: [Anomaly; 3] = [Anomaly::Negative, Anomaly::Clamped, Anomaly::TimRange];

    fn words(self) -> &'static str {
        match self {
            Anomaly::Negative => "negative ela, e or c",
            Anomaly::Clamped => "ela, e or c beyond 2^40 µs (12.7 days), clamped there",
            Anomaly::TimRange => "tim beyond the 64-bit range",
        }
    }
}

impl<'a> FileParser<'a> {
    fn new(an: &'a mut Analyzer, path: &str) -> Self {
        let (scale, units, from, fixed) = match an.opts.units {
            Units::Auto => (1, TraceUnits::Microseconds, "default", false),
            Units::Microseconds => (1, TraceUnits::Microseconds, "option", true),
            Units::Centiseconds => (10_000, TraceUnits::Centiseconds, "option", true),
        };
        let mut session_ix = HashMap::new();
        session_ix.insert("main".to_string(), 0);
        Self {
            an,
            path: path.to_string(),
            info: TraceFileInfo {
                path: path.to_string(),
                units,
                units_from: from.into(),
                tim_kind: "unknown".into(),
                ..TraceFileInfo::default()
            },
            mode: Mode::Normal,
            in_header: true,
            scale,
            units_fixed: fixed,
            sessions: vec![Session::new("main".into())],
            session_ix,
            cur: 0,
            pid: None,
            sid: None,
            pid_sid: HashMap::new(),
            settled: Vec::new(),
            tim_checked: false,
            waits: WaitReader::default(),
            shape_events: [None; SHAPES],
            stmt_run: Run::default(),
            obj_run: Run::default(),
            file_run: Run::default(),
            last_cursor: None,
            tl: None,
            tl_span: (0, 0),
            anomalies: [(0, 0); 3],
            session_count: 0,
            retired: 0,
        }
    }

    fn line(&mut self, line: &[u8]) {
        self.info.lines += 1;
        match self.mode {
            Mode::Normal => {}
            Mode::SqlText(target) => {
                if line.starts_with(b"END OF STMT") {
                    self.mode = Mode::Normal;
                    return;
                }
                // A file cut inside the text: a record ends the capture.
                let record_start = line.starts_with(b"PARSING IN CURSOR #")
                    || line.starts_with(b"PARSE #")
                    || line.starts_with(b"EXEC #")
                    || line.starts_with(b"WAIT #");
                if !record_start {
                    if let Some(id) = target {
                        self.capture_text(id, line);
                    }
                    return;
                }
                self.mode = Mode::Normal;
            }
            Mode::Binds | Mode::ErrorText => {
                let rec = classify(line);
                match rec {
                    Record::Indented | Record::Blank | Record::Other => return,
                    Record::Stars(s) => {
                        self.stars(s);
                        return;
                    }
                    _ => self.mode = Mode::Normal,
                }
                self.record(rec, line);
                return;
            }
        }
        if let Some(rest) = line.strip_prefix(b"WAIT #") {
            // What `classify` + `record` do with a WAIT line, through the
            // reader that remembers the previous one.
            let mut w = Wait::default();
            match self.waits.read_into(rest, &mut w) {
                Some(shape) => {
                    self.body();
                    self.info.wait_lines += 1;
                    self.wait(&w, shape);
                }
                None => self.record(Record::Other, line),
            }
            return;
        }
        let rec = classify(line);
        self.record(rec, line);
    }

    fn record(&mut self, rec: Record<'_>, line: &[u8]) {
        match rec {
            Record::Wait(w) => {
                self.body();
                self.info.wait_lines += 1;
                self.wait(&w, None);
            }
            Record::Call(kind, c) => {
                self.body();
                self.info.call_lines += 1;
                self.call(kind, c);
            }
            Record::Parsing(p) => {
                self.body();
                self.parsing(p);
            }
            Record::EndOfStmt | Record::Stat | Record::Known | Record::Blank => {}
            Record::ParseError => {
                self.body();
                self.mode = Mode::ErrorText;
            }
            Record::Binds => {
                self.body();
                self.mode = Mode::Binds;
            }
            Record::Error(cursor) => {
                self.body();
                let s = &mut self.sessions[self.cur];
                s.errors += 1;
                if let Some(cs) = s.cursors.get(&cursor) {
                    if let Some(st) = self.an.stmts.get_mut(cs.stmt as usize) {
                        st.stats.errors += 1;
                    }
                }
            }
            Record::Xctend(rollback) => {
                self.body();
                let s = &mut self.sessions[self.cur];
                if rollback {
                    s.rollbacks += 1;
                } else {
                    s.commits += 1;
                }
            }
            Record::Stars(s) => self.stars(s),
            Record::Indented | Record::Other => {
                if self.in_header && self.info.lines <= HEADER_LINES {
                    if let Some((major, text)) = release_of(line) {
                        self.info.release = Some(text);
                        if !self.units_fixed {
                            self.info.units_from = "banner".into();
                            if major < 9 {
                                self.scale = 10_000;
                                self.info.units = TraceUnits::Centiseconds;
                            } else {
                                self.scale = 1;
                                self.info.units = TraceUnits::Microseconds;
                            }
                        }
                    }
                } else {
                    self.info.skipped_lines += 1;
                    if self.info.skipped_line_numbers.len() < SKIPPED_KEPT {
                        self.info.skipped_line_numbers.push(self.info.lines);
                    }
                }
            }
        }
    }

    /// A duration from the trace in µs, clamped to ±[`MAX_TIME_US`]; a
    /// negative or clamped value is counted as an anomaly.
    #[inline]
    fn time(&mut self, v: i64) -> i64 {
        let us = v.saturating_mul(self.scale);
        if us < 0 {
            self.anomaly(Anomaly::Negative);
        }
        if us.unsigned_abs() > MAX_TIME_US as u64 {
            self.anomaly(Anomaly::Clamped);
        }
        us.clamp(-MAX_TIME_US, MAX_TIME_US)
    }

    /// A `tim` in µs; one at the ends of the 64-bit range (the text held
    /// more digits than fit) is counted as an anomaly.
    #[inline]
    fn tim(&mut self, t: Option<i64>) -> Option<i64> {
        let t = t?.saturating_mul(self.scale);
        if t == i64::MAX || t == i64::MIN {
            self.anomaly(Anomaly::TimRange);
        }
        Some(t)
    }

    #[cold]
    fn anomaly(&mut self, a: Anomaly) {
        let cell = &mut self.anomalies[a as usize];
        if cell.0 == 0 {
            cell.1 = self.info.lines;
        }
        cell.0 += 1;
    }

    #[inline]
    fn body(&mut self) {
        self.in_header = false;
    }

    fn stars(&mut self, s: Stars<'_>) {
        match s {
            Stars::Timestamp { ts, session } => {
                if let Some(sid) = session {
                    let sid = String::from_utf8_lossy(sid).into_owned();
                    if let Some(pid) = self.pid {
                        self.pid_sid.insert(pid, sid.clone());
                    }
                    self.sid = Some(sid);
                    self.switch_session();
                }
                if let Some(wall) = parse_timestamp(ts) {
                    self.sessions[self.cur].anchor(wall, ts);
                }
            }
            Stars::Pid(pid) => {
                self.pid = Some(pid);
                self.sid = self.pid_sid.get(&pid).cloned();
                self.switch_session();
            }
            Stars::Continued(path) => {
                self.info.continued_markers += 1;
                let path = String::from_utf8_lossy(path);
                if self.info.continued_from.len() < 100
                    && !self.info.continued_from.iter().any(|p| *p == path)
                {
                    self.info.continued_from.push(path.into_owned());
                }
            }
            Stars::Other => {}
        }
    }

    fn switch_session(&mut self) {
        self.last_cursor = None;
        let key = match (self.pid, &self.sid) {
            (Some(p), Some(s)) => format!("pid {p} sid {s}"),
            (Some(p), None) => format!("pid {p}"),
            (None, Some(s)) => s.clone(),
            (None, None) => "main".to_string(),
        };
        if self.sessions[self.cur].id == key {
            return;
        }
        if let Some(&i) = self.session_ix.get(&key) {
            self.cur = i;
            return;
        }
        let cur = &mut self.sessions[self.cur];
        if !cur.active {
            // Nothing happened under the old name: it was this session's
            // identification block arriving in pieces.
            self.session_ix.remove(&cur.id);
            cur.id = key.clone();
            self.session_ix.insert(key, self.cur);
            return;
        }
        if self.sessions.len() >= MAX_LIVE_SESSIONS {
            self.retire_others();
        }
        self.sessions.push(Session::new(key.clone()));
        self.cur = self.sessions.len() - 1;
        self.session_ix.insert(key, self.cur);
    }

    /// Settles every open session but the current one.
    fn retire_others(&mut self) {
        let cur = self.sessions.swap_remove(self.cur);
        let others = std::mem::replace(&mut self.sessions, vec![cur]);
        self.cur = 0;
        self.session_ix.clear();
        self.session_ix.insert(self.sessions[0].id.clone(), 0);
        self.last_cursor = None;
        for s in others {
            self.retired += 1;
            self.settle_session(s);
        }
    }

    fn check_tim(&mut self, tim: i64) {
        if self.tim_checked {
            return;
        }
        let s = &mut self.sessions[self.cur];
        if let Some((wall, true)) = s.wall_of(None) {
            self.tim_checked = true;
            // Anchored wall time is naive local time: allow 2 days for zones.
            self.info.tim_kind = if tim.saturating_sub(wall).checked_abs().unwrap_or(i64::MAX)
                < 2 * 86_400 * 1_000_000
            {
                "epoch".into()
            } else {
                "relative".into()
            };
        }
    }

    fn statement_for_cursor(&mut self, cursor: u64) -> Option<u32> {
        if cursor == 0 {
            return None;
        }
        if let Some((c, id)) = self.last_cursor {
            if c == cursor {
                return Some(id);
            }
        }
        let id = match self.sessions[self.cur].cursors.get(&cursor) {
            Some(c) => c.stmt,
            None => {
                let key = format!("cursor #{cursor}");
                let id = self.an.stmt_id(&key, |_| {});
                self.sessions[self.cur]
                    .cursors
                    .insert(cursor, CursorState { stmt: id });
                id
            }
        };
        self.last_cursor = Some((cursor, id));
        Some(id)
    }

    /// Moves the timeline second being filled into the analyzer's map.
    fn flush_timeline(&mut self) {
        if let Some((anchored, sec, p)) = self.tl.take() {
            let map = if anchored {
                &mut self.an.timeline_wall
            } else {
                &mut self.an.timeline_rel
            };
            // Capped: garbled `tim` values must not grow the map per line.
            if map.len() < MAX_TIMELINE_SECONDS || map.contains_key(&sec) {
                let t: &mut Point = map.entry(sec).or_default();
                t.waits += p.waits;
                t.wait_us = t.wait_us.saturating_add(p.wait_us);
                t.io_waits += p.io_waits;
                t.io_us = t.io_us.saturating_add(p.io_us);
                t.io_max = t.io_max.max(p.io_max);
            }
        }
    }

    /// One WAIT line; `shape`: the reader's shape it was read with.
    fn wait(&mut self, w: &Wait<'_>, shape: Option<ShapeUse>) {
        let ela = self.time(w.ela);
        let tim = self.tim(w.tim);
        if let Some(t) = tim {
            self.check_tim(t);
        }
        // A shape that still holds its name keeps that name's id, unless
        // the name is counted in the other-events row (every such wait
        // must reach the analyzer to be counted there).
        let kept = shape
            .filter(|u| !u.fresh)
            .and_then(|u| self.shape_events[u.index]);
        let ev = match kept {
            Some(ev) => ev,
            None => {
                let ev = self.an.event_id(w.name);
                if let Some(u) = shape {
                    let own_row = self.an.events[ev as usize].name.as_bytes() == w.name;
                    self.shape_events[u.index] = own_row.then_some(ev);
                }
                ev
            }
        };
        let class = self.an.events[ev as usize].class;
        let size = if class.multiblock {
            w.size.or(w.p[class.size_param])
        } else {
            None
        };
        let tier = class.io.then(|| {
            let ns = (ela.max(0) as u64).saturating_mul(1000);
            let o = &self.an.opts;
            Tier::of(ns, o.page_cache_max_ns, o.storage_cache_max_ns).index()
        });
        self.an.events[ev as usize].record(ela, size, tier);

        let sess = &mut self.sessions[self.cur];
        sess.wait(tim, ela, ev, w.cursor);
        if let Some((wall, anchored)) = sess.wall_of(tim) {
            let same = matches!(self.tl, Some((a, _, _)) if a == anchored)
                && (self.tl_span.0..self.tl_span.1).contains(&wall);
            if !same {
                let sec = wall.div_euclid(1_000_000);
                if !matches!(self.tl, Some((a, s, _)) if a == anchored && s == sec) {
                    self.flush_timeline();
                    self.tl = Some((anchored, sec, Point::default()));
                }
                // At the ends of the i64 range the bounds do not fit: an
                // empty span, so every wait there takes the division.
                self.tl_span = match (sec.checked_mul(1_000_000), (sec + 1).checked_mul(1_000_000))
                {
                    (Some(lo), Some(hi)) => (lo, hi),
                    _ => (0, 0),
                };
            }
            if let Some((_, _, p)) = &mut self.tl {
                p.waits += 1;
                p.wait_us = p.wait_us.saturating_add(ela);
                if class.io {
                    p.io_waits += 1;
                    p.io_us = p.io_us.saturating_add(ela);
                    p.io_max = p.io_max.max(ela);
                }
            }
        }
        if !self.settled.is_empty() {
            self.an
                .settle(&mut self.sessions[self.cur], &mut self.settled);
        }

        let stmt = self.statement_for_cursor(w.cursor);
        if let Some(id) = stmt {
            if let Some(r) = self.stmt_run.push(id, ev, ela, 0) {
                self.stmt_waits(&r);
            }
        }
        if let Some(obj) = w.obj {
            if let Some(r) = self.obj_run.push(obj, ev, ela, 0) {
                self.object_waits(&r);
            }
        }
        if class.block_addressed {
            if let (Some(file), Some(block)) = (w.p[0], w.p[1]) {
                let blocks = size.unwrap_or(1).max(0) as u64;
                if let Some(r) = self.file_run.push(file, 0, ela, blocks) {
                    self.file_waits(&r);
                }
                if self.an.opts.hot_blocks {
                    self.an.blocks.add(file, block, ela);
                }
            }
        }
        let (path, line, sessions, cur) = (&self.path, self.info.lines, &self.sessions, self.cur);
        let stmts = &self.an.stmts;
        let name = &self.an.events[ev as usize].name;
        let make = || SlowWait {
            event: name.clone(),
            ela_us: ela,
            path: path.clone(),
            line,
            session: sessions[cur].id.clone(),
            cursor: w.cursor,
            statement: stmt.map(|id| stmts[id as usize].stats.key.clone()),
            obj: w.obj,
            p1: w.p[0],
            p2: w.p[1],
            p3: w.p[2],
        };
        let slow = if self.an.slowest.len() < self.an.opts.top
            || self.an.slowest.last().is_some_and(|m| m.ela_us < ela)
        {
            Some(make())
        } else {
            None
        };
        if let Some(s) = slow {
            self.an.offer_slow(ela, || s);
        }
    }

    /// A run of waits into its statement's per-event list.
    fn stmt_waits(&mut self, r: &Run<u32>) {
        add_run(&mut self.an.stmts[r.key as usize].waits, r);
    }

    /// A run of waits into the objects table.
    fn object_waits(&mut self, r: &Run<i64>) {
        let an = &mut *self.an;
        let kept = with_capped(&mut an.objects, r.key, |o| {
            o.count += r.n;
            o.total = o.total.saturating_add(r.total);
            add_run(&mut o.waits, r);
        });
        if !kept {
            an.totals.untracked_object_waits += r.n;
        }
    }

    /// A run of waits into the files table.
    fn file_waits(&mut self, r: &Run<i64>) {
        let an = &mut *self.an;
        let kept = with_capped(&mut an.hot_files, r.key, |f| {
            f.file = r.key;
            f.count += r.n;
            f.total_us = f.total_us.saturating_add(r.total);
            f.blocks = f.blocks.saturating_add(r.blocks);
        });
        if !kept {
            an.totals.untracked_file_waits += r.n;
        }
    }

    fn call(&mut self, kind: CallKind, c: Call) {
        let e = self.time(c.e);
        let cpu = self.time(c.c);
        let tim = self.tim(c.tim);
        if let Some(t) = tim {
            self.check_tim(t);
        }
        let sess = &mut self.sessions[self.cur];
        let _ = sess.wall_of(tim);
        let events = &self.an.events;
        sess.call(
            CallTimes {
                cursor: c.cursor,
                dep: c.dep,
                e,
                c: cpu,
                tim,
            },
            |id| events.get(id as usize).map(|e| e.class).unwrap_or_default(),
            &mut self.settled,
        );
        if !self.settled.is_empty() {
            self.an
                .settle(&mut self.sessions[self.cur], &mut self.settled);
        }
        if kind == CallKind::Lob {
            return;
        }
        if let Some(id) = self.statement_for_cursor(c.cursor) {
            let st = &mut self.an.stmts[id as usize];
            let s = &mut st.stats;
            match kind {
                CallKind::Parse => s.parses += 1,
                CallKind::Exec => s.execs += 1,
                CallKind::Fetch => s.fetches += 1,
                _ => s.other_calls += 1,
            }
            if c.mis > 0 {
                s.misses += 1;
            }
            s.elapsed_us = s.elapsed_us.saturating_add(e);
            s.cpu_us = s.cpu_us.saturating_add(cpu);
            s.rows = s.rows.saturating_add(c.r.max(0) as u64);
            s.physical_reads = s.physical_reads.saturating_add(c.p.max(0) as u64);
            s.buffer_gets = s
                .buffer_gets
                .saturating_add((c.cr.max(0) as u64).saturating_add(c.cu.max(0) as u64));
            if let Some(plh) = c.plh.filter(|_| kind != CallKind::Close) {
                s.plan_hash = u64::try_from(plh).ok();
                st.from.plan = self.an.file_no;
            }
            s.depth = c.dep.clamp(0, u32::MAX as i64) as u32;
            st.from.depth = self.an.file_no;
        }
    }

    fn parsing(&mut self, p: Parsing<'_>) {
        let key = match (p.sqlid, p.hv) {
            (Some(id), _) => String::from_utf8_lossy(id).into_owned(),
            (None, Some(hv)) => format!("hv={hv}"),
            (None, None) => format!("cursor #{}", p.cursor),
        };
        let id = self.an.stmt_id(&key, |s| {
            s.sql_id = p.sqlid.map(|x| String::from_utf8_lossy(x).into_owned());
            s.hash_value = p.hv;
        });
        let file_no = self.an.file_no;
        let st = &mut self.an.stmts[id as usize];
        st.stats.depth = p.dep.clamp(0, u32::MAX as i64) as u32;
        st.from.depth = file_no;
        let capture = st.stats.text.is_empty().then(|| {
            st.from.text = file_no;
            id
        });
        self.sessions[self.cur]
            .cursors
            .insert(p.cursor, CursorState { stmt: id });
        self.last_cursor = None;
        self.mode = Mode::SqlText(capture);
    }

    fn capture_text(&mut self, id: u32, line: &[u8]) {
        let st = &mut self.an.stmts[id as usize].stats;
        let have = st.text.chars().count();
        if have >= TEXT_MAX {
            self.mode = Mode::SqlText(None);
            return;
        }
        let t = String::from_utf8_lossy(trim(line));
        if t.is_empty() {
            return;
        }
        if !st.text.is_empty() {
            st.text.push(' ');
        }
        st.text.extend(t.chars().take(TEXT_MAX - have));
    }

    /// Settles one session and adds its profile to the analyzer.
    fn settle_session(&mut self, mut s: Session) {
        if !s.active && sessions_is_trivial(&s) {
            return;
        }
        self.session_count += 1;
        s.settle_all(&mut self.settled);
        s.finish_roots();
        self.an.settle(&mut s, &mut self.settled);
        let d = s.top_depth();
        let mut top = s.depth[d];
        let t = &mut self.an.totals;
        if d > 0 {
            t.note(format!(
                "{} session {}: no dep-0 call; dep-{d} calls taken as top level (the trace started inside a call)",
                self.path, s.id
            ));
        } else if s.orphans.calls > 0 {
            // Recursive calls no dep-0 call contains (the logoff audit
            // `update sys.aud$`): response time too.
            t.note(format!(
                "{} session {}: {} recursive {} with no dep-0 parent ({} µs) counted in R as top-level calls",
                self.path,
                s.id,
                s.orphans.calls,
                plural(s.orphans.calls, "call", "calls"),
                s.orphans.e
            ));
            top.calls += s.orphans.calls;
            top.e = top.e.saturating_add(s.orphans.e);
            top.c = top.c.saturating_add(s.orphans.c);
        }
        if s.merged_roots > 0 {
            t.note(format!(
                "{} session {}: more than {} recursive calls between two top-level calls; {} were merged before their parent was known",
                self.path, s.id, crate::session::MAX_ROOTS, s.merged_roots
            ));
        }
        if s.folded_waits > 0 {
            let approx = if s.approximate_waits > 0 {
                format!(
                    "; {} of them were counted inside the call that started during their event's time range (the split there is approximate)",
                    s.approximate_waits
                )
            } else {
                "; every one was attributed exactly by its time range".to_string()
            };
            t.note(format!(
                "{} session {}: a call had more than {} waits; {} waits were held as per-event summaries{approx}",
                self.path,
                s.id,
                crate::session::MAX_PENDING,
                s.folded_waits
            ));
        }
        t.top_depth = t.top_depth.max(d as u32);
        t.top_calls += top.calls;
        t.calls_e = t.calls_e.saturating_add(top.e);
        t.cpu = t.cpu.saturating_add(top.c);
        t.claimed = t.claimed.saturating_add(s.claimed_us);
        t.between = t.between.saturating_add(s.between_us);
        t.idle_between = t.idle_between.saturating_add(s.idle_between_us);
        let span = match (s.first_wall, s.last_wall) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        };
        t.clock_span = t.clock_span.saturating_add(span);
        if let (Some(a), Some(b)) = (s.first_start, s.last_tim) {
            t.clock_r = t.clock_r.saturating_add(b.saturating_sub(a));
        }
        t.waits = t.waits.saturating_add(s.wait_us);
        t.commits += s.commits;
        t.rollbacks += s.rollbacks;
        t.errors += s.errors;
        self.an.push_session(SessionProfile {
            path: self.path.clone(),
            id: s.id.clone(),
            start: s.start.clone(),
            clock_span_us: span,
            response_time_us: top.e.saturating_add(s.between_us),
            cpu_us: top.c,
            wait_us: s.wait_us,
            idle_us: s.idle_between_us,
            unaccounted_us: top.e.saturating_sub(top.c).saturating_sub(s.claimed_us),
            top_depth: d as u32,
            calls: s.calls(),
            waits: s.waits,
            commits: s.commits,
        });
    }

    fn finish(mut self) {
        self.flush_timeline();
        if let Some(r) = self.stmt_run.take() {
            self.stmt_waits(&r);
        }
        if let Some(r) = self.obj_run.take() {
            self.object_waits(&r);
        }
        if let Some(r) = self.file_run.take() {
            self.file_waits(&r);
        }
        let sessions = std::mem::take(&mut self.sessions);
        for s in sessions {
            self.settle_session(s);
        }
        if self.retired > 0 {
            self.an.totals.note(format!(
                "{}: more than {MAX_LIVE_SESSIONS} sessions open at once; {} were settled early (a session that came back afterwards shows in parts)",
                self.path, self.retired
            ));
        }
        self.info.sessions = self.session_count;
        for a in Anomaly::ALL {
            let (count, first_line) = self.anomalies[a as usize];
            if count > 0 {
                self.info.anomalies.push(TraceAnomaly {
                    kind: a.words().into(),
                    count,
                    first_line,
                });
            }
        }
        let info = std::mem::take(&mut self.info);
        self.an.files.push(info);
    }
}

/// Applies `f` to `key`'s row of `map`, adding the row while the map holds
/// fewer than [`MAX_OBJECTS`]; false when the map is full and `key` is not
/// in it. One probe for a key already there (nearly every wait): the
/// `contains_key` + `entry` pair this replaces probed twice.
#[inline]
fn with_capped<V: Default>(
    map: &mut rustc_hash::FxHashMap<i64, V>,
    key: i64,
    f: impl FnOnce(&mut V),
) -> bool {
    if let Some(v) = map.get_mut(&key) {
        f(v);
        return true;
    }
    if map.len() < MAX_OBJECTS {
        f(map.entry(key).or_default());
        return true;
    }
    false
}

/// `one` for 1, `many` otherwise.
pub(crate) fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn sessions_is_trivial(s: &Session) -> bool {
    s.commits == 0 && s.rollbacks == 0 && s.errors == 0
}
