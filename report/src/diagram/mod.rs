//! Sequence diagrams of interactions, as SVG.
//!
//! Three steps, each its own module: [`tree`] takes the interaction term apart into arrows
//! (messages, broadcasts, emissions to and receptions from the environment) and combined
//! fragments; [`layout`] places them (plain geometry, which the tests measure); [`svg`]
//! writes the SVG document. No external program is involved, and any interaction can be
//! drawn, term-only ones included (the term is what every model of an interaction keeps).
//!
//! # Example
//!
//! ```
//! use multitrace_report::diagram::interaction_svg;
//! use multitrace_compiler::syntax::parse_interaction;
//! use multitrace_model::signature::Signature;
//! use multitrace_model::term::TermStore;
//!
//! let mut sig = Signature::new();
//! let mut store = TermStore::new();
//! let root = parse_interaction("m.hif", "seq(a -- hello -> b, alt(b -- ok ->|, o))", &mut sig, true, &mut store)?;
//! let svg = interaction_svg(&sig, &store, root, "m.hif")?;
//! assert!(svg.starts_with("<svg") && svg.contains(">hello</text>") && svg.contains(">alt</text>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
pub mod layout;
pub mod svg;
pub mod tree;

use multitrace_compiler::open::{is_artifact, open_model, ModelOptions, OpenError};
use multitrace_compiler::source::{read_source, Source};
use multitrace_model::model::{CompiledModel, Origin};
use multitrace_model::signature::Signature;
use multitrace_model::term::TermId;
use std::fmt;
use std::path::Path;
use tree::{StoredTerms, Terms};

pub use error::DiagramError;
pub use layout::Layout;

/// The layout of the diagram of `root`.
pub fn interaction_layout(
    sig: &Signature,
    store: &dyn Terms,
    root: TermId,
) -> Result<Layout, DiagramError> {
    let t = tree::tree(store, root)?;
    Ok(layout::layout(sig, &t))
}

/// The SVG document of the diagram of `root`, with `title` as its title.
pub fn interaction_svg(
    sig: &Signature,
    store: &dyn Terms,
    root: TermId,
    title: &str,
) -> Result<String, DiagramError> {
    Ok(svg::to_svg(&interaction_layout(sig, store, root)?, title))
}

/// The layout of the diagram of a model's interaction (automata and term-only models of an
/// interaction alike: both keep the interaction as it was read).
pub fn model_layout(model: &CompiledModel) -> Result<Layout, DiagramError> {
    let Origin::Interaction {
        signature, term, ..
    } = &model.origin
    else {
        return Err(DiagramError::NotAnInteraction);
    };
    let terms = StoredTerms::new(term);
    interaction_layout(signature, &terms, terms.root())
}

/// The SVG document of the diagram of a model's interaction (see [`model_layout`]).
pub fn model_svg(model: &CompiledModel, title: &str) -> Result<String, DiagramError> {
    Ok(svg::to_svg(&model_layout(model)?, title))
}

/// Why the model a user named cannot be drawn as a sequence diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelDiagramError {
    /// The model could not be opened.
    Open(OpenError),
    /// The model cannot be drawn.
    Diagram(DiagramError),
}

impl fmt::Display for ModelDiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelDiagramError::Open(e) => e.fmt(f),
            ModelDiagramError::Diagram(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelDiagramError {}

/// The sequence diagram (SVG) of the model `path`: a source interaction drawn as read (not
/// compiled), a compiled model from the interaction it keeps.
pub fn diagram_svg(
    path: &Path,
    opts: &ModelOptions,
    note: &mut dyn FnMut(String),
) -> Result<String, ModelDiagramError> {
    let title = path.display().to_string();
    let svg = if is_artifact(path) {
        model_svg(
            &open_model(path, opts, note).map_err(ModelDiagramError::Open)?,
            &title,
        )
    } else {
        match read_source(path, opts.signature.as_deref())
            .map_err(|e| ModelDiagramError::Open(OpenError::Source(e)))?
        {
            Source::Interaction(m) => interaction_svg(&m.signature, &m.store, m.root, &title),
            Source::Automaton { .. } => Err(DiagramError::NotAnInteraction),
        }
    };
    svg.map_err(ModelDiagramError::Diagram)
}
