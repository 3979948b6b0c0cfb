//! The tables a group of trace files adds up to, and their final report.
//!
//! An [`Analyzer`] holds everything that survives the end of a file:
//! per-event statistics and histograms, statements, objects, hot files and
//! blocks, the slowest waits, the timeline and one profile per database
//! session. Analyzers of different files merge, so files can be parsed on
//! several threads and added up afterwards; [`Analyzer::finish`] turns the
//! tables into the serde [`TraceReport`].

use crate::blocks::BlockCounter;
use crate::events::{classify_event, EventClass, IDLE_EVENTS};
use crate::header::format_wall;
use crate::Options;
use dbio_model::trace::*;
use dbio_model::Log2Buckets;
use hdrhistogram::Histogram;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Distinct (file#, block#) pairs tracked at most.
pub const MAX_BLOCKS: usize = 1 << 20;

/// Distinct event names tracked at most (real traces have tens). Each holds
/// a percentile histogram of about 35 KB, so the cap bounds them to 18 MB;
/// waits of further names are added up in one [`OTHER_EVENTS`] row.
pub const MAX_EVENTS: usize = 512;
/// Name of the row that holds the events beyond [`MAX_EVENTS`].
pub const OTHER_EVENTS: &str = "(other events)";
/// Distinct statements tracked at most (about 1 KB each); further ones are
/// added up in one [`OTHER_STATEMENTS`] row.
pub const MAX_STATEMENTS: usize = 8192;
/// Key of the row that holds the statements beyond [`MAX_STATEMENTS`].
pub const OTHER_STATEMENTS: &str = "(other statements)";
/// Session profiles kept at most; beyond that those with the least
/// response time are added up in one [`OTHER_SESSIONS`] row.
pub const MAX_SESSIONS: usize = 1000;
/// Id of the row that holds the sessions beyond [`MAX_SESSIONS`].
pub const OTHER_SESSIONS: &str = "(other sessions)";

/// Highest latency the percentile histograms hold, µs (about 11.6 days).
const HDR_MAX_US: u64 = 1_000_000_000_000;

/// Waits below this many µs are tallied per value ([`EventAgg::small`])
/// and added to the percentile and power-of-two histograms in one
/// `record_n` per value when they are read: an array increment instead of
/// an HDR index computation and a bucket search per wait (most I/O waits
/// of real traces are below 4 ms). Exact: recording a value n times is
/// what `record_n` does. 16 KiB per event that has such waits.
const SMALL_US: usize = 4096;

/// Running statistics of one event.
#[derive(Debug)]
pub struct EventAgg {
    pub(crate) name: String,
    pub(crate) class: EventClass,
    count: u64,
    total: i64,
    min: i64,
    max: i64,
    zeros: u64,
    hdr: Histogram<u64>,
    log2: Log2Buckets,
    /// Waits of each value below [`SMALL_US`] not yet in `hdr` and `log2`
    /// (allocated at the first such wait; see [`EventAgg::flush_small`]).
    small: Vec<u32>,
    sizes: Vec<(i64, Log2Buckets, i64)>,
    tiers: [TierCell; 3],
    pub(crate) in_calls: (u64, i64),
    pub(crate) between: (u64, i64),
    /// Waits whose size was beyond [`MAX_SIZES`] distinct sizes.
    sizes_dropped: u64,
}

impl EventAgg {
    fn new(name: String) -> Self {
        Self {
            class: classify_event(&name),
            name,
            count: 0,
            total: 0,
            min: i64::MAX,
            max: i64::MIN,
            zeros: 0,
            hdr: Histogram::new_with_bounds(1, HDR_MAX_US, 2).expect("valid HDR bounds"),
            log2: Log2Buckets::default(),
            small: Vec::new(),
            sizes: Vec::new(),
            tiers: [TierCell::default(); 3],
            in_calls: (0, 0),
            between: (0, 0),
            sizes_dropped: 0,
        }
    }

    /// Adds one wait (µs). `size` is the I/O size in blocks for multiblock
    /// events; `tier` 0, 1 or 2.
    #[inline]
    pub(crate) fn record(&mut self, ela: i64, size: Option<i64>, tier: Option<usize>) {
        self.count += 1;
        self.total = self.total.saturating_add(ela);
        self.min = self.min.min(ela);
        self.max = self.max.max(ela);
        let us = ela.max(0) as u64;
        if us == 0 {
            self.zeros += 1;
        }
        if (us as usize) < SMALL_US {
            if self.small.is_empty() {
                self.small = vec![0; SMALL_US];
            }
            let c = &mut self.small[us as usize];
            *c += 1;
            if *c == u32::MAX {
                self.flush_one(us);
            }
        } else {
            self.hdr.saturating_record(us.min(HDR_MAX_US));
            self.log2.record_us(us);
        }
        if let Some(s) = size {
            let full = self.sizes.len() >= MAX_SIZES;
            match self.sizes.iter_mut().find(|x| x.0 == s) {
                Some(x) => {
                    x.1.record_us(us);
                    x.2 = x.2.saturating_add(ela);
                }
                None if full => self.sizes_dropped += 1,
                None => {
                    let mut b = Log2Buckets::default();
                    b.record_us(us);
                    self.sizes.push((s, b, ela));
                }
            }
        }
        if let Some(t) = tier {
            self.tiers[t].count += 1;
            self.tiers[t].total_us = self.tiers[t].total_us.saturating_add(ela);
        }
    }

    /// Moves the tally of one small value into the histograms.
    #[cold]
    fn flush_one(&mut self, us: u64) {
        let n = std::mem::take(&mut self.small[us as usize]) as u64;
        self.hdr.saturating_record_n(us, n);
        self.log2.record_us_n(us, n);
    }

    /// Moves every small-value tally into the histograms (before they are
    /// read or merged).
    pub(crate) fn flush_small(&mut self) {
        for us in 0..self.small.len() {
            if self.small[us] > 0 {
                self.flush_one(us as u64);
            }
        }
    }

    fn merge(&mut self, mut o: EventAgg) {
        self.flush_small();
        o.flush_small();
        self.count += o.count;
        self.total = self.total.saturating_add(o.total);
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.zeros += o.zeros;
        self.sizes_dropped += o.sizes_dropped;
        let _ = self.hdr.add(&o.hdr);
        self.log2.merge(&o.log2);
        for (s, b, t) in o.sizes {
            let full = self.sizes.len() >= MAX_SIZES;
            match self.sizes.iter_mut().find(|x| x.0 == s) {
                Some(x) => {
                    x.1.merge(&b);
                    x.2 = x.2.saturating_add(t);
                }
                None if full => self.sizes_dropped += b.total(),
                None => self.sizes.push((s, b, t)),
            }
        }
        for (a, b) in self.tiers.iter_mut().zip(o.tiers) {
            a.count += b.count;
            a.total_us = a.total_us.saturating_add(b.total_us);
        }
        self.in_calls.0 += o.in_calls.0;
        self.in_calls.1 = self.in_calls.1.saturating_add(o.in_calls.1);
        self.between.0 += o.between.0;
        self.between.1 = self.between.1.saturating_add(o.between.1);
    }
}

/// Waits of one event (by id) in a statement or object.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WaitCell {
    pub(crate) event: u32,
    pub(crate) count: u64,
    pub(crate) total: i64,
    pub(crate) max: i64,
}

/// Running totals of one statement.
#[derive(Debug, Default)]
pub(crate) struct StmtAgg {
    pub(crate) stats: StatementStats,
    pub(crate) waits: Vec<WaitCell>,
    /// The input position of the file that set `stats.depth`, its
    /// `plan_hash` and its `text`: a merge of analyzers that read
    /// different files keeps the latest depth and plan and the first text
    /// in the order the files were given, so that any number of threads
    /// reports what one thread reading the files in order does.
    pub(crate) from: Stamps,
}

/// See [`StmtAgg::from`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Stamps {
    pub(crate) depth: u32,
    pub(crate) plan: u32,
    pub(crate) text: u32,
}

/// Running totals of one object.
#[derive(Debug, Default)]
pub(crate) struct ObjAgg {
    pub(crate) count: u64,
    pub(crate) total: i64,
    pub(crate) waits: Vec<WaitCell>,
}

/// One timeline second.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Point {
    pub(crate) waits: u64,
    pub(crate) wait_us: i64,
    pub(crate) io_waits: u64,
    pub(crate) io_us: i64,
    pub(crate) io_max: i64,
}

impl Point {
    fn add(&mut self, o: &Point) {
        self.waits += o.waits;
        self.wait_us = self.wait_us.saturating_add(o.wait_us);
        self.io_waits += o.io_waits;
        self.io_us = self.io_us.saturating_add(o.io_us);
        self.io_max = self.io_max.max(o.io_max);
    }
}

/// Profile totals summed over sessions.
#[derive(Debug, Default, Clone)]
pub(crate) struct Totals {
    pub(crate) top_depth: u32,
    pub(crate) top_calls: u64,
    pub(crate) calls_e: i64,
    pub(crate) cpu: i64,
    pub(crate) claimed: i64,
    pub(crate) between: i64,
    pub(crate) idle_between: i64,
    pub(crate) clock_span: i64,
    pub(crate) clock_r: i64,
    pub(crate) waits: i64,
    pub(crate) commits: u64,
    pub(crate) rollbacks: u64,
    pub(crate) errors: u64,
    pub(crate) notes: Vec<String>,
    /// Waits counted under [`OTHER_EVENTS`].
    pub(crate) other_event_waits: u64,
    /// Statements first seen after [`MAX_STATEMENTS`] (counted per
    /// opening, as their keys are not kept).
    pub(crate) other_statements: u64,
    /// Sessions added up in [`OTHER_SESSIONS`].
    pub(crate) other_sessions: u64,
    /// Notes beyond [`MAX_NOTES`], left out.
    pub(crate) notes_left_out: u64,
    /// Waits on objects beyond [`MAX_OBJECTS`] (not in the objects table).
    pub(crate) untracked_object_waits: u64,
    /// Waits on files beyond [`MAX_OBJECTS`] (not in the files table).
    pub(crate) untracked_file_waits: u64,
}

/// Distinct `obj#` (and, separately, `file#`) values tracked at most.
pub const MAX_OBJECTS: usize = 1 << 16;
/// Distinct I/O sizes kept per multiblock event (real traces have a few).
pub const MAX_SIZES: usize = 256;

/// Profile notes kept at most (one per session could be 200,000).
pub const MAX_NOTES: usize = 50;

impl Totals {
    /// Adds a note, or counts it once [`MAX_NOTES`] are there.
    pub(crate) fn note(&mut self, n: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(n);
        } else {
            self.notes_left_out += 1;
        }
    }
}

/// Everything a group of files adds up to.
#[derive(Debug)]
pub struct Analyzer {
    pub(crate) opts: Options,
    pub(crate) events: Vec<EventAgg>,
    event_ix: FxHashMap<Vec<u8>, u32>,
    last_event: (Vec<u8>, u32),
    pub(crate) stmts: Vec<StmtAgg>,
    pub(crate) stmt_ix: FxHashMap<String, u32>,
    pub(crate) objects: FxHashMap<i64, ObjAgg>,
    pub(crate) hot_files: FxHashMap<i64, FileHotSpot>,
    pub(crate) blocks: BlockCounter,
    pub(crate) slowest: Vec<SlowWait>,
    pub(crate) timeline_wall: BTreeMap<i64, Point>,
    pub(crate) timeline_rel: BTreeMap<i64, Point>,
    pub(crate) files: Vec<TraceFileInfo>,
    pub(crate) sessions: Vec<SessionProfile>,
    pub(crate) totals: Totals,
    /// The input position of the file being read (see [`StmtAgg::from`]).
    pub(crate) file_no: u32,
}

impl Analyzer {
    /// An empty analyzer.
    pub fn new(opts: &Options) -> Self {
        Self {
            opts: opts.clone(),
            events: Vec::new(),
            event_ix: FxHashMap::default(),
            last_event: (Vec::new(), u32::MAX),
            stmts: Vec::new(),
            stmt_ix: FxHashMap::default(),
            objects: FxHashMap::default(),
            hot_files: FxHashMap::default(),
            blocks: BlockCounter::default(),
            slowest: Vec::new(),
            timeline_wall: BTreeMap::new(),
            timeline_rel: BTreeMap::new(),
            files: Vec::new(),
            sessions: Vec::new(),
            totals: Totals::default(),
            file_no: 0,
        }
    }

    /// Id of an event name, adding it on first sight.
    #[inline]
    pub(crate) fn event_id(&mut self, name: &[u8]) -> u32 {
        if self.last_event.1 != u32::MAX && self.last_event.0 == name {
            return self.last_event.1;
        }
        let id = match self.event_ix.get(name) {
            Some(&id) => id,
            None if self.events.len() + 1 >= MAX_EVENTS && name != OTHER_EVENTS.as_bytes() => {
                // The name is not kept: memory stays bounded.
                let id = self.event_id(OTHER_EVENTS.as_bytes());
                self.totals.other_event_waits += 1;
                return id;
            }
            None => {
                let id = self.events.len() as u32;
                self.events
                    .push(EventAgg::new(String::from_utf8_lossy(name).into_owned()));
                self.event_ix.insert(name.to_vec(), id);
                id
            }
        };
        self.last_event.0.clear();
        self.last_event.0.extend_from_slice(name);
        self.last_event.1 = id;
        id
    }

    /// Id of a statement key, adding it on first sight.
    pub(crate) fn stmt_id(&mut self, key: &str, init: impl FnOnce(&mut StatementStats)) -> u32 {
        if let Some(&id) = self.stmt_ix.get(key) {
            return id;
        }
        let other = self.stmts.len() + 1 >= MAX_STATEMENTS;
        if other {
            self.totals.other_statements += 1;
            if let Some(&id) = self.stmt_ix.get(OTHER_STATEMENTS) {
                return id;
            }
        }
        let id = self.stmts.len() as u32;
        let mut s = StmtAgg::default();
        let key = if other {
            s.stats.text = format!(
                "statements beyond the first {} distinct, added up",
                MAX_STATEMENTS - 1
            );
            OTHER_STATEMENTS
        } else {
            init(&mut s.stats);
            key
        };
        s.stats.key = key.to_string();
        self.stmts.push(s);
        self.stmt_ix.insert(key.to_string(), id);
        id
    }

    /// Adds a session's profile; past [`MAX_SESSIONS`] the profiles with
    /// the least response time are added up in one [`OTHER_SESSIONS`] row.
    pub(crate) fn push_session(&mut self, p: SessionProfile) {
        self.sessions.push(p);
        if self.sessions.len() >= 2 * MAX_SESSIONS {
            self.compact_sessions();
        }
    }

    fn compact_sessions(&mut self) {
        let mut other: Option<SessionProfile> = None;
        self.sessions.retain_mut(|s| {
            if s.id != OTHER_SESSIONS {
                return true;
            }
            match &mut other {
                Some(o) => add_session(o, s),
                None => other = Some(std::mem::take(s)),
            }
            false
        });
        if self.sessions.len() >= MAX_SESSIONS {
            let o = other.get_or_insert_with(|| SessionProfile {
                id: OTHER_SESSIONS.into(),
                ..SessionProfile::default()
            });
            self.sessions
                .sort_by_key(|s| std::cmp::Reverse(s.response_time_us));
            for s in self.sessions.drain(MAX_SESSIONS - 1..) {
                self.totals.other_sessions += 1;
                add_session(o, &s);
            }
        }
        self.sessions.extend(other);
    }

    /// Says which caps were reached (they bound memory on any input).
    fn cap_notes(&mut self) {
        let t = &mut self.totals;
        if t.notes_left_out > 0 {
            let n = t.notes_left_out;
            t.notes
                .push(format!("{n} more notes like the ones above were left out"));
        }
        if t.other_event_waits > 0 {
            t.notes.push(format!(
                "more than {} distinct event names: {} waits of the names beyond were added up as '{OTHER_EVENTS}'",
                MAX_EVENTS - 1,
                t.other_event_waits
            ));
        }
        if t.other_statements > 0 {
            t.notes.push(format!(
                "more than {} distinct statements: {} cursor openings of the statements beyond were added up as '{OTHER_STATEMENTS}'",
                MAX_STATEMENTS - 1,
                t.other_statements
            ));
        }
        if t.untracked_object_waits > 0 {
            t.notes.push(format!(
                "more than {MAX_OBJECTS} distinct obj#: {} waits on the others are not in the objects table",
                t.untracked_object_waits
            ));
        }
        if t.untracked_file_waits > 0 {
            t.notes.push(format!(
                "more than {MAX_OBJECTS} distinct file#: {} waits on the others are not in the files table",
                t.untracked_file_waits
            ));
        }
        let dropped: u64 = self.events.iter().map(|e| e.sizes_dropped).sum();
        if dropped > 0 {
            t.notes.push(format!(
                "more than {MAX_SIZES} distinct I/O sizes for an event: {dropped} waits of the others are not in the by-size histograms"
            ));
        }
        if t.other_sessions > 0 {
            t.notes.push(format!(
                "more than {} sessions: the {} with the least response time were added up as '{OTHER_SESSIONS}'",
                MAX_SESSIONS - 1,
                t.other_sessions
            ));
        }
    }

    /// Counts settled waits into the events' in-call / between-call split.
    /// Also adds them to the session's in-call / between-call totals.
    pub(crate) fn settle(
        &mut self,
        sess: &mut crate::session::Session,
        settled: &mut Vec<crate::session::Settled>,
    ) {
        for (ev, n, ela, inside) in settled.drain(..) {
            let Some(e) = self.events.get_mut(ev as usize) else {
                continue;
            };
            if inside {
                sess.claimed_us = sess.claimed_us.saturating_add(ela);
            } else {
                sess.between_us = sess.between_us.saturating_add(ela);
                if e.class.idle {
                    sess.idle_between_us = sess.idle_between_us.saturating_add(ela);
                }
            }
            let cell = if inside {
                &mut e.in_calls
            } else {
                &mut e.between
            };
            cell.0 += n;
            cell.1 = cell.1.saturating_add(ela);
        }
    }

    /// Offers a wait to the slowest-waits table.
    #[inline]
    pub(crate) fn offer_slow(&mut self, ela: i64, make: impl FnOnce() -> SlowWait) {
        let top = self.opts.top;
        if top == 0 {
            return;
        }
        if self.slowest.len() >= top && self.slowest.last().is_some_and(|m| m.ela_us >= ela) {
            return;
        }
        let w = make();
        let at = self.slowest.partition_point(|x| x.ela_us >= w.ela_us);
        self.slowest.insert(at, w);
        self.slowest.truncate(top);
    }

    /// Adds another analyzer's tables (another file) into this one.
    pub fn merge(&mut self, mut o: Analyzer) {
        let mut ev_map = Vec::with_capacity(o.events.len());
        for e in o.events.drain(..) {
            let before = self.totals.other_event_waits;
            let id = self.event_id(e.name.as_bytes());
            if self.totals.other_event_waits != before {
                self.totals.other_event_waits = before + e.count;
            }
            ev_map.push(id);
            self.events[id as usize].merge(e);
        }
        let remap = |v: Vec<WaitCell>| -> Vec<WaitCell> {
            v.into_iter()
                .map(|w| WaitCell {
                    event: ev_map[w.event as usize],
                    ..w
                })
                .collect()
        };
        for s in o.stmts.drain(..) {
            let id = self.stmt_id(&s.stats.key.clone(), |_| {});
            let t = &mut self.stmts[id as usize];
            let (a, b) = (&mut t.stats, &s.stats);
            let (af, bf) = (&mut t.from, &s.from);
            if !b.text.is_empty() && (a.text.is_empty() || bf.text < af.text) {
                a.text = b.text.clone();
                af.text = bf.text;
            }
            a.sql_id = a.sql_id.take().or(b.sql_id.clone());
            a.hash_value = a.hash_value.or(b.hash_value);
            if b.plan_hash.is_some() && (a.plan_hash.is_none() || bf.plan > af.plan) {
                a.plan_hash = b.plan_hash;
                af.plan = bf.plan;
            }
            if bf.depth > af.depth {
                a.depth = b.depth;
                af.depth = bf.depth;
            }
            a.parses += b.parses;
            a.execs += b.execs;
            a.fetches += b.fetches;
            a.other_calls += b.other_calls;
            a.misses += b.misses;
            a.elapsed_us = a.elapsed_us.saturating_add(b.elapsed_us);
            a.cpu_us = a.cpu_us.saturating_add(b.cpu_us);
            a.rows = a.rows.saturating_add(b.rows);
            a.physical_reads = a.physical_reads.saturating_add(b.physical_reads);
            a.buffer_gets = a.buffer_gets.saturating_add(b.buffer_gets);
            a.errors += b.errors;
            for w in remap(s.waits) {
                merge_cell(&mut t.waits, w);
            }
        }
        for (k, v) in o.objects.drain() {
            let t = self.objects.entry(k).or_default();
            t.count += v.count;
            t.total = t.total.saturating_add(v.total);
            for w in remap(v.waits) {
                merge_cell(&mut t.waits, w);
            }
        }
        for (k, v) in o.hot_files.drain() {
            let t = self.hot_files.entry(k).or_insert(FileHotSpot {
                file: k,
                ..FileHotSpot::default()
            });
            t.count += v.count;
            t.total_us = t.total_us.saturating_add(v.total_us);
            t.blocks = t.blocks.saturating_add(v.blocks);
        }
        self.blocks.merge(std::mem::take(&mut o.blocks));
        for w in o.slowest.drain(..) {
            let ela = w.ela_us;
            self.offer_slow(ela, || w);
        }
        for (k, p) in &o.timeline_wall {
            self.timeline_wall.entry(*k).or_default().add(p);
        }
        for (k, p) in &o.timeline_rel {
            self.timeline_rel.entry(*k).or_default().add(p);
        }
        self.files.append(&mut o.files);
        for p in o.sessions.drain(..) {
            self.push_session(p);
        }
        let (a, b) = (&mut self.totals, o.totals);
        a.top_depth = a.top_depth.max(b.top_depth);
        a.top_calls += b.top_calls;
        a.calls_e = a.calls_e.saturating_add(b.calls_e);
        a.cpu = a.cpu.saturating_add(b.cpu);
        a.claimed = a.claimed.saturating_add(b.claimed);
        a.between = a.between.saturating_add(b.between);
        a.idle_between = a.idle_between.saturating_add(b.idle_between);
        a.clock_span = a.clock_span.saturating_add(b.clock_span);
        a.clock_r = a.clock_r.saturating_add(b.clock_r);
        a.waits = a.waits.saturating_add(b.waits);
        a.commits += b.commits;
        a.rollbacks += b.rollbacks;
        a.errors += b.errors;
        a.notes_left_out += b.notes_left_out;
        for n in b.notes {
            a.note(n);
        }
        a.other_event_waits += b.other_event_waits;
        a.other_statements += b.other_statements;
        a.other_sessions += b.other_sessions;
        a.untracked_object_waits += b.untracked_object_waits;
        a.untracked_file_waits += b.untracked_file_waits;
    }

    /// Turns the tables into the report.
    pub fn finish(mut self, label: &str) -> TraceReport {
        self.compact_sessions();
        self.cap_notes();
        let Analyzer {
            opts,
            events,
            stmts,
            objects,
            hot_files,
            blocks,
            slowest,
            timeline_wall,
            timeline_rel,
            files,
            sessions,
            totals,
            ..
        } = self;
        let names: Vec<String> = events.iter().map(|e| e.name.clone()).collect();
        let cells = |v: Vec<WaitCell>| wait_aggs(&names, v);
        let profile = response_profile(&totals, &events);
        let EventTables {
            events: ev_out,
            io_histograms: io_h,
            size_histograms: size_h,
            tiers,
        } = event_tables(events);
        let mut statements: Vec<StatementStats> = stmts
            .into_iter()
            .map(|s| {
                let mut st = s.stats;
                st.waits = cells(s.waits);
                st.wait_us = st.waits.iter().map(|w| w.total_us).sum();
                st
            })
            .collect();
        statements.sort_by(|a, b| {
            b.elapsed_us
                .cmp(&a.elapsed_us)
                .then(b.wait_us.cmp(&a.wait_us))
                .then(a.key.cmp(&b.key))
        });

        let mut objs: Vec<ObjectStats> = objects
            .into_iter()
            .map(|(obj, o)| ObjectStats {
                obj,
                count: o.count,
                total_us: o.total,
                waits: cells(o.waits),
            })
            .collect();
        objs.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.obj.cmp(&b.obj)));
        objs.truncate(opts.top.max(1) * 5);

        let (hf, hb, blocks_complete) = hot_spots(hot_files, blocks, opts.top);
        let timeline = make_timeline(&opts, timeline_wall, timeline_rel);

        TraceReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            invocation: None,
            build: None,
            label: label.to_string(),
            settings: TraceSettings {
                page_cache_max_ns: opts.page_cache_max_ns,
                storage_cache_max_ns: opts.storage_cache_max_ns,
                thresholds_from: opts.thresholds_from.clone(),
                interval_s: timeline.interval_s,
                top: opts.top,
                bs: opts.bs,
                idle_events: IDLE_EVENTS.iter().map(|s| s.to_string()).collect(),
            },
            files,
            profile,
            events: ev_out,
            io_histograms: io_h,
            size_histograms: size_h,
            tiers,
            statements,
            objects: objs,
            hot_files: hf,
            hot_blocks: hb,
            hot_blocks_complete: blocks_complete,
            slowest_waits: slowest,
            sessions,
            timeline,
            findings: Vec::new(),
            verdict: None,
        }
    }
}

/// Adds session `s` into the row `o` that stands for several sessions.
fn add_session(o: &mut SessionProfile, s: &SessionProfile) {
    o.clock_span_us = o.clock_span_us.saturating_add(s.clock_span_us);
    o.response_time_us = o.response_time_us.saturating_add(s.response_time_us);
    o.cpu_us = o.cpu_us.saturating_add(s.cpu_us);
    o.wait_us = o.wait_us.saturating_add(s.wait_us);
    o.idle_us = o.idle_us.saturating_add(s.idle_us);
    o.unaccounted_us = o.unaccounted_us.saturating_add(s.unaccounted_us);
    o.top_depth = o.top_depth.max(s.top_depth);
    o.calls += s.calls;
    o.waits += s.waits;
    o.commits += s.commits;
}

/// A list of wait cells as named, sorted aggregates (largest total first).
fn wait_aggs(names: &[String], v: Vec<WaitCell>) -> Vec<WaitAgg> {
    let mut out: Vec<WaitAgg> = v
        .into_iter()
        .map(|w| WaitAgg {
            event: names.get(w.event as usize).cloned().unwrap_or_default(),
            count: w.count,
            total_us: w.total,
            max_us: w.max,
        })
        .collect();
    out.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.event.cmp(&b.event)));
    out
}

/// The response-time profile (Millsap's resource profile): CPU, each
/// event, and what the calls' elapsed time leaves unaccounted for.
fn response_profile(totals: &Totals, events: &[EventAgg]) -> ResponseProfile {
    let t = totals;
    let r = t.calls_e.saturating_add(t.between);
    let unaccounted = t.calls_e.saturating_sub(t.cpu).saturating_sub(t.claimed);
    let share = |x: i64| if r != 0 { x as f64 / r as f64 } else { 0.0 };
    let mut lines = vec![ProfileLine {
        name: "CPU".into(),
        kind: ProfileKind::Cpu,
        count: t.top_calls,
        total_us: t.cpu,
        share: share(t.cpu),
    }];
    for e in events {
        if e.class.idle {
            if e.between.0 > 0 {
                lines.push(ProfileLine {
                    name: e.name.clone(),
                    kind: ProfileKind::Idle,
                    count: e.between.0,
                    total_us: e.between.1,
                    share: share(e.between.1),
                });
            }
            if e.in_calls.0 > 0 {
                lines.push(ProfileLine {
                    name: format!("{} (inside calls)", e.name),
                    kind: ProfileKind::Wait,
                    count: e.in_calls.0,
                    total_us: e.in_calls.1,
                    share: share(e.in_calls.1),
                });
            }
        } else {
            let total = e.in_calls.1.saturating_add(e.between.1);
            lines.push(ProfileLine {
                name: e.name.clone(),
                kind: ProfileKind::Wait,
                count: e.in_calls.0 + e.between.0,
                total_us: total,
                share: share(total),
            });
        }
    }
    lines.push(ProfileLine {
        name: "unaccounted-for".into(),
        kind: ProfileKind::Unaccounted,
        count: 0,
        total_us: unaccounted,
        share: share(unaccounted),
    });
    lines.sort_by(|a, b| {
        b.total_us
            .abs()
            .cmp(&a.total_us.abs())
            .then(a.name.cmp(&b.name))
    });
    ResponseProfile {
        response_time_us: r,
        busy_time_us: r.saturating_sub(t.idle_between),
        top_depth: t.top_depth,
        top_calls: t.top_calls,
        calls_elapsed_us: t.calls_e,
        cpu_us: t.cpu,
        waits_in_calls_us: t.claimed,
        waits_between_calls_us: t.between.saturating_sub(t.idle_between),
        idle_between_calls_us: t.idle_between,
        unaccounted_us: unaccounted,
        clock_span_us: t.clock_span,
        clock_response_time_us: t.clock_r,
        clock_unaccounted_us: t.clock_r.saturating_sub(t.cpu).saturating_sub(t.waits),
        commits: t.commits,
        rollbacks: t.rollbacks,
        errors: t.errors,
        lines,
        notes: t.notes.clone(),
    }
}

/// Per-event statistics, the I/O events' latency and size histograms and
/// their tier split, each sorted for display.
struct EventTables {
    events: Vec<EventStats>,
    io_histograms: Vec<IoHistogram>,
    size_histograms: Vec<SizeHistogram>,
    tiers: Vec<TierRow>,
}

fn event_tables(events: Vec<EventAgg>) -> EventTables {
    let mut ev_out = Vec::new();
    let mut io_h = Vec::new();
    let mut size_h = Vec::new();
    let mut tiers = Vec::new();
    for mut e in events {
        e.flush_small();
        let q = |p: f64| {
            if e.count > 0 {
                e.hdr.value_at_quantile(p)
            } else {
                0
            }
        };
        ev_out.push(EventStats {
            name: e.name.clone(),
            idle: e.class.idle,
            io: e.class.io,
            count: e.count,
            total_us: e.total,
            mean_us: if e.count > 0 {
                e.total as f64 / e.count as f64
            } else {
                0.0
            },
            min_us: if e.count > 0 { e.min } else { 0 },
            max_us: if e.count > 0 { e.max } else { 0 },
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            p999_us: q(0.999),
            zero_count: e.zeros,
            in_calls_us: e.in_calls.1,
            between_calls_us: e.between.1,
        });
        if e.class.io {
            io_h.push(IoHistogram {
                event: e.name.clone(),
                buckets: e.log2.clone(),
                total_us: e.total,
            });
            tiers.push(TierRow {
                event: e.name.clone(),
                page_cache: e.tiers[0],
                storage_cache: e.tiers[1],
                device: e.tiers[2],
            });
        }
        let mut sizes = e.sizes;
        sizes.sort_by_key(|s| s.0);
        for (blocks, buckets, total) in sizes {
            size_h.push(SizeHistogram {
                event: e.name.clone(),
                blocks,
                buckets,
                total_us: total,
            });
        }
    }
    ev_out.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.name.cmp(&b.name)));
    io_h.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.event.cmp(&b.event)));
    tiers.sort_by(|a, b| {
        let t = |r: &TierRow| r.page_cache.total_us + r.storage_cache.total_us + r.device.total_us;
        t(b).cmp(&t(a)).then(a.event.cmp(&b.event))
    });
    size_h.sort_by(|a, b| a.event.cmp(&b.event).then(a.blocks.cmp(&b.blocks)));

    EventTables {
        events: ev_out,
        io_histograms: io_h,
        size_histograms: size_h,
        tiers,
    }
}

/// The hottest files and the blocks read more than once (the top `top`),
/// and whether the block table saw every block.
fn hot_spots(
    hot_files: FxHashMap<i64, FileHotSpot>,
    blocks: BlockCounter,
    top: usize,
) -> (Vec<FileHotSpot>, Vec<BlockHotSpot>, bool) {
    let mut hf: Vec<FileHotSpot> = hot_files.into_values().collect();
    hf.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.file.cmp(&b.file)));
    let blocks_complete = blocks.is_complete();
    let mut hb: Vec<BlockHotSpot> = blocks
        .into_entries()
        .filter(|(_, (c, _))| *c > 1)
        .map(|((file, block), (count, total_us))| BlockHotSpot {
            file,
            block,
            count,
            total_us,
        })
        .collect();
    hb.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(b.total_us.cmp(&a.total_us))
            .then((a.file, a.block).cmp(&(b.file, b.block)))
    });
    hb.truncate(top.max(1));

    (hf, hb, blocks_complete)
}

fn merge_cell(v: &mut Vec<WaitCell>, w: WaitCell) {
    match v.iter_mut().find(|x| x.event == w.event) {
        Some(x) => {
            x.count += w.count;
            x.total = x.total.saturating_add(w.total);
            x.max = x.max.max(w.max);
        }
        None => v.push(w),
    }
}

fn make_timeline(
    opts: &Options,
    wall: BTreeMap<i64, Point>,
    rel: BTreeMap<i64, Point>,
) -> Timeline {
    let (map, wall_clock) = if wall.is_empty() {
        (rel, false)
    } else {
        (wall, true)
    };
    let span = match (map.keys().next(), map.keys().next_back()) {
        (Some(a), Some(b)) => b.saturating_sub(*a),
        _ => 0,
    };
    let interval = opts.interval_s.unwrap_or(if span <= 900 {
        1
    } else if span <= 86_400 {
        60
    } else {
        3600
    });
    let interval = interval.max(1);
    let mut buckets: BTreeMap<i64, Point> = BTreeMap::new();
    for (sec, p) in map {
        buckets
            .entry(sec.div_euclid(interval as i64))
            .or_default()
            .add(&p);
    }
    let points = buckets
        .into_iter()
        .map(|(k, p)| {
            let start_s = k.saturating_mul(interval as i64);
            TimelinePoint {
                start: if wall_clock {
                    format_wall(start_s.saturating_mul(1_000_000))
                } else {
                    format!("+{start_s}")
                },
                waits: p.waits,
                wait_us: p.wait_us,
                io_waits: p.io_waits,
                io_us: p.io_us,
                io_max_us: p.io_max,
            }
        })
        .collect();
    Timeline {
        interval_s: interval,
        wall_clock,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-value tally of small waits gives the same histograms as
    /// recording every wait directly, including a tally that reaches
    /// `u32::MAX` on the way.
    #[test]
    fn small_wait_tally_equals_direct_recording() {
        let mut e = EventAgg::new("db file sequential read".into());
        let mut hdr = Histogram::<u64>::new_with_bounds(1, HDR_MAX_US, 2).unwrap();
        let mut log2 = Log2Buckets::default();
        let mut x: u64 = 12345;
        for _ in 0..50_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let us = match x >> 62 {
                0 => (x >> 20) % 64,
                1 => (x >> 20) % SMALL_US as u64,
                2 => SMALL_US as u64 - 2 + (x >> 20) % 4,
                _ => (x >> 20) % 10_000_000,
            };
            e.record(us as i64, None, None);
            hdr.saturating_record(us);
            log2.record_us(us);
        }
        // A tally one short of u32::MAX: the next wait of that value moves
        // the tally into the histograms.
        e.flush_small();
        e.small[7] = u32::MAX - 1;
        hdr.saturating_record_n(7, u32::MAX as u64 - 1);
        log2.record_us_n(7, u32::MAX as u64 - 1);
        e.record(7, None, None);
        hdr.saturating_record(7);
        log2.record_us(7);
        assert_eq!(e.small[7], 0, "the full tally was moved");
        e.flush_small();
        assert_eq!(e.hdr, hdr);
        assert_eq!(e.log2, log2);
        assert!(e.small.iter().all(|&c| c == 0));
    }
}
