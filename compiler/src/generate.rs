//! Generation of labelled multitraces for benchmarks and comparisons.
//!
//! For a model compiled to automata, [`generate`] produces multitraces of one [`Kind`]:
//!
//! - the categories of seed 004 (Sec. 5, Table 1), checked in complete mode:
//!   - [`Kind::Pass`]: random accepting runs of the NFA `A`, projected on the locations;
//!   - [`Kind::LocalError`]: such a multitrace with one or two local mutations (a letter of a
//!     location replaced, inserted, deleted, or two adjacent letters transposed);
//!   - [`Kind::InterError`]: local traces mixed from two or three correct multitraces;
//!   - [`Kind::CentralError`]: an accepting run `u c v` where `c` reads from a state back to
//!     itself, projected on each location `i` as the projection of `u c^ki v`, with different
//!     `ki` on the locations that `c` reads (every local trace stays locally correct);
//! - the categories of seed 001 (Sec. 6), checked in prefix mode:
//!   - [`Kind::Prefix`]: an accepting run's projection with actions cut from the ends of local
//!     traces (a multi-prefix);
//!   - [`Kind::Noise`]: a multi-prefix with one random letter inserted;
//!   - [`Kind::SwapActions`]: a multi-prefix with two different letters of one local trace
//!     swapped;
//!   - [`Kind::SwapComponents`]: a multi-prefix whose local trace at one location is taken from
//!     another multi-prefix.
//!
//! Nothing is labelled by construction: every candidate is checked by AS (which gives the
//! reason of a Fail) and kept only when its verdict is the one its kind asks for ([`Kind::accepts`]);
//! the mutants of seed 001 keep whatever verdict they get. A candidate whose check runs out of
//! budget (Inconclusive) is never kept. Candidates are bounded ([`GenOptions::max_attempts`]);
//! a kind that the model cannot produce is an error saying why ([`GenError`]).
//!
//! Random runs have an exact length: a table `can[r]` of the states with an accepting run of
//! exactly `r` steps (computed once, up to a little beyond the longest length asked) lets the
//! walk pick, at each step, uniformly among the transitions that can still end in an accepting
//! state at the target length.
//!
//! Generation is deterministic: the same model, options and seed give the same multitraces (a
//! splitmix64 generator; budgets count vertices, never time).

use multitrace_runtime::check::explore::Budget;
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure, Scratch};
use multitrace_runtime::model::{CompiledModel, ModelKind, Origin};
use multitrace_runtime::multitrace::{Component, Multitrace};
use multitrace_runtime::nfa::{LetterId, LocationId, Nfa, StateId};
use multitrace_runtime::syntax::write_mtf;
use multitrace_runtime::verdict::{Mode, Reason, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::fmt;

/// The splitmix64 generator (Steele, Lea and Flood).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi` (`lo <= hi`).
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A uniformly chosen element (`None` for an empty slice).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

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
    /// multitraces (for models where iterating cycles cannot fail, see [`GenError`]).
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

    fn salt(self) -> u64 {
        // Distinct streams per kind for one seed.
        0x6d75_6c74_6974_7261u64.wrapping_mul(self as u64 + 1)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// The category.
    pub kind: Kind,
    /// How many multitraces.
    pub count: usize,
    /// Shortest total length (actions over all locations).
    pub min_len: usize,
    /// Longest total length (inclusive).
    pub max_len: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// Most candidates checked; `None`: `100 * count + 1000`.
    pub max_attempts: Option<usize>,
    /// Budget of each check (vertices only, so that generation stays deterministic).
    pub max_vertices: Option<u64>,
}

impl GenOptions {
    /// `count` multitraces of `kind` with lengths in `min_len..=max_len`.
    pub fn new(kind: Kind, count: usize, min_len: usize, max_len: usize, seed: u64) -> Self {
        GenOptions {
            kind,
            count,
            min_len,
            max_len,
            seed,
            max_attempts: None,
            max_vertices: Budget::default().max_vertices,
        }
    }
}

/// One generated multitrace and the verdict it was checked to have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// One local trace per location of the model.
    pub traces: Vec<Vec<LetterId>>,
    /// Its verdict by AS in `mode`.
    pub verdict: Verdict,
    /// The mode it was checked in.
    pub mode: Mode,
}

impl Labelled {
    /// Total number of actions.
    pub fn len(&self) -> usize {
        self.traces.iter().map(Vec::len).sum()
    }

    /// Whether every local trace is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The result of a generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generation {
    /// The multitraces, in generation order.
    pub items: Vec<Labelled>,
    /// Candidates built (kept or not).
    pub attempts: usize,
    /// Why candidates were not kept, with counts (`Pass`, `Fail/InterError`, `length out of
    /// range`, ...).
    pub rejected: BTreeMap<String, usize>,
}

impl Generation {
    /// "12 Pass, 3 Fail/InterError" (or "none").
    pub fn rejected_summary(&self) -> String {
        if self.rejected.is_empty() {
            return "none".into();
        }
        let mut v: Vec<(&String, &usize)> = self.rejected.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a category cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The model has no automata (term-only), or the options are wrong.
    Unsupported(String),
    /// The model cannot produce the category at all, and why.
    Impossible {
        /// The category.
        kind: Kind,
        /// Why.
        why: String,
    },
    /// Fewer multitraces than asked within the attempt bound; what was produced.
    Shortfall {
        /// The category.
        kind: Kind,
        /// How many were asked for.
        wanted: usize,
        /// What was produced, with the rejection counts.
        partial: Box<Generation>,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Unsupported(why) => f.write_str(why),
            GenError::Impossible { kind, why } => {
                write!(f, "cannot generate `{kind}` multitraces for this model: {why}")
            }
            GenError::Shortfall {
                kind,
                wanted,
                partial,
            } => write!(
                f,
                "only {} of {wanted} `{kind}` multitraces after {} candidates ({}); candidates rejected: {}",
                partial.items.len(),
                partial.attempts,
                match kind {
                    Kind::Pass => "no accepted multitrace was found",
                    Kind::LocalError => "mutations rarely leave the local languages here",
                    Kind::InterError =>
                        "mixed local traces keep an accepting path in Inter(A, μ) here",
                    Kind::CentralError =>
                        "iterating cycles differently per location is still accepted or caught earlier here; `central-error-mixed` builds central errors by mixing local traces",
                    Kind::CentralErrorMixed =>
                        "mixed local traces are accepted or caught by the local or Inter checks here",
                    Kind::Prefix => "cut multitraces are mostly still accepted here",
                    _ => "most candidates were inconclusive or out of the length range",
                },
                partial.rejected_summary()
            ),
        }
    }
}

impl std::error::Error for GenError {}

/// The reason of a verdict as the manifest writes it: `-`, `LocalError(l2)`, `InterError`,
/// `CentralError`, `Budget`.
pub fn reason_label(model: &CompiledModel, v: &Verdict) -> String {
    match &v.reason {
        None => "-".into(),
        Some(Reason::LocalError { location, .. }) => {
            format!("LocalError({})", model.alphabet.location_name(*location))
        }
        Some(r) => r.name().into(),
    }
}

fn verdict_label(v: &Verdict) -> String {
    match &v.reason {
        Some(r) if v.kind == VerdictKind::Fail => format!("Fail/{}", r.name()),
        _ => v.kind.name().into(),
    }
}

/// Projects a word of `A` on the locations.
pub fn project_word(model: &CompiledModel, word: &[LetterId]) -> Vec<Vec<LetterId>> {
    let mut traces = vec![Vec::new(); model.alphabet.locations()];
    for &l in word {
        traces[model.alphabet.location(l).index()].push(l);
    }
    traces
}

/// The multitrace of an interaction model (one component per location); `None` for a raw
/// automaton.
pub fn to_multitrace(model: &CompiledModel, traces: &[Vec<LetterId>]) -> Option<Multitrace> {
    let Origin::Interaction {
        letter_actions,
        location_lifelines,
        ..
    } = &model.origin
    else {
        return None;
    };
    Some(Multitrace {
        components: location_lifelines
            .iter()
            .enumerate()
            .map(|(k, &g)| Component {
                lifelines: g,
                trace: traces
                    .get(k)
                    .map(|t| t.iter().map(|l| letter_actions[l.index()]).collect())
                    .unwrap_or_default(),
            })
            .collect(),
    })
}

/// The `.htf` text of a multitrace of an interaction model (`None` for a raw automaton).
pub fn render_htf(model: &CompiledModel, traces: &[Vec<LetterId>]) -> Option<String> {
    let mt = to_multitrace(model, traces)?;
    let mut s = mt.to_htf(model.signature()?);
    s.push('\n');
    Some(s)
}

/// The `.mtf` text of a multitrace.
pub fn render_mtf(model: &CompiledModel, traces: &[Vec<LetterId>]) -> String {
    write_mtf(traces, &model.alphabet)
}

/// Lengths of accepting runs: `can[r]` holds the states with an accepting run of exactly `r`
/// transitions, for `r <= cap`.
struct RunTable {
    words: usize,
    cap: usize,
    bits: Vec<u64>,
    /// Lengths `r <= cap` with an accepting run of `r` transitions from an initial state.
    feasible: Vec<bool>,
}

/// Largest run table, in bits.
const MAX_TABLE_BITS: usize = 1 << 32;

impl RunTable {
    fn new(nfa: &Nfa, cap: usize) -> Result<Self, String> {
        let n = nfa.states();
        let words = n.div_ceil(64).max(1);
        if (cap + 1).saturating_mul(words * 64) > MAX_TABLE_BITS {
            return Err(format!(
                "lengths up to {cap} on an NFA of {n} states need too large a table of run lengths; ask for shorter multitraces"
            ));
        }
        let mut bits = vec![0u64; (cap + 1) * words];
        for s in 0..n {
            if nfa.is_accepting(StateId(s as u32)) {
                bits[s / 64] |= 1 << (s % 64);
            }
        }
        for r in 1..=cap {
            let (done, rest) = bits.split_at_mut(r * words);
            let prev = &done[(r - 1) * words..];
            let cur = &mut rest[..words];
            for t in nfa.transitions() {
                let to = t.to.index();
                if prev[to / 64] >> (to % 64) & 1 == 1 {
                    let f = t.from.index();
                    cur[f / 64] |= 1 << (f % 64);
                }
            }
        }
        let mut table = RunTable {
            words,
            cap,
            bits,
            feasible: Vec::new(),
        };
        table.feasible = (0..=cap)
            .map(|r| nfa.initial().iter().any(|&s| table.can(r, s)))
            .collect();
        Ok(table)
    }

    #[inline]
    fn can(&self, r: usize, s: StateId) -> bool {
        let i = s.index();
        self.bits[r * self.words + i / 64] >> (i % 64) & 1 == 1
    }

    fn feasible_in(&self, lo: usize, hi: usize) -> Vec<usize> {
        (lo..=hi.min(self.cap))
            .filter(|&r| self.feasible[r])
            .collect()
    }
}

/// The generator's state.
struct Generator<'a> {
    engine: &'a Engine,
    model: &'a CompiledModel,
    nfa: &'a Nfa,
    table: RunTable,
    rng: Rng,
    scratch: Scratch,
    opts: &'a GenOptions,
}

/// A random accepting run: its letters and the states it visits (one more than letters).
struct Run {
    word: Vec<LetterId>,
    states: Vec<StateId>,
}

impl Generator<'_> {
    /// A random accepting run of exactly `len` transitions (`len` must be feasible).
    fn walk(&mut self, len: usize) -> Run {
        let starts: Vec<StateId> = self
            .nfa
            .initial()
            .iter()
            .copied()
            .filter(|&s| self.table.can(len, s))
            .collect();
        let mut q = *self.rng.pick(&starts).expect("feasible length");
        let mut word = Vec::with_capacity(len);
        let mut states = Vec::with_capacity(len + 1);
        states.push(q);
        let mut choices = Vec::new();
        for n in 0..len {
            let r = len - n;
            choices.clear();
            choices.extend(
                self.nfa
                    .out(q)
                    .map(|(_, t)| t)
                    .filter(|t| self.table.can(r - 1, t.to)),
            );
            let t = *self
                .rng
                .pick(&choices)
                .expect("a transition stays feasible");
            word.push(t.letter);
            states.push(t.to);
            q = t.to;
        }
        Run { word, states }
    }

    /// A random feasible run length in `lo..=hi`, or the smallest feasible one above `hi`.
    fn length(&mut self, lo: usize, hi: usize) -> Option<usize> {
        let f = self.table.feasible_in(lo, hi);
        if let Some(&r) = self.rng.pick(&f) {
            return Some(r);
        }
        (hi.saturating_add(1)..=self.table.cap).find(|&r| self.table.feasible[r])
    }

    /// The projection of a random accepting run with a length in the asked range.
    fn correct(&mut self) -> Option<Vec<Vec<LetterId>>> {
        let len = self.length(self.opts.min_len, self.opts.max_len)?;
        let run = self.walk(len);
        Some(project_word(self.model, &run.word))
    }

    /// A multi-prefix of total length `len` cut from a random accepting run; at least `cut`
    /// actions are removed.
    fn multi_prefix(&mut self, len: usize, cut: usize) -> Option<Vec<Vec<LetterId>>> {
        let extra = (len / 4).max(3);
        let base = self.length(len + cut, len + cut + extra)?;
        let run = self.walk(base);
        let mut traces = project_word(self.model, &run.word);
        let mut total = base;
        while total > len {
            let nonempty: Vec<usize> = (0..traces.len())
                .filter(|&k| !traces[k].is_empty())
                .collect();
            let k = *self.rng.pick(&nonempty)?;
            traces[k].pop();
            total -= 1;
        }
        Some(traces)
    }

    fn in_range(&self, traces: &[Vec<LetterId>]) -> bool {
        let n: usize = traces.iter().map(Vec::len).sum();
        (self.opts.min_len..=self.opts.max_len).contains(&n)
    }

    fn check(&mut self, traces: &[Vec<LetterId>], mode: Mode) -> Verdict {
        let opts = CheckOptions {
            mode,
            choice: Choice::Force(Procedure::As),
            budget: Budget {
                max_vertices: self.opts.max_vertices,
                timeout: None,
            },
            ..CheckOptions::default()
        };
        self.engine
            .check_letters(&mut self.scratch, traces, &opts)
            .map(|(v, _)| v)
            .expect("AS runs on a model with automata")
    }

    /// Letters of location `k`.
    fn letters(&self, k: usize) -> &[LetterId] {
        self.model.alphabet.letters_of(LocationId(k as u32))
    }

    /// One local mutation of `traces` on a location that has letters (a random applicable
    /// operation, else an insertion); false when no location has letters.
    fn mutate(&mut self, traces: &mut [Vec<LetterId>]) -> bool {
        let locs: Vec<usize> = (0..traces.len())
            .filter(|&k| !self.letters(k).is_empty())
            .collect();
        let Some(&k) = self.rng.pick(&locs) else {
            return false;
        };
        let letters = self.letters(k).to_vec();
        let t = &mut traces[k];
        for _ in 0..8 {
            match self.rng.below(4) {
                // Replace a letter by another letter of the location.
                0 if !t.is_empty() && letters.len() > 1 => {
                    let p = self.rng.below(t.len());
                    let others: Vec<LetterId> =
                        letters.iter().copied().filter(|&l| l != t[p]).collect();
                    t[p] = *self.rng.pick(&others).expect("two letters");
                    return true;
                }
                // Insert a letter.
                1 => {
                    let p = self.rng.below(t.len() + 1);
                    let l = *self.rng.pick(&letters).expect("a letter");
                    t.insert(p, l);
                    return true;
                }
                // Delete a letter.
                2 if !t.is_empty() => {
                    let p = self.rng.below(t.len());
                    t.remove(p);
                    return true;
                }
                // Transpose two adjacent different letters.
                3 if t.len() >= 2 => {
                    let p = self.rng.below(t.len() - 1);
                    if t[p] != t[p + 1] {
                        t.swap(p, p + 1);
                        return true;
                    }
                }
                _ => {}
            }
        }
        // Inserting always applies.
        let p = self.rng.below(t.len() + 1);
        t.insert(p, *self.rng.pick(&letters).expect("a letter"));
        true
    }

    /// One candidate of the kind, or why none was built this time.
    fn candidate(&mut self) -> Result<Vec<Vec<LetterId>>, &'static str> {
        let (min, max) = (self.opts.min_len, self.opts.max_len);
        let nloc = self.model.alphabet.locations();
        match self.opts.kind {
            Kind::Pass => self.correct().ok_or("no run"),
            Kind::LocalError => {
                let mut traces = self.correct().ok_or("no run")?;
                let n = 1 + self.rng.below(2);
                for _ in 0..n {
                    if !self.mutate(&mut traces) {
                        return Err("no mutation applies");
                    }
                }
                Ok(traces)
            }
            Kind::InterError | Kind::CentralErrorMixed => {
                let sources = if nloc > 2 { 2 + self.rng.below(2) } else { 2 };
                let mut pick: Vec<usize> = (0..nloc).map(|_| self.rng.below(sources)).collect();
                if pick.iter().all(|&s| s == pick[0]) {
                    let k = self.rng.below(nloc);
                    pick[k] = (pick[k] + 1 + self.rng.below(sources - 1)) % sources;
                }
                let mut runs = Vec::with_capacity(sources);
                for _ in 0..sources {
                    runs.push(self.correct().ok_or("no run")?);
                }
                let traces: Vec<Vec<LetterId>> = (0..nloc)
                    .map(|k| std::mem::take(&mut runs[pick[k]][k]))
                    .collect();
                Ok(traces)
            }
            Kind::CentralError => self.central(),
            Kind::Prefix => {
                let len = self.rng.between(min, max);
                self.multi_prefix(len, 1).ok_or("no run")
            }
            Kind::Noise => {
                let len = self.rng.between(min.max(1), max.max(1));
                let mut traces = self.multi_prefix(len - 1, 0).ok_or("no run")?;
                let l = LetterId(self.rng.below(self.model.alphabet.len()) as u32);
                let t = &mut traces[self.model.alphabet.location(l).index()];
                let p = self.rng.below(t.len() + 1);
                t.insert(p, l);
                Ok(traces)
            }
            Kind::SwapActions => {
                let len = self.rng.between(min, max);
                let mut traces = self.multi_prefix(len, 0).ok_or("no run")?;
                let locs: Vec<usize> = (0..nloc)
                    .filter(|&k| traces[k].iter().any(|&l| l != traces[k][0]))
                    .collect();
                let k = *self
                    .rng
                    .pick(&locs)
                    .ok_or("no local trace with two letters")?;
                let t = &mut traces[k];
                loop {
                    let (i, j) = (self.rng.below(t.len()), self.rng.below(t.len()));
                    if t[i] != t[j] {
                        t.swap(i, j);
                        break;
                    }
                }
                Ok(traces)
            }
            Kind::SwapComponents => {
                let l1 = self.rng.between(min, max);
                let l2 = self.rng.between(min, max);
                let mut a = self.multi_prefix(l1, 0).ok_or("no run")?;
                let b = self.multi_prefix(l2, 0).ok_or("no run")?;
                let locs: Vec<usize> = (0..nloc).filter(|&k| a[k] != b[k]).collect();
                let k = *self.rng.pick(&locs).ok_or("identical multi-prefixes")?;
                a[k] = b[k].clone();
                Ok(a)
            }
        }
    }

    /// `u c v` with `c` a cycle on two locations or more, iterated `ki` times on location `i`.
    fn central(&mut self) -> Result<Vec<Vec<LetterId>>, &'static str> {
        let (min, max) = (self.opts.min_len, self.opts.max_len);
        let len = self.length(min, max).ok_or("no run")?;
        let run = self.walk(len);
        let loc = |l: LetterId| self.model.alphabet.location(l).index();
        // Every (p, q) with the same state at p and q whose segment reads two locations.
        let mut cycles: Vec<(usize, usize)> = Vec::new();
        for p in 0..run.word.len() {
            let first = loc(run.word[p]);
            let mut multi = false;
            for q in p + 1..=run.word.len() {
                multi |= loc(run.word[q - 1]) != first;
                if multi && run.states[q] == run.states[p] {
                    cycles.push((p, q));
                }
            }
        }
        if cycles.is_empty() {
            return Err("run without a cycle on two locations");
        }
        // Prefer cycles short enough to keep the length in range.
        let slack = ((max - min) / 2).max(1);
        let short: Vec<(usize, usize)> = cycles
            .iter()
            .copied()
            .filter(|&(p, q)| q - p <= slack)
            .collect();
        let &(p, q) = self
            .rng
            .pick(if short.is_empty() { &cycles } else { &short })
            .expect("a cycle");
        let nloc = self.model.alphabet.locations();
        let (u, c, v) = (
            project_word(self.model, &run.word[..p]),
            project_word(self.model, &run.word[p..q]),
            project_word(self.model, &run.word[q..]),
        );
        let involved: Vec<usize> = (0..nloc).filter(|&k| !c[k].is_empty()).collect();
        for _ in 0..16 {
            let times: Vec<usize> = involved.iter().map(|_| self.rng.below(4)).collect();
            if times.iter().all(|&t| t == times[0]) {
                continue;
            }
            let total = len - (q - p)
                + involved
                    .iter()
                    .zip(&times)
                    .map(|(&k, &t)| t * c[k].len())
                    .sum::<usize>();
            if !(min..=max).contains(&total) {
                continue;
            }
            let mut traces = u.clone();
            for k in 0..nloc {
                let reps = involved
                    .iter()
                    .position(|&j| j == k)
                    .map_or(1, |i| times[i]);
                for _ in 0..reps {
                    traces[k].extend_from_slice(&c[k]);
                }
                traces[k].extend_from_slice(&v[k]);
            }
            return Ok(traces);
        }
        Err("length out of range")
    }

    /// Checks that the model can produce the kind at all (before any attempt).
    fn feasibility(&self) -> Result<(), String> {
        let (min, max) = (self.opts.min_len, self.opts.max_len);
        if !self.table.feasible.iter().any(|&f| f) {
            return Err(format!(
                "A has no accepting run of length at most {} (it may accept no word at all)",
                self.table.cap
            ));
        }
        let needs_range = self.opts.kind.mode() == Mode::Complete;
        if needs_range && self.table.feasible_in(min, max).is_empty() {
            let some: Vec<String> = self
                .table
                .feasible_in(0, self.table.cap)
                .iter()
                .take(12)
                .map(|r| r.to_string())
                .collect();
            return Err(format!(
                "A has no accepting run of length in {min}..{max} (lengths of accepting runs up to {}: {})",
                self.table.cap,
                some.join(", ")
            ));
        }
        if !needs_range && self.table.feasible_in(min, self.table.cap).is_empty() {
            return Err(format!(
                "A has no accepting run of length {min} to {} to cut multi-prefixes from",
                self.table.cap
            ));
        }
        match self.opts.kind {
            Kind::InterError | Kind::CentralErrorMixed if self.model.alphabet.locations() < 2 => {
                Err("the model has a single location: there is nothing to mix".into())
            }
            Kind::CentralError => self.cycles_on_two_locations(),
            Kind::LocalError
                if (0..self.model.alphabet.locations()).all(|k| self.letters(k).is_empty()) =>
            {
                Err("no location has letters to mutate".into())
            }
            _ => Ok(()),
        }
    }

    /// Whether some cycle of the trim part of `A` reads letters of two locations (a strongly
    /// connected component whose internal transitions read two locations).
    fn cycles_on_two_locations(&self) -> Result<(), String> {
        use petgraph::graph::{DiGraph, NodeIndex};
        let nfa = self.nfa;
        let n = nfa.states();
        // Trim: reachable from an initial state and co-reachable (a run of some length).
        let mut reach = vec![false; n];
        let mut stack: Vec<StateId> = nfa.initial().to_vec();
        for s in &stack {
            reach[s.index()] = true;
        }
        while let Some(s) = stack.pop() {
            for (_, t) in nfa.out(s) {
                if !reach[t.to.index()] {
                    reach[t.to.index()] = true;
                    stack.push(t.to);
                }
            }
        }
        let mut co = vec![false; n];
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for t in nfa.transitions() {
            preds[t.to.index()].push(t.from.index());
        }
        let mut stack: Vec<usize> = (0..n)
            .filter(|&s| nfa.is_accepting(StateId(s as u32)))
            .collect();
        for &s in &stack {
            co[s] = true;
        }
        while let Some(s) = stack.pop() {
            for &p in &preds[s] {
                if !co[p] {
                    co[p] = true;
                    stack.push(p);
                }
            }
        }
        let trim = |s: usize| reach[s] && co[s];
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, nfa.transitions().len());
        for _ in 0..n {
            g.add_node(());
        }
        for t in nfa.transitions() {
            if trim(t.from.index()) && trim(t.to.index()) {
                g.add_edge(
                    NodeIndex::new(t.from.index()),
                    NodeIndex::new(t.to.index()),
                    (),
                );
            }
        }
        let mut comp = vec![usize::MAX; n];
        for (i, scc) in petgraph::algo::kosaraju_scc(&g).iter().enumerate() {
            for v in scc {
                comp[v.index()] = i;
            }
        }
        let mut locs_of: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for t in nfa.transitions() {
            let (f, to) = (t.from.index(), t.to.index());
            if trim(f) && trim(to) && comp[f] == comp[to] {
                let e = locs_of.entry(comp[f]).or_default();
                let k = self.model.alphabet.location(t.letter).index();
                if !e.contains(&k) {
                    e.push(k);
                }
            }
        }
        if locs_of.is_empty() {
            return Err(
                "A has no cycle on its accepting runs (its language is finite): there is no cycle to iterate"
                    .into(),
            );
        }
        if locs_of.values().all(|l| l.len() < 2) {
            let mut names: Vec<&str> = locs_of
                .values()
                .map(|l| self.model.alphabet.location_name(LocationId(l[0] as u32)))
                .collect();
            names.sort();
            names.dedup();
            return Err(format!(
                "every cycle of A reads letters of a single location ({}): iterating a cycle a different number of times per location changes one local trace only, which stays accepted",
                names.join(", ")
            ));
        }
        // A component of one state: its cycles are words over its self-loop letters, and the
        // state reads every such word. Iterating a cycle `k_i` times on location `i` gives the
        // projections of `u c_1^k_1 ... c_n^k_n v`, another accepted run: always Pass.
        let mut size = vec![0usize; locs_of.len().max(1)];
        let mut first_state: BTreeMap<usize, usize> = BTreeMap::new();
        for (s, &c) in comp.iter().enumerate() {
            if let Some(i) = locs_of.keys().position(|&k| k == c) {
                size[i] += 1;
                first_state.entry(c).or_insert(s);
            }
        }
        let multi: Vec<(usize, usize)> = locs_of
            .iter()
            .enumerate()
            .filter(|(_, (_, l))| l.len() >= 2)
            .map(|(i, (&c, _))| (i, c))
            .collect();
        if multi.iter().all(|&(i, _)| size[i] == 1) {
            let states: Vec<String> = multi
                .iter()
                .take(6)
                .map(|(_, c)| nfa.state_name(StateId(first_state[c] as u32)))
                .collect();
            return Err(format!(
                "every cycle of A that reads two locations is a combination of self-loops of one state ({}{}); such a state reads every word over its loop letters, so iterating the cycle a different number of times per location is the projection of another accepted run and passes (`central-error-mixed` builds central errors by mixing local traces instead)",
                states.join(", "),
                if multi.len() > 6 { ", ..." } else { "" }
            ));
        }
        Ok(())
    }
}

/// Generates `opts.count` multitraces of `opts.kind` for `engine`'s model.
///
/// Errors: a term-only model or an empty length range ([`GenError::Unsupported`]), a kind the
/// model cannot produce ([`GenError::Impossible`], e.g. `central-error` when `A` has no cycle
/// reading two locations), or fewer multitraces than asked within the attempt bound
/// ([`GenError::Shortfall`], with what was produced).
pub fn generate(engine: &Engine, opts: &GenOptions) -> Result<Generation, GenError> {
    let model = engine.model();
    let automata = match &model.kind {
        ModelKind::Automata(a) => a,
        ModelKind::TermOnly(why) => {
            return Err(GenError::Unsupported(format!(
                "generation walks the model's NFA, but this model is term-only ({why})"
            )))
        }
    };
    if opts.min_len > opts.max_len {
        return Err(GenError::Unsupported(format!(
            "empty length range {}..{}",
            opts.min_len, opts.max_len
        )));
    }
    let cap = opts.max_len + (opts.max_len / 4).max(8) + 1;
    let table = RunTable::new(&automata.nfa, cap).map_err(GenError::Unsupported)?;
    let mut g = Generator {
        engine,
        model,
        nfa: &automata.nfa,
        table,
        rng: Rng::new(opts.seed ^ opts.kind.salt()),
        scratch: engine.scratch(),
        opts,
    };
    g.feasibility().map_err(|why| GenError::Impossible {
        kind: opts.kind,
        why,
    })?;
    let max_attempts = opts
        .max_attempts
        .unwrap_or_else(|| opts.count.saturating_mul(100).saturating_add(1000));
    let mode = opts.kind.mode();
    let mut out = Generation::default();
    while out.items.len() < opts.count && out.attempts < max_attempts {
        out.attempts += 1;
        let traces = match g.candidate() {
            Ok(t) => t,
            Err(why) => {
                *out.rejected.entry(why.to_string()).or_default() += 1;
                continue;
            }
        };
        if !g.in_range(&traces) {
            *out.rejected
                .entry("length out of range".to_string())
                .or_default() += 1;
            continue;
        }
        let verdict = g.check(&traces, mode);
        if opts.kind.accepts(&verdict) {
            out.items.push(Labelled {
                traces,
                verdict,
                mode,
            });
        } else {
            *out.rejected.entry(verdict_label(&verdict)).or_default() += 1;
        }
    }
    if out.items.len() < opts.count {
        return Err(GenError::Shortfall {
            kind: opts.kind,
            wanted: opts.count,
            partial: Box::new(out),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{CompileOptions, LocationChoice};
    use crate::source::load_model;
    use std::path::{Path, PathBuf};

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("fixtures")
            .join(rel)
    }

    fn engine(rel: &str) -> Engine {
        let path = fixture(rel);
        Engine::new(load_model(&path, None, &CompileOptions::default()).expect("fixture model"))
    }

    /// Re-checks every item with AC, AS and (interaction models) term exploration.
    fn recheck(engine: &Engine, kind: Kind, gen: &Generation, min: usize, max: usize) {
        let mut scratch = engine.scratch();
        let has_term = engine.model().term().is_some();
        for item in &gen.items {
            assert!((min..=max).contains(&item.len()), "{kind}: length");
            assert_eq!(item.mode, kind.mode());
            assert!(kind.accepts(&item.verdict), "{kind}: {:?}", item.verdict);
            let mut procs = vec![Procedure::Ac, Procedure::As];
            if has_term {
                procs.push(Procedure::Term);
            }
            for p in procs {
                let opts = CheckOptions {
                    mode: item.mode,
                    choice: Choice::Force(p),
                    ..CheckOptions::default()
                };
                let (v, _) = engine
                    .check_letters(&mut scratch, &item.traces, &opts)
                    .unwrap();
                assert_eq!(
                    v.kind,
                    item.verdict.kind,
                    "{kind} with {}: {:?}",
                    p.name(),
                    item.traces
                );
                if p == Procedure::As {
                    assert_eq!(v.reason, item.verdict.reason, "{kind}: AS reason");
                }
            }
        }
    }

    #[test]
    fn rng_is_splitmix64() {
        // Reference values of splitmix64 from seed 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut r = Rng::new(7);
        for n in 1..50 {
            assert!(r.below(n) < n);
        }
    }

    #[test]
    fn kinds_round_trip_their_names() {
        for k in Kind::ALL {
            assert_eq!(Kind::from_name(k.name()), Some(k));
        }
        assert_eq!(Kind::from_name("nope"), None);
    }

    #[test]
    fn same_seed_same_multitraces_other_seed_others() {
        let e = engine("seed004-fig3/model.timbuk");
        for kind in [Kind::Pass, Kind::CentralError, Kind::Noise] {
            let o = GenOptions::new(kind, 20, 8, 30, 42);
            let a = generate(&e, &o).unwrap();
            let b = generate(&e, &o).unwrap();
            assert_eq!(a, b, "{kind}");
            let c = generate(&e, &GenOptions { seed: 43, ..o }).unwrap();
            assert_ne!(a.items, c.items, "{kind}");
        }
    }

    #[test]
    fn runs_reach_the_asked_lengths() {
        let e = engine("seed004-fig3/model.timbuk");
        let g = generate(&e, &GenOptions::new(Kind::Pass, 30, 200, 250, 1)).unwrap();
        recheck(&e, Kind::Pass, &g, 200, 250);
        // L(A) = c e | a | b (d b)* d c e: lengths 1, 2 and 4 + 2k.
        let err = generate(&e, &GenOptions::new(Kind::Pass, 1, 3, 3, 1)).unwrap_err();
        assert!(
            err.to_string()
                .contains("no accepting run of length in 3..3"),
            "{err}"
        );
    }

    #[test]
    fn every_category_on_the_running_example() {
        let e = engine("seed004-fig3/model.timbuk");
        for kind in Kind::ALL {
            match generate(&e, &GenOptions::new(kind, 15, 10, 40, 5)) {
                Ok(g) => {
                    assert_ne!(kind, Kind::InterError);
                    assert_eq!(g.items.len(), 15);
                    recheck(&e, kind, &g, 10, 40);
                }
                // Local traces of runs b (d b)^k d c e mixed together always keep an
                // accepting path in Inter: the error says so, nothing is mislabelled.
                Err(err @ GenError::Shortfall { .. }) if kind == Kind::InterError => {
                    let GenError::Shortfall { partial, .. } = &err else {
                        unreachable!()
                    };
                    assert!(partial.items.is_empty());
                    assert!(err.to_string().contains("`inter-error`"), "{err}");
                }
                Err(err) => panic!("{kind}: {err}"),
            }
        }
    }

    #[test]
    fn every_category_on_the_mqtt_interaction() {
        let e = engine("seed004-mqtt/model.hif");
        for kind in Kind::ALL {
            let g = generate(&e, &GenOptions::new(kind, 10, 6, 24, 9))
                .unwrap_or_else(|err| panic!("{kind}: {err}"));
            assert_eq!(g.items.len(), 10);
            recheck(&e, kind, &g, 6, 24);
            // The .htf rendering reads back to the same local traces.
            for item in &g.items {
                let text = render_htf(e.model(), &item.traces).unwrap();
                let (mt, _) = multitrace_runtime::syntax::parse_htf(
                    "x.htf",
                    &text,
                    e.model().signature().unwrap(),
                )
                .unwrap();
                assert_eq!(e.model().letter_traces(&mt).unwrap(), item.traces);
            }
        }
    }

    #[test]
    fn central_error_needs_a_cycle_that_can_fail() {
        let dir = std::env::temp_dir().join(format!("mt-gen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = |name: &str, body: &str| {
            let path = dir.join(name);
            std::fs::write(
                &path,
                format!("Ops a:1 b:1 c:1 x:0\nAutomaton A\n{body}Systems\n [l1] a\n [l2] b c\n"),
            )
            .unwrap();
            Engine::new(load_model(&path, None, &CompileOptions::default()).unwrap())
        };
        let cases = [
            (
                model(
                    "acyclic.timbuk",
                    "States q0 q1 q2\nFinal States q2\nTransitions\nx -> q0\na(q0) -> q1\nb(q1) -> q2\n",
                ),
                "no cycle",
            ),
            (
                model(
                    "oneloc.timbuk",
                    "States q0 q1\nFinal States q1\nTransitions\nx -> q0\na(q0) -> q0\nb(q0) -> q1\n",
                ),
                "single location (l1)",
            ),
            (
                model(
                    "selfloops.timbuk",
                    "States q0 q1\nFinal States q1\nTransitions\nx -> q0\na(q0) -> q0\nb(q0) -> q0\nc(q0) -> q1\n",
                ),
                "self-loops of one state (q0)",
            ),
        ];
        for (e, fragment) in &cases {
            let err = generate(e, &GenOptions::new(Kind::CentralError, 3, 1, 9, 0)).unwrap_err();
            assert!(
                matches!(err, GenError::Impossible { .. }) && err.to_string().contains(fragment),
                "{err}"
            );
        }
        // A cycle of two states (a b)* followed by c: iterating it unevenly on l1 and l2 fails.
        let e = model(
            "cycle.timbuk",
            "States q0 q1 q2\nFinal States q2\nTransitions\nx -> q0\na(q0) -> q1\nb(q1) -> q0\nc(q0) -> q2\n",
        );
        let g = generate(&e, &GenOptions::new(Kind::CentralError, 5, 3, 20, 0)).unwrap();
        recheck(&e, Kind::CentralError, &g, 3, 20);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The AutomatArk NFAs of seed 004 with its three locations (skipped without the data).
    #[test]
    fn automatark_categories_at_200_to_250_actions() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/automatark/NFA");
        let groups: Vec<Vec<String>> = [
            "a0 a1 a2 a3 a4 a5 a16",
            "a6 a7 a8 a9 a10 a17 a18",
            "a11 a12 a13 a14 a15",
        ]
        .iter()
        .map(|g| g.split(' ').map(String::from).collect())
        .collect();
        for nfa in [
            "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11",
            "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6",
            "IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10",
        ] {
            let path = data.join(format!("{nfa}.timbuk"));
            if !path.exists() {
                eprintln!("skipped: {} absent", path.display());
                return;
            }
            let opts = CompileOptions {
                locations: LocationChoice::Groups(groups.clone()),
                ..CompileOptions::default()
            };
            let e = Engine::new(load_model(&path, None, &opts).unwrap());
            for kind in [
                Kind::Pass,
                Kind::LocalError,
                Kind::InterError,
                Kind::CentralErrorMixed,
            ] {
                let g = generate(&e, &GenOptions::new(kind, 4, 200, 250, 3))
                    .unwrap_or_else(|err| panic!("{nfa} {kind}: {err}"));
                recheck(&e, kind, &g, 200, 250);
            }
            let err =
                generate(&e, &GenOptions::new(Kind::CentralError, 4, 200, 250, 3)).unwrap_err();
            assert!(matches!(err, GenError::Impossible { .. }), "{nfa}: {err}");
        }
    }
}
