//! Models of a database's own I/O roles, running on real storage through
//! dbio's engines: the log writer with group commit (`lgwr`) and the
//! database writers with a buffer cache (`dbwr`), and datafile reads with
//! cache tiers (`read`, `calibrate`). The experiments that ask a
//! database's question of the storage live here too: `check`'s battery
//! of jobs (which log write is fastest and safe) and ORION's matrix of
//! small and large loads (`matrix`); they run the engine's jobs and add
//! no I/O mechanics of their own.
#![deny(missing_docs)]

pub mod calibrate;
pub mod check;
pub mod dbwr;
pub mod lgwr;
pub mod matrix;
pub mod read;
