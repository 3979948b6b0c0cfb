//! Flags renamed so that one meaning has one name in every command
//! (fio's vocabulary: `--bs`, `--runtime`). A renamed flag's old name
//! still parses for one release, as a hidden alias of the new one (so
//! `--help`, the man page and the completions show only the new name),
//! and using it prints one line on standard error that names the new
//! one. The table below is the only place a rename is stated: the aliases
//! and the notices are both made from it.

/// One renamed flag: its old and new long names (without `--`) in the
/// listed subcommands.
#[derive(Debug, Clone, Copy)]
pub struct Renamed {
    /// The subcommands in which the flag was renamed.
    pub commands: &'static [&'static str],
    /// The old long name, still accepted for one release.
    pub old: &'static str,
    /// The new long name.
    pub new: &'static str,
}

impl Renamed {
    /// The clap id of the new flag: its Rust field name.
    fn id(&self) -> String {
        self.new.replace('-', "_")
    }
}

/// Every flag renamed in this release.
pub const RENAMED: &[Renamed] = &[
    Renamed {
        commands: &["matrix"],
        old: "point-time",
        new: "runtime",
    },
    Renamed {
        commands: &["watch"],
        old: "duration",
        new: "runtime",
    },
    Renamed {
        commands: &["read", "lgwr", "calibrate", "tracefile"],
        old: "block-size",
        new: "bs",
    },
];

/// `cmd` with each renamed flag's old name added as a hidden alias of the
/// new one.
pub fn with_old_names(mut cmd: clap::Command) -> clap::Command {
    for r in RENAMED {
        for sub in r.commands {
            cmd = cmd.mut_subcommand(sub, |s| s.mut_arg(r.id(), |a| a.alias(r.old)));
        }
    }
    cmd
}

/// The deprecation notices for a command line that parsed: one line for
/// each old name it uses, e.g. "dbio: --point-time is deprecated; use
/// --runtime (it will be removed in the next release)". Only the options
/// of the subcommand (the first argument that is not an option) before a
/// `--` count, so a watched command's own arguments never do.
pub fn notices(args: &[std::ffi::OsString]) -> Vec<String> {
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    let Some(sub) = words.by_ref().find(|w| !w.starts_with('-')) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for word in words.take_while(|w| w != "--") {
        let Some(name) = word.strip_prefix("--") else {
            continue;
        };
        let name = name.split_once('=').map_or(name, |(n, _)| n);
        if let Some(r) = RENAMED
            .iter()
            .find(|r| r.old == name && r.commands.contains(&sub.as_ref()))
        {
            let line = format!(
                "dbio: --{} is deprecated; use --{} (it will be removed in the next release)",
                r.old, r.new
            );
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every rename names a subcommand and a flag that exist, and the old
    /// name is not a flag of its own anywhere it is an alias.
    #[test]
    fn every_rename_names_a_real_flag() {
        let cmd = with_old_names(crate::Cli::command());
        for r in RENAMED {
            for sub in r.commands {
                let s = cmd.find_subcommand(sub).unwrap_or_else(|| panic!("{sub}"));
                let arg = s
                    .get_arguments()
                    .find(|a| a.get_id() == r.id().as_str())
                    .unwrap_or_else(|| panic!("{sub} has no {}", r.id()));
                assert_eq!(arg.get_long(), Some(r.new), "{sub}");
                assert!(
                    s.get_arguments().all(|a| a.get_long() != Some(r.old)),
                    "{sub} still defines --{}",
                    r.old
                );
            }
        }
    }

    #[test]
    fn notices_name_old_flags_of_their_own_subcommand_only() {
        let args = |s: &str| -> Vec<std::ffi::OsString> { s.split(' ').map(Into::into).collect() };
        let n = notices(&args("dbio matrix /d --point-time 1 --point-time=2"));
        assert_eq!(
            n,
            ["dbio: --point-time is deprecated; use --runtime (it will be removed in the next release)"]
        );
        assert!(notices(&args("dbio matrix /d --runtime 1")).is_empty());
        assert!(notices(&args("dbio watch -- matrix --point-time 1")).is_empty());
        assert!(notices(&args("dbio bench --point-time 1")).is_empty());
    }
}
