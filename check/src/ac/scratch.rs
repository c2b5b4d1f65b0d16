//! AC's reusable buffers, one per thread.

use super::closure::MaskedClosure;
use super::reached::Reached;
use super::tables::MaskedRows;
use super::vectors::Radix;
use super::viability::StepMemo;

/// Reusable buffers of AC (one per thread): a batch allocates them once.
#[derive(Default)]
pub struct AcScratch {
    pub(super) radix: Radix,
    pub(super) reached: Reached,
    pub(super) keys: Vec<(u64, u32)>,
    pub(super) sets: Vec<u64>,
    pub(super) fresh: Vec<u64>,
    pub(super) silent: Vec<bool>,
    pub(super) stack: Vec<usize>,
    /// A set closed under silent moves by [`super::tables::AcTables::closure`]'s rows.
    pub(super) closed: Vec<u64>,
    /// The closure rows of a restricted search, per check.
    pub(super) masked_closure: MaskedClosure,
    pub(super) masked: MaskedRows,
    /// `Q_j(p)` of viability pruning, `w` words each, location `j` from `q_at[j]`.
    pub(super) q: Vec<u64>,
    pub(super) q_at: Vec<usize>,
    pub(super) memo: StepMemo,
    /// Vertices after which pruning starts (tests force it); default `2 × actions + 64`.
    pub(super) prune_after: Option<u64>,
}

impl AcScratch {
    /// Starts viability pruning after `vertices` expanded vertices of a search instead of the
    /// default `2 × actions + 64` (`Some(0)`: from the first vertex; `None`: the default). The
    /// verdicts do not depend on it, only the work; tests use it to exercise both paths.
    pub fn set_prune_after(&mut self, vertices: Option<u64>) {
        self.prune_after = vertices;
    }
}
