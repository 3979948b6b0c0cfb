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
    /// (a multiple of --bs; ASM's coarse striping uses 1 MiB). Default: 1m.
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    pub stripe: Option<u64>,
    /// How logical offsets are laid over the targets. Default: raid0.
    #[arg(long, value_enum)]
    pub layout: Option<LayoutArg>,
}

/// `--layout` values.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LayoutArg {
    /// Stripe unit n on target n mod K (RAID-0, ASM coarse striping).
    Raid0,
    /// The first target's share, then the second's, ... (concatenation).
    Concat,
}

impl Stripe {
    /// The stripe unit (1 MiB unless given).
    pub fn unit(&self) -> u64 {
        self.stripe.unwrap_or(1 << 20)
    }

    /// The layout (raid0 unless given).
    pub fn layout(&self) -> StripeLayout {
        self.layout.map_or(StripeLayout::Raid0, Into::into)
    }

    /// Refuses --stripe or --layout without --targets (they would be
    /// ignored).
    pub fn check(&self) -> Result<(), String> {
        if self.targets.is_empty() && (self.stripe.is_some() || self.layout.is_some()) {
            return Err(
                "--stripe and --layout lay a job over several targets, so they need --targets"
                    .into(),
            );
        }
        Ok(())
    }
}

impl From<LayoutArg> for StripeLayout {
    fn from(a: LayoutArg) -> Self {
        match a {
            LayoutArg::Raid0 => StripeLayout::Raid0,
            LayoutArg::Concat => StripeLayout::Concat,
        }
    }
}
