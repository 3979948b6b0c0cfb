//! Where trace bytes come from: files, directories, globs, standard input,
//! and gzip or xz compression recognised by magic bytes (not by name).
//!
//! Every error names the input it is about, in one sentence, so the CLI can
//! print it as it is.
//!
//! A file is opened by `dbio_input::open`: only a regular file is read by
//! name (a FIFO with no writer would block the reader forever, a device
//! may never end), `/dev/fd/N` and `/proc/self/fd/N` (a shell's `<(zcat
//! x)`) read the descriptor they name. A file named on the command line is
//! checked when the inputs are expanded, so that a FIFO there is refused
//! before anything is read; a file is checked again when it is opened for
//! reading, on its descriptor. Traces are streamed: nothing here caps
//! their size.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// One input to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// Name to show: the path, or `-`.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "-".into(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// File names a directory contributes (non-recursive).
const DIR_SUFFIXES: &[&str] = &[".trc", ".trc.gz", ".trc.xz"];

fn err(msg: String) -> io::Error {
    io::Error::other(msg)
}

/// Expands the inputs as typed: `-`, files, directories (their `*.trc`,
/// `*.trc.gz` and `*.trc.xz` files, sorted) and glob patterns (sorted).
pub fn expand(inputs: &[String]) -> io::Result<Vec<Source>> {
    let mut out = Vec::new();
    for input in inputs {
        if input == "-" {
            out.push(Source::Stdin);
            continue;
        }
        let path = Path::new(input);
        if path.is_dir() {
            let rd = std::fs::read_dir(path)
                .map_err(|e| err(format!("cannot read directory '{input}': {e}")))?;
            let mut files: Vec<PathBuf> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| DIR_SUFFIXES.iter().any(|s| n.ends_with(s)))
                })
                .collect();
            if files.is_empty() {
                return Err(err(format!(
                    "directory '{input}' holds no .trc, .trc.gz or .trc.xz file"
                )));
            }
            files.sort();
            out.extend(files.into_iter().map(Source::File));
        } else if path.exists() {
            // Opened once to refuse what is not a file; read later.
            dbio_input::open(path)?;
            out.push(Source::File(path.to_path_buf()));
        } else if input.contains(['*', '?', '[']) {
            let paths = glob::glob(input)
                .map_err(|e| err(format!("'{input}' is not a valid glob pattern: {e}")))?;
            let mut files: Vec<PathBuf> = paths
                .filter_map(|p| p.ok())
                .filter(|p| p.is_file())
                .collect();
            if files.is_empty() {
                return Err(err(format!("no file matches '{input}'")));
            }
            files.sort();
            out.extend(files.into_iter().map(Source::File));
        } else {
            return Err(err(format!(
                "cannot read '{input}': no such file or directory"
            )));
        }
    }
    Ok(out)
}

/// Opens a source, decompressing gzip (`1f 8b`) and xz (`fd 37 7a 58 5a 00`)
/// transparently.
pub fn open(src: &Source) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = match src {
        Source::Stdin => Box::new(io::stdin()),
        Source::File(p) => Box::new(dbio_input::open(p)?.file),
    };
    decompress(raw).map_err(|e| err(format!("cannot read '{}': {e}", src.name())))
}

/// Wraps a reader in the decompressor its first bytes call for.
pub fn decompress(raw: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut br = BufReader::with_capacity(256 * 1024, raw);
    let head = br.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(flate2::read::MultiGzDecoder::new(br)))
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Ok(Box::new(xz2::read::XzDecoder::new_multi_decoder(br)))
    } else {
        Ok(Box::new(br))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_and_xz_are_recognised_by_content() {
        let text = b"WAIT #0: nam='x' ela= 1\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text).unwrap();
        let gz = gz.finish().unwrap();
        let mut out = Vec::new();
        decompress(Box::new(io::Cursor::new(gz)))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);

        let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
        xz.write_all(text).unwrap();
        let xz = xz.finish().unwrap();
        let mut out = Vec::new();
        decompress(Box::new(io::Cursor::new(xz)))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);
    }

    #[test]
    fn missing_inputs_are_named() {
        let e = expand(&["/nonexistent/x.trc".into()]).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.trc"), "{e}");
        let e = expand(&["/nonexistent/*.trc".into()]).unwrap_err();
        assert!(e.to_string().contains("no file matches"), "{e}");
    }
}
