//! Puts a datafile into a chosen cache state before a read run.
//!
//! The dev and prod databases of Kyle Hailey's "Oracle 'Physical I/O'? not
//! always physical" (9 ms against 5 ms per single-block read) differed only in how much of the data
//! the OS had cached; here that is an explicit control. The share to cache
//! is taken from the start of the file, which is where the hot set and the
//! zipf head lie (see `dbio_engine::workload::Access`), so `--cached 10%`
//! with `hot:10/90` caches exactly the hot set.
//!
//! Buffered runs: the whole file is dropped from the page cache (fdatasync,
//! then POSIX_FADV_DONTNEED), the share is read with buffered 1 MiB reads
//! with read-ahead off (POSIX_FADV_RANDOM on that descriptor only), and the
//! rest is dropped again, so mincore then reports the share exactly (to the
//! page; the tests check it). O_DIRECT runs bypass the
//! page cache, so there the share is read once with O_DIRECT instead: that
//! warms the cache *below* the OS (array, controller or hypervisor), if it
//! is large enough to hold it; the page cache is left empty.

use dbio_engine::buf::AlignedBuf;
use dbio_engine::target::Target;
use dbio_engine::EngineError;
use dbio_model::Durability;
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Chunk of the warming reads.
const CHUNK: u64 = 1 << 20;

/// The bytes `pct` % of `size` covers, rounded down to whole `unit`s.
pub fn cached_bytes(size: u64, pct: f64, unit: u64) -> u64 {
    let want = (size as f64 * pct.clamp(0.0, 100.0) / 100.0) as u64;
    (want / unit * unit).min(size)
}

/// Brings the first `bytes` of the target `t` (of `size` bytes) into the
/// cache that `direct` reads see, and drops the rest from the page cache.
/// Returns early (Ok) when `stop` is raised. Works on descriptors derived
/// from the target's own, never on its path.
pub fn prepare(
    t: &Target,
    size: u64,
    bytes: u64,
    direct: bool,
    stop: &AtomicBool,
) -> Result<(), EngineError> {
    let io = |e: std::io::Error| EngineError::io("preparing the cache state", &t.path, e);
    dbio_engine::sysinfo::drop_from_page_cache_fd(&t.file).map_err(io)?;
    if bytes == 0 {
        return Ok(());
    }
    // A descriptor of its own: its fadvise state must not reach the job's.
    let f: File = t.with_flags(direct, Durability::None, false)?;
    if !direct {
        // No read-ahead on this descriptor: the kernel then builds folios
        // only inside the ranges read, so none straddles the share's end
        // (a large folio across it would stay resident after DONTNEED).
        rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::Random).map_err(|e| io(e.into()))?;
    }
    let mut buf = AlignedBuf::new(CHUNK as usize);
    let mut off = 0;
    while off < bytes && !stop.load(Relaxed) {
        let n = CHUNK.min(bytes - off) as usize;
        let got =
            rustix::io::pread(&f, &mut buf.as_mut_slice()[..n], off).map_err(|e| io(e.into()))?;
        if got == 0 {
            break;
        }
        off += got as u64;
    }
    if !direct && bytes < size {
        // Read-ahead went past the share: drop it again.
        rustix::fs::fadvise(
            &f,
            bytes,
            std::num::NonZeroU64::new(size - bytes),
            rustix::fs::Advice::DontNeed,
        )
        .map_err(|e| io(e.into()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_bytes_round_down_to_the_unit() {
        assert_eq!(cached_bytes(1 << 20, 30.0, 8192), 311_296);
        assert_eq!(cached_bytes(1 << 20, 100.0, 8192), 1 << 20);
        assert_eq!(cached_bytes(1 << 20, 0.0, 8192), 0);
        assert_eq!(cached_bytes(1 << 20, 150.0, 8192), 1 << 20);
    }
}
