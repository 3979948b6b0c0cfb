//! The buffer cache: B buffers of 8 KiB split across L LRU lists, each list
//! behind its own mutex (Oracle's 'cache buffers lru chain' latch).
//!
//! A block always lives on list `block % L`, the way InnoDB maps a page to a
//! buffer pool instance by hashing its page id, so a foreground takes one
//! list lock per touch and never two at once. Each list keeps a direct map
//! from its blocks to its buffers (4 bytes per datafile block: 512 KiB for a
//! 1 GiB datafile), an intrusive doubly linked LRU order over its buffer
//! headers, and a count of dirty buffers. Nothing here allocates after
//! [`BufferCache::new`].
//!
//! Buffer memory is one 4 KiB-aligned allocation (O_DIRECT ready); each
//! buffer's bytes are shared under these rules, which make the raw-pointer
//! accesses sound:
//! * a foreground changes a buffer's bytes only while it holds the list lock
//!   and the buffer is neither `in_write` nor `reading`;
//! * the foreground that set `reading` (under the lock) fills the buffer
//!   from the datafile without the lock; nobody else touches it until the
//!   flag is cleared under the lock;
//! * a writer reads a buffer's bytes without the lock only while it has set
//!   `in_write` on it (under the lock), which stops every change.
//!
//! The lock hand-offs give the happens-before edges between these phases.

use super::block::BLOCK_SIZE;
use dbio_engine::buf::AlignedBuf;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Marks "no buffer" in a list's block map and its LRU links.
pub(crate) const NIL: u32 = u32::MAX;
/// A header's block number when the buffer holds no block.
pub(crate) const NO_BLOCK: u64 = u64::MAX;

/// A buffer header (Oracle's X$BH row, reduced to what the model uses).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header {
    /// The block it holds, or [`NO_BLOCK`].
    pub block: u64,
    /// The block's version (see `block.rs`).
    pub version: u64,
    /// Towards the hot (most recently used) end.
    pub prev: u32,
    /// Towards the cold (least recently used) end.
    pub next: u32,
    /// Changed since it was last written.
    pub dirty: bool,
    /// A writer has it in a batch that is in flight.
    pub in_write: bool,
    /// A foreground is filling it from the datafile.
    pub reading: bool,
}

impl Header {
    /// Whether a foreground may take it for another block.
    #[inline]
    pub fn reusable(&self) -> bool {
        !self.dirty && !self.in_write && !self.reading
    }
}

/// The part of a list its mutex protects.
pub(crate) struct ListState {
    /// One header per buffer of the list.
    pub hdrs: Vec<Header>,
    /// Local block index (`block / L`) → buffer, or [`NIL`].
    pub map: Vec<u32>,
    /// Most recently used buffer.
    pub hot: u32,
    /// Least recently used buffer: where writers and free-buffer searches start.
    pub cold: u32,
    /// Dirty buffers on the list.
    pub dirty: u32,
    /// Foregrounds waiting on the list's condition variable.
    pub waiters: u32,
}

impl ListState {
    /// None when the block map cannot be allocated.
    fn try_new(buffers: u32, map_len: usize) -> Option<Self> {
        let n = buffers as usize;
        let mut map = Vec::new();
        map.try_reserve_exact(map_len).ok()?;
        map.resize(map_len, NIL);
        let hdrs = (0..n)
            .map(|i| Header {
                block: NO_BLOCK,
                version: 0,
                prev: if i == 0 { NIL } else { i as u32 - 1 },
                next: if i + 1 == n { NIL } else { i as u32 + 1 },
                dirty: false,
                in_write: false,
                reading: false,
            })
            .collect();
        Some(ListState {
            hdrs,
            map,
            hot: 0,
            cold: buffers - 1,
            dirty: 0,
            waiters: 0,
        })
    }

    /// Moves buffer `i` to the hot end.
    #[inline]
    pub fn make_hot(&mut self, i: u32) {
        if self.hot == i {
            return;
        }
        let Header { prev, next, .. } = self.hdrs[i as usize];
        // i is not the hot end, so it has a prev.
        self.hdrs[prev as usize].next = next;
        if next == NIL {
            self.cold = prev;
        } else {
            self.hdrs[next as usize].prev = prev;
        }
        let old_hot = self.hot;
        self.hdrs[i as usize].prev = NIL;
        self.hdrs[i as usize].next = old_hot;
        self.hdrs[old_hot as usize].prev = i;
        self.hot = i;
    }
}

/// One LRU list: its lock, its condition variable (free buffer, write
/// complete and read-by-other waits all sleep here) and its buffers.
///
/// Aligned to 128 bytes so two lists' locks never share a cache line (or an
/// adjacent-line prefetch pair).
#[repr(align(128))]
pub(crate) struct LruList {
    pub state: Mutex<ListState>,
    pub cond: Condvar,
    /// First byte of this list's buffers.
    mem: *mut u8,
    /// Buffers on the list.
    pub len: u32,
}

impl LruList {
    /// Locks the list. A poisoned lock means a thread panicked mid-update;
    /// the state may be inconsistent, so the panic is propagated.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, ListState> {
        self.state.lock().expect("an LRU list lock was poisoned")
    }

    /// Buffer `i`'s memory.
    #[inline]
    pub fn buf_ptr(&self, i: u32) -> *mut u8 {
        debug_assert!(i < self.len);
        // SAFETY: i < len and the list owns len consecutive buffers.
        unsafe { self.mem.add(i as usize * BLOCK_SIZE) }
    }

    /// Buffer `i`'s bytes, mutably.
    ///
    /// # Safety
    /// The caller must have the exclusive right to the bytes under the
    /// rules in the module documentation.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn buf_mut(&self, i: u32) -> &mut [u8] {
        std::slice::from_raw_parts_mut(self.buf_ptr(i), BLOCK_SIZE)
    }

    /// Buffer `i`'s bytes.
    ///
    /// # Safety
    /// Nobody may change the bytes while the slice lives (module rules).
    #[inline]
    pub unsafe fn buf(&self, i: u32) -> &[u8] {
        std::slice::from_raw_parts(self.buf_ptr(i), BLOCK_SIZE)
    }
}

/// The buffer cache.
pub struct BufferCache {
    pub(crate) lists: Vec<LruList>,
    blocks: u64,
    /// Keeps the buffer memory alive; accessed through the lists' pointers.
    _mem: AlignedBuf,
}

// SAFETY: the raw pointers point into `_mem`, which the cache owns and
// never reallocates; concurrent access follows the module's rules, and all
// header state is behind the per-list mutexes.
unsafe impl Send for BufferCache {}
// SAFETY: as above.
unsafe impl Sync for BufferCache {}

impl BufferCache {
    /// A cache of `buffers` buffers over `lists` lists for a datafile of
    /// `blocks` blocks. The last list takes the remainder of an uneven split.
    pub fn new(buffers: u32, lists: u32, blocks: u64) -> Self {
        Self::try_new(buffers, lists, blocks).expect("a small buffer cache")
    }

    /// [`BufferCache::new`], or the sentence saying that its memory could
    /// not be allocated.
    pub fn try_new(buffers: u32, lists: u32, blocks: u64) -> Result<Self, String> {
        assert!(lists >= 1 && buffers >= lists, "validated by DbwrConfig");
        let bytes = buffers as usize * BLOCK_SIZE;
        let mut mem = AlignedBuf::try_new(bytes).ok_or_else(|| {
            format!(
                "could not allocate the {} buffer cache: out of memory",
                dbio_model::units::format_bytes(bytes as u64)
            )
        })?;
        let map_len = blocks.div_ceil(u64::from(lists)) as usize;
        let base = mem.as_mut_ptr();
        let per = buffers / lists;
        let mut first = 0usize;
        let lists = (0..lists)
            .map(|l| {
                let len = if l + 1 == lists {
                    buffers - per * (lists - 1)
                } else {
                    per
                };
                // SAFETY: first + len <= buffers, all within the allocation.
                let mem = unsafe { base.add(first * BLOCK_SIZE) };
                first += len as usize;
                let state = ListState::try_new(len, map_len).ok_or_else(|| {
                    format!(
                        "could not allocate the block map of a {blocks}-block datafile: out of memory"
                    )
                })?;
                Ok(LruList {
                    state: Mutex::new(state),
                    cond: Condvar::new(),
                    mem,
                    len,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(BufferCache {
            lists,
            blocks,
            _mem: mem,
        })
    }

    /// Number of LRU lists.
    pub fn list_count(&self) -> u32 {
        self.lists.len() as u32
    }

    /// Blocks in the datafile.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The list that holds `block`, and the block's index in its map.
    #[inline]
    pub fn home(&self, block: u64) -> (u32, usize) {
        let n = self.lists.len() as u64;
        ((block % n) as u32, (block / n) as usize)
    }

    /// Dirty buffers over all lists (takes each lock in turn).
    pub fn dirty_buffers(&self) -> u64 {
        self.lists.iter().map(|l| u64::from(l.lock().dirty)).sum()
    }

    /// The cached blocks with their versions and dirty flags, list by list
    /// (for tests and the shutdown check; takes each lock in turn).
    pub fn contents(&self) -> Vec<CachedBlock> {
        let mut out = Vec::new();
        for (l, list) in self.lists.iter().enumerate() {
            let st = list.lock();
            for (i, h) in st.hdrs.iter().enumerate() {
                if h.block != NO_BLOCK && !h.reading {
                    out.push(CachedBlock {
                        list: l as u32,
                        buffer: i as u32,
                        block: h.block,
                        version: h.version,
                        dirty: h.dirty,
                    });
                }
            }
        }
        out
    }

    /// A copy of one cached buffer's bytes (None when the buffer is being
    /// read in). Takes the list lock; the copy is consistent because
    /// changes happen only under that lock.
    pub fn buffer_bytes(&self, list: u32, buffer: u32) -> Option<Vec<u8>> {
        let l = &self.lists[list as usize];
        let st = l.lock();
        if st.hdrs[buffer as usize].reading {
            return None;
        }
        // SAFETY: we hold the lock and the buffer is not being read into;
        // a writer may be reading it, which does not conflict with reading.
        Some(unsafe { l.buf(buffer) }.to_vec())
    }

    /// The LRU order of a list from hot to cold, as block numbers
    /// (`NO_BLOCK` for empty buffers): for tests.
    pub fn lru_order(&self, list: u32) -> Vec<u64> {
        let st = self.lists[list as usize].lock();
        let mut out = Vec::with_capacity(st.hdrs.len());
        let mut i = st.hot;
        while i != NIL {
            out.push(st.hdrs[i as usize].block);
            i = st.hdrs[i as usize].next;
        }
        out
    }
}

/// One cached block, as [`BufferCache::contents`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachedBlock {
    /// Its LRU list.
    pub list: u32,
    /// Its buffer on that list.
    pub buffer: u32,
    /// The block number.
    pub block: u64,
    /// Its version in memory.
    pub version: u64,
    /// Whether it is dirty.
    pub dirty: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_buffers_and_keep_an_lru_order() {
        let c = BufferCache::new(10, 3, 100);
        let lens: Vec<u32> = c.lists.iter().map(|l| l.len).collect();
        assert_eq!(lens, vec![3, 3, 4]);
        assert_eq!(c.home(7), (1, 2));
        // Buffer memory of consecutive lists is contiguous and aligned.
        assert_eq!(c.lists[1].buf_ptr(0) as usize % 4096, 0);
        assert_eq!(
            c.lists[1].buf_ptr(0) as usize - c.lists[0].buf_ptr(0) as usize,
            3 * BLOCK_SIZE
        );
        let l = &c.lists[2];
        let mut st = l.lock();
        for (i, b) in [10u64, 11, 12, 13].iter().enumerate() {
            st.hdrs[i].block = *b;
        }
        st.make_hot(3);
        st.make_hot(1);
        st.make_hot(1);
        drop(st);
        assert_eq!(c.lru_order(2), vec![11, 13, 10, 12]);
        let st = l.lock();
        assert_eq!(st.hdrs[st.cold as usize].block, 12);
        assert_eq!(st.hdrs[st.hot as usize].prev, NIL);
    }
}
