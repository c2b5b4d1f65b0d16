//! What AC answers: the verdict with the work it took.

use multitrace_model::verdict::{Reason, Verdict, VerdictKind};

/// The result of AC with its explanation.
pub struct AcOutcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Product states (position vectors) built.
    pub vertices: u64,
}

/// An Inconclusive: the budget's `limit` ran out after `vertices`.
pub(super) fn inconclusive(limit: &str, vertices: u64) -> AcOutcome {
    let mut v = Verdict::new(VerdictKind::Inconclusive);
    v.reason = Some(Reason::Budget {
        limit: limit.into(),
        established: None,
    });
    v.vertices = vertices;
    AcOutcome {
        verdict: v,
        vertices,
    }
}
