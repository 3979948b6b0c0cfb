//! `dbio snap`'s own flags.

use super::output::OutputArgs;
use super::{parse_delay_arg, parse_duration_arg};
use clap::Args;

/// Arguments of `dbio snap`.
#[derive(Debug, Args)]
#[command(
    about = "An AWR for PostgreSQL and MariaDB: two snapshots of a live server's statistics, \
the interval's DB time by wait class and event, and a verdict",
    long_about = "Take a snapshot of a running PostgreSQL or MariaDB server's cumulative \
statistics, wait --interval, take another, and report the difference as an AWR report is \
read by dbio awr: DB time split by wait class and event, the top events in Oracle's vocabulary \
('log file sync', 'log file parallel write', 'db file sequential read', DB CPU), the load \
profile, every counter's growth, the server's own tables (pg_stat_io, pg_stat_statements, \
performance_schema's files and statements), derived figures and a verdict. The result is an \
AWR result: dbio compare, dbio report --from, --html and --csv read it; --every with --for \
gives a series, shown as the AWR trend of its intervals.

PostgreSQL (15 to 18 tested): pg_stat_wal, pg_stat_io (16+), pg_stat_bgwriter and \
pg_stat_checkpointer (17+), pg_stat_database, pg_statio_all_tables, pg_stat_statements when \
installed; DB time from sampling pg_stat_activity every --sample-period on a connection of \
its own, as Oracle's ASH does (its cost is measured and shown), or from pg_wait_sampling \
when installed. MariaDB (10.11 tested): performance_schema's wait, file and statement \
summaries and SHOW GLOBAL STATUS; DB time is the statements' own timer.

Read-only: dbio sends only SELECT and SHOW statements and changes no setting. What the \
server does not track with its settings (track_io_timing, track_wal_io_timing, \
performance_schema instruments) is named with the setting that would enable it. The least \
privileged role: PostgreSQL pg_monitor; MariaDB PROCESS and SELECT on performance_schema.

Counters that go backwards inside the interval (a statistics reset, a restart) are said and \
counted from the reset, never as a negative rate; a snapshot of another server (a failover) \
is refused. SIGINT mid-interval ends the interval early: the partial interval is written, \
marked with the signal, and dbio exits with status 1.

--watch adds the layers of a commit: during the same interval the server's processes are \
followed in the kernel (their write, fsync and fdatasync calls on the WAL, redo and binary log \
files, and the queue and device time of the block requests carrying those files), and one \
table says where a commit's time goes: in the database before and around the flush, in the \
system call above the block layer, in the device queue, on the device."
)]
pub struct SnapArgs {
    /// The server: postgres://..., postgresql://..., a libpq keyword
    /// string (host=/var/run/postgresql dbname=... for a Unix socket),
    /// mysql://... or mariadb://... (?socket=PATH for a Unix socket);
    /// passwords and TLS as in dbio load.
    #[arg(value_name = "URL")]
    pub url: String,
    /// The interval between the two snapshots (e.g. 60, 30s, 5m; a bare
    /// number is seconds).
    #[arg(long, value_name = "DURATION", default_value = "60", value_parser = parse_duration_arg)]
    pub interval: f64,
    /// A series: one interval of this length after another, each
    /// beginning where the last ended (with --for).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_arg, requires = "for_", conflicts_with = "interval")]
    pub every: Option<f64>,
    /// How long the series lasts (with --every): --for / --every
    /// intervals, at most 1000.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration_arg, requires = "every")]
    pub for_: Option<f64>,
    /// How often the active sessions are sampled for DB time (PostgreSQL
    /// without pg_wait_sampling), e.g. 1s, 200ms; a unit is required.
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = parse_delay_arg)]
    pub sample_period: f64,
    /// Watch the server's processes in the kernel during the interval (as
    /// dbio watch --follow from the postmaster or mariadbd, with the block
    /// layer) and split a commit's time into its layers per log file: in
    /// the database, in the system call, in the device queue, on the
    /// device. The server must run on this host; needs root (BPF). One
    /// interval only (not with --every).
    #[arg(long, conflicts_with = "every")]
    pub watch: bool,
    /// Outputs.
    #[command(flatten)]
    pub output: OutputArgs,
}
