//! The live engine against the batch check: after every event of random runs (walks of the
//! model's automaton, mutated, fed in random orders), on the MQTT model, for every procedure.

use super::*;
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_model::artifact::decode;
use multitrace_model::nfa::LetterId;
use multitrace_model::rng::Rng;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, VerdictKind};

/// Held by a test that starts a child process and by one that checks a lock is released
/// when its file is closed: a child forked from another thread holds a copy of every
/// open descriptor until it execs, so the lock would seem held a moment longer.
pub(crate) static SPAWNING: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn mqtt() -> Engine {
    Engine::new(decode(include_bytes!("../../fixtures/golden/seed004-mqtt.v2.mtm")).unwrap())
}

/// A random run of the model (see [`multitrace_model::testdata::random_events`]).
pub(crate) fn random_events(engine: &Engine, rng: &mut Rng, steps: usize) -> Vec<LetterId> {
    multitrace_model::testdata::random_events(engine.model(), rng, steps)
}

/// A verdict as its record has it: without the procedure's and the diagnosis's search work,
/// which the monitor spares (its product decided the verdict, and it knows which cuts its
/// checks found consistent; see [`Engine::check_letters_ending`]).
fn as_recorded(v: &multitrace_model::verdict::Verdict) -> multitrace_model::verdict::Verdict {
    let mut v = v.clone();
    v.vertices = 0;
    if let Some(d) = &mut v.diagnosis {
        d.vertices = 0;
    }
    v
}

fn opts(p: Procedure, mode: Mode) -> MonitorOptions {
    MonitorOptions {
        check: CheckOptions {
            mode,
            choice: Choice::Force(p),
            ..CheckOptions::default()
        },
        ..MonitorOptions::default()
    }
}

#[test]
fn every_prefix_has_the_batch_verdict() {
    let engine = mqtt();
    let mut scratch = engine.scratch();
    let mut rng = Rng::new(7);
    let mut fails = 0;
    for case in 0..300 {
        let steps = rng.between(0, 30);
        let events = random_events(&engine, &mut rng, steps);
        let p = [Procedure::Ac, Procedure::As, Procedure::Term][case % 3];
        for mode in [Mode::Prefix, Mode::Complete] {
            let m = Monitor::new(&engine, opts(p, mode)).unwrap();
            let batch =
                |traces: &[Vec<LetterId>], mode: Mode, s: &mut multitrace_check::Scratch| {
                    let o = CheckOptions {
                        mode,
                        choice: Choice::Force(p),
                        ..CheckOptions::default()
                    };
                    engine.check_letters(s, traces, &o).unwrap().0
                };
            let mut run = m.start();
            let mut traces = vec![Vec::new(); engine.model().alphabet.locations()];
            let mut decided = None;
            for (i, &a) in events.iter().enumerate() {
                traces[engine.model().alphabet.location(a).index()].push(a);
                let got = m.push(&mut scratch, &mut run, a);
                let want = batch(&traces, Mode::Prefix, &mut scratch);
                if decided.is_none() {
                    assert_eq!(
                        m.verdict_now(&mut scratch, &run),
                        want.kind,
                        "{p:?} {events:?} after {}",
                        i + 1
                    );
                    if want.kind == VerdictKind::Fail {
                        // Reported at this event, as the batch record.
                        assert_eq!(
                            got.as_ref().map(as_recorded),
                            Some(as_recorded(&want)),
                            "{p:?} {events:?}"
                        );
                        decided = Some(i);
                        fails += 1;
                    } else {
                        assert!(got.is_none());
                    }
                } else {
                    // Once a Fail, always one (the batch agrees: prefix closure).
                    assert_eq!(want.kind, VerdictKind::Fail);
                    assert!(got.is_none());
                }
            }
            if decided.is_none() {
                let end = m.finish(&mut scratch, &run);
                let want = batch(&traces, mode, &mut scratch);
                assert_eq!(end.kind, want.kind, "{p:?} {mode:?} {events:?}");
                if end.kind == VerdictKind::Fail {
                    assert_eq!(as_recorded(&end), as_recorded(&want));
                }
            }
        }
    }
    assert!(fails > 50, "{fails}");
}

#[test]
fn state_bytes_round_trip_mid_run() {
    let engine = mqtt();
    let mut scratch = engine.scratch();
    let mut rng = Rng::new(3);
    let m = Monitor::new(&engine, MonitorOptions::default()).unwrap();
    for _ in 0..50 {
        let events = random_events(&engine, &mut rng, 20);
        let cut = rng.below(events.len() + 1);
        let (mut a, mut b) = (m.start(), m.start());
        for &e in &events[..cut] {
            m.push(&mut scratch, &mut a, e);
        }
        let mut restored = LiveRun::from_bytes(&a.to_bytes()).unwrap();
        assert_eq!(restored, a);
        for &e in &events[cut..] {
            let x = m.push(&mut scratch, &mut restored, e);
            let y = m.push(&mut scratch, &mut a, e);
            assert_eq!(x, y);
        }
        for &e in &events {
            m.push(&mut scratch, &mut b, e);
        }
        assert_eq!(restored, b);
        assert!(b.bytes() < 4096, "{}", b.bytes());
    }
    assert!(LiveRun::from_bytes(b"junk").is_err());
}

/// A location that lags far behind grows its face past the budget: the run is then checked
/// from its traces, never `Inconclusive` for the product's sake: open while its events are a
/// multi-prefix, its end the batch verdict, and a Fail (a local verifier's, or the batch's at
/// doubling event counts) says since when it may be late, naming the location.
#[test]
fn a_lagging_location_is_checked_from_its_traces() {
    let engine = mqtt();
    let mut scratch = engine.scratch();
    let m = Monitor::new(
        &engine,
        MonitorOptions {
            max_vertices: 8,
            ..MonitorOptions::default()
        },
    )
    .unwrap();
    let a = &engine.model().alphabet;
    let letter = |n: &str| LetterId(a.names().iter().position(|x| x == n).unwrap() as u32);
    let batch = |traces: &[Vec<LetterId>], mode, s: &mut multitrace_check::Scratch| {
        let o = CheckOptions {
            mode,
            choice: Choice::Force(m.procedure()),
            ..CheckOptions::default()
        };
        as_recorded(&engine.check_letters(s, traces, &o).unwrap().0)
    };
    // clt1 publishes many times; brok receives nothing yet.
    let mut run = m.start();
    for e in std::iter::once("clt1!begin").chain(std::iter::repeat_n("clt1!pub", 40)) {
        assert_eq!(m.push(&mut scratch, &mut run, letter(e)), None, "{e}");
    }
    // The product outgrew 8 vertices, or (it stays within them but the multi-prefix searches
    // do not) a search ran out.
    let late = run.late().expect("since when a Fail may be late");
    assert!(late.since > 1 && late.since <= 41, "{late:?}");
    let note = late.note(engine.model().alphabet.location_names());
    match late.why {
        late::LateWhy::Product(_) => {
            assert!(m.overflowed(&run));
            assert!(note.why.contains("location clt"), "{}", note.why);
        }
        late::LateWhy::Search => assert!(note.why.contains("search"), "{}", note.why),
    }
    for mode in [Mode::Prefix, Mode::Complete] {
        let mut o = *m.options();
        o.check.mode = mode;
        let mm = Monitor::new(&engine, o).unwrap();
        assert_eq!(
            as_recorded(&mm.finish(&mut scratch, &run)),
            batch(run.traces(), mode, &mut scratch)
        );
    }
    // An event its local verifier refuses is the Fail at once, the batch record of the prefix.
    let mut refused = run.clone();
    let v = m
        .push(&mut scratch, &mut refused, letter("clt1!begin"))
        .expect("a second begin is refused");
    let mut traces = run.traces().to_vec();
    traces[a.location(letter("clt1!begin")).index()].push(letter("clt1!begin"));
    assert_eq!(as_recorded(&v), batch(&traces, Mode::Prefix, &mut scratch));
    assert_eq!(refused.late(), Some(late));
}

/// Deferred checks ([`session::Session::push_deferred`], settled at random points) give the
/// decisions of checking every event ([`session::Session::push`]): the same records, decided
/// at the same events, for AC, AS (term exploration checks at once either way) and a small
/// product budget (Inconclusive runs).
#[test]
fn deferred_checks_decide_as_every_event_does() {
    use session::{Closed, Decision, LiveEvent, Session, SessionOptions};
    let engine = mqtt();
    let mut scratch = engine.scratch();
    let mut rng = Rng::new(11);
    let mut decided = 0;
    let mut capped = 0;
    for case in 0..60 {
        // A quarter of the cases: one round, and runs checked whenever their unchecked events
        // reach a small bound, not at the end of the round.
        let long = case % 4 == 3;
        let bound = if long { 1 + rng.below(6) } else { 32 };
        let p = [Procedure::Ac, Procedure::As][case % 2];
        let mut o = opts(p, [Mode::Prefix, Mode::Complete][case % 3 % 2]);
        if case % 5 == 0 {
            o.max_vertices = 6;
        }
        let m = Monitor::new(&engine, o).unwrap();
        // Runs interleaved at random.
        let mut queues: Vec<(String, Vec<LetterId>)> = (0..8)
            .map(|r| {
                let steps = rng.between(0, 30);
                (format!("r{r}"), random_events(&engine, &mut rng, steps))
            })
            .collect();
        let mut stream = Vec::new();
        while queues.iter().any(|q| !q.1.is_empty()) {
            let live: Vec<usize> = (0..queues.len())
                .filter(|&i| !queues[i].1.is_empty())
                .collect();
            let i = live[rng.below(live.len())];
            let a = queues[i].1.remove(0);
            stream.push((queues[i].0.clone(), a));
        }
        let (mut now, mut later) = (
            Session::new(SessionOptions::default()),
            Session::new(SessionOptions {
                max_unchecked: bound,
                ..SessionOptions::default()
            }),
        );
        let (mut a, mut b): (Vec<Decision>, Vec<Decision>) = (Vec::new(), Vec::new());
        let mut round = 0;
        for (n, (run, letter)) in stream.iter().enumerate() {
            let at = format!("f:{}", n + 1);
            let ev = LiveEvent {
                run,
                letter: *letter,
                key: multitrace_formats::events::OrderKey::Int(n as i128),
                at: session::At::Text(&at),
                wall: 0,
                end: false,
            };
            now.push(&m, &mut scratch, ev, &mut a);
            // The same place as a file's line: the same records.
            let line = session::At::Line {
                file: "f",
                line: n as u32 + 1,
            };
            later.push_deferred(&m, &mut scratch, LiveEvent { at: line, ..ev }, &mut b);
            if !long && rng.below(6) == 0 {
                later.settle(&m, &mut scratch, &mut b);
                // A round's decisions (some at once, some when settled) in arrival order, as
                // `monitor` writes them.
                b[round..].sort_by_key(|d| d.arrival);
                round = b.len();
            }
        }
        later.settle(&m, &mut scratch, &mut b);
        now.close_all(&m, &mut scratch, Closed::EndOfInput, &mut a);
        later.close_all(&m, &mut scratch, Closed::EndOfInput, &mut b);
        b[round..].sort_by_key(|d| d.arrival);
        // The same decisions in the same order (the order of their deciding events), every
        // field compared, `state_bytes` and the arrival number too, but the diagnosis's own
        // search work (not in the record: a Fail found by a replay's bisection asks the
        // product before its event, one found event by event asks AC).
        let key = |d: &Decision| {
            let mut d = d.clone();
            if let Ok(Some(g)) = d.verdict.as_mut().map(|v| v.diagnosis.as_mut()) {
                g.vertices = 0;
            }
            (d.run.clone(), format!("{d:?}"))
        };
        let x: Vec<_> = a.iter().map(key).collect();
        let y: Vec<_> = b.iter().map(key).collect();
        decided += a.iter().filter(|d| d.closed == Closed::Decided).count();
        for (x, y) in x.iter().zip(&y) {
            assert_eq!(
                x,
                y,
                "{p:?} case {case}: {:?} vs {:?}",
                a.iter()
                    .map(|d| (&d.run, d.arrival, &d.at))
                    .collect::<Vec<_>>(),
                b.iter()
                    .map(|d| (&d.run, d.arrival, &d.at))
                    .collect::<Vec<_>>()
            );
        }
        assert_eq!(a.len(), b.len());
        if long {
            // Runs still open after more unchecked events than the bound (checked early).
            capped += a
                .iter()
                .filter(|d| {
                    let before = stream
                        .iter()
                        .enumerate()
                        .filter(|(n, (r, _))| *r == d.run && (*n as u64) < d.arrival)
                        .count();
                    before > bound
                })
                .count();
        }
    }
    assert!(decided > 50, "{decided}");
    assert!(capped > 10, "{capped}");
}

/// A run that ends as a WeakPass gets the batch check's record: its complete-mode diagnosis
/// (what each location could still do), as `check` writes it, for AC and AS.
#[test]
fn a_weak_pass_at_the_end_is_explained_as_the_batch_explains_it() {
    let engine = mqtt();
    let mut scratch = engine.scratch();
    let mut rng = Rng::new(23);
    let mut weak = 0;
    for procedure in [Procedure::Ac, Procedure::As] {
        let check = CheckOptions {
            choice: Choice::Force(procedure),
            ..CheckOptions::default()
        };
        let m = Monitor::new(
            &engine,
            MonitorOptions {
                check,
                ..MonitorOptions::default()
            },
        )
        .unwrap();
        for _ in 0..200 {
            let steps = 1 + rng.below(12);
            let events = random_events(&engine, &mut rng, steps);
            let mut run = m.start();
            let mut decided = false;
            for &e in &events {
                if m.push(&mut scratch, &mut run, e).is_some() {
                    decided = true;
                    break;
                }
            }
            if decided {
                continue;
            }
            let got = m.finish(&mut scratch, &run);
            if got.kind != VerdictKind::WeakPass {
                continue;
            }
            weak += 1;
            let a = &engine.model().alphabet;
            let mut traces = vec![Vec::new(); a.locations()];
            for &e in &events {
                traces[a.location(e).index()].push(e);
            }
            let (want, _) = engine.check_letters(&mut scratch, &traces, &check).unwrap();
            assert!(want.diagnosis.is_some(), "the batch explains a WeakPass");
            assert_eq!(got.kind, want.kind);
            assert_eq!(as_recorded(&got).diagnosis, as_recorded(&want).diagnosis);
        }
    }
    assert!(
        weak > 20,
        "only {weak} WeakPass runs: the test tested little"
    );
}

/// The product's invariant against a brute-force product of the whole grid, after every
/// event of random runs read with a lagging location (its face grows wide, vertices leave
/// the store and the store is compacted): it stores exactly the upper-face vertices `v` with
/// `R(v)` non-empty, each with its exact `R(v)`; and its multi-prefix answer is AC's.
#[test]
fn the_product_stores_exactly_the_upper_faces() {
    use multitrace_check::ac;
    on_mqtt_kernel(|engine, kernel| {
        let mut scratch = ac::AcScratch::default();
        let (a, alphabet, tables) = (
            engine.model().automata().unwrap(),
            kernel.alphabet,
            kernel.tables,
        );
        let k = alphabet.locations();
        let w = tables.words();
        let mut rng = Rng::new(5);
        let (mut wide, mut searched) = (0, 0);
        for _ in 0..120 {
            let steps = rng.between(0, 80);
            // One location held back: most of its events come last.
            let events = held_back(engine, &mut rng, steps, 8);
            feed_each(kernel, &events, |p, traces| {
                // The whole grid, by positions in lexicographic order.
                let lens: Vec<usize> = traces.iter().map(Vec::len).collect();
                let mut grid: std::collections::BTreeMap<Vec<u32>, Vec<u64>> = Default::default();
                let mut v = vec![0u32; k];
                loop {
                    let mut set = vec![0u64; w];
                    if v.iter().all(|&x| x == 0) {
                        set.copy_from_slice(tables.initial_states());
                    }
                    for (i, trace) in traces.iter().enumerate() {
                        if v[i] > 0 {
                            let mut u = v.clone();
                            u[i] -= 1;
                            if let Some(from) = grid.get(&u) {
                                tables.step_into(&a.nfa, from, trace[u[i] as usize], &mut set);
                            }
                        }
                    }
                    grid.insert(v.clone(), set);
                    // The next position, as an odometer (a predecessor comes before).
                    let Some(i) = (0..k).rev().find(|&i| (v[i] as usize) < lens[i]) else {
                        break;
                    };
                    v[i] += 1;
                    for x in &mut v[i + 1..] {
                        *x = 0;
                    }
                }
                let want: Vec<(Vec<u32>, Vec<u64>)> = grid
                    .into_iter()
                    .filter(|(v, s)| {
                        (0..k).any(|i| v[i] as usize == lens[i]) && s.iter().any(|&x| x != 0)
                    })
                    .collect();
                let mut got = p.stored();
                got.sort();
                assert_eq!(got, want, "{traces:?}");
                wide = wide.max(want.len());
                let budget = multitrace_model::budget::Budget::default();
                let (batch, _) =
                    ac::is_multi_prefix_in(&mut scratch, a, tables, alphabet, traces, &budget);
                let is = p.is_multi_prefix(kernel, traces, usize::MAX).unwrap();
                assert_eq!(Ok(is), batch, "{traces:?}");
                searched += 1;
            });
        }
        assert!(wide >= 12, "{wide}");
        assert!(searched > 500, "{searched}");
    });
}

/// Deferred checks ([`Monitor::push_unchecked`], settled at random points) decide every run
/// exactly as [`Monitor::push`] after every event, also when the product's budget is so small
/// that the multi-prefix search of some event runs out of it while the check at the end of
/// the round would not: the decision (its event and record) never depends on where the
/// rounds fall, so a restart from a checkpoint gives the records of an uninterrupted run.
/// (An event its local verifier refuses is a Fail whatever the budget: 700 cases give enough
/// that run out.)
#[test]
fn deferred_decisions_do_not_depend_on_the_rounds_when_a_search_runs_out() {
    let engine = mqtt();
    let mut scratch = engine.scratch();
    let mut rng = Rng::new(23);
    let (mut ran_out, mut outgrown, mut compared) = (0, 0, 0);
    for case in 0..700 {
        let p = [Procedure::Ac, Procedure::As][case % 2];
        let mut o = opts(p, Mode::Prefix);
        o.max_vertices = rng.between(2, 14);
        let m = Monitor::new(&engine, o).unwrap();
        let steps = rng.between(5, 40);
        let events = random_events(&engine, &mut rng, steps);
        let (mut now, mut later) = (m.start(), m.start());
        let mut want = None;
        for &a in &events {
            if let Some(v) = m.push(&mut scratch, &mut now, a) {
                want = Some((now.events(), as_recorded(&v)));
                break;
            }
        }
        let mut got = None;
        for &a in &events {
            if let Some((at, v)) = m.push_unchecked(&mut scratch, &mut later, a) {
                got = Some((at, as_recorded(&v)));
                break;
            }
            if rng.below(5) == 0 {
                if let Some((at, v)) = m.settle(&mut scratch, &mut later) {
                    got = Some((at, as_recorded(&v)));
                    break;
                }
            }
        }
        if got.is_none() {
            got = m
                .settle(&mut scratch, &mut later)
                .map(|(at, v)| (at, as_recorded(&v)));
        }
        if let Some((at, v)) = &want {
            if v.kind == VerdictKind::Fail {
                // Found when a search did not run out: the batch record of that prefix (its
                // diagnosis names the event that broke the run, which may come earlier when a
                // search ran out before).
                let mut traces = vec![Vec::new(); engine.model().alphabet.locations()];
                for &a in &events[..*at as usize] {
                    traces[engine.model().alphabet.location(a).index()].push(a);
                }
                let o = CheckOptions {
                    mode: Mode::Prefix,
                    choice: Choice::Force(p),
                    ..CheckOptions::default()
                };
                let batch = engine.check_letters(&mut scratch, &traces, &o).unwrap().0;
                assert_eq!(as_recorded(v), as_recorded(&batch), "case {case}");
            }
        }
        // A budget that runs out never makes a verdict Inconclusive: the run goes on (checked
        // from its traces when its product outgrew it), and says since when a Fail may be late,
        // the same whatever the rounds.
        assert!(want
            .as_ref()
            .is_none_or(|(_, v)| v.kind != VerdictKind::Inconclusive));
        assert_eq!(now.late(), later.late(), "case {case}");
        ran_out += usize::from(now.late().is_some());
        outgrown += usize::from(
            now.late()
                .is_some_and(|l| matches!(l.why, late::LateWhy::Product(_))),
        );
        compared += 1;
        assert_eq!(
            got, want,
            "case {case}, budget {}: {events:?}",
            o.max_vertices
        );
    }
    assert!(
        ran_out > 20 && outgrown > 5,
        "{ran_out} ran out ({outgrown} products outgrown) of {compared}"
    );
}

/// A push that runs out of the vertex budget leaves the product as it was but for the
/// length it undoes ([`product::Product::undo_too_wide`]): the monitor then asks the
/// product before the event instead of replaying the round.
#[test]
fn a_push_that_runs_out_is_undone_exactly() {
    on_mqtt_kernel(|engine, kernel| {
        let alphabet = kernel.alphabet;
        let k = alphabet.locations();
        let mut rng = Rng::new(23);
        let mut undone = 0;
        for _ in 0..200 {
            let steps = rng.between(5, 60);
            let events = held_back(engine, &mut rng, steps, 0);
            let budget = rng.between(2, 12);
            let mut p = product::Product::new(kernel);
            let mut traces = vec![Vec::new(); k];
            for &e in &events {
                let j = alphabet.location(e).index();
                traces[j].push(e);
                let before = p.clone();
                if p.push(kernel, &traces, j, e, budget).is_err() {
                    p.undo_too_wide(j);
                    assert_eq!(p, before, "{traces:?}");
                    undone += 1;
                    break;
                }
            }
        }
        assert!(undone > 50, "{undone}");
    });
}

/// Random MQTT events with one location held back: each of its events but about one in
/// `keep` (none when `keep` is 0) comes after all the others.
pub(crate) fn held_back(
    engine: &Engine,
    rng: &mut Rng,
    steps: usize,
    keep: usize,
) -> Vec<LetterId> {
    let events = random_events(engine, rng, steps);
    let alphabet = &engine.model().alphabet;
    let slow = rng.below(alphabet.locations());
    let (mut early, mut late) = (Vec::new(), Vec::new());
    for e in events {
        if alphabet.location(e).index() == slow && (keep == 0 || rng.below(keep) != 0) {
            late.push(e);
        } else {
            early.push(e);
        }
    }
    early.extend(late);
    early
}

/// Feeds `events` to a new product one at a time (no vertex budget), calling `each` with the
/// product and the local traces after every event; gives them back after the last.
pub(crate) fn feed_each(
    kernel: &product::Kernel<'_>,
    events: &[LetterId],
    mut each: impl FnMut(&product::Product, &[Vec<LetterId>]),
) -> (product::Product, Vec<Vec<LetterId>>) {
    let mut p = product::Product::new(kernel);
    let mut traces = vec![Vec::new(); kernel.alphabet.locations()];
    for &e in events {
        let j = kernel.alphabet.location(e).index();
        traces[j].push(e);
        p.push(kernel, &traces, j, e, usize::MAX).unwrap();
        each(&p, &traces);
    }
    (p, traces)
}

/// Calls `f` with the MQTT model's engine and its product kernel (for tests of the product
/// itself).
pub(crate) fn on_mqtt_kernel<R>(f: impl FnOnce(&Engine, &product::Kernel<'_>) -> R) -> R {
    let engine = mqtt();
    let model = engine.model();
    let (a, alphabet) = (model.automata().unwrap(), &model.alphabet);
    let tables = engine.tables().unwrap();
    let closure = product::closure_rows(tables, &a.nfa, alphabet);
    let kernel = product::Kernel {
        tables,
        nfa: &a.nfa,
        alphabet,
        closure: &closure,
    };
    f(&engine, &kernel)
}

/// The questions about a whole run extended by one letter, answered by its product
/// ([`super::end_product::EndProduct`], for the diagnosis of the run's record: by the run's
/// guess, the plain and exact frontiers or a push and a search), get AC's answers, on random
/// runs with a location held back and budgets small enough to run out (then the product
/// says nothing and AC answers), whether the exact frontier is searched at the first letter
/// the plain one does not show or at the second; every letter of every location is asked, in
/// order.
#[test]
fn the_product_answers_the_end_questions_as_ac_does() {
    use multitrace_check::ac;
    use multitrace_check::diagnose::EndQueries;
    on_mqtt_kernel(|engine, kernel| {
        let mut scratch = ac::AcScratch::default();
        let (a, alphabet) = (engine.model().automata().unwrap(), kernel.alphabet);
        let k = alphabet.locations();
        let mut rng = Rng::new(31);
        let (mut answered, mut left, mut no, mut guessed) = (0, 0, 0, 0);
        for _ in 0..150 {
            let steps = rng.between(0, 50);
            let events = held_back(engine, &mut rng, steps, 2);
            let (p, traces) = feed_each(kernel, &events, |_, _| {});
            let budget = [usize::MAX, 4, 16][rng.below(3)];
            // Half the runs with the guess a run's end makes from its product.
            let guess = if rng.below(2) == 0 {
                guessed += 1;
                p.end_set()
                    .and_then(|e| super::guess::Guess::from_end(kernel, e))
            } else {
                None
            };
            // The exact frontier searched at the first letter the plain one does not show
            // (when its verifier allows 0, 2 or 3 letters or more: on MQTT most allow one or
            // two), or at the second (without the verifiers).
            let verifiers = (rng.below(4) != 0).then_some(&a.projections[..]);
            let mut end =
                super::end_product::EndProduct::new(*kernel, &p, guess, &traces, budget, verifiers)
                    .wide_from([0, 2, 3][rng.below(3)]);
            let lens: Vec<usize> = traces.iter().map(Vec::len).collect();
            if lens.iter().any(|&n| n > 0) {
                // A cut it holds nothing for: no answer.
                let mut other = lens.clone();
                let l = other.iter().position(|&n| n > 0).unwrap();
                other[l] -= 1;
                assert_eq!(
                    end.extends(
                        &other,
                        0,
                        alphabet.letters_of(multitrace_model::nfa::LocationId(0))[0]
                    ),
                    None
                );
            }
            for i in 0..k {
                for &letter in alphabet.letters_of(multitrace_model::nfa::LocationId(i as u32)) {
                    let got = end.extends(&lens, i, letter);
                    let mut more = traces.clone();
                    more[i].push(letter);
                    let (want, _) = ac::is_multi_prefix_in(
                        &mut scratch,
                        a,
                        kernel.tables,
                        alphabet,
                        &more,
                        &multitrace_model::budget::Budget::default(),
                    );
                    match got {
                        Some(b) => {
                            assert_eq!(Ok(b), want, "{more:?}");
                            answered += 1;
                            no += usize::from(!b);
                        }
                        None => left += 1,
                    }
                }
            }
        }
        // Most letters are not allowed after a run; some are.
        let yes = answered - no;
        assert!(
            yes > 10 && no > 500 && left > 50 && guessed > 50,
            "{yes} {no} {left} {guessed}"
        );
    });
}

/// An event its location's local verifier refuses (AS's DFA `Proj(A, Σj)`, read here from
/// the model's tables), after events that are a multi-prefix, decides the run at that event
/// as the batch check of the prefix does, whatever the product's budget: with budgets of 1 to
/// 3 vertices, which the product often runs out of first, such a run is a Fail there, not
/// Inconclusive, whether each event is checked at once or rounds are deferred.
#[test]
fn an_event_a_local_verifier_refuses_is_the_fail_whatever_the_budget() {
    let engine = mqtt();
    let model = engine.model();
    let dfas = &model.automata().unwrap().projections;
    let mut scratch = engine.scratch();
    let mut rng = Rng::new(41);
    let (mut refused, mut before) = (0, 0);
    for case in 0..600 {
        let p = [Procedure::Ac, Procedure::As][case % 2];
        let mut o = opts(p, Mode::Prefix);
        o.max_vertices = rng.between(1, 3);
        let m = Monitor::new(&engine, o).unwrap();
        let steps = rng.between(2, 30);
        let events = random_events(&engine, &mut rng, steps);
        // The first event some local verifier refuses (the DFA read from its start).
        let mut traces = vec![Vec::new(); model.alphabet.locations()];
        let first = events.iter().position(|&a| {
            let j = model.alphabet.location(a).index();
            traces[j].push(a);
            let local = traces[j].iter().map(|&l| model.alphabet.local_index(l));
            dfas[j].read_live(local).1 < traces[j].len()
        });
        let Some(i) = first else { continue };
        let prefix = |n: usize| {
            let mut t = vec![Vec::new(); model.alphabet.locations()];
            for &a in &events[..n] {
                t[model.alphabet.location(a).index()].push(a);
            }
            t
        };
        let batch = |traces: &[Vec<LetterId>], s: &mut multitrace_check::Scratch| {
            let o = CheckOptions {
                mode: Mode::Prefix,
                choice: Choice::Force(p),
                ..CheckOptions::default()
            };
            engine.check_letters(s, traces, &o).unwrap().0
        };
        if batch(&prefix(i), &mut scratch).kind == VerdictKind::Fail {
            // Broken before the refused event: the product decides it.
            before += 1;
            continue;
        }
        let want = as_recorded(&batch(&prefix(i + 1), &mut scratch));
        assert_eq!(want.kind, VerdictKind::Fail);
        let (mut now, mut later) = (m.start(), m.start());
        let mut got_now = None;
        for (n, &a) in events.iter().enumerate() {
            if let Some(v) = m.push(&mut scratch, &mut now, a) {
                got_now = Some((n as u64 + 1, v));
                break;
            }
        }
        let mut got_later = None;
        for &a in &events {
            if let Some(d) = m.push_unchecked(&mut scratch, &mut later, a) {
                got_later = Some(d);
                break;
            }
            if rng.below(4) == 0 {
                if let Some(d) = m.settle(&mut scratch, &mut later) {
                    got_later = Some(d);
                    break;
                }
            }
        }
        let got_later = got_later.or_else(|| m.settle(&mut scratch, &mut later));
        for got in [got_now, got_later] {
            let (at, v) = got.expect("the refused event decides the run");
            if v.kind == VerdictKind::Inconclusive {
                // The budget ran out before the refused event (a multi-prefix so far).
                assert!(at <= i as u64, "case {case}: {events:?}");
                continue;
            }
            assert_eq!(
                (at, as_recorded(&v)),
                (i as u64 + 1, want.clone()),
                "case {case}"
            );
            refused += 1;
        }
    }
    assert!(refused > 100 && before > 5, "{refused} {before}");
}

/// A model whose closure table is over the memory budget is refused before the table is
/// allocated (par11's would be 86 GB, and its allocation aborted the process), saying what
/// needs how much and what to do; within the budget the same model gives a monitor.
#[test]
fn a_closure_table_over_the_memory_budget_is_refused_before_it_is_allocated() {
    let engine = mqtt();
    let mut opts = MonitorOptions::default();
    opts.check.budget.max_memory = Some(64);
    let e = Monitor::new(&engine, opts)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("closure table")
            && e.contains("memory budget")
            && e.contains("multitrace check"),
        "{e}"
    );
    assert!(Monitor::new(&engine, MonitorOptions::default()).is_ok());
}
