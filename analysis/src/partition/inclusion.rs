//! Question (a): does a partition lose guarantees on global traces?
//!
//! A counterexample is a global trace `w` that respects the causal restriction
//! ([`super::Causality`]), whose projection on every block is accepted by that block's local
//! verifier (complete mode: `π_i(w) ∈ π_i(L(A))`; prefix mode: a prefix of one), and that `A`
//! rejects (`w ∉ L(A)`; prefix mode: `w` is not a prefix of a word of `L(A)`).
//!
//! The search is breadth first over the product of the local verifiers, the determinized `A`
//! and one counter per constrained channel (emissions not yet received), so the first
//! counterexample met is a shortest one. Counters are exact up to a bound `K` and become `ω`
//! beyond it (from then on that channel's receptions are unconstrained). The `ω` graph
//! over-approximates the causal traces, and the exact part (no `ω`) is exactly the causal
//! traces with at most `K` messages in flight per channel. Hence:
//!
//! - no counterexample in the whole graph: the partition is faithful for **every** global trace
//!   (no bound: the abstraction only adds traces);
//! - a counterexample in the exact part: a real one, shortest among the traces with at most `K`
//!   messages in flight, and shortest overall when no spurious one came first or when it has at
//!   most `K + 1` actions (a trace with more in flight has at least `K + 1` emissions);
//! - a counterexample reached through `ω` is replayed exactly: real, or spurious; when only
//!   spurious ones exist the search is repeated with a larger `K`, and at the largest the answer
//!   is undecided, with the bound under which no counterexample exists.
//!
//! Without counters (raw automata, or no constrained channel) the search is a plain language
//! inclusion and always decides within its state budget.

use crate::partition::{Analyzer, Partition};
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::{Mode, VerdictKind};
use rustc_hash::FxHashMap;

const OMEGA: u32 = u32::MAX;

/// Bounds of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InclusionLimits {
    /// Most product states per search.
    pub max_states: usize,
    /// Largest in-flight bound `K` tried (the search tries `1..=K`).
    pub max_in_flight: u32,
    /// When the global language is not regular: global traces of at most this many actions are
    /// enumerated (and at most `max_states` of them kept to be extended).
    pub max_length: usize,
    /// When the global language is not regular: most global traces enumerated.
    pub max_words: u64,
    /// Most bytes held by the search (the product's states, the determinized views of the
    /// global automaton built so far, the automaton itself); `None`: no limit.
    pub max_memory: Option<u64>,
    /// The time limit of the whole run; reaching it leaves (a) undecided.
    pub deadline: super::deadline::Deadline,
}

impl Default for InclusionLimits {
    fn default() -> Self {
        InclusionLimits {
            max_states: 1_000_000,
            max_in_flight: 3,
            max_length: 8,
            max_words: 200_000,
            // One search at a time: the limit of one worker.
            max_memory: Some(multitrace_model::budget::default_max_memory(1)),
            deadline: Default::default(),
        }
    }
}

/// How short a counterexample is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortest {
    /// No counterexample has fewer actions.
    Overall,
    /// No counterexample with at most this many messages in flight per channel has fewer
    /// actions.
    AmongInFlight(u32),
    /// Found otherwise (by (b)'s search); no counterexample of at most this many actions exists
    /// (`None`: nothing known).
    NoneUpTo(Option<usize>),
}

impl GlobalCounterexample {
    /// The counterexample to (a) that a counterexample to (b) gives (its causal interleaving),
    /// when (a) was left undecided with `u`.
    pub fn from_central(
        u: &Undecided,
        interleaving: &[LetterId],
        causality: &super::Causality,
    ) -> Self {
        let known = match u {
            Undecided::Bounded { complete_up_to, .. } => *complete_up_to,
            Undecided::States { .. }
            | Undecided::Memory { .. }
            | Undecided::Time { .. }
            | Undecided::InFlight { .. } => None,
        };
        GlobalCounterexample {
            word: interleaving.to_vec(),
            shortest: Shortest::NoneUpTo(known),
            in_flight: causality.replay(interleaving).1,
        }
    }
}

/// A global trace that every local verifier accepts and `A` rejects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalCounterexample {
    /// The global trace (letters of the global model).
    pub word: Vec<LetterId>,
    /// How short it is known to be.
    pub shortest: Shortest,
    /// The most messages in flight on one channel along it.
    pub in_flight: u32,
}

/// Why the search ended without an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// The state budget ran out; every global trace of at most `complete_up_to` actions (with at
    /// most `in_flight` messages in flight per channel, when there are channels) was searched.
    States {
        /// The budget.
        limit: usize,
        /// Traces up to this length were all searched.
        complete_up_to: usize,
        /// The in-flight bound of the search that ran out.
        in_flight: u32,
    },
    /// No counterexample with at most `bound` messages in flight per channel exists (searched
    /// exhaustively), but the abstraction beyond the bound finds one that is not causal.
    InFlight {
        /// The largest bound tried.
        bound: u32,
        /// A word of the abstraction that the exact replay refutes.
        spurious: Vec<LetterId>,
    },
    /// The memory limit was reached; every global trace of at most `complete_up_to` actions
    /// (with at most `in_flight` messages in flight per channel, when there are channels) was
    /// searched.
    Memory {
        /// The limit, in bytes.
        limit: u64,
        /// Traces up to this length were all searched (`None`: not even the empty one).
        complete_up_to: Option<usize>,
        /// The in-flight bound of the search that ran out.
        in_flight: u32,
    },
    /// The time limit (`--timeout`) was reached; every global trace of at most `complete_up_to`
    /// actions was searched (with at most `in_flight` messages in flight per channel, when
    /// there are channels, and the global language regular).
    Time {
        /// The limit.
        limit: std::time::Duration,
        /// Traces up to this length were all searched (`None`: not even the empty one).
        complete_up_to: Option<usize>,
        /// The in-flight bound of the search that ran out.
        in_flight: u32,
    },
    /// The global language is not regular: every causal global trace of at most
    /// `complete_up_to` actions passing the local verifiers was enumerated and found accepted
    /// (by term exploration), except `inconclusive` ones whose check ran out of budget.
    Bounded {
        /// Traces up to this length were all enumerated (`None`: not even the empty one).
        complete_up_to: Option<usize>,
        /// Global traces decided by term exploration.
        words: u64,
        /// Of which Inconclusive.
        inconclusive: u64,
    },
}

/// The answer to question (a).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inclusion {
    /// Proven: no global trace of any length is a counterexample.
    Faithful {
        /// The in-flight bound of the abstraction that proved it (`None`: no counters).
        in_flight: Option<u32>,
    },
    /// A counterexample.
    Counterexample(GlobalCounterexample),
    /// Undecided within the bounds.
    Undecided(Undecided),
}

/// Statistics of a check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InclusionStats {
    /// Product states built, all searches together.
    pub states: usize,
    /// Searches run (one per in-flight bound tried).
    pub runs: usize,
}

enum Run {
    Faithful,
    Found(GlobalCounterexample),
    Budget { complete_up_to: usize },
    Memory { complete_up_to: usize },
    Time { complete_up_to: usize },
    Spurious(Vec<LetterId>),
}

/// Answers question (a) for partition `p` in `mode`.
///
/// When the global language is not regular ([`super::Problem::exact`] is false), only the given
/// partition can be asked (another one is undecided with nothing searched), and (a) is searched
/// up to a length ([`bounded`]).
pub fn check(
    an: &mut Analyzer<'_>,
    p: &Partition,
    mode: Mode,
    limits: &InclusionLimits,
) -> (Inclusion, InclusionStats) {
    if !an.problem().exact() {
        if !an.problem().is_given(p) {
            // The analysis automaton has the global traces' local languages on the given
            // locations only: nothing can be said of another partition.
            let nothing = Undecided::Bounded {
                complete_up_to: None,
                words: 0,
                inconclusive: 0,
            };
            return (Inclusion::Undecided(nothing), InclusionStats::default());
        }
        return bounded(an, p, mode, limits);
    }
    let counters = an.problem().causality().counters();
    let bounds: Vec<u32> = if counters == 0 || limits.max_in_flight == 0 {
        vec![0]
    } else {
        (1..=limits.max_in_flight).collect()
    };
    let mut stats = InclusionStats::default();
    let mut last_spurious = Vec::new();
    // A counterexample shortest only among the traces with at most `k` messages in flight is
    // real; a larger bound may show it shortest overall (or find a shorter one).
    let mut best: Option<GlobalCounterexample> = None;
    for &k in &bounds {
        if limits.deadline.expired() {
            // Read here too: a small search may end before its first reading of the clock.
            if let Some(c) = best {
                return (Inclusion::Counterexample(c), stats);
            }
            let u = Undecided::Time {
                limit: limits.deadline.limit,
                complete_up_to: None,
                in_flight: k,
            };
            return (Inclusion::Undecided(u), stats);
        }
        stats.runs += 1;
        match run(an, p, mode, k, limits, &mut stats.states) {
            Run::Faithful => {
                debug_assert!(best.is_none(), "a real counterexample and a proof");
                return (
                    Inclusion::Faithful {
                        in_flight: (counters > 0).then_some(k),
                    },
                    stats,
                );
            }
            Run::Found(c) => {
                if c.shortest == Shortest::Overall {
                    return (Inclusion::Counterexample(c), stats);
                }
                best = Some(c);
            }
            Run::Budget { complete_up_to } => {
                if let Some(c) = best {
                    return (Inclusion::Counterexample(c), stats);
                }
                return (
                    Inclusion::Undecided(Undecided::States {
                        limit: limits.max_states,
                        complete_up_to,
                        in_flight: k,
                    }),
                    stats,
                );
            }
            Run::Memory { complete_up_to } => {
                if let Some(c) = best {
                    return (Inclusion::Counterexample(c), stats);
                }
                return (
                    Inclusion::Undecided(Undecided::Memory {
                        limit: limits.max_memory.unwrap_or(u64::MAX),
                        complete_up_to: Some(complete_up_to),
                        in_flight: k,
                    }),
                    stats,
                );
            }
            Run::Time { complete_up_to } => {
                if let Some(c) = best {
                    return (Inclusion::Counterexample(c), stats);
                }
                return (
                    Inclusion::Undecided(Undecided::Time {
                        limit: limits.deadline.limit,
                        complete_up_to: Some(complete_up_to),
                        in_flight: k,
                    }),
                    stats,
                );
            }
            Run::Spurious(w) => last_spurious = w,
        }
    }
    if let Some(c) = best {
        return (Inclusion::Counterexample(c), stats);
    }
    (
        Inclusion::Undecided(Undecided::InFlight {
            bound: *bounds.last().unwrap_or(&0),
            spurious: last_spurious,
        }),
        stats,
    )
}

/// Question (a) when the global language is not regular: every causal global trace of at
/// most `max_length` actions whose projections pass the local verifiers (exact on the given
/// locations), by increasing length, each decided by term exploration on the model with one
/// location (exact). The first counterexample found is a shortest one.
pub fn bounded(
    an: &mut Analyzer<'_>,
    p: &Partition,
    mode: Mode,
    limits: &InclusionLimits,
) -> (Inclusion, InclusionStats) {
    use multitrace_check::{CheckOptions, Choice, Engine};
    use multitrace_model::verdict::Procedure;
    let problem = an.problem();
    let causality = problem.causality();
    let letters = problem.letters();
    let mut stats = InclusionStats { states: 0, runs: 1 };
    let global = Engine::new(problem.global().clone());
    let mut scratch = global.scratch();
    let mut opts = CheckOptions {
        mode,
        choice: Choice::Force(Procedure::Term),
        diagnosis: None,
        ..CheckOptions::default()
    };
    // A check holds its structures besides the frontier: each gets the whole limit (an
    // Inconclusive one leaves the answer undecided, never decided).
    opts.budget.max_memory = limits.max_memory;
    let to_global: Option<Vec<LetterId>> = problem
        .translate(
            problem.global(),
            &(0..letters).map(|x| LetterId(x as u32)).collect::<Vec<_>>(),
        )
        .ok();
    let block_of_letter: Vec<usize> = (0..letters)
        .map(|x| p.block_of(problem.atom_of_letter(LetterId(x as u32))))
        .collect();
    let mut blocks = an.take_blocks(p);
    let g = &an.graph;
    let (mut words, mut inconclusive) = (0u64, 0u64);
    let mut complete_up_to = None;
    let mut cut = false;
    let mut out_of_memory = false;
    let mut out_of_time = false;
    // Bytes of a frontier entry of `len` actions: three vectors (headers and contents).
    let fixed = blocks.len() + causality.counters();
    let entry_bytes = |len: usize| (72 + 4 * (len + fixed)) as u64;
    let graph_bytes = g.bytes();
    // (word, block states, counters)
    let mut frontier: Vec<(Vec<LetterId>, Vec<u32>, Vec<u32>)> = vec![(
        Vec::new(),
        blocks.iter().map(|d| d.initial()).collect(),
        vec![0; causality.counters()],
    )];
    let result = 'search: {
        let Some(to_global) = to_global else {
            break 'search None;
        };
        if blocks.iter().any(|d| d.is_empty(d.initial())) {
            break 'search Some(Inclusion::Faithful { in_flight: None });
        }
        for len in 0..=limits.max_length {
            let mut next = Vec::new();
            for (w, states, counters) in &frontier {
                if limits.deadline.expired() {
                    out_of_time = true;
                    break 'search None; // complete up to the previous length
                }
                if blocks.iter().zip(states).all(|(d, &q)| d.passes(q, mode)) {
                    if words >= limits.max_words {
                        break 'search None;
                    }
                    words += 1;
                    let gw: Vec<LetterId> = w.iter().map(|x| to_global[x.index()]).collect();
                    // Each check gets the time left: one that runs out is Inconclusive.
                    opts.budget.timeout = limits.deadline.remaining();
                    match global.check_letters(&mut scratch, &[gw], &opts) {
                        Ok((v, _)) if v.kind == VerdictKind::Fail => {
                            break 'search Some(Inclusion::Counterexample(GlobalCounterexample {
                                word: w.clone(),
                                shortest: Shortest::Overall,
                                in_flight: causality.replay(w).1,
                            }));
                        }
                        Ok((v, _)) if v.kind == VerdictKind::Inconclusive => inconclusive += 1,
                        Ok(_) => {}
                        Err(_) => break 'search None,
                    }
                }
                for (x, &b) in block_of_letter.iter().enumerate() {
                    let letter = LetterId(x as u32);
                    let t = blocks[b].step(g, states[b], letter);
                    if blocks[b].is_empty(t) {
                        continue;
                    }
                    let mut c = counters.clone();
                    if let Some(Some(k)) = causality.decr.get(x) {
                        if c[*k as usize] == 0 {
                            continue;
                        }
                        c[*k as usize] -= 1;
                    }
                    if let Some(list) = causality.incr.get(x) {
                        for &k in list {
                            c[k as usize] += 1;
                        }
                    }
                    if len == limits.max_length {
                        cut = true; // longer traces exist: not searched
                        break;
                    }
                    let mut s2 = states.clone();
                    s2[b] = t;
                    let mut w2 = w.clone();
                    w2.push(letter);
                    stats.states += 1;
                    if stats.states > limits.max_states {
                        break 'search None; // complete up to the previous length
                    }
                    next.push((w2, s2, c));
                    let held = (frontier.len() + next.len()) as u64 * entry_bytes(len + 1);
                    if limits
                        .max_memory
                        .is_some_and(|m| graph_bytes + g.dfa_bytes() + held > m)
                    {
                        out_of_memory = true;
                        break 'search None; // complete up to the previous length
                    }
                }
            }
            complete_up_to = Some(len);
            frontier = next;
            if frontier.is_empty() && !cut {
                // Every causal trace passing the local verifiers was decided: a proof.
                if inconclusive == 0 {
                    break 'search Some(Inclusion::Faithful { in_flight: None });
                }
                break;
            }
        }
        None
    };
    an.put_blocks(p, blocks);
    let r = result.unwrap_or(if out_of_time || limits.deadline.expired() {
        Inclusion::Undecided(Undecided::Time {
            limit: limits.deadline.limit,
            complete_up_to,
            in_flight: 0,
        })
    } else if out_of_memory {
        Inclusion::Undecided(Undecided::Memory {
            limit: limits.max_memory.unwrap_or(u64::MAX),
            complete_up_to,
            in_flight: 0,
        })
    } else {
        Inclusion::Undecided(Undecided::Bounded {
            complete_up_to,
            words,
            inconclusive,
        })
    });
    (r, stats)
}

fn run(
    an: &mut Analyzer<'_>,
    p: &Partition,
    mode: Mode,
    k: u32,
    limits: &InclusionLimits,
    built: &mut usize,
) -> Run {
    let max_states = limits.max_states;
    let problem = an.problem();
    let causality = problem.causality();
    let letters = problem.letters();
    let block_of_letter: Vec<usize> = (0..letters)
        .map(|x| p.block_of(problem.atom_of_letter(LetterId(x as u32))))
        .collect();
    let mut blocks = an.take_blocks(p);
    let mut global = an.take_global();
    let g = &an.graph;
    let nb = blocks.len();
    let nc = causality.counters();
    let stride = 1 + nb + nc;
    // Bytes of the search: the graph, the determinized views (counted as they grow), and per
    // product state its key twice (arena and index), the index entry, parent and depth.
    let graph_bytes = g.bytes();
    let per_state = stride as u64 * 8 + 48 + 12;
    let over_memory = |states: usize| {
        limits
            .max_memory
            .is_some_and(|m| graph_bytes + g.dfa_bytes() + states as u64 * per_state > m)
    };

    let mut arena: Vec<u32> = Vec::new();
    let mut index: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
    let mut parent: Vec<(u32, u32)> = Vec::new();
    let mut depth: Vec<u32> = Vec::new();

    let mut key = vec![0u32; stride];
    key[0] = global.initial();
    for (i, d) in blocks.iter().enumerate() {
        key[1 + i] = d.initial();
    }
    let is_cex =
        |key: &[u32], global: &super::lazy::LazyDfa, blocks: &[super::lazy::LazyDfa]| match mode {
            Mode::Complete => {
                !global.is_accepting(key[0])
                    && blocks
                        .iter()
                        .enumerate()
                        .all(|(i, d)| d.is_accepting(key[1 + i]))
            }
            Mode::Prefix => global.is_empty(key[0]),
        };
    let word_of = |parent: &[(u32, u32)], mut id: u32| {
        let mut w = Vec::new();
        while id != 0 {
            let (p, x) = parent[id as usize];
            w.push(LetterId(x));
            id = p;
        }
        w.reverse();
        w
    };
    let exact = |key: &[u32]| key[1 + nb..].iter().all(|&c| c != OMEGA);

    let result = 'search: {
        // A block whose verifier accepts nothing in this mode, not even a prefix: nothing is
        // accepted locally.
        if blocks.iter().any(|d| d.is_empty(d.initial())) {
            break 'search Run::Faithful;
        }
        index.insert(key.clone().into_boxed_slice(), 0);
        arena.extend_from_slice(&key);
        parent.push((0, 0));
        depth.push(0);
        *built += 1;
        an.states_built += 1;
        if is_cex(&key, &global, &blocks) {
            break 'search Run::Found(GlobalCounterexample {
                word: Vec::new(),
                shortest: Shortest::Overall,
                in_flight: 0,
            });
        }
        let mut spurious: Option<Vec<LetterId>> = None;
        let mut head = 0usize;
        while head < parent.len() {
            let id = head;
            head += 1;
            let cur: Vec<u32> = arena[id * stride..(id + 1) * stride].to_vec();
            if mode == Mode::Prefix && global.is_empty(cur[0]) {
                continue; // a counterexample already (spurious, or it would have ended the search)
            }
            for (x, &b) in block_of_letter.iter().enumerate() {
                let letter = LetterId(x as u32);
                let t = blocks[b].step(g, cur[1 + b], letter);
                if blocks[b].is_empty(t) {
                    continue;
                }
                key.copy_from_slice(&cur);
                key[1 + b] = t;
                if let Some(Some(c)) = causality.decr.get(x) {
                    let v = &mut key[1 + nb + *c as usize];
                    if *v == 0 {
                        continue;
                    }
                    if *v != OMEGA {
                        *v -= 1;
                    }
                }
                if let Some(list) = causality.incr.get(x) {
                    for &c in list {
                        let v = &mut key[1 + nb + c as usize];
                        if *v != OMEGA {
                            *v = if *v + 1 > k { OMEGA } else { *v + 1 };
                        }
                    }
                }
                key[0] = global.step(g, cur[0], letter);
                // Checked at every step: a step adds at most two subsets, and a product state.
                if over_memory(parent.len() + 1) {
                    break 'search Run::Memory {
                        complete_up_to: depth[id] as usize,
                    };
                }
                // The clock is read every 1024 product states (cheap against a step).
                if parent.len().is_multiple_of(1024) && limits.deadline.expired() {
                    break 'search Run::Time {
                        complete_up_to: depth[id] as usize,
                    };
                }
                if index.contains_key(key.as_slice()) {
                    continue;
                }
                let nid = parent.len() as u32;
                index.insert(key.clone().into_boxed_slice(), nid);
                arena.extend_from_slice(&key);
                parent.push((id as u32, x as u32));
                depth.push(depth[id] + 1);
                *built += 1;
                an.states_built += 1;
                an.progress.tick(an.states_built);
                if is_cex(&key, &global, &blocks) {
                    let w = word_of(&parent, nid);
                    let (causal, in_flight) = causality.replay(&w);
                    if exact(&key) || causal {
                        let d = w.len() as u32;
                        let shortest = if nc == 0 || spurious.is_none() || d <= k + 1 {
                            Shortest::Overall
                        } else {
                            Shortest::AmongInFlight(k)
                        };
                        break 'search Run::Found(GlobalCounterexample {
                            word: w,
                            shortest,
                            in_flight,
                        });
                    }
                    spurious.get_or_insert(w);
                }
                if parent.len() > max_states {
                    break 'search Run::Budget {
                        complete_up_to: depth[id] as usize,
                    };
                }
            }
        }
        match spurious {
            Some(w) => Run::Spurious(w),
            None => Run::Faithful,
        }
    };
    an.put_blocks(p, blocks);
    an.put_global(global);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::Problem;
    use multitrace_compiler::compile::{CompileOptions, LocationChoice};
    use multitrace_compiler::source::read_source;

    fn problem(name: &str, text: &str) -> Problem {
        let dir = std::env::temp_dir().join(format!(
            "multitrace-inclusion-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("model.hif");
        std::fs::write(&path, text).unwrap();
        let src = read_source(&path, None).unwrap();
        let p = Problem::new(
            src,
            LocationChoice::Default,
            &CompileOptions::default(),
            None,
        );
        let _ = std::fs::remove_dir_all(&dir);
        p.unwrap()
    }

    const COUNT3: &str = "alt(o, a -- m -> b, seq(a -- m -> b, a -- m -> b), \
                          seq(a -- m -> b, a -- m -> b, a -- m -> b))";

    fn limits(k: u32) -> InclusionLimits {
        InclusionLimits {
            max_states: 100_000,
            max_in_flight: k,
            ..InclusionLimits::default()
        }
    }

    /// Up to three messages from a to b, each received: faithful in prefix mode, which the
    /// abstraction beyond one message in flight cannot show (it lets b receive three after two
    /// emissions), and beyond two can.
    #[test]
    fn the_in_flight_abstraction_is_refined_until_it_proves() {
        let pb = problem("count3", COUNT3);
        let mut an = Analyzer::new(&pb);
        let p = Partition::finest(pb.atoms());
        let (r, _) = check(&mut an, &p, Mode::Prefix, &limits(1));
        let Inclusion::Undecided(Undecided::InFlight { bound, spurious }) = &r else {
            panic!("{r:?}")
        };
        assert_eq!(*bound, 1);
        assert_eq!(pb.word(spurious), "a!m.a!m.b?m.b?m.b?m");
        assert!(!pb.causality().replay(spurious).0);
        let (r, stats) = check(&mut an, &p, Mode::Prefix, &limits(3));
        assert_eq!(r, Inclusion::Faithful { in_flight: Some(2) });
        assert_eq!(stats.runs, 2);
    }

    /// A counterexample found after a spurious one is shortest only among the traces with at
    /// most `K` messages in flight; a larger bound shows it shortest overall.
    #[test]
    fn shortness_is_claimed_only_as_far_as_it_is_known() {
        let pb = problem(
            "shortness",
            &format!(
                "par({COUNT3}, strict(c -- n -> d, d -- n -> c, c -- n -> d, alt(c -- x ->|, d -- y ->|)))"
            ),
        );
        let mut an = Analyzer::new(&pb);
        let p = Partition::finest(pb.atoms());
        let (r, _) = check(&mut an, &p, Mode::Prefix, &limits(1));
        let Inclusion::Counterexample(c) = &r else {
            panic!("{r:?}")
        };
        assert_eq!(pb.word(&c.word), "c!n.d?n.d!n.c?n.c!n.c!x");
        assert_eq!(c.shortest, Shortest::AmongInFlight(1));
        let (r, _) = check(&mut an, &p, Mode::Prefix, &limits(3));
        let Inclusion::Counterexample(c) = &r else {
            panic!("{r:?}")
        };
        assert_eq!(c.word.len(), 6);
        assert_eq!(c.shortest, Shortest::Overall);
        // Exact without any abstraction: the state budget is reported with what was searched.
        let (r, _) = check(
            &mut an,
            &p,
            Mode::Prefix,
            &InclusionLimits {
                max_states: 10,
                max_in_flight: 3,
                ..InclusionLimits::default()
            },
        );
        assert!(
            matches!(r, Inclusion::Undecided(Undecided::States { limit: 10, .. })),
            "{r:?}"
        );
    }

    /// The time limit is kept: a deadline already passed leaves the question undecided naming
    /// it, where without it the same question is proven.
    #[test]
    fn the_time_limit_leaves_the_question_undecided() {
        let pb = problem("count3", COUNT3);
        let mut an = Analyzer::new(&pb);
        let p = Partition::finest(pb.atoms());
        let limit = std::time::Duration::ZERO;
        let passed = InclusionLimits {
            deadline: super::super::deadline::Deadline::after(Some(limit)),
            ..limits(3)
        };
        let (r, _) = check(&mut an, &p, Mode::Prefix, &passed);
        assert!(
            matches!(r, Inclusion::Undecided(Undecided::Time { limit: l, .. }) if l == limit),
            "{r:?}"
        );
        let (r, _) = check(&mut an, &p, Mode::Prefix, &limits(3));
        assert!(matches!(r, Inclusion::Faithful { .. }), "{r:?}");
    }

    /// The memory limit is kept: the search stops with an undecided answer naming it (and what
    /// was searched), where without it the same question is proven.
    #[test]
    fn the_memory_limit_leaves_the_question_undecided() {
        let pb = problem("count3", COUNT3);
        let mut an = Analyzer::new(&pb);
        let p = Partition::finest(pb.atoms());
        let tiny = InclusionLimits {
            max_memory: Some(1),
            ..limits(3)
        };
        let (r, _) = check(&mut an, &p, Mode::Prefix, &tiny);
        assert!(
            matches!(r, Inclusion::Undecided(Undecided::Memory { limit: 1, .. })),
            "{r:?}"
        );
        let (r, _) = check(&mut an, &p, Mode::Prefix, &limits(3));
        assert_eq!(r, Inclusion::Faithful { in_flight: Some(2) });
    }
}
