//! Where a measurement ran: recorded in every result, because a latency
//! without its machine, filesystem, device and cache state is not a fact.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The machine and storage a run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Environment {
    /// Host name.
    pub hostname: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: usize,
    /// Total memory in bytes.
    pub memory_bytes: u64,
    /// Load average (1, 5, 15 min) at the start of the run: the machine may be shared.
    pub loadavg: [f64; 3],
    /// The target path the run used.
    pub target: String,
    /// Filesystem type holding the target (ext4, xfs, tmpfs, ...).
    pub fs_type: String,
    /// Mount point of that filesystem.
    pub mount_point: String,
    /// Mount options.
    pub mount_options: String,
    /// The block device under the filesystem, when there is one.
    pub device: Option<BlockDevice>,
    /// O_DIRECT alignment from statx (STATX_DIOALIGN), when the kernel reports it.
    pub dio_alignment: Option<DioAlignment>,
    /// How much of the target was in the page cache before the run (mincore).
    pub cached_before: Option<PageCacheResidency>,
}

impl Environment {
    /// Why the target cannot keep what it acknowledges, when its own
    /// description says so: a memory filesystem (tmpfs, ramfs: gone at a
    /// reboot), or a mount that tells the filesystem not to send cache
    /// flushes (`nobarrier`, `barrier=0`) to a device with a write-back
    /// cache. A device whose volatile cache ignores the flushes it is
    /// sent cannot be seen from here; the commit tests judge that from
    /// the flushes the device counted (`dbio_report`'s check rules).
    pub fn non_durable_reason(&self) -> Option<String> {
        match self.fs_type.as_str() {
            "tmpfs" | "ramfs" | "devtmpfs" | "hugetlbfs" => {
                return Some(format!(
                    "{} is on {} (memory): a commit acknowledged here is lost at a power loss or reboot",
                    self.target, self.fs_type
                ))
            }
            _ => {}
        }
        let no_barrier = self
            .mount_options
            .split([',', ';', ' '])
            .any(|o| o == "nobarrier" || o == "barrier=0");
        let write_back = self
            .device
            .as_ref()
            .and_then(|d| d.write_cache.as_deref())
            .is_some_and(|c| c == "write back");
        (no_barrier && write_back).then(|| {
            format!(
                "{} is mounted without cache flushes ({}) on a device with a write-back cache: a commit can be acknowledged from the cache and lost at a power loss",
                self.mount_point,
                if self.mount_options.contains("nobarrier") { "nobarrier" } else { "barrier=0" }
            )
        })
    }

    /// Why commits the device counted no cache flush for (`commits` of
    /// them, in the run named `what`) were not kept: a write-back cache
    /// without FUA needs a flush for every durable write, so none arriving
    /// means they are dropped on the way (a virtual disk in an unsafe cache
    /// mode, a controller cache without a battery). None when the device
    /// writes through or honours FUA, where no flush is needed.
    pub fn dropped_flushes_reason(&self, commits: u64, what: &str) -> Option<String> {
        let dev = self.device.as_ref()?;
        (dev.write_cache.as_deref() == Some("write back") && dev.fua == Some(false)).then(|| {
            format!(
                "{} has a write-back cache and no FUA, yet it counted no cache flush in {commits} commits ({what}): the flushes are dropped before the device, so a commit is acknowledged from a volatile cache",
                dev.name
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_filesystems_and_mounts_without_flushes_are_not_durable() {
        let mut e = Environment {
            target: "/dev/shm/x".into(),
            fs_type: "tmpfs".into(),
            ..Environment::default()
        };
        assert!(e.non_durable_reason().unwrap().contains("tmpfs (memory)"));
        e.fs_type = "ext4".into();
        e.mount_options = "rw,relatime,nobarrier".into();
        assert_eq!(e.non_durable_reason(), None, "no device: no cache to lose");
        e.device = Some(BlockDevice {
            write_cache: Some("write back".into()),
            ..BlockDevice::default()
        });
        assert!(e.non_durable_reason().unwrap().contains("nobarrier"));
        e.mount_options = "rw,relatime".into();
        assert_eq!(e.non_durable_reason(), None);
        // No flush counted: dropped on a write-back cache without FUA only.
        e.device.as_mut().unwrap().fua = Some(false);
        assert!(e
            .dropped_flushes_reason(100, "lgwr")
            .unwrap()
            .contains("no cache flush in 100 commits (lgwr)"));
        e.device.as_mut().unwrap().fua = Some(true);
        assert_eq!(e.dropped_flushes_reason(100, "lgwr"), None);
    }
}

/// A block device's identity and queue settings from sysfs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BlockDevice {
    /// Kernel name of the whole disk (vda, nvme0n1, sda).
    pub name: String,
    /// Partition name when the filesystem sits on a partition.
    pub partition: Option<String>,
    /// Model string (`device/model`), when present.
    pub model: Option<String>,
    /// `queue/rotational` (virtual disks often report 1).
    pub rotational: Option<bool>,
    /// Active I/O scheduler (`queue/scheduler`, the bracketed one).
    pub scheduler: Option<String>,
    /// `queue/logical_block_size` in bytes.
    pub logical_block_size: Option<u64>,
    /// `queue/physical_block_size` in bytes.
    pub physical_block_size: Option<u64>,
    /// `queue/write_cache`: "write back" or "write through".
    pub write_cache: Option<String>,
    /// `queue/fua`: whether the device honours Force Unit Access writes.
    pub fua: Option<bool>,
    /// `queue/nr_requests`.
    pub nr_requests: Option<u64>,
    /// `queue/read_ahead_kb`.
    pub read_ahead_kb: Option<u64>,
}

/// O_DIRECT alignment constraints reported by statx.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DioAlignment {
    /// Required memory alignment of buffers, bytes.
    pub mem_align: u32,
    /// Required alignment of file offsets and lengths, bytes.
    pub offset_align: u32,
}

/// Page-cache residency of a file, from mincore.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PageCacheResidency {
    /// Pages of the file in the page cache.
    pub resident_pages: u64,
    /// Pages in the file.
    pub total_pages: u64,
    /// Page size in bytes.
    pub page_size: u64,
}

impl PageCacheResidency {
    /// Resident share, 0..=1.
    pub fn fraction(&self) -> f64 {
        if self.total_pages == 0 {
            0.0
        } else {
            self.resident_pages as f64 / self.total_pages as f64
        }
    }
}
