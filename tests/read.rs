//! `dbio read` tests.
