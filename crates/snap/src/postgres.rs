//! PostgreSQL snapshots: which statistics each version keeps, read with
//! version gates chosen by `server_version_num`, never by guessing from
//! errors.
//!
//! | view | versions | what dbio reads |
//! |---|---|---|
//! | `pg_stat_database` | all | commits, rollbacks, blocks read and hit, `blk_read_time`/`blk_write_time` (`track_io_timing`), `active_time` (14+) |
//! | `pg_stat_wal` | 14+ | WAL records, full-page images, bytes, buffers full; writes, syncs and their times (14–17, `track_wal_io_timing`) |
//! | `pg_stat_io` | 16+ | reads, writes, extends, fsyncs and their times by backend type, object and context (`track_io_timing`); 18: bytes, and the WAL rows (object `wal`) that replace `pg_stat_wal`'s times |
//! | `pg_stat_bgwriter` | all | buffers cleaned; until 16 also the checkpointer's and backends' writes |
//! | `pg_stat_checkpointer` | 17+ | checkpoints, buffers written, write and sync time |
//! | `pg_statio_all_tables` | all | heap, index and TOAST blocks read and hit, summed, and the tables read most |
//! | `pg_stat_statements` | when installed | the statements by time and by blocks read |
//! | `pg_wait_sampling` | when installed | its wait profile, used instead of dbio's own sampling |
//!
//! DB time and its split come from sampling `pg_stat_activity`
//! ([`crate::sampler`]), or from `pg_wait_sampling`'s profile where the
//! extension is installed (its own collector samples every 10 ms by
//! default; dbio then samples nothing).
//!
//! Exact commit counts: dbio's own connections commit transactions too
//! (each start-up and each statistics query is one). Both connections
//! count theirs ([`dbio_load::postgres::Monitor::committed`]) and push
//! their statistics out (`pg_stat_force_next_flush()`, PG15+) before
//! the commit count is read, so the interval's `user commits` is the
//! server's count less dbio's own, exactly (statistic
//! `dbio.own_xact_commit`). Before PG15 backends report asynchronously
//! and the count is only close.
//!
//! The least privileged role: `pg_monitor` (through its
//! `pg_read_all_stats`, other users' sessions become visible to the
//! sampler, and their statements' text). Without it, what is hidden is
//! said in one sentence naming the grant; the cumulative views are
//! readable by every role.

use crate::delta::{diff, Interval};
use crate::layers::{self, LogFiles, ServerProcess};
use crate::mapping::{pg_event, CPU};
use crate::report::{self, CommitFigures};
use crate::sampler::{Sampler, Samples};
use crate::{num, Group, Row, SnapError, SnapOptions, Snapper, Snapshot, MONITOR_APP};
use dbio_load::postgres::Monitor;
use dbio_load::target::ServerSpec;
use dbio_load::LoadError;
use dbio_model::awr::{AwrHeader, AwrReport, ReportKind, WaitEventRow};
use dbio_model::snap::{NotTracked, SampleSource, SnapFamily, SnapInfo};
use dbio_model::WaitClass;
use std::collections::BTreeMap;
use std::time::Instant;

/// The versions dbio snap is tested with (`server_version_num` / 10000).
pub const TESTED: std::ops::RangeInclusive<u32> = 15..=18;

/// The note on a version outside [`TESTED`] (`server_version_num`
/// `version_num`, shown as `version`): still read, with the queries of
/// the nearest tested version, and said so.
pub fn untested(version: &str, version_num: u32) -> Option<String> {
    (!TESTED.contains(&(version_num / 10_000))).then(|| {
        format!(
            "PostgreSQL {version} is outside the versions dbio snap is tested with ({} to {}): \
             its figures are read with the queries of the nearest tested version",
            TESTED.start(),
            TESTED.end()
        )
    })
}

/// What the server offers, found once when dbio connects.
#[derive(Debug, Clone, Default)]
struct Features {
    version_num: u32,
    track_io_timing: bool,
    track_wal_io_timing: bool,
    /// `wal_sync_method` is `open_sync` or `open_datasync`: the flush is
    /// inside the write, `wal_sync` stays 0.
    flush_in_write: bool,
    /// Member of `pg_read_all_stats` (or superuser).
    all_stats: bool,
    /// The schema of `pg_stat_statements`, when installed and loaded.
    statements: Option<String>,
    /// The schema of `pg_wait_sampling` and its profile period (s), when
    /// installed and loaded.
    wait_sampling: Option<(String, f64)>,
}

/// A PostgreSQL server snapshots are taken of.
pub struct PgSnapper {
    mon: Monitor,
    opts: SnapOptions,
    f: Features,
    /// What holds for every interval (tracking off, hidden, notes).
    info: SnapInfo,
    sampler: Option<Sampler>,
    /// The server's `system_identifier` when dbio connected.
    identity: Option<String>,
}

impl PgSnapper {
    /// Connects, checks the version and the role, and finds what the
    /// server tracks.
    pub fn open(spec: &ServerSpec, opts: &SnapOptions) -> Result<PgSnapper, SnapError> {
        let mut mon = Monitor::open(spec, MONITOR_APP)?;
        let v = mon.version_num();
        if v < 100_000 {
            return Err(SnapError::Refused(format!(
                "PostgreSQL {} is older than dbio snap can read (10 or later: pg_stat_activity \
                 names backend types from 10)",
                mon.version()
            )));
        }
        let settings = mon.query(
            "SELECT current_setting('track_io_timing'), \
             coalesce(current_setting('track_wal_io_timing', true), 'off'), \
             current_setting('wal_sync_method'), current_setting('track_activities'), \
             (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \
             OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER'), \
             current_user",
        )?;
        let row = settings.into_iter().next().unwrap_or_default();
        let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
        let mut f = Features {
            version_num: v,
            track_io_timing: get(0) == "on",
            track_wal_io_timing: get(1) == "on",
            flush_in_write: get(2).starts_with("open_"),
            all_stats: get(4) == "t",
            ..Default::default()
        };
        let track_activities = get(3) == "on";
        let user = get(5);
        let mut info = SnapInfo {
            family: SnapFamily::Postgres,
            server_version: mon.version().to_string(),
            version_num: v,
            target: mon.display_target().to_string(),
            planned_s: opts.interval_s,
            ..Default::default()
        };
        info.notes.extend(untested(mon.version(), v));
        f.statements = extension(&mut mon, "pg_stat_statements", "pg_stat_statements")?;
        if let Some((schema, period)) = wait_sampling(&mut mon)? {
            info.notes.push(format!(
                "pg_wait_sampling is installed: DB time and its split come from its profile \
                 (sampled every {:.0} ms by its own collector), and dbio samples nothing",
                period * 1000.0
            ));
            f.wait_sampling = Some((schema, period));
        }
        info.not_tracked = not_tracked(&f, track_activities);
        if !f.all_stats {
            info.hidden.push(format!(
                "role {user} is not a member of pg_monitor (nor pg_read_all_stats): other \
                 roles' sessions are invisible to the sampler, so DB time and its split \
                 cover only {user}'s own sessions, and other roles' statement texts are \
                 hidden (GRANT pg_monitor TO {user} shows them)"
            ));
        }
        let identity = identity(&mut mon)?;
        Ok(PgSnapper {
            mon,
            opts: opts.clone(),
            f,
            info,
            sampler: None,
            identity,
        })
    }

    fn snapshot_once(&mut self) -> Result<Snapshot, LoadError> {
        let v = self.f.version_num;
        // dbio's own commits are flushed first, then counted, then the
        // commit count is read (see the module doc).
        if v >= 150_000 {
            self.mon.query("SELECT pg_stat_force_next_flush()")?;
        }
        let own_commits = self.mon.committed();
        let mut groups = vec![self.group(&database_spec(v))?];
        let head = self.mon.query(
            "SELECT to_char(now(), 'DD-Mon-YY HH24:MI:SS'), pg_postmaster_start_time()::text",
        )?;
        let head = head.into_iter().next().unwrap_or_default();
        let at = Instant::now();
        let identity = identity(&mut self.mon)?;
        for spec in specs(v, &self.f) {
            groups.push(self.group(&spec)?);
        }
        if let Some((schema, _)) = &self.f.wait_sampling {
            groups.push(self.group(&wait_profile_spec(schema))?);
        }
        Ok(Snapshot {
            at,
            wall: head.first().cloned().flatten().unwrap_or_default(),
            identity,
            started: head.get(1).cloned().flatten(),
            groups,
            own_commits,
        })
    }

    /// Reads one group of counters.
    fn group(&mut self, s: &Spec) -> Result<Group, LoadError> {
        let rows = self.mon.query(&s.sql())?;
        let nk = s.keys.len();
        let nl = usize::from(s.label.is_some());
        Ok(Group {
            name: s.name.to_string(),
            keys: s.keys.iter().map(|k| k.to_string()).collect(),
            cols: s.cols.iter().map(|(c, u)| (c.to_string(), *u)).collect(),
            rows: rows
                .into_iter()
                .map(|r| Row {
                    key: r[..nk]
                        .iter()
                        .map(|k| k.clone().unwrap_or_default())
                        .collect(),
                    label: (nl == 1).then(|| r[nk].clone().unwrap_or_default()),
                    values: r[nk + nl..nk + nl + s.cols.len()].iter().map(num).collect(),
                    reset: s
                        .reset
                        .and(r.get(nk + nl + s.cols.len()).cloned().flatten()),
                })
                .collect(),
        })
    }

    /// The interval as an AWR result.
    fn build(
        &self,
        i: &Interval,
        a: &Snapshot,
        b: &Snapshot,
        samples: Option<Samples>,
        partial: Option<&str>,
    ) -> AwrReport {
        let f = &self.f;
        let mut info = self.info.clone();
        info.resets = i.resets.clone();
        info.partial = partial.map(str::to_string);
        if i.restarted {
            info.notes.push(format!(
                "the server restarted inside the interval (it started at {}): the sampler \
                 lost its connection then, so DB time covers the interval before the restart",
                b.started.as_deref().unwrap_or("?")
            ));
        }
        // The sampled profile: (background, backend type, event) → s.
        let (profile, own_sampler) = match (&samples, &f.wait_sampling) {
            (_, Some((_, period))) => (wait_profile(i, *period), 0),
            (Some(s), None) => {
                info.sample_source = SampleSource::PgStatActivity;
                info.sampler = Some(s.cost.clone());
                let p = s.cost.period_s;
                let prof = s
                    .counts
                    .iter()
                    .map(|(k, n)| (k.clone(), *n as f64 * p))
                    .collect();
                (prof, s.committed)
            }
            (None, None) => (BTreeMap::new(), 0),
        };
        if f.wait_sampling.is_some() {
            info.sample_source = SampleSource::PgWaitSampling;
        }
        let db = i.group("pg_stat_database");
        let sum = |g: Option<&Group>, c: &str| g.and_then(|g| g.sum(c));
        // The monitor connected again (a restart): its count restarted.
        let own_monitor = b
            .own_commits
            .checked_sub(a.own_commits)
            .unwrap_or(b.own_commits);
        let own = own_monitor + own_sampler;
        let xact_commit = sum(db, "xact_commit");
        let commits = xact_commit.map(|c| (c - own as f64).max(0.0));
        let rollbacks = sum(db, "xact_rollback");
        let transactions = commits.map(|c| c + rollbacks.unwrap_or(0.0));
        let db_time: f64 = profile
            .iter()
            // Idle waits (a client read inside an active statement, as
            // COPY FROM STDIN) are not DB time, as in AWR.
            .filter(|((bg, _, e), _)| !bg && pg_event(e, false).class != WaitClass::Idle)
            .map(|(_, s)| s)
            .sum::<f64>()
            // An empty sum is -0.0.
            + 0.0;
        let db_time_s = (!profile.is_empty() || samples.is_some()).then_some(db_time);
        let (fg, bg) = events(&profile, db_time_s);
        let wal = Wal::of(i, f);
        let commit_wait_s = oracle_time(&profile, "log file sync");
        let reads = Reads::of(i, f);
        let blocks_written = blocks_written(i, f.version_num);
        let mut top = top_events(&profile, db_time_s);
        // The exact figures, where the server counts and times them,
        // replace the sampled ones in the top events.
        exact_rows(&mut top, &wal, &reads, db_time_s);
        let figures = CommitFigures {
            log_bytes: wal.bytes,
            log_writes: wal.writes,
            log_flushes: wal.flushes,
            log_flush_time_s: wal.time_s,
            commits,
            rollbacks,
            commit_wait_s,
            blocks_read: reads.blocks,
            blocks_written,
        };
        let mut statistics = report::statistics(i, transactions);
        for (name, v) in [
            ("dbio.own_xact_commit", Some(own as f64)),
            ("user commits", commits),
            ("user rollbacks", rollbacks),
            ("redo size", wal.bytes),
            ("redo writes", wal.writes),
            ("redo synch writes", wal.flushes),
            ("physical reads", reads.blocks),
            ("physical writes", blocks_written),
        ] {
            if let Some(v) = v {
                statistics.push(report::stat(name, v, i, transactions));
            }
        }
        let logical = sum(db, "blks_hit").zip(reads.blocks).map(|(h, r)| h + r);
        let load_profile = report::load_profile(
            &[
                ("DB Time(s)", db_time_s),
                (
                    "DB CPU(s)",
                    top.iter()
                        .find(|e| e.name == "DB CPU")
                        .and_then(|e| e.time_s),
                ),
                ("Redo size (bytes)", wal.bytes),
                ("Logical read (blocks)", logical),
                ("Physical read (blocks)", reads.blocks),
                ("Physical write (blocks)", blocks_written),
                ("Transactions", transactions),
                ("Rollbacks", rollbacks),
            ],
            i.elapsed_s,
            transactions,
        );
        AwrReport {
            schema_version: dbio_model::SCHEMA_VERSION,
            invocation: None,
            build: None,
            source: self.mon.display_target().to_string(),
            kind: ReportKind::PostgresSnap,
            bytes: 0,
            lines: 0,
            header: AwrHeader {
                db_name: Some(self.mon.database()),
                instance: Some(self.mon.display_target().to_string()),
                version: Some(self.mon.version().to_string()),
                host: self.mon.host(),
                platform: None,
                cpus: None,
                rac: false,
                instances: 1,
                begin_snap: None,
                end_snap: None,
                elapsed_s: Some(i.elapsed_s),
                db_time_s,
                dbid: b.identity.clone(),
                begin_time: Some(a.wall.clone()),
                end_time: Some(b.wall.clone()),
            },
            load_profile,
            top_events: top,
            foreground_events: fg,
            background_events: bg,
            statistics,
            histograms: Vec::new(),
            tables: tables(i),
            sections: Vec::new(),
            derived: report::derived(&figures, i.elapsed_s),
            findings: Vec::new(),
            verdict: None,
            decimal_comma: false,
            with_trace: None,
            snap: Some(info),
            ..Default::default()
        }
    }
}

impl Snapper for PgSnapper {
    fn snapshot(&mut self) -> Result<Snapshot, SnapError> {
        match self.snapshot_once() {
            Err(LoadError::Lost(_)) => {
                self.mon.reconnect()?;
                // Another server behind the same target (a failover) may
                // be another version: refused before its views are read
                // with this one's queries.
                let now = identity(&mut self.mon)?;
                crate::delta::same_server(
                    self.identity.as_deref(),
                    now.as_deref(),
                    self.mon.display_target(),
                )
                .map_err(SnapError::Failover)?;
                Ok(self.snapshot_once()?)
            }
            r => Ok(r?),
        }
    }

    fn start_interval(&mut self) -> Result<(), SnapError> {
        if self.f.wait_sampling.is_none() {
            self.sampler = Some(Sampler::start(&self.mon, self.opts.sample_period_s)?);
        }
        Ok(())
    }

    fn finish_interval(
        &mut self,
        begin: &Snapshot,
        planned_s: f64,
        partial: Option<&str>,
    ) -> Result<(Snapshot, AwrReport), SnapError> {
        let samples = match self.sampler.take() {
            Some(s) => Some(s.finish()?),
            None => None,
        };
        let end = self.snapshot()?;
        let i = diff(begin, &end, self.mon.display_target()).map_err(SnapError::Failover)?;
        let mut r = self.build(&i, begin, &end, samples, partial);
        if let Some(s) = r.snap.as_mut() {
            s.planned_s = planned_s;
        }
        Ok((end, r))
    }

    fn server_process(&mut self) -> Result<ServerProcess, SnapError> {
        let Some(backend) = crate::sampler::local_backend(&mut self.mon) else {
            return Err(SnapError::Refused(layers::not_here(
                SnapFamily::Postgres,
                "its backend for this connection is no postgres process here",
            )));
        };
        let postmaster = layers::parent_of(backend)
            .filter(|&p| layers::comm_of(p).is_some_and(|c| c == "postgres" || c == "postmaster"));
        match postmaster {
            Some(pid) => Ok(ServerProcess {
                pid,
                role: "postmaster",
                logs: LogFiles {
                    family: SnapFamily::Postgres,
                    binlog_base: None,
                },
            }),
            None => Err(SnapError::Refused(layers::not_here(
                SnapFamily::Postgres,
                &format!("backend {backend}'s parent is not a postgres process"),
            ))),
        }
    }
}

/// One group's query: key columns, an optional label, counter columns
/// with units, an optional reset-time column, from a view.
struct Spec {
    name: &'static str,
    keys: Vec<&'static str>,
    label: Option<String>,
    cols: Vec<(&'static str, &'static str)>,
    reset: Option<&'static str>,
    from: String,
}

impl Spec {
    fn sql(&self) -> String {
        let mut sel: Vec<String> = self
            .keys
            .iter()
            .map(|k| format!("coalesce({k}::text, '')"))
            .collect();
        if let Some(l) = &self.label {
            sel.push(l.clone());
        }
        sel.extend(self.cols.iter().map(|(c, _)| c.to_string()));
        if let Some(r) = self.reset {
            sel.push(format!("{r}::text"));
        }
        format!("SELECT {} FROM {}", sel.join(", "), self.from)
    }
}

fn spec(
    name: &'static str,
    keys: &[&'static str],
    cols: &[(&'static str, &'static str)],
    reset: Option<&'static str>,
    from: &str,
) -> Spec {
    Spec {
        name,
        keys: keys.to_vec(),
        label: None,
        cols: cols.to_vec(),
        reset,
        from: from.to_string(),
    }
}

/// `pg_stat_database`, every database (the row with no name is the
/// shared catalogs'): the instance's commits, as AWR counts them.
fn database_spec(v: u32) -> Spec {
    let mut cols = vec![
        ("xact_commit", "count"),
        ("xact_rollback", "count"),
        ("blks_read", "count"),
        ("blks_hit", "count"),
        ("tup_returned", "count"),
        ("tup_fetched", "count"),
        ("tup_inserted", "count"),
        ("tup_updated", "count"),
        ("tup_deleted", "count"),
        ("temp_files", "count"),
        ("temp_bytes", "bytes"),
        ("deadlocks", "count"),
        ("blk_read_time", "ms"),
        ("blk_write_time", "ms"),
    ];
    if v >= 140_000 {
        cols.extend([
            ("session_time", "ms"),
            ("active_time", "ms"),
            ("idle_in_transaction_time", "ms"),
            ("sessions", "count"),
        ]);
    }
    spec(
        "pg_stat_database",
        &["datname"],
        &cols,
        Some("stats_reset"),
        "pg_stat_database",
    )
}

/// Every other group this version keeps.
fn specs(v: u32, f: &Features) -> Vec<Spec> {
    let mut out = Vec::new();
    if (140_000..180_000).contains(&v) {
        out.push(spec(
            "pg_stat_wal",
            &[],
            &[
                ("wal_records", "count"),
                ("wal_fpi", "count"),
                ("wal_bytes", "bytes"),
                ("wal_buffers_full", "count"),
                ("wal_write", "count"),
                ("wal_sync", "count"),
                ("wal_write_time", "ms"),
                ("wal_sync_time", "ms"),
            ],
            Some("stats_reset"),
            "pg_stat_wal",
        ));
    } else if v >= 180_000 {
        out.push(spec(
            "pg_stat_wal",
            &[],
            &[
                ("wal_records", "count"),
                ("wal_fpi", "count"),
                ("wal_bytes", "bytes"),
                ("wal_buffers_full", "count"),
            ],
            Some("stats_reset"),
            "pg_stat_wal",
        ));
    }
    if v >= 160_000 {
        let mut cols = vec![
            ("reads", "count"),
            ("read_time", "ms"),
            ("writes", "count"),
            ("write_time", "ms"),
            ("writebacks", "count"),
            ("writeback_time", "ms"),
            ("extends", "count"),
            ("extend_time", "ms"),
            ("hits", "count"),
            ("evictions", "count"),
            ("fsyncs", "count"),
            ("fsync_time", "ms"),
        ];
        if v >= 180_000 {
            cols.extend([
                ("read_bytes", "bytes"),
                ("write_bytes", "bytes"),
                ("extend_bytes", "bytes"),
            ]);
        }
        out.push(spec(
            "pg_stat_io",
            &["backend_type", "object", "context"],
            &cols,
            Some("stats_reset"),
            "pg_stat_io",
        ));
    }
    if v >= 170_000 {
        out.push(spec(
            "pg_stat_bgwriter",
            &[],
            &[
                ("buffers_clean", "count"),
                ("maxwritten_clean", "count"),
                ("buffers_alloc", "count"),
            ],
            Some("stats_reset"),
            "pg_stat_bgwriter",
        ));
        out.push(spec(
            "pg_stat_checkpointer",
            &[],
            &[
                ("num_timed", "count"),
                ("num_requested", "count"),
                ("write_time", "ms"),
                ("sync_time", "ms"),
                ("buffers_written", "count"),
            ],
            Some("stats_reset"),
            "pg_stat_checkpointer",
        ));
    } else {
        out.push(spec(
            "pg_stat_bgwriter",
            &[],
            &[
                ("checkpoints_timed", "count"),
                ("checkpoints_req", "count"),
                ("checkpoint_write_time", "ms"),
                ("checkpoint_sync_time", "ms"),
                ("buffers_checkpoint", "count"),
                ("buffers_clean", "count"),
                ("maxwritten_clean", "count"),
                ("buffers_backend", "count"),
                ("buffers_backend_fsync", "count"),
                ("buffers_alloc", "count"),
            ],
            Some("stats_reset"),
            "pg_stat_bgwriter",
        ));
    }
    out.push(spec(
        "pg_statio_all_tables",
        &["schemaname", "relname"],
        &[
            ("heap_blks_read", "count"),
            ("heap_blks_hit", "count"),
            ("idx_blks_read", "count"),
            ("idx_blks_hit", "count"),
            ("toast_blks_read", "count"),
            ("toast_blks_hit", "count"),
        ],
        None,
        "pg_statio_all_tables",
    ));
    if let Some(schema) = &f.statements {
        let read_time = if v >= 170_000 {
            "shared_blk_read_time"
        } else {
            "blk_read_time"
        };
        let mut s = spec(
            "pg_stat_statements",
            &["userid", "dbid", "queryid"],
            &[
                ("calls", "count"),
                ("total_exec_time", "ms"),
                ("rows", "count"),
                ("shared_blks_hit", "count"),
                ("shared_blks_read", "count"),
                (read_time, "ms"),
                ("wal_bytes", "bytes"),
            ],
            None,
            &format!("{}.pg_stat_statements", quote_ident(schema)),
        );
        s.label = Some("left(regexp_replace(query, '\\s+', ' ', 'g'), 120)".into());
        out.push(s);
    }
    out
}

/// `pg_wait_sampling`'s cumulative profile, summed by backend type and
/// event (a process that ended between the snapshots leaves the profile
/// with its counts: its rows count from zero, see [`crate::delta`]).
fn wait_profile_spec(schema: &str) -> Spec {
    spec(
        "pg_wait_sampling_profile",
        &["background", "backend_type", "event"],
        &[("count", "count")],
        None,
        &format!(
            "(SELECT coalesce(a.backend_type, 'client backend') NOT IN ('client backend', \
             'parallel worker') AS background, coalesce(a.backend_type, 'client backend') AS \
             backend_type, coalesce(p.event_type || ':' || p.event, 'CPU') AS event, \
             sum(p.count) AS count FROM {}.pg_wait_sampling_profile p LEFT JOIN \
             pg_stat_activity a USING (pid) GROUP BY 1, 2, 3) w",
            quote_ident(schema)
        ),
    )
}

/// The profile from `pg_wait_sampling`'s counts × its period.
fn wait_profile(i: &Interval, period_s: f64) -> BTreeMap<(bool, String, String), f64> {
    let mut out = BTreeMap::new();
    if let Some(g) = i.group("pg_wait_sampling_profile") {
        for r in &g.rows {
            let [bg, backend, event] = &r.key[..] else {
                continue;
            };
            if bg == "true" && event.starts_with("Activity:") {
                continue;
            }
            let n = r.values.first().copied().flatten().unwrap_or(0.0);
            *out.entry((bg == "true", backend.clone(), event.clone()))
                .or_insert(0.0) += n * period_s;
        }
    }
    out
}

/// The server's `system_identifier` (`None` where the role may not call
/// `pg_control_system()`: pg_monitor may).
fn identity(mon: &mut Monitor) -> Result<Option<String>, LoadError> {
    Ok(mon
        .query_code("SELECT system_identifier::text FROM pg_control_system()")?
        .ok()
        .and_then(|rows| rows.into_iter().next()?.into_iter().next()?))
}

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The schema of extension `ext` when it is installed and its view
/// `view` can be read (an extension created but not in
/// `shared_preload_libraries` refuses to be read: it is not used).
fn extension(mon: &mut Monitor, ext: &str, view: &str) -> Result<Option<String>, LoadError> {
    let rows = mon.query(&format!(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace \
         WHERE e.extname = '{ext}'"
    ))?;
    let Some(schema) = rows.into_iter().next().and_then(|r| r.into_iter().next()?) else {
        return Ok(None);
    };
    let probe = format!("SELECT 1 FROM {}.{view} LIMIT 1", quote_ident(&schema));
    Ok(mon.query_code(&probe)?.ok().map(|_| schema))
}

/// `pg_wait_sampling` with its profile period, when usable.
fn wait_sampling(mon: &mut Monitor) -> Result<Option<(String, f64)>, LoadError> {
    let Some(schema) = extension(mon, "pg_wait_sampling", "pg_wait_sampling_profile")? else {
        return Ok(None);
    };
    let rows = mon
        .query("SELECT coalesce(current_setting('pg_wait_sampling.profile_period', true), '10')")?;
    let ms: f64 = rows.first().and_then(|r| num(r.first()?)).unwrap_or(10.0);
    Ok(Some((schema, ms / 1000.0)))
}

/// The settings that leave statistics untracked, with what would enable
/// each (dbio never changes them).
fn not_tracked(f: &Features, track_activities: bool) -> Vec<NotTracked> {
    let alter =
        |s: &str| format!("ALTER SYSTEM SET {s} = on; SELECT pg_reload_conf() (a superuser)");
    let mut out = Vec::new();
    if !track_activities {
        out.push(NotTracked {
            setting: "track_activities".into(),
            missing: "pg_stat_activity shows no state or wait events: no DB time can be sampled"
                .into(),
            enable: alter("track_activities"),
        });
    }
    if !f.track_io_timing {
        out.push(NotTracked {
            setting: "track_io_timing".into(),
            missing: "data file read and write times (blk_read_time, pg_stat_io times): \
                      'db file sequential read' has counts but no time"
                .into(),
            enable: alter("track_io_timing"),
        });
    }
    if f.version_num >= 140_000 && !f.track_wal_io_timing {
        out.push(NotTracked {
            setting: "track_wal_io_timing".into(),
            missing: "WAL write and sync times: 'log file parallel write' has counts but no time"
                .into(),
            enable: alter("track_wal_io_timing"),
        });
    }
    if f.version_num < 140_000 {
        out.push(NotTracked {
            setting: format!("server_version_num {}", f.version_num),
            missing: "pg_stat_wal (added in 14): no WAL flush counts or times".into(),
            enable: "upgrade to PostgreSQL 14 or later".into(),
        });
    }
    if f.statements.is_none() {
        out.push(NotTracked {
            setting: "pg_stat_statements".into(),
            missing: "the statements by time and by blocks read".into(),
            enable: "shared_preload_libraries = 'pg_stat_statements' (a restart), then \
                     CREATE EXTENSION pg_stat_statements"
                .into(),
        });
    }
    out
}

/// The WAL flush path over the interval.
#[derive(Debug, Default)]
struct Wal {
    bytes: Option<f64>,
    writes: Option<f64>,
    flushes: Option<f64>,
    /// Write + flush time, s (None without `track_wal_io_timing`).
    time_s: Option<f64>,
}

impl Wal {
    fn of(i: &Interval, f: &Features) -> Wal {
        let wal = i.group("pg_stat_wal");
        let bytes = wal.and_then(|g| g.scalar("wal_bytes"));
        if f.version_num >= 180_000 {
            let io = i.group("pg_stat_io");
            let s =
                |c: &str| io.and_then(|g| g.sum_where(c, |k| k.get(1).is_some_and(|o| o == "wal")));
            let (writes, fsyncs) = (s("writes"), s("fsyncs"));
            let time = s("write_time")
                .zip(s("fsync_time"))
                .map(|(w, y)| (w + y) / 1000.0);
            return Wal {
                bytes,
                writes,
                flushes: if f.flush_in_write { writes } else { fsyncs },
                time_s: time.filter(|_| f.track_wal_io_timing),
            };
        }
        let s = |c: &str| wal.and_then(|g| g.scalar(c));
        let writes = s("wal_write");
        let time = s("wal_write_time")
            .zip(s("wal_sync_time"))
            .map(|(w, y)| (w + y) / 1000.0);
        Wal {
            bytes,
            writes,
            flushes: if f.flush_in_write {
                writes
            } else {
                s("wal_sync")
            },
            time_s: time.filter(|_| f.track_wal_io_timing),
        }
    }
}

/// Data file reads: count (blocks up to 16; read operations from 17,
/// which may combine blocks) and time.
#[derive(Debug, Default)]
struct Reads {
    /// Blocks read by every process (`pg_stat_database.blks_read`).
    blocks: Option<f64>,
    /// Reads by client backends and their time, s (pg_stat_io, 16+;
    /// pg_stat_database's, which include background processes, before).
    session_reads: Option<f64>,
    session_time_s: Option<f64>,
}

impl Reads {
    fn of(i: &Interval, f: &Features) -> Reads {
        let db = i.group("pg_stat_database");
        let blocks = db.and_then(|g| g.sum("blks_read"));
        let timed = |t: Option<f64>| t.filter(|_| f.track_io_timing).map(|ms| ms / 1000.0);
        if f.version_num >= 160_000 {
            let io = i.group("pg_stat_io");
            let client = |k: &[String]| {
                k.first().is_some_and(|b| b == "client backend")
                    && k.get(1)
                        .is_some_and(|o| o.starts_with("relation") || o == "temp relation")
            };
            return Reads {
                blocks,
                session_reads: io.and_then(|g| g.sum_where("reads", client)),
                session_time_s: timed(io.and_then(|g| g.sum_where("read_time", client))),
            };
        }
        Reads {
            blocks,
            session_reads: blocks,
            session_time_s: timed(db.and_then(|g| g.sum("blk_read_time"))),
        }
    }
}

/// Blocks written by the checkpointer, the background writer and the
/// backends.
fn blocks_written(i: &Interval, v: u32) -> Option<f64> {
    if v >= 160_000 {
        return i.group("pg_stat_io").and_then(|g| {
            g.sum_where("writes", |k| {
                k.get(1).is_some_and(|o| o.contains("relation"))
            })
        });
    }
    let bg = i.group("pg_stat_bgwriter")?;
    let parts = ["buffers_checkpoint", "buffers_clean", "buffers_backend"];
    let vals: Vec<f64> = parts.iter().filter_map(|c| bg.scalar(c)).collect();
    (!vals.is_empty()).then(|| vals.iter().sum())
}

/// Seconds of the sampled profile whose session events map to `oracle`.
fn oracle_time(profile: &BTreeMap<(bool, String, String), f64>, oracle: &str) -> Option<f64> {
    let t: Vec<f64> = profile
        .iter()
        .filter(|((bg, _, e), _)| !bg && pg_event(e, false).oracle == Some(oracle))
        .map(|(_, s)| *s)
        .collect();
    (!t.is_empty()).then(|| t.iter().sum())
}

/// The native events: sessions' (foreground, the DB time split), and
/// background processes' (each named with its process type).
fn events(
    profile: &BTreeMap<(bool, String, String), f64>,
    db_time_s: Option<f64>,
) -> (Vec<WaitEventRow>, Vec<WaitEventRow>) {
    let mut fg: BTreeMap<String, f64> = BTreeMap::new();
    let mut bg: BTreeMap<String, (f64, WaitClass)> = BTreeMap::new();
    for ((is_bg, backend, event), s) in profile {
        if *is_bg {
            let class = if event == CPU {
                WaitClass::Other
            } else {
                pg_event(event, true).class
            };
            bg.entry(format!("{event} ({backend})"))
                .or_insert((0.0, class))
                .0 += s;
        } else {
            *fg.entry(event.clone()).or_insert(0.0) += s;
        }
    }
    let fg = fg
        .into_iter()
        .map(|(e, s)| {
            let class = if e == CPU {
                "CPU".to_string()
            } else {
                pg_event(&e, false).class.label().to_string()
            };
            report::event(&e, &class, None, Some(s), db_time_s)
        })
        .collect();
    let bg = bg
        .into_iter()
        .map(|(e, (s, c))| report::event(&e, c.label(), None, Some(s), None))
        .collect();
    (report::by_time(fg), report::by_time(bg))
}

/// The sessions' sampled time in Oracle's words: each native event under
/// its Oracle event where there is one (class: the Oracle class and the
/// native events it came from), else under its own name.
fn top_events(
    profile: &BTreeMap<(bool, String, String), f64>,
    db_time_s: Option<f64>,
) -> Vec<WaitEventRow> {
    let mut by: BTreeMap<String, (f64, WaitClass, Vec<String>)> = BTreeMap::new();
    for ((bg, _, event), s) in profile {
        if *bg {
            continue;
        }
        let m = pg_event(event, false);
        if m.class == WaitClass::Idle {
            continue;
        }
        let name = m.oracle.map_or_else(|| event.clone(), str::to_string);
        let e = by.entry(name).or_insert((0.0, m.class, Vec::new()));
        e.0 += s;
        if !e.2.contains(event) {
            e.2.push(event.clone());
        }
    }
    let rows = by
        .into_iter()
        .map(|(name, (s, class, natives))| {
            let class = if name == "DB CPU" {
                "CPU; sampled active, no wait event".to_string()
            } else {
                format!("{}; sampled {}", class.label(), natives.join(", "))
            };
            report::event(&name, &class, None, Some(s), db_time_s)
        })
        .collect();
    report::by_time(rows)
}

/// The exact counts and times in place of the sampled ones: 'log file
/// parallel write' from the WAL statistics, 'db file sequential read'
/// from the read statistics (a row added when the sampler saw none).
fn exact_rows(top: &mut Vec<WaitEventRow>, wal: &Wal, reads: &Reads, db_time_s: Option<f64>) {
    if wal.flushes.is_some_and(|n| n > 0.0) {
        top.push(report::event(
            "log file parallel write",
            "System I/O; pg_stat_wal (PG18: pg_stat_io object wal) writes and syncs, exact",
            wal.flushes,
            wal.time_s,
            None,
        ));
    }
    if let Some(n) = reads.session_reads.filter(|n| *n > 0.0) {
        let class = "User I/O; reads and read time (pg_stat_io client backend, or \
                     pg_stat_database), exact";
        let exact = report::event(
            "db file sequential read",
            class,
            Some(n),
            reads.session_time_s,
            db_time_s,
        );
        match top.iter_mut().find(|e| e.name == "db file sequential read") {
            // Timed: the exact time replaces the sampled one.
            Some(e) if exact.time_s.is_some() => *e = exact,
            // Untimed: the sampled time stays, with the exact count.
            Some(e) => {
                e.waits = Some(n);
                e.avg_us = e.time_s.map(|t| t * 1e6 / n);
            }
            None => top.push(exact),
        }
    }
    let sorted = report::by_time(std::mem::take(top));
    *top = sorted;
}

/// The tables kept as read: pg_stat_io, the databases, the tables read
/// most, the statements by time and by blocks read.
fn tables(i: &Interval) -> Vec<dbio_model::awr::RawTable> {
    let mut out = Vec::new();
    if let Some(g) = i.group("pg_stat_io") {
        out.push(report::table("pg_stat_io", g, "reads", 0));
    }
    if let Some(g) = i.group("pg_stat_database") {
        out.push(report::table("pg_stat_database", g, "xact_commit", 0));
    }
    if let Some(g) = i.group("pg_statio_all_tables") {
        out.push(report::table(
            "pg_statio_all_tables (most blocks read)",
            g,
            "heap_blks_read",
            10,
        ));
    }
    if let Some(g) = i.group("pg_stat_statements") {
        out.push(report::table(
            "pg_stat_statements by time",
            g,
            "total_exec_time",
            10,
        ));
        out.push(report::table(
            "pg_stat_statements by blocks read",
            g,
            "shared_blks_read",
            10,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_outside_15_to_18_are_read_and_said_untested() {
        for (version, num) in [("14.12", 140_012), ("19beta1", 190_000)] {
            let note = untested(version, num).expect(version);
            assert!(
                note.starts_with(&format!(
                    "PostgreSQL {version} is outside the versions dbio snap is tested with \
                     (15 to 18)"
                )),
                "{note}"
            );
        }
        for num in [150_000, 160_004, 180_004, 189_999] {
            assert_eq!(untested("x", num), None, "{num}");
        }
    }

    #[test]
    fn each_version_reads_the_views_it_has() {
        let names = |v: u32| -> Vec<&str> {
            specs(
                v,
                &Features {
                    version_num: v,
                    ..Default::default()
                },
            )
            .iter()
            .map(|s| s.name)
            .collect()
        };
        assert_eq!(
            names(150_018),
            ["pg_stat_wal", "pg_stat_bgwriter", "pg_statio_all_tables"]
        );
        assert_eq!(
            names(160_004),
            [
                "pg_stat_wal",
                "pg_stat_io",
                "pg_stat_bgwriter",
                "pg_statio_all_tables"
            ]
        );
        assert_eq!(
            names(170_000),
            [
                "pg_stat_wal",
                "pg_stat_io",
                "pg_stat_bgwriter",
                "pg_stat_checkpointer",
                "pg_statio_all_tables"
            ]
        );
        let v18 = specs(
            180_000,
            &Features {
                version_num: 180_000,
                ..Default::default()
            },
        );
        let wal = v18.iter().find(|s| s.name == "pg_stat_wal").unwrap();
        assert!(
            !wal.cols.iter().any(|(c, _)| *c == "wal_sync"),
            "18 moved the WAL sync counts to pg_stat_io"
        );
        let io = v18.iter().find(|s| s.name == "pg_stat_io").unwrap();
        assert!(io.cols.iter().any(|(c, _)| *c == "write_bytes"));
        assert_eq!(names(130_000), ["pg_stat_bgwriter", "pg_statio_all_tables"]);
    }

    #[test]
    fn a_query_is_keys_label_counters_and_reset() {
        let mut s = spec(
            "pg_stat_io",
            &["backend_type", "object"],
            &[("reads", "count")],
            Some("stats_reset"),
            "pg_stat_io",
        );
        assert_eq!(
            s.sql(),
            "SELECT coalesce(backend_type::text, ''), coalesce(object::text, ''), reads, \
             stats_reset::text FROM pg_stat_io"
        );
        s.label = Some("query".into());
        assert!(s.sql().contains("'') , query, reads") || s.sql().contains("'), query, reads"));
        assert!(dbio_load::postgres::is_read_only(&s.sql()));
    }

    #[test]
    fn tracking_off_is_named_with_its_setting() {
        let f = Features {
            version_num: 150_000,
            statements: Some("public".into()),
            ..Default::default()
        };
        let n = not_tracked(&f, true);
        let names: Vec<&str> = n.iter().map(|t| t.setting.as_str()).collect();
        assert_eq!(names, ["track_io_timing", "track_wal_io_timing"]);
        assert!(n[0]
            .enable
            .contains("ALTER SYSTEM SET track_io_timing = on"));
        let all_on = Features {
            track_io_timing: true,
            track_wal_io_timing: true,
            ..f
        };
        assert!(not_tracked(&all_on, true).is_empty());
        assert_eq!(not_tracked(&all_on, false)[0].setting, "track_activities");
    }

    fn profile(rows: &[(bool, &str, &str, f64)]) -> BTreeMap<(bool, String, String), f64> {
        rows.iter()
            .map(|(b, k, e, s)| ((*b, k.to_string(), e.to_string()), *s))
            .collect()
    }

    #[test]
    fn sampled_sessions_become_oracle_events_and_background_stays_apart() {
        let p = profile(&[
            (false, "client backend", "LWLock:WALWrite", 30.0),
            (false, "client backend", "IO:WALSync", 20.0),
            (false, "client backend", CPU, 40.0),
            (false, "client backend", "Client:ClientRead", 5.0),
            (false, "client backend", "LWLock:LockManager", 10.0),
            (true, "walwriter", "IO:WALWrite", 7.0),
        ]);
        let top = top_events(&p, Some(105.0));
        let names: Vec<&str> = top.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["log file sync", "DB CPU", "LWLock:LockManager"]);
        assert_eq!(top[0].time_s, Some(50.0));
        assert!(top[0]
            .class
            .as_deref()
            .unwrap()
            .starts_with("Commit; sampled"));
        let (fg, bg) = events(&p, Some(105.0));
        assert_eq!(fg[0].name, "CPU");
        assert_eq!(fg[0].class.as_deref(), Some("CPU"));
        assert_eq!(
            fg.iter()
                .find(|e| e.name == "IO:WALSync")
                .unwrap()
                .class
                .as_deref(),
            Some("Commit")
        );
        assert_eq!(bg[0].name, "IO:WALWrite (walwriter)");
        assert_eq!(bg[0].class.as_deref(), Some("System I/O"));
        assert_eq!(oracle_time(&p, "log file sync"), Some(50.0));
    }

    #[test]
    fn exact_reads_replace_sampled_ones_only_when_timed() {
        let p = profile(&[(false, "client backend", "IO:DataFileRead", 2.0)]);
        let mut top = top_events(&p, Some(10.0));
        let reads = Reads {
            blocks: Some(1000.0),
            session_reads: Some(1000.0),
            session_time_s: None,
        };
        exact_rows(&mut top, &Wal::default(), &reads, Some(10.0));
        let r = &top[0];
        assert_eq!((r.waits, r.time_s), (Some(1000.0), Some(2.0)));
        assert_eq!(r.avg_us, Some(2000.0));
        let timed = Reads {
            session_time_s: Some(0.5),
            ..reads
        };
        let mut top = top_events(&p, Some(10.0));
        exact_rows(&mut top, &Wal::default(), &timed, Some(10.0));
        assert_eq!(top[0].time_s, Some(0.5));
        assert_eq!(top[0].avg_us, Some(500.0));
    }
}
