//! The causal restriction of the global traces: only those the network can produce count
//! (a reception after an emission of its message not yet received).

use super::statics;
use multitrace_model::nfa::LetterId;
use multitrace_model::signature::{Action, ActionKind};

/// The causal restriction: only global traces the network can produce count.
///
/// A reception `b?m` must follow an emission of `m` that `b` has not received yet, by a
/// lifeline that the interaction lets send `m` to `b` (its *senders*); one emission serves each
/// of its receivers once (a broadcast is received once by each). Receptions that the
/// interaction also takes from the environment (`m -> b`) are not constrained. Emissions need no
/// reception (a message may still be in flight, or lost, when the trace ends). For each
/// constrained pair (receiver, message) a counter holds the emissions not yet received.
///
/// Raw automata have opaque letters: nothing is constrained.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Causality {
    /// Per constrained channel: (receiver lifeline name, message name, sender names).
    pub channels: Vec<(String, String, Vec<String>)>,
    /// Per letter: the counters an emission increments.
    pub(crate) incr: Vec<Vec<u16>>,
    /// Per letter: the counter a reception decrements (`None`: unconstrained).
    pub(crate) decr: Vec<Option<u16>>,
}

impl Causality {
    /// Number of counters.
    pub fn counters(&self) -> usize {
        self.channels.len()
    }

    /// Whether `word` respects the restriction, and the largest number of messages in flight
    /// on one channel along it.
    pub fn replay(&self, word: &[LetterId]) -> (bool, u32) {
        let mut c = vec![0u32; self.counters()];
        let mut most = 0;
        for &x in word {
            if let Some(Some(k)) = self.decr.get(x.index()) {
                let v = &mut c[*k as usize];
                if *v == 0 {
                    return (false, most);
                }
                *v -= 1;
            }
            if let Some(list) = self.incr.get(x.index()) {
                for &k in list {
                    c[k as usize] += 1;
                    most = most.max(c[k as usize]);
                }
            }
        }
        (true, most)
    }

    /// An interleaving of `traces` (one per location, letters of the global model) that
    /// respects the restriction, if there is one.
    ///
    /// Greedy and exact: an enabled action stays enabled when another location acts (two
    /// receptions competing for one counter are on one lifeline, hence one location, where
    /// they are ordered), so any maximal greedy run consumes everything when some interleaving
    /// does.
    pub fn interleave(&self, traces: &[Vec<LetterId>]) -> Option<Vec<LetterId>> {
        let mut c = vec![0u32; self.counters()];
        let mut pos = vec![0usize; traces.len()];
        let total: usize = traces.iter().map(Vec::len).sum();
        let mut out = Vec::with_capacity(total);
        while out.len() < total {
            let mut moved = false;
            for (k, t) in traces.iter().enumerate() {
                while let Some(&x) = t.get(pos[k]) {
                    if let Some(Some(i)) = self.decr.get(x.index()) {
                        if c[*i as usize] == 0 {
                            break;
                        }
                        c[*i as usize] -= 1;
                    }
                    if let Some(list) = self.incr.get(x.index()) {
                        for &i in list {
                            c[i as usize] += 1;
                        }
                    }
                    out.push(x);
                    pos[k] += 1;
                    moved = true;
                }
            }
            if !moved {
                return None;
            }
        }
        Some(out)
    }
}

/// The causal restriction of an interaction: channels from the static analysis' messages.
pub(crate) fn causality_of(
    st: &statics::Statics,
    sig: &multitrace_model::signature::Signature,
    letter_actions: &[Action],
) -> Causality {
    use std::collections::{BTreeMap, BTreeSet};
    // (receiver, message) -> senders; None in the set: the environment.
    let mut senders: BTreeMap<(u32, u32), BTreeSet<Option<u32>>> = BTreeMap::new();
    for (from, to, m) in st.channels() {
        for &b in to {
            senders
                .entry((b.0, m.0))
                .or_default()
                .insert(from.map(|a| a.0));
        }
    }
    let mut channels = Vec::new();
    let mut counter: BTreeMap<(u32, u32), u16> = BTreeMap::new();
    for (&(b, m), s) in &senders {
        if s.contains(&None) {
            continue; // also received from the environment: unconstrained
        }
        counter.insert((b, m), channels.len() as u16);
        channels.push((
            sig.lifeline_name(multitrace_model::signature::LifelineId(b))
                .to_string(),
            sig.message_name(multitrace_model::signature::MessageId(m))
                .to_string(),
            s.iter()
                .flatten()
                .map(|&a| {
                    sig.lifeline_name(multitrace_model::signature::LifelineId(a))
                        .to_string()
                })
                .collect(),
        ));
    }
    let mut incr = vec![Vec::new(); letter_actions.len()];
    let mut decr = vec![None; letter_actions.len()];
    for (x, a) in letter_actions.iter().enumerate() {
        match a.kind {
            ActionKind::Reception => decr[x] = counter.get(&(a.lifeline.0, a.message.0)).copied(),
            ActionKind::Emission => {
                for (&(b, m), s) in &senders {
                    if m == a.message.0 && s.contains(&Some(a.lifeline.0)) {
                        if let Some(&k) = counter.get(&(b, m)) {
                            incr[x].push(k);
                        }
                    }
                }
            }
        }
    }
    Causality {
        channels,
        incr,
        decr,
    }
}
