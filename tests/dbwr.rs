//! `dbio dbwr` tests.
