//! A compiled model: what the compiler produces and the runtime loads.
//!
//! Invariants (checked by [`CompiledModel::validate`] after every load): every id in the
//! automata, the local verifiers and the areas is in range of its table; there is one local
//! verifier per location, in location order; an interaction's term nodes refer only to
//! earlier nodes and its root is the last node; for an interaction origin, `letter_actions` has one
//! action per letter and each action's lifeline belongs to the letter's location.

use crate::hash::SourceHash;
use crate::nfa::{Alphabet, LetterId, Nfa, NfaError};
use crate::project::{AreaTable, ProjDfa, TableError};
use crate::signature::{Action, LifelineSet, Signature};
use crate::term::{children, Term, TermId, TermStore};
use crate::verdict::Sym;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Where the model came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// An interaction: letters are actions.
    Interaction {
        /// Lifelines and messages.
        signature: Signature,
        /// The action of each letter.
        letter_actions: Vec<Action>,
        /// Lifelines of each location.
        location_lifelines: Vec<LifelineSet>,
        /// The interaction (normalized), for term exploration.
        term: TermModel,
    },
    /// A raw automaton (Timbuk): letters are opaque names.
    Automaton,
}

/// The automata of a model: `A`, the local verifiers and their areas.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Automata {
    /// The NFA `A` with `L(A) = σ(I)`.
    pub nfa: Nfa,
    /// `Proj(A, Σi)` for each location, in location order.
    pub projections: Vec<ProjDfa>,
    /// The interned areas the local verifiers refer to.
    pub areas: AreaTable,
}

/// An interaction term in serializable form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermModel {
    /// Nodes, children before parents; the last node is the root.
    pub nodes: Vec<Term>,
}

impl TermModel {
    /// Stores the term `root` of `store`.
    pub fn from_store(store: &TermStore, root: TermId) -> Self {
        let order = store.reachable(root);
        let mut index = FxHashMap::default();
        let mut nodes = Vec::with_capacity(order.len());
        for t in order {
            let node = store.get(t).map_children(|c| TermId(index[&c]));
            index.insert(t, nodes.len() as u32);
            nodes.push(node);
        }
        TermModel { nodes }
    }

    /// Rebuilds a store holding the term; returns it with the root.
    pub fn to_store(&self) -> (TermStore, TermId) {
        let mut store = TermStore::new();
        let mut ids: Vec<TermId> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let node = node.map_children(|c| ids[c.index()]);
            ids.push(store.make(node));
        }
        let root = ids.last().copied().unwrap_or(TermId::EMPTY);
        (store, root)
    }

    fn validate(&self, signature: &Signature) -> Result<(), InvalidModel> {
        if self.nodes.is_empty() {
            return Err(InvalidModel::NoTerm);
        }
        if u32::try_from(self.nodes.len()).is_err() {
            return Err(InvalidModel::TermTooLarge);
        }
        let nl = signature.lifelines().len();
        let nm = signature.messages().len();
        for (i, node) in self.nodes.iter().enumerate() {
            if children(*node).any(|c| c.index() >= i) {
                return Err(InvalidModel::TermOrder { node: i });
            }
            match node {
                Term::Act(a) if a.lifeline.index() >= nl || a.message.index() >= nm => {
                    return Err(InvalidModel::TermAction { node: i });
                }
                Term::Coreg(s, _, _) if nl < 64 && s.0 >> nl != 0 => {
                    return Err(InvalidModel::TermLifelines { node: i });
                }
                _ => {}
            }
        }
        self.check_rebuild()
    }

    /// Rebuilds the term as [`TermModel::to_store`] does, refusing nodes that a store never
    /// holds and whose rebuilding would recurse as deep as the input: `strict(x, y)` (or
    /// `seq`) whose left operand rebuilds to a `strict` (`seq`) term, which the store
    /// right-associates by recursing along its spine, and a `coreg` that reduces to such a
    /// `seq`. Everything else the store builds without deep recursion.
    fn check_rebuild(&self) -> Result<(), InvalidModel> {
        let mut store = TermStore::new();
        let mut ids: Vec<TermId> = Vec::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            // Children were checked to be earlier nodes.
            let get = |c: TermId| ids.get(c.index()).copied().unwrap_or(TermId::EMPTY);
            let node = match *node {
                Term::Empty => Term::Empty,
                Term::Act(a) => Term::Act(a),
                Term::Strict(x, y) => Term::Strict(get(x), get(y)),
                Term::Seq(x, y) => Term::Seq(get(x), get(y)),
                Term::Par(x, y) => Term::Par(get(x), get(y)),
                Term::Alt(x, y) => Term::Alt(get(x), get(y)),
                Term::Coreg(s, x, y) => Term::Coreg(s, get(x), get(y)),
                Term::Loop(k, x) => Term::Loop(k, get(x)),
            };
            let unnormalized = match node {
                Term::Strict(x, y) => {
                    y != TermId::EMPTY && matches!(store.get(x), Term::Strict(..))
                }
                Term::Seq(x, y) => y != TermId::EMPTY && matches!(store.get(x), Term::Seq(..)),
                Term::Coreg(s, x, y) => {
                    let region = s.inter(store.lifelines(x)).inter(store.lifelines(y));
                    region.is_empty() && y != TermId::EMPTY && matches!(store.get(x), Term::Seq(..))
                }
                _ => false,
            };
            if unnormalized {
                return Err(InvalidModel::TermNotNormal { node: i });
            }
            ids.push(store.make(node));
        }
        Ok(())
    }
}

/// Automata or term-only.
// One per loaded model, never in a collection: the variants' sizes do not matter (the area
// table's two pools made `Automata` pass clippy's threshold).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelKind {
    /// Compiled to automata: checked by AC or AS.
    Automata(Automata),
    /// Kept as a term (its language may not be regular): checked by term exploration. The
    /// string says why (the construct and its position, or the cap that was reached).
    TermOnly(String),
}

/// Facts about the compilation, for `inspect`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompileStats {
    /// Compile time in microseconds.
    pub compile_time_us: u64,
    /// The source file(s) as named at compile time.
    pub source: String,
    /// Notices (rewritings applied, why term-only).
    pub notices: Vec<String>,
}

/// A compiled model: alphabet, origin, automata or term, statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledModel {
    /// Letters and locations.
    pub alphabet: Alphabet,
    /// Interaction or raw automaton.
    pub origin: Origin,
    /// Automata or term.
    pub kind: ModelKind,
    /// Compilation facts.
    pub stats: CompileStats,
    /// The SHA-256 of the source model and its locations (see
    /// [`crate::hash::source_hash`]).
    pub source_hash: SourceHash,
    /// The hash's first 8 bytes ([`SourceHash::digest`]): the short digest summaries, Python
    /// and `inspect` show. Not serialized: set from the hash when the model is assembled or
    /// loaded.
    #[serde(skip)]
    pub digest: u64,
    #[serde(skip)]
    action_letters: FxHashMap<Action, LetterId>,
}

impl CompiledModel {
    /// Assembles a model and builds its lookup tables.
    pub fn new(
        alphabet: Alphabet,
        origin: Origin,
        kind: ModelKind,
        stats: CompileStats,
        source_hash: SourceHash,
    ) -> Result<Self, InvalidModel> {
        let mut m = CompiledModel {
            alphabet,
            origin,
            kind,
            stats,
            source_hash,
            digest: source_hash.digest(),
            action_letters: FxHashMap::default(),
        };
        m.prepare()?;
        Ok(m)
    }

    /// Validates the model and rebuilds the tables that are not serialized.
    pub(crate) fn prepare(&mut self) -> Result<(), InvalidModel> {
        self.validate()?;
        self.digest = self.source_hash.digest();
        if let Origin::Interaction {
            signature,
            letter_actions,
            ..
        } = &mut self.origin
        {
            signature.reindex();
            self.action_letters = letter_actions
                .iter()
                .enumerate()
                .map(|(i, &a)| (a, LetterId(i as u32)))
                .collect();
        }
        Ok(())
    }

    /// Checks every invariant (see the module documentation).
    pub fn validate(&self) -> Result<(), InvalidModel> {
        self.alphabet.validate().map_err(InvalidModel::Alphabet)?;
        let letters = self.alphabet.len();
        if let Origin::Interaction {
            signature,
            letter_actions,
            location_lifelines,
            term,
        } = &self.origin
        {
            let nl = signature.lifelines().len();
            if nl > crate::signature::MAX_LIFELINES {
                return Err(InvalidModel::TooManyLifelines);
            }
            let mut names = std::collections::HashSet::new();
            if !signature.lifelines().iter().all(|n| names.insert(n)) {
                return Err(InvalidModel::DuplicateLifeline);
            }
            let mut names = std::collections::HashSet::new();
            if !signature.messages().iter().all(|n| names.insert(n)) {
                return Err(InvalidModel::DuplicateMessage);
            }
            term.validate(signature)?;
            if letter_actions.len() != letters {
                return Err(InvalidModel::LetterActions);
            }
            if location_lifelines.len() != self.alphabet.locations() {
                return Err(InvalidModel::LocationLifelines);
            }
            let nm = signature.messages().len();
            // Locations are disjoint, non-empty sets of the signature's lifelines.
            let mut seen = LifelineSet::EMPTY;
            for (k, &g) in location_lifelines.iter().enumerate() {
                if g.is_empty() || !g.minus(signature.all_lifelines()).is_empty() {
                    return Err(InvalidModel::LocationUnknown { location: k });
                }
                if seen.intersects(g) {
                    return Err(InvalidModel::LocationShared { location: k });
                }
                seen = seen.union(g);
            }
            for (i, a) in letter_actions.iter().enumerate() {
                if a.lifeline.index() >= nl || a.message.index() >= nm {
                    return Err(InvalidModel::LetterAction { letter: i });
                }
                let loc = self.alphabet.location(LetterId(i as u32));
                if !location_lifelines[loc.index()].contains(a.lifeline) {
                    return Err(InvalidModel::LetterLocation { letter: i });
                }
            }
        } else if let ModelKind::TermOnly(_) = &self.kind {
            return Err(InvalidModel::TermOnlyAutomaton);
        }
        if let ModelKind::Automata(a) = &self.kind {
            a.nfa.validate(letters).map_err(InvalidModel::Nfa)?;
            let nt = a.nfa.transitions().len();
            a.areas
                .validate(nt)
                .map_err(|e| InvalidModel::Areas(e.into()))?;
            if a.projections.len() != self.alphabet.locations() {
                return Err(InvalidModel::VerifierCount);
            }
            for (k, p) in a.projections.iter().enumerate() {
                if p.location.index() != k
                    || p.letters as usize != self.alphabet.letters_of(p.location).len()
                {
                    return Err(InvalidModel::VerifierLocation { location: k });
                }
                p.validate(a.nfa.states(), a.areas.len())
                    .map_err(|error| InvalidModel::Verifier { location: k, error })?;
            }
        }
        Ok(())
    }

    /// The letter of an action (interaction models).
    pub fn letter_of(&self, a: Action) -> Option<LetterId> {
        self.action_letters.get(&a).copied()
    }

    /// The local traces of `mt` as letters, one per location of the model (interaction models).
    ///
    /// Each component of `mt` must cover exactly the lifelines of one location, or be empty and
    /// cover lifelines of locations that are otherwise unobserved; anything else is an error
    /// saying how the partitions differ.
    pub fn letter_traces(
        &self,
        mt: &crate::multitrace::Multitrace,
    ) -> Result<Vec<Vec<LetterId>>, TraceMismatch> {
        let Origin::Interaction {
            signature,
            location_lifelines,
            ..
        } = &self.origin
        else {
            return Err(TraceMismatch::NotAnInteraction);
        };
        let mut out = vec![Vec::new(); location_lifelines.len()];
        let name = |set: LifelineSet| {
            set.iter()
                .map(|l| signature.lifeline_name(l).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        for c in &mt.components {
            if let Some(k) = location_lifelines.iter().position(|&g| g == c.lifelines) {
                for &a in &c.trace {
                    out[k].push(self.letter_of(a).ok_or_else(|| {
                        TraceMismatch::OutsideAlphabet(signature.action_to_string(a))
                    })?);
                }
            } else if !c.trace.is_empty() {
                return Err(TraceMismatch::NotALocation {
                    component: name(c.lifelines),
                    locations: location_lifelines.iter().map(|&g| name(g)).collect(),
                });
            }
        }
        Ok(out)
    }

    /// The interaction term of an interaction model, rebuilt in a fresh store.
    pub fn term(&self) -> Option<(TermStore, TermId)> {
        match &self.origin {
            Origin::Interaction { term, .. } => Some(term.to_store()),
            Origin::Automaton => None,
        }
    }

    /// The signature of an interaction model.
    pub fn signature(&self) -> Option<&Signature> {
        match &self.origin {
            Origin::Interaction { signature, .. } => Some(signature),
            Origin::Automaton => None,
        }
    }

    /// The name of an action or letter of this model, as the records and diagnoses write it
    /// (empty for a symbol the model does not have, which a verdict of this model never holds).
    pub fn sym_name(&self, s: Sym) -> String {
        match s {
            Sym::Action(a) => self
                .signature()
                .map(|sig| sig.action_to_string(a))
                .unwrap_or_default(),
            Sym::Letter(l) => self
                .alphabet
                .names()
                .get(l.index())
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// The automata, unless the model is term-only.
    pub fn automata(&self) -> Option<&Automata> {
        match &self.kind {
            ModelKind::Automata(a) => Some(a),
            ModelKind::TermOnly(_) => None,
        }
    }

    /// "automata" or "term-only".
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            ModelKind::Automata(_) => "automata",
            ModelKind::TermOnly(_) => "term-only",
        }
    }
}

/// A broken invariant of a compiled model (see the module documentation): the payload of a
/// `.mtm` file that decodes but is not a model this build wrote. Displayed without advice;
/// [`crate::artifact::LoadError`] adds it ("compile it again").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidModel {
    /// The alphabet's tables disagree.
    Alphabet(NfaError),
    /// The NFA's tables are not well formed.
    Nfa(NfaError),
    /// An interaction model without its term.
    NoTerm,
    /// More term nodes than ids.
    TermTooLarge,
    /// A term node refers to itself or a later node.
    TermOrder {
        /// The node.
        node: usize,
    },
    /// A term action names a lifeline or message the signature does not have.
    TermAction {
        /// The node.
        node: usize,
    },
    /// A `coreg` names lifelines the signature does not have.
    TermLifelines {
        /// The node.
        node: usize,
    },
    /// A term node that no store holds (rebuilding it would recurse as deep as the input).
    TermNotNormal {
        /// The node.
        node: usize,
    },
    /// More lifelines than [`crate::signature::MAX_LIFELINES`].
    TooManyLifelines,
    /// Two lifelines with one name.
    DuplicateLifeline,
    /// Two messages with one name.
    DuplicateMessage,
    /// Not one action per letter.
    LetterActions,
    /// Not one set of lifelines per location.
    LocationLifelines,
    /// A location with no lifelines, or lifelines the signature does not have.
    LocationUnknown {
        /// The location's index.
        location: usize,
    },
    /// Two locations share a lifeline.
    LocationShared {
        /// The location's index.
        location: usize,
    },
    /// A letter's action names a lifeline or message the signature does not have.
    LetterAction {
        /// The letter's index.
        letter: usize,
    },
    /// A letter's action is on a lifeline of another location.
    LetterLocation {
        /// The letter's index.
        letter: usize,
    },
    /// A raw automaton marked term-only (only interactions have a term).
    TermOnlyAutomaton,
    /// The area table is inconsistent.
    Areas(TableError),
    /// Not one local verifier per location.
    VerifierCount,
    /// A local verifier for another location, or over another number of letters.
    VerifierLocation {
        /// The location's index.
        location: usize,
    },
    /// A local verifier's tables are inconsistent.
    Verifier {
        /// The location's index.
        location: usize,
        /// What is wrong.
        error: TableError,
    },
}

impl std::fmt::Display for InvalidModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use InvalidModel::*;
        match self {
            Alphabet(e) | Nfa(e) => e.fmt(f),
            NoTerm => f.write_str("term-only model without a term"),
            TermTooLarge => f.write_str("too many term nodes"),
            TermOrder { node } => write!(f, "term node {node} refers to a later node"),
            TermAction { node } => {
                write!(f, "term node {node} names an unknown lifeline or message")
            }
            TermLifelines { node } => write!(f, "term node {node} names an unknown lifeline"),
            TermNotNormal { node } => write!(
                f,
                "term node {node} is not in normal form (a sequence as the left operand of a sequence)"
            ),
            TooManyLifelines => f.write_str("too many lifelines"),
            DuplicateLifeline => f.write_str("a lifeline name occurs twice"),
            DuplicateMessage => f.write_str("a message name occurs twice"),
            LetterActions => f.write_str("letter actions do not match the alphabet"),
            LocationLifelines => f.write_str("location lifelines do not match the locations"),
            LocationUnknown { location } => {
                write!(f, "location {location} has no lifelines or unknown ones")
            }
            LocationShared { location } => {
                write!(f, "location {location} shares a lifeline with another one")
            }
            LetterAction { letter } => {
                write!(f, "letter {letter} names an unknown lifeline or message")
            }
            LetterLocation { letter } => {
                write!(f, "letter {letter} is not on a lifeline of its location")
            }
            TermOnlyAutomaton => f.write_str("a raw automaton cannot be term-only"),
            Areas(e) => e.fmt(f),
            VerifierCount => f.write_str("one local verifier per location expected"),
            VerifierLocation { location } => {
                write!(f, "local verifier {location} does not match its location")
            }
            Verifier { location, error } => write!(f, "local verifier {location}: {error}"),
        }
    }
}

impl std::error::Error for InvalidModel {}

/// Why a multitrace of actions cannot be given to a compiled model as letters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceMismatch {
    /// The model is a raw automaton: its letters are not actions.
    NotAnInteraction,
    /// An action that is not a letter of the model.
    OutsideAlphabet(String),
    /// A component (its lifelines, joined by `,`) that is not a compiled location.
    NotALocation {
        /// The component's lifelines.
        component: String,
        /// The compiled locations' lifelines.
        locations: Vec<String>,
    },
}

impl std::fmt::Display for TraceMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceMismatch::NotAnInteraction => {
                f.write_str("this model's letters are not actions; give .mtf traces")
            }
            TraceMismatch::OutsideAlphabet(a) => {
                write!(f, "action {a} is outside the compiled model's alphabet")
            }
            TraceMismatch::NotALocation {
                component,
                locations,
            } => write!(
                f,
                "component [{component}] is not a location of the compiled model (locations: {}); compile with matching --locations",
                locations
                    .iter()
                    .map(|g| format!("[{g}]"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

impl std::error::Error for TraceMismatch {}
