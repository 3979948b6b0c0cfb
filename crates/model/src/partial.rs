//! Why a result is partial, recorded in one place: a signal or an I/O
//! error replaces an earlier reason (it is what stopped the run); a part
//! that could not run (`PartialReason::Incomplete`) only fills an empty
//! one.
//!
//! Why in the model: every command, and the library runners in the engine
//! and the sim crate, stop the same way and must mark the result the same
//! way, so the rule belongs to the result, not to any one caller.

use crate::run::{PartialReason, RunReport};

impl RunReport {
    /// Records why the run stopped before it was done: the one place a
    /// result is marked partial.
    pub fn mark_partial(&mut self, why: PartialReason) {
        match why {
            PartialReason::Incomplete { .. } => {
                self.partial.get_or_insert(why);
            }
            _ => self.partial = Some(why),
        }
    }

    /// Marks the result partial when `signal` names the signal that
    /// arrived; whether it did (the caller stops).
    pub fn stopped_by(&mut self, signal: Option<&'static str>) -> bool {
        match signal {
            Some(sig) => {
                self.mark_partial(PartialReason::Signal { signal: sig.into() });
                true
            }
            None => false,
        }
    }

    /// Marks the result partial for the I/O error `message`.
    pub fn io_error(&mut self, message: impl Into<String>) {
        self.mark_partial(PartialReason::IoError {
            message: message.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incomplete(m: &str) -> PartialReason {
        PartialReason::Incomplete { message: m.into() }
    }

    #[test]
    fn a_signal_or_io_error_replaces_the_reason_a_missing_section_only_fills_it() {
        let mut r = RunReport::default();
        r.mark_partial(incomplete("the read section could not run"));
        r.mark_partial(incomplete("the writer section could not run"));
        assert_eq!(
            r.partial,
            Some(incomplete("the read section could not run"))
        );
        assert!(!r.stopped_by(None));
        assert_eq!(
            r.partial,
            Some(incomplete("the read section could not run"))
        );
        r.io_error("No space left on device (os error 28)");
        assert!(matches!(r.partial, Some(PartialReason::IoError { .. })));
        assert!(r.stopped_by(Some("SIGTERM")));
        assert_eq!(
            r.partial,
            Some(PartialReason::Signal {
                signal: "SIGTERM".into()
            })
        );
        r.mark_partial(incomplete("later"));
        assert!(matches!(r.partial, Some(PartialReason::Signal { .. })));
    }
}
