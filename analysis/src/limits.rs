//! The limits the commands take as plain numbers: `0` for none ([`nonzero`]), and a time limit
//! in seconds ([`time_limit`], shared by `gen` and `partition`, whose `--timeout` is checked the
//! same way).

use std::fmt;
use std::time::Duration;

/// `n`, or `None` for `0` (a budget of `0` means no budget).
pub fn nonzero(n: u64) -> Option<u64> {
    (n > 0).then_some(n)
}

/// A `--timeout` that is not a number of seconds (negative, infinite or not a number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeLimitError {
    /// The value given.
    pub seconds: f64,
}

impl fmt::Display for TimeLimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "--timeout {}: give a number of seconds (0: no limit)",
            self.seconds
        )
    }
}

impl std::error::Error for TimeLimitError {}

/// The time limit of `--timeout SECONDS`: `None` for `0` (no limit), an error unless `seconds`
/// is a finite number, `0` or more.
pub fn time_limit(seconds: f64) -> Result<Option<Duration>, TimeLimitError> {
    if !(seconds >= 0.0 && seconds.is_finite()) {
        return Err(TimeLimitError { seconds });
    }
    Ok((seconds > 0.0).then(|| Duration::from_secs_f64(seconds)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_no_limit_and_bad_numbers_are_refused() {
        assert_eq!(nonzero(0), None);
        assert_eq!(nonzero(7), Some(7));
        assert_eq!(time_limit(0.0), Ok(None));
        assert_eq!(time_limit(1.5), Ok(Some(Duration::from_millis(1500))));
        for bad in [-1.0, f64::INFINITY] {
            assert_eq!(time_limit(bad), Err(TimeLimitError { seconds: bad }));
        }
        assert!(time_limit(f64::NAN).is_err());
        assert_eq!(
            TimeLimitError { seconds: -1.0 }.to_string(),
            "--timeout -1: give a number of seconds (0: no limit)"
        );
    }
}
