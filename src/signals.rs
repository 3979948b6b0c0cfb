//! SIGINT, SIGTERM, SIGHUP and SIGQUIT stop a run cleanly, however many
//! arrive: each one only raises the stop flag. Workers reap what is in
//! flight, the partial result is printed and written, scratch files are
//! removed, and dbio exits with status 1.
//!
//! A second stop signal does not exit at once (before issue 21 a second
//! SIGINT exited with status 130, which lost the result and left a
//! 512 MiB scratch file behind; `timeout -s INT` delivers two, one to dbio
//! and one to its process group). It prints one line on stderr saying
//! that dbio is saving the partial result and removing its scratch files,
//! and that SIGKILL would abandon both; a third and later signals print
//! nothing more. The stop is prompt because every long loop checks the
//! flag (a file's pre-write per MiB, warm-ups and cache fills per I/O,
//! waits per poll), so a user has no reason to press Ctrl-C again.
//! This is also what keeps `dbio load --compare`'s promise to put a
//! server setting back: the restore runs after any number of signals.
//!
//! SIGHUP (the terminal or ssh session went away) and SIGQUIT (Ctrl-\)
//! would otherwise kill dbio where it stands and leave its temporary files
//! behind, so they are handled like SIGTERM. Only SIGKILL cannot be
//! handled; the next run in the same directory removes or names what it
//! left (see `dbio_engine::target::remove_stale_temps`).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The signals that stop a run, with their names.
const STOPPING: [(i32, &str); 4] = [
    (signal_hook::consts::SIGINT, "SIGINT"),
    (signal_hook::consts::SIGTERM, "SIGTERM"),
    (signal_hook::consts::SIGHUP, "SIGHUP"),
    (signal_hook::consts::SIGQUIT, "SIGQUIT"),
];

/// The line a second stop signal prints (written with one write(2) from
/// the handler, which may call only async-signal-safe functions).
const SECOND: &[u8] = b"dbio: stopping: saving the partial result and removing scratch files (SIGKILL would abandon both)\n";

/// Which signal stopped the run, if any.
pub struct Signals {
    got: Vec<(Arc<AtomicBool>, &'static str)>,
}

impl Signals {
    /// Routes SIGINT, SIGTERM, SIGHUP and SIGQUIT to `stop`; the second
    /// of them, whichever they are, also prints one line (`SECOND`).
    pub fn install(stop: &Arc<AtomicBool>) -> anyhow::Result<Signals> {
        use signal_hook::flag;
        let count = Arc::new(AtomicUsize::new(0));
        let mut got = Vec::new();
        for (sig, name) in STOPPING {
            let flag = Arc::new(AtomicBool::new(false));
            flag::register(sig, flag.clone())?;
            flag::register(sig, stop.clone())?;
            let count = count.clone();
            // SAFETY: the action only touches an atomic and calls
            // write(2), both async-signal-safe (signal-safety(7)); it
            // allocates nothing and takes no lock.
            unsafe {
                signal_hook::low_level::register(sig, move || {
                    if count.fetch_add(1, Ordering::SeqCst) == 1 {
                        let _ = libc::write(2, SECOND.as_ptr().cast(), SECOND.len());
                    }
                })?;
            }
            got.push((flag, name));
        }
        Ok(Signals { got })
    }

    /// The name of the signal received, if one was (SIGINT first when
    /// several were).
    pub fn received(&self) -> Option<&'static str> {
        self.got
            .iter()
            .find(|(got, _)| got.load(Ordering::Relaxed))
            .map(|(_, name)| *name)
    }
}
