//! The loop: rounds of lines read from the sources and checked a piece at a time, the
//! round's events fed grouped by run, idle runs closed, records written, a checkpoint after
//! the round, until the input ends or `stop` is set (then every live run is closed, but
//! with `--state` the live runs are checkpointed live instead, for a restart to go on with).
//! Requests received (`--otlp-http`, `--otlp-grpc`: `crate::receive`) are a second input,
//! taken after each round's lines; the loop waits on their queue when idle.

use super::options::DriveOptions;
use super::slow::{push_slow, SlowEvent};
use super::write::{print, Totals};
use crate::follow::Follower;
use crate::session::{end_flag, At, Checkpoint, Closed, Decision, LiveEvent, Round, Session};
use crate::Monitor;
use multitrace_formats::events::{
    csv_event, jsonl_event, scan_flat_with, split_csv, CsvHeaders, EventError, EventFormat,
    FlatFields,
};
use multitrace_formats::NameIndex;
use multitrace_model::record::{ErrorRecord, Record};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Bytes of lines read and checked at a time within a round (about the cache a read's copy
/// and the checks of its lines share).
const PIECE: usize = 64 << 10;

/// Requests received taken at most in a round (`--otlp-*`; the queue holds 64).
#[cfg(feature = "otlp")]
const REQUESTS: usize = 64;

/// What a status line shows, about once a second.
#[derive(Clone, Copy, Debug)]
pub struct Status {
    /// Runs live now.
    pub live_runs: usize,
    /// Events read (span events with `--otel`).
    pub events: u64,
    /// Seconds since the loop started.
    pub seconds: f64,
    /// Records in the output (those written before a restart included).
    pub records: u64,
    /// Fail records among them.
    pub fails: u64,
}

impl Status {
    /// The status as one line (no line break): live runs, events and their rate, records
    /// and Fails.
    pub fn line(&self) -> String {
        let rate = self.events as f64 / self.seconds.max(1e-9);
        let (live, events, records, fails) =
            (self.live_runs, self.events, self.records, self.fails);
        format!("{live} live runs, {events} events ({rate:.0}/s), {records} records, {fails} Fail")
    }
}

/// Drives `session` on the lines of `follower` until the input ends (without following) or
/// `stop` is set, writing records to `out`, whose records added up to `totals` at the start
/// (a checkpoint's, on a restart; the exit status counts them); `status` is called about once
/// a second. Returns what the output holds; an error is one of writing the output or a
/// checkpoint.
#[allow(clippy::too_many_arguments)]
pub fn drive(
    m: &Monitor<'_>,
    session: &mut Session,
    follower: &mut Follower,
    out: &mut dyn Write,
    opts: &DriveOptions,
    stop: &AtomicBool,
    totals: Totals,
    mut status: Option<&mut dyn FnMut(Status)>,
) -> std::io::Result<Totals> {
    let engine = m.engine();
    let alphabet = &engine.model().alphabet;
    // Actions to letters by hash lookup, without allocation.
    let letters = NameIndex::new(alphabet);
    let ev_opts = &opts.events;
    let mut scratch = engine.scratch();
    let started = Instant::now();
    // The session's wall clock goes on from a checkpoint's (its runs' last times are on it).
    let base = session.wall();
    let now = move || base + started.elapsed().as_nanos() as u64;
    let mut events = 0u64;
    // Every record counted as soon as it is written: a checkpoint saves the totals of the
    // output it keeps.
    let mut tally = totals;
    let mut last_status = Instant::now();
    let mut last_idle = Instant::now();
    let mut last_checkpoint = Instant::now();
    let mut lines = Vec::new();
    let mut decided: Vec<Decision> = Vec::new();
    // The fast path's events of a round, fed together grouped by run (the same records).
    let mut round = Round::new();
    // Records of lines with no run to give them to, keyed by the arrivals before them: a round's
    // records are written together, in the order of the events that decided them.
    let mut loose: Vec<(u64, Record)> = Vec::new();
    // --otel: the events of one line.
    #[cfg(feature = "otel")]
    let mut raw = Vec::new();
    #[cfg(feature = "otel")]
    let mut spans = super::otel::SpanBuffers::default();
    // The first line that may have held events of runs it does not name (an event line with no
    // readable run, a span line that names none of its traces): every run open then, and
    // every run that gets an event later, gets an Error naming it.
    let mut lost = None;
    // The field names, prepared once for the scan of every line.
    let fields = FlatFields::new(
        &ev_opts.run_field,
        &ev_opts.action_field,
        &ev_opts.order_field,
    );
    // Error records of lines (no run to give them to).
    let mut line_errors = Vec::new();
    let forced = opts.format;
    // CSV sources by name: the columns of their header row.
    let mut csv = CsvHeaders::default();
    // The place of a line read (`FILE:LINE`), written for the lines the fast path does not
    // take, in one buffer for every line.
    let mut at = String::new();
    // Requests received so far by each protocol (`otlp-http:N` is the N-th over HTTP).
    #[cfg(feature = "otlp")]
    let mut received = [0u64; 2];
    loop {
        let stopping = stop.load(Ordering::Relaxed);
        // With checkpoints, smaller rounds: a checkpoint can follow any round.
        let budget = if opts.state.is_some() {
            64 << 10
        } else {
            1 << 20
        };
        let mut idle_round = true;
        let mut handed = 0;
        while !stopping && handed < budget {
            // A round is read a piece at a time, each checked as soon as it is read: the
            // kernel copies into a buffer still in the cache (on 100,000 runs a round's checks
            // evict a whole round's buffer, and the copy took a tenth of the time).
            lines.clear();
            if handed == 0 {
                follower.poll(PIECE, &mut lines);
            } else {
                follower.read(PIECE, &mut lines);
            }
            if lines.is_empty() {
                break;
            }
            idle_round = false;
            handed += lines
                .iter()
                .map(|l| l.as_ref().map_or(1, |b| b.len()))
                .sum::<usize>();
            let wall = now();
            for l in &lines {
                let block = match l {
                    Ok(block) => block,
                    Err(message) => {
                        tally.bad = true;
                        let r = Record::error(
                            String::new(),
                            None,
                            ErrorRecord::message(message.clone()),
                            Duration::ZERO,
                        );
                        tally.written += print(out, &r, None, opts.output)?;
                        continue;
                    }
                };
                let source = block.source();
                // A source's format is found once per block, not per line (its path's extension
                // cost a twentieth of the monitor's time).
                let is_csv = match forced {
                    Some(f) => f == EventFormat::Csv,
                    None => {
                        source != "<stdin>"
                            && EventFormat::of_path(source.as_ref()) == EventFormat::Csv
                    }
                };
                for (number, text) in block.iter() {
                    if text.chars().all(char::is_whitespace) {
                        continue;
                    }
                    #[cfg(feature = "otel")]
                    if let Some(map) = &opts.otel {
                        // (Every other path feeds the events before it first: they keep their order.)
                        session.push_round(m, &mut scratch, &mut round, &mut decided);
                        block.place(number, &mut at);
                        // The status line counts span events, not lines.
                        events += super::otel::push_line(
                            super::otel::Line {
                                spans: super::otel::Spans::Text(text),
                                at: &at,
                                wall,
                                map,
                                parents: opts.parents,
                            },
                            m,
                            &mut scratch,
                            session,
                            &letters,
                            &mut raw,
                            &mut spans,
                            &mut line_errors,
                            &mut decided,
                            &mut lost,
                        );
                        loose.extend(line_errors.drain(..).map(|r| (session.arrivals(), r)));
                        continue;
                    }
                    let (end, run, body) = if let Some(why) = block.not_utf8(number) {
                        // Not read lossily: its run is named only if its id holds no byte
                        // replaced (as `check --events` does), else the line is lost.
                        session.push_round(m, &mut scratch, &mut round, &mut decided);
                        events += 1;
                        let run = (!is_csv)
                            .then(|| jsonl_event(text, ev_opts).0)
                            .flatten()
                            .filter(|r| !r.contains('\u{FFFD}'));
                        (false, run, Err(EventError::Unreadable(why.to_string())))
                    } else if is_csv {
                        session.push_round(m, &mut scratch, &mut round, &mut decided);
                        let arrivals = session.arrivals();
                        let columns =
                            csv.columns(source, Some(number), text, ev_opts, &mut line_errors);
                        loose.extend(line_errors.drain(..).map(|r| (arrivals, r)));
                        let Some(cols) = columns else {
                            // The header row (or a source whose header cannot be read: one Error).
                            continue;
                        };
                        events += 1;
                        let (run, body) = match split_csv(text) {
                            Some(fields) => csv_event(&fields, &cols, ev_opts),
                            None => (None, Err(EventError::UnclosedQuote)),
                        };
                        let end = opts
                            .end_field
                            .as_ref()
                            .is_some_and(|f| csv.end_flag(source, text, f));
                        (end, run, body)
                    } else {
                        events += 1;
                        let end = opts.end_field.as_ref().is_some_and(|f| end_flag(text, f));
                        // The fast path: a flat event read in place (the full parser words what it
                        // cannot read, and reads the unusual).
                        // (After a line lost, every event goes the slow way: its run's Error.)
                        let fast = scan_flat_with(text, &fields)
                            .filter(|_| lost.is_none())
                            .and_then(|s| letters.letter(s.action).map(|l| (s, l)));
                        if let Some((s, letter)) = fast {
                            // Fed with the round's other events, grouped by run, and checked
                            // by the `settle` after this round's lines: one check per run and
                            // round (the same decisions, at the same events).
                            round.push(LiveEvent {
                                run: s.run,
                                letter,
                                key: s.order,
                                // The place as the file's index and the number: `FILE:LINE`
                                // is written only when a record names it.
                                at: At::Line {
                                    file: source,
                                    line: number,
                                },
                                wall,
                                end,
                            });
                            continue;
                        }
                        session.push_round(m, &mut scratch, &mut round, &mut decided);
                        let (run, body) = jsonl_event(text, ev_opts);
                        (end, run, body)
                    };
                    block.place(number, &mut at);
                    let ev = SlowEvent {
                        at: &at,
                        wall,
                        end,
                        run,
                        body,
                    };
                    tally.bad |= push_slow(
                        m,
                        &mut scratch,
                        session,
                        &letters,
                        ev,
                        &mut decided,
                        &mut loose,
                        &mut lost,
                    );
                }
            }
            // The blocks' buffers take the next piece's lines.
            follower.recycle(&mut lines);
        }
        // Requests received (--otlp-http): each checked as a line of spans is, in the order
        // they were accepted, after the round's lines; at a stop the server is closed first,
        // then every request it acknowledged is checked.
        #[cfg(feature = "otlp")]
        if let (Some(inbox), Some(map)) = (&opts.inbox, &opts.otel) {
            if stopping {
                inbox.close();
            }
            let wall = now();
            let mut taken = 0;
            while stopping || taken < REQUESTS {
                let Some((protocol, request)) = inbox.take() else {
                    break;
                };
                taken += 1;
                idle_round = false;
                let n = &mut received[protocol as usize];
                *n += 1;
                session.push_round(m, &mut scratch, &mut round, &mut decided);
                at.clear();
                at.push_str(protocol.name());
                at.push(':');
                at.push_str(&n.to_string());
                events += super::otel::push_line(
                    super::otel::Line {
                        spans: super::otel::Spans::Request(&request),
                        at: &at,
                        wall,
                        map,
                        parents: opts.parents,
                    },
                    m,
                    &mut scratch,
                    session,
                    &letters,
                    &mut raw,
                    &mut spans,
                    &mut line_errors,
                    &mut decided,
                    &mut lost,
                );
                loose.extend(line_errors.drain(..).map(|r| (session.arrivals(), r)));
            }
        }
        let wall = now();
        session.push_round(m, &mut scratch, &mut round, &mut decided);
        session.settle(m, &mut scratch, &mut decided);
        if last_idle.elapsed() > Duration::from_millis(100) {
            // Held events below the watermark (event-time windows), then the idle runs.
            session.advance(m, &mut scratch, wall, &mut decided);
            if opts.idle_timeout.is_some() {
                session.close_idle(m, &mut scratch, wall, &mut decided);
            }
            last_idle = Instant::now();
        }
        // Requests are received until a stop.
        let finished = follower.finished() && opts.inbox.is_none();
        // A stop with a state directory keeps the live runs in the checkpoint, live: a
        // restart goes on with them as if never stopped (closing them would turn their later
        // events into new runs). Without one, nothing can go on: they are closed.
        if finished || (stopping && opts.state.is_none()) {
            let why = if stopping {
                Closed::Stop
            } else {
                Closed::EndOfInput
            };
            // Written a part at a time: the records of every live run are never all in
            // memory at once.
            session.close_all_by(m, &mut scratch, why, 4096, &mut decided, |decided| {
                tally.write(out, m, decided, &mut loose, opts.output)
            })?;
        }
        tally.write(out, m, &mut decided, &mut loose, opts.output)?;
        out.flush()?;
        if let Some(dir) = &opts.state {
            if stopping
                || finished
                || last_checkpoint.elapsed() >= Duration::from_millis(opts.checkpoint_ms)
            {
                Checkpoint {
                    model: m.engine().model().digest,
                    positions: follower.positions(),
                    session: session.to_bytes(),
                    totals: tally,
                    wall: crate::checkpoint::Wall::now(now()),
                }
                .write(dir)
                .map_err(|e| {
                    let what = format!("--state {}: writing the checkpoint: {e}", dir.display());
                    std::io::Error::new(e.kind(), what)
                })?;
                last_checkpoint = Instant::now();
            }
        }
        if let Some(show) = status.as_mut() {
            if last_status.elapsed() > Duration::from_secs(1) {
                show(Status {
                    live_runs: session.live_runs(),
                    events,
                    seconds: started.elapsed().as_secs_f64(),
                    records: tally.records,
                    fails: tally.fails,
                });
                last_status = Instant::now();
            }
        }
        if stopping || finished {
            break;
        }
        if idle_round {
            // Woken by a request as soon as it is queued.
            #[cfg(feature = "otlp")]
            if let Some(inbox) = &opts.inbox {
                inbox.wait(Duration::from_millis(1));
                continue;
            }
            // 1 ms: an event that arrives on an idle input is checked within about a
            // millisecond (a poll costs a few microseconds per source).
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    Ok(tally)
}
