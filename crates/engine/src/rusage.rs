//! CPU accounting per thread (getrusage RUSAGE_THREAD): user and system time
//! and context switches of exactly the workers, not of the whole process.

/// A getrusage reading.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    /// User time, ns.
    pub user_ns: u64,
    /// System time, ns.
    pub system_ns: u64,
    /// Voluntary context switches.
    pub nvcsw: u64,
    /// Involuntary context switches.
    pub nivcsw: u64,
}

fn tv_ns(t: libc::timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000
}

fn read(who: libc::c_int) -> Usage {
    // SAFETY: getrusage writes a plain struct; zeroed is a valid initial value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: ru is a valid out-pointer.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return Usage::default();
    }
    Usage {
        user_ns: tv_ns(ru.ru_utime),
        system_ns: tv_ns(ru.ru_stime),
        nvcsw: ru.ru_nvcsw as u64,
        nivcsw: ru.ru_nivcsw as u64,
    }
}

/// The calling thread's usage.
pub fn thread_usage() -> Usage {
    read(libc::RUSAGE_THREAD)
}

/// The whole process's usage.
pub fn process_usage() -> Usage {
    read(libc::RUSAGE_SELF)
}

impl Usage {
    /// `self - earlier`, saturating.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            system_ns: self.system_ns.saturating_sub(earlier.system_ns),
            nvcsw: self.nvcsw.saturating_sub(earlier.nvcsw),
            nivcsw: self.nivcsw.saturating_sub(earlier.nivcsw),
        }
    }

    /// Sum of two usages.
    pub fn plus(&self, o: &Usage) -> Usage {
        Usage {
            user_ns: self.user_ns + o.user_ns,
            system_ns: self.system_ns + o.system_ns,
            nvcsw: self.nvcsw + o.nvcsw,
            nivcsw: self.nivcsw + o.nivcsw,
        }
    }
}
