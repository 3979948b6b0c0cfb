//! A short commit-latency probe: what one durable log write costs on the
//! storage under a directory, for `dbio load`'s device baseline.
//!
//! The pattern is a log writer's at one session: a 4 KiB write at the
//! next offset, then `fdatasync`, at queue depth 1, the two timed
//! together (what `dbio bench --rw write --bs 4k --fdatasync 1
//! --iodepth 1` measures). The file is first written out in full
//! (1 MiB, synced), as PostgreSQL fills a WAL segment before it uses it
//! and InnoDB's redo log is preallocated: so each `fdatasync` then
//! flushes data alone, without growing the file (extending a file makes
//! `fdatasync` commit its size too, a journal write more per commit on
//! ext4 and XFS). Writes wrap around within that 1 MiB.
//!
//! The file is anonymous (`O_TMPFILE`): it never has a name in the
//! directory, even when dbio is killed, so a probe in a database's
//! `pg_wal` leaves nothing behind there. Where the filesystem has no
//! `O_TMPFILE`, a file with a dbio name is created exclusively and
//! unlinked at once.
//!
//! Error bound: each latency is recorded in an HDR histogram within 1 %
//! ([`crate::recorder::new_histogram`]); the clock is `Instant`
//! (CLOCK_MONOTONIC, tens of ns of overhead per reading).

use crate::buf::AlignedBuf;
use dbio_model::load_compare::BaselineProbe;
use dbio_model::LatencySummary;
use rustix::fs::{Mode, OFlags};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Bytes per write.
pub const BLOCK: u64 = 4096;
/// The region written over and over.
pub const REGION: u64 = 1 << 20;

/// An anonymous file in `dir`, or a named one unlinked at once, both
/// made in the directory opened once by [`crate::resolve`]'s rules (a
/// directory swapped or reached through another user's link cannot
/// redirect it).
fn scratch_file(dir: &Path) -> std::io::Result<OwnedFd> {
    let dir = crate::resolve::open_dir(dir).map_err(|e| match e {
        crate::resolve::DirError::Refused(why) => std::io::Error::other(why),
        crate::resolve::DirError::Os(e) => e.into(),
    })?;
    let mode = Mode::from_raw_mode(0o600);
    match rustix::fs::openat(
        &dir,
        ".",
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        mode,
    ) {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::ISDIR | rustix::io::Errno::INVAL) => {
            let name = format!(".dbio-baseline-{}", std::process::id());
            let fd = rustix::fs::openat(
                &dir,
                name.as_str(),
                OFlags::CREATE | OFlags::EXCL | OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                mode,
            )?;
            rustix::fs::unlinkat(&dir, name.as_str(), rustix::fs::AtFlags::empty())?;
            Ok(fd)
        }
        Err(e) => Err(e.into()),
    }
}

/// Runs the probe in `dir` for about `runtime` (at least one write),
/// stopping early when `stop` rises. The error is one sentence.
pub fn probe(dir: &Path, runtime: Duration, stop: &AtomicBool) -> Result<BaselineProbe, String> {
    let fail = |what: &str, e: std::io::Error| {
        format!(
            "the device baseline could not {what} in {}: {e}",
            dir.display()
        )
    };
    let fd = scratch_file(dir).map_err(|e| fail("create its scratch file", e))?;
    let mut buf = AlignedBuf::patterned(REGION as usize, 0x6462_696f);
    // Written out and synced first: the timed writes overwrite it.
    let mut off = 0u64;
    while off < REGION {
        let n = rustix::io::pwrite(&fd, &buf.as_slice()[off as usize..], off)
            .map_err(|e| fail("write", e.into()))?;
        off += n as u64;
    }
    rustix::fs::fsync(&fd).map_err(|e| fail("sync", e.into()))?;
    let mut h = crate::recorder::new_histogram();
    let start = Instant::now();
    let mut writes = 0u64;
    let block = &mut buf.as_mut_slice()[..BLOCK as usize];
    loop {
        // A different first byte each time: no layer below can skip an
        // unchanged block.
        block[0] = block[0].wrapping_add(1);
        let offset = (writes * BLOCK) % REGION;
        let t0 = Instant::now();
        let n = rustix::io::pwrite(&fd, block, offset).map_err(|e| fail("write", e.into()))?;
        if n as u64 != BLOCK {
            return Err(format!(
                "the device baseline wrote {n} of {BLOCK} bytes in {}",
                dir.display()
            ));
        }
        rustix::fs::fdatasync(&fd).map_err(|e| fail("fdatasync", e.into()))?;
        let t1 = Instant::now();
        h.saturating_record(
            u64::try_from((t1 - t0).as_nanos())
                .unwrap_or(u64::MAX)
                .max(1),
        );
        writes += 1;
        if t1 - start >= runtime || stop.load(Ordering::Relaxed) {
            break;
        }
    }
    let runtime_ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Ok(BaselineProbe {
        block_bytes: BLOCK,
        writes,
        runtime_ns,
        per_second: writes as f64 * 1e9 / runtime_ns.max(1) as f64,
        latency: LatencySummary::from_histogram(&h),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_syncs_each_write_and_leaves_no_file() {
        let d = tempfile::tempdir().unwrap();
        let p = probe(
            d.path(),
            Duration::from_millis(100),
            &AtomicBool::new(false),
        )
        .unwrap();
        assert!(p.writes >= 1);
        assert_eq!(p.latency.count, p.writes);
        assert!(p.runtime_ns >= 100_000_000 || p.writes == 1, "{p:?}");
        assert!(p.latency.min_ns > 0);
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            0,
            "nothing left"
        );
        // A raised stop flag ends it after one write.
        let p = probe(d.path(), Duration::from_secs(60), &AtomicBool::new(true)).unwrap();
        assert_eq!(p.writes, 1);
        let e = probe(
            Path::new("/nonexistent/dir"),
            Duration::ZERO,
            &AtomicBool::new(false),
        )
        .unwrap_err();
        assert!(e.contains("/nonexistent/dir"), "{e}");
    }
}
