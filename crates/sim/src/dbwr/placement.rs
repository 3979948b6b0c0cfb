//! Writer CPU placement: free, one CPU per writer, or all writers in a set.
//!
//! Kevin Closson ("Over-Configuring DBWR Processes", part III)
//! bound running DBWR processes with `taskset -pc 2-3 PID` to a socket and
//! found that the throughput did not change: more writers help only when
//! one is CPU-bound. These placements reproduce that experiment on threads
//! with sched_setaffinity(2), which a thread applies to itself at start.

use super::DbwrError;
use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

/// Where writer threads may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Wherever the scheduler puts them.
    Free,
    /// Writer `w` on CPU `cpus[w % cpus.len()]` only (the CPUs this process
    /// may use when the list is empty).
    Pin(Vec<usize>),
    /// Every writer confined to this set (`taskset -c`).
    Set(Vec<usize>),
}

impl Placement {
    /// Parses `free`, `pin`, `pin:0,2`, `set:0-1` or `set:0,2-3`.
    pub fn parse(s: &str) -> Result<Placement, String> {
        let s = s.trim();
        let (kind, list) = s.split_once(':').unwrap_or((s, ""));
        match kind {
            "free" if list.is_empty() => Ok(Placement::Free),
            "pin" => Ok(Placement::Pin(if list.is_empty() {
                Vec::new()
            } else {
                parse_cpu_list(list)?
            })),
            "set" if !list.is_empty() => Ok(Placement::Set(parse_cpu_list(list)?)),
            _ => Err(format!(
                "'{s}' is not a placement: use free, pin, pin:CPUS or set:CPUS (CPUS like 0,2-3)"
            )),
        }
    }

    /// Checks that every named CPU is one this process may run on.
    pub fn validate(&self, writers: u32) -> Result<(), DbwrError> {
        let named = match self {
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
        let _ = writers;
        Ok(())
    }

    /// The CPUs writer `w` may use, or None when free.
    pub fn cpus_of(&self, w: u32) -> Option<Vec<usize>> {
        match self {
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
    pub fn apply(&self, w: u32) -> Result<String, DbwrError> {
        let Some(cpus) = self.cpus_of(w) else {
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
}

/// The calling thread's CPUs as the kernel has them (None if it fails).
fn running_on() -> Option<String> {
    let cpus = allowed_cpus();
    (!cpus.is_empty()).then(|| format_cpu_list(&cpus))
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Placement::Free => write!(f, "free"),
            Placement::Pin(l) if l.is_empty() => write!(f, "pin"),
            Placement::Pin(l) => write!(f, "pin:{}", format_cpu_list(l)),
            Placement::Set(l) => write!(f, "set:{}", format_cpu_list(l)),
        }
    }
}

/// The CPUs the calling thread may run on (empty when unknown).
pub fn allowed_cpus() -> Vec<usize> {
    match sched_getaffinity(None) {
        Ok(set) => (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
        Err(_) => Vec::new(),
    }
}

/// Parses a taskset-style CPU list: `0,2-3`.
pub fn parse_cpu_list(s: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let bad = || format!("'{part}' is not a CPU number or range (like 0,2-3)");
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                a.trim().parse::<usize>().map_err(|_| bad())?,
                b.trim().parse::<usize>().map_err(|_| bad())?,
            ),
            None => {
                let v = part.parse::<usize>().map_err(|_| bad())?;
                (v, v)
            }
        };
        if a > b || b >= CpuSet::MAX_CPU {
            return Err(bad());
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Formats CPUs as a compact list: `0-3,6`.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_taskset_lists() {
        assert_eq!(parse_cpu_list("0,2-3").unwrap(), vec![0, 2, 3]);
        assert_eq!(format_cpu_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert_eq!(Placement::parse("free").unwrap(), Placement::Free);
        assert_eq!(Placement::parse("pin").unwrap(), Placement::Pin(vec![]));
        assert_eq!(
            Placement::parse("set:0-1").unwrap().to_string(),
            "set:0-1".to_string()
        );
        assert!(Placement::parse("set").is_err());
        assert!(Placement::parse("loose").is_err());
    }

    #[test]
    fn pinning_round_robins_over_the_list() {
        let p = Placement::Pin(vec![4, 6]);
        assert_eq!(p.cpus_of(0), Some(vec![4]));
        assert_eq!(p.cpus_of(1), Some(vec![6]));
        assert_eq!(p.cpus_of(2), Some(vec![4]));
        assert_eq!(Placement::Free.cpus_of(3), None);
    }

    #[test]
    fn a_cpu_outside_the_allowed_set_is_refused() {
        let p = Placement::Set(vec![CpuSet::MAX_CPU - 1]);
        assert!(p.validate(1).is_err());
    }
}
