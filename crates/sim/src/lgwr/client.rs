//! The client side of a session (`--client-cpu`): a thread of its own
//! that does the client's work for each commit and then wakes the
//! session, which wakes it again when the commit returns.
//!
//! A database client is not the backend that commits: between two
//! commits the client works on its own CPU, sends the next statement and
//! sleeps, and the backend sleeps until the statement arrives. Each
//! commit therefore costs two wake-ups (the backend's, then the
//! client's), each a futex wake and a trip through the run queue, which
//! on a busy machine is time no CPU figure shows. This thread pair
//! reproduces that structure on the scheduler the database shares, with
//! std's park/unpark (an atomic and one futex wake when the other side
//! really sleeps; no allocation), instead of adding a constant for it.

use super::cpu::{Burner, CpuAccount, UnitClock};
use dbio_engine::clock::now_ns;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;

/// The session's turn: it commits, the client waits.
const SESSION: u32 = 0;
/// The client's turn: it works, the session waits.
const CLIENT: u32 = 1;
/// The session is done: the client returns.
const STOP: u32 = 2;

/// Whose turn it is between one session and its client.
pub struct Turn {
    state: AtomicU32,
    client: OnceLock<Thread>,
    session: OnceLock<Thread>,
    /// The client's view: wall time from handing a statement over until
    /// the turn came back (the session's wake-up, its work and commit,
    /// the client's own wake-up), ns, summed; written by the client only.
    seen_ns: AtomicU64,
    /// Round trips in `seen_ns`.
    seen: AtomicU64,
}

impl Default for Turn {
    fn default() -> Self {
        Self {
            state: AtomicU32::new(SESSION),
            client: OnceLock::new(),
            session: OnceLock::new(),
            seen_ns: AtomicU64::new(0),
            seen: AtomicU64::new(0),
        }
    }
}

impl Turn {
    /// Registers the calling thread as the session.
    pub fn session_is_me(&self) {
        let _ = self.session.set(std::thread::current());
    }

    /// The session's side: hands the turn to the client and sleeps until
    /// the client hands it back (the next statement has arrived).
    pub fn round_trip(&self) {
        self.state.store(CLIENT, Ordering::Release);
        if let Some(c) = self.client.get() {
            c.unpark();
        }
        while self.state.load(Ordering::Acquire) == CLIENT {
            std::thread::park();
        }
    }

    /// The client's view so far: the summed wall time of its round trips,
    /// ns, and their number. Complete for every round trip the session
    /// has handed back (the turn's hand-over orders it).
    pub fn seen(&self) -> (u64, u64) {
        (
            self.seen_ns.load(Ordering::Acquire),
            self.seen.load(Ordering::Acquire),
        )
    }

    /// Tells the client to return (the session is done).
    pub fn stop(&self) {
        self.state.store(STOP, Ordering::Release);
        if let Some(c) = self.client.get() {
            c.unpark();
        }
    }
}

/// Stops the client when the session returns, whichever way it returns.
pub struct StopOnDrop<'a>(pub Option<&'a Turn>);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.0 {
            t.stop();
        }
    }
}

/// The client thread: on each turn, `cpu_ns()` of CPU, then the
/// session's turn; returns when the session stops it. With `account`,
/// each round trip's CPU outside the burn (from one turn to the next:
/// the hand-over, the wake-up) goes to it.
pub fn client_main(turn: &Turn, cpu_ns: impl Fn() -> u64, account: Option<&CpuAccount>) {
    let _ = turn.client.set(std::thread::current());
    let mut unit: Option<UnitClock> = None;
    let mut sent = 0;
    let mut burner = Burner::default();
    loop {
        match turn.state.load(Ordering::Acquire) {
            STOP => return,
            CLIENT => {
                if sent > 0 {
                    // Only this thread writes these: no contention.
                    turn.seen_ns
                        .fetch_add(now_ns().saturating_sub(sent), Ordering::Release);
                    turn.seen.fetch_add(1, Ordering::Release);
                }
                if let Some(a) = account {
                    // A round trip ends where the next one starts.
                    if let Some(u) = unit.replace(UnitClock::start()) {
                        u.end(a);
                    }
                }
                burner.burn(unit.as_mut(), cpu_ns());
                sent = now_ns();
                if turn
                    .state
                    .compare_exchange(CLIENT, SESSION, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    if let Some(s) = turn.session.get() {
                        s.unpark();
                    }
                }
            }
            _ => std::thread::park(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_round_trip_waits_for_the_clients_work() {
        let turn = Turn::default();
        let cpu = super::super::cpu::thread_cpu_ns;
        let account = CpuAccount::default();
        std::thread::scope(|s| {
            let h = s.spawn(|| {
                let c0 = cpu();
                client_main(&turn, || 1_000_000, Some(&account));
                cpu() - c0
            });
            turn.session_is_me();
            for _ in 0..5 {
                turn.round_trip();
            }
            turn.stop();
            // Five turns of 1 ms of CPU each ran in the client thread.
            let spent = h.join().unwrap();
            assert!(spent >= 5_000_000, "{spent} ns of client CPU");
            // Four round trips ended (the fifth was stopped), each with
            // its hand-over's CPU, far below a turn's burn.
            let per = account.per_unit().expect("round trips were counted");
            assert!(per < 500_000, "{per} ns per round trip outside the burn");
        });
    }
}
