//! Result types of Oracle trace analysis (`dbio tracefile`).
//!
//! Owned by the trace-analysis work (issue 5); filled in there.
