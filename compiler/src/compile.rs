//! The compilation pipeline: locations, rewriting, regularity check, NFA synthesis, local
//! verifiers; or a raw automaton with its locations.

use crate::nfa::synthesize;
use crate::project::{project_all, CapKind, DfaCapReached};
use crate::rewrite::{non_regular, strengthen};
use crate::syntax::{random_partition, InteractionModel, TimbukAutomaton};
use multitrace_model::artifact::{source_hash, SourceHash};
use multitrace_model::model::{
    Automata, CompileStats, CompiledModel, ModelKind, Origin, TermModel,
};
use multitrace_model::nfa::{Alphabet, LetterId, LocationId, Nfa, StateId, Transition};
use multitrace_model::signature::{Action, ActionKind, LifelineSet, MessageId};
use multitrace_model::term::TermDisplay;
use std::fmt;
use std::time::Instant;

/// The reason a model compiled with [`AutomataPolicy::Never`] (`--term-only`) records.
pub const TERM_ONLY_BY_OPTION: &str = "automata disabled by option";

/// Whether a model must, may or must not become automata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AutomataPolicy {
    /// Automata when the language is regular and within the caps, else term-only.
    #[default]
    Auto,
    /// Automata or an error.
    Require,
    /// Term-only (interactions only).
    Never,
}

/// How locations are chosen.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum LocationChoice {
    /// Interactions: one per lifeline; Timbuk: the file's `Systems` block.
    #[default]
    Default,
    /// Groups of lifelines (interactions) or letters (Timbuk) by name.
    Groups(Vec<Vec<String>>),
    /// One location holding everything (for looking at a model with no partition).
    Single,
    /// A random partition into `count` locations, deterministic for `seed`.
    Random {
        /// Number of locations.
        count: usize,
        /// Seed.
        seed: u64,
    },
}

/// Options of the compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Locations.
    pub locations: LocationChoice,
    /// Largest NFA synthesized from an interaction (states).
    pub state_cap: usize,
    /// Largest local verifier (DFA states per location).
    pub dfa_cap: usize,
    /// Largest table of interned areas, all locations together (bytes).
    pub area_cap: usize,
    /// Automata or term-only.
    pub policy: AutomataPolicy,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            locations: LocationChoice::Default,
            state_cap: 200_000,
            dfa_cap: 200_000,
            area_cap: 256 << 20,
            policy: AutomataPolicy::Auto,
        }
    }
}

/// Why a model could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The location partition is wrong.
    Locations(String),
    /// Automata were required but the model is not regular or exceeds a cap.
    NotCompilable {
        /// The model file.
        file: String,
        /// Why.
        reason: String,
    },
    /// The signature declares more actions than a model may have ([`MAX_LETTERS`]).
    TooManyActions {
        /// The interaction file.
        file: String,
        /// The signature file, `None` when the names were inferred.
        signature: Option<String>,
        /// Lifelines and messages declared.
        lifelines: usize,
        /// Messages declared.
        messages: usize,
    },
}

/// Most actions (letters) of a model compiled from an interaction: every lifeline can send and
/// receive every message of the signature, so the alphabet has `2 × lifelines × messages`
/// letters, each with a name and a row in every per-letter table; a signature beyond this
/// (64 lifelines and a million messages: 128 million letters, 6 GB) is refused before any of
/// it is built.
pub const MAX_LETTERS: usize = 1 << 20;

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Locations(m) => write!(f, "--locations: {m}"),
            CompileError::NotCompilable { file, reason } => {
                write!(f, "{file}: cannot compile to automata: {reason}")
            }
            CompileError::TooManyActions {
                file,
                signature,
                lifelines,
                messages,
            } => write!(
                f,
                "{file}: the signature{} declares {lifelines} lifelines and {messages} messages, \
                 {} actions; a model may have at most {MAX_LETTERS}: declare only the messages \
                 the interaction uses",
                signature
                    .as_ref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default(),
                2 * lifelines * messages
            ),
        }
    }
}

impl std::error::Error for CompileError {}

/// Lifeline groups of an interaction model for a location choice.
fn interaction_groups(
    model: &InteractionModel,
    choice: &LocationChoice,
) -> Result<Vec<LifelineSet>, CompileError> {
    let sig = &model.signature;
    let n = sig.lifelines().len();
    let mut groups: Vec<LifelineSet> = Vec::new();
    match choice {
        LocationChoice::Default => {}
        LocationChoice::Single => groups.push(sig.all_lifelines()),
        LocationChoice::Groups(names) => {
            let mut seen = LifelineSet::EMPTY;
            for g in names {
                let mut set = LifelineSet::EMPTY;
                for name in g {
                    let l = sig.lifeline(name).ok_or_else(|| {
                        CompileError::Locations(format!(
                            "unknown lifeline `{name}`; {}lifelines are {}",
                            multitrace_model::suggest::did_you_mean(
                                name,
                                sig.lifelines().iter().map(String::as_str)
                            ),
                            sig.lifelines().join(", ")
                        ))
                    })?;
                    if seen.contains(l) {
                        return Err(CompileError::Locations(format!(
                            "lifeline `{name}` is in two locations"
                        )));
                    }
                    seen.insert(l);
                    set.insert(l);
                }
                groups.push(set);
            }
        }
        LocationChoice::Random { count, seed } => {
            let assign = random_partition(n, *count, *seed)
                .map_err(|e| CompileError::Locations(e.to_string()))?;
            groups = vec![LifelineSet::EMPTY; *count];
            for (l, &g) in assign.iter().enumerate() {
                groups[g].insert(multitrace_model::signature::LifelineId(l as u32));
            }
        }
    }
    // Lifelines not named form one location each.
    let covered = groups.iter().fold(LifelineSet::EMPTY, |a, &g| a.union(g));
    for l in sig.all_lifelines().minus(covered).iter() {
        groups.push(LifelineSet::single(l));
    }
    Ok(groups)
}

/// The source hash (SHA-256) of a model compiled from an interaction whose text hash is
/// `text_digest` ([`InteractionModel::digest`]: interaction and signature) with the
/// locations of `alphabet`. The locations are the compile option that decides the model's
/// language; the others (caps, `--automata`, `--term-only`) only choose between automata and
/// a term, which the header's kind records, and do not enter it.
pub fn interaction_digest(text_digest: SourceHash, alphabet: &Alphabet) -> SourceHash {
    source_hash(&[
        &text_digest.0,
        alphabet.location_names().join(";").as_bytes(),
    ])
}

/// The source hash (SHA-256) of a model compiled from a Timbuk file's `text` with the letter
/// partition of `alphabet` (each location's letters, by name; location names do not enter it).
pub fn automaton_digest(text: &str, alphabet: &Alphabet) -> SourceHash {
    let spec: Vec<String> = (0..alphabet.locations())
        .map(|k| {
            alphabet
                .letters_of(LocationId(k as u32))
                .iter()
                .map(|&l| alphabet.name(l).to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    source_hash(&[text.as_bytes(), spec.join(";").as_bytes()])
}

/// Compiles an interaction: automata when possible, else term-only with a notice.
pub fn compile_interaction(
    model: &InteractionModel,
    opts: &CompileOptions,
) -> Result<CompiledModel, CompileError> {
    let start = Instant::now();
    let sig = &model.signature;
    let groups = interaction_groups(model, &opts.locations)?;
    // Alphabet: every action of the signature, grouped by location (capped).
    let (lifelines, messages) = (sig.lifelines().len(), sig.messages().len());
    if lifelines.saturating_mul(messages).saturating_mul(2) > MAX_LETTERS {
        return Err(CompileError::TooManyActions {
            file: model.file.display().to_string(),
            signature: model
                .signature_file
                .as_ref()
                .map(|p| p.display().to_string()),
            lifelines,
            messages,
        });
    }
    let mut names = Vec::new();
    let mut location = Vec::new();
    let mut letter_actions = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        for l in g.iter() {
            for m in 0..sig.messages().len() {
                for kind in [ActionKind::Emission, ActionKind::Reception] {
                    let a = Action {
                        lifeline: l,
                        kind,
                        message: MessageId(m as u32),
                    };
                    names.push(sig.action_to_string(a));
                    location.push(LocationId(k as u32));
                    letter_actions.push(a);
                }
            }
        }
    }
    let location_names: Vec<String> = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|l| sig.lifeline_name(l).to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let alphabet = Alphabet::new(names, location, location_names)
        .ok_or_else(|| CompileError::Locations("inconsistent locations".into()))?;
    let letter_of: rustc_hash::FxHashMap<Action, LetterId> = letter_actions
        .iter()
        .enumerate()
        .map(|(i, &a)| (a, LetterId(i as u32)))
        .collect();
    let origin = Origin::Interaction {
        signature: sig.clone(),
        letter_actions,
        location_lifelines: groups.clone(),
        term: TermModel::from_store(&model.store, model.root),
    };
    let digest = interaction_digest(model.digest, &alphabet);
    let mut stats = CompileStats {
        compile_time_us: 0,
        source: model.file.display().to_string(),
        notices: Vec::new(),
    };

    let mut store = model.store.clone();
    let term_only = |stats: &mut CompileStats, reason: String| -> Result<ModelKind, CompileError> {
        if opts.policy == AutomataPolicy::Require {
            return Err(CompileError::NotCompilable {
                file: model.file.display().to_string(),
                reason,
            });
        }
        stats.notices.push(format!(
            "compiled term-only, checked by term exploration: {reason}"
        ));
        Ok(ModelKind::TermOnly(reason))
    };
    let kind = if opts.policy == AutomataPolicy::Never {
        term_only(&mut stats, TERM_ONLY_BY_OPTION.into())?
    } else {
        let singleton = groups.iter().all(|g| g.len() == 1);
        let rewritten = strengthen(&mut store, model.root, singleton);
        if rewritten != model.root {
            stats.notices.push(
                "weak sequencing rewritten as strict where multitraces cannot tell them apart"
                    .into(),
            );
        }
        if let Some((node, why)) = non_regular(&store, rewritten, singleton) {
            let at = model
                .loops
                .iter()
                .find(|(t, _, _)| *t == node)
                .map(|(_, l, c)| format!("{}:{l}:{c}", model.file.display()))
                .unwrap_or_else(|| {
                    let text = TermDisplay {
                        store: &store,
                        signature: sig,
                        term: node,
                    }
                    .to_string();
                    let short: String = text.chars().take(60).collect();
                    format!("`{short}`")
                });
            term_only(&mut stats, format!("{why}, at {at}"))?
        } else {
            match synthesize(
                &mut store,
                rewritten,
                &|a| letter_of[&a],
                alphabet.len(),
                opts.state_cap,
            ) {
                Err(cap) => term_only(
                    &mut stats,
                    format!(
                        "the NFA exceeds the state cap of {}",
                        multitrace_model::tally::plural(cap.cap, "state", "states")
                    ),
                )?,
                Ok(synth) => {
                    match project_all(&synth.nfa, &alphabet, opts.dfa_cap, opts.area_cap) {
                        Err(cap) => term_only(&mut stats, cap_reason(&alphabet, cap))?,
                        Ok((projections, areas)) => ModelKind::Automata(Automata {
                            nfa: synth.nfa,
                            projections,
                            areas,
                        }),
                    }
                }
            }
        }
    };
    stats.compile_time_us = start.elapsed().as_micros() as u64;
    CompiledModel::new(alphabet, origin, kind, stats, digest).map_err(|e| {
        CompileError::NotCompilable {
            file: model.file.display().to_string(),
            reason: e.to_string(),
        }
    })
}

/// Why the local verifiers could not be built within the caps.
fn cap_reason(alphabet: &Alphabet, cap: DfaCapReached) -> String {
    let at = alphabet.location_name(cap.location);
    match cap.what {
        CapKind::States => format!(
            "the local verifier of location {at} exceeds the cap of {}",
            multitrace_model::tally::plural(cap.cap, "state", "states")
        ),
        CapKind::AreaBytes => format!(
            "the areas of the local verifiers exceed the cap of {} MiB (reached at location {at})",
            cap.cap >> 20
        ),
    }
}

/// Compiles a raw automaton (Timbuk) with its locations.
pub fn compile_automaton(
    aut: &TimbukAutomaton,
    file: &str,
    text: &str,
    opts: &CompileOptions,
) -> Result<CompiledModel, CompileError> {
    let start = Instant::now();
    let nl = aut.letters.len();
    let (assign, location_names): (Vec<usize>, Vec<String>) = match &opts.locations {
        LocationChoice::Default => match &aut.systems {
            Some(systems) => {
                let mut assign = vec![usize::MAX; nl];
                for (k, (_, letters)) in systems.iter().enumerate() {
                    for &l in letters {
                        assign[l] = k;
                    }
                }
                (assign, systems.iter().map(|(n, _)| n.clone()).collect())
            }
            None => {
                return Err(CompileError::Locations(format!(
                    "{file} has no `Systems` block; give --locations 'a0,a1;a2' or --random-locations N --seed S"
                )))
            }
        },
        LocationChoice::Single => (vec![0; nl], vec!["all".to_string()]),
        LocationChoice::Groups(groups) => {
            let mut assign = vec![usize::MAX; nl];
            for (k, g) in groups.iter().enumerate() {
                for name in g {
                    let l = aut.letters.iter().position(|x| x == name).ok_or_else(|| {
                        CompileError::Locations(format!("unknown letter `{name}`"))
                    })?;
                    if assign[l] != usize::MAX {
                        return Err(CompileError::Locations(format!(
                            "letter `{name}` is in two locations"
                        )));
                    }
                    assign[l] = k;
                }
            }
            if let Some(l) = assign.iter().position(|&k| k == usize::MAX) {
                return Err(CompileError::Locations(format!(
                    "letter `{}` is in no location",
                    aut.letters[l]
                )));
            }
            (assign, (1..=groups.len()).map(|k| format!("l{k}")).collect())
        }
        LocationChoice::Random { count, seed } => (
            random_partition(nl, *count, *seed)
                .map_err(|e| CompileError::Locations(e.to_string()))?,
            (1..=*count).map(|k| format!("l{k}")).collect(),
        ),
    };
    let alphabet = Alphabet::new(
        aut.letters.clone(),
        assign.iter().map(|&k| LocationId(k as u32)).collect(),
        location_names,
    )
    .ok_or_else(|| CompileError::Locations("a letter has no location".into()))?;
    let mut accepting = vec![false; aut.states.len()];
    for &s in &aut.accepting {
        accepting[s] = true;
    }
    let nfa = Nfa::new(
        aut.states.len() as u32,
        aut.initial.iter().map(|&s| StateId(s as u32)).collect(),
        accepting,
        aut.transitions
            .iter()
            .map(|&(f, l, t)| Transition {
                from: StateId(f as u32),
                letter: LetterId(l as u32),
                to: StateId(t as u32),
            })
            .collect(),
        nl,
    )
    .map_err(|e| CompileError::NotCompilable {
        file: file.to_string(),
        reason: e.to_string(),
    })?
    .with_state_names(aut.states.clone());
    let (projections, areas) =
        project_all(&nfa, &alphabet, opts.dfa_cap, opts.area_cap).map_err(|cap| {
            let option = match cap.what {
                CapKind::States => "--dfa-cap",
                CapKind::AreaBytes => "--area-cap-mb",
            };
            CompileError::NotCompilable {
                file: file.to_string(),
                reason: format!("{} (raise {option})", cap_reason(&alphabet, cap)),
            }
        })?;
    let digest = automaton_digest(text, &alphabet);
    let stats = CompileStats {
        compile_time_us: start.elapsed().as_micros() as u64,
        source: file.to_string(),
        notices: Vec::new(),
    };
    CompiledModel::new(
        alphabet,
        Origin::Automaton,
        ModelKind::Automata(Automata {
            nfa,
            projections,
            areas,
        }),
        stats,
        digest,
    )
    .map_err(|e| CompileError::NotCompilable {
        file: file.to_string(),
        reason: e.to_string(),
    })
}
