//! Writer CPU placement: free, one CPU per writer, or all writers in a set.
//!
//! Kevin Closson ("Over-Configuring DBWR Processes", part III)
//! bound running DBWR processes with `taskset -pc 2-3 PID` to a socket and
//! found that the throughput did not change: more writers help only when
//! one is CPU-bound. These placements reproduce that experiment on threads
//! with sched_setaffinity(2), which a thread applies to itself at start.

use super::DbwrError;
use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

pub use dbio_model::dbwr::{format_cpu_list, parse_cpu_list, Placement};

/// Checks that every named CPU is one this process may run on.
pub fn validate(p: &Placement) -> Result<(), DbwrError> {
    let named = match p {
        Placement::Free => return Ok(()),
        Placement::Pin(c) | Placement::Set(c) => c,
    };
    let allowed = allowed_cpus();
    if allowed.is_empty() {
        return Err(DbwrError::Invalid(
            "this system does not tell which CPUs dbio may use (sched_getaffinity failed), so writers cannot be placed".into(),
        ));
    }
    if let Some(c) = named.iter().find(|c| !allowed.contains(c)) {
        return Err(DbwrError::Invalid(format!(
            "CPU {c} is not one this process may use ({}); writers can only be placed there",
            format_cpu_list(&allowed)
        )));
    }
    Ok(())
}

/// The CPUs writer `w` may use, or None when free.
pub fn cpus_of(p: &Placement, w: u32) -> Option<Vec<usize>> {
    match p {
        Placement::Free => None,
        Placement::Pin(list) => {
            let list = if list.is_empty() {
                allowed_cpus()
            } else {
                list.clone()
            };
            (!list.is_empty()).then(|| vec![list[w as usize % list.len()]])
        }
        Placement::Set(list) => Some(list.clone()),
    }
}

/// Applies writer `w`'s placement to the calling thread; returns the
/// CPU list it now runs on, as the kernel reports it back
/// (sched_getaffinity of the calling thread, after the placement;
/// with `free`, whatever the process was allowed, e.g. by taskset or a
/// cpuset). `all` only when the kernel does not say.
pub fn apply(p: &Placement, w: u32) -> Result<String, DbwrError> {
    let Some(cpus) = cpus_of(p, w) else {
        return Ok(running_on().unwrap_or_else(|| "all".into()));
    };
    let mut set = CpuSet::new();
    for &c in &cpus {
        set.set(c);
    }
    let text = format_cpu_list(&cpus);
    sched_setaffinity(None, &set).map_err(|e| DbwrError::Affinity {
        writer: w,
        cpus: text.clone(),
        os: e.into(),
    })?;
    Ok(running_on().unwrap_or(text))
}

/// The calling thread's CPUs as the kernel has them (None if it fails).
fn running_on() -> Option<String> {
    let cpus = allowed_cpus();
    (!cpus.is_empty()).then(|| format_cpu_list(&cpus))
}

/// The CPUs the calling thread may run on (empty when unknown).
pub fn allowed_cpus() -> Vec<usize> {
    match sched_getaffinity(None) {
        Ok(set) => (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_round_robins_over_the_list() {
        let p = Placement::Pin(vec![4, 6]);
        assert_eq!(cpus_of(&p, 0), Some(vec![4]));
        assert_eq!(cpus_of(&p, 1), Some(vec![6]));
        assert_eq!(cpus_of(&p, 2), Some(vec![4]));
        assert_eq!(cpus_of(&Placement::Free, 3), None);
    }

    #[test]
    fn a_cpu_outside_the_allowed_set_is_refused() {
        let p = Placement::Set(vec![CpuSet::MAX_CPU - 1]);
        assert!(validate(&p).is_err());
    }
}
