//! One folder per kind of result: each renders its terminal table, its
//! part of the HTML page and draws its findings, so that a change to one
//! kind (a field of its result) stays in its folder.

pub mod awr;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod dbwr;
pub mod jobs;
pub mod lgwr;
pub mod load;
pub mod matrix;
pub mod read;
pub mod trace;
pub mod watch;
