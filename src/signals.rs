//! SIGINT, SIGTERM, SIGHUP and SIGQUIT stop a run cleanly: the first one
//! raises the stop flag, workers reap what is in flight, the partial result
//! is printed and written, temporary files are removed, and dbio exits with
//! status 1. A second SIGINT exits at once (except while `dbio load
//! --compare` has a server setting to restore). SIGHUP (the terminal or ssh
//! session went away) and SIGQUIT (Ctrl-\) would otherwise kill dbio where
//! it stands and leave its temporary files behind, so they are handled like
//! SIGTERM. Only SIGKILL cannot be handled; the next run in the same
//! directory removes what it left (see `dbio_engine::target`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The signals that stop a run cleanly besides SIGINT, with their names.
const STOPPING: [(i32, &str); 3] = [
    (signal_hook::consts::SIGTERM, "SIGTERM"),
    (signal_hook::consts::SIGHUP, "SIGHUP"),
    (signal_hook::consts::SIGQUIT, "SIGQUIT"),
];

/// Which signal stopped the run, if any.
pub struct Signals {
    /// The handler that exits at a second SIGINT.
    shutdown: Option<signal_hook::SigId>,
    int: Arc<AtomicBool>,
    others: Vec<(Arc<AtomicBool>, &'static str)>,
}

impl Signals {
    /// Routes SIGINT, SIGTERM, SIGHUP and SIGQUIT to `stop`.
    pub fn install(stop: &Arc<AtomicBool>) -> anyhow::Result<Signals> {
        use signal_hook::consts::SIGINT;
        use signal_hook::flag;
        let int = Arc::new(AtomicBool::new(false));
        // Order matters: the conditional shutdown must see the flag before it is set.
        let shutdown = flag::register_conditional_shutdown(SIGINT, 130, int.clone())?;
        flag::register(SIGINT, int.clone())?;
        flag::register(SIGINT, stop.clone())?;
        let mut others = Vec::new();
        for (sig, name) in STOPPING {
            let got = Arc::new(AtomicBool::new(false));
            flag::register(sig, got.clone())?;
            flag::register(sig, stop.clone())?;
            others.push((got, name));
        }
        Ok(Signals {
            shutdown: Some(shutdown),
            int,
            others,
        })
    }

    /// A second SIGINT stops the run like the first instead of exiting at
    /// once: for a run that must put back what it changed on a server
    /// (`dbio load --compare` with a server-wide setting).
    pub fn no_exit_on_second_sigint(&mut self) {
        if let Some(id) = self.shutdown.take() {
            signal_hook::low_level::unregister(id);
        }
    }

    /// The name of the signal received, if one was.
    pub fn received(&self) -> Option<&'static str> {
        if self.int.load(Ordering::Relaxed) {
            return Some("SIGINT");
        }
        self.others
            .iter()
            .find(|(got, _)| got.load(Ordering::Relaxed))
            .map(|(_, name)| *name)
    }
}
