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

use crate::aggregate::MAX_BLOCKS;
use rustc_hash::FxHashMap;
use std::hash::{BuildHasher, BuildHasherDefault};

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

#[derive(Default, Clone, Debug)]
struct Part {
    pending: Vec<(u64, i64)>,
    map: FxHashMap<u64, (u64, i64)>,
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

/// The partition of a packed key: bits 32 and up of its hash. Not the
/// top bits: hashbrown keeps the top 7 as each entry's tag, and a
/// partition whose keys share 6 of them gets tags that match on almost
/// every probe. Not the low bits either: they pick the bucket.
#[inline]
fn part_of(k: u64) -> usize {
    let h = BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(k);
    ((h >> 32) as usize) & (PARTS - 1)
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
        let part = &mut self.parts[p];
        if let Some(x) = part.map.get_mut(&k) {
            x.0 += n;
            x.1 = x.1.saturating_add(ela);
        } else if self.distinct < MAX_BLOCKS {
            part.map.insert(k, (n, ela));
            self.distinct += 1;
        } else {
            self.complete = false;
        }
    }

    fn fold(&mut self, p: usize) {
        let mut pending = std::mem::take(&mut self.parts[p].pending);
        for (k, ela) in pending.drain(..) {
            self.insert(p, k, 1, ela);
        }
        self.parts[p].pending = pending;
    }

    /// Adds another counter's blocks into this one.
    pub fn merge(&mut self, mut other: BlockCounter) {
        self.complete &= other.complete;
        for p in 0..PARTS {
            other.fold(p);
            self.fold(p);
            for (k, (n, ela)) in std::mem::take(&mut other.parts[p].map) {
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
            .flat_map(|p| p.map.into_iter().map(|(k, v)| (unpack(k), v)))
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
