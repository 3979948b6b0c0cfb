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

/// Pending waits kept at most; beyond that the oldest are settled as
/// between-call (memory stays bounded on a file of waits without calls).
pub const MAX_PENDING: usize = 1 << 16;

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

/// How a settled wait counted: `(event, ela, inside_a_call)`.
pub type Settled = (u32, i64, bool);

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

    /// Records a wait (µs) as pending. Returns settled waits when the
    /// pending buffer overflowed.
    pub fn wait(
        &mut self,
        tim: Option<i64>,
        ela: i64,
        event: u32,
        cursor: u64,
        out: &mut Vec<Settled>,
    ) {
        self.active = true;
        self.waits += 1;
        self.wait_us = self.wait_us.saturating_add(ela);
        self.pending.push(Pending {
            tim,
            ela,
            event,
            cursor,
            claimed: false,
        });
        if self.pending.len() > MAX_PENDING {
            let drained: Vec<Pending> = self.pending.drain(..MAX_PENDING / 2).collect();
            for p in drained {
                out.push((p.event, p.ela, false));
            }
        }
    }

    /// Records a call (µs values), claims the waits inside it and, for a
    /// dep-0 call, settles every earlier wait as between-call. `class` gives
    /// an event's class by id. Settled waits are appended to `out`.
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
        let mut any = false;
        for w in self.pending.iter_mut().rev() {
            match (w.tim, window) {
                (Some(wt), Some((s, t))) => {
                    if wt < s {
                        break;
                    }
                    if wt <= t {
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
        }
        if any {
            for w in self.pending.iter().filter(|w| w.claimed) {
                out.push((w.event, w.ela, true));
            }
            self.pending.retain(|w| !w.claimed);
        }
        if top {
            self.settle_all(out);
        }
    }

    /// Settles every pending wait as between-call.
    pub fn settle_all(&mut self, out: &mut Vec<Settled>) {
        for w in self.pending.drain(..) {
            out.push((w.event, w.ela, false));
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
        s.wait(Some(900), 50, 0, 1, &mut out);
        // A read inside the FETCH (FETCH ran 950..1000).
        s.wait(Some(980), 30, 1, 1, &mut out);
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
        assert_eq!(out, vec![(1, 30, true), (0, 50, false)]);
    }

    #[test]
    fn recursive_calls_claim_their_waits_and_the_parent_the_rest() {
        let mut s = Session::new("t".into());
        let mut out = Vec::new();
        s.wait(Some(110), 10, 0, 2, &mut out); // inside child 100..120
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
        s.wait(Some(150), 25, 0, 1, &mut out); // inside parent only
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
        assert_eq!(out, vec![(0, 10, true), (0, 25, true)]);
        assert_eq!(s.top_depth(), 0);
        assert_eq!(s.depth[0].e, 100);
    }

    #[test]
    fn without_tim_a_call_claims_its_own_cursor() {
        let mut s = Session::new("t".into());
        let mut out = Vec::new();
        s.wait(None, 7, 0, 3, &mut out);
        s.wait(None, 9, 0, 4, &mut out);
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
        assert_eq!(out, vec![(0, 7, true)]);
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
        assert_eq!(out, vec![(0, 7, true), (0, 9, true)]);
    }
}
