//! dbio(1): the man page, made from [`crate::command`], the one
//! definition that also parses the command line and prints `--help`, so
//! the page cannot name a flag the parser lacks (ripgrep's way;
//! clap_mangen does the writing).
//!
//! The man page is one page, dbio(1), as ripgrep's rg(1) is: dbio's own
//! synopsis and options, then a COMMANDS section with each subcommand's
//! description, synopsis and options. clap_mangen writes a page per
//! command; its sections are put together here under subsection
//! headings, so `man dbio` and a search in it find every flag.
//!
//! It lives beside the definitions rather than in the binary so that a
//! packaging step on the build host can write the page (and the
//! completions, [`crate::completions`]) for a binary built for another
//! architecture, which the build host cannot run.

use clap_mangen::Man;

/// dbio(1) in roff: the whole command tree on one page.
pub fn page() -> std::io::Result<Vec<u8>> {
    let mut cmd = crate::command();
    cmd.build();
    let man = Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in subcommands(&cmd) {
        commands_section(sub, &mut page)?;
    }
    man.render_version_section(&mut page)?;
    Ok(once_preamble(&page))
}

/// One page per subcommand, as git and cargo install them
/// (`man dbio-bench`): `dbio-bench.1` with the command's description,
/// synopsis and options, its own subcommands (`dbio generate man`) as
/// subsections, and SEE ALSO dbio(1). In `--help` order, with their file
/// names.
pub fn subcommand_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = crate::command();
    cmd.build();
    let version = cmd.get_version().unwrap_or_default().to_string();
    let mut pages = Vec::new();
    for sub in subcommands(&cmd) {
        let name = format!("dbio-{}", sub.get_name());
        let titled = sub.clone().name(name.clone()).version(version.clone());
        let man = Man::new(titled.clone());
        let mut page = Vec::new();
        man.render_title(&mut page)?;
        man.render_name_section(&mut page)?;
        man.render_synopsis_section(&mut page)?;
        man.render_description_section(&mut page)?;
        if titled.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut page)?;
        }
        let nested = subcommands(sub);
        if !nested.is_empty() {
            page.extend_from_slice(b".SH COMMANDS\n");
            for n in nested {
                commands_section(n, &mut page)?;
            }
        }
        page.extend_from_slice(b".SH \"SEE ALSO\"\n.BR dbio (1)\n");
        man.render_version_section(&mut page)?;
        pages.push((format!("{name}.1"), once_preamble(&page)));
    }
    Ok(pages)
}

/// The page with clap_mangen's two-line preamble (which defines the
/// apostrophe string, and which it writes before every section) kept
/// only at the top.
fn once_preamble(page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let preamble: Vec<&str> = text.lines().take(2).collect();
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if i >= 2 && preamble.contains(&line) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.into_bytes()
}

/// One subcommand (and, below it, its own subcommands) as a subsection
/// of COMMANDS: its full name as the heading, then its description,
/// synopsis and options without their own section headings.
fn commands_section(cmd: &clap::Command, page: &mut Vec<u8>) -> std::io::Result<()> {
    let name = cmd.get_bin_name().unwrap_or(cmd.get_name());
    let man = Man::new(cmd.clone());
    page.extend_from_slice(format!(".SS \"{}\"\n", name.replace('"', "")).as_bytes());
    let mut body = Vec::new();
    man.render_description_section(&mut body)?;
    man.render_synopsis_section(&mut body)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut body)?;
    }
    // The sections' own headings (.SH DESCRIPTION, .SH SYNOPSIS, .SH
    // OPTIONS) would end COMMANDS; a paragraph break stands for each.
    for line in String::from_utf8_lossy(&body).lines() {
        let line = if line.starts_with(".SH ") {
            ".PP"
        } else {
            line
        };
        page.extend_from_slice(line.as_bytes());
        page.push(b'\n');
    }
    for sub in subcommands(cmd) {
        commands_section(sub, page)?;
    }
    Ok(())
}

/// `cmd`'s subcommands in the order `--help` lists them, without clap's
/// `help` subcommand (its flags are every command's `--help`).
fn subcommands(cmd: &clap::Command) -> Vec<&clap::Command> {
    let mut subs: Vec<&clap::Command> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .collect();
    subs.sort_by_key(|s| s.get_display_order());
    subs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand and every flag that --help shows is named on the
    /// page (roff writes `-` as `\-`), and no renamed flag's old name is.
    #[test]
    fn the_man_page_names_every_subcommand_and_flag() {
        let page = String::from_utf8(page().unwrap())
            .unwrap()
            .replace("\\-", "-");
        assert!(page.contains("\n.TH dbio 1 "), "{}", &page[..200]);
        fn walk(cmd: &clap::Command, page: &str) {
            for sub in subcommands(cmd) {
                let name = sub.get_bin_name().unwrap();
                assert!(page.contains(&format!(".SS \"{name}\"")), "{name}");
                for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                    if let Some(long) = arg.get_long() {
                        assert!(page.contains(&format!("--{long}")), "{name} --{long}");
                    }
                }
                walk(sub, page);
            }
        }
        let mut cmd = crate::command();
        cmd.build();
        walk(&cmd, &page);
        for r in crate::renamed::RENAMED {
            assert!(!page.contains(&format!("--{}", r.old)), "{}", r.old);
        }
    }
}
