//! Question (b): is the central step needed?
//!
//! A counterexample is a multitrace `μ` (one local trace per block) that the network can
//! produce (some interleaving respects [`super::Causality`]), that every local verifier
//! accepts, and that is not accepted (complete mode: no interleaving is in `L(A)`; prefix mode:
//! it is not a multi-prefix of an accepted multitrace): AS ends it with InterError or
//! CentralError, so the local verifiers alone would have passed it.
//!
//! **Link with (a)** (proven): a counterexample `μ` to (b) gives a counterexample to (a): its
//! causal interleaving `w` is accepted by every local verifier (its projections are `μ`), and
//! `A` rejects `w` (complete: no interleaving of `μ` is accepted; prefix: if `w` were a prefix
//! of an accepted `w·v`, `μ` would be a multi-prefix of `π(w·v)`). So a partition faithful for
//! (a) needs no central step, and that is how (b) is proven for infinite local languages. The
//! converse fails: in `strict(A -- ping -> B, C -- pong -> D)` with one location per lifeline,
//! `A!ping.C!pong.B?ping.D?pong` is a counterexample to (a) whose multitrace is accepted.
//!
//! Otherwise (b) is searched: exhaustively, every multitrace of at most `max_length` actions
//! passing the local checks (all of them, whatever their length, when every local language is
//! finite: then the search proves (b)); the projection of (a)'s counterexample; then random
//! mixes of local traces of accepted runs. Membership is decided by the runtime's AC on the
//! model compiled with the partition.

use crate::partition::inclusion::Inclusion;
use crate::partition::{Analyzer, Partition, PartitionError};
use multitrace_check::{CheckOptions, Choice, Engine, Scratch};
use multitrace_model::nfa::{LetterId, StateId};
use multitrace_model::rng::Rng;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, VerdictKind};

/// Bounds of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CentralLimits {
    /// Multitraces of at most this many actions are searched exhaustively.
    pub max_length: usize,
    /// Most multitraces enumerated by the exhaustive search (passing the local checks, causally
    /// possible or not).
    pub max_multitraces: u64,
    /// Random mixes of accepted runs tried after it.
    pub samples: u64,
    /// Seed of the random mixes.
    pub seed: u64,
    /// Memory budget of each check by AC (`None`: none); a check that runs out is
    /// Inconclusive, so the search proves nothing.
    pub max_memory: Option<u64>,
    /// The time limit of the whole run: each check gets the time left, and reaching it ends
    /// the search (none found: not a proof).
    pub deadline: super::deadline::Deadline,
}

impl Default for CentralLimits {
    fn default() -> Self {
        CentralLimits {
            max_length: 8,
            max_multitraces: 200_000,
            samples: 2_000,
            seed: 0,
            max_memory: Some(multitrace_model::budget::default_max_memory(1)),
            deadline: Default::default(),
        }
    }
}

/// What the search covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Searched {
    /// Every multitrace passing the local checks with at most this many actions was checked
    /// (`None`: not even the empty one).
    pub complete_up_to: Option<usize>,
    /// Every local language is finite and every multitrace passing the local checks was
    /// checked.
    pub all: bool,
    /// Multitraces passing the local checks enumerated by the exhaustive search.
    pub enumerated: u64,
    /// Of which causally possible, checked centrally.
    pub multitraces: u64,
    /// Random mixes tried.
    pub samples: u64,
    /// Of which causally possible and passing the local checks (checked centrally).
    pub samples_checked: u64,
    /// Central checks that ran out of budget (Inconclusive).
    pub inconclusive: u64,
    /// The time limit (`--timeout`) that ended the search, when it did.
    pub time_limit: Option<std::time::Duration>,
}

/// How a counterexample was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundBy {
    /// The exhaustive search (no counterexample has fewer actions).
    Exhaustive,
    /// The projection of (a)'s counterexample.
    Inclusion,
    /// Random mix number `n` (from 1).
    Sampling(u64),
}

/// A multitrace that passes every local check and is not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CentralCounterexample {
    /// One local trace per block (letters of the global model).
    pub traces: Vec<Vec<LetterId>>,
    /// A causal interleaving of the traces (a counterexample to (a)).
    pub interleaving: Vec<LetterId>,
    /// How it was found.
    pub found: FoundBy,
}

/// The answer to question (b).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Central {
    /// Proven by (a): the partition is faithful on global traces.
    ProvenByInclusion,
    /// Proven by exhaustion: every local language is finite and every multitrace passing the
    /// local checks is accepted.
    ProvenExhaustive(Searched),
    /// A counterexample.
    Counterexample(CentralCounterexample, Searched),
    /// None found within the bounds (not a proof).
    NoneFound(Searched),
}

/// Checks multitraces of the partition's compiled model by AC.
struct Checker<'e> {
    engine: &'e Engine,
    scratch: Scratch,
    map: Vec<LetterId>,
    opts: CheckOptions,
    deadline: super::deadline::Deadline,
}

impl Checker<'_> {
    /// The verdict of the multitrace given in global letters.
    fn verdict(&mut self, traces: &[Vec<LetterId>]) -> Result<VerdictKind, PartitionError> {
        let t: Vec<Vec<LetterId>> = traces
            .iter()
            .map(|t| t.iter().map(|x| self.map[x.index()]).collect())
            .collect();
        // The time left: a check that runs out is Inconclusive.
        self.opts.budget.timeout = self.deadline.remaining();
        let (v, _) = self
            .engine
            .check_letters(&mut self.scratch, &t, &self.opts)
            .map_err(PartitionError::Check)?;
        Ok(v.kind)
    }
}

/// Answers question (b) for partition `p` in `mode`, given (a)'s answer, with `engine`
/// holding the model compiled with `p` (its locations in the order of `p`'s blocks). When the
/// global language is not regular, only the given partition is searched.
pub fn check(
    an: &mut Analyzer<'_>,
    p: &Partition,
    mode: Mode,
    inclusion: &Inclusion,
    engine: &Engine,
    limits: &CentralLimits,
) -> Result<Central, PartitionError> {
    if matches!(inclusion, Inclusion::Faithful { .. }) {
        return Ok(Central::ProvenByInclusion);
    }
    let problem = an.problem();
    if !problem.exact() && !problem.is_given(p) {
        // Without the global language as an automaton, only the given partition's local
        // languages are known.
        return Ok(Central::NoneFound(Searched::default()));
    }
    let map = (0..problem.letters())
        .map(|x| {
            let name = problem.letter_name(LetterId(x as u32));
            engine
                .model()
                .alphabet
                .letter(name)
                .ok_or_else(|| PartitionError::LetterMissing {
                    letter: name.to_string(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut checker = Checker {
        engine,
        scratch: engine.scratch(),
        map,
        opts: CheckOptions {
            mode,
            choice: Choice::Force(Procedure::Ac),
            diagnosis: None,
            ..CheckOptions::default()
        },
        deadline: limits.deadline,
    };
    checker.opts.budget.max_memory = limits.max_memory;
    let mut searched = Searched::default();
    let causality = problem.causality().clone();

    // 1. Exhaustive, by increasing number of actions.
    let cap = usize::try_from(limits.max_multitraces)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let mut words = Vec::new();
    let mut finite = true;
    for &b in p.blocks() {
        let (w, cut) = an.block_words(b, mode, limits.max_length, cap);
        finite &= !cut;
        words.push(w);
    }
    let longest: Vec<usize> = words
        .iter()
        .map(|w| w.iter().rposition(|l| !l.is_empty()).unwrap_or(0))
        .collect();
    let top = if finite {
        longest.iter().sum::<usize>()
    } else {
        limits.max_length
    };
    let mut budget_hit = false;
    'lengths: for total in 0..=top {
        let mut lens = vec![0usize; words.len()];
        let mut found = None;
        let ok = compositions(&mut lens, 0, total, &longest, &mut |lens| {
            product(&words, lens, &mut |traces| {
                if searched.enumerated >= limits.max_multitraces {
                    budget_hit = true;
                    return Ok(false);
                }
                if limits.deadline.expired() {
                    searched.time_limit = Some(limits.deadline.limit);
                    return Ok(false);
                }
                searched.enumerated += 1;
                let Some(w) = causality.interleave(traces) else {
                    return Ok(true);
                };
                searched.multitraces += 1;
                match checker.verdict(traces)? {
                    VerdictKind::Fail => {
                        found = Some((traces.to_vec(), w));
                        Ok(false)
                    }
                    VerdictKind::Inconclusive => {
                        searched.inconclusive += 1;
                        Ok(true)
                    }
                    _ => Ok(true),
                }
            })
        })?;
        if let Some((traces, interleaving)) = found {
            searched.complete_up_to = total.checked_sub(1);
            return Ok(Central::Counterexample(
                CentralCounterexample {
                    traces,
                    interleaving,
                    found: FoundBy::Exhaustive,
                },
                searched,
            ));
        }
        if !ok || budget_hit || searched.time_limit.is_some() {
            break 'lengths;
        }
        searched.complete_up_to = Some(total);
    }
    searched.all = finite
        && !budget_hit
        && searched.time_limit.is_none()
        && searched.complete_up_to == Some(top);
    if searched.all && searched.inconclusive == 0 {
        return Ok(Central::ProvenExhaustive(searched));
    }

    if searched.time_limit.is_some() {
        return Ok(Central::NoneFound(searched));
    }

    // 2. The projection of (a)'s counterexample.
    if let Inclusion::Counterexample(c) = inclusion {
        let traces = problem.project(p, &c.word);
        if checker.verdict(&traces)? == VerdictKind::Fail {
            return Ok(Central::Counterexample(
                CentralCounterexample {
                    traces,
                    interleaving: c.word.clone(),
                    found: FoundBy::Inclusion,
                },
                searched,
            ));
        }
    }

    // 3. Random mixes of the local traces of accepted runs.
    let a = problem
        .analysis()
        .automata()
        .ok_or(PartitionError::Inconsistent("analysis automata"))?;
    let nfa = &a.nfa;
    let live = nfa.co_reachable();
    let mut rng = Rng::new(limits.seed ^ 0x5eed_0002);
    let run_len = (2 * limits.max_length).max(16);
    let random_run = |rng: &mut Rng| -> Option<Vec<LetterId>> {
        let starts: Vec<StateId> = nfa
            .initial()
            .iter()
            .copied()
            .filter(|s| live[s.index()])
            .collect();
        let mut s = *rng.pick(&starts)?;
        let mut w = Vec::new();
        loop {
            let next: Vec<(LetterId, StateId)> = nfa
                .out(s)
                .filter(|(_, t)| live[t.to.index()])
                .map(|(_, t)| (t.letter, t.to))
                .collect();
            if nfa.is_accepting(s) && (next.is_empty() || rng.below(4) == 0 || w.len() >= run_len) {
                return Some(w);
            }
            if w.len() >= 4 * run_len {
                return None;
            }
            let &(x, t) = rng.pick(&next)?;
            w.push(x);
            s = t;
        }
    };
    for n in 1..=limits.samples {
        if limits.deadline.expired() {
            searched.time_limit = Some(limits.deadline.limit);
            break;
        }
        searched.samples += 1;
        let runs: Vec<Vec<Vec<LetterId>>> = (0..2 + rng.below(2))
            .filter_map(|_| random_run(&mut rng))
            .map(|w| problem.project(p, &w))
            .collect();
        if runs.is_empty() {
            continue;
        }
        let mut traces: Vec<Vec<LetterId>> = (0..p.len())
            .map(|k| runs[rng.below(runs.len())][k].clone())
            .collect();
        if mode == Mode::Prefix {
            for t in &mut traces {
                if rng.below(2) == 0 {
                    let cut = rng.below(t.len() + 1);
                    t.truncate(cut);
                }
            }
        }
        let Some(w) = causality.interleave(&traces) else {
            continue;
        };
        if !an.locally_accepted(p, &w, mode) {
            continue;
        }
        searched.samples_checked += 1;
        match checker.verdict(&traces)? {
            VerdictKind::Fail => {
                return Ok(Central::Counterexample(
                    CentralCounterexample {
                        traces,
                        interleaving: w,
                        found: FoundBy::Sampling(n),
                    },
                    searched,
                ))
            }
            VerdictKind::Inconclusive => searched.inconclusive += 1,
            _ => {}
        }
    }
    Ok(Central::NoneFound(searched))
}

/// Calls `f` on every way to split `total` actions among the blocks (block `i` taking at most
/// `longest[i]`), until it returns false.
fn compositions(
    lens: &mut [usize],
    i: usize,
    total: usize,
    longest: &[usize],
    f: &mut dyn FnMut(&[usize]) -> Result<bool, PartitionError>,
) -> Result<bool, PartitionError> {
    if i + 1 == lens.len() {
        if total > longest[i] {
            return Ok(true);
        }
        lens[i] = total;
        return f(lens);
    }
    if lens.is_empty() {
        return if total == 0 { f(lens) } else { Ok(true) };
    }
    for l in 0..=total.min(longest[i]) {
        lens[i] = l;
        if !compositions(lens, i + 1, total - l, longest, f)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A callback on one multitrace (one local trace per block); returns whether to go on.
type OnMultitrace<'a> = dyn FnMut(&[Vec<LetterId>]) -> Result<bool, PartitionError> + 'a;

/// Calls `f` on every choice of one word of length `lens[i]` per block, until it returns false.
fn product(
    words: &[Vec<Vec<Vec<LetterId>>>],
    lens: &[usize],
    f: &mut OnMultitrace<'_>,
) -> Result<bool, PartitionError> {
    let mut lists: Vec<&Vec<Vec<LetterId>>> = Vec::with_capacity(lens.len());
    for (w, &l) in words.iter().zip(lens) {
        match w.get(l) {
            Some(list) if !list.is_empty() => lists.push(list),
            _ => return Ok(true),
        }
    }
    let mut idx = vec![0usize; lists.len()];
    let mut traces: Vec<Vec<LetterId>> = lists.iter().map(|l| l[0].clone()).collect();
    loop {
        if !f(&traces)? {
            return Ok(false);
        }
        // Odometer.
        let mut k = lists.len();
        loop {
            if k == 0 {
                return Ok(true);
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < lists[k].len() {
                traces[k] = lists[k][idx[k]].clone();
                break;
            }
            idx[k] = 0;
            traces[k] = lists[k][0].clone();
        }
    }
}
