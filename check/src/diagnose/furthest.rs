//! The canonical rule: the furthest consistent point of a failed multitrace, the action each
//! location is blocked on there and what the model allows instead (or, when the whole is
//! consistent, what each location can still do), and the LocalError established by queries.
//!
//! Invariants: the point is consistent, and maximal unless the budget ran out (then the
//! diagnosis is partial); locations advance in turn, in location order, one action at a time,
//! so the result depends on the model and the multitrace only, never on the oracle.

use super::oracle::Oracle;
use super::queries::Queries;
use multitrace_model::budget::Budget;
use multitrace_model::nfa::LocationId;
use multitrace_model::verdict::{Blocked, Diagnosis, Mode};
use std::time::Instant;

/// Diagnoses a failed multitrace (see the [module documentation](super)). `whole_consistent`
/// is what is already known of the whole multitrace: in prefix mode a Fail means it is not a
/// multi-prefix (`Some(false)`).
pub(super) fn diagnose_with(
    oracle: &mut dyn Oracle,
    whole_consistent: Option<bool>,
    budget: &Budget,
    classify: bool,
) -> Diagnosis {
    let lens = oracle.lens();
    let k = lens.len();
    let mut q = Queries {
        oracle,
        budget: *budget,
        started: Instant::now(),
        vertices: 0,
        exhausted: false,
        ran_out: None,
        whole: (lens.clone(), whole_consistent),
    };
    let mut v = vec![0usize; k];
    let whole = match whole_consistent {
        Some(b) => Some(b),
        None => q.ask(&lens, None),
    };
    q.whole.1 = whole;
    let mut blocked = Vec::new();
    let mut ended = false;
    if whole == Some(true) {
        // Complete mode: every action is consumed, but the run cannot end here.
        v.clone_from(&lens);
        let mut any = false;
        for i in 0..k {
            let Some(allowed) = q.allowed(&v, i, None) else {
                break;
            };
            if !allowed.is_empty() {
                any = true;
                blocked.push(Blocked {
                    location: LocationId(i as u32),
                    position: v[i],
                    found: None,
                    allowed,
                });
            }
        }
        ended = !any && !q.exhausted;
    } else if whole == Some(false) {
        // The canonical rule: advance in turn, one action at a time.
        let mut done: Vec<bool> = (0..k).map(|i| lens[i] == 0).collect();
        let mut stuck = vec![false; k];
        'rounds: loop {
            let mut moved = false;
            for i in 0..k {
                if done[i] {
                    continue;
                }
                v[i] += 1;
                match q.ask(&v, None) {
                    Some(true) => {
                        moved = true;
                        done[i] = v[i] == lens[i];
                    }
                    Some(false) => {
                        v[i] -= 1;
                        done[i] = true;
                        stuck[i] = true;
                    }
                    None => {
                        v[i] -= 1;
                        break 'rounds;
                    }
                }
            }
            if !moved {
                break;
            }
        }
        // The empty cut may itself be inconsistent (a model that accepts nothing).
        let empty_ok = v.iter().any(|&n| n > 0) || q.ask(&v, None).unwrap_or(true);
        for i in (0..k).filter(|&i| stuck[i]) {
            let found = q.oracle.action(i, v[i]);
            let allowed = if empty_ok {
                match q.allowed(&v, i, Some(found)) {
                    Some(a) => a,
                    None => break,
                }
            } else {
                Vec::new()
            };
            blocked.push(Blocked {
                location: LocationId(i as u32),
                position: v[i],
                found: Some(found),
                allowed,
            });
        }
        if !q.exhausted && blocked.iter().all(|b| b.allowed.is_empty()) {
            // Nothing blocked can go on; can anything else?
            ended = !empty_ok
                || (0..k)
                    .filter(|&i| !stuck[i])
                    .all(|i| q.allowed(&v, i, None).is_some_and(|a| a.is_empty()));
            ended &= !q.exhausted;
        }
    }
    // A consistent whole makes every cut consistent (downward closure): no LocalError, and
    // no queries to find that out.
    let local = if classify && whole != Some(true) {
        local_by_queries(&mut q, &lens)
    } else {
        None
    };
    Diagnosis {
        consumed: v,
        blocked,
        ended,
        local,
        partial: q.exhausted,
        ran_out: q.ran_out.map(String::from),
        vertices: q.vertices,
    }
}

/// The first location (in order) whose trace alone is not a multi-prefix, with the position
/// of the action that makes it so (by bisection: consistency is monotone in the length) and
/// what the model allows there. Models without automata have no local verifiers; this is
/// their LocalError, in the prefix sense. None when the model accepts nothing at all.
pub(super) fn local_by_queries<O: Oracle + ?Sized>(
    q: &mut Queries<'_, O>,
    lens: &[usize],
) -> Option<Blocked> {
    let k = lens.len();
    let mut v = vec![0usize; k];
    // A model that accepts nothing rejects every trace alike: no location is to blame.
    if !q.ask(&v, None)? {
        return None;
    }
    for i in 0..k {
        v[i] = lens[i];
        let alone = q.ask(&v, None)?;
        if !alone {
            // The longest consistent prefix: lo is consistent, hi is not.
            let (mut lo, mut hi) = (0, lens[i]);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                v[i] = mid;
                if q.ask(&v, None)? {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            v[i] = lo;
            let found = q.oracle.action(i, lo);
            let allowed = q.allowed(&v, i, Some(found))?;
            return Some(Blocked {
                location: LocationId(i as u32),
                position: lo,
                found: Some(found),
                allowed,
            });
        }
        v[i] = 0;
    }
    None
}

/// What a Fail says of the whole multitrace: in prefix mode, that it is not a multi-prefix.
pub(crate) fn known_whole(mode: Mode) -> Option<bool> {
    (mode == Mode::Prefix).then_some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::nfa::LetterId;
    use multitrace_model::verdict::Sym;
    use proptest::prelude::*;

    /// A finite language given by its accepted global words: the brute-force oracle.
    #[derive(Debug)]
    struct Finite {
        /// Accepted words, as (location, letter) in global order.
        words: Vec<Vec<(usize, u8)>>,
        traces: Vec<Vec<u8>>,
        letters: u8,
    }

    impl Finite {
        /// Whether the cut at `v` (plus `extra`) is a prefix of some accepted word's
        /// projections, decided directly.
        fn brute(&self, v: &[usize], extra: Option<(usize, u8)>) -> bool {
            self.words.iter().any(|w| {
                (0..self.traces.len()).all(|i| {
                    let proj: Vec<u8> = w.iter().filter(|x| x.0 == i).map(|x| x.1).collect();
                    let mut cut = self.traces[i][..v[i]].to_vec();
                    if let Some((j, a)) = extra {
                        if j == i {
                            cut.push(a);
                        }
                    }
                    proj.starts_with(&cut)
                })
            })
        }
    }

    fn sym(a: u8) -> Sym {
        Sym::Letter(LetterId(a as u32))
    }

    impl Oracle for Finite {
        fn lens(&self) -> Vec<usize> {
            self.traces.iter().map(Vec::len).collect()
        }
        fn action(&self, i: usize, p: usize) -> Sym {
            sym(self.traces[i][p])
        }
        fn candidates(&self, _: usize) -> Vec<Sym> {
            (0..self.letters).map(sym).collect()
        }
        fn consistent(
            &mut self,
            v: &[usize],
            extra: Option<(usize, Sym)>,
            _: &Budget,
        ) -> (Result<bool, &'static str>, u64) {
            let extra = extra.map(|(i, s)| match s {
                Sym::Letter(l) => (i, l.0 as u8),
                Sym::Action(_) => unreachable!(),
            });
            (Ok(self.brute(v, extra)), 1)
        }
    }

    fn case() -> impl Strategy<Value = Finite> {
        (2usize..4, 1u8..4).prop_flat_map(|(k, letters)| {
            let word = prop::collection::vec((0..k, 0..letters), 0..6);
            let words = prop::collection::vec(word, 0..5);
            let traces = prop::collection::vec(prop::collection::vec(0..letters, 0..4), k);
            (words, traces).prop_map(move |(words, traces)| Finite {
                words,
                traces,
                letters,
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

        /// The furthest point is consistent, maximal and the one of the canonical rule
        /// (simulated here on the brute-force predicate); blocked actions and what is allowed
        /// are exactly the brute-force ones.
        #[test]
        fn diagnosis_matches_brute_force(mut f in case()) {
            let lens = f.lens();
            let k = lens.len();
            let whole = f.brute(&lens, None);
            let d = diagnose_with(&mut f, None, &Budget { max_vertices: None, timeout: None, ..Budget::UNLIMITED }, true);
            prop_assert!(!d.partial);
            let v = d.consumed.clone();
            let allowed = |f: &Finite, v: &[usize], i: usize| -> Vec<Sym> {
                (0..f.letters).filter(|&a| f.brute(v, Some((i, a)))).map(sym).collect()
            };
            if whole {
                prop_assert!(d.local.is_none());
                prop_assert_eq!(&v, &lens);
                let want: Vec<(usize, Vec<Sym>)> = (0..k)
                    .map(|i| (i, allowed(&f, &v, i)))
                    .filter(|(_, a)| !a.is_empty())
                    .collect();
                let got: Vec<(usize, Vec<Sym>)> = d.blocked.iter()
                    .map(|b| (b.location.index(), b.allowed.clone()))
                    .collect();
                prop_assert_eq!(got, want);
                prop_assert!(d.blocked.iter().all(|b| b.found.is_none()));
                prop_assert_eq!(d.ended, d.blocked.is_empty());
                return Ok(());
            }
            // The canonical rule, simulated.
            let mut c = vec![0usize; k];
            let mut stuck = vec![false; k];
            loop {
                let mut moved = false;
                for i in 0..k {
                    if stuck[i] || c[i] == lens[i] { continue; }
                    c[i] += 1;
                    if f.brute(&c, None) { moved = true; } else { c[i] -= 1; stuck[i] = true; }
                }
                if !moved { break; }
            }
            prop_assert_eq!(&v, &c);
            let empty_ok = f.brute(&vec![0; k], None);
            if empty_ok {
                prop_assert!(f.brute(&v, None));
            } else {
                prop_assert_eq!(&v, &vec![0; k]);
            }
            // Maximal: no location can take one more action.
            for i in 0..k {
                if v[i] < lens[i] {
                    let mut w = v.clone();
                    w[i] += 1;
                    prop_assert!(!f.brute(&w, None));
                }
            }
            let blocked: Vec<usize> = (0..k).filter(|&i| v[i] < lens[i]).collect();
            prop_assert_eq!(
                d.blocked.iter().map(|b| b.location.index()).collect::<Vec<_>>(),
                blocked.clone()
            );
            for b in &d.blocked {
                let i = b.location.index();
                prop_assert_eq!(b.position, v[i]);
                prop_assert_eq!(b.found, Some(sym(f.traces[i][v[i]])));
                let want = if empty_ok { allowed(&f, &v, i) } else { Vec::new() };
                prop_assert_eq!(&b.allowed, &want);
            }
            let nothing = !empty_ok || (0..k).all(|i| allowed(&f, &v, i).is_empty());
            prop_assert_eq!(d.ended, nothing);
            // The LocalError: the first location whose trace alone is not a multi-prefix, at
            // its first action that makes it so.
            let alone = |i: usize, n: usize| {
                let mut w = vec![0; k];
                w[i] = n;
                f.brute(&w, None)
            };
            let want = (0..k).find(|&i| empty_ok && !alone(i, lens[i])).map(|i| {
                let p = (0..lens[i]).find(|&p| !alone(i, p + 1)).unwrap();
                (i, p)
            });
            prop_assert_eq!(d.local.as_ref().map(|b| (b.location.index(), b.position)), want);
        }
    }

    #[test]
    fn a_budget_that_runs_out_gives_a_partial_diagnosis() {
        let mut f = Finite {
            words: vec![vec![(0, 0), (1, 0), (0, 0)]],
            traces: vec![vec![0, 0, 1], vec![0, 1]],
            letters: 2,
        };
        let d = diagnose_with(
            &mut f,
            Some(false),
            &Budget {
                max_vertices: Some(2),
                timeout: None,
                ..Budget::UNLIMITED
            },
            false,
        );
        assert!(d.partial);
        // What it established is consistent.
        assert!(f.brute(&d.consumed, None));
        let full = diagnose_with(
            &mut f,
            Some(false),
            &Budget {
                max_vertices: None,
                timeout: None,
                ..Budget::UNLIMITED
            },
            false,
        );
        assert!(!full.partial);
        assert_eq!(full.consumed, vec![2, 1]);
    }
}
