//! Seed 001's reduction of 3-SAT to multi-prefix membership (Prop. 11, Fig. 9): hard instances
//! for term exploration.
//!
//! For a 3-CNF formula with `n` variables and `k` clauses: one lifeline `l_j` per clause, one
//! message `m`, the interaction `seq(alt(i_x1, i_¬x1), ..., alt(i_xn, i_¬xn))` where `i_ℓ` is
//! the strict sequence of the receptions `l_j?m` of the clauses `C_j` containing the literal
//! `ℓ` (in clause order; ∅ when there is none), and the multitrace `(l_1?m, ..., l_k?m)` with
//! one location per lifeline. The multitrace is a multi-prefix of the interaction exactly when
//! the formula is satisfiable (a satisfying assignment picks one branch of each `alt`; each
//! clause has a true literal, whose branch emits `l_j?m`), so prefix mode gives `WeakPass` or
//! `Pass` on satisfiable formulas and `Fail` on the others.
//!
//! Formulas are drawn by [`Cnf::random`] from the workspace's one generator
//! ([`multitrace_model::rng::Rng`]): each clause has three distinct variables with random
//! signs, so the same seed gives the same formula.

use multitrace_model::multitrace::{Component, Multitrace};
use multitrace_model::rng::Rng;
use multitrace_model::signature::{Action, ActionKind, LifelineSet, Signature};
use multitrace_model::term::{TermDisplay, TermId, TermStore};

/// A 3-CNF formula. A literal is a non-zero `i32`: `v` is the variable `x_v` (1-based), `-v`
/// its negation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cnf {
    /// Number of variables (`x_1` to `x_vars`).
    pub vars: usize,
    /// The clauses, three literals each.
    pub clauses: Vec<[i32; 3]>,
}

impl Cnf {
    /// A random formula with `clauses` clauses over `vars` variables (at least 3): each clause
    /// has three distinct variables, each negated with probability 1/2.
    pub fn random(rng: &mut Rng, vars: usize, clauses: usize) -> Cnf {
        assert!(vars >= 3, "a 3-CNF clause needs three distinct variables");
        let mut cs = Vec::with_capacity(clauses);
        let mut pool: Vec<i32> = (1..=vars as i32).collect();
        for _ in 0..clauses {
            // A partial Fisher-Yates: the first three entries of `pool` are the variables.
            let mut c = [0i32; 3];
            for (i, lit) in c.iter_mut().enumerate() {
                let j = rng.between(i, vars - 1);
                pool.swap(i, j);
                *lit = if rng.below(2) == 0 { pool[i] } else { -pool[i] };
            }
            cs.push(c);
        }
        Cnf { vars, clauses: cs }
    }

    /// A formula with `clauses` clauses at the clause/variable `ratio` (variables: `clauses /
    /// ratio` rounded, at least 3), satisfiable or not as asked: the first such formula of the
    /// stream seeded with `seed` (labelled by [`Cnf::satisfiable`], so at most 30 variables).
    /// Near the threshold ratio 4.26 both labels are frequent.
    pub fn labelled(clauses: usize, ratio: f64, satisfiable: bool, seed: u64) -> Cnf {
        let vars = ((clauses as f64 / ratio).round() as usize).max(3);
        let mut rng = Rng::new(seed);
        loop {
            let cnf = Cnf::random(&mut rng, vars, clauses);
            if cnf.satisfiable().is_some() == satisfiable {
                return cnf;
            }
        }
    }

    /// A satisfying assignment, by trying all `2^vars` of them (at most 30 variables): the
    /// oracle that labels instances, independent of any checking procedure.
    pub fn satisfiable(&self) -> Option<u64> {
        assert!(self.vars <= 30, "brute force is for small formulas");
        (0..1u64 << self.vars).find(|&a| self.satisfied_by(a))
    }

    /// Whether `assignment` (bit `v - 1` is the value of `x_v`) satisfies every clause.
    pub fn satisfied_by(&self, assignment: u64) -> bool {
        self.clauses.iter().all(|c| {
            c.iter()
                .any(|&lit| ((assignment >> (lit.unsigned_abs() - 1)) & 1 == 1) == (lit > 0))
        })
    }
}

/// An instance of the reduction: the interaction, its signature and the multitrace.
#[derive(Clone, Debug)]
pub struct SatInstance {
    /// Lifelines `l1` to `lk` (one per clause) and the message `m`.
    pub signature: Signature,
    /// The store holding the interaction.
    pub store: TermStore,
    /// The interaction.
    pub root: TermId,
    /// `(l_1?m, ..., l_k?m)`, one location per lifeline.
    pub multitrace: Multitrace,
}

impl SatInstance {
    /// The reduction of `cnf` (at most `MAX_LIFELINES` clauses, one lifeline each).
    pub fn new(cnf: &Cnf) -> SatInstance {
        let mut signature = Signature::new();
        let m = signature.add_message("m");
        let receive: Vec<Action> = (1..=cnf.clauses.len())
            .map(|j| Action {
                lifeline: signature
                    .add_lifeline(&format!("l{j}"))
                    .expect("one lifeline per clause, within MAX_LIFELINES"),
                kind: ActionKind::Reception,
                message: m,
            })
            .collect();
        let mut store = TermStore::new();
        // i_ℓ for a literal: the strict sequence of its clauses' receptions.
        let branch = |store: &mut TermStore, lit: i32| {
            let mut t = TermId::EMPTY;
            for (j, c) in cnf.clauses.iter().enumerate().rev() {
                if c.contains(&lit) {
                    let a = store.act(receive[j]);
                    t = store.strict(a, t);
                }
            }
            t
        };
        let mut root = TermId::EMPTY;
        for v in (1..=cnf.vars as i32).rev() {
            let (pos, neg) = (branch(&mut store, v), branch(&mut store, -v));
            let choice = store.alt(pos, neg);
            root = store.seq(choice, root);
        }
        let multitrace = Multitrace {
            components: receive
                .iter()
                .map(|&a| Component {
                    lifelines: LifelineSet::single(a.lifeline),
                    trace: vec![a],
                })
                .collect(),
        };
        SatInstance {
            signature,
            store,
            root,
            multitrace,
        }
    }

    /// The interaction in `.hif` syntax.
    pub fn render_hif(&self) -> String {
        let term = TermDisplay {
            store: &self.store,
            signature: &self.signature,
            term: self.root,
        };
        format!("{term}\n")
    }

    /// The signature in `.hsf` syntax.
    pub fn render_hsf(&self) -> String {
        format!(
            "@lifeline{{{}}}\n@message{{m}}\n",
            self.signature.lifelines().join(";")
        )
    }

    /// The multitrace in `.htf` syntax.
    pub fn render_htf(&self) -> String {
        let mut s = self.multitrace.to_htf(&self.signature);
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_check::explore::{explore, ExploreOptions};
    use multitrace_compiler::syntax::{parse_interaction, parse_signature};
    use multitrace_formats::parse_htf;
    use multitrace_model::verdict::{Mode, VerdictKind};

    /// Every switch combination of the explorer: the pruning ones must agree with none.
    fn option_sets() -> Vec<ExploreOptions> {
        let mut v = Vec::new();
        for bits in 0..8u8 {
            v.push(ExploreOptions {
                por: bits & 1 != 0,
                loc: bits & 2 != 0,
                memo: bits & 4 != 0,
                ..ExploreOptions::default()
            });
        }
        v
    }

    #[test]
    fn prefix_verdicts_follow_satisfiability() {
        let mut rng = Rng::new(11);
        let (mut sat, mut unsat) = (0, 0);
        for round in 0..80 {
            let vars = 3 + round % 3;
            // Ratios 1 to 8: both labels, on either side of the threshold.
            let clauses = vars * (1 + rng.below(8));
            let cnf = Cnf::random(&mut rng, vars, clauses);
            let expected = cnf.satisfiable().is_some();
            if expected {
                sat += 1;
            } else {
                unsat += 1;
            }
            let inst = SatInstance::new(&cnf);
            for opts in option_sets() {
                // Without memo the graph is a tree: keep those runs to small formulas.
                if !opts.memo && clauses > 10 {
                    continue;
                }
                let mut store = inst.store.clone();
                let v = explore(&mut store, inst.root, &inst.multitrace, &opts);
                let got = match v.kind {
                    VerdictKind::Pass | VerdictKind::WeakPass => true,
                    VerdictKind::Fail => false,
                    other => panic!("{cnf:?} {opts:?}: {other:?}"),
                };
                assert_eq!(got, expected, "{cnf:?} with {opts:?}");
            }
        }
        assert!(
            sat > 5 && unsat > 5,
            "both labels occur: {sat} sat, {unsat} unsat"
        );
    }

    #[test]
    fn complete_mode_needs_every_literal_of_the_assignment() {
        // Complete mode: the multitrace must be a whole accepted multitrace, i.e. an assignment
        // that makes exactly one literal true in every clause, clause by clause in order.
        let mut rng = Rng::new(5);
        for _ in 0..40 {
            let clauses = 2 + rng.below(5);
            let cnf = Cnf::random(&mut rng, 4, clauses);
            let exactly_one = (0..1u64 << cnf.vars).any(|a| {
                cnf.clauses.iter().all(|c| {
                    c.iter()
                        .filter(|&&l| ((a >> (l.unsigned_abs() - 1)) & 1 == 1) == (l > 0))
                        .count()
                        == 1
                })
            });
            let inst = SatInstance::new(&cnf);
            let mut store = inst.store.clone();
            let opts = ExploreOptions {
                mode: Mode::Complete,
                ..ExploreOptions::default()
            };
            let v = explore(&mut store, inst.root, &inst.multitrace, &opts);
            assert_eq!(v.kind == VerdictKind::Pass, exactly_one, "{cnf:?}");
        }
    }

    #[test]
    fn labelled_formulas_have_their_label() {
        for k in [10, 20, 30] {
            for sat in [true, false] {
                let cnf = Cnf::labelled(k, 4.26, sat, 1);
                assert_eq!(cnf.clauses.len(), k);
                assert_eq!(cnf.satisfiable().is_some(), sat);
                assert_eq!(Cnf::labelled(k, 4.26, sat, 1), cnf, "deterministic");
            }
        }
    }

    #[test]
    fn rendered_files_read_back_to_the_same_instance() {
        let cnf = Cnf::labelled(12, 4.26, true, 3);
        let inst = SatInstance::new(&cnf);
        let sig = parse_signature("s.hsf", &inst.render_hsf()).unwrap();
        assert_eq!(sig.lifelines(), inst.signature.lifelines());
        let mut store = inst.store.clone();
        let mut sig2 = sig.clone();
        let root =
            parse_interaction("m.hif", &inst.render_hif(), &mut sig2, false, &mut store).unwrap();
        assert_eq!(root, inst.root, "the same normalized term");
        let (mt, _) = parse_htf("t.htf", &inst.render_htf(), &sig).unwrap();
        assert_eq!(mt, inst.multitrace);
    }
}
