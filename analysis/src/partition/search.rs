//! The finest faithful partitions: a search over the coarsenings of the atoms for question (a).
//!
//! Faithfulness is preserved by coarsening: a global trace accepted by the local verifier of a
//! merged block is accepted by the verifiers of its parts, so every counterexample of a coarser
//! partition is one of a finer one. The faithful partitions are therefore those coarser than
//! (or equal to) the finest faithful ones, and one location holding everything is always
//! faithful. The search enumerates the partitions of the `n` atoms finest first (by decreasing
//! number of blocks), skips those coarser than a faithful one already found, tries the
//! counterexamples already found on each new partition (a counterexample is refuted by a
//! partition only when some merged block's verifier rejects it), and runs the product search
//! of [`super::inclusion`] only when none applies.
//!
//! Cost: there are `B(n)` partitions (Bell numbers: 15 for 4 atoms, 203 for 6, 4,140 for 8,
//! 115,975 for 10); the search stops after a number of partitions enumerated and a number of
//! product searches, and says down to which number of blocks it was complete.

use crate::partition::inclusion::{self, Inclusion, InclusionLimits, InclusionStats, Undecided};
use crate::partition::statics::{bell, for_each_partition};
use crate::partition::{Analyzer, Partition};
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Mode;

/// Bounds of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Most partitions enumerated.
    pub max_partitions: usize,
    /// Most product searches (partitions not settled by a known counterexample).
    pub max_searches: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            max_partitions: 200_000,
            max_searches: 2_000,
        }
    }
}

/// What became of one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Faithful, proven by the product search (or trivially: one location).
    Faithful {
        /// The proof's in-flight bound (`None`: no counters, or one location).
        in_flight: Option<u32>,
    },
    /// Not faithful: counterexample number `index` of [`SearchOutcome::counterexamples`].
    Refuted {
        /// The counterexample.
        index: usize,
        /// Whether it was found for another partition (and re-used).
        reused: bool,
    },
    /// Undecided within the bounds.
    Undecided(Undecided),
}

/// One partition met by the search (partitions coarser than a faithful one are not recorded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The partition.
    pub partition: Partition,
    /// What it is.
    pub status: Status,
}

/// The result of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOutcome {
    /// The partitions decided or left undecided, finest first.
    pub records: Vec<Record>,
    /// Counterexamples found (global traces), referred to by [`Status::Refuted`].
    pub counterexamples: Vec<Vec<LetterId>>,
    /// Every partition with at least this many blocks was enumerated.
    pub complete_down_to: Option<usize>,
    /// Number of partitions of the atoms, `B(n)`.
    pub total: u128,
    /// Partitions enumerated.
    pub enumerated: usize,
    /// Partitions skipped as coarser than a faithful one.
    pub skipped: usize,
    /// Product searches run (on hints and during the enumeration; the finest partition's
    /// included when its answer was given).
    pub searches: usize,
    /// Of which on hints, before the enumeration.
    pub hint_searches: usize,
    /// Partitions enumerated and decided by a product search of their own (or their hint's, or
    /// the given answer).
    pub decided: usize,
    /// The single location, faithful by definition (0 or 1).
    pub trivial: usize,
    /// Partitions refuted by a counterexample found for another one.
    pub reused: usize,
    /// Product states built, all searches together.
    pub states: usize,
    /// The hints (partitions predicted by the static analysis) proven faithful before the
    /// enumeration; their coarsenings are skipped. Useful when the enumeration stops early.
    pub hinted_faithful: Vec<Partition>,
}

impl SearchOutcome {
    /// The faithful partitions found that have no faithful refinement: `(record index, certain)`,
    /// where `certain` says that every refinement was refuted (none was left undecided).
    pub fn minimal(&self) -> Vec<(usize, bool)> {
        let undecided: Vec<&Partition> = self
            .records
            .iter()
            .filter(|r| matches!(r.status, Status::Undecided(_)))
            .map(|r| &r.partition)
            .collect();
        self.records
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r.status, Status::Faithful { .. }))
            .map(|(i, r)| {
                let certain = !undecided
                    .iter()
                    .any(|u| u.refines(&r.partition) && **u != r.partition);
                (i, certain)
            })
            .collect()
    }

    /// Whether the search enumerated every partition.
    pub fn complete(&self) -> bool {
        self.complete_down_to == Some(1)
    }

    /// What the search says of `p`: faithful (coarser than or equal to a faithful partition
    /// found), refuted (a counterexample found applies, tested with `accepted`), or unknown.
    pub fn status_of(
        &self,
        p: &Partition,
        accepted: &mut dyn FnMut(&Partition, &[LetterId]) -> bool,
    ) -> Option<Status> {
        for r in &self.records {
            if let Status::Faithful { in_flight } = r.status {
                if r.partition.refines(p) {
                    return Some(Status::Faithful { in_flight });
                }
            }
        }
        for r in &self.records {
            if r.partition == *p {
                return Some(r.status.clone());
            }
        }
        for (i, w) in self.counterexamples.iter().enumerate() {
            if accepted(p, w) {
                return Some(Status::Refuted {
                    index: i,
                    reused: true,
                });
            }
        }
        None
    }
}

/// Searches the finest faithful partitions for question (a) in `mode`. `first` is (a)'s answer
/// for the finest partition (the atoms) when already known.
///
/// Nothing is searched when the global language is not an automaton
/// ([`super::Problem::exact`]).
///
/// `hints` (for instance the partitions predicted by the static analysis) are decided first:
/// the counterexamples found refute other partitions without a product search, and the
/// coarsenings of a faithful hint are skipped (faithful, and not finest).
pub fn finest_faithful(
    an: &mut Analyzer<'_>,
    mode: Mode,
    limits: &SearchLimits,
    inclusion_limits: &InclusionLimits,
    first: Option<&Inclusion>,
    hints: &[Partition],
) -> SearchOutcome {
    let n = an.problem().atoms();
    let mut out = SearchOutcome {
        records: Vec::new(),
        counterexamples: Vec::new(),
        complete_down_to: None,
        total: bell(n),
        enumerated: 0,
        skipped: 0,
        searches: 0,
        hint_searches: 0,
        decided: 0,
        trivial: 0,
        reused: 0,
        states: 0,
        hinted_faithful: Vec::new(),
    };
    if !an.problem().exact() {
        // Without the global language as an automaton only the given partition can be asked.
        return out;
    }
    let mut level = n + 1;
    let mut faithful: Vec<Partition> = Vec::new();
    let mut stopped = false;
    let mut order: Vec<usize> = Vec::new();
    let mut hinted: Vec<(Partition, Option<u32>)> = Vec::new();
    for h in hints {
        if h.len() <= 1 || h.len() == n || hinted.iter().any(|(x, _)| x == h) {
            continue;
        }
        if out.searches >= limits.max_searches || inclusion_limits.deadline.expired() {
            break;
        }
        out.searches += 1;
        out.hint_searches += 1;
        let (r, InclusionStats { states, .. }) = inclusion::check(an, h, mode, inclusion_limits);
        out.states += states;
        match r {
            Inclusion::Faithful { in_flight } => {
                hinted.push((h.clone(), in_flight));
                out.hinted_faithful.push(h.clone());
            }
            Inclusion::Counterexample(c) => {
                out.counterexamples.push(c.word);
                order.insert(0, out.counterexamples.len() - 1);
            }
            Inclusion::Undecided(_) => {}
        }
    }
    for_each_partition(n, &mut |p: &Partition| {
        if p.len() < level {
            // Every partition with `level` blocks was enumerated.
            if level <= n {
                out.complete_down_to = Some(level);
            }
            level = p.len();
        }
        if out.enumerated >= limits.max_partitions || inclusion_limits.deadline.expired() {
            stopped = true;
            return false;
        }
        out.enumerated += 1;
        if faithful.iter().any(|f| f.refines(p))
            || hinted.iter().any(|(h, _)| h.refines(p) && h != p)
        {
            out.skipped += 1;
            return true;
        }
        if let Some((_, in_flight)) = hinted.iter().find(|(h, _)| h == p) {
            // A faithful hint with no faithful refinement: one of the finest.
            out.decided += 1;
            faithful.push(p.clone());
            out.records.push(Record {
                partition: p.clone(),
                status: Status::Faithful {
                    in_flight: *in_flight,
                },
            });
            return true;
        }
        if p.len() == 1 && n > 0 {
            out.trivial += 1;
            faithful.push(p.clone());
            out.records.push(Record {
                partition: p.clone(),
                status: Status::Faithful { in_flight: None },
            });
            return true;
        }
        let given = (p.len() == n).then_some(first).flatten();
        // Most recently useful counterexamples first: neighbouring partitions share them.
        let known = match given {
            Some(_) => None,
            None => order
                .iter()
                .position(|&i| an.locally_accepted(p, &out.counterexamples[i], mode)),
        };
        if let Some(at) = known {
            let index = order.remove(at);
            order.insert(0, index);
            out.reused += 1;
            out.records.push(Record {
                partition: p.clone(),
                status: Status::Refuted {
                    index,
                    reused: true,
                },
            });
            return true;
        }
        let result = match given {
            Some(r) => {
                out.searches += 1;
                r.clone()
            }
            None => {
                if out.searches >= limits.max_searches {
                    stopped = true;
                    return false;
                }
                out.searches += 1;
                let (r, InclusionStats { states, .. }) =
                    inclusion::check(an, p, mode, inclusion_limits);
                out.states += states;
                r
            }
        };
        out.decided += 1;
        let status = match result {
            Inclusion::Faithful { in_flight } => {
                faithful.push(p.clone());
                Status::Faithful { in_flight }
            }
            Inclusion::Counterexample(c) => {
                out.counterexamples.push(c.word);
                order.insert(0, out.counterexamples.len() - 1);
                Status::Refuted {
                    index: out.counterexamples.len() - 1,
                    reused: false,
                }
            }
            Inclusion::Undecided(u) => Status::Undecided(u),
        };
        out.records.push(Record {
            partition: p.clone(),
            status,
        });
        true
    });
    if !stopped {
        out.complete_down_to = Some(1);
    }
    out
}
