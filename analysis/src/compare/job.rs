//! What `compare` says around [`compare_with`](super::compare_with): its options from the
//! command's numbers, the note on `--with-term`, the lines of standard error (notes, then
//! disagreements and mismatches), the table as text or JSON, and the exit status.

use super::{CompareOptions, Comparison};
use crate::limits::nonzero;
use multitrace_model::model::CompiledModel;
use multitrace_model::verdict::Mode;
use std::path::Path;

impl CompareOptions {
    /// The options of `compare`: `max_vertices` `0` is no budget.
    pub fn new(runs: usize, with_term: bool, mode: Option<Mode>, max_vertices: u64) -> Self {
        CompareOptions {
            runs,
            with_term,
            mode,
            max_vertices: nonzero(max_vertices),
        }
    }

    /// The note when term exploration is asked of a model without an interaction (then it is
    /// not timed).
    pub fn with_term_note(&self, model: &CompiledModel) -> Option<&'static str> {
        (self.with_term && model.term().is_none())
            .then_some("the model has no interaction: --with-term ignored")
    }
}

impl Comparison {
    /// What goes to standard error before the table: `note: ...` lines, then each
    /// disagreement and mismatch.
    pub fn messages(&self) -> Vec<String> {
        let notes = self.notes.iter().map(|n| format!("note: {n}"));
        let findings = self.rows.iter().flat_map(|r| &r.findings);
        notes.chain(findings.map(|f| f.to_string())).collect()
    }

    /// The output: the Markdown table titled `STEM (STATES, TRANSITIONS)` after the `model`
    /// file, or (`json`) the JSON rows naming it, with a final line break.
    pub fn output(&self, model: &Path, json: bool) -> String {
        if json {
            return format!("{}\n", self.json(&model.display().to_string()));
        }
        let stem = model
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        self.markdown(&format!("{stem} ({}, {})", self.states, self.transitions))
    }

    /// The last line when multitraces had disagreeing verdicts (`None`: none had).
    pub fn problems_message(&self) -> Option<String> {
        let n = self.problems();
        (n > 0).then(|| format!("{n} multitrace(s) with disagreeing verdicts (see above): the procedures are inconsistent"))
    }

    /// The exit status: 1 for a disagreement or a mismatch, 3 when a check was Inconclusive,
    /// else 0.
    pub fn exit_code(&self) -> u8 {
        if self.problems() > 0 {
            1
        } else if self.inconclusive() {
            3
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_comparison_says_nothing_and_exits_0() {
        let c = Comparison {
            states: 2,
            transitions: 3,
            setup: 0.0,
            runs: 1,
            procedures: Vec::new(),
            rows: Vec::new(),
            notes: vec!["n".into()],
        };
        assert_eq!(c.messages(), ["note: n"]);
        assert_eq!(c.problems_message(), None);
        assert_eq!(c.exit_code(), 0);
        assert_eq!(
            c.output(Path::new("d/m.hif"), false),
            c.markdown("m (2, 3)")
        );
        assert!(c.output(Path::new("d/m.hif"), true).ends_with('\n'));
        assert_eq!(CompareOptions::new(1, false, None, 0).max_vertices, None);
    }
}
