//! Which participants must be monitored together: (a) and (b) on seed 002's examples, and
//! against brute-force enumeration on random interactions and automata.

use multitrace_analysis::partition::central::{self, Central, CentralLimits, FoundBy};
use multitrace_analysis::partition::inclusion::{
    self, Inclusion, InclusionLimits, Shortest, Undecided,
};
use multitrace_analysis::partition::recheck::recheck;
use multitrace_analysis::partition::search::{self, SearchLimits, Status};
use multitrace_analysis::partition::statics::for_each_partition;
use multitrace_analysis::partition::{Analyzer, Partition, PartitionError, Problem};
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::read_source;
use multitrace_model::model::{CompiledModel, Origin};
use multitrace_model::nfa::{LetterId, LocationId, StateId};
use multitrace_model::rng::Rng;
use multitrace_model::signature::{Action, ActionKind};
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, VerdictKind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MODES: [Mode; 2] = [Mode::Complete, Mode::Prefix];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(name)
        .join("model.hif")
}

fn problem_of(path: &Path, given: LocationChoice) -> Result<Problem, PartitionError> {
    let src = read_source(path, None)?;
    Problem::new(src, given, &CompileOptions::default(), None)
}

/// A partition named by its blocks of atom numbers.
fn part(n: usize, blocks: &[&[usize]]) -> Partition {
    Partition::from_blocks(
        n,
        blocks
            .iter()
            .map(|b| b.iter().fold(0u64, |m, &a| m | 1 << a))
            .collect(),
    )
    .unwrap()
}

fn finest_names(problem: &Problem, mode: Mode) -> Vec<String> {
    let mut an = Analyzer::new(problem);
    let out = search::finest_faithful(
        &mut an,
        mode,
        &SearchLimits::default(),
        &InclusionLimits::default(),
        None,
        &[],
    );
    assert!(out.complete());
    out.minimal()
        .into_iter()
        .map(|(i, certain)| {
            assert!(certain);
            problem.partition_name(&out.records[i].partition)
        })
        .collect()
}

/// Seed 002's ping/pong: only B with C detects C sending pong before B received ping.
#[test]
fn seed002_ping_pong_needs_b_and_c_together() {
    let problem = problem_of(&fixture("seed002-pingpong"), LocationChoice::Default).unwrap();
    assert_eq!(problem.atoms(), 4);
    let mut an = Analyzer::new(&problem);
    let finest = Partition::finest(4);
    let model = problem.compile(&finest).unwrap();
    // Complete mode: the shortest counterexample sends pong before ping is received; its
    // multitrace is accepted (by another interleaving): only the global order shows it.
    let (a, _) = inclusion::check(
        &mut an,
        &finest,
        Mode::Complete,
        &InclusionLimits::default(),
    );
    let Inclusion::Counterexample(c) = &a else {
        panic!("{a:?}")
    };
    assert_eq!(problem.word(&c.word), "A!ping.C!pong.B?ping.D?pong");
    assert_eq!(c.shortest, Shortest::Overall);
    let r = recheck(&problem, &model, &finest, &c.word, Mode::Complete).unwrap();
    assert!(r.confirms_inclusion(), "{r:?}");
    assert_eq!(r.multitrace.kind, VerdictKind::Pass);
    // ... so the central step is not needed (the local languages are finite).
    let engine = Engine::new(model.clone());
    let b = central::check(
        &mut an,
        &finest,
        Mode::Complete,
        &a,
        &engine,
        &CentralLimits::default(),
    )
    .unwrap();
    assert!(matches!(b, Central::ProvenExhaustive(s) if s.all), "{b:?}");
    // Prefix mode: C sending pong first is already a violation.
    let (a, _) = inclusion::check(&mut an, &finest, Mode::Prefix, &InclusionLimits::default());
    let Inclusion::Counterexample(c) = &a else {
        panic!("{a:?}")
    };
    assert_eq!(problem.word(&c.word), "C!pong");
    for mode in MODES {
        assert_eq!(finest_names(&problem, mode), vec!["[A] [B,C] [D]"]);
        // Seed 002's derivation: any of A, B with any of C, D.
        let st = problem.statics().unwrap();
        let atom = |l: multitrace_model::signature::LifelineId| l.index();
        let seed = st.minimal_partitions(true, mode, 4, &atom, 1000).unwrap();
        let names: BTreeSet<String> = seed.iter().map(|p| problem.partition_name(p)).collect();
        assert_eq!(
            names,
            [
                "[A,C] [B] [D]",
                "[A,D] [B] [C]",
                "[A] [B,C] [D]",
                "[A] [B,D] [C]"
            ]
            .map(String::from)
            .into()
        );
        // Ours predicts exactly the finest faithful partition.
        let ours = st.minimal_partitions(false, mode, 4, &atom, 1000).unwrap();
        assert_eq!(ours, vec![part(4, &[&[0], &[1, 2], &[3]])]);
    }
}

/// Seed 002's Example 3: a choice between msg1 (A to B) and msg2 (C to D).
#[test]
fn seed002_example3_groupings() {
    let problem = problem_of(&fixture("seed002-example3"), LocationChoice::Default).unwrap();
    // Complete mode: the paper's [A,C] [B,D]; its other grouping [A,D] [B,C] lets A send
    // msg1 and C send msg2 unseen.
    assert_eq!(finest_names(&problem, Mode::Complete), vec!["[A,C] [B,D]"]);
    let mut an = Analyzer::new(&problem);
    let other = part(4, &[&[0, 3], &[1, 2]]);
    let (a, _) = inclusion::check(&mut an, &other, Mode::Complete, &InclusionLimits::default());
    let Inclusion::Counterexample(c) = &a else {
        panic!("{a:?}")
    };
    assert_eq!(problem.word(&c.word), "A!msg1.C!msg2");
    let model = problem.compile(&other).unwrap();
    assert!(recheck(&problem, &model, &other, &c.word, Mode::Complete)
        .unwrap()
        .confirms_inclusion());
    // One location per lifeline: even the empty run passes every local verifier.
    let finest = Partition::finest(4);
    let (a, _) = inclusion::check(
        &mut an,
        &finest,
        Mode::Complete,
        &InclusionLimits::default(),
    );
    assert!(
        matches!(&a, Inclusion::Counterexample(c) if c.word.is_empty()),
        "{a:?}"
    );
    // Prefix mode: a location that has not acted yet is fine, so B and D may stay alone.
    assert_eq!(finest_names(&problem, Mode::Prefix), vec!["[A,C] [B] [D]"]);
    let (a, _) = inclusion::check(&mut an, &finest, Mode::Prefix, &InclusionLimits::default());
    let Inclusion::Counterexample(c) = &a else {
        panic!("{a:?}")
    };
    assert_eq!(problem.word(&c.word), "A!msg1.C!msg2");
    // Here the central step sees it: (b) has the same counterexample.
    let model = problem.compile(&finest).unwrap();
    let engine = Engine::new(model.clone());
    let b = central::check(
        &mut an,
        &finest,
        Mode::Prefix,
        &a,
        &engine,
        &CentralLimits::default(),
    )
    .unwrap();
    let Central::Counterexample(cb, _) = &b else {
        panic!("{b:?}")
    };
    assert_eq!(cb.found, FoundBy::Exhaustive);
    assert_eq!(cb.interleaving.len(), 2);
    assert!(
        recheck(&problem, &model, &finest, &cb.interleaving, Mode::Prefix)
            .unwrap()
            .confirms_central()
    );
}

// ---------------------------------------------------------------- random interactions

const LL: u32 = 4;

/// A random interaction over lifelines l0..l3 and messages m0, m1, as `.hif` text, with its
/// channels: (receiver, message) -> senders, `None` for the environment.
fn random_interaction(
    rng: &mut Rng,
    depth: usize,
    channels: &mut BTreeMap<(u32, u32), BTreeSet<Option<u32>>>,
) -> String {
    let l = |rng: &mut Rng| rng.below(LL as usize) as u32;
    let m = |rng: &mut Rng| rng.below(2) as u32;
    if depth == 0 || rng.below(3) == 0 {
        let (a, mm) = (l(rng), m(rng));
        return match rng.below(8) {
            0 => "o".into(),
            1 => format!("l{a} -- m{mm} ->|"),
            2 => {
                channels.entry((a, mm)).or_default().insert(None);
                format!("m{mm} -> l{a}")
            }
            3 => {
                let (b, c) = (l(rng), l(rng));
                if b == c {
                    channels.entry((b, mm)).or_default().insert(Some(a));
                    return format!("l{a} -- m{mm} -> l{b}");
                }
                channels.entry((b, mm)).or_default().insert(Some(a));
                channels.entry((c, mm)).or_default().insert(Some(a));
                format!("l{a} -- m{mm} -> (l{b}, l{c})")
            }
            _ => {
                let b = l(rng);
                channels.entry((b, mm)).or_default().insert(Some(a));
                format!("l{a} -- m{mm} -> l{b}")
            }
        };
    }
    let op = rng.below(12);
    let x = random_interaction(rng, depth - 1, channels);
    if op >= 10 {
        return match (op, rng.below(3)) {
            (10, _) => format!("loopS({x})"),
            (_, 0) => format!("loopW({x})"),
            (_, 1) => format!("loopH({x})"),
            _ => format!("loopP({x})"),
        };
    }
    let y = random_interaction(rng, depth - 1, channels);
    match op {
        0..=2 => format!("strict({x}, {y})"),
        3..=4 => format!("seq({x}, {y})"),
        5 => format!("par({x}, {y})"),
        6..=8 => format!("alt({x}, {y})"),
        _ => format!("coreg(l{})({x}, {y})", l(rng)),
    }
}

const SIGNATURE: &str = "@lifeline{l0;l1;l2;l3}\n@message{m0;m1}\n";

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "multitrace-partition-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The brute-force side: causality from the generator's channels, local acceptance by the
/// compiled partition's `ProjDfa`s, global acceptance by a subset simulation of `A`.
struct Brute<'a> {
    global: &'a CompiledModel,
    model: &'a CompiledModel,
    /// Location of each letter of `model`.
    actions: Vec<Action>,
    channels: &'a BTreeMap<(u32, u32), BTreeSet<Option<u32>>>,
    mode: Mode,
}

impl Brute<'_> {
    /// Whether the word (actions) respects the causal restriction, and its most messages in
    /// flight on one channel.
    fn causal(&self, w: &[Action]) -> (bool, u32) {
        let mut count: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        let mut most = 0;
        for a in w {
            let (l, m) = (a.lifeline.0, a.message.0);
            match a.kind {
                ActionKind::Reception => {
                    let free = self.channels.get(&(l, m)).is_none_or(|s| s.contains(&None));
                    if !free {
                        let c = count.entry((l, m)).or_default();
                        if *c == 0 {
                            return (false, most);
                        }
                        *c -= 1;
                    }
                }
                ActionKind::Emission => {
                    for (&(b, mm), s) in self.channels {
                        if mm == m && s.contains(&Some(l)) && !s.contains(&None) {
                            let c = count.entry((b, mm)).or_default();
                            *c += 1;
                            most = most.max(*c);
                        }
                    }
                }
            }
        }
        (true, most)
    }

    /// Per location: the DFA state after the projection of `w`, `None` when dead.
    fn local_states(&self, w: &[Action]) -> Option<Vec<u32>> {
        let a = self.model.automata().unwrap();
        let mut states = vec![0u32; a.projections.len()];
        for act in w {
            let x = self.model.letter_of(*act).unwrap();
            let k = self.model.alphabet.location(x).index();
            let dfa = &a.projections[k];
            let (t, _) = dfa.step(states[k], self.model.alphabet.local_index(x))?;
            if !dfa.live[t as usize] {
                return None;
            }
            states[k] = t;
        }
        Some(states)
    }

    fn locally_accepted(&self, w: &[Action]) -> bool {
        let a = self.model.automata().unwrap();
        match self.local_states(w) {
            None => false,
            Some(s) => s.iter().enumerate().all(|(k, &q)| match self.mode {
                Mode::Complete => a.projections[k].accepting[q as usize],
                Mode::Prefix => a.projections[k].live[q as usize],
            }),
        }
    }

    fn globally_accepted(&self, w: &[Action]) -> bool {
        let Some(a) = self.global.automata() else {
            // Not regular: term exploration on the model with one location.
            let engine = Engine::new(self.global.clone());
            let letters: Vec<LetterId> = w
                .iter()
                .map(|&x| self.global.letter_of(x).unwrap())
                .collect();
            let opts = CheckOptions {
                mode: self.mode,
                choice: Choice::Force(Procedure::Term),
                diagnosis: None,
                ..CheckOptions::default()
            };
            let (v, _) = engine
                .check_letters(&mut engine.scratch(), &[letters], &opts)
                .unwrap();
            assert_ne!(v.kind, VerdictKind::Inconclusive);
            return v.kind != VerdictKind::Fail;
        };
        let live = a.nfa.co_reachable();
        let mut set: BTreeSet<StateId> = a.nfa.initial().iter().copied().collect();
        for act in w {
            let x = self.global.letter_of(*act).unwrap();
            set = set
                .iter()
                .flat_map(|&s| a.nfa.out(s).map(|(_, t)| t))
                .filter(|t| t.letter == x)
                .map(|t| t.to)
                .collect();
        }
        set.iter().any(|&s| match self.mode {
            Mode::Complete => a.nfa.is_accepting(s),
            Mode::Prefix => live[s.index()],
        })
    }

    /// The length of the shortest counterexample to (a) of at most `max` actions, with at
    /// most `k` messages in flight per channel.
    fn shortest_a(&self, max: usize, k: u32) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut stack: Vec<Vec<Action>> = vec![Vec::new()];
        while let Some(w) = stack.pop() {
            if best.is_some_and(|b| w.len() >= b) {
                continue;
            }
            if self.locally_accepted(&w) && !self.globally_accepted(&w) {
                best = Some(w.len());
                continue;
            }
            if w.len() == max {
                continue;
            }
            for &a in &self.actions {
                let mut w2 = w.clone();
                w2.push(a);
                let (causal, in_flight) = self.causal(&w2);
                if causal && in_flight <= k && self.local_states(&w2).is_some() {
                    stack.push(w2);
                }
            }
        }
        best
    }

    /// Words of location `k`'s DFA of at most `max` letters passing in the mode.
    fn local_words(&self, k: usize, max: usize) -> Vec<Vec<LetterId>> {
        let a = self.model.automata().unwrap();
        let dfa = &a.projections[k];
        let letters = self.model.alphabet.letters_of(LocationId(k as u32));
        let mut out = Vec::new();
        let mut stack = vec![(0u32, Vec::new())];
        while let Some((s, w)) = stack.pop() {
            let ok = match self.mode {
                Mode::Complete => dfa.accepting[s as usize],
                Mode::Prefix => dfa.live[s as usize],
            };
            if ok {
                out.push(w.clone());
            }
            if w.len() == max {
                continue;
            }
            for (x, &l) in letters.iter().enumerate() {
                if let Some((t, _)) = dfa.step(s, x as u32) {
                    if dfa.live[t as usize] {
                        let mut w2 = w.clone();
                        w2.push(l);
                        stack.push((t, w2));
                    }
                }
            }
        }
        out
    }

    /// Whether some interleaving of the traces is causal (exhaustive search).
    fn realizable(&self, traces: &[Vec<LetterId>]) -> bool {
        let acts: Vec<Vec<Action>> = traces
            .iter()
            .map(|t| {
                t.iter()
                    .map(|&l| match &self.model.origin {
                        Origin::Interaction { letter_actions, .. } => letter_actions[l.index()],
                        Origin::Automaton => unreachable!(),
                    })
                    .collect()
            })
            .collect();
        let mut stack = vec![(vec![0usize; acts.len()], Vec::<Action>::new())];
        let mut seen = BTreeSet::new();
        while let Some((pos, w)) = stack.pop() {
            if pos.iter().zip(&acts).all(|(&p, t)| p == t.len()) {
                return true;
            }
            if !seen.insert(pos.clone()) {
                continue; // the counters only depend on the positions
            }
            for k in 0..acts.len() {
                if let Some(&a) = acts[k].get(pos[k]) {
                    let mut w2 = w.clone();
                    w2.push(a);
                    if self.causal(&w2).0 {
                        let mut p2 = pos.clone();
                        p2[k] += 1;
                        stack.push((p2, w2));
                    }
                }
            }
        }
        false
    }

    /// The number of actions of the shortest counterexample to (b) of at most `max`
    /// actions, deciding membership by term exploration.
    fn shortest_b(&self, max: usize) -> Option<usize> {
        let n = self.model.alphabet.locations();
        let words: Vec<Vec<Vec<LetterId>>> = (0..n).map(|k| self.local_words(k, max)).collect();
        let engine = Engine::new(self.model.clone());
        let mut scratch = engine.scratch();
        let opts = CheckOptions {
            mode: self.mode,
            choice: Choice::Force(Procedure::Term),
            diagnosis: None,
            ..CheckOptions::default()
        };
        let mut best: Option<usize> = None;
        if words.iter().any(Vec::is_empty) {
            return None;
        }
        let mut idx = vec![0usize; n];
        loop {
            let traces: Vec<Vec<LetterId>> = (0..n).map(|k| words[k][idx[k]].clone()).collect();
            let total: usize = traces.iter().map(Vec::len).sum();
            if total <= max && best.is_none_or(|b| total < b) && self.realizable(&traces) {
                let (v, _) = engine.check_letters(&mut scratch, &traces, &opts).unwrap();
                assert_ne!(v.kind, VerdictKind::Inconclusive);
                if v.kind == VerdictKind::Fail {
                    best = Some(total);
                }
            }
            let mut k = n;
            loop {
                if k == 0 {
                    return best;
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < words[k].len() {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
}

/// On random interactions, random partitions and both modes: (a) and (b) against
/// brute-force enumeration up to `MAX` actions, every counterexample re-checked by the
/// runtime, and the link (a) faithful ⇒ (b) holds.
#[test]
fn random_interactions_agree_with_brute_force() {
    const MAX: usize = 6;
    let dir = scratch_dir("random");
    std::fs::write(dir.join("signature.hsf"), SIGNATURE).unwrap();
    let mut rng = Rng::new(13);
    let (mut models, mut a_cex, mut b_cex, mut faithful) = (0, 0, 0, 0);
    let mut not_regular = 0;
    let mut attempts = 0;
    while models < 150 {
        attempts += 1;
        assert!(attempts < 2000, "too few random models compile");
        let mut channels = BTreeMap::new();
        let text = random_interaction(&mut rng, 3, &mut channels);
        let path = dir.join("model.hif");
        std::fs::write(&path, &text).unwrap();
        let problem = match problem_of(&path, LocationChoice::Default) {
            Ok(p) => p,
            Err(PartitionError::NotAutomata { .. }) => continue,
            Err(e) => panic!("{text}: {e}"),
        };
        models += 1;
        let labels: Vec<usize> = (0..4).map(|_| rng.below(3)).collect();
        let mut partitions = vec![Partition::finest(4), Partition::from_labels(&labels)];
        if !problem.exact() {
            // Not regular: only the given partition, (a) searched by enumeration.
            not_regular += 1;
            partitions.truncate(1);
        }
        for p in partitions {
            let model = match problem.compile(&p) {
                Ok(m) => m,
                Err(PartitionError::NotAutomata { .. }) => continue,
                Err(e) => panic!("{e}"),
            };
            let actions = match &model.origin {
                Origin::Interaction { letter_actions, .. } => letter_actions.clone(),
                Origin::Automaton => unreachable!(),
            };
            for mode in MODES {
                let ctx = format!("{text} {} {mode:?}", problem.partition_name(&p));
                let brute = Brute {
                    global: problem.global(),
                    model: &model,
                    actions: actions.clone(),
                    channels: &channels,
                    mode,
                };
                let mut an = Analyzer::new(&problem);
                let limits = InclusionLimits {
                    max_states: 200_000,
                    max_in_flight: MAX as u32,
                    max_length: MAX,
                    ..InclusionLimits::default()
                };
                let (a, _) = inclusion::check(&mut an, &p, mode, &limits);
                let want = brute.shortest_a(MAX, u32::MAX);
                if !problem.exact() {
                    let (a, _) = inclusion::check(&mut an, &p, mode, &limits);
                    match &a {
                        Inclusion::Counterexample(c) => {
                            a_cex += 1;
                            assert_eq!(want, Some(c.word.len()), "{ctx}");
                            let r = recheck(&problem, &model, &p, &c.word, mode).unwrap();
                            assert!(r.confirms_inclusion(), "{ctx}: {r:?}");
                        }
                        Inclusion::Undecided(Undecided::Bounded { complete_up_to, .. }) => {
                            assert_eq!(*complete_up_to, Some(MAX), "{ctx}");
                            assert_eq!(want, None, "{ctx}");
                        }
                        Inclusion::Faithful { .. } => assert_eq!(want, None, "{ctx}"),
                        u => panic!("{ctx}: {u:?}"),
                    }
                    continue;
                }
                // With one message in flight counted exactly: the same proofs, and
                // counterexamples that are real and shortest as claimed.
                let (a1, _) = inclusion::check(
                    &mut an,
                    &p,
                    mode,
                    &InclusionLimits {
                        max_states: 200_000,
                        max_in_flight: 1,
                        ..InclusionLimits::default()
                    },
                );
                match &a1 {
                    Inclusion::Faithful { .. } => assert_eq!(want, None, "{ctx}"),
                    Inclusion::Counterexample(c) => {
                        let r = recheck(&problem, &model, &p, &c.word, mode).unwrap();
                        assert!(r.confirms_inclusion(), "{ctx}: {r:?}");
                        let len = c.word.len();
                        let within = match c.shortest {
                            Shortest::Overall => want,
                            Shortest::AmongInFlight(k) => {
                                assert_eq!(k, 1);
                                brute.shortest_a(MAX, 1)
                            }
                            Shortest::NoneUpTo(_) => unreachable!("only from (b)"),
                        };
                        assert_eq!(within, (len <= MAX).then_some(len), "{ctx}");
                    }
                    Inclusion::Undecided(Undecided::InFlight { bound, .. }) => {
                        assert_eq!(*bound, 1);
                        assert_eq!(brute.shortest_a(MAX, 1), None, "{ctx}");
                    }
                    Inclusion::Undecided(u) => panic!("{ctx}: {u:?}"),
                }
                match &a {
                    Inclusion::Faithful { .. } => {
                        faithful += 1;
                        assert_eq!(want, None, "{ctx}");
                    }
                    Inclusion::Counterexample(c) => {
                        a_cex += 1;
                        let w: Vec<Action> =
                            c.word.iter().map(|&x| actions_of(&problem, x)).collect();
                        assert!(brute.causal(&w).0, "{ctx}");
                        assert!(brute.locally_accepted(&w), "{ctx}");
                        assert!(!brute.globally_accepted(&w), "{ctx}");
                        let r = recheck(&problem, &model, &p, &c.word, mode).unwrap();
                        assert!(r.confirms_inclusion(), "{ctx}: {r:?}");
                        // Exact up to MAX in flight, so shortest whenever within MAX.
                        if c.word.len() <= MAX {
                            assert_eq!(want, Some(c.word.len()), "{ctx}");
                        } else {
                            assert_eq!(want, None, "{ctx}");
                        }
                    }
                    Inclusion::Undecided(Undecided::InFlight { .. }) => {
                        assert_eq!(want, None, "{ctx}")
                    }
                    Inclusion::Undecided(u) => panic!("{ctx}: {u:?}"),
                }
                // The bounded search used when the global language is not regular (each
                // trace decided by term exploration) agrees with the product search.
                if models <= 40 {
                    let (bd, _) = inclusion::bounded(
                        &mut an,
                        &p,
                        mode,
                        &InclusionLimits {
                            max_length: 5,
                            ..InclusionLimits::default()
                        },
                    );
                    match (&a, &bd) {
                        (_, Inclusion::Counterexample(c)) => {
                            assert_eq!(c.shortest, Shortest::Overall);
                            assert_eq!(want.filter(|&d| d <= 5), Some(c.word.len()), "{ctx}");
                        }
                        (Inclusion::Faithful { .. }, Inclusion::Faithful { .. }) => {}
                        (_, Inclusion::Faithful { .. }) => panic!("{ctx}: {a:?}"),
                        (_, Inclusion::Undecided(Undecided::Bounded { .. })) => {
                            assert_eq!(want.filter(|&d| d <= 5), None, "{ctx}")
                        }
                        (_, u) => panic!("{ctx}: {u:?}"),
                    }
                }
                // (b), exhaustive up to MAX (no sampling), against term exploration.
                let engine = Engine::new(model.clone());
                let b = central::check(
                    &mut an,
                    &p,
                    mode,
                    &a,
                    &engine,
                    &CentralLimits {
                        max_length: MAX,
                        max_multitraces: 1_000_000,
                        samples: 0,
                        seed: 1,
                        ..CentralLimits::default()
                    },
                )
                .unwrap();
                let want_b = brute.shortest_b(MAX);
                // A counterexample to (b) interleaves into one to (a).
                if let Some(d) = want_b {
                    assert!(want.is_some_and(|x| x <= d), "{ctx}");
                }
                match &b {
                    Central::ProvenByInclusion | Central::ProvenExhaustive(_) => {
                        assert_eq!(want_b, None, "{ctx}")
                    }
                    Central::Counterexample(c, s) => {
                        b_cex += 1;
                        let r = recheck(&problem, &model, &p, &c.interleaving, mode).unwrap();
                        assert!(
                            r.confirms_central() && r.confirms_inclusion(),
                            "{ctx}: {r:?}"
                        );
                        if c.found == FoundBy::Exhaustive {
                            // Shortest; beyond MAX when every local language is finite.
                            let len = c.interleaving.len();
                            assert_eq!(want_b, (len <= MAX).then_some(len), "{ctx}");
                        } else {
                            assert!(s.complete_up_to >= Some(MAX), "{ctx}");
                            assert_eq!(want_b, None, "{ctx}");
                        }
                    }
                    Central::NoneFound(s) => {
                        assert!(s.complete_up_to >= Some(MAX), "{ctx}");
                        assert_eq!(want_b, None, "{ctx}");
                    }
                }
            }
        }
    }
    // The cases are not all of one kind.
    assert!(
        a_cex > 20 && b_cex > 10 && faithful > 10 && not_regular > 5,
        "{a_cex} {b_cex} {faithful} {not_regular}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn actions_of(problem: &Problem, x: LetterId) -> Action {
    match &problem.global().origin {
        Origin::Interaction { letter_actions, .. } => letter_actions[x.index()],
        Origin::Automaton => unreachable!(),
    }
}

/// The search's answers are consistent with (a) decided on every partition: a partition is
/// faithful exactly when it is coarser than one of the finest faithful partitions, and every
/// partition refuted by a counterexample of another one is refuted by it (re-checked).
#[test]
fn finest_faithful_partitions_are_exactly_the_minimal_ones() {
    let dir = scratch_dir("search");
    std::fs::write(dir.join("signature.hsf"), SIGNATURE).unwrap();
    let mut rng = Rng::new(2002);
    let mut models = 0;
    while models < 25 {
        let mut channels = BTreeMap::new();
        let text = random_interaction(&mut rng, 3, &mut channels);
        let path = dir.join("model.hif");
        std::fs::write(&path, &text).unwrap();
        let Ok(problem) = problem_of(&path, LocationChoice::Default) else {
            continue;
        };
        if !problem.exact() {
            continue;
        }
        models += 1;
        for mode in MODES {
            let mut an = Analyzer::new(&problem);
            let out = search::finest_faithful(
                &mut an,
                mode,
                &SearchLimits::default(),
                &InclusionLimits::default(),
                None,
                &[],
            );
            assert!(out.complete(), "{text}");
            let minimal: Vec<Partition> = out
                .minimal()
                .iter()
                .map(|&(i, _)| out.records[i].partition.clone())
                .collect();
            assert!(!minimal.is_empty());
            // Guided by hints (the static predictions and random partitions): the same
            // answer.
            let st = problem.statics().unwrap();
            let atom = |l: multitrace_model::signature::LifelineId| l.index();
            let mut hints: Vec<Partition> = [true, false]
                .iter()
                .flat_map(|&seed| st.minimal_partitions(seed, mode, 4, &atom, 1000).unwrap())
                .collect();
            for _ in 0..3 {
                let labels: Vec<usize> = (0..4).map(|_| rng.below(4)).collect();
                hints.push(Partition::from_labels(&labels));
            }
            let guided = search::finest_faithful(
                &mut an,
                mode,
                &SearchLimits::default(),
                &InclusionLimits::default(),
                None,
                &hints,
            );
            let mut with_hints: Vec<Partition> = guided
                .minimal()
                .iter()
                .map(|&(i, _)| guided.records[i].partition.clone())
                .collect();
            with_hints.sort();
            let mut sorted = minimal.clone();
            sorted.sort();
            assert_eq!(with_hints, sorted, "{text} {hints:?}");
            for h in &guided.hinted_faithful {
                assert!(minimal.iter().any(|m| m.refines(h)), "{text} {h:?}");
            }
            let mut all = Vec::new();
            for_each_partition(4, &mut |p| {
                all.push(p.clone());
                true
            });
            for p in &all {
                let (a, _) = inclusion::check(&mut an, p, mode, &InclusionLimits::default());
                let coarser = minimal.iter().any(|m| m.refines(p));
                match a {
                    Inclusion::Faithful { .. } => assert!(coarser, "{text} {p:?}"),
                    Inclusion::Counterexample(_) => assert!(!coarser, "{text} {p:?}"),
                    Inclusion::Undecided(u) => panic!("{text}: {u:?}"),
                }
            }
            for r in &out.records {
                if let Status::Refuted { index, .. } = r.status {
                    let w = &out.counterexamples[index];
                    let model = problem.compile(&r.partition).unwrap();
                    let rc = recheck(&problem, &model, &r.partition, w, mode).unwrap();
                    assert!(rc.confirms_inclusion(), "{text} {:?}", r.partition);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- random automata

/// A random Timbuk automaton over letters a0..a4 in three systems.
fn random_timbuk(rng: &mut Rng) -> String {
    let states = 2 + rng.below(4);
    let mut t = String::from("Ops a0:1 a1:1 a2:1 a3:1 a4:1 x:0\nAutomaton A\nStates");
    for s in 0..states {
        t.push_str(&format!(" q{s}"));
    }
    t.push_str("\nFinal States");
    for s in 0..states {
        // q0 accepting half of the time, the others a third of the time.
        if (s == 0 && rng.below(2) == 0) || (s != 0 && rng.below(3) == 0) {
            t.push_str(&format!(" q{s}"));
        }
    }
    t.push_str("\nTransitions\nx -> q0\n");
    for _ in 0..states + rng.below(2 * states + 1) {
        t.push_str(&format!(
            "a{}(q{}) -> q{}\n",
            rng.below(5),
            rng.below(states),
            rng.below(states)
        ));
    }
    t.push_str("Systems\n  [s1] a0 a1\n  [s2] a2 a3\n  [s3] a4\n");
    t
}

/// Raw automata (no causality): (a) is a plain inclusion, decided exactly; against the
/// enumeration of every word up to `MAX` letters.
#[test]
fn random_automata_agree_with_brute_force() {
    const MAX: usize = 6;
    let dir = scratch_dir("timbuk");
    let mut rng = Rng::new(4);
    let mut kinds = [0usize; 2];
    for _ in 0..100 {
        let text = random_timbuk(&mut rng);
        let path = dir.join("a.timbuk");
        std::fs::write(&path, &text).unwrap();
        let problem = problem_of(&path, LocationChoice::Default).unwrap();
        assert_eq!(problem.causality().counters(), 0);
        let labels: Vec<usize> = (0..3).map(|_| rng.below(2)).collect();
        for p in [Partition::finest(3), Partition::from_labels(&labels)] {
            let model = problem.compile(&p).unwrap();
            for mode in MODES {
                let mut an = Analyzer::new(&problem);
                let (a, _) = inclusion::check(&mut an, &p, mode, &InclusionLimits::default());
                // Brute force: every word of at most MAX letters whose projections are
                // prefixes of the local languages (the others cannot become accepted).
                let global = Engine::new(problem.global().clone());
                let mut gs = global.scratch();
                let opts = CheckOptions {
                    mode,
                    choice: Choice::Force(Procedure::Ac),
                    diagnosis: None,
                    ..CheckOptions::default()
                };
                let dfas = &model.automata().unwrap().projections;
                let mut shortest = None;
                let mut frontier: Vec<(Vec<LetterId>, Vec<u32>)> =
                    vec![(Vec::new(), vec![0; dfas.len()])];
                'len: for len in 0..=MAX {
                    let mut next = Vec::new();
                    for (w, states) in &frontier {
                        let local_ok = states.iter().zip(dfas).all(|(&q, d)| match mode {
                            Mode::Complete => d.accepting[q as usize],
                            Mode::Prefix => d.live[q as usize],
                        });
                        if local_ok {
                            let (g, _) = global
                                .check_letters(&mut gs, std::slice::from_ref(w), &opts)
                                .unwrap();
                            if g.kind == VerdictKind::Fail {
                                shortest = Some(len);
                                break 'len;
                            }
                        }
                        for x in 0..problem.letters() {
                            let lx = problem.translate(&model, &[LetterId(x as u32)]).unwrap()[0];
                            let k = model.alphabet.location(lx).index();
                            let Some((t, _)) =
                                dfas[k].step(states[k], model.alphabet.local_index(lx))
                            else {
                                continue;
                            };
                            if !dfas[k].live[t as usize] {
                                continue;
                            }
                            let mut w2 = w.clone();
                            w2.push(LetterId(x as u32));
                            let mut s2 = states.clone();
                            s2[k] = t;
                            next.push((w2, s2));
                        }
                    }
                    frontier = next;
                }
                match &a {
                    Inclusion::Faithful { in_flight } => {
                        kinds[0] += 1;
                        assert_eq!(*in_flight, None);
                        assert_eq!(shortest, None, "{text} {mode:?}");
                    }
                    Inclusion::Counterexample(c) => {
                        kinds[1] += 1;
                        assert_eq!(c.shortest, Shortest::Overall);
                        assert!(recheck(&problem, &model, &p, &c.word, mode)
                            .unwrap()
                            .confirms_inclusion());
                        if c.word.len() <= MAX {
                            assert_eq!(shortest, Some(c.word.len()), "{text} {mode:?}");
                        } else {
                            assert_eq!(shortest, None, "{text} {mode:?}");
                        }
                    }
                    Inclusion::Undecided(u) => panic!("{text}: {u:?}"),
                }
            }
        }
    }
    assert!(kinds[0] > 30 && kinds[1] > 30, "{kinds:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
