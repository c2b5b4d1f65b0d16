//! What the analysis works on ([`Problem`]): the global automaton, its letters, the atoms and
//! the causal restriction, with the names, projections and compilations of partitions.

use super::blocks::{Partition, MAX_ATOMS};
use super::causality::{causality_of, Causality};
use super::error::PartitionError;
use super::statics;
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::{compile_source, Source};
use multitrace_compiler::syntax::read_text;
use multitrace_model::model::{CompiledModel, ModelKind, Origin};
use multitrace_model::nfa::{LetterId, LocationId};

/// What the analysis works on: the global automaton, its letters, the atoms (the locations of
/// the given partition) and the causal restriction.
///
/// The analysis runs on an automaton, [`Problem::analysis`]: the model compiled with one
/// location, whose language is the set of global traces ([`Problem::exact`]); or, when that
/// language is not regular (weak loops over several lifelines) but the model compiled with the
/// given partition has automata, that model, which has the same multitraces and local languages
/// on the given locations (not the same global traces). Then (a) is searched up to a length,
/// with global traces decided by term exploration on the one-location model, (b) is searched as
/// usual, and coarsenings are not searched.
pub struct Problem {
    source: Source,
    /// The model compiled with one location: `L(A)` is the set of global traces (maybe
    /// term-only).
    global: CompiledModel,
    /// The model compiled with the given partition.
    given: CompiledModel,
    /// Whether `global` has automata (then the analysis runs on it; else on `given`).
    exact: bool,
    /// The atom of each letter of the analysis automaton.
    atom_of_letter: Vec<usize>,
    /// Names of the atoms' units (lifelines, or letters of a raw automaton), per atom.
    atom_units: Vec<Vec<String>>,
    /// The atom of each lifeline (interactions).
    atom_of_lifeline: Vec<usize>,
    causality: Causality,
    statics: Option<statics::Statics>,
    /// Compile options (caps) for the partitions' models.
    options: CompileOptions,
}

impl Problem {
    /// Prepares the analysis of `source` whose given partition is `given` (the default, or
    /// groups of lifelines or letters), with the caps of `options` (its locations are ignored).
    ///
    /// For an interaction, `text` is the interaction file's text for the static analysis and
    /// the message channels of [`Causality`]; `None` reads the file the model names.
    pub fn new(
        source: Source,
        given: LocationChoice,
        options: &CompileOptions,
        text: Option<&str>,
    ) -> Result<Problem, PartitionError> {
        let options = CompileOptions {
            locations: LocationChoice::Default,
            ..options.clone()
        };
        let compile = |choice: LocationChoice| {
            compile_source(
                &source,
                &CompileOptions {
                    locations: choice,
                    ..options.clone()
                },
            )
        };
        let given_model = compile(given)?;
        let global = compile(LocationChoice::Single)?;
        let exact = global.automata().is_some();
        if let (ModelKind::TermOnly(reason), ModelKind::TermOnly(_)) =
            (&global.kind, &given_model.kind)
        {
            return Err(PartitionError::NotAutomata {
                what: "the model (with one location, and with the given locations)".into(),
                reason: reason.clone(),
            });
        }
        let analysis = if exact { &global } else { &given_model };
        let atoms = given_model.alphabet.locations();
        if atoms > MAX_ATOMS {
            return Err(PartitionError::TooManyLocations(atoms));
        }
        let mut atom_units = Vec::with_capacity(atoms);
        let mut atom_of_lifeline = Vec::new();
        let atom_of_letter: Vec<usize>;
        let mut causality = Causality::default();
        let mut statics = None;
        match (&given_model.origin, &analysis.origin) {
            (
                Origin::Interaction {
                    signature,
                    location_lifelines,
                    ..
                },
                Origin::Interaction { letter_actions, .. },
            ) => {
                atom_of_lifeline = vec![0; signature.lifelines().len()];
                for (k, g) in location_lifelines.iter().enumerate() {
                    let mut names = Vec::new();
                    for l in g.iter() {
                        atom_of_lifeline[l.index()] = k;
                        names.push(signature.lifeline_name(l).to_string());
                    }
                    atom_units.push(names);
                }
                atom_of_letter = letter_actions
                    .iter()
                    .map(|a| atom_of_lifeline[a.lifeline.index()])
                    .collect();
                let Source::Interaction(model) = &source else {
                    return Err(PartitionError::Inconsistent("interaction origin"));
                };
                let owned;
                let text = match text {
                    Some(t) => t,
                    None => {
                        owned = read_text(&model.file).map_err(PartitionError::Statics)?;
                        &owned
                    }
                };
                let st = statics::Statics::new(&model.file.display().to_string(), text, signature)
                    .map_err(|e| PartitionError::Statics(e.into()))?;
                causality = causality_of(&st, signature, letter_actions);
                statics = Some(st);
            }
            _ => {
                // Raw automaton: the atoms are the given locations' letters.
                let mut of_letter = vec![0usize; analysis.alphabet.len()];
                for k in 0..atoms {
                    let letters = given_model.alphabet.letters_of(LocationId(k as u32));
                    let mut names = Vec::new();
                    for &l in letters {
                        let name = given_model.alphabet.name(l);
                        let g = analysis.alphabet.letter(name).ok_or_else(|| {
                            PartitionError::LetterMissing {
                                letter: name.to_string(),
                            }
                        })?;
                        of_letter[g.index()] = k;
                        names.push(name.to_string());
                    }
                    atom_units.push(names);
                }
                atom_of_letter = of_letter;
                causality.incr = vec![Vec::new(); analysis.alphabet.len()];
                causality.decr = vec![None; analysis.alphabet.len()];
            }
        }
        Ok(Problem {
            source,
            global,
            given: given_model,
            exact,
            atom_of_letter,
            atom_units,
            atom_of_lifeline,
            causality,
            statics,
            options,
        })
    }

    /// Number of atoms (locations of the given partition).
    pub fn atoms(&self) -> usize {
        self.atom_units.len()
    }

    /// The units (lifelines, or letters of a raw automaton) of an atom.
    pub fn atom_units(&self, atom: usize) -> &[String] {
        &self.atom_units[atom]
    }

    /// The atom of a letter of the global model.
    pub fn atom_of_letter(&self, x: LetterId) -> usize {
        self.atom_of_letter[x.index()]
    }

    /// The atom of a lifeline (interactions).
    pub fn atom_of_lifeline(&self, l: usize) -> Option<usize> {
        self.atom_of_lifeline.get(l).copied()
    }

    /// Whether the model is an interaction (letters are actions).
    pub fn is_interaction(&self) -> bool {
        matches!(self.global.origin, Origin::Interaction { .. })
    }

    /// Whether `p` is the given partition (its atoms).
    pub fn is_given(&self, p: &Partition) -> bool {
        p.len() == self.atoms()
    }

    /// The model compiled with one location (`L(A)`: the global traces); term-only when that
    /// language is not regular.
    pub fn global(&self) -> &CompiledModel {
        &self.global
    }

    /// Whether the analysis automaton recognizes the global traces (else it is the model
    /// compiled with the given partition: same multitraces and local languages on the given
    /// locations).
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// The automaton the analysis runs on, whose letters the analysis' words use: the global
    /// model when [`Problem::exact`], else the model compiled with the given partition.
    pub fn analysis(&self) -> &CompiledModel {
        if self.exact {
            &self.global
        } else {
            &self.given
        }
    }

    /// The model compiled with the given partition.
    pub fn given(&self) -> &CompiledModel {
        &self.given
    }

    /// The source model.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The causal restriction.
    pub fn causality(&self) -> &Causality {
        &self.causality
    }

    /// The static analysis (interactions).
    pub fn statics(&self) -> Option<&statics::Statics> {
        self.statics.as_ref()
    }

    /// Number of letters.
    pub fn letters(&self) -> usize {
        self.analysis().alphabet.len()
    }

    /// The name of a letter.
    pub fn letter_name(&self, x: LetterId) -> &str {
        self.analysis().alphabet.name(x)
    }

    /// A word written with `.` between letters (`ε` when empty).
    pub fn word(&self, w: &[LetterId]) -> String {
        if w.is_empty() {
            return "ε".into();
        }
        w.iter()
            .map(|&x| self.letter_name(x))
            .collect::<Vec<_>>()
            .join(".")
    }

    /// The units of a block, joined by `,`.
    pub fn block_name(&self, block: u64) -> String {
        let mut units = Vec::new();
        for a in 0..self.atoms() {
            if block >> a & 1 == 1 {
                units.extend(self.atom_units[a].iter().cloned());
            }
        }
        units.join(",")
    }

    /// `[A] [B,C] [D]`.
    pub fn partition_name(&self, p: &Partition) -> String {
        p.blocks()
            .iter()
            .map(|&b| format!("[{}]", self.block_name(b)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The `--locations` value of a partition: `A;B,C;D`.
    pub fn locations_spec(&self, p: &Partition) -> String {
        p.blocks()
            .iter()
            .map(|&b| self.block_name(b))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// The location groups of a partition, as compile options take them.
    pub fn groups(&self, p: &Partition) -> Vec<Vec<String>> {
        p.blocks()
            .iter()
            .map(|&b| {
                (0..self.atoms())
                    .filter(|a| b >> a & 1 == 1)
                    .flat_map(|a| self.atom_units[a].iter().cloned())
                    .collect()
            })
            .collect()
    }

    /// The model compiled with partition `p` (its locations in the order of `p`'s blocks).
    pub fn compile(&self, p: &Partition) -> Result<CompiledModel, PartitionError> {
        if self.is_given(p) {
            if let ModelKind::TermOnly(reason) = &self.given.kind {
                return Err(PartitionError::NotAutomata {
                    what: format!("the model with locations {}", self.partition_name(p)),
                    reason: reason.clone(),
                });
            }
            return Ok(self.given.clone());
        }
        let m = compile_source(
            &self.source,
            &CompileOptions {
                locations: LocationChoice::Groups(self.groups(p)),
                ..self.options.clone()
            },
        )?;
        if let ModelKind::TermOnly(reason) = &m.kind {
            return Err(PartitionError::NotAutomata {
                what: format!("the model with locations {}", self.partition_name(p)),
                reason: reason.clone(),
            });
        }
        Ok(m)
    }

    /// The local traces of `w` on the blocks of `p` (global letter ids).
    pub fn project(&self, p: &Partition, w: &[LetterId]) -> Vec<Vec<LetterId>> {
        let block: Vec<usize> = (0..self.atoms()).map(|a| p.block_of(a)).collect();
        let mut out = vec![Vec::new(); p.len()];
        for &x in w {
            out[block[self.atom_of_letter(x)]].push(x);
        }
        out
    }

    /// Letters of the global model translated to the letters of `model` (compiled from the
    /// same source with other locations), by name.
    pub fn translate(
        &self,
        model: &CompiledModel,
        w: &[LetterId],
    ) -> Result<Vec<LetterId>, PartitionError> {
        w.iter()
            .map(|&x| {
                let name = self.letter_name(x);
                model
                    .alphabet
                    .letter(name)
                    .ok_or_else(|| PartitionError::LetterMissing {
                        letter: name.to_string(),
                    })
            })
            .collect()
    }
}
