//! The log-writer model (`dbio lgwr`): sessions commit, one log writer
//! gathers their redo and writes it with group commit, on real storage.
//!
//! Why a model and not fio: a database commit waits for a write it does
//! not issue. A session puts its redo in a shared log buffer and sleeps
//! ('log file sync'); one log writer takes everything pending, writes it as
//! one padded, sequential write that it makes durable ('log file parallel
//! write'), then posts every session the write covered. fio, pg_test_fsync
//! and ioping each sync their own writes and cannot show group commit,
//! redo wastage, or the scheduling gap between the two waits ("Analyzing
//! Oracle Logwriter w/ buffered vs. direct I/O": buffered redo rewrote
//! whole 8 KB blocks and read the log 1 MB at a time; "Log File Sync wait
//! event and SSD disks": 20.8 ms of 'log file sync' against 0.1 ms of 'log
//! file parallel write').
//!
//! Layout: [`config`] (options and their validation before any I/O),
//! [`record`] (the on-disk redo record: header with session, sequence,
//! length and checksum), [`logbuf`] (the bounded log buffer and the queue
//! of pending commits), [`files`] (the group of log files and members),
//! [`io`] (one write onto every member), [`writer`] (the log-writer
//! thread: gather, pad, write, post, switch), [`session`] (the committing
//! threads), [`client`] (a client thread per session, `--client-cpu`), [`stage`]
//! (the later stages of a pipelined commit, `--pipeline`), [`stats`] (per-thread recording and the merge into the result
//! model), [`verify`] (reading every committed record back), [`run`](mod@run) (one
//! run end to end).

pub mod client;
pub mod config;
pub mod cpu;
pub mod files;
pub mod io;
pub mod logbuf;
pub mod record;
pub mod rounds;
pub mod run;
pub mod session;
pub mod stage;
pub mod stats;
pub mod verify;
pub mod writer;

pub use config::{LgwrConfig, LgwrRun, Method, RedoSize};
pub use files::LogGroup;
pub use run::{check, run, LgwrError, Outcome};
pub use stats::Measured;
