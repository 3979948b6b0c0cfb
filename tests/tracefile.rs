//! `dbio tracefile` tests (issue 5).
