//! One live run: its local traces so far, its incremental product, and what is decided.

use super::behind::Behind;
use super::end_product::EndProduct;
use super::eventually::Eventually;
use super::guess::Guess;
use super::late::{Late, LateWhy};
use super::product::{closure_fits, closure_rows, Kernel, Product, TooWide};
use multitrace_check::diagnose::EndQueries;
use multitrace_check::{CheckError, CheckOptions, Engine, Scratch};
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Verdict, VerdictKind};
use serde::{Deserialize, Serialize};

/// Default most product vertices of one live run ([`MonitorOptions::max_vertices`]).
pub const DEFAULT_MAX_LIVE_VERTICES: usize = 4096;

/// How live runs are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MonitorOptions {
    /// The check of a run: its `mode` is the question asked when the run ends (events are
    /// always checked as prefixes while it is live), its procedure, budgets and diagnosis are
    /// those of a batch check (a Fail's record is the batch record of the prefix).
    pub check: CheckOptions,
    /// Most vertices an automata run's product may hold (when one location lags far behind
    /// the others its face grows with the lag); past it the run is checked from its traces
    /// (its local verifiers at each event, the batch check at doubling event counts and at
    /// its end), and a Fail found so says it may be late ([`Late`]).
    pub max_vertices: usize,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            check: CheckOptions::default(),
            max_vertices: DEFAULT_MAX_LIVE_VERTICES,
        }
    }
}

/// What a run's checks established about its events, for the diagnosis of its record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    /// Nothing.
    Nothing,
    /// All are a multi-prefix.
    All,
    /// All but the last, of this location, are a multi-prefix.
    AllBut(usize),
}

/// Where a live run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standing {
    /// A multi-prefix so far: nothing is decided.
    Open,
    /// Decided by the event of this number (from 1): a Fail, or Inconclusive when a budget ran
    /// out; later events do not change it.
    Decided(u64, VerdictKind),
}

/// The state of one live run (compact, serializable: [`LiveRun::to_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveRun {
    pub(super) traces: Vec<Vec<LetterId>>,
    /// `None` for runs re-checked from their traces (term exploration).
    pub(super) product: Option<Product>,
    pub(super) standing: Standing,
    pub(super) events: u64,
    /// Locations of the events fed by [`Monitor::push_unchecked`] since the last multi-prefix
    /// check ([`Monitor::settle`]), oldest first, from the first *dark* one (the first after
    /// which `R(n)` did not meet the live states): the events before it are multi-prefixes
    /// (the check after each would have said so without a search), so they are only counted
    /// (`quiet`) and a replay starts at the list's first event; a run whose events keep
    /// meeting the live states (most runs) allocates no list.
    pub(super) unchecked: Vec<u32>,
    /// Events fed unchecked before the first dark one.
    pub(super) quiet: u32,
    /// The product after the first dark unchecked event, once a later event is fed.
    #[serde(default)]
    pub(super) checked: Option<Box<Product>>,
    /// A multi-prefix search ran out of the vertex budget since the run's events were last
    /// found a multi-prefix: the run stays open (nothing is certain), but a Fail found later
    /// may have been certain at an earlier event, so its diagnosis assumes nothing of them.
    #[serde(default)]
    pub(super) unsure: bool,
    /// While it holds, the run's events are a multi-prefix without the product
    /// ([`super::guess`]); the product is then that of the events before `behind`'s.
    #[serde(default)]
    pub(super) guess: Option<Guess>,
    /// The locations of the events the product was not fed while the guess held, in the
    /// order they came (fed to it in that order when the guess breaks).
    #[serde(default)]
    pub(super) behind: Behind,
    /// Each location's local verifier state after its trace (the DFA `Proj(A, Σj)` of AS,
    /// seed 004), or [`REJECTED`] once it refused a letter; empty for runs re-checked from
    /// their traces. A trace the local verifier refuses is no multi-prefix's projection, so
    /// an event it refuses, after events all known to be a multi-prefix, is the run's Fail:
    /// decided without the product (which a guess broken by that very event would otherwise
    /// be fed with every event it skipped).
    #[serde(default)]
    pub(super) local: Vec<u32>,
    /// Since when a Fail may come late (set with `unsure`, or when the product outgrew its
    /// budget; cleared when a check finds the events a multi-prefix again).
    pub(super) late: Option<Late>,
    /// A run whose product outgrew its budget ([`Monitor::overflowed`]) is checked by the
    /// batch at this event count next (doubling: the checks cost at most twice the last).
    pub(super) retry: u64,
}

/// [`LiveRun::local`]'s state of a location whose local verifier refused a letter.
const REJECTED: u32 = u32::MAX;

/// Why a run's state bytes cannot be read.
#[derive(Debug)]
pub struct StateError(pub(super) String);

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "live run state cannot be read (written by another version or for another model?): {}",
            self.0
        )
    }
}

impl std::error::Error for StateError {}

impl LiveRun {
    /// Events fed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The local traces fed so far, by location.
    pub fn traces(&self) -> &[Vec<LetterId>] {
        &self.traces
    }

    /// Where the run stands.
    pub fn standing(&self) -> Standing {
        self.standing
    }

    /// Events fed by [`Monitor::push_unchecked`] and not yet settled ([`Monitor::settle`]).
    pub fn unchecked(&self) -> usize {
        self.quiet as usize + self.unchecked.len()
    }

    /// Bytes held by this run (traces and product), for the memory figures.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<LiveRun>()
            + self
                .traces
                .iter()
                .map(|t| std::mem::size_of::<Vec<LetterId>>() + 4 * t.capacity())
                .sum::<usize>()
            + self.product.as_ref().map_or(0, Product::bytes)
            + self.checked.as_ref().map_or(0, |c| c.bytes())
            + 4 * self.unchecked.capacity()
            + self.guess.as_ref().map_or(0, Guess::bytes)
            + self.behind.bytes()
            + 4 * self.local.capacity()
    }

    /// The bytes of the run's state as its record reports it (`state_bytes`): its traces and
    /// product by their content, without the copies kept for one reading round, so that a
    /// run gives the same figure however its events were batched, checkpointed or restored.
    pub fn state_bytes(&self) -> usize {
        std::mem::size_of::<LiveRun>()
            + self
                .traces
                .iter()
                .map(|t| std::mem::size_of::<Vec<LetterId>>() + 4 * t.len())
                .sum::<usize>()
            + self.product.as_ref().map_or(0, Product::state_bytes)
            + self.guess.as_ref().map_or(0, Guess::state_bytes)
            + self.behind.state_bytes()
            + 4 * self.local.len()
    }

    /// Its events fed unchecked are checked (or need no check). The list keeps its buffer:
    /// freeing it saved 2 MB at 100,000 live runs, for 0.6 % more instructions on the MQTT
    /// set, whose runs often have dark events.
    pub(super) fn settled(&mut self) {
        self.unchecked.clear();
        self.quiet = 0;
        self.checked = None;
    }

    /// Since when a Fail of this run may come late, and why ([`Late`]).
    pub fn late(&self) -> Option<Late> {
        self.late
    }

    /// Drops the product and what goes with it (its guess, the events it skipped, the events
    /// fed unchecked since its last check): a run decided, or checked from its traces now.
    pub(super) fn drop_product(&mut self) {
        self.product = None;
        self.guess = None;
        self.behind = Behind::default();
        self.unchecked = Vec::new();
        self.quiet = 0;
        self.checked = None;
    }

    /// A check found the run's events a multi-prefix: nothing is unsure any more.
    fn sure(&mut self) {
        self.unsure = false;
        self.late = None;
    }

    /// What the run's checks established when its last event, of location `j`, makes it no
    /// longer a multi-prefix: the events before it are one, unless a search ran out since.
    fn known_but(&self, j: usize) -> Known {
        if self.unsure {
            Known::Nothing
        } else {
            Known::AllBut(j)
        }
    }

    /// Drops the traces and the product of a run whose record is written (an Error found by
    /// the caller): later events are only counted.
    pub fn forget(&mut self) {
        if self.standing == Standing::Open {
            self.standing = Standing::Decided(self.events, VerdictKind::Inconclusive);
        }
        self.traces = Vec::new();
        self.product = None;
        self.unchecked = Vec::new();
        self.quiet = 0;
        self.checked = None;
        self.guess = None;
        self.behind = Behind::default();
        self.local = Vec::new();
    }

    /// The state as bytes (for checkpoints); [`LiveRun::from_bytes`] reads it back.
    pub fn to_bytes(&self) -> Vec<u8> {
        bincode::serde::encode_to_vec(self, bincode::config::standard())
            .expect("a live run always encodes")
    }

    /// Reads a state written by [`LiveRun::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<LiveRun, StateError> {
        bincode::serde::decode_from_slice(bytes, bincode::config::standard())
            .map(|(r, _)| r)
            .map_err(|e| StateError(e.to_string()))
    }
}

/// Feeds `p` the events of `behind` (their locations, in the order they came): each is the
/// next letter of its location's trace past the product's (which reads the traces only up
/// to its own lengths, so longer traces serve).
fn catch_up(
    k: &Kernel<'_>,
    p: &mut Product,
    traces: &[Vec<LetterId>],
    behind: &[u32],
    max_vertices: usize,
) -> Result<(), TooWide> {
    // One sweep over the region the events open ([`Product::advance`]), unless it grows
    // wider than [`THIN`] new vertices per event: then they are pushed.
    p.advance(k, traces, behind, max_vertices, THIN)
}

/// The new vertices per event a break's sweep may make before the events are pushed instead
/// (MQTT's make 0.7 per event, AutomatArk NFA12's about 97): a sweep that gives up loses at
/// most that much work per event.
const THIN: usize = 3;

/// The incremental engine over a loaded model: it starts live runs and feeds them events.
pub struct Monitor<'e> {
    pub(super) engine: &'e Engine,
    pub(super) opts: MonitorOptions,
    procedure: Procedure,
    /// Per-location closure rows of the automaton (see [`Kernel::closure`]).
    closure: Vec<u64>,
    /// The letters each local verifier may still read after each state ([`Eventually`]).
    eventually: Eventually,
}

impl<'e> Monitor<'e> {
    /// A monitor checking with `opts` (the procedure must be able to run on the model).
    pub fn new(engine: &'e Engine, opts: MonitorOptions) -> Result<Self, CheckError> {
        let procedure = engine.procedure(opts.check.choice)?;
        let model = engine.model();
        let closure = match (engine.tables(), model.automata()) {
            (Some(t), Some(a)) => {
                closure_fits(t, &a.nfa, &model.alphabet, &opts.check.budget)?;
                closure_rows(t, &a.nfa, &model.alphabet)
            }
            _ => Vec::new(),
        };
        let eventually = match model.automata() {
            Some(a) if procedure != Procedure::Term => Eventually::new(a, &model.alphabet),
            _ => Eventually::default(),
        };
        Ok(Monitor {
            engine,
            opts,
            procedure,
            closure,
            eventually,
        })
    }

    /// The engine.
    pub fn engine(&self) -> &'e Engine {
        self.engine
    }

    /// The options.
    pub fn options(&self) -> &MonitorOptions {
        &self.opts
    }

    /// The procedure named in records.
    pub fn procedure(&self) -> Procedure {
        self.procedure
    }

    /// Whether runs keep an incremental product (AC and AS on automata) rather than being
    /// re-checked from their traces after each event (term exploration, with its budget).
    pub fn incremental(&self) -> bool {
        self.kernel().is_some()
    }

    pub(super) fn kernel(&self) -> Option<Kernel<'_>> {
        if self.procedure == Procedure::Term {
            return None;
        }
        let model = self.engine.model();
        Some(Kernel {
            tables: self.engine.tables()?,
            nfa: &model.automata()?.nfa,
            alphabet: &model.alphabet,
            closure: &self.closure,
        })
    }

    /// A run with no event yet.
    pub fn start(&self) -> LiveRun {
        let kernel = self.kernel();
        LiveRun {
            traces: vec![Vec::new(); self.engine.model().alphabet.locations()],
            product: kernel.as_ref().map(Product::new),
            standing: Standing::Open,
            events: 0,
            unchecked: Vec::new(),
            quiet: 0,
            checked: None,
            unsure: false,
            guess: kernel.as_ref().and_then(Guess::start),
            behind: Behind::default(),
            // (State 0 is each local verifier's initial state.)
            local: match kernel {
                Some(_) => vec![0; self.engine.model().alphabet.locations()],
                None => Vec::new(),
            },
            late: None,
            retry: 0,
        }
    }

    /// Each location's local verifier state after reading `traces` ([`LiveRun::local`]).
    pub(super) fn local_states(&self, traces: &[Vec<LetterId>]) -> Vec<u32> {
        let model = self.engine.model();
        let Some(a) = model.automata().filter(|_| self.kernel().is_some()) else {
            return Vec::new();
        };
        traces
            .iter()
            .zip(&a.projections)
            .map(|(t, dfa)| {
                let (s, read) = dfa.read_live(t.iter().map(|&l| model.alphabet.local_index(l)));
                if read == t.len() {
                    s
                } else {
                    REJECTED
                }
            })
            .collect()
    }

    /// The locations' local verifiers, for an automata run (see [`Monitor::local_states`]).
    pub(super) fn verifiers(&self) -> Option<&[multitrace_model::project::ProjDfa]> {
        let a = self.engine.model().automata()?;
        self.kernel().map(|_| &a.projections[..])
    }

    /// Whether `letter`'s location can never read it after the run's events fed there,
    /// whatever events of its own come in between ([`Eventually`]): fed now, it makes the
    /// run a Fail, which no event that may still come before it can change. `false` for a
    /// decided run, a run without local verifiers, or one they already refused.
    pub(crate) fn never_reads(&self, run: &LiveRun, letter: LetterId) -> bool {
        let alphabet = &self.engine.model().alphabet;
        let j = alphabet.location(letter).index();
        match run.local.get(j) {
            Some(&s) if s != REJECTED && run.standing == Standing::Open => {
                !self.eventually.may_read(j, s, alphabet.local_index(letter))
            }
            _ => false,
        }
    }

    /// Steps location `j`'s local verifier by `letter`: `true` when it refuses it now (it
    /// refuses every later letter too, without saying so again).
    fn local_refuses(&self, run: &mut LiveRun, j: usize, letter: LetterId) -> bool {
        let model = self.engine.model();
        let (Some(s), Some(a)) = (run.local.get_mut(j), model.automata()) else {
            return false;
        };
        if *s == REJECTED {
            return false;
        }
        match a.projections[j].live_step(*s, model.alphabet.local_index(letter)) {
            Some(t) => {
                *s = t;
                false
            }
            None => {
                *s = REJECTED;
                true
            }
        }
    }

    /// The run's last event, of location `j`, is one its local verifier refuses, and every
    /// event before it was checked: the run is a Fail at this event, the batch record of the
    /// prefix, as [`Monitor::answered`] gives it when a search says so (the events before
    /// are a multi-prefix unless a search ran out since they were last found one).
    fn refused(&self, scratch: &mut Scratch, run: &mut LiveRun, j: usize) -> Verdict {
        // The run's guess, when it holds at the cut before this event, and its product, when
        // it is there (not behind by the events the guess skipped), answer as at a run's end.
        let v = self.fail_at_last(scratch, run, j, run.product.as_ref(), run.guess.clone());
        self.decide(run, run.events, v.kind);
        v
    }

    /// The record of a Fail at the run's last event, of location `j`: the batch record of
    /// the prefix, whose diagnosis asks `product` (the run's, or a copy kept before the
    /// event) and `guess` (one that holds at the cut before the event) which letters extend
    /// that cut ([`EndProduct`]: it answers only when the product is at the cut; else AC).
    fn fail_at_last(
        &self,
        scratch: &mut Scratch,
        run: &LiveRun,
        j: usize,
        product: Option<&Product>,
        guess: Option<Guess>,
    ) -> Verdict {
        let mut cut = run.traces.clone();
        cut[j].pop();
        let mut end = match (self.kernel(), product) {
            (Some(kernel), Some(product)) => Some(EndProduct::new(
                kernel,
                product,
                guess,
                &cut,
                self.opts.max_vertices,
                self.verifiers(),
            )),
            _ => None,
        };
        let mut v = self.batch(
            scratch,
            &run.traces,
            Mode::Prefix,
            run.known_but(j),
            Some(VerdictKind::Fail),
            end.as_mut().map(|e| e as &mut dyn EndQueries),
        );
        // The monitor's work, as its other records count it.
        v.vertices = run.product.as_ref().map_or(0, |p| p.vertices() as u64);
        v
    }

    /// After a push whose `R(n)` meets the live states, a run without a guess (it broke)
    /// takes a new one: no letter guessed, `E` the live states of `R(n)`. Whether it does
    /// depends only on the pushes' answers, the same whichever way the events are checked
    /// (at once or at the end of a round), so the run's state does not depend on it either.
    fn guess_again(&self, k: &Kernel<'_>, run: &mut LiveRun) -> bool {
        if run.guess.is_some() {
            return false;
        }
        let Some(end) = run.product.as_ref().and_then(Product::end_set) else {
            return false;
        };
        run.guess = Guess::from_end(k, end);
        run.guess.is_some()
    }

    /// Feeds event `a` of location `j` (already appended to `traces[j]`) to the run's guess
    /// when it has one: `Ok(true)` when the guess still holds (the events are a multi-prefix,
    /// the product is behind by one more event), `Ok(false)` when there is no guess or it
    /// just broke (the product has been fed the events it was behind by: the caller feeds
    /// it `a`), `Err` when the product ran out of the vertex budget on them: the run is
    /// `Inconclusive` at this event (the events before it are a multi-prefix).
    fn guessed(
        &self,
        k: &Kernel<'_>,
        run: &mut LiveRun,
        j: usize,
        a: LetterId,
    ) -> Result<bool, TooWide> {
        let Some(g) = &mut run.guess else {
            return Ok(false);
        };
        if g.extend(k, j, a, self.opts.max_vertices) {
            run.behind.push(j as u32);
            return Ok(true);
        }
        run.guess = None;
        let behind = std::mem::take(&mut run.behind).to_vec();
        let p = run
            .product
            .as_mut()
            .expect("a guess is kept with a product");
        catch_up(k, p, &run.traces, &behind, self.opts.max_vertices).map(|()| false)
    }

    /// Feeds one event like [`Monitor::push`] but leaves the multi-prefix check for later: a
    /// stream's many events of one run between two checks cost one check ([`Monitor::settle`]).
    /// Decisions are those of [`Monitor::push`], at the same events: the product as it was at
    /// the last check is kept, and the unchecked events are replayed on it with a check after
    /// each when the run is no longer a multi-prefix. Returns a decision (with the number of
    /// the event that decides it) only when the product's budget runs out on this event (the
    /// events before it are replayed first: one of them may be the Fail), or for a run
    /// re-checked from its traces (term exploration, checked at once). Call
    /// [`Monitor::settle`] before [`Monitor::push`], [`Monitor::finish`] or
    /// [`Monitor::verdict_now`] on the run.
    pub fn push_unchecked(
        &self,
        scratch: &mut Scratch,
        run: &mut LiveRun,
        letter: LetterId,
    ) -> Option<(u64, Verdict)> {
        if run.standing != Standing::Open {
            run.events += 1;
            return None;
        }
        if self.overflowed(run) {
            // Checked from its traces, at once (its local verifiers step in `push`).
            return self.push(scratch, run, letter).map(|v| (run.events, v));
        }
        let j = self.engine.model().alphabet.location(letter).index();
        if self.local_refuses(run, j, letter) && run.unchecked.is_empty() {
            // Every event before was checked (none is unchecked), this one is not a
            // multi-prefix: as `push` decides it.
            run.traces[j].push(letter);
            run.events += 1;
            let v = self.refused(scratch, run, j);
            return Some((run.events, v));
        }
        let (Some(k), Some(p)) = (self.kernel(), &mut run.product) else {
            return self.push(scratch, run, letter).map(|v| (run.events, v));
        };
        if run.unchecked.len() == 1 {
            // The product after the first dark event, where a replay starts: a run whose
            // last unchecked event is its first dark one needs no copy.
            match &mut run.checked {
                Some(c) => (**c).clone_from(p),
                None => run.checked = Some(Box::new(p.clone())),
            }
        }
        run.traces[j].push(letter);
        match self.guessed(&k, run, j, letter) {
            Ok(true) => {
                run.events += 1;
                run.quiet += 1;
                return None;
            }
            Ok(false) => {}
            Err(w) => {
                run.events += 1;
                self.overflow(run, w);
                return None;
            }
        }
        let p = run.product.as_mut().expect("checked above");
        match p.push(&k, &run.traces, j, letter, self.opts.max_vertices) {
            Ok(live) => {
                run.events += 1;
                // `R(n)` meets the live states: a multi-prefix, whatever came before.
                if live {
                    run.sure();
                }
                if live && self.guess_again(&k, run) {
                    // Every event before is a multi-prefix too (downward closure): none is
                    // left to check, as when each is checked at once.
                    run.settled();
                    return None;
                }
                // The list starts at the first dark event.
                if live && run.unchecked.is_empty() {
                    run.quiet += 1;
                } else {
                    run.unchecked.push(j as u32);
                }
                None
            }
            Err(w) => {
                run.events += 1;
                // Every event before this one is a multi-prefix when none is unchecked
                // (checked, or `R(n)` met the live states after it). Else the product before
                // this event is intact (a push that runs out changes only its length): when it
                // is a multi-prefix, so is every prefix before it (downward closure), and it is
                // the replay's last check. Either way `push`'s decision, without a replay (on
                // AutomatArk NFA12 the replays of the runs whose product runs out were a third
                // of the monitor's time).
                let known = run.unchecked.is_empty() || {
                    p.undo_too_wide(j);
                    let ok = p.is_multi_prefix(&k, &run.traces, self.opts.max_vertices) == Ok(true);
                    // That check clears `unsure`, as the replay's would.
                    if ok {
                        run.sure();
                    }
                    ok
                };
                if known {
                    self.overflow(run, w);
                    return None;
                }
                // Replayed with a check after each event, this one included.
                run.unchecked.push(j as u32);
                self.replay(scratch, run, false)
            }
        }
    }

    /// Checks the events fed by [`Monitor::push_unchecked`] since the last check: `None` while
    /// the run is a multi-prefix; else the decision [`Monitor::push`] gives (a Fail as the
    /// batch record of the prefix, or Inconclusive) with the number of the event it gives it
    /// at.
    pub fn settle(&self, scratch: &mut Scratch, run: &mut LiveRun) -> Option<(u64, Verdict)> {
        let (Some(k), Some(p), Standing::Open) = (self.kernel(), &run.product, run.standing) else {
            run.settled();
            return None;
        };
        // No dark event: `R(n)` met the live states after each; else the search says whether
        // the run is still a multi-prefix.
        if run.unchecked.is_empty() {
            // (Each of them cleared `unsure` when it was fed.)
            run.settled();
            return None;
        }
        if p.is_multi_prefix(&k, &run.traces, self.opts.max_vertices) == Ok(true) {
            run.settled();
            run.sure();
            return None;
        }
        self.replay(scratch, run, true)
    }

    /// Marks the run decided at event `at` and frees what a decided run no longer needs.
    pub(super) fn decide(&self, run: &mut LiveRun, at: u64, kind: VerdictKind) {
        run.standing = Standing::Decided(at, kind);
        run.drop_product();
        run.traces = Vec::new();
        run.local = Vec::new();
    }

    /// What `push` decides on `found`, the multi-prefix answer for the run's events, the last
    /// of location `j`: nothing while they are one, a Fail (the batch record of the prefix)
    /// when they are not. `before`: the run's product before that event, when the caller kept
    /// it: the diagnosis asks it which letters extend the cut before the event, as a Fail a
    /// local verifier decides asks the run's product ([`Monitor::fail_at_last`]).
    pub(super) fn answered(
        &self,
        scratch: &mut Scratch,
        run: &mut LiveRun,
        found: Result<bool, TooWide>,
        j: usize,
        before: Option<&Product>,
    ) -> Option<Verdict> {
        match found {
            Ok(true) => {
                run.sure();
                None
            }
            Ok(false) => Some(self.fail_at_last(scratch, run, j, before, None)),
            // The search ran out of the budget, the product did not: nothing is certain, the
            // run stays open. (Deciding it Inconclusive here would make the record depend on
            // which events a stream checks one by one: a search at the end of a batch of
            // events may not run out.)
            Err(_) => {
                if !run.unsure {
                    run.late = Some(Late {
                        since: run.events,
                        why: LateWhy::Search,
                    });
                }
                run.unsure = true;
                None
            }
        }
    }

    /// Feeds one event (a letter of the model: its location is the letter's). Returns the
    /// verdict when this event decides the run: a Fail (the batch check's record of the
    /// prefix, with its diagnosis) or Inconclusive (a budget ran out); `None` while the run is
    /// a multi-prefix, and for events after the decision (they are counted, not checked).
    pub fn push(
        &self,
        scratch: &mut Scratch,
        run: &mut LiveRun,
        letter: LetterId,
    ) -> Option<Verdict> {
        self.push_from(scratch, run, letter, None)
    }

    /// [`Monitor::push`], with the run's product as it is before the event when the caller
    /// kept a copy (`before`: see [`Monitor::answered`]).
    pub(super) fn push_from(
        &self,
        scratch: &mut Scratch,
        run: &mut LiveRun,
        letter: LetterId,
        before: Option<&Product>,
    ) -> Option<Verdict> {
        run.events += 1;
        if run.standing != Standing::Open {
            return None;
        }
        let j = self.engine.model().alphabet.location(letter).index();
        run.traces[j].push(letter);
        if self.local_refuses(run, j, letter) {
            // Every event before was checked, this one is not a multi-prefix.
            return Some(self.refused(scratch, run, j));
        }
        let guessed = match (self.kernel(), run.product.is_some()) {
            (Some(k), true) => self.guessed(&k, run, j, letter),
            _ => Ok(false),
        };
        let mut too_wide = guessed.err();
        let decided = match (self.kernel(), &mut run.product) {
            _ if guessed == Ok(true) => None,
            (_, Some(_)) if too_wide.is_some() => None,
            (Some(k), Some(p)) => {
                let max = self.opts.max_vertices;
                match p.push(&k, &run.traces, j, letter, max) {
                    Err(w) => {
                        too_wide = Some(w);
                        None
                    }
                    Ok(live) => {
                        let found = if live {
                            Ok(true)
                        } else {
                            p.is_multi_prefix(&k, &run.traces, max)
                        };
                        if live {
                            self.guess_again(&k, run);
                        }
                        self.answered(scratch, run, found, j, before)
                    }
                }
            }
            (Some(_), None) => self.retried(scratch, run),
            _ => {
                let v = self.batch(
                    scratch,
                    &run.traces,
                    Mode::Prefix,
                    Known::AllBut(j),
                    None,
                    None,
                );
                matches!(v.kind, VerdictKind::Fail | VerdictKind::Inconclusive).then_some(v)
            }
        };
        if let Some(w) = too_wide {
            self.overflow(run, w);
        }
        if let Some(v) = &decided {
            run.standing = Standing::Decided(run.events, v.kind);
            // A decided run needs only its event count: free the rest.
            run.product = None;
            run.traces = Vec::new();
            run.guess = None;
            run.behind = Behind::default();
            run.local = Vec::new();
        }
        decided
    }
}
