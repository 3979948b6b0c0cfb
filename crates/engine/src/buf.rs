//! Aligned I/O buffers: O_DIRECT needs memory aligned to the device's
//! logical block size (statx STATX_DIOALIGN tells it; 4 KiB is always enough
//! on Linux, so dbio aligns to 4 KiB).

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

impl AlignedBuf {
    /// Allocates `len` zeroed bytes (at least one page).
    pub fn new(len: usize) -> Self {
        let layout = Layout::from_size_align(len.max(BUF_ALIGN), BUF_ALIGN)
            .expect("buffer length fits in isize");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Self { ptr, layout }
    }

    /// Allocates `len` bytes filled with a non-repeating pattern from `seed`,
    /// so that compressing or deduplicating storage cannot shortcut writes.
    pub fn patterned(len: usize, seed: u64) -> Self {
        let mut b = Self::new(len);
        let mut rng = fastrand::Rng::with_seed(seed);
        for chunk in b.as_mut_slice().chunks_mut(8) {
            let v = rng.u64(..).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        b
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
    }
}
