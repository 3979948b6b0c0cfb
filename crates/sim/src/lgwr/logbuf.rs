//! The log buffer: a bounded ring of redo bytes and the queue of commits
//! waiting for the log writer.
//!
//! A session reserves room and copies its record under one mutex (Oracle's
//! redo allocation and copy, folded together: the copy of a few KiB takes
//! about 100 ns, far below any write). When the ring is full the session
//! waits on a condition variable; that wait is 'log buffer space'. Room is
//! given back only when the write that covered it has completed, as in a
//! database, so a slow log device fills the buffer.
//!
//! The writer takes whole records only, up to the largest write, and copies
//! them out of the ring without holding the mutex: the taken region lies
//! between the free pointer (`tail`) and the append pointer (`head`), which
//! sessions never write. Each session has at most one commit pending, so
//! the queue never grows beyond the number of sessions and never allocates
//! after start.

use super::config::round_up;
use dbio_engine::clock::now_ns;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// A commit waiting for the writer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pending {
    /// Session index, from 0.
    pub session: u32,
    /// The commit's sequence number in its session, from 1.
    pub seq: u64,
    /// Log sequence number (byte position in the redo stream) of its record.
    pub lsn: u64,
    /// Record length, bytes.
    pub len: u32,
}

struct State {
    head: u64,
    tail: u64,
    queue: VecDeque<Pending>,
    writer_idle: bool,
    space_waiters: u32,
    closed: bool,
}

/// What [`LogBuffer::take`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// Records were taken: the redo stream from `lsn`, `bytes` long.
    Batch {
        /// First byte.
        lsn: u64,
        /// Redo bytes (unpadded).
        bytes: u64,
        /// When the writer took them (monotonic ns).
        t_pickup: u64,
    },
    /// Nothing pending (the writer may wait a moment, then [`LogBuffer::sleep_if_idle`]).
    Idle,
    /// The first pending record does not fit in the room left in the log file.
    NeedSwitch {
        /// Padded size of the smallest write that would make progress.
        next_write: u64,
    },
    /// Nothing pending and no session will commit again.
    Closed,
}

/// The shared log buffer.
pub struct LogBuffer {
    state: Mutex<State>,
    appends: AtomicU64,
    space: Condvar,
    ring: *mut u8,
    cap: u64,
}

// SAFETY: the ring is written only under the mutex in [head, ...) and read
// in [tail, head) outside it by one thread at a time (the log writer, or
// the leader holding the leader protocol's mutex); the two regions are
// disjoint by the space accounting, and `tail` only moves forward after the
// writer is done reading.
unsafe impl Sync for LogBuffer {}
// SAFETY: as above; the raw pointer owns a heap allocation.
unsafe impl Send for LogBuffer {}

impl Drop for LogBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` as a boxed slice of `cap` bytes.
        unsafe {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                self.ring,
                self.cap as usize,
            )))
        };
    }
}

impl LogBuffer {
    /// A buffer of `cap` bytes for `sessions` sessions. Only for small,
    /// fixed sizes: aborts when memory is exhausted (see [`LogBuffer::try_new`]).
    pub fn new(cap: u64, sessions: u32) -> Self {
        Self::try_new(cap, sessions).expect("a small log buffer")
    }

    /// A buffer of `cap` bytes for `sessions` sessions, or the sentence
    /// saying that the memory for it could not be allocated.
    pub fn try_new(cap: u64, sessions: u32) -> Result<Self, String> {
        let fail = || {
            format!(
                "could not allocate the {} log buffer: out of memory",
                dbio_model::units::format_bytes(cap)
            )
        };
        let mut v: Vec<u8> = Vec::new();
        v.try_reserve_exact(usize::try_from(cap).map_err(|_| fail())?)
            .map_err(|_| fail())?;
        v.resize(cap as usize, 0);
        let ring = Box::into_raw(v.into_boxed_slice()) as *mut u8;
        Ok(Self {
            state: Mutex::new(State {
                head: 0,
                tail: 0,
                queue: VecDeque::with_capacity(sessions as usize + 1),
                writer_idle: false,
                space_waiters: 0,
                closed: false,
            }),
            space: Condvar::new(),
            appends: AtomicU64::new(0),
            ring,
            cap,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Copies `src` into the ring at `lsn` (wrapping).
    ///
    /// # Safety
    /// The caller holds the state mutex and has reserved the region.
    unsafe fn put(&self, lsn: u64, src: &[u8]) {
        let at = (lsn % self.cap) as usize;
        let first = src.len().min(self.cap as usize - at);
        std::ptr::copy_nonoverlapping(src.as_ptr(), self.ring.add(at), first);
        std::ptr::copy_nonoverlapping(src.as_ptr().add(first), self.ring, src.len() - first);
    }

    /// Appends one commit's record (header, then payload). Returns when the
    /// record was in the buffer, how long the session waited for room
    /// ('log buffer space', 0 when it did not), and whether the writer was
    /// idle and must be woken.
    pub fn append(&self, p: Pending, header: &[u8], payload: &[u8]) -> (u64, u64, bool) {
        let len = (header.len() + payload.len()) as u64;
        let mut st = self.lock();
        let mut waited = 0;
        if self.cap - (st.head - st.tail) < len {
            let t0 = now_ns();
            st.space_waiters += 1;
            while self.cap - (st.head - st.tail) < len {
                st = self.space.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            st.space_waiters -= 1;
            waited = (now_ns() - t0).max(1);
        }
        let lsn = st.head;
        // SAFETY: we hold the mutex and [head, head + len) is free.
        unsafe {
            self.put(lsn, header);
            self.put(lsn + header.len() as u64, payload);
        }
        st.head += len;
        let t_commit = now_ns();
        st.queue.push_back(Pending {
            lsn,
            len: len as u32,
            ..p
        });
        let wake = std::mem::replace(&mut st.writer_idle, false);
        drop(st);
        // After the unlock: a writer watching this counter must not find
        // the mutex still held and go to sleep on it.
        self.appends.fetch_add(1, Ordering::Release);
        (t_commit, waited, wake)
    }

    /// Takes pending records in order while their padded total stays within
    /// `max_write` and `room` (bytes left in the current log file), into
    /// `out` (cleared first).
    pub fn take(&self, max_write: u64, room: u64, bs: u64, out: &mut Vec<Pending>) -> Take {
        out.clear();
        let mut st = self.lock();
        let Some(first) = st.queue.front().copied() else {
            if st.closed {
                return Take::Closed;
            }
            return Take::Idle;
        };
        let t_pickup = now_ns();
        let limit = max_write.min(room);
        let mut n = 0;
        for p in st.queue.iter() {
            if round_up(p.lsn + u64::from(p.len) - first.lsn, bs) > limit {
                break;
            }
            n += 1;
        }
        if n == 0 {
            return Take::NeedSwitch {
                next_write: round_up(u64::from(first.len), bs),
            };
        }
        out.extend(st.queue.drain(..n));
        let last = out[n - 1];
        Take::Batch {
            lsn: first.lsn,
            bytes: last.lsn + u64::from(last.len) - first.lsn,
            t_pickup,
        }
    }

    /// Marks the writer idle (sessions then unpark it) unless something is
    /// pending or the buffer is closed; returns whether it may park.
    pub fn sleep_if_idle(&self) -> bool {
        let mut st = self.lock();
        if st.queue.is_empty() && !st.closed {
            st.writer_idle = true;
            return true;
        }
        false
    }

    /// The log position the next take starts at: the oldest pending
    /// record's, or the end of the log when nothing is pending.
    pub fn next_lsn(&self) -> u64 {
        let st = self.lock();
        st.queue.front().map_or(st.head, |p| p.lsn)
    }

    /// The end of the log: where the next record will be appended.
    pub fn head(&self) -> u64 {
        self.lock().head
    }

    /// Appends so far (a cheap, lock-free change indicator for the writer).
    #[inline]
    pub fn appends(&self) -> u64 {
        self.appends.load(Ordering::Relaxed)
    }

    /// Whether any commit is waiting for the writer.
    pub fn has_pending(&self) -> bool {
        !self.lock().queue.is_empty()
    }

    /// Copies `dst.len()` redo bytes from `lsn` out of the ring.
    pub fn copy_out(&self, lsn: u64, dst: &mut [u8]) {
        let at = (lsn % self.cap) as usize;
        let first = dst.len().min(self.cap as usize - at);
        // SAFETY: [lsn, lsn + len) was taken by the writer and is not
        // released yet, so no session writes it (see the Sync impl).
        unsafe {
            std::ptr::copy_nonoverlapping(self.ring.add(at), dst.as_mut_ptr(), first);
            std::ptr::copy_nonoverlapping(
                self.ring,
                dst.as_mut_ptr().add(first),
                dst.len() - first,
            );
        }
    }

    /// Frees the redo stream below `lsn` (its write completed).
    pub fn release(&self, lsn: u64) {
        let mut st = self.lock();
        st.tail = st.tail.max(lsn);
        if st.space_waiters > 0 {
            self.space.notify_all();
        }
    }

    /// No session will commit again; returns whether the writer was idle.
    pub fn close(&self) -> bool {
        let mut st = self.lock();
        st.closed = true;
        std::mem::replace(&mut st.writer_idle, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(session: u32, seq: u64) -> Pending {
        Pending {
            session,
            seq,
            ..Default::default()
        }
    }

    #[test]
    fn takes_whole_records_within_limits_and_wraps() {
        let b = LogBuffer::new(4096, 4);
        let hdr = [1u8; 32];
        let pay = [2u8; 968]; // 1000-byte records
        for s in 0..3 {
            let (_, waited, _) = b.append(p(s, 1), &hdr, &pay);
            assert_eq!(waited, 0);
        }
        let mut out = Vec::new();
        // 2 records = 2000 B -> 2048 padded fits in 2048; the third does not.
        match b.take(2048, 1 << 20, 512, &mut out) {
            Take::Batch { lsn, bytes, .. } => assert_eq!((lsn, bytes), (0, 2000)),
            t => panic!("{t:?}"),
        }
        assert_eq!(out.len(), 2);
        assert_eq!(
            b.take(4096, 512, 512, &mut out),
            Take::NeedSwitch { next_write: 1024 }
        );
        b.release(2000);
        b.append(p(0, 2), &hdr, &pay);
        let t = b.take(1 << 20, 1 << 20, 512, &mut out);
        assert!(
            matches!(
                t,
                Take::Batch {
                    lsn: 2000,
                    bytes: 2000,
                    ..
                }
            ),
            "{t:?}"
        );
        b.release(4000);
        // 4000..5000 crosses the end of the 4096-byte ring.
        b.append(p(1, 2), &hdr, &pay);
        let t = b.take(1 << 20, 1 << 20, 512, &mut out);
        assert!(
            matches!(
                t,
                Take::Batch {
                    lsn: 4000,
                    bytes: 1000,
                    ..
                }
            ),
            "{t:?}"
        );
        let mut dst = vec![0u8; 1000];
        b.copy_out(4000, &mut dst);
        assert_eq!(&dst[..32], &hdr);
        assert!(dst[32..].iter().all(|&x| x == 2));
        assert_eq!(b.take(1 << 20, 1 << 20, 512, &mut out), Take::Idle);
        assert!(b.sleep_if_idle());
        assert!(b.close());
        assert!(!b.sleep_if_idle());
        assert_eq!(b.take(1 << 20, 1 << 20, 512, &mut out), Take::Closed);
    }
}
