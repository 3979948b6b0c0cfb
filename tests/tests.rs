//! dbio's integration tests: real files, real syscalls, real io_uring, the
//! real binary. Tests that need root (tmpfs and loop mounts) or a kernel
//! feature print a skip reason when it is missing.

#[macro_use]
mod util;

mod awr;
mod awr_rules;
mod awr_trend;
mod bench;
mod calibrate;
mod check;
mod cli;
mod compare;
mod dbwr;
mod docs;
mod durability;
mod findings;
mod fleet;
mod html;
mod lgwr;
mod lgwr_pipeline;
mod libaio;
mod load;
mod load_servers;
mod matrix;
mod progress;
mod read;
mod render_golden;
mod safety;
mod safety_blockdev;
mod safety_blockdev_data;
mod safety_files;
mod safety_inputs;
mod safety_limits;
mod safety_outputs;
mod safety_scratch_race;
mod safety_signals;
mod safety_sqlite;
mod schema;
mod schema_v2;
mod series;
mod snap;
mod snap_watch;
mod stripe;
mod stripe_commands;
mod tracefile;
mod tracefile_published;
mod verdict;
mod version;
mod watch;
mod watch_async;
mod watch_cgroup;
mod watch_cost;
mod watch_mariadb;
mod watch_names;
mod watch_pg18;
mod watch_queue;
mod watch_wrapper;
