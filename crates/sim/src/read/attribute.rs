//! Tier attribution with boundaries measured in the same run (`dbio check`).
//!
//! Fixed boundaries (100 µs and 1 ms, from 2008) call nearly every O_DIRECT
//! read of today's flash or of a VM's host cache a "page-cache hit". But
//! `dbio check` measures each side itself: buffered reads of a resident
//! file (page-cache hits by construction), O_DIRECT reads (never page-cache
//! hits, by construction) and O_DIRECT re-reads of a block just read (what
//! a cache below the OS answers). So it attributes with the boundaries
//! `dbio calibrate` would derive from those reads ([`boundary::boundary`],
//! the same code), and never puts an O_DIRECT read in the page cache; the
//! words on the result (how far apart the tiers are, where they overlap)
//! are `dbio_report::findings::read`'s.
//!
//! Counts come from HDR histograms (1 % precision): a read within 1 % of a
//! boundary may be counted on the other side of it, and a tier's summed
//! time carries the same 1 %.

use crate::calibrate::{boundary, inseparable};
use dbio_model::read::{
    BoundarySource, TierAttribution, TierSplit, UsedBoundary, DEFAULT_PAGE_CACHE_MAX_NS,
    DEFAULT_STORAGE_CACHE_MAX_NS,
};
use dbio_model::LatencySummary;
use hdrhistogram::Histogram;

/// The boundaries derived from `page` (buffered reads of a resident file),
/// `storage` (O_DIRECT reads) and `rereads` (O_DIRECT re-reads of a block
/// just read; `None` when not measured), with calibrate's rules: tiers that
/// overlap beyond [`crate::calibrate::INSEPARABLE_ERROR`] below the page
/// cache count as one (every storage read is then a device read), and so
/// does a storage-cache boundary at or below the page-cache one. A boundary
/// that cannot be measured (a side without reads) is the default. Without
/// a block device under the file (`has_device` false, as calibrate's "no
/// device tier") every read that misses the page cache is a storage-cache
/// (memory) read. The result's `direct` is false; set it per result.
pub fn derive(
    page: &Histogram<u64>,
    storage: &Histogram<u64>,
    rereads: Option<&Histogram<u64>>,
    has_device: bool,
) -> TierAttribution {
    let page_cache_max = match boundary::boundary(page, storage) {
        Some(b) => UsedBoundary {
            ns: Some(b.ns),
            source: BoundarySource::Measured,
            fit: Some(b),
        },
        None => UsedBoundary {
            ns: Some(DEFAULT_PAGE_CACHE_MAX_NS),
            source: BoundarySource::Default,
            fit: None,
        },
    };
    let page_ns = page_cache_max.ns.unwrap_or(DEFAULT_PAGE_CACHE_MAX_NS);
    let storage_cache_max = match rereads.and_then(|r| boundary::boundary(r, storage)) {
        _ if !has_device => UsedBoundary {
            ns: Some(u64::MAX),
            source: BoundarySource::NoDevice,
            fit: None,
        },
        Some(b) => UsedBoundary {
            ns: (!inseparable(&b) && b.ns > page_ns).then_some(b.ns),
            source: BoundarySource::Measured,
            fit: Some(b),
        },
        None => UsedBoundary {
            ns: (DEFAULT_STORAGE_CACHE_MAX_NS > page_ns).then_some(DEFAULT_STORAGE_CACHE_MAX_NS),
            source: BoundarySource::Default,
            fit: None,
        },
    };
    TierAttribution {
        page_cache_max,
        storage_cache_max,
        direct: false,
        rereads: rereads
            .filter(|r| !r.is_empty())
            .map(LatencySummary::from_histogram),
    }
}

/// The reads of `h` split by tier with `att`.
pub fn split(h: &Histogram<u64>, att: &TierAttribution) -> TierSplit {
    let (mut count, mut ns) = ([0u64; 3], [0u64; 3]);
    for v in h.iter_recorded() {
        // The same value the boundary's fit counts with.
        let i = att.tier(v.value_iterated_to()).index();
        let n = v.count_at_value();
        count[i] += n;
        ns[i] = ns[i].saturating_add(h.median_equivalent(v.value_iterated_to()).saturating_mul(n));
    }
    TierSplit::from_arrays(count, ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_engine::recorder::new_histogram;
    use dbio_model::read::ReadResult;

    /// check's sentences on its read section, drawn by the findings module
    /// from results attributed here.
    fn check_findings(warm: &ReadResult, storage: Option<&ReadResult>) -> Vec<String> {
        let reads: Vec<ReadResult> = std::iter::once(warm).chain(storage).cloned().collect();
        dbio_report::findings::read::check_section(&reads, storage.is_some())
            .into_iter()
            .map(|f| f.text)
            .collect()
    }

    fn h(vals: &[(u64, u64)]) -> Histogram<u64> {
        let mut h = new_histogram();
        for &(v, n) in vals {
            h.record_n(v, n).unwrap();
        }
        h
    }

    /// A result of `h`'s reads attributed with `att` (`direct` set).
    fn result(h: &Histogram<u64>, att: &TierAttribution, direct: bool) -> ReadResult {
        let att = TierAttribution {
            direct,
            ..att.clone()
        };
        ReadResult {
            ops: h.len(),
            lat: LatencySummary::from_histogram(h),
            tiers: split(h, &att),
            attribution: Some(att),
            ..Default::default()
        }
    }

    #[test]
    fn separated_tiers_are_split_at_measured_boundaries() {
        // Page-cache hits 2-5 µs, re-reads in a storage cache 20 µs,
        // O_DIRECT reads 80 % at 150 µs and 20 % at 20 µs (cache hits).
        let page = h(&[(2_000, 500), (5_000, 500)]);
        let rereads = h(&[(20_000, 300)]);
        let storage = h(&[(20_000, 200), (150_000, 800)]);
        let att = derive(&page, &storage, Some(&rereads), true);
        let p = att.page_cache_max.ns.unwrap();
        // Geometric middle of the 5-20 µs gap, within the histogram's 1 %.
        assert!((p as f64 - 10_000.0).abs() < 200.0, "{p}");
        assert_eq!(att.page_cache_max.source, BoundarySource::Measured);
        let s = att.storage_cache_max.ns.unwrap();
        assert!(s > 20_200 && s < 150_000, "{s}");
        assert_eq!(att.storage_cache_max.source, BoundarySource::Measured);
        assert_eq!(att.rereads.as_ref().map(|l| l.count), Some(300));
        let direct = result(&storage, &att, true);
        assert_eq!(direct.tiers.page_cache.count, 0);
        assert_eq!(direct.tiers.storage_cache.count, 200);
        assert_eq!(direct.tiers.device.count, 800);
        let warm = result(&page, &att, false);
        assert_eq!(warm.tiers.page_cache.count, 1000);
        let f = check_findings(&warm, Some(&direct));
        assert_eq!(f.len(), 1, "no overlap, no note: {f:?}");
        assert!(
            f[0].contains(
                "0 % of the O_DIRECT reads were faster than the page-cache boundary measured here"
            ),
            "{}",
            f[0]
        );
        assert!(
            f[0].contains(
                "20.0 % of the O_DIRECT reads were storage-cache hits and 80.0 % device reads"
            ),
            "{}",
            f[0]
        );
    }

    #[test]
    fn overlapping_tiers_are_named_and_o_direct_reads_stay_out_of_the_page_cache() {
        // Memory-fast storage: page-cache hits and O_DIRECT reads both at
        // 2-8 µs; re-reads the same distribution as the reads.
        let page = h(&[(2_000, 400), (4_000, 300), (8_000, 300)]);
        let storage = h(&[(2_000, 200), (4_000, 400), (8_000, 400)]);
        let rereads = h(&[(2_000, 20), (4_000, 40), (8_000, 40)]);
        let att = derive(&page, &storage, Some(&rereads), true);
        let fit = att.page_cache_max.fit.clone().unwrap();
        assert!(inseparable(&fit), "{fit:?}");
        // Re-reads and reads are one distribution: no storage-cache tier.
        assert_eq!(att.storage_cache_max.ns, None);
        assert_eq!(att.storage_cache_max.source, BoundarySource::Measured);
        let direct = result(&storage, &att, true);
        assert_eq!(direct.tiers.page_cache.count, 0);
        assert_eq!(direct.tiers.device.count, 1000);
        // The same reads attributed as buffered ones would partly land in
        // the page cache: that is what `direct` prevents.
        let as_buffered = split(&storage, &att);
        assert!(as_buffered.page_cache.count > 0, "{as_buffered:?}");
        let f = check_findings(&result(&page, &att, false), Some(&direct));
        let overlap = f
            .iter()
            .find(|l| l.starts_with("page-cache hits and O_DIRECT reads overlap"))
            .unwrap_or_else(|| panic!("{f:?}"));
        let named = format!(
            "{:.0} % of page-cache hits and {:.0} % of O_DIRECT reads land on the wrong side",
            100.0 * fit.faster_misclassified,
            100.0 * fit.slower_misclassified
        );
        assert!(overlap.contains(&named), "{overlap}");
        assert!(
            f.iter().any(|l| l
                .starts_with("O_DIRECT re-reads of a block just read and O_DIRECT reads overlap")),
            "{f:?}"
        );
        assert!(
            f.iter()
                .any(|l| l.starts_with("no separate storage-cache tier")),
            "{f:?}"
        );
        assert!(
            f[0].contains(
                "0.0 % of the O_DIRECT reads were storage-cache hits and 100.0 % device reads"
            ),
            "{}",
            f[0]
        );
    }

    #[test]
    fn without_a_block_device_storage_reads_are_memory_reads() {
        // tmpfs: O_DIRECT reads as fast as page-cache hits.
        let page = h(&[(1_800, 500), (2_100, 500)]);
        let storage = h(&[(1_800, 450), (2_100, 550)]);
        let att = derive(&page, &storage, Some(&storage), false);
        assert_eq!(att.storage_cache_max.source, BoundarySource::NoDevice);
        assert!(!att.thresholds().has_device_tier());
        let direct = result(&storage, &att, true);
        assert_eq!(direct.tiers.storage_cache.count, 1000);
        let f = check_findings(&result(&page, &att, false), Some(&direct));
        assert!(
            f[0].contains("so latency cannot tell a page-cache hit from a storage read"),
            "{}",
            f[0]
        );
        assert!(
            f[0].contains("every O_DIRECT read was served from memory"),
            "{}",
            f[0]
        );
        assert!(!f[0].contains("device reads"), "{}", f[0]);
        assert!(
            f.iter()
                .any(|l| l.starts_with("page-cache hits and O_DIRECT reads overlap")),
            "{f:?}"
        );
    }

    #[test]
    fn unmeasured_boundaries_are_the_defaults_and_say_so() {
        let page = h(&[(3_000, 100)]);
        let storage = h(&[(50_000, 90), (2_000_000, 10)]);
        let att = derive(&page, &storage, None, true);
        assert_eq!(att.page_cache_max.source, BoundarySource::Measured);
        assert_eq!(
            (att.storage_cache_max.ns, att.storage_cache_max.source),
            (Some(DEFAULT_STORAGE_CACHE_MAX_NS), BoundarySource::Default)
        );
        let t = split(
            &storage,
            &TierAttribution {
                direct: true,
                ..att.clone()
            },
        );
        assert_eq!(
            (t.page_cache.count, t.storage_cache.count, t.device.count),
            (0, 90, 10)
        );
        let none = derive(&new_histogram(), &storage, None, true);
        assert_eq!(
            (none.page_cache_max.ns, none.page_cache_max.source),
            (Some(DEFAULT_PAGE_CACHE_MAX_NS), BoundarySource::Default)
        );
        assert_eq!(none.thresholds().source, "default, not measured here");
    }

    #[test]
    fn a_storage_boundary_below_the_page_cache_one_leaves_one_storage_tier() {
        // Re-reads faster than the O_DIRECT reads, but both far below the
        // page-cache boundary's side (a slow page cache).
        let page = h(&[(30_000, 100)]);
        let storage = h(&[(60_000, 100)]);
        let rereads = h(&[(5_000, 100)]);
        let att = derive(&page, &storage, Some(&rereads), true);
        let (p, s) = (
            att.page_cache_max.ns.unwrap(),
            att.storage_cache_max.fit.as_ref().unwrap().ns,
        );
        assert!(s <= p, "{s} {p}");
        assert_eq!(att.storage_cache_max.ns, None);
        let direct = result(&storage, &att, true);
        let f = check_findings(&result(&page, &att, false), Some(&direct));
        assert!(
            f.iter()
                .any(|l| l.contains("fell at or below the page-cache one")),
            "{f:?}"
        );
    }

    #[test]
    fn split_times_carry_the_histograms_precision() {
        let hist = h(&[(10_000, 3), (1_000_000, 1)]);
        let att = derive(&hist, &hist, None, true);
        let t = split(
            &hist,
            &TierAttribution {
                direct: true,
                ..att
            },
        );
        assert_eq!(t.count(), 4);
        let total = t.page_cache.total_ns + t.storage_cache.total_ns + t.device.total_ns;
        assert!(
            (total as f64 - 1_030_000.0).abs() < 0.01 * 1_030_000.0,
            "{total}"
        );
    }
}
