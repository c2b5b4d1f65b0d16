//! Determinized views of the global automaton built on demand: the local verifier of any set
//! of atoms (`Proj(A, Σ)`, subsets closed under the other letters, Def. 5 of seed 004) and the
//! determinized `A` itself. Subsets keep only states that can still reach acceptance, so a
//! non-empty subset is a live one (a prefix of the language) and the empty subset is the dead
//! state.

use crate::partition::{Partition, Problem};
use crate::progress::{ProgressFn, Reporter};
use multitrace_model::nfa::{LetterId, StateId};
use multitrace_model::verdict::Mode;
use rustc_hash::FxHashMap;
use std::cell::{Cell, RefCell};

const UNKNOWN: u32 = u32::MAX;

/// The global automaton's transitions between co-reachable states, and what the determinized
/// views built on it hold in memory.
pub(crate) struct Graph {
    letters: usize,
    out: Vec<Vec<(u32, u32)>>,
    initial: Vec<u32>,
    accepting: Vec<bool>,
    /// Scratch marks of a subset being built (one per NFA state, all `false` between steps).
    marks: RefCell<Vec<bool>>,
    /// Bytes held by the states of every [`LazyDfa`] built on this graph (an upper bound:
    /// a view dropped is not subtracted).
    dfa_bytes: Cell<u64>,
}

impl Graph {
    fn new(problem: &Problem) -> Graph {
        let a = problem
            .analysis()
            .automata()
            .expect("the problem's analysis model has automata");
        let nfa = &a.nfa;
        let live = nfa.co_reachable();
        let n = nfa.states();
        let mut out = vec![Vec::new(); n];
        for t in nfa.transitions() {
            if live[t.from.index()] && live[t.to.index()] {
                out[t.from.index()].push((t.letter.0, t.to.0));
            }
        }
        Graph {
            letters: problem.letters(),
            out,
            initial: nfa
                .initial()
                .iter()
                .filter(|s| live[s.index()])
                .map(|s| s.0)
                .collect(),
            accepting: (0..n)
                .map(|s| nfa.is_accepting(StateId(s as u32)))
                .collect(),
            marks: RefCell::new(vec![false; n]),
            dfa_bytes: Cell::new(0),
        }
    }

    /// Bytes of the graph itself (transitions and per-state tables).
    pub(crate) fn bytes(&self) -> u64 {
        let n = self.out.len() as u64;
        let edges: u64 = self.out.iter().map(|o| o.capacity() as u64).sum();
        n * (24 + 2) + edges * 8
    }

    /// Bytes held by the determinized views built so far.
    pub(crate) fn dfa_bytes(&self) -> u64 {
        self.dfa_bytes.get()
    }
}

/// A determinized view of the global automaton over some visible letters (the others are
/// silent), built on demand.
///
/// A state is a subset of the NFA's states, stored sparse (its members, sorted), so that a
/// state costs what it holds, not the whole NFA: the subsets of a product of independent
/// components (seed 002's `par`) hold one NFA state each, and a dense bit set per state would
/// cost the NFA's size per state (22 KB each for 177,147 states; issue 22).
pub(crate) struct LazyDfa {
    visible: Vec<bool>,
    silent: bool,
    letters: usize,
    /// The members of every state, one after the other; state `s` is
    /// `members[start[s]..start[s + 1]]`.
    members: Vec<u32>,
    start: Vec<usize>,
    index: FxHashMap<Box<[u32]>, u32>,
    accepting: Vec<bool>,
    empty: Vec<bool>,
    next: Vec<u32>,
}

impl LazyDfa {
    fn new(g: &Graph, visible: Vec<bool>) -> LazyDfa {
        let silent = visible.iter().any(|v| !v);
        let mut d = LazyDfa {
            visible,
            silent,
            letters: g.letters,
            members: Vec::new(),
            start: vec![0],
            index: FxHashMap::default(),
            accepting: Vec::new(),
            empty: Vec::new(),
            next: Vec::new(),
        };
        let set = d.closed(g, g.initial.iter().copied());
        d.intern(g, set);
        d
    }

    /// The subset of `states` and of the states reachable from them by silent letters,
    /// sorted.
    fn closed(&self, g: &Graph, states: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut marks = g.marks.borrow_mut();
        let mut set: Vec<u32> = Vec::new();
        for s in states {
            if !marks[s as usize] {
                marks[s as usize] = true;
                set.push(s);
            }
        }
        if self.silent {
            let mut i = 0;
            while i < set.len() {
                let s = set[i];
                i += 1;
                for &(x, t) in &g.out[s as usize] {
                    if !self.visible[x as usize] && !marks[t as usize] {
                        marks[t as usize] = true;
                        set.push(t);
                    }
                }
            }
        }
        for &s in &set {
            marks[s as usize] = false;
        }
        set.sort_unstable();
        set
    }

    fn intern(&mut self, g: &Graph, set: Vec<u32>) -> u32 {
        if let Some(&id) = self.index.get(set.as_slice()) {
            return id;
        }
        let id = self.empty.len() as u32;
        self.accepting
            .push(set.iter().any(|&s| g.accepting[s as usize]));
        self.empty.push(set.is_empty());
        self.members.extend_from_slice(&set);
        self.start.push(self.members.len());
        // The members twice (the arena and the index's key), the index entry, the
        // transitions row, the flags.
        let bytes = set.len() as u64 * 8 + 48 + self.letters as u64 * 4 + 10;
        g.dfa_bytes.set(g.dfa_bytes.get() + bytes);
        self.index.insert(set.into_boxed_slice(), id);
        self.next.resize(self.next.len() + self.letters, UNKNOWN);
        id
    }

    /// The initial state.
    pub fn initial(&self) -> u32 {
        0
    }

    /// The state after visible letter `x` (the empty state when it cannot be read).
    pub fn step(&mut self, g: &Graph, s: u32, x: LetterId) -> u32 {
        let cell = s as usize * self.letters + x.index();
        let t = self.next[cell];
        if t != UNKNOWN {
            return t;
        }
        let from = &self.members[self.start[s as usize]..self.start[s as usize + 1]];
        let targets = from.iter().flat_map(|&q| {
            g.out[q as usize]
                .iter()
                .filter(move |&&(y, _)| y == x.0)
                .map(|&(_, t)| t)
        });
        let set = self.closed(g, targets);
        let t = self.intern(g, set);
        self.next[cell] = t;
        t
    }

    /// Whether the state holds an accepting state (the word read is in the language).
    pub fn is_accepting(&self, s: u32) -> bool {
        self.accepting[s as usize]
    }

    /// Whether the state is empty (the word read is not a prefix of the language).
    pub fn is_empty(&self, s: u32) -> bool {
        self.empty[s as usize]
    }

    /// Whether the state passes in `mode`.
    pub fn passes(&self, s: u32, mode: Mode) -> bool {
        match mode {
            Mode::Complete => self.accepting[s as usize],
            Mode::Prefix => !self.empty[s as usize],
        }
    }
}

/// Shared state of an analysis: the global automaton and the local verifiers of the blocks
/// met so far (a block recurs in many partitions), built on demand.
pub struct Analyzer<'p> {
    problem: &'p Problem,
    pub(crate) graph: Graph,
    blocks: FxHashMap<u64, LazyDfa>,
    global: Option<LazyDfa>,
    /// Product states built by the searches of (a), all together (the progress reported).
    pub(crate) states_built: u64,
    pub(crate) progress: Reporter<'p>,
}

impl<'p> Analyzer<'p> {
    /// An analyzer of `problem`.
    pub fn new(problem: &'p Problem) -> Self {
        Analyzer::with_progress(problem, None)
    }

    /// An analyzer of `problem` that reports the product states its searches build to
    /// `progress` (no total: the searches end when they decide).
    pub fn with_progress(problem: &'p Problem, progress: Option<ProgressFn<'p>>) -> Self {
        let graph = Graph::new(problem);
        let global = LazyDfa::new(&graph, vec![true; problem.letters()]);
        Analyzer {
            problem,
            graph,
            blocks: FxHashMap::default(),
            global: Some(global),
            states_built: 0,
            progress: Reporter::new(progress, "product states", None),
        }
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The local verifiers of `p`'s blocks, taken out of the cache (give them back with
    /// [`Analyzer::put_blocks`]).
    pub(crate) fn take_blocks(&mut self, p: &Partition) -> Vec<LazyDfa> {
        p.blocks()
            .iter()
            .map(|&b| {
                self.blocks.remove(&b).unwrap_or_else(|| {
                    let visible = (0..self.problem.letters())
                        .map(|x| b >> self.problem.atom_of_letter(LetterId(x as u32)) & 1 == 1)
                        .collect();
                    LazyDfa::new(&self.graph, visible)
                })
            })
            .collect()
    }

    /// Puts back what [`Analyzer::take_blocks`] took.
    pub(crate) fn put_blocks(&mut self, p: &Partition, dfas: Vec<LazyDfa>) {
        for (&b, d) in p.blocks().iter().zip(dfas) {
            self.blocks.insert(b, d);
        }
    }

    /// The determinized global automaton, taken out (give it back with
    /// [`Analyzer::put_global`]).
    pub(crate) fn take_global(&mut self) -> LazyDfa {
        self.global
            .take()
            .unwrap_or_else(|| LazyDfa::new(&self.graph, vec![true; self.problem.letters()]))
    }

    /// Puts back the determinized global automaton.
    pub(crate) fn put_global(&mut self, d: LazyDfa) {
        self.global = Some(d);
    }

    /// Whether every local verifier of `p` accepts its projection of `w` in `mode`.
    pub fn locally_accepted(&mut self, p: &Partition, w: &[LetterId], mode: Mode) -> bool {
        for &b in p.blocks() {
            if !self.block_accepts(b, w, mode) {
                return false;
            }
        }
        true
    }

    /// Whether the local verifier of `block` accepts its projection of `w` in `mode`.
    fn block_accepts(&mut self, block: u64, w: &[LetterId], mode: Mode) -> bool {
        let problem = self.problem;
        let d = self.blocks.entry(block).or_insert_with(|| {
            let visible = (0..problem.letters())
                .map(|x| block >> problem.atom_of_letter(LetterId(x as u32)) & 1 == 1)
                .collect();
            LazyDfa::new(&self.graph, visible)
        });
        let mut s = d.initial();
        for &x in w {
            if block >> problem.atom_of_letter(x) & 1 == 1 {
                s = d.step(&self.graph, s, x);
                if d.is_empty(s) {
                    return false;
                }
            }
        }
        d.passes(s, mode)
    }

    /// Whether `A` accepts `w` (complete mode) or `w` is a prefix of an accepted word (prefix
    /// mode).
    pub fn globally_accepted(&mut self, w: &[LetterId], mode: Mode) -> bool {
        let mut d = self.take_global();
        let mut s = d.initial();
        for &x in w {
            s = d.step(&self.graph, s, x);
        }
        let ok = d.passes(s, mode);
        self.put_global(d);
        ok
    }

    /// Words of length at most `max` whose every prefix passes the local verifier of `block`
    /// in prefix mode, grouped by length; each word is kept when it passes in `mode`. The
    /// flag says whether words longer than `max` exist (the list is then cut).
    pub(crate) fn block_words(
        &mut self,
        block: u64,
        mode: Mode,
        max: usize,
        cap: usize,
    ) -> (Vec<Vec<Vec<LetterId>>>, bool) {
        let p = Partition {
            blocks: vec![block],
        };
        let mut dfas = self.take_blocks(&p);
        let d = &mut dfas[0];
        let letters: Vec<LetterId> = (0..self.problem.letters())
            .map(|x| LetterId(x as u32))
            .filter(|&x| block >> self.problem.atom_of_letter(x) & 1 == 1)
            .collect();
        let mut by_len: Vec<Vec<Vec<LetterId>>> = vec![Vec::new(); max + 1];
        let mut cut = false;
        let mut count = 0usize;
        let mut stack: Vec<(u32, Vec<LetterId>)> = vec![(d.initial(), Vec::new())];
        while let Some((s, w)) = stack.pop() {
            if d.passes(s, mode) {
                count += 1;
                by_len[w.len()].push(w.clone());
            }
            for &x in &letters {
                let t = d.step(&self.graph, s, x);
                if d.is_empty(t) {
                    continue;
                }
                if w.len() == max || count >= cap {
                    cut = true;
                    continue;
                }
                let mut w2 = w.clone();
                w2.push(x);
                stack.push((t, w2));
            }
        }
        for l in &mut by_len {
            l.sort();
        }
        self.put_blocks(&p, dfas);
        (by_len, cut)
    }
}
