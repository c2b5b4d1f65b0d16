//! AS, the semi-centralized procedure (seed 004 Algorithms 2 and 3).
//!
//! 1. Local check: each local trace is read on its location's DFA `Proj(A, Σi)`; a failure is
//!    `LocalError(i)` with the position and the letters that were possible there. Otherwise
//!    `Area(μi)` is `init` ∪ the areas of the path (each interned area taken once).
//! 2. `Inter` is the intersection of the `Area(μi)`; without an accepting path it is
//!    `InterError`.
//! 3. AC restricted to `Inter`'s transitions gives `CentralError` or Pass.
//!
//! Partial observation (prefix mode): a local trace passes when its DFA state is live, and its
//! area also covers what is reachable after its end (the state's `tail`).

use crate::ac::{check_ac, check_ac_in, AcScratch, AcTables};
use crate::summary::{
    mode_name, LocalResult, LocalSummary, SummaryError, SummaryErrorKind, SummarySet, FORMAT,
    VERSION,
};
use multitrace_model::bits;
use multitrace_model::budget::Budget;
use multitrace_model::model::Automata;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::{Alphabet, LetterId, LocationId, StateId};
use multitrace_model::project::{AreaId, ProjDfa, NO_STATE};
use multitrace_model::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};

/// The result of a local check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalOutcome {
    /// The trace passes; its area was written to the output bitset.
    Pass {
        /// DFA state reached.
        state: u32,
    },
    /// The trace is rejected (LocalError).
    Error {
        /// First position that cannot be read, or the trace length when the trace ends in a
        /// state that is not accepting (complete mode) or not live (prefix mode).
        position: usize,
        /// Letters readable there.
        expected: Vec<LetterId>,
    },
}

/// Reads `trace` on `dfa`; on success writes `Area(trace)` into `area` (cleared first).
/// `seen` is scratch space of at least `areas` bits (one per interned area).
pub fn local_check(
    automata: &Automata,
    dfa: &ProjDfa,
    alphabet: &Alphabet,
    trace: &[LetterId],
    mode: Mode,
    area: &mut [u64],
    seen: &mut Vec<u64>,
) -> LocalOutcome {
    let table = &automata.areas;
    seen.clear();
    seen.resize(table.len().div_ceil(64).max(1), 0);
    area.fill(0);
    let take = |id: AreaId, area: &mut [u64], seen: &mut Vec<u64>| {
        if !bits::get(seen, id.index()) {
            bits::set(seen, id.index());
            table.union_into(id, area);
        }
    };
    take(dfa.init_area, area, seen);
    let mut s = 0u32;
    for (p, &letter) in trace.iter().enumerate() {
        let x = alphabet.local_index(letter);
        match dfa.step(s, x) {
            Some((t, id)) => {
                take(id, area, seen);
                s = t;
            }
            None => {
                return LocalOutcome::Error {
                    position: p,
                    expected: readable(dfa, alphabet, s),
                }
            }
        }
    }
    let ok = match mode {
        Mode::Complete => dfa.accepting[s as usize],
        Mode::Prefix => dfa.live[s as usize],
    };
    if !ok {
        return LocalOutcome::Error {
            position: trace.len(),
            expected: readable(dfa, alphabet, s),
        };
    }
    if mode == Mode::Prefix {
        take(dfa.tail[s as usize], area, seen);
    }
    LocalOutcome::Pass { state: s }
}

/// Letters with a transition from DFA state `s`.
fn readable(dfa: &ProjDfa, alphabet: &Alphabet, s: u32) -> Vec<LetterId> {
    let letters = alphabet.letters_of(dfa.location);
    (0..dfa.letters)
        .filter(|&x| dfa.step(s, x).is_some())
        .map(|x| letters[x as usize])
        .collect()
}

/// Whether the sub-automaton of `mask` has an accepting path from an initial state.
pub fn has_accepting_path(automata: &Automata, mask: &[u64]) -> bool {
    accepting_path_in(automata, mask, &mut Vec::new(), &mut Vec::new())
}

/// [`has_accepting_path`] with reusable buffers.
fn accepting_path_in(
    automata: &Automata,
    mask: &[u64],
    seen: &mut Vec<u64>,
    stack: &mut Vec<StateId>,
) -> bool {
    let nfa = &automata.nfa;
    seen.clear();
    seen.resize(nfa.states().div_ceil(64).max(1), 0);
    stack.clear();
    for &s in nfa.initial() {
        if !bits::get(seen, s.index()) {
            bits::set(seen, s.index());
            stack.push(s);
        }
    }
    while let Some(s) = stack.pop() {
        if nfa.is_accepting(s) {
            return true;
        }
        for i in nfa.out_range(s) {
            let to = nfa.transitions()[i].to;
            if bits::get(mask, i) && !bits::get(seen, to.index()) {
                bits::set(seen, to.index());
                stack.push(to);
            }
        }
    }
    false
}

/// Per-model tables of the fast local checks: for each location, its DFA re-indexed by global
/// letter with the target pre-multiplied (`entry[s * letters + a]` = the target's row offset
/// in the low 32 bits, [`NO_STATE`] when missing, and the transition's area in the high 32
/// bits), so that one step is one load and an addition; the locations are then read in
/// lockstep, which overlaps their dependency chains. [`local_check`] stays the reference (and
/// gives the explanation of a LocalError).
#[derive(Clone, Debug)]
pub struct LocalTables {
    letters: usize,
    entries: Vec<Vec<u64>>,
}

/// Largest table of one location (entries).
const LOCAL_TABLE_MAX: usize = 1 << 22;

impl LocalTables {
    /// Builds the tables; `None` when one would be too large (the reference path is used).
    pub fn new(automata: &Automata, alphabet: &Alphabet) -> Option<Self> {
        let letters = alphabet.len().max(1);
        let mut entries = Vec::with_capacity(automata.projections.len());
        for dfa in &automata.projections {
            let size = (dfa.states as usize).checked_mul(letters)?;
            if size > LOCAL_TABLE_MAX {
                return None;
            }
            let mut e = vec![NO_STATE as u64; size];
            let own = alphabet.letters_of(dfa.location);
            for st in 0..dfa.states {
                for (x, &letter) in own.iter().enumerate() {
                    if let Some((t, id)) = dfa.step(st, x as u32) {
                        e[st as usize * letters + letter.index()] =
                            (t as u64 * letters as u64) | (u64::from(id.0) << 32);
                    }
                }
            }
            entries.push(e);
        }
        Some(LocalTables { letters, entries })
    }
}

/// Reads every trace on its DFA in lockstep, writing `Area(μk)` of location `k` at
/// `areas[k * words..]`; returns the lowest location whose trace is rejected (the one
/// [`local_check`] in location order would report), with the position where it was rejected
/// (its length when it ends in a state that is not accepting, or not live in prefix mode) and
/// the DFA state there.
// Lanes, positions and traces are indexed together.
#[allow(clippy::needless_range_loop)]
fn local_all(
    local: &LocalTables,
    automata: &Automata,
    traces: &[Vec<LetterId>],
    mode: Mode,
    areas: &mut Vec<u64>,
    seen: &mut Vec<u64>,
) -> Option<(usize, usize, usize)> {
    let table = &automata.areas;
    let words = table.words();
    let seen_words = table.len().div_ceil(64).max(1);
    let n = traces.len();
    areas.clear();
    areas.resize(n * words, 0);
    seen.clear();
    seen.resize(n * seen_words, 0);
    let take = |k: usize, id: usize, areas: &mut [u64], seen: &mut [u64]| {
        let sk = &mut seen[k * seen_words..(k + 1) * seen_words];
        if sk[id / 64] >> (id % 64) & 1 == 0 {
            sk[id / 64] |= 1 << (id % 64);
            table.union_into(AreaId(id as u32), &mut areas[k * words..(k + 1) * words]);
        }
    };
    for (k, dfa) in automata.projections.iter().enumerate().take(n) {
        take(k, dfa.init_area.index(), areas, seen);
    }
    // Chunks of up to four locations are read together with their states in registers, so
    // that their dependency chains (load the entry, move on) overlap.
    const LANES: usize = 4;
    let empty_table: &[u64] = &[];
    let empty_trace: &[LetterId] = &[];
    for c in (0..n).step_by(LANES) {
        let m = (n - c).min(LANES);
        let mut off = [0u32; LANES];
        let mut len = [0usize; LANES];
        let mut tabs = [empty_table; LANES];
        let mut trs = [empty_trace; LANES];
        for i in 0..m {
            tabs[i] = &local.entries[c + i];
            trs[i] = &traces[c + i];
            len[i] = trs[i].len();
        }
        // Lanes from `stop` on are no longer read: a lower one was rejected.
        let mut stop = m;
        let mut failed = None;
        let mut longest = len.iter().copied().max().unwrap_or(0);
        let mut p = 0;
        while p < longest {
            for i in 0..LANES {
                if p < len[i] {
                    let e = tabs[i][off[i] as usize + trs[i][p].index()];
                    if e as u32 == NO_STATE {
                        failed = Some((c + i, p, off[i] as usize / local.letters));
                        stop = i;
                        len[i..].fill(0);
                        longest = len.iter().copied().max().unwrap_or(0);
                    } else {
                        off[i] = e as u32;
                        take(c + i, (e >> 32) as usize, areas, seen);
                    }
                }
            }
            p += 1;
        }
        for (i, &o) in off.iter().enumerate().take(stop) {
            let k = c + i;
            let dfa = &automata.projections[k];
            let st = o as usize / local.letters;
            let ok = match mode {
                Mode::Complete => dfa.accepting[st],
                Mode::Prefix => dfa.live[st],
            };
            if !ok {
                return Some((k, trs[i].len(), st));
            }
            if mode == Mode::Prefix {
                take(k, dfa.tail[st].index(), areas, seen);
            }
        }
        if failed.is_some() {
            return failed;
        }
    }
    None
}

/// Reusable buffers of AS (one per thread).
#[derive(Default)]
pub struct AsScratch {
    ac: AcScratch,
    inter: Vec<u64>,
    area: Vec<u64>,
    seen: Vec<u64>,
    states: Vec<StateId>,
    areas: Vec<u64>,
}

impl AsScratch {
    /// The AC buffers inside.
    pub fn ac(&mut self) -> &mut AcScratch {
        &mut self.ac
    }
}

/// Runs AS on one multitrace (one local trace per location).
pub fn check_as(
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> Verdict {
    check_as_in(
        &mut AsScratch::default(),
        automata,
        tables,
        None,
        alphabet,
        traces,
        mode,
        budget,
        witness,
    )
}

/// [`check_as`] with reusable buffers, and with the fast local checks of `local` when given
/// (without it, each trace is read by [`local_check`]; the verdicts are the same).
#[allow(clippy::too_many_arguments)]
pub fn check_as_in(
    scratch: &mut AsScratch,
    automata: &Automata,
    tables: &AcTables,
    local: Option<&LocalTables>,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> Verdict {
    if traces.len() == 1 && automata.projections.len() == 1 {
        return single_location(local, automata, alphabet, &traces[0], mode, witness);
    }
    let words = automata.areas.words();
    let AsScratch {
        ac,
        inter,
        area,
        seen,
        states,
        areas,
    } = scratch;
    inter.clear();
    inter.resize(words, !0u64);
    area.clear();
    area.resize(words, 0);
    // The fast path when there is one (tests check it against the reference reading).
    match local.map(|local| local_all(local, automata, traces, mode, areas, seen)) {
        Some(None) => {
            for k in 0..traces.len() {
                bits::intersect_with(inter, &areas[k * words..(k + 1) * words]);
            }
        }
        Some(Some((k, position, state))) => {
            let dfa = &automata.projections[k];
            return local_error(k, position, readable(dfa, alphabet, state as u32));
        }
        None => {
            for (k, trace) in traces.iter().enumerate() {
                let dfa = &automata.projections[k];
                match local_check(automata, dfa, alphabet, trace, mode, area, seen) {
                    LocalOutcome::Error { position, expected } => {
                        return local_error(k, position, expected);
                    }
                    LocalOutcome::Pass { .. } => bits::intersect_with(inter, area),
                }
            }
        }
    }
    if !accepting_path_in(automata, inter, seen, states) {
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::InterError);
        return v;
    }
    check_ac_in(
        ac,
        automata,
        tables,
        alphabet,
        traces,
        Some(inter),
        mode,
        budget,
        witness,
    )
    .verdict
}

/// A model with one location: its local verifier decides alone, with no area and no central
/// step. Its DFA is `A` determinized (every letter is local), so a trace is accepted exactly
/// when it ends in an accepting DFA state, and is a prefix of an accepted word exactly when
/// it ends in a live one; a missing transition is a LocalError, as in AS.
fn single_location(
    local: Option<&LocalTables>,
    automata: &Automata,
    alphabet: &Alphabet,
    trace: &[LetterId],
    mode: Mode,
    witness: bool,
) -> Verdict {
    let dfa = &automata.projections[0];
    let state = match local {
        Some(local) => {
            let table = &local.entries[0];
            let mut off = 0usize;
            for (p, &l) in trace.iter().enumerate() {
                let e = table[off + l.index()];
                if e as u32 == NO_STATE {
                    let s = (off / local.letters) as u32;
                    return local_error(0, p, readable(dfa, alphabet, s));
                }
                off = e as u32 as usize;
            }
            (off / local.letters) as u32
        }
        None => {
            let mut s = 0u32;
            for (p, &l) in trace.iter().enumerate() {
                match dfa.step(s, alphabet.local_index(l)) {
                    Some((t, _)) => s = t,
                    None => return local_error(0, p, readable(dfa, alphabet, s)),
                }
            }
            s
        }
    };
    let kind = match (
        mode,
        dfa.accepting[state as usize],
        dfa.live[state as usize],
    ) {
        (_, true, _) => VerdictKind::Pass,
        (Mode::Prefix, false, true) => VerdictKind::WeakPass,
        _ => return local_error(0, trace.len(), readable(dfa, alphabet, state)),
    };
    let mut v = Verdict::new(kind);
    if witness && kind == VerdictKind::Pass {
        v.witness = Some(trace.iter().map(|&l| (0, Sym::Letter(l))).collect());
    }
    v
}

/// The local step of distributed AS: checks `trace` (letters of location `k`) on `k`'s local
/// verifier and returns the summary to send to the central verifier.
pub fn local_summary(
    model: &CompiledModel,
    k: LocationId,
    trace: &[LetterId],
    mode: Mode,
) -> Result<LocalSummary, SummaryError> {
    let automata = model
        .automata()
        .ok_or_else(|| SummaryError::new(SummaryErrorKind::TermOnly))?;
    let alphabet = &model.alphabet;
    let dfa = automata.projections.get(k.index()).ok_or_else(|| {
        SummaryError::new(SummaryErrorKind::LocationOutOfRange {
            index: k.index(),
            locations: alphabet.locations(),
        })
    })?;
    if let Some((index, &l)) = trace
        .iter()
        .enumerate()
        .find(|(_, &l)| l.index() >= alphabet.len() || alphabet.location(l) != k)
    {
        return Err(SummaryError::new(SummaryErrorKind::LetterOutOfLocation {
            index,
            letter: l.index(),
        }));
    }
    let mut area = vec![0u64; automata.areas.words()];
    let mut seen = Vec::new();
    let outcome = local_check(automata, dfa, alphabet, trace, mode, &mut area, &mut seen);
    let names = |ls: &[LetterId]| -> Vec<String> {
        ls.iter().map(|&l| alphabet.name(l).to_string()).collect()
    };
    let mut s = LocalSummary {
        format: FORMAT.into(),
        version: VERSION,
        digest: format!("{:016x}", model.digest),
        location: alphabet.location_name(k).to_string(),
        mode: mode_name(mode).into(),
        trace: names(trace),
        verdict: "Pass".into(),
        position: None,
        expected: Vec::new(),
        area: None,
    };
    match outcome {
        LocalOutcome::Pass { .. } => {
            s.area = Some(area.iter().map(|w| format!("{w:016x}")).collect());
        }
        LocalOutcome::Error { position, expected } => {
            s.verdict = "LocalError".into();
            s.position = Some(position);
            s.expected = names(&expected);
        }
    }
    Ok(s)
}

/// The verdict LocalError(k) at `position`, where `expected` letters were readable.
fn local_error(k: usize, position: usize, expected: Vec<LetterId>) -> Verdict {
    let mut v = Verdict::new(VerdictKind::Fail);
    v.reason = Some(Reason::LocalError {
        location: LocationId(k as u32),
        position,
        expected: expected.into_iter().map(Sym::Letter).collect(),
    });
    v
}

/// The central step of distributed AS (seed 004's architecture): intersects the areas of the
/// local summaries (one per location, validated by [`crate::summary`]) and runs AC on `Inter`.
/// The first LocalError in location order is the verdict when a local verifier reported one.
/// Errors (not verdicts) when the set does not fit `model`.
pub fn central_check(
    model: &CompiledModel,
    tables: &AcTables,
    summaries: &SummarySet,
    budget: &Budget,
    witness: bool,
) -> Result<Verdict, SummaryError> {
    summaries.fits(model)?;
    let Some(automata) = model.automata() else {
        return Err(SummaryError {
            file: None,
            position: None,
            field: None,
            kind: Box::new(SummaryErrorKind::TermOnly),
        });
    };
    let words = automata.areas.words();
    let mut inter = vec![!0u64; words];
    let mut traces = Vec::with_capacity(summaries.summaries().len());
    for (k, s) in summaries.summaries().iter().enumerate() {
        match s.result() {
            LocalResult::LocalError { position, expected } => {
                return Ok(local_error(k, *position, expected.clone()));
            }
            LocalResult::Pass { area } => bits::intersect_with(&mut inter, area),
        }
        traces.push(s.trace().to_vec());
    }
    // Bits past the last transition are not transitions (validated summaries have none).
    let nt = automata.nfa.transitions().len();
    if let Some(last) = inter.last_mut().filter(|_| nt % 64 != 0) {
        *last &= (1u64 << (nt % 64)) - 1;
    }
    if !has_accepting_path(automata, &inter) {
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::InterError);
        return Ok(v);
    }
    Ok(check_ac(
        automata,
        tables,
        &model.alphabet,
        &traces,
        Some(&inter),
        summaries.mode(),
        budget,
        witness,
    )
    .verdict)
}
