//! The time limit of a whole `partition` run (`--timeout`): one instant shared by every stage,
//! read between units of work (a product state, a global trace, a multitrace checked), and
//! passed on as the remaining time to each check by the runtime. Reaching it leaves the
//! question undecided (never a wrong answer).

use std::time::{Duration, Instant};

/// When the run must stop, and the limit as given (for the messages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline {
    /// The instant (`None`: no limit).
    pub at: Option<Instant>,
    /// The limit as given.
    pub limit: Duration,
}

impl Deadline {
    /// A deadline `limit` from now (`None`: no limit).
    pub fn after(limit: Option<Duration>) -> Deadline {
        Deadline {
            at: limit.map(|l| Instant::now() + l),
            limit: limit.unwrap_or_default(),
        }
    }

    /// Whether it has passed.
    pub fn expired(&self) -> bool {
        self.at.is_some_and(|d| Instant::now() >= d)
    }

    /// The time left (`None`: no limit); zero once passed.
    pub fn remaining(&self) -> Option<Duration> {
        self.at.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// That the limit was reached `during` a stage, naming the option: `time limit of 10 s reached
/// while searching (b) (--timeout 10; 0: none)`.
pub fn limit_text(limit: Duration, during: &str) -> String {
    let s = limit.as_secs_f64();
    format!("time limit of {s} s reached while {during} (--timeout {s}; 0: none)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_expires_and_none_never_does() {
        let none = Deadline::after(None);
        assert!(!none.expired());
        assert_eq!(none.remaining(), None);
        let zero = Deadline::after(Some(Duration::ZERO));
        assert!(zero.expired());
        assert_eq!(zero.remaining(), Some(Duration::ZERO));
        let hour = Deadline::after(Some(Duration::from_secs(3600)));
        assert!(!hour.expired());
        assert!(hour.remaining().unwrap() > Duration::from_secs(3500));
        assert_eq!(
            limit_text(Duration::from_secs(10), "searching (b)"),
            "time limit of 10 s reached while searching (b) (--timeout 10; 0: none)"
        );
    }
}
