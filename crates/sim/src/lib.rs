//! Models of a database's own I/O roles, running on real storage through
//! dbio's engines: the log writer with group commit (`lgwr`) and the
//! database writers with a buffer cache (`dbwr`), and datafile reads with
//! cache tiers (`read`, `calibrate`).
#![deny(missing_docs)]

pub mod calibrate;
pub mod dbwr;
pub mod lgwr;
pub mod read;
