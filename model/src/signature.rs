//! Lifelines, messages, actions and locations.
//!
//! Invariants: every [`LifelineId`] and [`MessageId`] handed out by a [`Signature`] indexes its
//! tables; a signature holds at most [`MAX_LIFELINES`] lifelines so that sets of lifelines fit in
//! one machine word ([`LifelineSet`]); lifeline and message names are unique.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Largest number of lifelines a model may have (sets of lifelines are one `u64`).
pub const MAX_LIFELINES: usize = 64;

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into its table.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
pub(crate) use id_newtype;

id_newtype!(
    /// A lifeline (a subsystem's interface), index into [`Signature::lifelines`].
    LifelineId
);
id_newtype!(
    /// A message, index into [`Signature::messages`].
    MessageId
);
id_newtype!(
    /// A location: a group of co-localized lifelines observed by one local trace.
    LocationId
);

/// Emission (`!`) or reception (`?`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ActionKind {
    /// `l!m`: lifeline `l` sends `m`.
    Emission,
    /// `l?m`: lifeline `l` receives `m`.
    Reception,
}

/// A communication action `l!m` or `l?m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Action {
    /// The lifeline the action occurs on (θ(a) in the seeds).
    pub lifeline: LifelineId,
    /// Emission or reception.
    pub kind: ActionKind,
    /// The message conveyed.
    pub message: MessageId,
}

/// A set of lifelines as a bit mask (bit `i` is lifeline `i`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct LifelineSet(pub u64);

impl LifelineSet {
    /// The empty set.
    pub const EMPTY: LifelineSet = LifelineSet(0);

    /// The set holding only `l`.
    #[inline]
    pub fn single(l: LifelineId) -> Self {
        LifelineSet(1u64 << l.0)
    }
    /// The set of the first `n` lifelines.
    pub fn first(n: usize) -> Self {
        if n >= 64 {
            LifelineSet(u64::MAX)
        } else {
            LifelineSet((1u64 << n) - 1)
        }
    }
    /// Whether `l` is in the set.
    #[inline]
    pub fn contains(self, l: LifelineId) -> bool {
        self.0 >> l.0 & 1 == 1
    }
    /// Union.
    #[inline]
    pub fn union(self, o: Self) -> Self {
        LifelineSet(self.0 | o.0)
    }
    /// Intersection.
    #[inline]
    pub fn inter(self, o: Self) -> Self {
        LifelineSet(self.0 & o.0)
    }
    /// Difference.
    #[inline]
    pub fn minus(self, o: Self) -> Self {
        LifelineSet(self.0 & !o.0)
    }
    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether the two sets share a lifeline.
    #[inline]
    pub fn intersects(self, o: Self) -> bool {
        self.0 & o.0 != 0
    }
    /// Adds `l`.
    #[inline]
    pub fn insert(&mut self, l: LifelineId) {
        self.0 |= 1u64 << l.0;
    }
    /// Number of lifelines in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// The lifelines in increasing order.
    pub fn iter(self) -> impl Iterator<Item = LifelineId> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                Some(LifelineId(i))
            }
        })
    }
}

/// The names of a model's lifelines and messages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    lifelines: Vec<String>,
    messages: Vec<String>,
    #[serde(skip)]
    lifeline_index: FxHashMap<String, LifelineId>,
    #[serde(skip)]
    message_index: FxHashMap<String, MessageId>,
}

/// Why a name could not be added to a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// More than [`MAX_LIFELINES`] lifelines.
    TooManyLifelines,
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::TooManyLifelines => write!(
                f,
                "too many lifelines: multitrace supports at most {MAX_LIFELINES}; group lifelines or split the model"
            ),
        }
    }
}

impl std::error::Error for SignatureError {}

impl Signature {
    /// An empty signature.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a lifeline (or returns the existing id of that name).
    pub fn add_lifeline(&mut self, name: &str) -> Result<LifelineId, SignatureError> {
        if let Some(&id) = self.lifeline_index.get(name) {
            return Ok(id);
        }
        if self.lifelines.len() >= MAX_LIFELINES {
            return Err(SignatureError::TooManyLifelines);
        }
        let id = LifelineId(self.lifelines.len() as u32);
        self.lifelines.push(name.to_string());
        self.lifeline_index.insert(name.to_string(), id);
        Ok(id)
    }

    /// Adds a message (or returns the existing id of that name).
    pub fn add_message(&mut self, name: &str) -> MessageId {
        if let Some(&id) = self.message_index.get(name) {
            return id;
        }
        let id = MessageId(self.messages.len() as u32);
        self.messages.push(name.to_string());
        self.message_index.insert(name.to_string(), id);
        id
    }

    /// Rebuilds the name indexes (after deserialization).
    pub fn reindex(&mut self) {
        self.lifeline_index = self
            .lifelines
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), LifelineId(i as u32)))
            .collect();
        self.message_index = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), MessageId(i as u32)))
            .collect();
    }

    /// The lifeline of that name.
    pub fn lifeline(&self, name: &str) -> Option<LifelineId> {
        self.lifeline_index.get(name).copied()
    }
    /// The message of that name.
    pub fn message(&self, name: &str) -> Option<MessageId> {
        self.message_index.get(name).copied()
    }
    /// Lifeline names, indexed by [`LifelineId`].
    pub fn lifelines(&self) -> &[String] {
        &self.lifelines
    }
    /// Message names, indexed by [`MessageId`].
    pub fn messages(&self) -> &[String] {
        &self.messages
    }
    /// Name of a lifeline.
    pub fn lifeline_name(&self, l: LifelineId) -> &str {
        &self.lifelines[l.index()]
    }
    /// Name of a message.
    pub fn message_name(&self, m: MessageId) -> &str {
        &self.messages[m.index()]
    }
    /// All lifelines as a set.
    pub fn all_lifelines(&self) -> LifelineSet {
        LifelineSet::first(self.lifelines.len())
    }
    /// Renders an action as `l!m` or `l?m`.
    pub fn action_to_string(&self, a: Action) -> String {
        let k = match a.kind {
            ActionKind::Emission => '!',
            ActionKind::Reception => '?',
        };
        format!(
            "{}{}{}",
            self.lifeline_name(a.lifeline),
            k,
            self.message_name(a.message)
        )
    }
}

/// A partition of a signature's lifelines into locations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locations {
    /// Lifelines of each location.
    groups: Vec<LifelineSet>,
    /// Location of each lifeline.
    of_lifeline: Vec<LocationId>,
}

impl Locations {
    /// One location per lifeline.
    pub fn singletons(n_lifelines: usize) -> Self {
        Locations {
            groups: (0..n_lifelines)
                .map(|i| LifelineSet::single(LifelineId(i as u32)))
                .collect(),
            of_lifeline: (0..n_lifelines).map(|i| LocationId(i as u32)).collect(),
        }
    }

    /// Builds a partition from groups; returns `None` unless the groups are disjoint, non-empty
    /// and cover exactly the first `n_lifelines` lifelines.
    pub fn from_groups(n_lifelines: usize, groups: Vec<LifelineSet>) -> Option<Self> {
        let mut of_lifeline = vec![None; n_lifelines];
        for (g, set) in groups.iter().enumerate() {
            if set.is_empty() {
                return None;
            }
            for l in set.iter() {
                let slot = of_lifeline.get_mut(l.index())?;
                if slot.is_some() {
                    return None;
                }
                *slot = Some(LocationId(g as u32));
            }
        }
        let of_lifeline = of_lifeline.into_iter().collect::<Option<Vec<_>>>()?;
        Some(Locations {
            groups,
            of_lifeline,
        })
    }

    /// Number of locations.
    pub fn len(&self) -> usize {
        self.groups.len()
    }
    /// Whether there is no location.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
    /// Lifelines of a location.
    pub fn lifelines(&self, loc: LocationId) -> LifelineSet {
        self.groups[loc.index()]
    }
    /// Location of a lifeline.
    pub fn of(&self, l: LifelineId) -> LocationId {
        self.of_lifeline[l.index()]
    }
    /// All groups, indexed by [`LocationId`].
    pub fn groups(&self) -> &[LifelineSet] {
        &self.groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifeline_set_operations() {
        let mut s = LifelineSet::EMPTY;
        s.insert(LifelineId(3));
        s.insert(LifelineId(0));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![LifelineId(0), LifelineId(3)]
        );
        assert!(s.contains(LifelineId(3)) && !s.contains(LifelineId(1)));
        assert_eq!(s.minus(LifelineSet::single(LifelineId(0))).len(), 1);
        assert_eq!(LifelineSet::first(64).len(), 64);
    }

    #[test]
    fn signature_caps_lifelines() {
        let mut sig = Signature::new();
        for i in 0..MAX_LIFELINES {
            sig.add_lifeline(&format!("l{i}")).unwrap();
        }
        assert_eq!(sig.add_lifeline("l0"), Ok(LifelineId(0)));
        assert_eq!(
            sig.add_lifeline("extra"),
            Err(SignatureError::TooManyLifelines)
        );
    }

    #[test]
    fn locations_must_partition() {
        let a = LifelineSet::single(LifelineId(0));
        let b = LifelineSet::single(LifelineId(1));
        assert!(Locations::from_groups(2, vec![a, b]).is_some());
        assert!(Locations::from_groups(2, vec![a]).is_none());
        assert!(Locations::from_groups(2, vec![a, a.union(b)]).is_none());
        let locs = Locations::from_groups(2, vec![a.union(b)]).unwrap();
        assert_eq!(locs.of(LifelineId(1)), LocationId(0));
    }
}
