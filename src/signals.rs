//! SIGINT and SIGTERM stop a run cleanly: the first one raises the stop
//! flag, workers reap what is in flight, the partial result is printed and
//! written, temporary files are removed, and dbio exits with status 1. A
//! second SIGINT exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Which signal stopped the run, if any.
pub struct Signals {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Signals {
    /// Routes SIGINT and SIGTERM to `stop`.
    pub fn install(stop: &Arc<AtomicBool>) -> anyhow::Result<Signals> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        let int = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        // Order matters: the conditional shutdown must see the flag before it is set.
        flag::register_conditional_shutdown(SIGINT, 130, int.clone())?;
        flag::register(SIGINT, int.clone())?;
        flag::register(SIGINT, stop.clone())?;
        flag::register(SIGTERM, term.clone())?;
        flag::register(SIGTERM, stop.clone())?;
        Ok(Signals { int, term })
    }

    /// The name of the signal received, if one was.
    pub fn received(&self) -> Option<&'static str> {
        if self.int.load(Ordering::Relaxed) {
            Some("SIGINT")
        } else if self.term.load(Ordering::Relaxed) {
            Some("SIGTERM")
        } else {
            None
        }
    }
}
