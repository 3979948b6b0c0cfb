//! Aligned I/O buffers: O_DIRECT needs memory aligned to the device's
//! logical block size (statx STATX_DIOALIGN tells it; 4 KiB is always enough
//! on Linux, so dbio aligns to 4 KiB).
//!
//! Allocation is fallible ([`AlignedBuf::try_new`]): an allocation failure
//! in Rust aborts the process, which would leave temporary files behind and
//! lose what was measured, so every buffer whose size comes from an option
//! is allocated with `try_new`, and large plans are checked against
//! MemAvailable first ([`check_memory`]).

use dbio_model::units::format_bytes;
use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Alignment of every buffer dbio allocates.
pub const BUF_ALIGN: usize = 4096;

/// A heap buffer aligned to [`BUF_ALIGN`] bytes.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer owns its memory exclusively; moving it across threads is sound.
unsafe impl Send for AlignedBuf {}

/// Refuses a plan that needs `bytes` of memory when the kernel reports less
/// available (MemAvailable in /proc/meminfo); `what` names the plan in the
/// sentence. Unknown availability lets the plan through.
pub fn check_memory(bytes: u64, what: &str) -> Result<(), String> {
    match crate::sysinfo::mem_available() {
        Some(avail) if bytes > avail => Err(format!(
            "{what} needs about {} of memory, but only {} is available",
            format_bytes(bytes),
            format_bytes(avail)
        )),
        _ => Ok(()),
    }
}

/// The sentence for a failed allocation of `len` bytes.
pub fn alloc_error(len: usize) -> String {
    format!(
        "could not allocate {} of memory for I/O buffers",
        format_bytes(len as u64)
    )
}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes (at least one page); None when the
    /// allocator has no memory for it.
    pub fn try_new(len: usize) -> Option<Self> {
        let layout = Layout::from_size_align(len.max(BUF_ALIGN), BUF_ALIGN).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        Some(Self { ptr, layout })
    }

    /// Allocates `len` zeroed bytes (at least one page). Only for small,
    /// fixed sizes: aborts the process when memory is exhausted.
    pub fn new(len: usize) -> Self {
        let layout = Layout::from_size_align(len.max(BUF_ALIGN), BUF_ALIGN)
            .expect("buffer length fits in isize");
        Self::try_new(len).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
    }

    /// Allocates `len` bytes filled with a non-repeating pattern from `seed`,
    /// so that compressing or deduplicating storage cannot shortcut writes.
    /// Only for small, fixed sizes (see [`AlignedBuf::new`]).
    pub fn patterned(len: usize, seed: u64) -> Self {
        let mut b = Self::new(len);
        b.fill_pattern(seed);
        b
    }

    /// [`AlignedBuf::patterned`], or None when memory is exhausted.
    pub fn try_patterned(len: usize, seed: u64) -> Option<Self> {
        let mut b = Self::try_new(len)?;
        b.fill_pattern(seed);
        Some(b)
    }

    fn fill_pattern(&mut self, seed: u64) {
        let b = self;
        let mut rng = fastrand::Rng::with_seed(seed);
        for chunk in b.as_mut_slice().chunks_mut(8) {
            let v = rng.u64(..).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Always false: buffers are at least one page.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Raw pointer to the start.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() bytes for our lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_sized() {
        let mut b = AlignedBuf::new(8192);
        assert_eq!(b.as_mut_ptr() as usize % BUF_ALIGN, 0);
        assert_eq!(b.len(), 8192);
        let p = AlignedBuf::patterned(512, 7);
        assert_eq!(p.len(), 4096);
        assert!(p.as_slice().iter().any(|&x| x != 0));
        let q = AlignedBuf::try_patterned(512, 7).unwrap();
        assert_eq!(p.as_slice(), q.as_slice());
    }

    #[test]
    fn impossible_sizes_fail_instead_of_aborting() {
        assert!(AlignedBuf::try_new(usize::MAX / 2).is_none());
        assert!(AlignedBuf::try_new(1 << 50).is_none());
        assert!(check_memory(u64::MAX, "this plan")
            .unwrap_err()
            .starts_with("this plan needs about"));
        assert!(check_memory(4096, "a page").is_ok());
    }
}
