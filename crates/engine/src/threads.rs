//! Starting a group of threads that may not all start.
//!
//! Thread creation fails with EAGAIN under `ulimit -u`, a cgroup's
//! `pids.max` or when memory for the stacks runs out. A run's threads used
//! to meet at a `std::sync::Barrier` sized for all of them: when one spawn
//! failed, those already started waited forever on a barrier that could
//! never fill, and the process hung while ignoring SIGTERM. A
//! [`StartGate`] is a barrier that can be aborted: the coordinator waits
//! until every thread it started has arrived, then opens the gate, or, when
//! a spawn failed, aborts it and every waiting thread returns at once and
//! cleans up. [`spawn_scoped`] turns a failed spawn into one sentence that
//! says which thread could not start.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{Scope, ScopedJoinHandle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Closed,
    Open,
    Aborted,
}

#[derive(Debug)]
struct State {
    arrived: usize,
    phase: Phase,
}

/// A start line for a group of threads that a coordinator opens or aborts.
#[derive(Debug)]
pub struct StartGate {
    state: Mutex<State>,
    cv: Condvar,
}

impl Default for StartGate {
    fn default() -> Self {
        Self::new()
    }
}

impl StartGate {
    /// A closed gate nobody has arrived at.
    pub fn new() -> Self {
        Self {
            state: Mutex::new(State {
                arrived: 0,
                phase: Phase::Closed,
            }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called by a started thread when it is ready: counts it in and blocks
    /// until the gate opens (true) or is aborted (false: return without
    /// doing the work).
    pub fn arrive(&self) -> bool {
        let mut st = self.lock();
        st.arrived += 1;
        self.cv.notify_all();
        while st.phase == Phase::Closed {
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.phase == Phase::Open
    }

    /// Called by the coordinator once all `n` threads were started: waits
    /// until they have arrived, then opens the gate. False when the gate was
    /// aborted meanwhile.
    pub fn open_when_arrived(&self, n: usize) -> bool {
        let mut st = self.lock();
        while st.arrived < n && st.phase == Phase::Closed {
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        if st.phase == Phase::Closed {
            st.phase = Phase::Open;
        }
        self.cv.notify_all();
        st.phase == Phase::Open
    }

    /// Releases every thread waiting (or still to arrive) with "do not
    /// start". Has no effect on a gate already open.
    pub fn abort(&self) {
        let mut st = self.lock();
        if st.phase == Phase::Closed {
            st.phase = Phase::Aborted;
        }
        self.cv.notify_all();
    }

    /// Whether the gate was aborted.
    pub fn aborted(&self) -> bool {
        self.lock().phase == Phase::Aborted
    }
}

/// A thread that could not be started.
#[derive(Debug, thiserror::Error)]
#[error("could not start thread {index} of {total}: {error}")]
pub struct SpawnError {
    /// Which thread (from 1).
    pub index: usize,
    /// How many the run needed.
    pub total: usize,
    /// The OS error (usually EAGAIN); part of the message, not a separate
    /// cause, so that it is printed once.
    pub error: std::io::Error,
}

/// Spawns thread `index` (from 0) of `total` named `name` in `scope`.
pub fn spawn_scoped<'scope, 'env, T, F>(
    scope: &'scope Scope<'scope, 'env>,
    name: String,
    index: usize,
    total: usize,
    f: F,
) -> Result<ScopedJoinHandle<'scope, T>, SpawnError>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    std::thread::Builder::new()
        .name(name)
        .spawn_scoped(scope, f)
        .map_err(|error| SpawnError {
            index: index + 1,
            total,
            error,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_all_arrive() {
        let gate = StartGate::new();
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..4).map(|_| s.spawn(|| gate.arrive())).collect();
            assert!(gate.open_when_arrived(4));
            assert!(hs.into_iter().all(|h| h.join().unwrap()));
        });
    }

    #[test]
    fn the_coordinator_waits_for_the_last_arrival() {
        let gate = StartGate::new();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| tx.send(gate.open_when_arrived(2)).unwrap());
            let first = s.spawn(|| gate.arrive());
            // One of two arrived: the gate stays shut (a gate that opened
            // early would let the coordinator take its start time before
            // every worker is ready). Waiting longer can only let a wrong
            // gate show itself, never fail a right one.
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(rx.try_recv().is_err(), "opened with one of two arrived");
            assert!(gate.arrive());
            assert!(rx.recv().unwrap());
            assert!(first.join().unwrap());
        });
    }

    #[test]
    fn abort_releases_waiters() {
        let gate = StartGate::new();
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..3).map(|_| s.spawn(|| gate.arrive())).collect();
            gate.abort();
            assert!(!gate.open_when_arrived(10));
            assert!(hs.into_iter().all(|h| !h.join().unwrap()));
        });
        assert!(gate.aborted());
    }
}
