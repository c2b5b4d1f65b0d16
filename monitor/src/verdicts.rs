//! A live run's verdicts as records: the batch record the check gives for a decision, and
//! the verdict of a run that ends (Pass and WeakPass from its product or guess, a Fail as the
//! batch record of the whole run, a WeakPass explained by what each location could still do,
//! asked of the product).

use super::end_product::EndProduct;
use super::guess::Guess;
use super::run::{Known, LiveRun, Monitor, Standing};
use multitrace_check::diagnose::EndQueries;
use multitrace_check::{CheckOptions, Choice, Scratch};
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::{Mode, Reason, Verdict, VerdictKind};

impl Monitor<'_> {
    /// The verdict the batch check gives in prefix mode on the events fed so far (for a
    /// decided run: the kind of its decision, without recomputing its record).
    pub fn verdict_now(&self, scratch: &mut Scratch, run: &LiveRun) -> VerdictKind {
        self.verdict_in(scratch, run, Mode::Prefix, false).kind
    }

    /// The verdict of an open run ending now, in the monitor's mode: Pass/WeakPass from the
    /// product (no search), a Fail as the batch record of the whole run (with its diagnosis).
    /// A decided run's verdict was given by [`Monitor::push`]; this gives its kind only.
    pub fn finish(&self, scratch: &mut Scratch, run: &LiveRun) -> Verdict {
        self.verdict_in(scratch, run, self.opts.check.mode, true)
    }

    /// `records`: the verdict goes into a record, so a WeakPass is explained as `check`
    /// explains it (what each location could still do).
    fn verdict_in(
        &self,
        scratch: &mut Scratch,
        run: &LiveRun,
        mode: Mode,
        records: bool,
    ) -> Verdict {
        if let Standing::Decided(_, kind) = run.standing {
            return Verdict::new(kind);
        }
        // An open run's events were each checked (a multi-prefix), unless some are not yet.
        let known = if run.unchecked() == 0 && !run.unsure {
            Known::All
        } else {
            Known::Nothing
        };
        let (Some(k), Some(p)) = (self.kernel(), &run.product) else {
            return self.batch(scratch, &run.traces, mode, known, None, None);
        };
        // A run whose guess holds is a multi-prefix; accepted when its guess says so, else
        // its product, fed the events it is behind by, tells.
        let caught;
        let p = match &run.guess {
            None => p,
            Some(g) if g.accepted(&k) && !self.opts.check.witness => {
                let mut v = Verdict::new(VerdictKind::Pass);
                v.vertices = p.vertices() as u64;
                return v;
            }
            Some(_) => {
                let mut c = p.clone();
                // A run's end: one sweep over the region its events open (the pushes'
                // product, [`Product::advance`]), as wide as the budget allows.
                let swept = c.advance(
                    &k,
                    &run.traces,
                    &run.behind.to_vec(),
                    self.opts.max_vertices,
                    usize::MAX,
                );
                if swept.is_err() {
                    // The product cannot take the events its guess skipped: the run's traces
                    // are checked as `check` checks them (every event is a multi-prefix: the
                    // guess held).
                    return self.batch(scratch, &run.traces, mode, Known::All, None, None);
                }
                caught = c;
                &caught
            }
        };
        let accepted = p.is_accepted(&k);
        let prefix = if run.guess.is_some() {
            Ok(true)
        } else {
            p.is_multi_prefix(&k, &run.traces, self.opts.max_vertices)
        };
        let kind = match mode {
            Mode::Complete if accepted => VerdictKind::Pass,
            Mode::Complete => VerdictKind::Fail,
            Mode::Prefix => match prefix {
                Ok(false) => VerdictKind::Fail,
                Ok(true) if accepted => VerdictKind::Pass,
                Ok(true) => VerdictKind::WeakPass,
                Err(_) => {
                    return self.batch(scratch, &run.traces, mode, Known::Nothing, None, None)
                }
            },
        };
        let explained =
            records && kind == VerdictKind::WeakPass && self.opts.check.diagnosis.is_some();
        if kind == VerdictKind::Fail
            || (kind == VerdictKind::Pass && self.opts.check.witness)
            || explained
        {
            // The batch record: canonical diagnosis, the witness, or what a WeakPass's
            // locations could still do (once, when the run's record is written).
            let known = if kind == VerdictKind::Fail && mode == Mode::Prefix {
                // Not expected of an open run, but then its events are not a multi-prefix.
                Known::Nothing
            } else {
                known
            };
            // What each location could still do after the whole run: asked of the product.
            let guess = match &run.guess {
                Some(g) => Some(g.clone()),
                None => p.end_set().and_then(|e| Guess::from_end(&k, e)),
            };
            let mut end = EndProduct::new(
                k,
                p,
                guess,
                &run.traces,
                self.opts.max_vertices,
                self.verifiers(),
            );
            // The product decided the verdict; a Pass's witness needs the procedure's search.
            let established = (kind != VerdictKind::Pass).then_some(kind);
            let mut v = self.batch(
                scratch,
                &run.traces,
                mode,
                known,
                established,
                Some(&mut end),
            );
            if established.is_some() {
                v.vertices = p.vertices() as u64;
            }
            return v;
        }
        let mut v = Verdict::new(kind);
        v.vertices = p.vertices() as u64;
        v
    }

    /// The batch check of `traces` in `mode` (the same record as `check` gives), with what
    /// the run's checks already established (the diagnosis asks nothing below it;
    /// `established`: the verdict, when the product decided it, see
    /// [`Engine::check_letters_ending`](multitrace_check::Engine::check_letters_ending)).
    pub(super) fn batch(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        mode: Mode,
        known: Known,
        established: Option<VerdictKind>,
        end: Option<&mut dyn EndQueries>,
    ) -> Verdict {
        let opts = CheckOptions {
            mode,
            choice: Choice::Force(self.procedure()),
            ..self.opts.check
        };
        let mut cut: Vec<usize> = Vec::new();
        if known != Known::Nothing {
            cut.extend(traces.iter().map(Vec::len));
        }
        if let Known::AllBut(j) = known {
            cut[j] -= 1;
        }
        if cut.iter().all(|&n| n == 0) {
            // The empty cut was never checked (a model may accept nothing at all).
            cut.clear();
        }
        match self
            .engine
            .check_letters_ending(scratch, traces, &opts, &cut, established, end)
        {
            Ok((v, _)) => v,
            // Not expected (the traces are the model's letters by location, and the procedure
            // was resolved), but never a panic: the run is undecided, and says why.
            Err(e) => {
                let mut v = Verdict::new(VerdictKind::Inconclusive);
                v.reason = Some(Reason::Budget {
                    limit: "check refused".into(),
                    established: Some(e.to_string()),
                });
                v
            }
        }
    }
}
