//! The categories of generated multitraces and what a candidate must be checked to have.
//!
//! Invariants: [`Kind::ALL`] lists every kind once, seed 004's categories first (`compare`
//! orders its table by it); [`Kind::name`] is the name of the command line, of the files
//! (`KIND-0001.htf`) and of the manifest's `kind` column, and [`Kind::from_name`] reads it
//! back; [`Kind::accepts`] never accepts an Inconclusive verdict, so a kept multitrace is
//! always labelled by a definite verdict.

use multitrace_model::verdict::{Mode, Reason, Verdict, VerdictKind};
use std::fmt;
use std::str::FromStr;

/// A category of generated multitraces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Accepted (Pass in complete mode).
    Pass,
    /// Fail with AS reason LocalError (complete mode).
    LocalError,
    /// Fail with AS reason InterError (complete mode).
    InterError,
    /// Fail with AS reason CentralError (complete mode), by iterating a cycle differently per
    /// location.
    CentralError,
    /// Fail with AS reason CentralError (complete mode), by mixing local traces of correct
    /// multitraces (for models where iterating cycles cannot fail, see
    /// [`GenError`](super::GenError)).
    CentralErrorMixed,
    /// A multi-prefix that is not accepted (WeakPass in prefix mode).
    Prefix,
    /// A multi-prefix with a random letter inserted (any verdict, prefix mode).
    Noise,
    /// A multi-prefix with two letters of a local trace swapped (any verdict, prefix mode).
    SwapActions,
    /// A multi-prefix with one local trace from another multi-prefix (any verdict, prefix
    /// mode).
    SwapComponents,
}

impl Kind {
    /// Every kind, seed 004's first.
    pub const ALL: [Kind; 9] = [
        Kind::Pass,
        Kind::LocalError,
        Kind::InterError,
        Kind::CentralError,
        Kind::CentralErrorMixed,
        Kind::Prefix,
        Kind::Noise,
        Kind::SwapActions,
        Kind::SwapComponents,
    ];

    /// The name used on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pass => "pass",
            Kind::LocalError => "local-error",
            Kind::InterError => "inter-error",
            Kind::CentralError => "central-error",
            Kind::CentralErrorMixed => "central-error-mixed",
            Kind::Prefix => "prefix",
            Kind::Noise => "noise",
            Kind::SwapActions => "swap-actions",
            Kind::SwapComponents => "swap-components",
        }
    }

    /// The kind of that name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// One line for users choosing a kind (the command line's help of each value).
    pub fn help(self) -> &'static str {
        match self {
            Kind::Pass => {
                "Accepted runs of the NFA projected on the locations (Pass, complete mode)"
            }
            Kind::LocalError => {
                "A correct multitrace with local mutations (AS: LocalError, complete mode)"
            }
            Kind::InterError => {
                "Local traces mixed from correct multitraces (AS: InterError, complete mode)"
            }
            Kind::CentralError => "A cycle iterated a different number of times per location (AS: CentralError, complete mode)",
            Kind::CentralErrorMixed => {
                "Local traces mixed from correct multitraces (AS: CentralError, complete mode)"
            }
            Kind::Prefix => "A multi-prefix of an accepted multitrace (WeakPass, prefix mode)",
            Kind::Noise => {
                "A multi-prefix with a random action inserted (any verdict, prefix mode)"
            }
            Kind::SwapActions => {
                "A multi-prefix with two actions of a local trace swapped (any verdict, prefix mode)"
            }
            Kind::SwapComponents => {
                "A multi-prefix with one local trace from another multi-prefix (any verdict)"
            }
        }
    }

    /// The membership question its multitraces are checked with: complete for seed 004's
    /// categories, prefix for seed 001's.
    pub fn mode(self) -> Mode {
        match self {
            Kind::Pass
            | Kind::LocalError
            | Kind::InterError
            | Kind::CentralError
            | Kind::CentralErrorMixed => Mode::Complete,
            _ => Mode::Prefix,
        }
    }

    /// Whether a multitrace with verdict `v` (in [`Kind::mode`]) belongs to the kind.
    pub fn accepts(self, v: &Verdict) -> bool {
        let reason = v.reason.as_ref();
        match self {
            Kind::Pass => v.kind == VerdictKind::Pass,
            Kind::LocalError => {
                v.kind == VerdictKind::Fail && matches!(reason, Some(Reason::LocalError { .. }))
            }
            Kind::InterError => {
                v.kind == VerdictKind::Fail && matches!(reason, Some(Reason::InterError))
            }
            Kind::CentralError | Kind::CentralErrorMixed => {
                v.kind == VerdictKind::Fail && matches!(reason, Some(Reason::CentralError))
            }
            Kind::Prefix => v.kind == VerdictKind::WeakPass,
            Kind::Noise | Kind::SwapActions | Kind::SwapComponents => {
                v.kind != VerdictKind::Inconclusive
            }
        }
    }

    /// What the seed is mixed with: distinct streams per kind for one seed. Part of the
    /// reproducibility contract (changing it changes every generated set).
    pub(super) fn salt(self) -> u64 {
        0x6d75_6c74_6974_7261u64.wrapping_mul(self as u64 + 1)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a kind's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        write!(
            f,
            "unknown kind `{}`; expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for Kind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::from_name(s).ok_or_else(|| UnknownKind(s.to_string()))
    }
}

/// Why a length range cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RangeError {
    /// A bound is not a number.
    NotALength(String),
    /// The minimum is above the maximum.
    Empty(usize, usize),
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RangeError::NotALength(t) => {
                write!(f, "`{t}` is not a length; expected MIN..MAX, e.g. 200..250")
            }
            RangeError::Empty(lo, hi) => write!(f, "empty range {lo}..{hi}"),
        }
    }
}

impl std::error::Error for RangeError {}

/// `MIN..MAX` (or `MIN..=MAX`, or `N`) as an inclusive range of total lengths.
pub fn parse_length_range(s: &str) -> Result<(usize, usize), RangeError> {
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| RangeError::NotALength(t.to_string()))
    };
    let (lo, hi) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => (num(s)?, num(s)?),
    };
    if lo > hi {
        return Err(RangeError::Empty(lo, hi));
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_their_names() {
        for k in Kind::ALL {
            assert_eq!(Kind::from_name(k.name()), Some(k));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(Kind::from_name("nope"), None);
        assert_eq!("noise".parse::<Kind>(), Ok(Kind::Noise));
        let e = "nope".parse::<Kind>().unwrap_err().to_string();
        assert!(e.ends_with("expected one of pass, local-error, inter-error, central-error, central-error-mixed, prefix, noise, swap-actions, swap-components"), "{e}");
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_length_range("200..250"), Ok((200, 250)));
        assert_eq!(parse_length_range("3..=4"), Ok((3, 4)));
        assert_eq!(parse_length_range("7"), Ok((7, 7)));
        assert_eq!(parse_length_range("5..4"), Err(RangeError::Empty(5, 4)));
        assert!(parse_length_range("a..4").is_err());
    }

    #[test]
    fn no_kind_keeps_an_inconclusive_verdict() {
        let inconclusive = Verdict::new(VerdictKind::Inconclusive);
        for k in Kind::ALL {
            assert!(!k.accepts(&inconclusive), "{k}");
        }
        // Seed 004's categories are complete-mode ones, seed 001's prefix-mode ones.
        assert_eq!(
            Kind::ALL
                .iter()
                .filter(|k| k.mode() == Mode::Complete)
                .count(),
            5
        );
    }

    #[test]
    fn salts_give_distinct_streams() {
        let mut salts: Vec<u64> = Kind::ALL.iter().map(|k| k.salt()).collect();
        salts.sort_unstable();
        salts.dedup();
        assert_eq!(salts.len(), Kind::ALL.len());
    }
}
