//! `dbio check`: the findings over the battery as a whole (its jobs, log writer, reads and writers each render in their own folder).

pub mod findings;
