//! `dbio calibrate` tests.
