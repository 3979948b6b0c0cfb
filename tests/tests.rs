//! dbio's integration tests: real files, real syscalls, the real binary.

mod tracefile;
