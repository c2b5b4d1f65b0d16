//! Sessions on arrival orders that are arbitrary permutations of the events (issue 50), not
//! only interleavings that keep each location's order: event-time windows (and counts) below
//! the watermark, spans' parents, positions with gaps and doubles.
//!
//! The oracle is the batch check of each run's complete data. A run whose events all came
//! within what the arrival model assumes (computed from the arrival order: see each harness)
//! gets exactly that verdict, as its only record. Any other run gets that verdict too, or, as
//! `docs/guide/live-monitoring.md` ("Too late") promises, an `Error` record naming an event
//! that came after a larger key of its location, written before any verdict of the run, or a
//! Fail followed by one correction naming such an event: never a different definite verdict.

use super::*;
use crate::tests::{mqtt, random_events};
use crate::{Monitor, MonitorOptions};
use multitrace_formats::events::OrderKey;
use multitrace_model::nfa::{LetterId, LocationId};
use multitrace_model::rng::Rng;
use multitrace_model::verdict::VerdictKind;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// One event of a generated run: its run, letter, location and position in its local trace.
#[derive(Clone, Copy, Debug)]
struct Ev {
    run: usize,
    letter: LetterId,
    loc: usize,
    pos: usize,
}

/// `n` random runs of the MQTT model, about one in three with a letter replaced (to fail),
/// each in an order its model allows (a global order: each location's order kept).
fn runs(m: &Monitor<'_>, rng: &mut Rng, n: usize) -> Vec<Vec<Ev>> {
    let alphabet = &m.engine().model().alphabet;
    (0..n)
        .map(|run| {
            let steps = rng.between(0, 14);
            let mut letters = random_events(m.engine(), rng, steps);
            if !letters.is_empty() && rng.below(3) == 0 {
                let i = rng.below(letters.len());
                letters[i] = LetterId(rng.below(alphabet.len()) as u32);
            }
            let mut next = vec![0; alphabet.locations()];
            letters
                .into_iter()
                .map(|letter| {
                    let loc = alphabet.location(letter).index();
                    next[loc] += 1;
                    Ev {
                        run,
                        letter,
                        loc,
                        pos: next[loc] - 1,
                    }
                })
                .collect()
        })
        .collect()
}

/// The batch verdict of a run's complete data (`check`'s, with the monitor's options).
fn batch(m: &Monitor<'_>, run: &[Ev]) -> VerdictKind {
    let engine = m.engine();
    let mut traces = vec![Vec::new(); engine.model().alphabet.locations()];
    for e in run {
        traces[e.loc].push(e.letter);
    }
    let mut scratch = engine.scratch();
    let check = &m.options().check;
    engine
        .check_letters(&mut scratch, &traces, check)
        .unwrap()
        .0
        .kind
}

fn kind(d: &Decision) -> Option<VerdictKind> {
    d.verdict.as_ref().ok().map(|v| v.kind)
}

/// The records of a session's output by run number (ids `r0`, `r1`, ...), in write order.
fn by_run(out: Vec<Decision>) -> BTreeMap<usize, Vec<Decision>> {
    let mut by = BTreeMap::<usize, Vec<Decision>>::new();
    for d in out {
        by.entry(d.run[1..].parse().unwrap()).or_default().push(d);
    }
    by
}

/// How a run's records stood against its batch verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    /// Runs within the arrival model (their record is exact).
    on_model: usize,
    /// Runs outside it whose record is still the batch verdict.
    exact_anyway: usize,
    /// Runs outside it whose record is the `Error` of a late event.
    late: usize,
    /// Runs outside it with a Fail and its correction (`false_fails`: the batch verdict
    /// was not a Fail).
    corrected: usize,
    false_fails: usize,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.on_model += o.on_model;
        self.exact_anyway += o.exact_anyway;
        self.late += o.late;
        self.corrected += o.corrected;
        self.false_fails += o.false_fails;
    }
}

/// Judges run `run`'s records `have` against its batch verdict `want`: exact when it came
/// within the model (`on_model`), else exact, or the `Error` of an event that `late` says
/// came after a larger key of its location (named by the record's `at`), written first, or
/// a Fail then one correction naming such an event.
fn judge(
    run: usize,
    have: &[Decision],
    want: VerdictKind,
    on_model: bool,
    late: impl Fn(&str) -> bool,
) -> Result<Tally, String> {
    let say = |what: &str| Err(format!("run r{run} ({want:?}, {what}): {have:#?}"));
    let exact = have.len() == 1 && kind(&have[0]) == Some(want);
    if on_model {
        return if exact {
            Ok(Tally {
                on_model: 1,
                ..Tally::default()
            })
        } else {
            say("within the arrival model: its batch verdict only")
        };
    }
    if exact {
        return Ok(Tally {
            exact_anyway: 1,
            ..Tally::default()
        });
    }
    let names_late = |d: &Decision| d.at.as_deref().is_some_and(&late);
    match have {
        [d] if d.verdict.is_err() => {
            let message = &d.verdict.as_ref().unwrap_err().message;
            if !message.contains("later than the reorder window allows") || !names_late(d) {
                return say("an Error that does not name a late event");
            }
            Ok(Tally {
                late: 1,
                ..Tally::default()
            })
        }
        [f, c] if kind(f) == Some(VerdictKind::Fail) && c.verdict.is_err() => {
            let message = &c.verdict.as_ref().unwrap_err().message;
            if !message.contains("correction of run") || !names_late(c) {
                return say("a Fail and an Error that is not its correction");
            }
            Ok(Tally {
                corrected: 1,
                false_fails: usize::from(want != VerdictKind::Fail),
                ..Tally::default()
            })
        }
        _ => say("neither its verdict, nor a late event's Error, nor a Fail corrected"),
    }
}

/// An arrival of a timed case: the event, its timestamp (nanoseconds) and its arrival's wall
/// time (the caller's clock).
#[derive(Clone, Copy, Debug)]
struct Timed {
    ev: Ev,
    t: i128,
    wall: u64,
}

/// One case of the event-time harness.
#[derive(Clone, Copy, Debug)]
struct TimedCase {
    seed: u64,
    runs: usize,
    /// Largest gap between two timestamps of a location, less one (nanoseconds).
    gap: usize,
    /// The arrival model: `Span(window)` or `Events(n)`, `Unbounded`, `Auto(0)`.
    reorder: Reorder,
    /// With `Some(d)`: each event arrives at its timestamp plus a delay of at most `d` (and
    /// so at most `d` after any event of a later timestamp); `None`: a random permutation.
    lateness: Option<u64>,
    /// [`SessionOptions::idleness`] (nanoseconds).
    idleness: Option<u64>,
    /// Call [`Session::advance`] before each arrival at a wall time since the last one.
    advance: bool,
}

/// The events of `c.runs` runs, each location's timestamps increasing (from a base of its
/// run, gaps of 1 to `c.gap + 1`, locations skewed freely), in arrival order.
fn timed_arrivals(m: &Monitor<'_>, rng: &mut Rng, c: &TimedCase) -> (Vec<Vec<Ev>>, Vec<Timed>) {
    let runs = runs(m, rng, c.runs);
    let locations = m.engine().model().alphabet.locations();
    let mut all: Vec<Timed> = Vec::new();
    for run in &runs {
        let mut clock: Vec<i128> = (0..locations).map(|_| rng.below(60) as i128).collect();
        for e in run {
            clock[e.loc] += 1 + rng.below(c.gap + 1) as i128;
            let t = clock[e.loc];
            all.push(Timed { ev: *e, t, wall: 0 });
        }
    }
    match c.lateness {
        Some(d) => {
            // Delays of 0 and of `d` often: the bounds themselves.
            let mut keyed: Vec<(u64, u64, Timed)> = all
                .into_iter()
                .map(|mut a| {
                    let delay = match rng.below(4) {
                        0 => 0,
                        1 => d,
                        _ => rng.below(d as usize + 1) as u64,
                    };
                    a.wall = a.t as u64 + delay;
                    (a.wall, rng.next_u64(), a)
                })
                .collect();
            keyed.sort_by_key(|k| (k.0, k.1));
            all = keyed.into_iter().map(|k| k.2).collect();
        }
        None => {
            rng.shuffle(&mut all);
            // The wall clock runs on, and no event arrives before its timestamp.
            let mut wall = 0;
            for a in &mut all {
                wall = wall.max(a.t as u64) + rng.below(3) as u64;
                a.wall = wall;
            }
        }
    }
    (runs, all)
}

/// The event-time harness: feeds a case's arrivals (advancing the watermark between them
/// when asked), ends the runs, and judges every run. A run is within the model when each
/// of its events `e` came (a) after no event of its location more than the window newer
/// (`Span`) or after at most `n` events of its location with larger keys (`Events(n)`),
/// and (b) after no advance whose watermark passed `e`'s timestamp.
fn timed_case(c: TimedCase) -> Result<Tally, String> {
    let engine = mqtt();
    let m = Monitor::new(&engine, MonitorOptions::default()).unwrap();
    let mut rng = Rng::new(c.seed);
    let (runs, arrivals) = timed_arrivals(&m, &mut rng, &c);
    let opts = SessionOptions {
        reorder: c.reorder,
        idleness: c.idleness.map(std::time::Duration::from_nanos),
        ..SessionOptions::default()
    };
    let mut s = Session::new(opts);
    let mut scratch = engine.scratch();
    let mut out = Vec::new();
    let mut on_model = vec![true; runs.len()];
    let (mut last_wall, mut mark) = (0u64, None::<i128>);
    // The event clock (the largest timestamp seen) and the wall time it last moved at.
    let mut clock: Option<(i128, u64)> = None;
    for (i, a) in arrivals.iter().enumerate() {
        if c.advance {
            let now = last_wall + rng.below((a.wall - last_wall) as usize + 1) as u64;
            let w = s.watermark(now);
            if let (Reorder::Span(window), Some((t, at))) = (c.reorder, clock) {
                // The guide's watermark: the event clock, moved by the wall time past the
                // idleness (default: the window) since it last moved, less the window.
                let idle = c.idleness.unwrap_or(window);
                let moved = now.saturating_sub(at).saturating_sub(idle);
                let want = t + i128::from(moved) - i128::from(window);
                if w != Some(want) {
                    return Err(format!("watermark {w:?} at {now}, not {want}"));
                }
            }
            if let Some(w) = w {
                mark = Some(mark.map_or(w, |k| k.max(w)));
            }
            s.advance(&m, &mut scratch, now, &mut out);
        }
        let before = arrivals[..i]
            .iter()
            .filter(|b| b.ev.run == a.ev.run && b.ev.loc == a.ev.loc);
        let within = match c.reorder {
            Reorder::Span(w) => before.clone().all(|b| b.t <= a.t + i128::from(w)),
            Reorder::Events(n) => before.clone().filter(|b| b.t > a.t).count() <= n,
            _ => true,
        };
        let below = !matches!(c.reorder, Reorder::Span(_)) || mark.is_none_or(|k| k <= a.t);
        on_model[a.ev.run] &= within && below;
        let run = format!("r{}", a.ev.run);
        let ev = LiveEvent {
            run: &run,
            letter: a.ev.letter,
            key: OrderKey::Time(a.t),
            at: At::Line {
                file: "events",
                line: i as u32 + 1,
            },
            wall: a.wall,
            end: false,
        };
        s.push(&m, &mut scratch, ev, &mut out);
        if clock.is_none_or(|(t, _)| a.t > t) {
            clock = Some((a.t, a.wall));
        }
        last_wall = a.wall;
    }
    if c.advance {
        // Past the window and the idleness: everything held goes before the end.
        s.advance(&m, &mut scratch, last_wall + (1 << 40), &mut out);
    }
    s.close_all(&m, &mut scratch, Closed::EndOfInput, &mut out);
    if let (Some(_), Reorder::Span(_)) = (c.lateness, c.reorder) {
        // Bounded lateness within the window is within the model, idleness or not.
        if let Some(r) = on_model.iter().position(|&x| !x) {
            return Err(format!(
                "run r{r}: lateness within the window, yet off the model"
            ));
        }
    }
    let late = |at: &str| {
        let i: usize = at.strip_prefix("events:").unwrap().parse().unwrap();
        let a = &arrivals[i - 1];
        arrivals[..i - 1]
            .iter()
            .any(|b| b.ev.run == a.ev.run && b.ev.loc == a.ev.loc && b.t > a.t)
    };
    let got = by_run(out);
    let mut tally = Tally::default();
    for (r, run) in runs.iter().enumerate() {
        let Some(have) = got.get(&r) else {
            if run.is_empty() {
                continue;
            }
            return Err(format!("run r{r}: no record"));
        };
        tally.add(judge(r, have, batch(&m, run), on_model[r], late)?);
    }
    Ok(tally)
}

fn timed_strategy(bounded: bool) -> impl Strategy<Value = TimedCase> {
    (
        any::<u64>(),
        1usize..7,
        0usize..12,
        prop_oneof![
            4 => (0u64..40).prop_map(Reorder::Span),
            1 => (0usize..4).prop_map(Reorder::Events),
            1 => Just(Reorder::Unbounded),
            1 => Just(Reorder::Auto(0)),
        ],
        0u64..=100,
        prop::option::of(0u64..30),
        any::<bool>(),
    )
        .prop_map(
            move |(seed, runs, gap, reorder, d, idleness, advance)| TimedCase {
                seed,
                runs,
                gap,
                reorder,
                // Bounded: within the window (0..=window), else within a few gaps.
                lateness: bounded.then(|| match reorder {
                    Reorder::Span(w) => d * w / 100,
                    _ => d % 20,
                }),
                idleness,
                advance,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Event-time windows on arrivals of bounded lateness: each event arrives at most `d`
    /// after its timestamp, so at most `d` after any event with a later one; within the
    /// window (`d` at most the window) every run gets its batch verdict, with the watermark
    /// advanced between arrivals, its idleness moving it with the wall clock.
    #[test]
    fn time_windows_on_bounded_lateness(c in timed_strategy(true)) {
        timed_case(c).map_err(TestCaseError::fail)?;
    }

    /// Event-time windows (and counts) on random permutations of all events: runs within the
    /// window get their batch verdict, the others it too, or a late event's Error first, or
    /// a Fail and its correction.
    #[test]
    fn time_windows_on_any_arrival_order(c in timed_strategy(false)) {
        timed_case(c).map_err(TestCaseError::fail)?;
    }
}

/// The harnesses show something: on fixed seeds, permutations put runs off the model, whose
/// late events give Errors and corrections, and Fails that the complete data contradicts
/// are written (then corrected).
#[test]
fn permutations_put_runs_off_the_model_and_say_so() {
    let mut timed = Tally::default();
    for seed in 0..60 {
        let c = TimedCase {
            seed,
            runs: 6,
            gap: 4,
            reorder: [Reorder::Span(6), Reorder::Events(1), Reorder::Span(0)][seed as usize % 3],
            lateness: None,
            idleness: [None, Some(3)][seed as usize % 2],
            advance: seed % 4 < 2,
        };
        timed.add(timed_case(c).unwrap());
    }
    assert!(
        timed.on_model > 60 && timed.late > 5 && timed.corrected > 40 && timed.false_fails > 20,
        "{timed:?}"
    );
    let mut spans = Tally::default();
    for seed in 0..60 {
        let reorder = [Reorder::Events(0), Reorder::Span(3)][seed as usize % 2];
        spans.add(span_case(seed, 6, reorder, seed % 3 == 0).unwrap());
    }
    assert!(
        spans.on_model > 100 && spans.late > 2 && spans.corrected > 30 && spans.false_fails > 10,
        "{spans:?}"
    );
}

/// A span of a generated run: its service (location), id, parent (and whether the parent is
/// in its own service: a `CLIENT` span's is, a `SERVER` span's is its caller's), its events
/// (letter, timestamp) and its end time.
#[derive(Clone, Debug)]
struct SpanOf {
    run: usize,
    loc: usize,
    id: String,
    parent: Option<String>,
    local: bool,
    events: Vec<Ev>,
    end: i128,
}

/// A timestamp of an event: twice its position (a span ends between two events).
fn stamp(e: &Ev) -> i128 {
    2 * e.pos as i128
}

/// The spans of a run's local traces: each location's trace in segments, each a `SERVER`
/// span (the first event, its start, and now and then the last, its end: the reply) that
/// encloses `CLIENT` spans of one or two events (emission, reception of the reply), or root
/// `CLIENT` spans without a parent.
fn spans_of(rng: &mut Rng, run: &[Ev], locations: usize) -> Vec<SpanOf> {
    let mut spans = Vec::new();
    for loc in 0..locations {
        let own: Vec<Ev> = run.iter().filter(|e| e.loc == loc).copied().collect();
        let mut k = 0;
        while k < own.len() {
            let r = own[k].run;
            let id = |i: usize| format!("r{r}-{loc}-{i}");
            let client = |from: usize, events: &[Ev], parent: Option<String>| SpanOf {
                run: r,
                loc,
                id: id(from),
                parent,
                local: true,
                events: events.to_vec(),
                end: stamp(events.last().unwrap()) + 1,
            };
            if rng.below(4) == 0 {
                let len = 1 + rng.below(2.min(own.len() - k));
                spans.push(client(k, &own[k..k + len], None));
                k += len;
                continue;
            }
            let len = 1 + rng.below(own.len() - k);
            let seg = &own[k..k + len];
            let reply = len > 1 && rng.below(2) == 0;
            let inner = &seg[1..len - usize::from(reply)];
            let mut i = 0;
            while i < inner.len() {
                let n = 1 + rng.below(2.min(inner.len() - i));
                spans.push(client(k + 1 + i, &inner[i..i + n], Some(id(k))));
                i += n;
            }
            let mut events = vec![seg[0]];
            events.extend(reply.then(|| seg[len - 1]));
            spans.push(SpanOf {
                run: r,
                loc,
                id: id(k),
                parent: (rng.below(2) == 0).then(|| format!("r{r}-caller-{k}")),
                local: false,
                events,
                end: stamp(seg.last().unwrap()) + 1,
            });
            k += len;
        }
    }
    spans
}

/// The spans' harness: `runs` runs exported by services, in the order their spans end, the
/// services and runs interleaved at random (`exporters`), or all spans in a random
/// permutation; each span a line (its id and parent, its events, then the locations that
/// wait no more are unblocked). A run whose every service's spans came in the order they end
/// is within the model.
fn span_case(seed: u64, runs_n: usize, reorder: Reorder, exporters: bool) -> Result<Tally, String> {
    let engine = mqtt();
    let m = Monitor::new(&engine, MonitorOptions::default()).unwrap();
    let mut rng = Rng::new(seed);
    let locations = engine.model().alphabet.locations();
    let runs = runs(&m, &mut rng, runs_n);
    let mut queues: Vec<Vec<SpanOf>> = Vec::new();
    for run in &runs {
        let spans = spans_of(&mut rng, run, locations);
        for loc in 0..locations {
            let mut q: Vec<SpanOf> = spans.iter().filter(|s| s.loc == loc).cloned().collect();
            q.sort_by_key(|s| s.end);
            if !q.is_empty() {
                queues.push(q);
            }
        }
    }
    let mut lines: Vec<SpanOf> = Vec::new();
    if exporters {
        let mut heads = vec![0; queues.len()];
        while let Some(q) = {
            let open: Vec<usize> = (0..queues.len())
                .filter(|&q| heads[q] < queues[q].len())
                .collect();
            rng.pick(&open).copied()
        } {
            lines.push(queues[q][heads[q]].clone());
            heads[q] += 1;
        }
    } else {
        lines = queues.into_iter().flatten().collect();
        rng.shuffle(&mut lines);
    }
    let mut on_model = vec![true; runs.len()];
    let mut s = Session::new(SessionOptions {
        reorder,
        ..SessionOptions::default()
    });
    let mut scratch = engine.scratch();
    let mut out = Vec::new();
    let mut fed: Vec<Ev> = Vec::new();
    for (n, span) in lines.iter().enumerate() {
        let ended_later = lines[..n]
            .iter()
            .any(|b| b.run == span.run && b.loc == span.loc && b.end > span.end);
        on_model[span.run] &= !ended_later;
        let run = format!("r{}", span.run);
        let line = format!("spans.jsonl:{}", n + 1);
        let location = Some(LocationId(span.loc as u32));
        let parent = span.parent.as_deref();
        s.span(
            &m,
            &mut scratch,
            &run,
            &line,
            &span.id,
            parent,
            span.local,
            location,
            &mut out,
        );
        for e in &span.events {
            fed.push(*e);
            let at = format!("event:{}", fed.len());
            let ev = LiveEvent {
                run: &run,
                letter: e.letter,
                key: OrderKey::Time(stamp(e)),
                at: At::Text(&at),
                wall: 0,
                end: false,
            };
            s.push(&m, &mut scratch, ev, &mut out);
        }
        s.unblock(&m, &mut scratch, &run, &mut out);
    }
    s.close_all(&m, &mut scratch, Closed::EndOfInput, &mut out);
    let late = |at: &str| {
        let i: usize = at.strip_prefix("event:").unwrap().parse().unwrap();
        let a = &fed[i - 1];
        fed[..i - 1]
            .iter()
            .any(|b| b.run == a.run && b.loc == a.loc && b.pos > a.pos)
    };
    let got = by_run(out);
    let mut tally = Tally::default();
    for (r, run) in runs.iter().enumerate() {
        let Some(have) = got.get(&r) else {
            if run.is_empty() {
                continue;
            }
            return Err(format!("run r{r}: no record"));
        };
        tally.add(judge(r, have, batch(&m, run), on_model[r], late)?);
    }
    if exporters && tally.on_model != tally_runs(&runs) {
        return Err(format!(
            "exporters' order, yet runs off the model: {tally:?}"
        ));
    }
    Ok(tally)
}

/// The runs with events.
fn tally_runs(runs: &[Vec<Ev>]) -> usize {
    runs.iter().filter(|r| !r.is_empty()).count()
}

fn reorder_with_parents() -> impl Strategy<Value = Reorder> {
    prop_oneof![
        3 => Just(Reorder::Events(0)),
        1 => (0u64..8).prop_map(Reorder::Span),
        1 => Just(Reorder::Unbounded),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Spans' parents: a service's `SERVER` span, exported after the `CLIENT` spans it
    /// encloses, holds them until it comes; in the order the services export (spans in the
    /// order they end) every run gets its batch verdict, alone or with a reorder window.
    #[test]
    fn parents_on_exporters_order(seed in any::<u64>(), runs in 1usize..7,
                                  reorder in reorder_with_parents()) {
        span_case(seed, runs, reorder, true).map_err(TestCaseError::fail)?;
    }

    /// Spans' parents on a random permutation of all spans (a parent after its children, a
    /// service's spans out of the order they end): the runs whose services kept that order
    /// get their batch verdict; the others it too, or a late event's Error, or a Fail and
    /// its correction.
    #[test]
    fn parents_on_any_arrival_order(seed in any::<u64>(), runs in 1usize..7,
                                    reorder in reorder_with_parents()) {
        span_case(seed, runs, reorder, false).map_err(TestCaseError::fail)?;
    }
}

/// The positions' harness: `runs` runs keyed by position from `first`, each event lost with
/// probability `lost_in / 16` and doubled with `doubled_in / 16`, all arrivals in a random
/// permutation (fed unchecked, checked every few events). Each run's record: with no event
/// lost or doubled, its batch verdict; with events lost, the verdict of its events before the
/// first gap of each location when that is a Fail, else an `Error` naming the first missing
/// position of every location holding later events, else (gaps only at the ends of local
/// traces) the verdict of the events that came; a doubled event may instead give the `Error`
/// of a position that came twice, naming its second arrival.
fn positions_case(
    seed: u64,
    runs_n: usize,
    first: i64,
    auto: bool,
    lost_in: usize,
    doubled_in: usize,
) -> Result<(), String> {
    let engine = mqtt();
    let m = Monitor::new(&engine, MonitorOptions::default()).unwrap();
    let alphabet = &engine.model().alphabet;
    let mut rng = Rng::new(seed);
    let runs = runs(&m, &mut rng, runs_n);
    let (mut arrivals, mut lost, mut doubled) = (Vec::new(), Vec::new(), Vec::new());
    for e in runs.iter().flatten() {
        if rng.below(16) < lost_in {
            lost.push(*e);
            continue;
        }
        arrivals.push(*e);
        if rng.below(16) < doubled_in {
            arrivals.push(*e);
            doubled.push(*e);
        }
    }
    rng.shuffle(&mut arrivals);
    let reorder = if auto {
        Reorder::Auto(first)
    } else {
        Reorder::Positions(first)
    };
    let mut s = Session::new(SessionOptions {
        reorder,
        ..SessionOptions::default()
    });
    let mut scratch = engine.scratch();
    let mut out = Vec::new();
    for (n, e) in arrivals.iter().enumerate() {
        let run = format!("r{}", e.run);
        let ev = LiveEvent {
            run: &run,
            letter: e.letter,
            key: OrderKey::Int(e.pos as i128 + i128::from(first)),
            at: At::Line {
                file: "events",
                line: n as u32 + 1,
            },
            wall: 0,
            end: false,
        };
        s.push_deferred(&m, &mut scratch, ev, &mut out);
        if rng.below(5) == 0 {
            s.settle(&m, &mut scratch, &mut out);
        }
    }
    s.settle(&m, &mut scratch, &mut out);
    s.close_all(&m, &mut scratch, Closed::EndOfInput, &mut out);
    let got = by_run(out);
    for (r, run) in runs.iter().enumerate() {
        let came: Vec<&Ev> = arrivals.iter().filter(|e| e.run == r).collect();
        let Some(have) = got.get(&r) else {
            if came.is_empty() {
                continue;
            }
            return Err(format!("run r{r}: no record"));
        };
        let say = |what: String| Err(format!("run r{r}: {what}: {have:#?}"));
        if have.len() != 1 {
            return say("one record".into());
        }
        let d = &have[0];
        if let Err(e) = &d.verdict {
            if e.message.contains("came twice") {
                let line = d.at.as_deref().and_then(|a| a.strip_prefix("events:"));
                let i: usize = line.unwrap().parse().unwrap();
                let a = arrivals[i - 1];
                let twice = doubled
                    .iter()
                    .any(|b| (b.run, b.loc, b.pos) == (r, a.loc, a.pos));
                let again = arrivals[..i - 1]
                    .iter()
                    .any(|b| (b.run, b.loc, b.pos) == (r, a.loc, a.pos));
                if twice && again {
                    continue;
                }
                return say("a double named that is not one".into());
            }
        }
        // The first lost position of each location, and the events before it.
        let gap = |loc: usize| {
            lost.iter()
                .filter(|e| e.run == r && e.loc == loc)
                .map(|e| e.pos)
                .min()
        };
        let before: Vec<Ev> = run
            .iter()
            .filter(|e| gap(e.loc).is_none_or(|g| e.pos < g))
            .copied()
            .collect();
        let want = batch(&m, &before);
        let held: Vec<String> = (0..alphabet.locations())
            .filter_map(|loc| {
                let g = gap(loc)?;
                came.iter().any(|e| e.loc == loc && e.pos > g).then(|| {
                    let name = alphabet.location_name(LocationId(loc as u32));
                    format!(
                        "position {} of location {name} never came",
                        g as i64 + first
                    )
                })
            })
            .collect();
        // A Fail certain whatever fills a gap: an event held past it can never come after
        // the events before it ([`super::reorder::feed_if_refused`]).
        let certain = {
            let mut lr = m.start();
            let mut scratch = engine.scratch();
            for e in &before {
                m.push(&mut scratch, &mut lr, e.letter);
            }
            (0..alphabet.locations()).any(|loc| {
                let Some(g) = gap(loc) else { return false };
                // (Any of them: each may have been the first held when it came.)
                came.iter()
                    .filter(|e| e.loc == loc && e.pos > g)
                    .any(|e| m.never_reads(&lr, e.letter))
            })
        };
        match &d.verdict {
            Ok(v) if v.kind == want && (want == VerdictKind::Fail || held.is_empty()) => {}
            Ok(v) if v.kind == VerdictKind::Fail && certain => {}
            Err(e) if want != VerdictKind::Fail && !held.is_empty() => {
                let named = e.message.matches("never came").count();
                if named != held.len() || !held.iter().all(|h| e.message.contains(h)) {
                    return say(format!("an Error naming {held:?}"));
                }
            }
            _ => return say(format!("{want:?} on the events before the gaps {held:?}")),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Positions (and `Auto` on integer keys) from 0 or 1 on random permutations with
    /// events lost (gaps that never fill) and doubled.
    #[test]
    fn positions_with_gaps_and_doubles_on_any_arrival_order(
        seed in any::<u64>(), runs in 1usize..7, first in 0i64..2, auto in any::<bool>(),
        lost_in in prop_oneof![Just(0usize), 0usize..5], doubled_in in prop_oneof![Just(0usize), 0usize..3],
    ) {
        positions_case(seed, runs, first, auto, lost_in, doubled_in).map_err(TestCaseError::fail)?;
    }
}
