//! How dbio opens and reads the files it is given to read: saved results
//! (`report --from`, `compare`, `merge`, `--calibration`), AWR reports and
//! traces.
//!
//! dbio runs as root beside directories other users own, so an input named
//! by path may be a FIFO with no writer (an `open` or a `read` that never
//! returns), a device that never ends (`/dev/zero`), or a file far larger
//! than memory. [`open`] decides on the opened descriptor, never on a path
//! that can change between check and use: a path is opened `O_RDONLY |
//! O_NONBLOCK | O_NOCTTY` (a FIFO's open does not wait for a writer, a
//! terminal does not become the controlling one) and `fstat` says what it
//! is; only a regular file is read. Standard input (`-`) and the names
//! of a descriptor the caller already holds (`/dev/stdin`, `/dev/fd/N`,
//! `/proc/self/fd/N`, what a shell's `<(zcat x)` gives) read that
//! descriptor as it is: the user opened it, so a pipe there is what was
//! meant. [`read_capped`] reads a whole input with a cap checked on the
//! file's size before reading and counted while reading a stream, and
//! reserves its buffer fallibly ([`alloc::try_reserve`]).
//!
//! A separate crate rather than a module of `dbio-model` (which every
//! reader already depends on) because it needs system calls (rustix) and
//! the model stays serde types only.

pub mod alloc;
mod open;
mod read;

pub use open::{open, Input, Origin};
pub use read::{read_capped, ReadError};
