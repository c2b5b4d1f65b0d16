//! Multitraces: one local trace per location.
//!
//! Invariants: the components' lifeline sets are disjoint and non-empty; every action of a
//! component's trace occurs on one of that component's lifelines.

use crate::signature::{Action, LifelineSet, Signature};

/// One location's observation: its lifelines and its local trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// The co-localized lifelines observed by this trace.
    pub lifelines: LifelineSet,
    /// The local trace, in local-clock order.
    pub trace: Vec<Action>,
}

/// A multitrace: a set of local traces over disjoint groups of lifelines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Multitrace {
    /// The components, one per location.
    pub components: Vec<Component>,
}

impl Multitrace {
    /// Total number of actions.
    pub fn len(&self) -> usize {
        self.components.iter().map(|c| c.trace.len()).sum()
    }

    /// Whether every local trace is empty.
    pub fn is_empty(&self) -> bool {
        self.components.iter().all(|c| c.trace.is_empty())
    }

    /// Lifelines covered by the components.
    pub fn lifelines(&self) -> LifelineSet {
        self.components
            .iter()
            .fold(LifelineSet::EMPTY, |s, c| s.union(c.lifelines))
    }

    /// Adds a singleton component with an empty trace for every lifeline of `all` that no
    /// component covers (an unobserved lifeline has an empty local trace).
    pub fn complete_with(&mut self, all: LifelineSet) {
        for l in all.minus(self.lifelines()).iter() {
            self.components.push(Component {
                lifelines: LifelineSet::single(l),
                trace: Vec::new(),
            });
        }
    }

    /// Renders the multitrace in `.htf` syntax.
    pub fn to_htf(&self, sig: &Signature) -> String {
        let mut out = String::from("{\n");
        for (k, c) in self.components.iter().enumerate() {
            let names: Vec<&str> = c.lifelines.iter().map(|l| sig.lifeline_name(l)).collect();
            let acts: Vec<String> = c.trace.iter().map(|&a| sig.action_to_string(a)).collect();
            out.push_str(&format!("[{}] {}", names.join(","), acts.join(".")));
            out.push_str(if k + 1 < self.components.len() {
                ";\n"
            } else {
                "\n"
            });
        }
        out.push('}');
        out
    }
}
