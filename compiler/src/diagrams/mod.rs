//! Models drawn as sequence diagrams: Mermaid `sequenceDiagram`s (`.mmd`, or the first
//! mermaid block of a Markdown file) and PlantUML sequence diagrams (`.puml`), read into
//! interactions and written back.
//!
//! # Mapping (UML semantics)
//!
//! | diagram | interaction |
//! |---|---|
//! | the diagram's statements, in order | weak sequencing (`seq`) |
//! | participant / actor (any PlantUML kind) `A` | lifeline `A` (declared or first used) |
//! | message `A->>B: m` (any arrow, any line style) | `strict(A!m, B?m)` |
//! | PlantUML `[-> A : m` / `A ->] : m` | reception `A?m` / emission `A!m` (environment) |
//! | PlantUML lost message `A ->x B : m` / `B x<- A : m` | emission `A!m` alone (`B` drawn) |
//! | PlantUML hidden arrow `A -[hidden]> B` | nothing (layout only) |
//! | `loop` | weak loop `loopW` |
//! | `alt` / `else` | `alt` of the branches |
//! | `opt` | `alt(body, ∅)` |
//! | `par` / `and` (PlantUML `par2`, `else`) | `par` of the branches |
//! | `critical` / `option` | the region, or `alt` of it and its options; refused inside `par` |
//! | `break` | `alt(body, rest of the enclosing operand or diagram)`; refused inside `loop` |
//! | `rect`, `group`, `box` | their statements, in place (drawing only) |
//! | notes, activations, `autonumber`, titles, `create`, `destroy`, dividers, delays | ignored (no action) |
//!
//! Names: message labels and participant names become names by
//! [`multitrace_model::label::label_name`] (`Hello John!` is `Hello_John`); two texts
//! giving one name are an error. A two-way arrow, `return`, `ref`, `par_over`, the PlantUML
//! preprocessor and any other statement are errors at their line and column that say what to
//! write instead: nothing is approximated. The PlantUML subset and its rules are the guide's (`docs/guide/formats-otel-xes-mermaid.md`).

mod build;
mod mermaid;
mod plantuml;
mod write;

pub use build::MAX_DIAGRAM_NESTING;
pub use mermaid::{markdown_block, parse_mermaid, write_mermaid};
pub use plantuml::{parse_plantuml, write_plantuml};
pub use write::{DrawError, MAX_WRITE_DEPTH};

use crate::syntax::{
    interaction_text_digest, read_text, signature_or_inferred, InteractionModel, LoopPosition,
    ModelError, ParseError,
};
use multitrace_model::signature::Signature;
use multitrace_model::term::{TermId, TermStore};
use std::path::Path;

/// The diagram languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// A Mermaid `sequenceDiagram`.
    Mermaid,
    /// The first mermaid block of a Markdown file.
    MarkdownMermaid,
    /// A PlantUML sequence diagram.
    PlantUml,
}

impl Dialect {
    /// The dialect a file name says: `.mmd`/`.mermaid`, `.md`/`.markdown`,
    /// `.puml`/`.plantuml`/`.pu`/`.iuml`.
    pub fn of_path(path: &Path) -> Option<Dialect> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "mmd" | "mermaid" => Dialect::Mermaid,
            "md" | "markdown" => Dialect::MarkdownMermaid,
            "puml" | "plantuml" | "pu" | "iuml" => Dialect::PlantUml,
            _ => return None,
        })
    }
}

/// Reads a diagram's text (`file` names it in errors) into `store`: its root and loops.
/// Names are looked up in `sig`, and added to it when `infer`.
pub fn parse_diagram(
    dialect: Dialect,
    file: &str,
    text: &str,
    sig: &mut Signature,
    infer: bool,
    store: &mut TermStore,
) -> Result<(TermId, Vec<LoopPosition>), ParseError> {
    match dialect {
        Dialect::Mermaid => parse_mermaid(file, text, 1, sig, infer, store),
        Dialect::MarkdownMermaid => {
            let Some((block, first)) = markdown_block(text) else {
                return Err(ParseError {
                    file: file.to_string(),
                    line: 1,
                    column: 1,
                    message: "no closed ```mermaid block in this Markdown file: the model is the first mermaid block holding a sequenceDiagram".to_string(),
                });
            };
            parse_mermaid(file, block, first, sig, infer, store)
        }
        Dialect::PlantUml => parse_plantuml(file, text, sig, infer, store),
    }
}

/// Reads a diagram file as an interaction model; with `signature`, its names must be the
/// signature's (a diagram never looks for a signature file by itself: its names are its own).
pub fn read_diagram(
    path: &Path,
    dialect: Dialect,
    signature: Option<&Path>,
) -> Result<InteractionModel, ModelError> {
    let (mut sig, infer, sig_text) = signature_or_inferred(signature)?;
    let text = read_text(path)?;
    let mut store = TermStore::new();
    let (root, loops) = parse_diagram(
        dialect,
        &path.display().to_string(),
        &text,
        &mut sig,
        infer,
        &mut store,
    )?;
    Ok(InteractionModel {
        signature: sig,
        store,
        root,
        signature_file: signature.map(Path::to_path_buf),
        loops,
        file: path.to_path_buf(),
        digest: interaction_text_digest(&text, &sig_text),
    })
}

#[cfg(test)]
mod tests;
