//! The saved results and calibration files a command reads whole (`report
//! --from`, `compare`, `merge`, `--calibration`), opened and bounded by
//! `dbio_input`: a FIFO, socket, device or directory named as one is
//! refused in one sentence (`-` reads standard input), and nothing larger
//! than [`MAX_RESULT_BYTES`] is read.

use anyhow::anyhow;
use dbio_input::ReadError;
use std::path::Path;

/// The largest result or calibration file dbio reads (bytes): 1 GiB.
/// The largest results dbio writes are a trace analysis with `--top
/// 100000` statements and their SQL text (hundreds of MB at most) and a
/// long measurement's per-second series (about 30 MB per job and day);
/// a calibration file is a few KB. A larger input is not a dbio result,
/// and parsing it would take several times its size in memory.
pub const MAX_RESULT_BYTES: u64 = 1 << 30;

/// The text of the saved result or calibration file at `path` (`-`:
/// standard input) and the name to show for it; `what` says what it should
/// be ("a dbio result"), for the refusals.
pub fn read_text(path: &Path, what: &str) -> anyhow::Result<(String, String)> {
    let input = dbio_input::open(path)?;
    let name = input.name.clone();
    let bytes = dbio_input::read_capped(&input, MAX_RESULT_BYTES).map_err(|e| match e {
        ReadError::TooLarge => anyhow!(
            "{name} is larger than {} MiB, far more than {what} can be; it is not read",
            MAX_RESULT_BYTES >> 20
        ),
        ReadError::NoMemory(n) => anyhow!(
            "reading {name} needs {} MiB of memory, more than this process may allocate (ulimit -v or a cgroup's memory.max)",
            n.div_ceil(1 << 20)
        ),
        ReadError::Io(e) => anyhow!("cannot read {name}: {e}"),
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow!("{name} is not {what}: it is not UTF-8 text"))?;
    Ok((name, text))
}
