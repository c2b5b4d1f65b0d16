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

use crate::check::ac::{check_ac, check_ac_in, AcScratch, AcTables};
use crate::check::explore::Budget;
use crate::model::Automata;
use crate::nfa::{Alphabet, LetterId, LocationId, StateId};
use crate::project::{bits, AreaId, ProjDfa};
use crate::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};

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
            bits::union_with(area, table.get(id));
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
    let nfa = &automata.nfa;
    let mut seen = vec![false; nfa.states()];
    let mut stack: Vec<StateId> = nfa.initial().to_vec();
    for s in &stack {
        seen[s.index()] = true;
    }
    while let Some(s) = stack.pop() {
        if nfa.is_accepting(s) {
            return true;
        }
        for i in nfa.out_range(s) {
            let to = nfa.transitions()[i].to;
            if bits::get(mask, i) && !seen[to.index()] {
                seen[to.index()] = true;
                stack.push(to);
            }
        }
    }
    false
}

/// Reusable buffers of AS (one per thread).
#[derive(Default)]
pub struct AsScratch {
    ac: AcScratch,
    inter: Vec<u64>,
    area: Vec<u64>,
    seen: Vec<u64>,
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
        alphabet,
        traces,
        mode,
        budget,
        witness,
    )
}

/// [`check_as`] with reusable buffers.
#[allow(clippy::too_many_arguments)]
pub fn check_as_in(
    scratch: &mut AsScratch,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> Verdict {
    let words = automata.areas.words();
    let AsScratch {
        ac,
        inter,
        area,
        seen,
    } = scratch;
    inter.clear();
    inter.resize(words, !0u64);
    area.clear();
    area.resize(words, 0);
    for (k, trace) in traces.iter().enumerate() {
        let dfa = &automata.projections[k];
        match local_check(automata, dfa, alphabet, trace, mode, area, seen) {
            LocalOutcome::Error { position, expected } => {
                let mut v = Verdict::new(VerdictKind::Fail);
                v.reason = Some(Reason::LocalError {
                    location: LocationId(k as u32),
                    position,
                    expected: expected.into_iter().map(Sym::Letter).collect(),
                });
                return v;
            }
            LocalOutcome::Pass { .. } => bits::intersect_with(inter, area),
        }
    }
    if !has_accepting_path(automata, inter) {
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

/// What a local verifier sends to the central verifier in distributed AS (seed 004's
/// architecture): its verdict and, when it passes, `Area(μi)` and the trace itself.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LocalSummary {
    /// Always `"multitrace-local-summary"`.
    pub format: String,
    /// Format version (1).
    pub version: u32,
    /// Digest of the compiled model, as 16 hexadecimal digits.
    pub digest: String,
    /// The location's name.
    pub location: String,
    /// `"complete"` or `"prefix"`.
    pub mode: String,
    /// The local trace, as letter names.
    pub trace: Vec<String>,
    /// `"Pass"` or `"LocalError"`.
    pub verdict: String,
    /// For a LocalError: the first position that cannot be read.
    pub position: Option<usize>,
    /// For a LocalError: the letters readable there.
    pub expected: Vec<String>,
    /// For a Pass: `Area(μi)` as hexadecimal 64-bit words, least significant transition first.
    pub area: Option<String>,
}

const SUMMARY_FORMAT: &str = "multitrace-local-summary";

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Complete => "complete",
        Mode::Prefix => "prefix",
    }
}

/// The local step of distributed AS for location `k`.
pub fn local_summary(
    model: &crate::model::CompiledModel,
    k: LocationId,
    trace: &[LetterId],
    mode: Mode,
) -> Result<LocalSummary, String> {
    let automata = model
        .automata()
        .ok_or("a term-only model has no local verifiers; use check --procedure term")?;
    let dfa = automata
        .projections
        .get(k.index())
        .ok_or("unknown location")?;
    let mut area = vec![0u64; automata.areas.words()];
    let mut seen = Vec::new();
    let outcome = local_check(
        automata,
        dfa,
        &model.alphabet,
        trace,
        mode,
        &mut area,
        &mut seen,
    );
    let names = |ls: &[LetterId]| -> Vec<String> {
        ls.iter()
            .map(|&l| model.alphabet.name(l).to_string())
            .collect()
    };
    let mut s = LocalSummary {
        format: SUMMARY_FORMAT.into(),
        version: 1,
        digest: format!("{:016x}", model.digest),
        location: model.alphabet.location_name(k).to_string(),
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

/// The central step of distributed AS: combines one summary per location. Errors (not
/// verdicts) when the summaries do not fit the model or each other.
pub fn central_check(
    model: &crate::model::CompiledModel,
    tables: &AcTables,
    summaries: &[LocalSummary],
    budget: &Budget,
    witness: bool,
) -> Result<Verdict, String> {
    let automata = model
        .automata()
        .ok_or("a term-only model has no local verifiers")?;
    let alphabet = &model.alphabet;
    let digest = format!("{:016x}", model.digest);
    let n = alphabet.locations();
    let mut by_location: Vec<Option<&LocalSummary>> = vec![None; n];
    let mut mode = None;
    for s in summaries {
        if s.format != SUMMARY_FORMAT || s.version != 1 {
            return Err(format!(
                "not a local summary of this version ({} {})",
                s.format, s.version
            ));
        }
        if s.digest != digest {
            return Err(format!(
                "summary of location {} comes from another model (digest {}, model {digest})",
                s.location, s.digest
            ));
        }
        let m = match s.mode.as_str() {
            "complete" => Mode::Complete,
            "prefix" => Mode::Prefix,
            other => {
                return Err(format!(
                    "unknown mode `{other}` in summary of {}",
                    s.location
                ))
            }
        };
        if mode.is_some_and(|x| x != m) {
            return Err("summaries were made in different modes".into());
        }
        mode = Some(m);
        let k = alphabet
            .location_names()
            .iter()
            .position(|x| *x == s.location)
            .ok_or_else(|| format!("unknown location `{}`", s.location))?;
        if by_location[k].is_some() {
            return Err(format!("two summaries for location {}", s.location));
        }
        by_location[k] = Some(s);
    }
    let missing: Vec<&str> = (0..n)
        .filter(|&k| by_location[k].is_none())
        .map(|k| alphabet.location_name(LocationId(k as u32)))
        .collect();
    if !missing.is_empty() {
        return Err(format!("no summary for location(s) {}", missing.join(", ")));
    }
    let mode = mode.unwrap_or_default();
    let words = automata.areas.words();
    let mut inter = vec![!0u64; words];
    let mut traces = Vec::with_capacity(n);
    for (k, s) in by_location.iter().enumerate() {
        let s = s.expect("checked above");
        let letters: Vec<LetterId> = s
            .trace
            .iter()
            .map(|name| {
                alphabet
                    .letter(name)
                    .filter(|&l| alphabet.location(l).index() == k)
                    .ok_or_else(|| format!("letter `{name}` is not a letter of {}", s.location))
            })
            .collect::<Result<_, _>>()?;
        if s.verdict == "LocalError" {
            let mut v = Verdict::new(VerdictKind::Fail);
            v.reason = Some(Reason::LocalError {
                location: LocationId(k as u32),
                position: s.position.unwrap_or(0),
                expected: s
                    .expected
                    .iter()
                    .filter_map(|x| alphabet.letter(x))
                    .map(Sym::Letter)
                    .collect(),
            });
            return Ok(v);
        }
        let hex = s
            .area
            .as_deref()
            .ok_or("a passing summary without its area")?;
        if hex.len() != words * 16 {
            return Err(format!("the area of {} has the wrong size", s.location));
        }
        for (w, slot) in inter.iter_mut().enumerate() {
            let word = u64::from_str_radix(&hex[w * 16..w * 16 + 16], 16)
                .map_err(|_| format!("the area of {} is not hexadecimal", s.location))?;
            *slot &= word;
        }
        traces.push(letters);
    }
    // Bits past the last transition are not transitions.
    let nt = automata.nfa.transitions().len();
    if nt % 64 != 0 {
        inter[words - 1] &= (1u64 << (nt % 64)) - 1;
    }
    if !has_accepting_path(automata, &inter) {
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::InterError);
        return Ok(v);
    }
    Ok(check_ac(
        automata,
        tables,
        alphabet,
        &traces,
        Some(&inter),
        mode,
        budget,
        witness,
    )
    .verdict)
}
