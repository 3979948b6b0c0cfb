//! Lines dbio writes on standard error. An error names files, traces,
//! hosts and servers, and quotes what a server said: outside text, which
//! is shown with its control characters made visible
//! ([`dbio_model::visible::visible`]) so that a file name or a server
//! message cannot retitle, clear or rewrite the terminal it is read on.
//! Each line is one sentence: a newline inside it is escaped as well.

/// Prints `line` and a newline on standard error, made visible.
pub fn line(line: &str) {
    eprintln!("{}", dbio_model::visible::visible(line));
}
