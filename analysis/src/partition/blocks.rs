//! A partition of the atoms (the locations of the given partition) into blocks, each block a set
//! of atoms in one machine word.
//!
//! Invariant: the blocks of a [`Partition`] are non-empty, disjoint, cover the atoms, and are
//! sorted by their lowest atom, so equal partitions are equal values.

/// Largest number of atoms (locations of the given partition) the analysis handles: a block of
/// a partition is a set of atoms in one machine word.
pub const MAX_ATOMS: usize = 64;

/// A partition of the atoms into blocks (locations), each block a set of atoms as a bit mask.
///
/// Invariant: the blocks are non-empty, disjoint, cover the atoms, and are sorted by their
/// lowest atom (so equal partitions are equal values).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Partition {
    pub(super) blocks: Vec<u64>,
}

impl Partition {
    /// Every atom alone.
    pub fn finest(atoms: usize) -> Self {
        Partition {
            blocks: (0..atoms).map(|a| 1u64 << a).collect(),
        }
    }

    /// One block holding every atom.
    pub fn single(atoms: usize) -> Self {
        Partition {
            blocks: vec![mask_of(atoms)],
        }
    }

    /// A partition from blocks (atom masks); `None` unless they are non-empty, disjoint and
    /// cover the atoms `0..atoms`.
    pub fn from_blocks(atoms: usize, mut blocks: Vec<u64>) -> Option<Self> {
        let mut seen = 0u64;
        for &b in &blocks {
            if b == 0 || b & seen != 0 {
                return None;
            }
            seen |= b;
        }
        if seen != mask_of(atoms) {
            return None;
        }
        blocks.sort_by_key(|b| b.trailing_zeros());
        Some(Partition { blocks })
    }

    /// A partition from a block number per atom (a restricted growth string or any labelling).
    pub fn from_labels(labels: &[usize]) -> Self {
        let mut blocks: Vec<u64> = Vec::new();
        let mut index: Vec<Option<usize>> = Vec::new();
        for (atom, &l) in labels.iter().enumerate() {
            if index.len() <= l {
                index.resize(l + 1, None);
            }
            let k = *index[l].get_or_insert_with(|| {
                blocks.push(0);
                blocks.len() - 1
            });
            blocks[k] |= 1u64 << atom;
        }
        blocks.sort_by_key(|b| b.trailing_zeros());
        Partition { blocks }
    }

    /// The blocks, as atom masks, sorted by lowest atom.
    pub fn blocks(&self) -> &[u64] {
        &self.blocks
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether there is no block (no atoms).
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The block of an atom.
    pub fn block_of(&self, atom: usize) -> usize {
        self.blocks
            .iter()
            .position(|&b| b >> atom & 1 == 1)
            .unwrap_or(0)
    }

    /// Whether every block of `self` lies inside a block of `other` (`other` is coarser or
    /// equal).
    pub fn refines(&self, other: &Partition) -> bool {
        self.blocks
            .iter()
            .all(|&b| other.blocks.iter().any(|&o| b & !o == 0))
    }

    /// Whether two atoms share a block.
    pub fn together(&self, a: usize, b: usize) -> bool {
        self.blocks
            .iter()
            .any(|&m| m >> a & 1 == 1 && m >> b & 1 == 1)
    }
}

/// The mask of atoms `0..n`.
pub(crate) fn mask_of(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
