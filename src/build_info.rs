//! This binary's [`BuildInfo`]: what `build.rs` recorded (revision, dirty
//! tree, date, target), what is compiled in, and the glibc it needs, read
//! from its own ELF file so that the floor stated is the one the linker
//! produced, not the one the build meant to pin.

use dbio_model::build::BuildInfo;
use object::read::elf::{ElfFile64, FileHeader};
use object::{Endianness, ReadCache};
use std::sync::OnceLock;

/// This build, computed once.
pub fn current() -> &'static BuildInfo {
    static BUILD: OnceLock<BuildInfo> = OnceLock::new();
    BUILD.get_or_init(|| {
        let revision = env!("DBIO_REVISION");
        let mut features: Vec<String> =
            dbio_load::clients().iter().map(|c| c.to_string()).collect();
        if cfg!(feature = "watch") {
            features.push("watch".into());
        }
        BuildInfo {
            version: env!("CARGO_PKG_VERSION").into(),
            revision: (!revision.is_empty()).then(|| revision.to_string()),
            dirty: env!("DBIO_DIRTY") == "true",
            date: env!("DBIO_BUILD_DATE").into(),
            target: env!("DBIO_TARGET").into(),
            glibc: std::fs::File::open("/proc/self/exe")
                .ok()
                .and_then(|f| glibc_floor(&ReadCache::new(f))),
            features,
            bpf_sha256: bpf_sha256(),
            schema_version: dbio_model::SCHEMA_VERSION,
        }
    })
}

/// `--version`'s text: the version line, then [`BuildInfo::lines`].
pub fn long_version() -> String {
    let b = current();
    let mut s = b.short().trim_start_matches("dbio ").to_string();
    for l in b.lines() {
        s.push('\n');
        s.push_str(&l);
    }
    s
}

#[cfg(feature = "watch")]
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The newest `GLIBC_x.y[.z]` version among the ELF file's version needs
/// (`.gnu.version_r`), as `objdump -T` would show it; None for a file
/// that needs no glibc version (static, musl) or is not a 64-bit ELF.
/// Reads only the headers and that section (the file may be 100 MB with
/// its debug information).
pub fn glibc_floor<'a, R: object::ReadRef<'a>>(data: R) -> Option<String> {
    let elf = ElfFile64::<Endianness, R>::parse(data).ok()?;
    let endian = elf.endian();
    let sections = elf.elf_header().sections(endian, data).ok()?;
    let (mut needs, link) = sections.gnu_verneed(endian, data).ok()??;
    let strings = sections.strings(endian, data, link).ok()?;
    let mut best: Option<Vec<u32>> = None;
    while let Some((_, mut aux)) = needs.next().ok()? {
        while let Some(a) = aux.next().ok()? {
            let name = a.name(endian, strings).ok()?;
            let Some(v) = std::str::from_utf8(name)
                .ok()
                .and_then(|n| n.strip_prefix("GLIBC_"))
            else {
                continue;
            };
            let Ok(parts) = v
                .split('.')
                .map(str::parse)
                .collect::<Result<Vec<u32>, _>>()
            else {
                continue; // GLIBC_PRIVATE
            };
            if best.as_ref().is_none_or(|b| parts > *b) {
                best = Some(parts);
            }
        }
    }
    best.map(|b| b.iter().map(u32::to_string).collect::<Vec<_>>().join("."))
}

/// The embedded BPF object's hash, in a build with the tracer.
#[cfg(feature = "watch")]
fn bpf_sha256() -> Option<String> {
    use sha2::{Digest, Sha256};
    Some(hex(&Sha256::digest(dbio_watch::BPF_OBJECT)))
}

/// No tracer in this build (a default build, without `full`): no hash.
#[cfg(not(feature = "watch"))]
fn bpf_sha256() -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary is linked against the machine's glibc: it needs
    /// some GLIBC_2.x, and no version newer than the glibc it runs on
    /// (`gnu_get_libc_version`).
    #[test]
    fn the_glibc_floor_of_a_glibc_binary_is_a_version_no_newer_than_the_running_glibc() {
        let f = std::fs::File::open("/proc/self/exe").unwrap();
        let floor = glibc_floor(&ReadCache::new(f)).expect("a glibc binary needs a GLIBC_ version");
        let running = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) }
            .to_str()
            .unwrap()
            .to_string();
        let num = |s: &str| {
            s.split('.')
                .map(|p| p.parse::<u32>().unwrap())
                .collect::<Vec<_>>()
        };
        assert!(num(&floor) >= vec![2, 2], "{floor}");
        assert!(
            num(&floor) <= num(&running),
            "needs {floor}, runs on {running}"
        );
    }

    #[test]
    fn a_file_that_is_not_elf_has_no_floor() {
        assert_eq!(glibc_floor(&b"#!/bin/sh\necho hi\n"[..]), None);
    }
}
