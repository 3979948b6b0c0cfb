//! What build of dbio wrote a result: enough to trace any saved result
//! back to the source and the options that made the binary (`dbio
//! --version`, `dbio version --json`, and the `build` field of every
//! result).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One build of dbio.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BuildInfo {
    /// The package version (`0.1.0`).
    pub version: String,
    /// The git commit the binary was built from (full hash); absent when
    /// built outside a git checkout (a source tarball).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// The working tree had changes not in that commit (tracked files
    /// modified or staged): the binary is not exactly `revision`.
    #[serde(default)]
    pub dirty: bool,
    /// Build date, UTC, `YYYY-MM-DD` (`SOURCE_DATE_EPOCH` when set, for a
    /// reproducible build).
    pub date: String,
    /// The Rust target triple (`x86_64-unknown-linux-gnu`).
    pub target: String,
    /// The newest glibc symbol version the binary requires (`2.28`): the
    /// oldest glibc it runs on, read from its own ELF version needs, not
    /// from how it was meant to be built. Absent when not linked against
    /// glibc or when the binary could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glibc: Option<String>,
    /// Optional parts compiled in (`postgres`, `mysql`, `watch`).
    pub features: Vec<String>,
    /// SHA-256 of the embedded BPF object of `dbio watch`, hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bpf_sha256: Option<String>,
    /// [`crate::SCHEMA_VERSION`] of the results this build writes.
    pub schema_version: u32,
}

impl BuildInfo {
    /// The short form results and the HTML page show:
    /// `dbio 0.1.0 (1a2b3c4d5e6f, dirty)`.
    pub fn short(&self) -> String {
        let mut s = format!("dbio {}", self.version);
        if let Some(r) = &self.revision {
            let r = &r[..r.len().min(12)];
            let dirty = if self.dirty { ", dirty" } else { "" };
            s.push_str(&format!(" ({r}{dirty})"));
        }
        s
    }

    /// `dbio --version`'s lines after the first.
    pub fn lines(&self) -> Vec<String> {
        let mut v = vec![
            format!(
                "revision: {}{}",
                self.revision
                    .as_deref()
                    .unwrap_or("unknown (not built from a git checkout)"),
                if self.dirty {
                    " (dirty: local changes)"
                } else {
                    ""
                }
            ),
            format!("built: {} for {}", self.date, self.target),
            format!(
                "glibc: {}",
                self.glibc
                    .as_deref()
                    .map_or("not required".to_string(), |g| format!("{g} or newer"))
            ),
            if self.features.is_empty() {
                "features: none (no database server clients, no BPF tracer: --features full builds them)"
                    .to_string()
            } else {
                format!("features: {}", self.features.join(", "))
            },
        ];
        if let Some(h) = &self.bpf_sha256 {
            v.push(format!("bpf object: sha256 {h}"));
        }
        v.push(format!("result schema: {}", self.schema_version));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_form_names_twelve_digits_of_the_revision_and_a_dirty_tree() {
        let mut b = BuildInfo {
            version: "0.1.0".into(),
            revision: Some("0123456789abcdef0123".into()),
            ..Default::default()
        };
        assert_eq!(b.short(), "dbio 0.1.0 (0123456789ab)");
        b.dirty = true;
        assert_eq!(b.short(), "dbio 0.1.0 (0123456789ab, dirty)");
        b.revision = None;
        assert_eq!(b.short(), "dbio 0.1.0");
    }

    #[test]
    fn a_build_without_optional_parts_says_so() {
        let mut b = BuildInfo::default();
        let features = |b: &BuildInfo| {
            b.lines()
                .into_iter()
                .find(|l| l.starts_with("features: "))
                .unwrap()
        };
        assert!(features(&b).starts_with("features: none (no database server clients"));
        b.features = vec!["postgres".into(), "watch".into()];
        assert_eq!(features(&b), "features: postgres, watch");
    }
}
