//! Block devices as targets: opened the way mkfs and wipefs open them.
//!
//! A DBA who points dbio at `/dev/sdX` may be pointing at a disk that holds
//! an Oracle ASM disk group, an LVM volume, a filesystem mounted in a
//! container's mount namespace, or a disk another tool has claimed. A
//! hand-kept list of magic numbers misses most of these (squashfs, erofs,
//! ASM and a mount in another namespace all slipped through one), so the
//! decisions here lean on the two authorities that know more than dbio:
//!
//! * the kernel: the device is opened with `O_EXCL` (also for read-only
//!   jobs), which fails with EBUSY while it is mounted in any namespace,
//!   used as swap, held by device-mapper, md or LVM, or opened exclusively
//!   by any other process; and while dbio holds that descriptor nobody can
//!   mount or claim the device under it;
//! * util-linux's libblkid, through `wipefs --no-act` (or `blkid -p`) run on
//!   `/proc/self/fd/N` of the descriptor dbio already holds, so the device
//!   probed is the device opened: every filesystem, RAID, LVM, LUKS, swap,
//!   partition-table and Oracle ASM signature libblkid knows refuses the
//!   device, and the error names the signature and its offset.
//!
//! dbio also checks the Oracle ASM disk header itself (`ORCLDISK` at byte
//! 32; libblkid 2.38 reports it as `oracleasm`, older versions may not),
//! because an ASM disk is the most likely block device on a database server.
//! Two more checks look for what has no signature at offset 0 (issue 21):
//! a filesystem whose partition table was lost sits at a partition start
//! behind zeros, so `blkid -p --offset` probes every [`PARTITION_STARTS`]
//! entry; and data no tool names is still data, so a job that writes is
//! refused unless the first and last [`ZERO_ENDS`] bytes are all zero, or
//! the user says `--overwrite` (a signature is refused even then).
//!
//! Every other decision (is it a block device, its size, its logical sector
//! size for O_DIRECT, its holders, partitions and swap use) is made on the
//! open descriptor, never on the path, which could be replaced meanwhile.

use crate::target::TargetSpec;
use crate::EngineError;
use dbio_model::units::format_bytes;
use dbio_model::Durability;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether a command takes a block device as its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlockDevicePolicy {
    /// The command works on files and directories only (it has no
    /// `--allow-block-device` option, so the error must not suggest one).
    #[default]
    NotAccepted,
    /// The command accepts `--allow-block-device`, which was not given.
    NeedsFlag,
    /// `--allow-block-device` was given: a blank device nobody holds is used.
    Allowed,
}

/// The Oracle ASM disk header's provisioning string and where it lies
/// (`kfdhdb.driver.provstr`, also what libblkid's `oracleasm` probe reads).
pub const ASM_MAGIC: &[u8] = b"ORCLDISK";
/// Byte offset of [`ASM_MAGIC`] in the disk header.
pub const ASM_MAGIC_OFFSET: usize = 32;

/// How long wipefs or blkid may take to probe the device.
const PROBE_DEADLINE: Duration = Duration::from_secs(30);

/// A block device opened exclusively for a job.
#[derive(Debug)]
pub struct BlockDevice {
    /// The read-only `O_EXCL` descriptor every check was made on; the
    /// kernel keeps the device claimed for as long as it is open. No I/O of
    /// the job goes through it.
    pub claim: File,
    /// The job's descriptor, with its flags (read-write, O_DIRECT, O_DSYNC),
    /// opened through `/proc/self/fd` of the claim once every check passed,
    /// so a device that is refused is never opened for writing.
    pub file: File,
    /// The device's size in bytes (BLKGETSIZE64).
    pub size: u64,
    /// The logical sector size (BLKSSZGET): the O_DIRECT alignment.
    pub logical_block_size: u32,
}

fn refuse(path: &Path, why: impl Into<String>) -> EngineError {
    EngineError::BlockDeviceRefused {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// Refuses the block device at `path` for a command that does not take
/// one, or that needs `--allow-block-device`; Ok when the policy allows it.
pub fn check_policy(path: &Path, policy: BlockDevicePolicy) -> Result<(), EngineError> {
    match policy {
        BlockDevicePolicy::Allowed => Ok(()),
        BlockDevicePolicy::NotAccepted => Err(refuse(
            path,
            "this command works on files and directories only; give it a directory on a filesystem",
        )),
        BlockDevicePolicy::NeedsFlag => Err(refuse(
            path,
            "pass --allow-block-device to use it (dbio still refuses a device that holds any signature, is mounted or is in use)",
        )),
    }
}

/// Opens the block device `spec.path` for a job: checks the policy, claims
/// it with a read-only `O_EXCL` open, and refuses it when it is in use, has
/// holders or partitions, is swap, is too small, does not fit the job's
/// O_DIRECT alignment, or holds any signature libblkid or dbio recognises;
/// then opens it again with the job's flags through the claim.
pub fn open_for_job(
    spec: &TargetSpec,
    policy: BlockDevicePolicy,
) -> Result<BlockDevice, EngineError> {
    let path = spec.path.as_path();
    check_policy(path, policy)?;
    let claim = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
        .map_err(|e| open_error(spec, "opening the block device exclusively", e))?;
    let md = claim
        .metadata()
        .map_err(|e| EngineError::io("inspecting the block device", path, e))?;
    if !is_block(&md) {
        return Err(refuse(
            path,
            "it stopped being a block device while dbio opened it",
        ));
    }
    let rdev = md.rdev();
    if let Some(why) = in_use_by_kernel(rdev) {
        return Err(refuse(path, format!("{why}{NEVER}")));
    }
    if spec.writes
        && is_read_only(&claim)
            .map_err(|e| EngineError::io("reading the read-only flag", path, e))?
    {
        return Err(refuse(
            path,
            "it is read-only (BLKROGET) and the job writes; run a read-only --rw or make it writable",
        ));
    }
    let (size, logical_block_size) = geometry(&claim, path)?;
    check_fits(spec, size, logical_block_size)?;
    signatures(&claim).map_err(|why| refuse(path, why))?;
    if has_asm_header(&claim).map_err(|e| EngineError::io("reading the header", path, e))? {
        return Err(refuse(
            path,
            format!(
                "it holds an Oracle ASM disk header (ORCLDISK at byte {ASM_MAGIC_OFFSET}){NEVER}"
            ),
        ));
    }
    signatures_at_partition_starts(&claim, size).map_err(|why| refuse(path, why))?;
    if spec.writes && !spec.overwrite {
        let found = first_nonzero_in_ends(&claim, size)
            .map_err(|e| EngineError::io("reading the first and last MiB", path, e))?;
        if let Some(off) = found {
            return Err(refuse(
                path,
                format!(
                    "its first or last MiB is not all zero (byte {off} is not), so it may hold data that no signature names; pass --overwrite to write over it"
                ),
            ));
        }
    }
    let file = reopen_for_job(&claim, spec)?;
    Ok(BlockDevice {
        claim,
        file,
        size,
        logical_block_size,
    })
}

/// The device's size in bytes (BLKGETSIZE64) and logical sector size
/// (BLKSSZGET), read on the descriptor.
fn geometry(f: &File, path: &Path) -> Result<(u64, u32), EngineError> {
    let size = device_size(f).map_err(|e| EngineError::io("reading the size", path, e))?;
    let lbs = rustix::fs::ioctl_blksszget(f)
        .map_err(|e| EngineError::io("reading the sector size", path, e.into()))?;
    Ok((size, lbs))
}

const NEVER: &str = "; dbio uses only a blank device that nothing else holds";

/// Opens the device that `held` (the exclusive claim dbio holds) is open
/// on, again, with the flags of a job: the job right after the checks, and
/// every later job of the same session, so a block-size sweep keeps the one
/// `O_EXCL` claim for its whole length (a second `O_EXCL` open would fail
/// with EBUSY against dbio's own claim, and closing and reopening would
/// leave a window for someone else).
pub fn reopen_for_job(held: &File, spec: &TargetSpec) -> Result<File, EngineError> {
    let path = spec.path.as_path();
    let held_md = held
        .metadata()
        .map_err(|e| EngineError::io("inspecting the block device", path, e))?;
    let (size, logical_block_size) = geometry(held, path)?;
    check_fits(spec, size, logical_block_size)?;
    let file = OpenOptions::new()
        .read(true)
        .write(spec.writes)
        .custom_flags(job_flags(spec))
        .open(format!("/proc/self/fd/{}", held.as_raw_fd()))
        .map_err(|e| open_error(spec, "opening the block device for the job", e))?;
    let md = file
        .metadata()
        .map_err(|e| EngineError::io("inspecting the block device", path, e))?;
    if !is_block(&md) || md.rdev() != held_md.rdev() {
        return Err(refuse(
            path,
            "reopening it through /proc/self/fd gave another file",
        ));
    }
    Ok(file)
}

fn job_flags(spec: &TargetSpec) -> i32 {
    let mut flags = 0;
    if spec.direct {
        flags |= libc::O_DIRECT;
    }
    match spec.sync {
        Durability::Dsync => flags |= libc::O_DSYNC,
        Durability::Sync => flags |= libc::O_SYNC,
        _ => {}
    }
    flags
}

fn is_block(md: &fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    md.file_type().is_block_device()
}

/// The error of a failed exclusive open; EBUSY is explained as well as
/// dbio can (the kernel does not say who holds the device).
fn open_error(spec: &TargetSpec, op: &str, e: io::Error) -> EngineError {
    let path = spec.path.as_path();
    if e.raw_os_error() == Some(libc::EBUSY) {
        let why = rdev_of(path)
            .and_then(|rdev| mounted_here(rdev).or_else(|| in_use_by_kernel(rdev)))
            .unwrap_or_else(|| {
                "it is in use (the kernel refused exclusive access: it is mounted, perhaps in another mount namespace, or another process holds it open exclusively)".into()
            });
        return refuse(path, format!("{why}{NEVER}"));
    }
    if spec.direct && e.raw_os_error() == Some(libc::EINVAL) {
        return EngineError::Unsupported(format!(
            "{} does not support O_DIRECT; run without --direct",
            path.display()
        ));
    }
    EngineError::io(op, path, e)
}

/// The device number of the block device at `path`, from an O_PATH
/// descriptor (opens nothing on the device itself).
fn rdev_of(path: &Path) -> Option<u64> {
    let fd = rustix::fs::open(
        path,
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    Some(st.st_rdev)
}

fn sys_dir(rdev: u64) -> PathBuf {
    PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ))
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// What the kernel says uses the device `rdev`: holders (device-mapper,
/// md, LVM, bcache), partitions, or an active swap area.
fn in_use_by_kernel(rdev: u64) -> Option<String> {
    let sys = sys_dir(rdev);
    let holders = names_in(&sys.join("holders"));
    if !holders.is_empty() {
        return Some(format!(
            "it is held by {} (device-mapper, md or LVM)",
            holders.join(", ")
        ));
    }
    let parts: Vec<String> = names_in(&sys)
        .into_iter()
        .filter(|n| sys.join(n).join("partition").is_file())
        .collect();
    if !parts.is_empty() {
        return Some(format!("it has partitions ({})", parts.join(", ")));
    }
    if is_swap(rdev) {
        return Some("it is an active swap area (/proc/swaps)".into());
    }
    None
}

/// Whether `rdev` backs one of the active swap areas in /proc/swaps.
fn is_swap(rdev: u64) -> bool {
    let Ok(swaps) = fs::read_to_string("/proc/swaps") else {
        return false;
    };
    swaps.lines().skip(1).any(|l| {
        l.split_whitespace()
            .next()
            .map(unescape_octal)
            .and_then(|p| fs::metadata(p).ok())
            .is_some_and(|md| is_block(&md) && md.rdev() == rdev)
    })
}

/// Where `rdev` is mounted in dbio's own mount namespace, if anywhere.
fn mounted_here(rdev: u64) -> Option<String> {
    let id = format!("{}:{}", libc::major(rdev), libc::minor(rdev));
    let mi = fs::read_to_string("/proc/self/mountinfo").ok()?;
    mi.lines()
        .map(|l| l.split(' ').collect::<Vec<_>>())
        .find(|f| f.get(2) == Some(&id.as_str()))
        .and_then(|f| {
            f.get(4)
                .map(|mp| format!("it is mounted at {}", unescape_octal(mp)))
        })
}

/// Undoes the octal escapes of /proc/swaps and mountinfo (`\040` = space).
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && (b'0'..=b'3').contains(&b[i + 1])
            && b[i + 2..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn device_size(f: &File) -> io::Result<u64> {
    const BLKGETSIZE64: rustix::ioctl::Opcode = rustix::ioctl::opcode::read::<u64>(0x12, 114);
    // SAFETY: BLKGETSIZE64 is a getter opcode that writes one u64.
    let size = unsafe {
        rustix::ioctl::ioctl(f.as_fd(), rustix::ioctl::Getter::<BLKGETSIZE64, u64>::new())
    }?;
    Ok(size)
}

/// Whether the kernel marks the device read-only (BLKROGET), so writes
/// would fail with EPERM mid-run.
fn is_read_only(f: &File) -> io::Result<bool> {
    // _IO(0x12, 94), which writes an int through its pointer argument.
    const BLKROGET: rustix::ioctl::Opcode = rustix::ioctl::opcode::none(0x12, 94);
    // SAFETY: BLKROGET writes one int.
    let ro = unsafe {
        rustix::ioctl::ioctl(
            f.as_fd(),
            rustix::ioctl::Getter::<BLKROGET, libc::c_int>::new(),
        )
    }?;
    Ok(ro != 0)
}

/// Refuses a job that needs more bytes than the device holds, or whose
/// block size is not a multiple of the sector size under O_DIRECT.
fn check_fits(spec: &TargetSpec, size: u64, logical_block_size: u32) -> Result<(), EngineError> {
    let lbs = u64::from(logical_block_size);
    if spec.direct && lbs > 0 && !spec.bs.is_multiple_of(lbs) {
        return Err(EngineError::Invalid(format!(
            "O_DIRECT on {} needs I/O in multiples of its {lbs} B logical sector (BLKSSZGET), and --bs {} B is not one",
            spec.path.display(),
            spec.bs
        )));
    }
    if spec.size > size {
        return Err(EngineError::Invalid(format!(
            "{} holds {} but the job needs {}; use a smaller --size",
            spec.path.display(),
            format_bytes(size),
            format_bytes(spec.size)
        )));
    }
    Ok(())
}

/// Whether the first sector holds an Oracle ASM disk header.
fn has_asm_header(f: &File) -> io::Result<bool> {
    let mut buf = [0u8; ASM_MAGIC_OFFSET + ASM_MAGIC.len()];
    let mut done = 0;
    while done < ASM_MAGIC_OFFSET + ASM_MAGIC.len() {
        let n = rustix::io::pread(f, &mut buf[done..], done as u64)?;
        if n == 0 {
            return Ok(false);
        }
        done += n;
    }
    Ok(is_asm_header(&buf))
}

/// Whether `head` (the device's first bytes) is an Oracle ASM disk header.
pub fn is_asm_header(head: &[u8]) -> bool {
    head.get(ASM_MAGIC_OFFSET..ASM_MAGIC_OFFSET + ASM_MAGIC.len()) == Some(ASM_MAGIC)
}

/// One signature libblkid found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// Byte offset of the magic, when the tool reports it (wipefs does).
    pub offset: Option<String>,
    /// libblkid's type name (`ext4`, `gpt`, `LVM2_member`, `oracleasm`...).
    pub kind: String,
    /// libblkid's usage (`filesystem`, `raid`, `crypto`, `partition-table`...).
    pub usage: String,
}

/// Where a partition commonly starts, in bytes: a filesystem there
/// survives the loss of its partition table (a zeroed first sector, a
/// `wipefs` of the table alone) and is invisible to a probe at offset 0.
/// 63 sectors of 512 B is the DOS/CHS start of fdisk before util-linux
/// 2.17.1 and of Windows XP; 1 MiB is what fdisk, parted (libparted) and
/// gdisk align to on a device that reports no I/O hints ("The fdisk
/// utility will align all partitions on a 1MB boundary"; parted aligns to
/// `optimal_io_size` when the device reports one, else 1 MiB: Red Hat
/// Enterprise Linux 7 Storage Administration Guide, "Partition and File
/// System Tools"); 2, 4, 8 and 16 MiB cover the `optimal_io_size` of
/// RAID stripes and SSD erase blocks those tools align to instead.
pub const PARTITION_STARTS: [u64; 6] = [63 * 512, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20];

/// Bytes at each end of a device that must be zero before dbio writes to
/// it without `--overwrite`: where partition tables (MBR, GPT and its
/// backup in the last 33 sectors), boot loaders, and the headers of md
/// (0.90 and 1.0 at the end), LVM, LUKS and most filesystems live.
pub const ZERO_ENDS: u64 = 1 << 20;

/// Probes the open device with `blkid -p --offset` at every
/// [`PARTITION_STARTS`] entry inside it; Err(why) names the first
/// signature found, or says why it could not look. About 5 ms per offset
/// (one blkid process each), so 30 ms per device.
fn signatures_at_partition_starts(f: &File, size: u64) -> Result<(), String> {
    let Some(blkid) = find_in_path("blkid") else {
        return Err(
            "blkid is not in PATH, so dbio cannot look for a filesystem behind a lost partition table (at the usual partition starts); install util-linux".into(),
        );
    };
    for off in PARTITION_STARTS.into_iter().filter(|&o| o < size) {
        let offset = off.to_string();
        let found = match run_on_fd(&blkid, &["-p", "-O", &offset, "-o", "export"], f) {
            Ok((Some(2), _)) => Vec::new(),
            Ok((_, out)) => parse_blkid(&out),
            Err(why) => {
                return Err(format!(
                    "blkid could not probe it at offset {off} ({why}), and dbio uses only a device it could check"
                ))
            }
        };
        if !found.is_empty() {
            let at: Vec<Signature> = found
                .into_iter()
                .map(|s| Signature {
                    offset: Some(format!("{off} (a partition start)")),
                    ..s
                })
                .collect();
            return Err(format!(
                "it holds {} although its partition table is missing (found by blkid -p --offset){NEVER}",
                describe(&at)
            ));
        }
    }
    Ok(())
}

/// The offset of the first non-zero byte in the first and the last
/// [`ZERO_ENDS`] bytes of the device open on `f` (the whole device when it
/// is smaller than both), None when they are all zero. Reads 2 MiB at
/// most, through the page cache, in 64 KiB pieces: a few ms.
fn first_nonzero_in_ends(f: &File, size: u64) -> io::Result<Option<u64>> {
    let head = 0..size.min(ZERO_ENDS);
    let tail = size.saturating_sub(ZERO_ENDS).max(head.end)..size;
    let mut buf = vec![0u8; 64 << 10];
    for range in [head, tail] {
        let mut off = range.start;
        while off < range.end {
            let want = (range.end - off).min(buf.len() as u64) as usize;
            let n = rustix::io::pread(f, &mut buf[..want], off)?;
            if n == 0 {
                break;
            }
            if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
                return Ok(Some(off + i as u64));
            }
            off += n as u64;
        }
    }
    Ok(None)
}

/// Runs wipefs (or blkid) on the open device; Err(why) when it found any
/// signature, could not probe, or neither tool is installed.
fn signatures(f: &File) -> Result<(), String> {
    let (tool, found) = if let Some(wipefs) = find_in_path("wipefs") {
        ("wipefs", probe_wipefs(&wipefs, f))
    } else if let Some(blkid) = find_in_path("blkid") {
        ("blkid", probe_blkid(&blkid, f))
    } else {
        return Err(
            "neither wipefs nor blkid is in PATH, so dbio cannot check it for filesystem, RAID, LVM and other signatures; install util-linux".into(),
        );
    };
    match found {
        Err(why) => Err(format!(
            "{tool} could not probe it ({why}), and dbio uses only a device it could check"
        )),
        Ok(sigs) if sigs.is_empty() => Ok(()),
        Ok(sigs) => Err(format!(
            "it holds {} (found by {tool}){NEVER}",
            describe(&sigs)
        )),
    }
}

/// "an ext4 filesystem signature at offset 0x438, ..." for the error.
pub fn describe(sigs: &[Signature]) -> String {
    let one = |s: &Signature| {
        let a = if s.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let what = match s.usage.as_str() {
            "partition-table" => format!("{a} {} partition table", s.kind),
            "" | "other" => format!("{a} {} signature", s.kind),
            u => format!("{a} {} {u} signature", s.kind),
        };
        let what = if s.kind == "oracleasm" {
            format!("{what} (an Oracle ASM disk)")
        } else {
            what
        };
        match &s.offset {
            Some(off) => format!("{what} at offset {off}"),
            None => what,
        }
    };
    let all: Vec<String> = sigs.iter().map(one).collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The first executable file named `name` in PATH.
fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// Runs `tool args /proc/self/fd/N` with dbio's descriptor N inherited, so
/// that the tool probes exactly the device dbio holds. Returns its exit
/// code and output, or why it could not run.
fn run_on_fd(tool: &Path, args: &[&str], f: &File) -> Result<(Option<i32>, String), String> {
    let fd = f.as_raw_fd();
    let mut cmd = Command::new(tool);
    cmd.args(args)
        .arg(format!("/proc/self/fd/{fd}"))
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec the closure only calls fcntl, which is
    // async-signal-safe, on a descriptor this process owns.
    unsafe {
        cmd.pre_exec(move || {
            // Keep the device's descriptor open across exec.
            if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let name = tool.display().to_string();
    let mut child = cmd.spawn().map_err(|e| format!("{name}: {e}"))?;
    // A thread per pipe, so a chatty tool cannot block on a full pipe; a
    // thread that cannot start is an error, not a panic.
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::Builder::new()
            .name("probe-output".into())
            .spawn(move || {
                let mut s = String::new();
                if let Some(mut r) = r {
                    let _ = r.read_to_string(&mut s);
                }
                s
            })
            .map_err(|e| format!("could not start a thread to read {name}'s output: {e}"))
    };
    let drains = drain(child.stdout.take().map(|r| Box::new(r) as _))
        .and_then(|out| drain(child.stderr.take().map(|r| Box::new(r) as _)).map(|err| (out, err)));
    let (out, err) = match drains {
        Ok(d) => d,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let t0 = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if t0.elapsed() > PROBE_DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{name} did not finish within {PROBE_DEADLINE:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("{name}: {e}")),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    match status.code() {
        Some(0) | Some(2) => Ok((status.code(), stdout)),
        code => Err(format!(
            "{name} exited with {}: {}",
            code.map_or("a signal".to_string(), |c| format!("status {c}")),
            stderr.lines().next().unwrap_or("").trim()
        )),
    }
}

fn probe_wipefs(tool: &Path, f: &File) -> Result<Vec<Signature>, String> {
    let args = ["--no-act", "--parsable", "-O", "OFFSET,TYPE,USAGE"];
    match run_on_fd(tool, &args, f)? {
        (Some(0), out) => Ok(parse_wipefs(&out)),
        (_, _) => Err("wipefs exited with status 2".into()),
    }
}

/// Parses `wipefs --parsable -O OFFSET,TYPE,USAGE` output
/// (`0x438,ext4,filesystem` per line).
pub fn parse_wipefs(out: &str) -> Vec<Signature> {
    out.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut f = l.splitn(3, ',');
            Signature {
                offset: f.next().map(str::to_string),
                kind: f.next().unwrap_or("").to_string(),
                usage: f.next().unwrap_or("").to_string(),
            }
        })
        .collect()
}

fn probe_blkid(tool: &Path, f: &File) -> Result<Vec<Signature>, String> {
    match run_on_fd(tool, &["-p", "-o", "export"], f)? {
        // Status 2: nothing was found.
        (Some(2), _) => Ok(Vec::new()),
        (_, out) => Ok(parse_blkid(&out)),
    }
}

/// Parses `blkid -p -o export` output (`TYPE=`, `PTTYPE=`, `USAGE=`).
pub fn parse_blkid(out: &str) -> Vec<Signature> {
    let get = |key: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_string)
    };
    let mut v = Vec::new();
    if let Some(kind) = get("TYPE") {
        v.push(Signature {
            offset: get("SBMAGIC_OFFSET"),
            kind,
            usage: get("USAGE").unwrap_or_default(),
        });
    }
    if let Some(kind) = get("PTTYPE") {
        v.push(Signature {
            offset: get("PTMAGIC_OFFSET"),
            kind,
            usage: "partition-table".into(),
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_wipefs_output_and_names_every_signature() {
        let s = parse_wipefs("0x200,gpt,partition-table\n0x1fe,PMBR,partition-table\n");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].offset.as_deref(), Some("0x200"));
        assert_eq!(
            describe(&s),
            "a gpt partition table at offset 0x200 and a PMBR partition table at offset 0x1fe"
        );
        let asm = parse_wipefs("0x20,oracleasm,filesystem\n");
        assert_eq!(
            describe(&asm),
            "an oracleasm filesystem signature (an Oracle ASM disk) at offset 0x20"
        );
    }

    #[test]
    fn parses_blkid_export_output() {
        let s = parse_blkid("DEVNAME=/proc/self/fd/7\nTYPE=squashfs\nUSAGE=filesystem\n");
        assert_eq!(
            s,
            vec![Signature {
                offset: None,
                kind: "squashfs".into(),
                usage: "filesystem".into()
            }]
        );
        assert_eq!(parse_blkid("PTTYPE=dos\n")[0].usage, "partition-table");
        assert!(parse_blkid("DEVNAME=/dev/loop0\n").is_empty());
    }

    #[test]
    fn recognises_the_asm_header_at_byte_32_only() {
        let mut head = vec![0u8; 512];
        assert!(!is_asm_header(&head));
        head[ASM_MAGIC_OFFSET..ASM_MAGIC_OFFSET + 8].copy_from_slice(ASM_MAGIC);
        assert!(is_asm_header(&head));
        assert!(!is_asm_header(&head[..39]));
        let mut shifted = vec![0u8; 512];
        shifted[33..41].copy_from_slice(ASM_MAGIC);
        assert!(!is_asm_header(&shifted));
    }

    #[test]
    fn unescapes_proc_paths() {
        assert_eq!(unescape_octal("/swap\\040file"), "/swap file");
        assert_eq!(unescape_octal("/plain"), "/plain");
        assert_eq!(unescape_octal("/end\\04"), "/end\\04");
        assert_eq!(unescape_octal("/odd\\777"), "/odd\\777");
    }
}
