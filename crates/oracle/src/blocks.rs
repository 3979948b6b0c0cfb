//! Per-block hot-spot counting (file#, block#) that stays cheap on traces
//! with millions of block-addressed waits.
//!
//! A plain hash map from (file#, block#) to (count, total) costs one cache
//! miss per wait once the table outgrows the CPU caches: on the 225 MB
//! test file (1.8 M waits, 29 k distinct blocks) that was 40 % of the parse
//! time, about 160 ns per wait. Here waits are first appended to one of
//! `PARTS` small buffers chosen by the key's hash (sequential writes),
//! and a full buffer is folded into that partition's own map, which is a
//! 1/`PARTS` slice of the whole table and so stays in cache during the
//! fold (radix-partitioned aggregation). Results are exact; memory is
//! bounded by the buffers plus at most [`crate::aggregate::MAX_BLOCKS`]
//! distinct blocks (beyond that new blocks are dropped and the table is
//! marked incomplete, as before).
//!
//! Each partition's table is a plain open-addressing array ([`Table`]:
//! linear probing, a multiplicative hash, 24-byte slots, allocated at the
//! first block of its partition) rather than a general hash map: a fold
//! costs one multiplication and, mostly, one compare per wait (hashbrown's
//! group probe, tag match and entry API cost about four times the
//! instructions; the per-block table was 13 % of the parse time of the
//! I/O-heavy fixture family).

use crate::aggregate::MAX_BLOCKS;
use rustc_hash::FxHashMap;

/// Number of partitions (a power of two). 16, 64 and 256 partitions ran
/// equally fast on the 225 MB test file; 64 keeps the buffers at 384 KiB.
const PARTS: usize = 64;
/// Waits buffered per partition before a fold.
const BUF: usize = 256;

type Key = (i64, i64);

/// Bits of a packed key for the block number (2^44 blocks: bigfile
/// tablespaces have 2^32); the file number gets the other 20 (Oracle
/// allows 65,533 files).
const BLOCK_BITS: u32 = 44;

/// (file#, block#) in one `u64` when both fit (always, in real traces):
/// one word to hash and compare instead of two, and 24-byte map entries
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
/// of `key * HASH` pick the partition, the bits below them the slot.
const HASH: u64 = 0x9E37_79B9_7F4A_7C15;
/// Bits of the hash that pick the partition (`PARTS` = 2^6).
const PART_BITS: u32 = PARTS.trailing_zeros();

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
    /// Slot index bits of a table of `2^bits` slots: the hash bits just
    /// below the partition's.
    #[inline]
    fn home(&self, h: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        ((h << PART_BITS) >> (64 - bits)) as usize
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

#[derive(Default, Clone, Debug)]
struct Part {
    pending: Vec<(u64, i64)>,
    table: Table,
}

/// Counts and total wait time per (file#, block#).
#[derive(Clone, Debug)]
pub struct BlockCounter {
    parts: Vec<Part>,
    /// Keys that do not pack (a negative or garbled file# or block#).
    odd: FxHashMap<Key, (u64, i64)>,
    distinct: usize,
    complete: bool,
}

impl Default for BlockCounter {
    fn default() -> Self {
        Self {
            parts: vec![Part::default(); PARTS],
            odd: FxHashMap::default(),
            distinct: 0,
            complete: true,
        }
    }
}

/// The partition of a packed key: the top bits of its hash (the slot
/// within the partition's table comes from the bits below them).
#[inline]
fn part_of(k: u64) -> usize {
    (k.wrapping_mul(HASH) >> (64 - PART_BITS)) as usize
}

impl BlockCounter {
    /// Counts one wait of `ela` on a block.
    #[inline]
    pub fn add(&mut self, file: i64, block: i64, ela: i64) {
        self.add_n((file, block), 1, ela);
    }

    fn add_n(&mut self, (file, block): Key, n: u64, ela: i64) {
        let Some(k) = pack(file, block) else {
            if let Some(x) = self.odd.get_mut(&(file, block)) {
                x.0 += n;
                x.1 = x.1.saturating_add(ela);
            } else if self.distinct < MAX_BLOCKS {
                self.odd.insert((file, block), (n, ela));
                self.distinct += 1;
            } else {
                self.complete = false;
            }
            return;
        };
        let p = part_of(k);
        if n == 1 {
            let part = &mut self.parts[p];
            part.pending.push((k, ela));
            if part.pending.len() >= BUF {
                self.fold(p);
            }
        } else {
            self.fold(p);
            self.insert(p, k, n, ela);
        }
    }

    fn insert(&mut self, p: usize, k: u64, n: u64, ela: i64) {
        let room = self.distinct < MAX_BLOCKS;
        match self.parts[p]
            .table
            .add(k, k.wrapping_mul(HASH), n, ela, room)
        {
            Some(true) => self.distinct += 1,
            Some(false) => {}
            None => self.complete = false,
        }
    }

    fn fold(&mut self, p: usize) {
        let Part { pending, table } = &mut self.parts[p];
        for &(k, ela) in pending.iter() {
            let room = self.distinct < MAX_BLOCKS;
            match table.add(k, k.wrapping_mul(HASH), 1, ela, room) {
                Some(true) => self.distinct += 1,
                Some(false) => {}
                None => self.complete = false,
            }
        }
        pending.clear();
    }

    /// Adds another counter's blocks into this one.
    pub fn merge(&mut self, mut other: BlockCounter) {
        self.complete &= other.complete;
        for p in 0..PARTS {
            other.fold(p);
            self.fold(p);
            for (k, (n, ela)) in std::mem::take(&mut other.parts[p].table).into_iter() {
                self.insert(p, k, n, ela);
            }
        }
        for (k, (n, ela)) in std::mem::take(&mut other.odd) {
            self.add_n(k, n, ela);
        }
    }

    /// Whether no block was dropped for lack of room.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Every block with its (count, total), in no particular order.
    pub fn into_entries(mut self) -> impl Iterator<Item = (Key, (u64, i64))> {
        for p in 0..PARTS {
            self.fold(p);
        }
        self.parts
            .into_iter()
            .flat_map(|p| p.table.into_iter().map(|(k, v)| (unpack(k), v)))
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
