//! Tier calibration (`dbio calibrate`, issue 4): measure, on this machine,
//! what a page-cache hit, a storage-cache hit and a device read cost, and
//! derive the latency boundaries that `dbio read` and `dbio tracefile` use
//! to attribute reads to tiers.
//!
//! Kyle Hailey's "Oracle 'Physical I/O'? not always physical" guesses
//! 100 µs and 1 ms; a public AWR report (ora600pl/jas-min
//! `awrrpt_1_2668_2669.txt`, AIX, 12.2) has 90 % of its single-block reads between
//! 64 and 128 µs, which that guess would call storage-cache hits whatever
//! they were. So each tier is provoked on purpose:
//!
//! * page cache: buffered 8 KiB reads of blocks made resident just before;
//! * storage cache: an O_DIRECT read of a block immediately after another
//!   O_DIRECT read of the same block (the second finds it in whatever cache
//!   sits below the OS, if any);
//! * device: O_DIRECT first reads of distinct blocks spread over the file,
//!   after the file was dropped from the page cache. Each block is read at
//!   most once, so only a cache that already held the file can serve them:
//!   on a VM whose host caches the disk, a freshly written file may be
//!   there, so use a region larger than the host's cache, or an existing
//!   large file (read only), for a true device figure.
//!
//! A filesystem without a block device (tmpfs) gets no device tier: there
//! is no device, and the calibration says so instead of inventing one.

pub mod boundary;

use dbio_engine::buf::AlignedBuf;
use dbio_engine::clock::now_ns;
use dbio_engine::recorder::new_histogram;
use dbio_engine::target::Target;
use dbio_engine::{sysinfo, EngineError};
use dbio_model::calibrate::{Boundary, CalibrateConfig, Calibration, TierMeasurement};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::{Durability, LatencySummary};
use hdrhistogram::Histogram;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

pub use dbio_model::calibrate::INSEPARABLE_ERROR;

/// True when the two tiers of `b` overlap so much that latency alone
/// cannot tell them apart (`dbio check` uses the same rule; the sentence
/// saying so is a finding, `dbio_report::findings`).
pub fn inseparable(b: &Boundary) -> bool {
    b.inseparable()
}

/// Bytes at the start of the file made resident for page-cache hits: a
/// quarter of the file, 64 MiB at most (the rest is for storage reads).
pub fn page_cache_bytes(cfg: &CalibrateConfig) -> u64 {
    (64u64 << 20).min(cfg.size / 4)
}

/// Prepares the file `dbio calibrate` reads: `path` (a directory gets a
/// scratch file in it), written once in full, opened buffered and read
/// only; no block device.
pub fn prepare_target(
    path: &Path,
    cfg: &CalibrateConfig,
    keep: bool,
    stop: &AtomicBool,
) -> Result<Target, EngineError> {
    let spec = dbio_engine::target::TargetSpec {
        path: path.to_path_buf(),
        size: cfg.size,
        prepare: dbio_model::Prepare::Prewrite,
        direct: false,
        bs: cfg.bs,
        sync: Durability::None,
        writes: false,
        overwrite: false,
        block_device: dbio_engine::blockdev::BlockDevicePolicy::NotAccepted,
        keep,
    };
    Target::prepare(&spec, stop)
}

/// Checks a calibration configuration; one sentence naming the option on
/// error.
pub fn validate(cfg: &CalibrateConfig) -> Result<(), String> {
    let bs = cfg.bs;
    if !(512..=(1 << 20)).contains(&bs) || !bs.is_power_of_two() {
        return Err("--bs must be a power of two between 512 B and 1 MiB".into());
    }
    if cfg.size < 8 * bs {
        return Err("--size must hold at least 8 blocks of --bs".into());
    }
    if cfg.samples == 0 || cfg.samples > 1_000_000 {
        return Err("--samples must be between 1 and 1000000".into());
    }
    if cfg.tier_time_ns == 0 {
        return Err("--runtime must be a positive number of seconds".into());
    }
    Ok(())
}

/// Visits distinct blocks of `lo..hi` in a scrambled order: `lo + (start +
/// i × step) mod n` with `step` coprime to `n` is a permutation.
struct Scramble {
    lo: u64,
    n: u64,
    step: u64,
    cur: u64,
    left: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Scramble {
    fn new(lo: u64, hi: u64, seed: u64) -> Self {
        let n = hi.saturating_sub(lo).max(1);
        // Near the golden section of n, so neighbours land far apart.
        let mut step = ((n as f64 * 0.618_033_988_7) as u64).max(1) | 1;
        while gcd(step, n) != 1 {
            step += 2;
        }
        Self {
            lo,
            n,
            step: step % n.max(2),
            cur: seed % n,
            left: hi.saturating_sub(lo),
        }
    }
}

impl Iterator for Scramble {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let b = self.lo + self.cur;
        self.cur = (self.cur + self.step.max(1)) % self.n;
        Some(b)
    }
}

fn pread_full(f: &File, buf: &mut [u8], off: u64, path: &Path) -> Result<(), EngineError> {
    let want = buf.len();
    match rustix::io::pread(f, buf, off) {
        Ok(n) if n == want => Ok(()),
        Ok(n) => Err(EngineError::io(
            "calibration read",
            path,
            std::io::Error::other(format!("short read of {n} bytes at offset {off}")),
        )),
        Err(e) => Err(EngineError::io("calibration read", path, e.into())),
    }
}

/// Times reads of the blocks `blocks` yields with `f`, up to the config's
/// sample count and time; `prime` first reads each block once untimed.
fn timed_reads(
    f: &File,
    path: &Path,
    buf: &mut AlignedBuf,
    blocks: &mut dyn Iterator<Item = u64>,
    cfg: &CalibrateConfig,
    prime: bool,
    stop: &AtomicBool,
) -> Result<Histogram<u64>, EngineError> {
    let mut h = new_histogram();
    let bs = cfg.bs as usize;
    let deadline = now_ns() + cfg.tier_time_ns;
    for (i, b) in blocks.enumerate() {
        if i as u64 >= cfg.samples || stop.load(Relaxed) || now_ns() >= deadline {
            break;
        }
        let off = b * cfg.bs;
        let slice = &mut buf.as_mut_slice()[..bs];
        if prime {
            pread_full(f, slice, off, path)?;
        }
        let t0 = now_ns();
        pread_full(f, slice, off, path)?;
        h.saturating_record(now_ns() - t0);
    }
    Ok(h)
}

/// The storage-cache tier as calibration provokes it: each of up to
/// `cfg.samples` blocks of `0..blocks` (scrambled order, `cfg.tier_time_ns`
/// at most) read with O_DIRECT once untimed, then timed at once: the second
/// read finds the block in whatever cache sits below the OS, if any.
/// `direct` must be an O_DIRECT descriptor on `path`.
pub fn storage_cache_reads(
    direct: &File,
    path: &Path,
    blocks: u64,
    cfg: &CalibrateConfig,
    stop: &AtomicBool,
) -> Result<Histogram<u64>, EngineError> {
    let mut buf = AlignedBuf::new(cfg.bs as usize);
    let mut order = Scramble::new(0, blocks, cfg.seed);
    timed_reads(direct, path, &mut buf, &mut order, cfg, true, stop)
}

fn measurement(method: &str, h: &Histogram<u64>) -> Option<TierMeasurement> {
    (!h.is_empty()).then(|| TierMeasurement {
        method: method.to_string(),
        lat: LatencySummary::from_histogram(h),
    })
}

/// Measures the tiers on the prepared target `t` (at least `cfg.size`
/// bytes) and derives the thresholds. Every descriptor is derived from the
/// target's own ([`Target::with_flags`]), never from its path.
pub fn measure(
    t: &Target,
    cfg: &CalibrateConfig,
    stop: &AtomicBool,
) -> Result<Calibration, EngineError> {
    let bs = cfg.bs;
    let blocks = cfg.size / bs;
    if blocks < 4 {
        return Err(EngineError::Invalid(format!(
            "the calibration file must hold at least 4 blocks of {}",
            format_bytes(bs)
        )));
    }
    let path = t.path.as_path();
    let mount = sysinfo::mount_of_fd(&*t.file).unwrap_or_default();
    let disk = sysinfo::disk_of_fd(&*t.file);
    let mut notes = Vec::new();
    let mut buf = AlignedBuf::new(bs.max(1 << 20) as usize);

    // 1. Page cache: make the first region resident, then read in it.
    let pc_blocks = (page_cache_bytes(cfg) / bs).clamp(1, blocks / 2);
    let buffered = t.with_flags(false, Durability::None, false)?;
    let mut off = 0;
    while off < pc_blocks * bs {
        let n = (pc_blocks * bs - off).min(1 << 20) as usize;
        pread_full(&buffered, &mut buf.as_mut_slice()[..n], off, path)?;
        off += n as u64;
    }
    // The resident blocks in scrambled order, repeated as often as needed.
    let order: Vec<u64> = Scramble::new(0, pc_blocks, cfg.seed).collect();
    let mut pc_iter = order.iter().copied().cycle();
    let page = timed_reads(&buffered, path, &mut buf, &mut pc_iter, cfg, false, stop)?;

    // 2 and 3 need O_DIRECT.
    let direct = t.with_flags(true, Durability::None, false);
    let (mut storage, mut device) = (new_histogram(), new_histogram());
    let mut no_device = disk.is_none().then(|| {
        format!(
            "no block device under this filesystem ({}): every read is served from memory, so there is no device tier",
            if mount.fs_type.is_empty() { "unknown" } else { &mount.fs_type }
        )
    });
    match direct {
        Err(EngineError::Unsupported(_)) => {
            notes.push(format!(
                "{} refuses O_DIRECT: the storage-cache and device tiers cannot be provoked here",
                if mount.fs_type.is_empty() {
                    "this filesystem"
                } else {
                    &mount.fs_type
                }
            ));
            if no_device.is_none() {
                no_device =
                    Some("O_DIRECT is refused here, so device reads cannot be measured".into());
            }
        }
        Err(e) => return Err(e),
        Ok(df) => {
            // The rest of the file in one scrambled order: the first part
            // for re-reads, the remainder for first reads.
            let mut rest = Scramble::new(pc_blocks, blocks, cfg.seed);
            storage = timed_reads(&df, path, &mut buf, &mut rest, cfg, true, stop)?;
            if no_device.is_none() {
                sysinfo::drop_from_page_cache_fd(&df)
                    .map_err(|e| EngineError::io("dropping from the page cache", path, e))?;
                device = timed_reads(&df, path, &mut buf, &mut rest, cfg, false, stop)?;
                if device.len() < cfg.samples.min(100) && !stop.load(Relaxed) {
                    notes.push(format!(
                        "only {} device reads fit in the file: use a larger --size for a steadier figure",
                        device.len()
                    ));
                }
            }
        }
    }

    let ps = boundary::boundary(&page, &storage);
    let sd = if no_device.is_none() {
        boundary::boundary(&storage, &device)
    } else {
        None
    };
    let mut page_max = ps
        .as_ref()
        .map_or(dbio_model::read::DEFAULT_PAGE_CACHE_MAX_NS, |b| b.ns);
    let mut storage_max = match (&no_device, &sd) {
        (Some(_), _) => u64::MAX,
        (None, Some(b)) => b.ns,
        (None, None) => dbio_model::read::DEFAULT_STORAGE_CACHE_MAX_NS,
    };
    if ps.is_none() {
        notes.push(
            "the page-cache boundary could not be measured; the default 100 µs stands".into(),
        );
    }
    // Overlapping tiers are a finding (`dbio_report::findings::calibrate`),
    // drawn from the boundaries kept in the result.
    if sd.as_ref().is_some_and(inseparable) {
        // No evidence of a cache below the OS that is faster than the
        // device: keep two tiers rather than split one distribution.
        notes.push(
            "no separate storage-cache tier: the storage-cache threshold is set to the page-cache one, so every read that misses the page cache counts as a device read".into(),
        );
        storage_max = page_max;
    }
    if page_max > storage_max {
        notes.push(format!(
            "the storage-cache boundary ({}) fell below the page-cache one ({}): there is no separate storage-cache tier, both are set to the page-cache boundary",
            format_ns(storage_max as f64),
            format_ns(page_max as f64)
        ));
        storage_max = page_max;
    }
    page_max = page_max.min(storage_max);
    let region = (blocks - pc_blocks) * bs;
    Ok(Calibration {
        name: "calibration".into(),
        page_cache_max_ns: page_max,
        storage_cache_max_ns: storage_max,
        page_cache: measurement("buffered read of a resident block", &page),
        storage_cache: measurement("O_DIRECT re-read of a block just read", &storage),
        device: measurement(
            "O_DIRECT first read, file dropped from the page cache",
            &device,
        ),
        page_storage_boundary: ps,
        storage_device_boundary: sd,
        no_device_tier: no_device,
        target: path.display().to_string(),
        fs_type: mount.fs_type,
        block_device: disk
            .and_then(|(sys, _)| sys.file_name().map(|n| n.to_string_lossy().to_string())),
        block_size: bs,
        config: Some(cfg.clone()),
        region_bytes: region,
        measured_at_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        notes,
        saved_to: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_visits_every_block_once() {
        for (lo, hi) in [(0, 1), (5, 105), (0, 1024), (3, 100_003)] {
            let mut v: Vec<u64> = Scramble::new(lo, hi, 77).collect();
            assert_eq!(v.len() as u64, hi - lo);
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len() as u64, hi - lo);
            assert_eq!((v[0], *v.last().unwrap()), (lo, hi - 1));
        }
    }
}
