//! Why a model cannot be drawn as asked.

/// Why a model cannot be drawn as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrawError {
    /// A term-only model has no automata.
    TermOnly,
    /// No location of that name.
    UnknownLocation {
        /// The name asked for.
        name: String,
        /// The model's locations.
        locations: Vec<String>,
    },
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawError::TermOnly => {
                f.write_str("this model is term-only: it has no automata to draw (draw --diagram draws its interaction)")
            }
            DrawError::UnknownLocation { name, locations } => write!(
                f,
                "unknown location `{name}`; locations are {}",
                locations.join(" ")
            ),
        }
    }
}

impl std::error::Error for DrawError {}
