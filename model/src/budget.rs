//! Resource limits of a check: every procedure (and the diagnosis) counts search vertices,
//! watches the clock and accounts the bytes of its search structures; when a limit is reached
//! the answer is Inconclusive (or a partial diagnosis), never a guess, and never an aborted
//! process.
//!
//! Invariants:
//! - [`Meter::spend`] reads the clock after at most [`CLOCK_WORK`] units of work (a unit is
//!   about one machine word touched), so a search stops within a few milliseconds of its time
//!   limit whatever a vertex costs (a vertex of a 177,147-state automaton touches thousands of
//!   words; one of a 40-state automaton one).
//! - A search asks [`Budget::memory_allows`] before it grows a structure, with the bytes it
//!   would hold afterwards (old and new buffers together while one is copied into the other),
//!   so the limit bounds the peak, not only the steady state.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Resource limits for one multitrace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most search vertices (global and local analyses together); `None` for no limit.
    pub max_vertices: Option<u64>,
    /// Most wall-clock time; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Most bytes of search structures of one check (per worker); `None` for no limit.
    pub max_memory: Option<u64>,
}

impl Default for Budget {
    /// 5,000,000 vertices, no time limit, and [`default_max_memory`] for as many workers as
    /// the machine has cores.
    fn default() -> Self {
        Budget {
            max_vertices: Some(5_000_000),
            timeout: None,
            max_memory: Some(default_max_memory(default_jobs())),
        }
    }
}

impl Budget {
    /// No limit at all.
    pub const UNLIMITED: Budget = Budget {
        max_vertices: None,
        timeout: None,
        max_memory: None,
    };

    /// May a search hold `bytes` bytes?
    #[inline]
    pub fn memory_allows(&self, bytes: u64) -> bool {
        match self.max_memory {
            None => true,
            // The default is never below its floor: the system is asked only past it.
            Some(DEFERRED_MEMORY) => bytes <= MIN_DEFAULT_MEMORY || bytes <= deferred_memory(),
            Some(m) => bytes <= m,
        }
    }

    /// The memory limit in bytes, [`DEFERRED_MEMORY`] resolved (for messages).
    pub fn memory_limit(&self) -> Option<u64> {
        match self.max_memory {
            Some(DEFERRED_MEMORY) => Some(deferred_memory()),
            m => m,
        }
    }
}

/// A [`Budget::max_memory`] that stands for [`default_max_memory`] of
/// [`default_jobs`] workers (what [`Budget::default`] holds), read
/// from the system only when a search first asks for more than the default's floor (64 MiB),
/// so that a small check reads neither `/proc` nor `/sys` (the command's one-input check: 0.07
/// ms of its start-up). [`Budget::memory_allows`] answers exactly as with the value itself;
/// [`Budget::memory_limit`] gives the value. Not a whole number of MiB, so no `--max-memory`
/// gives it.
pub const DEFERRED_MEMORY: u64 = u64::MAX - 1;

/// The floor of [`default_max_memory`]: 64 MiB.
const MIN_DEFAULT_MEMORY: u64 = 64 << 20;

/// What [`DEFERRED_MEMORY`] stands for (read once).
fn deferred_memory() -> u64 {
    static DEFERRED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *DEFERRED.get_or_init(|| default_max_memory(default_jobs()))
}

/// Which limit ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `max_vertices`.
    Vertices,
    /// `timeout`.
    Time,
    /// `max_memory`.
    Memory,
}

impl Limit {
    /// The name recorded in `Reason::Budget::limit` (`"vertices"`, `"time"`, `"memory"`).
    pub fn name(self) -> &'static str {
        match self {
            Limit::Vertices => "vertices",
            Limit::Time => "time",
            Limit::Memory => "memory",
        }
    }
}

/// The command-line option that raises the limit named `limit` (as recorded in
/// `Reason::Budget::limit`), for messages; `None` for a limit no option changes.
pub fn option_of(limit: &str) -> Option<&'static str> {
    match limit {
        "vertices" => Some("--max-vertices"),
        "time" => Some("--timeout-ms"),
        "memory" => Some("--max-memory"),
        _ => None,
    }
}

/// Units of work between two readings of the clock (see the module invariants): about
/// 10-100 µs of search.
pub const CLOCK_WORK: u64 = 1 << 15;

/// The clock of one search: counts work and reads the clock when enough has been done.
#[derive(Clone, Debug)]
pub struct Meter {
    deadline: Option<Instant>,
    work: u64,
}

impl Meter {
    /// A meter for `budget`'s time limit, started now.
    pub fn start(budget: &Budget) -> Self {
        Meter {
            deadline: budget.timeout.map(|t| Instant::now() + t),
            work: 0,
        }
    }

    /// Counts `work` units; `true` when the time limit has passed (checked at least every
    /// [`CLOCK_WORK`] units, and at once for `work >= CLOCK_WORK`).
    #[inline]
    pub fn spend(&mut self, work: u64) -> bool {
        let Some(deadline) = self.deadline else {
            return false;
        };
        self.work += work;
        if self.work < CLOCK_WORK {
            return false;
        }
        self.work = 0;
        Instant::now() >= deadline
    }
}

/// The default memory limit of one worker: half the memory the process may use (the smaller
/// of the machine's physical memory and the address-space limit, `ulimit -v`) divided among
/// `workers`, in whole MiB and at least 64 MiB; 1 GiB per worker when neither can be read (outside Linux).
pub fn default_max_memory(workers: usize) -> u64 {
    let workers = workers.max(1) as u64;
    match usable_memory() {
        // Whole MiB, as `--max-memory` takes it.
        Some(bytes) => ((bytes / 2 / workers) >> 20 << 20).max(MIN_DEFAULT_MEMORY),
        None => 1 << 30,
    }
}

/// The smaller of physical memory (`/proc/meminfo`) and the address-space limit
/// (`/proc/self/limits`), when either is known; read once.
pub fn usable_memory() -> Option<u64> {
    static USABLE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *USABLE.get_or_init(|| {
        let physical = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| meminfo_total(&t));
        let space = std::fs::read_to_string("/proc/self/limits")
            .ok()
            .and_then(|t| address_space_limit(&t));
        match (physical, space) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The soft `Max address space` of a `/proc/self/limits` text, in bytes (`None` when
/// unlimited).
fn address_space_limit(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The number of cores (1 when it cannot be known): the default of a batch's workers (`multitrace-batch`).
/// Asked of the system once (it reads the cgroup files, a tenth of a millisecond).
pub fn default_jobs() -> usize {
    static JOBS: OnceLock<usize> = OnceLock::new();
    *JOBS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_texts_are_read() {
        let meminfo = "MemTotal:       16303332 kB\nMemFree:         1234 kB\n";
        assert_eq!(meminfo_total(meminfo), Some(16303332 * 1024));
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max cpu time              unlimited            unlimited            seconds   \n\
                      Max address space         2147483648           unlimited            bytes     \n";
        assert_eq!(address_space_limit(limits), Some(2147483648));
        let unlimited = limits.replace("2147483648", "unlimited ");
        assert_eq!(address_space_limit(&unlimited), None);
    }

    #[test]
    fn the_default_divides_among_workers() {
        let one = default_max_memory(1);
        assert!(one >= 64 << 20);
        assert!(default_max_memory(4) <= one);
        assert!(default_max_memory(1 << 20) >= 64 << 20);
        if let Some(u) = usable_memory() {
            assert!(one <= (u / 2).max(64 << 20));
        }
    }

    #[test]
    fn the_deferred_default_answers_as_the_default() {
        let deferred = Budget {
            max_memory: Some(DEFERRED_MEMORY),
            ..Budget::default()
        };
        let eager = Budget::default();
        let limit = eager.max_memory.unwrap();
        assert_eq!(deferred.memory_limit(), Some(limit));
        assert_eq!(eager.memory_limit(), Some(limit));
        assert_eq!(Budget::UNLIMITED.memory_limit(), None);
        for bytes in [
            0,
            1 << 20,
            MIN_DEFAULT_MEMORY,
            MIN_DEFAULT_MEMORY + 1,
            limit,
            limit + 1,
        ] {
            assert_eq!(
                deferred.memory_allows(bytes),
                eager.memory_allows(bytes),
                "{bytes}"
            );
        }
        assert!(!deferred.memory_allows(u64::MAX));
        // No whole number of MiB (what `--max-memory` and the settings give) is the marker.
        assert_ne!(DEFERRED_MEMORY % (1 << 20), 0);
        assert_ne!(u64::MAX.saturating_mul(1 << 20), DEFERRED_MEMORY);
    }

    #[test]
    fn the_meter_stops_after_the_deadline_and_never_without_one() {
        let mut free = Meter::start(&Budget::UNLIMITED);
        assert!(!free.spend(u64::MAX / 2));
        let budget = Budget {
            timeout: Some(Duration::from_millis(20)),
            ..Budget::UNLIMITED
        };
        let mut m = Meter::start(&budget);
        assert!(!m.spend(CLOCK_WORK), "not yet");
        std::thread::sleep(Duration::from_millis(30));
        // Small amounts of work reach the clock within CLOCK_WORK units.
        let stopped = (0..=CLOCK_WORK).any(|_| m.spend(1));
        assert!(stopped);
    }

    #[test]
    fn memory_limits_and_options_are_named() {
        let b = Budget {
            max_memory: Some(100),
            ..Budget::UNLIMITED
        };
        assert!(b.memory_allows(100) && !b.memory_allows(101));
        assert!(Budget::UNLIMITED.memory_allows(u64::MAX));
        for l in [Limit::Vertices, Limit::Time, Limit::Memory] {
            assert!(option_of(l.name()).is_some());
        }
        assert_eq!(option_of("depth"), None);
    }
}
