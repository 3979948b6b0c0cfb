//! Allocation failure as one sentence and exit status 2, never Rust's
//! abort.
//!
//! When an allocation fails, Rust's standard library prints "memory
//! allocation of N bytes failed" and aborts (SIGABRT, a core, under
//! `RUST_BACKTRACE` a backtrace); a hook to change that
//! (`std::alloc::set_alloc_error_hook`) is not stable. [`OneSentence`]
//! wraps the system allocator instead: a null return from it is answered
//! by one line on standard error, written with `write(2)` (nothing may be
//! allocated at that point), and `_exit(2)`: no unwinding, no destructors,
//! no output files touched (they are renamed into place only when
//! complete). The binary installs it as its `#[global_allocator]`.
//!
//! A buffer whose size comes from an input (a whole result file) is
//! reserved with [`try_reserve`] instead, which marks the thread's
//! allocation as one that may fail: the allocator then returns null, the
//! reservation returns its error, and the reader says which input did not
//! fit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// True while this thread makes an allocation whose failure its caller
    /// handles. A const-initialised `Cell` without a destructor: reading it
    /// allocates nothing, as the allocator requires.
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// The system allocator, with allocation failure ending the process in one
/// sentence and status 2 (see the module documentation).
pub struct OneSentence;

/// Writes the sentence and exits, unless this thread asked for an
/// allocation that may fail.
fn failed(size: usize) {
    if FALLIBLE.try_with(Cell::get).unwrap_or(false) {
        return;
    }
    const HEAD: &[u8] = b"dbio: error: out of memory: an allocation of ";
    const TAIL: &[u8] = b" bytes failed (the process's memory limit, ulimit -v or a cgroup's memory.max, is below what this run needs)\n";
    let mut line = [0u8; 256];
    let mut n = 0;
    for &b in HEAD {
        line[n] = b;
        n += 1;
    }
    // The size in decimal, without formatting machinery (it may allocate).
    let mut digits = [0u8; 20];
    let mut d = 0;
    let mut v = size;
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        line[n] = digits[d];
        n += 1;
    }
    for &b in TAIL {
        line[n] = b;
        n += 1;
    }
    // SAFETY: write(2) and _exit(2) are async-signal-safe and allocate
    // nothing; the buffer is valid for n bytes.
    unsafe {
        libc::write(2, line.as_ptr().cast(), n);
        libc::_exit(2);
    }
}

// SAFETY: every call is forwarded to the system allocator with its own
// arguments; only a null result is acted on.
unsafe impl GlobalAlloc for OneSentence {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            failed(new_size);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

/// `v.try_reserve(additional)`, with the allocation marked as one that may
/// fail: under [`OneSentence`] a failure is returned, not the end of the
/// process.
pub fn try_reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
) -> Result<(), std::collections::TryReserveError> {
    FALLIBLE.with(|f| f.set(true));
    let r = v.try_reserve(additional);
    FALLIBLE.with(|f| f.set(false));
    r
}
