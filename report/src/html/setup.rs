//! What the page says about the batch besides its records ([`ReportSetup`]: the model, its
//! diagram, the options and inputs) and how much it shows ([`ReportOptions`]).

use crate::diagram;
use multitrace_model::model::CompiledModel;

/// Default number of failures shown in full.
pub const DEFAULT_FULL_FAILURES: usize = 100;

/// How much the page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportOptions {
    /// Failures drawn in full (lanes and diagnosis), in input order; the others are rows of
    /// the table like every multitrace.
    pub full_failures: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            full_failures: DEFAULT_FULL_FAILURES,
        }
    }
}

/// What the page says about the batch besides its records.
#[derive(Clone, Debug)]
pub struct ReportSetup {
    /// The model as the user named it.
    pub model_name: String,
    /// `automata` or `term-only`.
    pub model_kind: String,
    /// Location names, in order.
    pub locations: Vec<String>,
    /// The model's digest.
    pub digest: u64,
    /// The model's sequence diagram (SVG), or why there is none.
    pub diagram: Result<String, diagram::DiagramError>,
    /// The options used, as (name, value) pairs, in the order to show them.
    pub options: Vec<(String, String)>,
    /// The inputs, as given.
    pub inputs: Vec<String>,
}

impl ReportSetup {
    /// The setup of a report on `model` (named `model_name`), with its diagram; no options
    /// and no inputs listed yet.
    pub fn new(model: &CompiledModel, model_name: &str) -> Self {
        ReportSetup {
            model_name: model_name.to_string(),
            model_kind: model.kind_name().to_string(),
            locations: model.alphabet.location_names().to_vec(),
            digest: model.digest,
            diagram: diagram::model_svg(model, model_name),
            options: Vec::new(),
            inputs: Vec::new(),
        }
    }
}
