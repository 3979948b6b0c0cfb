//! `dbio lgwr` tests.
