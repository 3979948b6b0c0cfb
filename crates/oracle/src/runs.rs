//! Waits added up per run of equal keys before they reach a table.
//!
//! Consecutive WAIT lines mostly name the same object, file, statement and
//! event (a full scan reads one segment of one file for one cursor), yet
//! each wait used to probe the objects and files hash maps and search the
//! statement's per-event list. A [`Run`] holds the waits of one key until
//! the key changes; then one probe adds them all.
//!
//! Exact: counts and maxima add up in any grouping, and so do the
//! saturating sums, because a run only takes waits of `ela ≥ 0` and stops
//! before its own sum nears the `i64` range (adding non-negative values
//! to a total `T` saturates at `min(i64::MAX, T + Σ)` in any grouping).
//! A table capped at a number of keys admits the same keys, because no
//! other key of that table arrives between a run's first wait and its
//! flush.

use crate::aggregate::WaitCell;

/// A run stops taking waits once its sum is above this (µs; far from
/// `i64::MAX`, so the sum itself never saturates).
const RUN_TOTAL_MAX: i64 = 1 << 62;

/// Waits of one key and event not yet added to their table.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Run<K> {
    pub(crate) key: K,
    pub(crate) ev: u32,
    /// Waits; 0: empty.
    pub(crate) n: u64,
    pub(crate) total: i64,
    pub(crate) max: i64,
    /// Σ blocks (file runs).
    pub(crate) blocks: u64,
}

impl<K: Copy + PartialEq> Run<K> {
    /// Adds a wait to the run when it continues it (same key and event, a
    /// non-negative `ela`, room in the sum); otherwise returns the run so
    /// far (if any) for the caller to add to its table and starts a new
    /// one with this wait.
    #[inline]
    pub(crate) fn push(&mut self, key: K, ev: u32, ela: i64, blocks: u64) -> Option<Run<K>> {
        if self.n > 0
            && self.key == key
            && self.ev == ev
            && (0..=RUN_TOTAL_MAX).contains(&ela)
            && (0..=RUN_TOTAL_MAX).contains(&self.total)
        {
            self.n += 1;
            self.total += ela;
            self.max = self.max.max(ela);
            self.blocks = self.blocks.saturating_add(blocks);
            return None;
        }
        let done = self.take();
        *self = Run {
            key,
            ev,
            n: 1,
            total: ela,
            max: ela,
            blocks,
        };
        done
    }

    /// The run so far, leaving it empty.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<Run<K>> {
        if self.n == 0 {
            return None;
        }
        let r = *self;
        self.n = 0;
        Some(r)
    }
}

/// Adds a run's waits to the per-event list `v` (what `add_wait` does for
/// each of them).
pub(crate) fn add_run<K>(v: &mut Vec<WaitCell>, r: &Run<K>) {
    match v.iter_mut().find(|w| w.event == r.ev) {
        Some(w) => {
            w.count += r.n;
            w.total = w.total.saturating_add(r.total);
            w.max = w.max.max(r.max);
        }
        None => v.push(WaitCell {
            event: r.ev,
            count: r.n,
            total: r.total,
            max: r.max,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One wait into a per-event list: what the parser did per wait
    /// before runs.
    fn add_wait(v: &mut Vec<WaitCell>, event: u32, ela: i64) {
        match v.iter_mut().find(|w| w.event == event) {
            Some(w) => {
                w.count += 1;
                w.total = w.total.saturating_add(ela);
                w.max = w.max.max(ela);
            }
            None => v.push(WaitCell {
                event,
                count: 1,
                total: ela,
                max: ela,
            }),
        }
    }

    /// Runs give the lists that one `add_wait` per wait gives, whatever the
    /// keys, events and values (negative and huge ones included).
    #[test]
    fn runs_add_up_to_what_single_waits_do() {
        let mut x: u64 = 0x1234_5678_9ABC_DEF1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            let mut want: Vec<Vec<WaitCell>> = vec![Vec::new(); 3];
            let mut got: Vec<Vec<WaitCell>> = vec![Vec::new(); 3];
            let mut run = Run::<usize>::default();
            let start = if round % 2 == 0 { i64::MAX - 5 } else { 0 };
            for v in want.iter_mut().chain(got.iter_mut()) {
                v.push(WaitCell {
                    event: 9,
                    count: 1,
                    total: start,
                    max: 0,
                });
            }
            for _ in 0..300 {
                let r = next();
                let key = (r % 3) as usize;
                let ev = if r & 0x100 == 0 { 9 } else { 1 };
                let ela = match (r >> 10) % 8 {
                    0 => -((r >> 20) as i64 % 1000),
                    1 => 1 << 40,
                    2 => (1 << 62) - 3,
                    _ => (r >> 20) as i64 % 10_000,
                };
                // Long runs of one key, the way traces have them.
                let key = if r & 0xE000 == 0 { key } else { 0 };
                add_wait(&mut want[key], ev, ela);
                if let Some(done) = run.push(key, ev, ela, 1) {
                    add_run(&mut got[done.key], &done);
                }
            }
            if let Some(done) = run.take() {
                add_run(&mut got[done.key], &done);
            }
            for (g, w) in got.iter().zip(&want) {
                let key = |c: &WaitCell| (c.event, c.count, c.total, c.max);
                assert_eq!(
                    g.iter().map(key).collect::<Vec<_>>(),
                    w.iter().map(key).collect::<Vec<_>>(),
                    "round {round}"
                );
            }
        }
    }
}
