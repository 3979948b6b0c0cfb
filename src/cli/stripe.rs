//! `--targets`, `--stripe`, `--layout`: one logical address space over
//! several files or devices (RAID-0, ASM coarse striping).

use clap::{Args, ValueEnum};
use dbio_model::stripe::StripeLayout;
use dbio_model::units::parse_size;
use std::path::PathBuf;

/// Striping across targets.
#[derive(Debug, Clone, Args)]
pub struct Stripe {
    /// Stripe the job over these targets (comma list of files, directories
    /// or block devices; instead of TARGET). Each is opened and checked as
    /// a single target is; --size is the logical size, split evenly. The
    /// report shows each target beside the totals.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "T1,T2,...",
        conflicts_with = "target"
    )]
    pub targets: Vec<PathBuf>,
    /// Stripe unit: logical bytes that go to one target before the next
    /// (a multiple of --bs; ASM's coarse striping uses 1 MiB).
    #[arg(long, value_parser = parse_size, default_value = "1m", value_name = "SIZE")]
    pub stripe: u64,
    /// How logical offsets are laid over the targets.
    #[arg(long, value_enum, default_value = "raid0")]
    pub layout: LayoutArg,
}

/// `--layout` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LayoutArg {
    /// Stripe unit n on target n mod K (RAID-0, ASM coarse striping).
    Raid0,
    /// The first target's share, then the second's, ... (concatenation).
    Concat,
}

impl From<LayoutArg> for StripeLayout {
    fn from(a: LayoutArg) -> Self {
        match a {
            LayoutArg::Raid0 => StripeLayout::Raid0,
            LayoutArg::Concat => StripeLayout::Concat,
        }
    }
}
