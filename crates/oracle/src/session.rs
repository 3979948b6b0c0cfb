//! One database session's time accounting (the Millsap/Holt model).
//!
//! Calls are written when they complete, children before their parent, and
//! the waits of a call before the call line. So a WAIT cannot be classified
//! when it is read: it waits in `pending` until a call whose interval
//! `[tim − e, tim]` contains the wait's end time claims it (it was inside
//! that call), or until a top-level call proves it was not inside any
//! (a between-call wait). Without `tim` (9i), a call claims the waits on its
//! own cursor, a dep-0 call every wait not on the between-call list.
//!
//! Response time R = Σ `e` of top-level calls + Σ between-call waits. The
//! top level is dep 0, or the smallest depth present when a session has no
//! dep-0 call at all (a trace started inside a PL/SQL block), so recursive
//! calls are counted once, through their parent, and an all-recursive file
//! still gets a profile.

use crate::events::EventClass;
use rustc_hash::FxHashMap;

/// Deepest recursion level tracked separately; deeper calls are clamped.
pub const MAX_DEPTH: usize = 32;

/// Pending waits kept one by one at most. Beyond that the oldest half is
/// folded into one summary per event with its `tim` range (a FETCH or
/// batch EXEC with millions of waits stays in bounded memory); the summary
/// is still attributed by the next top-level call, exactly unless the call
/// starts inside one event's range (then it counts as inside and the
/// session's `approximate` count says how many waits that was).
pub const MAX_PENDING: usize = 1 << 16;

/// Recursive calls not yet known to have a parent, kept one by one at
/// most; beyond that the oldest two are merged (same rule as above).
pub const MAX_ROOTS: usize = 1 << 12;

/// Waits of one event folded out of `pending` (see [`MAX_PENDING`]).
#[derive(Debug, Clone, Copy)]
struct Folded {
    event: u32,
    /// Whether the waits carried `tim` (the range below is valid).
    timed: bool,
    count: u64,
    ela: i64,
    /// Earliest and latest wait midpoint (`tim − ela/2`), µs.
    first: i64,
    last: i64,
}

/// Recursive calls at the lowest depth seen since the last top-level call:
/// candidates for "no dep-0 parent" (their time is then part of R).
#[derive(Debug, Clone, Copy)]
struct Root {
    dep: i64,
    calls: u64,
    e: i64,
    c: i64,
    /// Start of the first call and end of the last (µs); None without tim.
    first: Option<i64>,
    last: Option<i64>,
}

/// A wait not yet known to be inside or between calls.
#[derive(Debug, Clone, Copy)]
pub struct Pending {
    /// End time, µs (None in 9i traces).
    pub tim: Option<i64>,
    /// Wait time, µs.
    pub ela: i64,
    /// Event id in the analyzer's table.
    pub event: u32,
    /// Cursor number of the WAIT line.
    pub cursor: u64,
    claimed: bool,
}

/// What a call line contributes, per depth.
#[derive(Debug, Clone, Copy, Default)]
pub struct DepthAgg {
    /// Calls.
    pub calls: u64,
    /// Σ e, µs.
    pub e: i64,
    /// Σ c, µs.
    pub c: i64,
}

/// The time fields of a call line, in µs.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallTimes {
    /// Cursor number.
    pub cursor: u64,
    /// Recursive depth.
    pub dep: i64,
    /// Elapsed, µs.
    pub e: i64,
    /// CPU, µs.
    pub c: i64,
    /// Completion time, µs.
    pub tim: Option<i64>,
}

/// How settled waits counted: `(event, waits, Σ ela, inside_a_call)`.
pub type Settled = (u32, u64, i64, bool);

/// A cursor's current statement.
#[derive(Debug, Clone, Copy)]
pub struct CursorState {
    /// Statement id in the analyzer's table.
    pub stmt: u32,
}

/// State and totals of one database session.
#[derive(Debug, Default)]
pub struct Session {
    /// Identity (`sid.serial`, `pid N`, `main`).
    pub id: String,
    /// Has seen a body record (call or wait).
    pub active: bool,
    /// Open cursors.
    pub cursors: FxHashMap<u64, CursorState>,
    pending: Vec<Pending>,
    folded: FxHashMap<(u32, bool), Folded>,
    roots: Vec<Root>,
    /// Waits held in summary form because one call had more than
    /// [`MAX_PENDING`] waits.
    pub folded_waits: u64,
    /// Of those, waits counted inside a call because the call started
    /// inside their event's time range (the split there is approximate).
    pub approximate_waits: u64,
    /// Recursive calls with no dep-0 parent (e.g. the logoff audit
    /// `update sys.aud$`): their time is part of R.
    pub orphans: DepthAgg,
    /// Recursive calls merged before their parent was known (more than
    /// [`MAX_ROOTS`] between two top-level calls).
    pub merged_roots: u64,
    /// Earliest call or wait start (`tim − e`, `tim − ela`), µs.
    pub first_start: Option<i64>,
    /// Latest `tim` of a call or wait, µs.
    pub last_tim: Option<i64>,
    /// Calls per depth.
    pub depth: [DepthAgg; MAX_DEPTH],
    /// Waits inside calls, µs.
    pub claimed_us: i64,
    /// Waits between calls, µs (idle included).
    pub between_us: i64,
    /// Idle waits between calls, µs.
    pub idle_between_us: i64,
    /// Waits.
    pub waits: u64,
    /// Σ ela, µs.
    pub wait_us: i64,
    /// Commits.
    pub commits: u64,
    /// Rollbacks.
    pub rollbacks: u64,
    /// ERROR lines.
    pub errors: u64,
    anchor_wall: Option<i64>,
    anchor_tim: Option<i64>,
    rel_base: Option<i64>,
    /// Earliest wall time seen (µs, naive local), with anchored flag.
    pub first_wall: Option<i64>,
    /// Latest wall time seen.
    pub last_wall: Option<i64>,
    /// First `***` timestamp text.
    pub start: Option<String>,
}

impl Session {
    /// A new, empty session.
    pub fn new(id: String) -> Self {
        Self {
            id,
            ..Self::default()
        }
    }

    /// A `***` timestamp (naive local µs) anchors the following `tim`s.
    pub fn anchor(&mut self, wall: i64, text: &[u8]) {
        self.anchor_wall = Some(wall);
        self.anchor_tim = None;
        if self.start.is_none() {
            let t = &text[..text.len().min(40)];
            self.start = Some(String::from_utf8_lossy(t).into_owned());
        }
        self.see_wall(wall);
    }

    fn see_wall(&mut self, w: i64) {
        self.first_wall = Some(self.first_wall.map_or(w, |f| f.min(w)));
        self.last_wall = Some(self.last_wall.map_or(w, |l| l.max(w)));
    }

    /// Wall time of a line with this `tim` (µs): `(time, anchored)`.
    /// Anchored times are naive local µs since 1970; otherwise µs since the
    /// session's first `tim`.
    pub fn wall_of(&mut self, tim: Option<i64>) -> Option<(i64, bool)> {
        let r = match (self.anchor_wall, tim) {
            (Some(w), Some(t)) => {
                let at = *self.anchor_tim.get_or_insert(t);
                Some((w.saturating_add(t.saturating_sub(at)), true))
            }
            (Some(w), None) => Some((w, true)),
            (None, Some(t)) => {
                let b = *self.rel_base.get_or_insert(t);
                Some((t.saturating_sub(b), false))
            }
            (None, None) => None,
        };
        if let Some((w, true)) = r {
            self.see_wall(w);
        }
        r
    }

    /// Records a wait (µs) as pending. When a call has more than
    /// [`MAX_PENDING`] waits, the oldest are folded into per-event
    /// summaries (counted in `folded_waits`); nothing is settled here.
    pub fn wait(&mut self, tim: Option<i64>, ela: i64, event: u32, cursor: u64) {
        self.active = true;
        self.waits += 1;
        self.wait_us = self.wait_us.saturating_add(ela);
        if let Some(t) = tim {
            self.see_tim(t);
            let start = t.saturating_sub(ela.max(0));
            self.first_start = Some(self.first_start.map_or(start, |f| f.min(start)));
        }
        self.pending.push(Pending {
            tim,
            ela,
            event,
            cursor,
            claimed: false,
        });
        if self.pending.len() > MAX_PENDING {
            self.fold(MAX_PENDING / 2);
        }
    }

    fn see_tim(&mut self, t: i64) {
        self.last_tim = Some(self.last_tim.map_or(t, |l| l.max(t)));
    }

    /// Folds the oldest `n` pending waits into per-event summaries.
    fn fold(&mut self, n: usize) {
        let Self {
            pending,
            folded,
            folded_waits,
            ..
        } = self;
        for p in pending.drain(..n) {
            let timed = p.tim.is_some();
            let mid = p.tim.map_or(0, |t| midpoint(t, p.ela));
            *folded_waits += 1;
            let f = folded.entry((p.event, timed)).or_insert(Folded {
                event: p.event,
                timed,
                count: 0,
                ela: 0,
                first: mid,
                last: mid,
            });
            f.count += 1;
            f.ela = f.ela.saturating_add(p.ela);
            f.first = f.first.min(mid);
            f.last = f.last.max(mid);
        }
    }

    /// Records a call (µs values), claims the waits inside it and, for a
    /// dep-0 call, settles every earlier wait as between-call. A wait is
    /// inside a call when its midpoint (`tim − ela/2`) lies in the call's
    /// interval `[tim − e, tim]`: a client wait that ended just after the
    /// next call seems to start (the trace's clocks disagree by a few µs)
    /// stays between calls. `class` gives an event's class by id. Settled
    /// waits are appended to `out`.
    pub fn call(
        &mut self,
        call: CallTimes,
        class: impl Fn(u32) -> EventClass,
        out: &mut Vec<Settled>,
    ) {
        let CallTimes {
            cursor,
            dep,
            e,
            c,
            tim,
        } = call;
        self.active = true;
        let d = dep.clamp(0, MAX_DEPTH as i64 - 1) as usize;
        let agg = &mut self.depth[d];
        agg.calls += 1;
        agg.e = agg.e.saturating_add(e);
        agg.c = agg.c.saturating_add(c);
        let top = d == 0;
        let window = tim.map(|t| (t.saturating_sub(e.max(0)), t));
        if let Some((s, t)) = window {
            self.first_start = Some(self.first_start.map_or(s, |f| f.min(s)));
            self.see_tim(t);
        }
        let mut any = false;
        // Waits before `lo` ended before this call started: only the ones
        // from `lo` on are looked at and compacted below (a session
        // without a dep-0 call can hold MAX_PENDING waits, and going over
        // all of them at every call was 4 % of the parse time).
        let mut lo = self.pending.len();
        for w in self.pending.iter_mut().rev() {
            match (w.tim, window) {
                (Some(wt), Some((s, t))) => {
                    if wt < s {
                        break;
                    }
                    if midpoint(wt, w.ela) >= s && wt <= t {
                        w.claimed = true;
                        any = true;
                    }
                }
                _ => {
                    if !class(w.event).between_call && (top || w.cursor == cursor) {
                        w.claimed = true;
                        any = true;
                    }
                }
            }
            lo -= 1;
        }
        if any {
            // The claimed waits, in order, out; the others kept in order.
            let mut k = lo;
            for j in lo..self.pending.len() {
                let w = self.pending[j];
                if w.claimed {
                    out.push((w.event, 1, w.ela, true));
                } else {
                    self.pending[k] = w;
                    k += 1;
                }
            }
            self.pending.truncate(k);
        }
        if !self.folded.is_empty() {
            self.settle_folded(top, window, &class, out);
        }
        if top {
            self.settle_roots(window);
            self.settle_all(out);
        } else {
            self.add_root(
                Root {
                    dep,
                    calls: 1,
                    e,
                    c,
                    first: tim,
                    last: tim,
                },
                window.map(|w| w.0),
            );
        }
    }

    /// Attributes folded waits: a summary whose whole range lies in the
    /// call is inside it; at a top-level call the rest is between calls,
    /// except a range the call's start falls into (inside, approximate).
    fn settle_folded(
        &mut self,
        top: bool,
        window: Option<(i64, i64)>,
        class: &impl Fn(u32) -> EventClass,
        out: &mut Vec<Settled>,
    ) {
        let mut approx = 0;
        self.folded.retain(|_, f| {
            let inside = match (f.timed, window) {
                (true, Some((s, t))) => {
                    if f.first >= s && f.last <= t {
                        Some(true)
                    } else if !top {
                        None
                    } else if f.last < s || f.first > t {
                        Some(false)
                    } else {
                        approx += f.count;
                        Some(true)
                    }
                }
                _ if top => Some(!class(f.event).between_call),
                _ => None,
            };
            match inside {
                Some(i) => {
                    out.push((f.event, f.count, f.ela, i));
                    false
                }
                None => true,
            }
        });
        self.approximate_waits += approx;
    }

    /// A recursive call: it is the parent of the earlier, deeper roots that
    /// ended inside it, and a root itself until a top-level call claims it.
    fn add_root(&mut self, r: Root, start: Option<i64>) {
        // Roots are in time order: the children of this call are the
        // deeper ones at the end that ended after it started.
        while let Some(o) = self.roots.last() {
            let child = o.dep > r.dep
                && match (o.first, start) {
                    (Some(of), Some(s)) => of >= s,
                    _ => true,
                };
            if !child {
                break;
            }
            self.roots.pop();
        }
        self.roots.push(r);
        if self.roots.len() > MAX_ROOTS {
            // Merge the older half into one entry (amortised O(1) a call).
            let n = MAX_ROOTS / 2;
            let mut m = self.roots[0];
            for b in &self.roots[1..n] {
                m.dep = m.dep.min(b.dep);
                m.calls += b.calls;
                m.e = m.e.saturating_add(b.e);
                m.c = m.c.saturating_add(b.c);
                m.last = b.last.or(m.last);
            }
            self.merged_roots += (n - 1) as u64;
            self.roots.drain(1..n);
            self.roots[0] = m;
        }
    }

    /// At a top-level call over `window`: roots that ended before it
    /// started had no dep-0 parent; the others are its children.
    fn settle_roots(&mut self, window: Option<(i64, i64)>) {
        let Some((s, _)) = window else {
            self.roots.clear();
            return;
        };
        for r in self.roots.drain(..) {
            if r.last.is_some_and(|l| l < s) {
                self.orphans.calls += r.calls;
                self.orphans.e = self.orphans.e.saturating_add(r.e);
                self.orphans.c = self.orphans.c.saturating_add(r.c);
            }
        }
    }

    /// Settles every pending wait as between-call (folded ones included).
    /// At the end of a file, the roots left had no dep-0 parent.
    pub fn settle_all(&mut self, out: &mut Vec<Settled>) {
        for w in self.pending.drain(..) {
            out.push((w.event, 1, w.ela, false));
        }
        for (_, f) in self.folded.drain() {
            out.push((f.event, f.count, f.ela, false));
        }
    }

    /// End of the file: the roots left had no dep-0 parent.
    pub fn finish_roots(&mut self) {
        for r in self.roots.drain(..) {
            self.orphans.calls += r.calls;
            self.orphans.e = self.orphans.e.saturating_add(r.e);
            self.orphans.c = self.orphans.c.saturating_add(r.c);
        }
    }

    /// The depth taken as top level: 0, or the smallest depth with calls.
    pub fn top_depth(&self) -> usize {
        self.depth.iter().position(|d| d.calls > 0).unwrap_or(0)
    }

    /// Calls at every depth.
    pub fn calls(&self) -> u64 {
        self.depth.iter().map(|d| d.calls).sum()
    }
}

/// A wait's midpoint from its end time and duration, µs.
#[inline]
fn midpoint(tim: i64, ela: i64) -> i64 {
    tim.saturating_sub(ela.max(0) / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cls(_: u32) -> EventClass {
        EventClass::default()
    }

    #[test]
    fn waits_inside_the_call_interval_are_claimed_others_are_between() {
        let mut s = Session::new("t".into());
        let mut out = Vec::new();
        // A client round trip that ended before the FETCH started.
        s.wait(Some(900), 50, 0, 1);
        // A read inside the FETCH (FETCH ran 950..1000).
        s.wait(Some(980), 30, 1, 1);
        s.call(
            CallTimes {
                cursor: 1,
                dep: 0,
                e: 50,
                c: 10,
                tim: Some(1000),
            },
            cls,
            &mut out,
        );
        assert_eq!(out, vec![(1, 1, 30, true), (0, 1, 50, false)]);
    }

    #[test]
    fn recursive_calls_claim_their_waits_and_the_parent_the_rest() {
        let mut s = Session::new("t".into());
        let mut out = Vec::new();
        s.wait(Some(110), 10, 0, 2); // inside child 100..120
        s.call(
            CallTimes {
                cursor: 2,
                dep: 1,
                e: 20,
                c: 5,
                tim: Some(120),
            },
            cls,
            &mut out,
        );
        s.wait(Some(150), 25, 0, 1); // inside parent only
        s.call(
            CallTimes {
                cursor: 1,
                dep: 0,
                e: 100,
                c: 20,
                tim: Some(200),
            },
            cls,
            &mut out,
        );
        assert_eq!(out, vec![(0, 1, 10, true), (0, 1, 25, true)]);
        assert_eq!(s.top_depth(), 0);
        assert_eq!(s.depth[0].e, 100);
    }

    #[test]
    fn without_tim_a_call_claims_its_own_cursor() {
        let mut s = Session::new("t".into());
        let mut out = Vec::new();
        s.wait(None, 7, 0, 3);
        s.wait(None, 9, 0, 4);
        s.call(
            CallTimes {
                cursor: 3,
                dep: 1,
                e: 10,
                c: 1,
                tim: None,
            },
            cls,
            &mut out,
        );
        assert_eq!(out, vec![(0, 1, 7, true)]);
        s.call(
            CallTimes {
                cursor: 5,
                dep: 0,
                e: 30,
                c: 1,
                tim: None,
            },
            cls,
            &mut out,
        );
        assert_eq!(out, vec![(0, 1, 7, true), (0, 1, 9, true)]);
    }
}
