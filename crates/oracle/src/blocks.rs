//! Per-block hot-spot counting (file#, block#) that stays cheap on traces
//! with millions of block-addressed waits.
//!
//! A hash table from (file#, block#) to (count, total) costs one cache
//! miss per wait once it outgrows the CPU caches (29 k distinct blocks
//! already do on a loaded machine: about 160 ns per wait, 18 % of the parse
//! time of the I/O-heavy fixture family). Here the table is a plain
//! open-addressing array (`Table`: linear probing, a multiplicative
//! hash, 24-byte slots, allocated at the first block) and each wait is
//! applied `AHEAD` (8) waits late: `add` asks the CPU to prefetch the new
//! key's slot and applies the oldest held wait, whose slot was asked for
//! several WAIT lines earlier (more than a memory access), so the miss
//! overlaps the parsing of lines instead of stalling it.
//! Earlier versions buffered waits in 64 hash partitions and folded each
//! into its own map; under load the partitions' maps did not stay in cache
//! either, and the buffering cost instructions.
//!
//! Results are exact; memory is bounded by at most
//! [`crate::aggregate::MAX_BLOCKS`] distinct blocks (beyond that new blocks
//! are dropped and the table is marked incomplete).

use crate::aggregate::MAX_BLOCKS;
use rustc_hash::FxHashMap;

type Key = (i64, i64);

/// Bits of a packed key for the block number (2^44 blocks: bigfile
/// tablespaces have 2^32); the file number gets the other 20 (Oracle
/// allows 65,533 files).
const BLOCK_BITS: u32 = 44;

/// Waits held back while their slots are prefetched. One wait (one WAIT
/// line, about 100 ns once the parser got faster) was shorter than the
/// slot's load: that load was a quarter of the per-wait samples in `perf
/// annotate` on the pylatencymap data, and gone with 8.
const AHEAD: usize = 8;

/// (file#, block#) in one `u64` when both fit (always, in real traces):
/// one word to hash and compare instead of two, and 24-byte slots
/// instead of 32.
#[inline]
fn pack(file: i64, block: i64) -> Option<u64> {
    ((0..1 << (64 - BLOCK_BITS)).contains(&file) && (0..1 << BLOCK_BITS).contains(&block))
        .then_some(((file as u64) << BLOCK_BITS) | block as u64)
}

#[inline]
fn unpack(k: u64) -> Key {
    (
        (k >> BLOCK_BITS) as i64,
        (k & ((1 << BLOCK_BITS) - 1)) as i64,
    )
}

/// Golden-ratio multiplier (Knuth's multiplicative hashing): the top bits
/// of `key * HASH` pick the slot.
const HASH: u64 = 0x9E37_79B9_7F4A_7C15;

/// One block's counts; `count == 0` marks an empty slot (every key,
/// `u64::MAX` included, can be a real block).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u64,
    count: u64,
    total: i64,
}

/// An open-addressing table from packed key to (count, total): linear
/// probing, at most 3/4 full, doubled when it would be fuller.
#[derive(Clone, Debug, Default)]
struct Table {
    slots: Vec<Slot>,
    len: usize,
}

impl Table {
    /// Home slot of hash `h` in a table of `2^bits` slots: the top bits.
    #[inline]
    fn home(&self, h: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (h >> (64 - bits)) as usize
    }

    /// Asks the CPU to bring `key`'s home slot into cache (see the module
    /// documentation); no effect on the table.
    #[inline]
    fn prefetch(&self, h: u64) {
        if self.slots.is_empty() {
            return;
        }
        let p = self.slots.as_ptr().wrapping_add(self.home(h));
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint; it never faults and reads nothing
        // the program sees, whatever the address (here one inside the
        // table).
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }

    /// Adds `n` waits of `ela` total to `key` (hash `h`). A new key is
    /// taken only when `room`; returns whether a new key was taken, or
    /// `None` when it was refused.
    #[inline]
    fn add(&mut self, key: u64, h: u64, n: u64, ela: i64, room: bool) -> Option<bool> {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            if !room {
                return self.add_existing(key, h, n, ela).then_some(false);
            }
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(h);
        loop {
            let s = &mut self.slots[i];
            if s.count == 0 {
                if !room {
                    return None;
                }
                *s = Slot {
                    key,
                    count: n,
                    total: ela,
                };
                self.len += 1;
                return Some(true);
            }
            if s.key == key {
                s.count += n;
                s.total = s.total.saturating_add(ela);
                return Some(false);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds to a key already in the table (no room for new ones).
    fn add_existing(&mut self, key: u64, h: u64, n: u64, ela: i64) -> bool {
        if self.slots.is_empty() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(h);
        loop {
            let s = &mut self.slots[i];
            if s.count == 0 {
                return false;
            }
            if s.key == key {
                s.count += n;
                s.total = s.total.saturating_add(ela);
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether `key` has a slot.
    fn contains(&self, key: u64) -> bool {
        if self.slots.is_empty() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key.wrapping_mul(HASH));
        loop {
            let s = &self.slots[i];
            if s.count == 0 {
                return false;
            }
            if s.key == key {
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap]);
        let mask = cap - 1;
        for s in old.into_iter().filter(|s| s.count > 0) {
            let mut i = self.home(s.key.wrapping_mul(HASH));
            while self.slots[i].count != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    fn into_iter(self) -> impl Iterator<Item = (u64, (u64, i64))> {
        self.slots
            .into_iter()
            .filter(|s| s.count > 0)
            .map(|s| (s.key, (s.count, s.total)))
    }
}

/// Counts and total wait time per (file#, block#).
#[derive(Clone, Debug)]
pub struct BlockCounter {
    table: Table,
    /// Waits not yet applied (key, ela), oldest at `head`: their slots are
    /// being prefetched.
    pending: [(u64, i64); AHEAD],
    head: usize,
    held: usize,
    /// Keys that do not pack (a negative or garbled file# or block#).
    odd: FxHashMap<Key, (u64, i64)>,
    distinct: usize,
    complete: bool,
}

impl Default for BlockCounter {
    fn default() -> Self {
        Self {
            table: Table::default(),
            pending: [(0, 0); AHEAD],
            head: 0,
            held: 0,
            odd: FxHashMap::default(),
            distinct: 0,
            complete: true,
        }
    }
}

impl BlockCounter {
    /// Counts one wait of `ela` on a block.
    #[inline]
    pub fn add(&mut self, file: i64, block: i64, ela: i64) {
        let Some(k) = pack(file, block) else {
            self.add_odd((file, block), 1, ela);
            return;
        };
        self.table.prefetch(k.wrapping_mul(HASH));
        if self.held == AHEAD {
            let (old_k, old_ela) = std::mem::replace(&mut self.pending[self.head], (k, ela));
            self.head = (self.head + 1) % AHEAD;
            self.insert(old_k, 1, old_ela);
        } else {
            self.pending[(self.head + self.held) % AHEAD] = (k, ela);
            self.held += 1;
        }
    }

    /// Applies the waits held back for their prefetch but the newest
    /// `keep`, oldest first.
    fn flush_but(&mut self, keep: usize) {
        while self.held > keep {
            let (k, ela) = self.pending[self.head];
            self.head = (self.head + 1) % AHEAD;
            self.held -= 1;
            self.insert(k, 1, ela);
        }
    }

    /// Applies every wait held back.
    fn flush(&mut self) {
        self.flush_but(0);
    }

    /// The held-back waits, oldest first.
    fn held_keys(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.held).map(|j| self.pending[(self.head + j) % AHEAD].0)
    }

    fn add_n(&mut self, (file, block): Key, n: u64, ela: i64) {
        match pack(file, block) {
            Some(k) => self.insert(k, n, ela),
            None => self.add_odd((file, block), n, ela),
        }
    }

    /// A key that does not pack, counted at once. The held-back waits
    /// but the newest are applied first: the table then takes keys in the
    /// order it did when one wait was held back, so which blocks are kept
    /// once [`MAX_BLOCKS`] is reached does not depend on [`AHEAD`].
    #[cold]
    fn add_odd(&mut self, key: Key, n: u64, ela: i64) {
        self.flush_but(1);
        if let Some(x) = self.odd.get_mut(&key) {
            x.0 += n;
            x.1 = x.1.saturating_add(ela);
        } else if self.distinct < MAX_BLOCKS {
            self.odd.insert(key, (n, ela));
            self.distinct += 1;
        } else {
            self.complete = false;
        }
    }

    #[inline]
    fn insert(&mut self, k: u64, n: u64, ela: i64) {
        let room = self.distinct < MAX_BLOCKS;
        match self.table.add(k, k.wrapping_mul(HASH), n, ela, room) {
            Some(true) => self.distinct += 1,
            Some(false) => {}
            None => self.complete = false,
        }
    }

    /// Adds another counter's blocks into this one.
    pub fn merge(&mut self, mut other: BlockCounter) {
        self.complete &= other.complete;
        self.flush();
        other.flush();
        for (k, (n, ela)) in std::mem::take(&mut other.table).into_iter() {
            self.insert(k, n, ela);
        }
        for (k, (n, ela)) in std::mem::take(&mut other.odd) {
            self.add_n(k, n, ela);
        }
    }

    /// Whether no block was dropped for lack of room.
    pub fn is_complete(&self) -> bool {
        // The held-back waits, applied in order, find room unless the
        // table fills up.
        let mut distinct = self.distinct;
        let mut taken = [0u64; AHEAD];
        let mut n_taken = 0;
        for k in self.held_keys() {
            if self.table.contains(k) || taken[..n_taken].contains(&k) {
                continue;
            }
            if distinct >= MAX_BLOCKS {
                return false;
            }
            distinct += 1;
            taken[n_taken] = k;
            n_taken += 1;
        }
        self.complete
    }

    /// Every block with its (count, total), in no particular order.
    pub fn into_entries(mut self) -> impl Iterator<Item = (Key, (u64, i64))> {
        self.flush();
        self.table
            .into_iter()
            .map(|(k, v)| (unpack(k), v))
            .chain(self.odd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_exactly_across_folds_and_merges() {
        let mut a = BlockCounter::default();
        let mut b = BlockCounter::default();
        for i in 0..10_000i64 {
            a.add(1, i % 1000, 2);
            b.add(1, i % 500, 3);
        }
        a.merge(b);
        let mut e: Vec<_> = a.into_entries().collect();
        e.sort();
        assert_eq!(e.len(), 1000);
        // Blocks 0..500: 10 waits of 2 from a and 20 of 3 from b.
        assert_eq!(e[0], ((1, 0), (30, 80)));
        assert_eq!(e[999], ((1, 999), (10, 20)));
    }

    /// The open-addressing tables agree with a plain hash map through
    /// many doublings, keys that share their home slot, and a merge.
    #[test]
    fn tables_agree_with_a_hash_map() {
        let mut want: std::collections::HashMap<(i64, i64), (u64, i64)> = Default::default();
        let (mut a, mut b) = (BlockCounter::default(), BlockCounter::default());
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..300_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Half the waits on 5,000 hot blocks, half spread wide; some keys
            // a multiple of 2^40 apart (same low bits).
            let (f, blk) = match i % 4 {
                0 | 1 => ((x % 7) as i64, (x % 5000) as i64),
                2 => ((x % 1000) as i64, (x >> 24) as i64 & ((1 << 44) - 1)),
                _ => (((x % 3) << 10) as i64, ((x % 64) << 30) as i64),
            };
            let ela = (x % 1000) as i64;
            let e = want.entry((f, blk)).or_default();
            e.0 += 1;
            e.1 += ela;
            if i % 3 == 0 {
                a.add(f, blk, ela)
            } else {
                b.add(f, blk, ela)
            }
        }
        a.merge(b);
        assert!(a.is_complete());
        let mut got: Vec<_> = a.into_entries().collect();
        got.sort();
        let mut want: Vec<_> = want.into_iter().collect();
        want.sort();
        assert_eq!(got, want);
    }

    /// At the cap, held-back waits decide completeness in their order,
    /// and an odd key between packed ones is taken where it came (so which
    /// keys fit does not depend on how many waits are held back).
    #[test]
    fn the_cap_counts_held_back_waits_in_order() {
        let mut a = BlockCounter::default();
        for b in 0..MAX_BLOCKS as i64 - 1 {
            a.add(1, b, 1);
        }
        assert!(a.is_complete());
        // One new block fits, and the same one again.
        a.add(2, 0, 1);
        let mut c = a.clone();
        c.add(2, 0, 1);
        assert!(a.is_complete() && c.is_complete());
        // A second does not.
        a.add(2, 1, 1);
        assert!(!a.is_complete());
        // An odd key comes after (2, 0) took the last room, as it did
        // when one wait was held back: it is dropped, (2, 0) kept.
        a.add(-1, 0, 1);
        let e: Vec<_> = a.into_entries().collect();
        assert_eq!(e.len(), MAX_BLOCKS);
        assert!(e.contains(&((2, 0), (1, 1))));
        assert!(!e.iter().any(|x| x.0 == (2, 1) || x.0 == (-1, 0)));
    }

    #[test]
    fn keys_that_do_not_pack_are_counted_apart() {
        let mut a = BlockCounter::default();
        for (f, b) in [
            (-1, 5),
            (1 << 20, 5),
            (3, 1 << 44),
            (3, (1 << 44) - 1),
            ((1 << 20) - 1, 0),
        ] {
            a.add(f, b, 7);
            a.add(f, b, 1);
        }
        let mut e: Vec<_> = a.into_entries().collect();
        e.sort();
        assert_eq!(
            e,
            vec![
                ((-1, 5), (2, 8)),
                ((3, (1 << 44) - 1), (2, 8)),
                ((3, 1 << 44), (2, 8)),
                (((1 << 20) - 1, 0), (2, 8)),
                ((1 << 20, 5), (2, 8)),
            ]
        );
    }
}
