//! `multitrace check`: loads (or compiles) the model once, then checks every multitrace in
//! parallel and prints the results in input order.
//!
//! Inputs are streamed: files are listed first (paths only), JSON Lines are read one line at
//! a time (files or standard input). Workers take the next input from a shared source but never
//! run more than a fixed window ahead of the printer, so memory does not grow with the number
//! of multitraces.

use crate::{CheckArgs, FormatArg, ModeArg, ProcedureArg};
use anyhow::{bail, Context, Result};
use multitrace_compiler::syntax::read_text;
use multitrace_runtime::check::explore::{Budget, ExploreOptions, CHECK_STACK_SIZE};
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure, Scratch};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::syntax::{parse_htf, parse_jsonl_line, parse_mtf, NameIndex};
use multitrace_runtime::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// A checked multitrace: verdict, procedure, names of its components.
type Checked = (Verdict, Procedure, Vec<String>);

/// One input: a file, one line of a JSON Lines stream, or an input that could not be read.
enum Input {
    File(PathBuf),
    Line {
        file: String,
        line: usize,
        text: String,
    },
    /// An unreadable input: its name and the message (one input error, in input order).
    Error(String, String),
}

/// The result for one multitrace.
struct Record {
    name: String,
    outcome: std::result::Result<Checked, String>,
    time: Duration,
}

/// An open JSON Lines stream: its name, reader and the number of lines read.
struct Lines {
    file: String,
    reader: Box<dyn BufRead + Send>,
    line: usize,
}

/// Inputs in order: trace files, JSON Lines files and standard input, read lazily.
struct Source {
    files: std::vec::IntoIter<PathBuf>,
    lines: Option<Lines>,
    next_index: usize,
    /// Longest JSON line accepted (bytes, without its line break).
    max_line: u64,
}

/// What [`read_line_bounded`] read.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// End of input.
    End,
    /// A line (in the buffer, with its line break if any).
    Line,
    /// A line longer than the limit: the buffer holds its first bytes.
    TooLong,
}

/// Reads one line into `buf` (cleared first) without ever holding more than `limit` bytes
/// of it plus one read buffer.
fn read_line_bounded(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: u64,
) -> std::io::Result<LineRead> {
    buf.clear();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if buf.is_empty() {
                LineRead::End
            } else {
                LineRead::Line
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        buf.extend_from_slice(&chunk[..take]);
        reader.consume(take);
        let content = buf.len() - usize::from(buf.last() == Some(&b'\n'));
        let content = content - usize::from(content > 0 && buf[content - 1] == b'\r');
        if content as u64 > limit {
            return Ok(LineRead::TooLong);
        }
        if done {
            return Ok(LineRead::Line);
        }
    }
}

impl Source {
    fn take_index(&mut self) -> usize {
        let i = self.next_index;
        self.next_index += 1;
        i
    }

    fn next(&mut self) -> Option<(usize, Input)> {
        let mut buf = Vec::new();
        loop {
            if let Some(Lines { file, reader, line }) = &mut self.lines {
                let read = read_line_bounded(reader.as_mut(), &mut buf, self.max_line);
                *line += 1;
                let (file, line) = (file.clone(), *line);
                match read {
                    Ok(LineRead::End) => self.lines = None,
                    Ok(LineRead::TooLong) => {
                        // The rest of the stream cannot be resynchronized cheaply: stop it.
                        self.lines = None;
                        let message = format!(
                            "{file}:{line}:1: JSON line longer than {} bytes, the limit; raise it with --max-line-bytes N (the rest of this input is not read)",
                            self.max_line
                        );
                        let i = self.take_index();
                        return Some((i, Input::Error(format!("{file}:{line}"), message)));
                    }
                    Ok(LineRead::Line) => match String::from_utf8(std::mem::take(&mut buf)) {
                        Ok(text) if text.trim().is_empty() => continue,
                        Ok(text) => {
                            let i = self.take_index();
                            return Some((i, Input::Line { file, line, text }));
                        }
                        Err(e) => {
                            // Not text: stop reading it, as the other readers refuse the file.
                            self.lines = None;
                            let valid = e.utf8_error().valid_up_to();
                            let bytes = e.as_bytes();
                            let column = std::str::from_utf8(&bytes[..valid])
                                .map_or(valid, |t| t.chars().count())
                                + 1;
                            let message = format!(
                                "{file}:{line}:{column}: invalid UTF-8 (byte 0x{:02X}); JSON Lines must be UTF-8 text (the rest of this input is not read)",
                                bytes.get(valid).copied().unwrap_or(0)
                            );
                            let i = self.take_index();
                            return Some((i, Input::Error(format!("{file}:{line}"), message)));
                        }
                    },
                    Err(e) => {
                        self.lines = None;
                        let i = self.take_index();
                        let message = format!("{file}:{line}: cannot read: {e}");
                        return Some((i, Input::Error(format!("{file}:{line}"), message)));
                    }
                }
                continue;
            }
            let path = self.files.next()?;
            if path.as_os_str() == "-" || path.extension().is_some_and(|e| e == "jsonl") {
                let (name, reader): (String, Box<dyn BufRead + Send>) = if path.as_os_str() == "-" {
                    (
                        "<stdin>".into(),
                        Box::new(std::io::BufReader::new(std::io::stdin())),
                    )
                } else {
                    match std::fs::File::open(&path) {
                        Ok(f) => (
                            path.display().to_string(),
                            Box::new(std::io::BufReader::new(f)),
                        ),
                        Err(e) => {
                            let name = path.display().to_string();
                            let message = format!("{name}: cannot read: {e}");
                            let i = self.take_index();
                            return Some((i, Input::Error(name, message)));
                        }
                    }
                };
                self.lines = Some(Lines {
                    file: name,
                    reader,
                    line: 0,
                });
                continue;
            }
            let i = self.take_index();
            return Some((i, Input::File(path)));
        }
    }
}

/// Runs `check`; returns the exit status.
pub fn check(args: CheckArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let files = collect_traces(&args.traces)?;
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
    };
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    };
    let opts = CheckOptions {
        mode,
        choice: match args.procedure {
            ProcedureArg::Auto => Choice::Auto,
            ProcedureArg::Ac => Choice::Force(Procedure::Ac),
            ProcedureArg::As => Choice::Force(Procedure::As),
            ProcedureArg::Term => Choice::Force(Procedure::Term),
        },
        explore: ExploreOptions {
            mode,
            por: !args.no_por,
            loc: !args.no_loc,
            memo: !args.no_memo,
            budget,
            witness: args.witness,
        },
        budget,
        witness: args.witness,
    };
    let engine = Engine::new(model);
    // A procedure that cannot run on this model is a usage error, before any trace is read.
    if let Err(e) = engine.check_letters(
        &mut engine.scratch(),
        &vec![Vec::new(); engine.model().alphabet.locations()],
        &opts,
    ) {
        bail!("{e}");
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let total_files = files.len();
    let streaming = files
        .iter()
        .any(|p| p.as_os_str() == "-" || p.extension().is_some_and(|e| e == "jsonl"));
    let source = Mutex::new(Source {
        files: files.into_iter(),
        lines: None,
        next_index: 0,
        max_line: args.max_line_bytes,
    });
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut summary = Summary::default();
    let mut progress = (!args.no_progress && std::io::stderr().is_terminal()).then(|| Progress {
        total: (!streaming).then_some(total_files),
        last: Instant::now(),
        shown: false,
    });
    let names = NameIndex::new(&engine.model().alphabet);
    run_parallel(&engine, &names, &source, &opts, jobs, |rec| {
        summary.add(&rec);
        if let Some(p) = &mut progress {
            p.tick(summary.count());
        }
        print_record(&mut out, &rec, engine.model(), args.format)
    })?;
    if let Some(p) = &mut progress {
        p.clear();
    }
    if summary.count() == 0 {
        let inputs: Vec<String> = args
            .traces
            .iter()
            .map(|p| match p.to_str() {
                Some("-") => "<stdin>".to_string(),
                _ => p.display().to_string(),
            })
            .collect();
        bail!(
            "no multitraces found in {}: expected .htf or .mtf files, JSON Lines (.jsonl, `-`) with one multitrace per line, or directories holding them",
            inputs.join(", ")
        );
    }
    if args.format == FormatArg::Text {
        summary.print(&mut out)?;
    }
    out.flush()?;
    Ok(summary.exit_code())
}

/// Trace files: files as given (and `-`), directories searched recursively for `*.htf`,
/// `*.mtf` and `*.jsonl` (sorted).
///
/// Symbolic links to directories are followed, but a directory already searched (by its
/// canonical path: a link back to an ancestor, a loop, or a second link to the same place) is
/// skipped with a note, so a symbolic-link loop cannot make the walk endless.
fn collect_traces(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        if p.as_os_str() == "-" {
            files.push(p.clone());
        } else if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found, &mut seen)?;
            if found.is_empty() {
                eprintln!(
                    "multitrace: note: {} holds no .htf, .mtf or .jsonl file",
                    p.display()
                );
            }
            found.sort();
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            bail!("{}: no such file or directory", p.display());
        }
    }
    Ok(files)
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> Result<()> {
    let canonical = std::fs::canonicalize(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    if !seen.insert(canonical.clone()) {
        eprintln!(
            "multitrace: note: {}: already searched (it is {}); a symbolic link loop or a second link, not followed",
            dir.display(),
            canonical.display()
        );
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|e| e.map(|e| e.path()))
                .collect::<std::io::Result<Vec<_>>>()
        })
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    // Sorted, so that which of two links to one directory is searched does not vary.
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out, seen)?;
        } else if path
            .extension()
            .is_some_and(|e| e == "htf" || e == "mtf" || e == "jsonl")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Order-preserving window: workers wait while they are this far ahead of the printer.
struct Window {
    printed: Mutex<usize>,
    moved: Condvar,
    size: usize,
}

impl Window {
    fn wait_for(&self, i: usize) {
        let mut printed = self.printed.lock().unwrap_or_else(|e| e.into_inner());
        while i >= *printed + self.size {
            printed = self.moved.wait(printed).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn advance(&self, to: usize) {
        *self.printed.lock().unwrap_or_else(|e| e.into_inner()) = to;
        self.moved.notify_all();
    }
}

/// Checks the inputs on `jobs` threads, each with its own scratch state, and hands the
/// records to `sink` in input order.
fn run_parallel(
    engine: &Engine,
    names: &NameIndex,
    source: &Mutex<Source>,
    opts: &CheckOptions,
    jobs: usize,
    mut sink: impl FnMut(Record) -> std::io::Result<()>,
) -> Result<()> {
    let window = Window {
        printed: Mutex::new(0),
        moved: Condvar::new(),
        size: jobs * 64,
    };
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Record)>();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..jobs {
            let tx = tx.clone();
            let window = &window;
            std::thread::Builder::new()
                .stack_size(CHECK_STACK_SIZE)
                .spawn_scoped(scope, move || {
                    let mut scratch = engine.scratch();
                    loop {
                        let next = source.lock().ok().and_then(|mut s| s.next());
                        let Some((i, input)) = next else { break };
                        window.wait_for(i);
                        let rec = check_one(engine, names, &mut scratch, input, opts);
                        if tx.send((i, rec)).is_err() {
                            break;
                        }
                    }
                })
                .context("cannot start a worker thread")?;
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut expected = 0;
        let mut result = Ok(());
        for (i, rec) in rx {
            pending.insert(i, rec);
            while let Some(rec) = pending.remove(&expected) {
                if result.is_ok() {
                    result = sink(rec);
                }
                expected += 1;
            }
            window.advance(expected);
        }
        window.advance(usize::MAX / 2);
        result?;
        Ok(())
    })
}

fn check_one(
    engine: &Engine,
    names: &NameIndex,
    scratch: &mut Scratch,
    input: Input,
    opts: &CheckOptions,
) -> Record {
    let start = Instant::now();
    let (name, outcome) = match input {
        Input::File(path) => (
            path.display().to_string(),
            check_file(engine, scratch, &path, opts),
        ),
        Input::Error(name, message) => (name, Err(message)),
        Input::Line { file, line, text } => {
            let model = engine.model();
            match parse_jsonl_line(&file, line, text.trim_end(), &model.alphabet, names) {
                Ok((id, traces)) => {
                    let r = engine
                        .check_letters(scratch, &traces, opts)
                        .map(|(v, p)| (v, p, model.alphabet.location_names().to_vec()))
                        .map_err(|e| format!("{file}:{line}: {e}"));
                    (id, r)
                }
                Err(e) => (format!("{file}:{line}"), Err(e.to_string())),
            }
        }
    };
    Record {
        name,
        outcome,
        time: start.elapsed(),
    }
}

fn check_file(
    engine: &Engine,
    scratch: &mut Scratch,
    path: &Path,
    opts: &CheckOptions,
) -> std::result::Result<Checked, String> {
    let text = read_text(path).map_err(|e| e.to_string())?;
    let file = path.display().to_string();
    let model = engine.model();
    if path.extension().is_some_and(|e| e == "mtf") {
        let traces = parse_mtf(&file, &text, &model.alphabet).map_err(|e| e.to_string())?;
        let names = model.alphabet.location_names().to_vec();
        let (v, p) = engine
            .check_letters(scratch, &traces, opts)
            .map_err(|e| format!("{file}: {e}"))?;
        return Ok((v, p, names));
    }
    let Some(sig) = model.signature() else {
        return Err(format!(
            "{file}: this model is a raw automaton; give its multitraces as .mtf or JSON Lines"
        ));
    };
    let (mt, htf_names) = parse_htf(&file, &text, sig).map_err(|e| e.to_string())?;
    let (v, p) = engine
        .check_multitrace(scratch, &mt, opts)
        .map_err(|e| format!("{file}: {e}"))?;
    // Term exploration reports components of the file; AC/AS the model's locations.
    let names = if p == Procedure::Term {
        htf_names
    } else {
        model.alphabet.location_names().to_vec()
    };
    Ok((v, p, names))
}

/// Renders what a model expected.
fn render(model: &CompiledModel) -> impl Fn(Sym) -> String + '_ {
    move |s| match s {
        Sym::Action(a) => model
            .signature()
            .map(|sig| sig.action_to_string(a))
            .unwrap_or_default(),
        Sym::Letter(l) => model.alphabet.name(l).to_string(),
    }
}

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    model: &CompiledModel,
    format: FormatArg,
) -> std::io::Result<()> {
    let render = render(model);
    let witness = |v: &Verdict| {
        v.witness
            .as_ref()
            .map(|w| w.iter().map(|&(_, s)| render(s)).collect::<Vec<_>>())
    };
    match (&rec.outcome, format) {
        (Err(e), _) => {
            eprintln!("multitrace: {e}");
            Ok(())
        }
        (Ok((v, _, names)), FormatArg::Text) => {
            let why = v.explain(&render, names);
            if why.is_empty() {
                writeln!(out, "{}: {}", rec.name, v.kind)?;
            } else {
                writeln!(out, "{}: {} ({why})", rec.name, v.kind)?;
            }
            if let Some(w) = witness(v) {
                writeln!(out, "  witness: {}", w.join(" "))?;
            }
            Ok(())
        }
        (Ok((v, p, names)), FormatArg::Jsonl) => {
            let mut obj = serde_json::Map::new();
            obj.insert("trace".into(), rec.name.clone().into());
            obj.insert("verdict".into(), v.kind.name().into());
            obj.insert("procedure".into(), p.name().into());
            let reason = v.reason.as_ref().map(Reason::name);
            obj.insert("reason".into(), reason.into());
            let location = match &v.reason {
                Some(Reason::LocalError { location, .. }) => names.get(location.index()).cloned(),
                _ => None,
            };
            obj.insert("location".into(), location.into());
            if let Some(Reason::LocalError {
                position, expected, ..
            }) = &v.reason
            {
                obj.insert("position".into(), (*position as u64).into());
                let e: Vec<String> = expected.iter().map(|&s| render(s)).collect();
                obj.insert("expected".into(), e.into());
            }
            if let Some(f) = &v.furthest {
                obj.insert("consumed".into(), f.consumed.clone().into());
                let e: Vec<String> = f.expected.iter().map(|&s| render(s)).collect();
                obj.insert("expected".into(), e.into());
            }
            if let Some(w) = witness(v) {
                obj.insert("witness".into(), w.into());
            }
            obj.insert("vertices".into(), v.vertices.into());
            obj.insert("time_us".into(), (rec.time.as_micros() as u64).into());
            writeln!(out, "{}", serde_json::Value::Object(obj))
        }
    }
}

/// A progress line on standard error (terminal only).
struct Progress {
    total: Option<usize>,
    last: Instant,
    shown: bool,
}

impl Progress {
    fn tick(&mut self, done: usize) {
        if self.last.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let line = match self.total {
            Some(t) if t > 0 => {
                let filled = done * 30 / t;
                format!(
                    "[{}{}] {done}/{t}",
                    "=".repeat(filled),
                    " ".repeat(30 - filled.min(30))
                )
            }
            _ => format!("{done} checked"),
        };
        eprint!("\r{line}");
    }
    fn clear(&mut self) {
        if self.shown {
            eprint!("\r{}\r", " ".repeat(60));
        }
    }
}

/// Counts per verdict and reason, and timing.
#[derive(Default)]
struct Summary {
    counts: BTreeMap<VerdictKind, usize>,
    reasons: BTreeMap<(VerdictKind, &'static str), usize>,
    errors: usize,
    times: Vec<Duration>,
}

impl Summary {
    fn count(&self) -> usize {
        self.times.len()
    }

    fn add(&mut self, rec: &Record) {
        match &rec.outcome {
            Ok((v, _, _)) => {
                *self.counts.entry(v.kind).or_default() += 1;
                if let Some(r) = &v.reason {
                    *self.reasons.entry((v.kind, r.name())).or_default() += 1;
                }
            }
            Err(_) => self.errors += 1,
        }
        self.times.push(rec.time);
    }

    fn print(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let total: Duration = self.times.iter().sum();
        self.times.sort();
        let median = self
            .times
            .get(self.times.len() / 2)
            .copied()
            .unwrap_or_default();
        let mut parts: Vec<String> = Vec::new();
        for (k, n) in &self.counts {
            let reasons: Vec<String> = self
                .reasons
                .iter()
                .filter(|((kind, _), _)| kind == k)
                .map(|((_, r), m)| format!("{m} {r}"))
                .collect();
            if reasons.is_empty() {
                parts.push(format!("{n} {k}"));
            } else {
                parts.push(format!("{n} {k} ({})", reasons.join(", ")));
            }
        }
        if self.errors > 0 {
            parts.push(format!("{} input errors", self.errors));
        }
        writeln!(
            out,
            "{} multitraces: {}; total {:.3} s, median {:.3} ms",
            self.times.len(),
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            },
            total.as_secs_f64(),
            median.as_secs_f64() * 1e3
        )
    }

    fn exit_code(&self) -> u8 {
        let n = |k| self.counts.get(&k).copied().unwrap_or(0);
        if self.errors > 0 {
            2
        } else if n(VerdictKind::Fail) > 0 {
            1
        } else if n(VerdictKind::Inconclusive) > 0 {
            3
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader handing out at most `step` bytes per fill, like a pipe.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn lines(data: &[u8], step: usize, limit: u64) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = std::io::BufReader::with_capacity(4, Trickle { data, step });
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let read = read_line_bounded(&mut r, &mut buf, limit).unwrap();
            let stop = read != LineRead::Line;
            out.push((read, buf.clone()));
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn bounded_lines_split_like_read_line_and_stop_past_the_limit() {
        let data = b"ab\r\n\ncdefg\nhi";
        for step in [1, 3, 64] {
            let got = lines(data, step, 5);
            let want: Vec<(LineRead, Vec<u8>)> = vec![
                (LineRead::Line, b"ab\r\n".to_vec()),
                (LineRead::Line, b"\n".to_vec()),
                (LineRead::Line, b"cdefg\n".to_vec()),
                (LineRead::Line, b"hi".to_vec()),
                (LineRead::End, Vec::new()),
            ];
            assert_eq!(got, want, "step {step}");
            // A limit of 4: `cdefg` is too long, and no more than the limit and one read
            // buffer is held.
            let got = lines(data, step, 4);
            assert_eq!(got.len(), 3, "step {step}");
            assert_eq!(got[2].0, LineRead::TooLong);
            assert!(got[2].1.len() <= 4 + 4 && got[2].1.starts_with(b"cde"));
        }
        // An endless line is refused after the limit, not read forever.
        let mut endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let mut buf = Vec::new();
        let read = read_line_bounded(&mut endless, &mut buf, 100_000).unwrap();
        assert_eq!(read, LineRead::TooLong);
        assert!(buf.len() <= 100_000 + 8192, "{}", buf.len());
    }

    #[test]
    fn symbolic_link_loops_are_searched_once() {
        let d = std::env::temp_dir().join(format!("multitrace-batch-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::write(d.join("a/b/t.htf"), "{}").unwrap();
        std::fs::write(d.join("a/u.mtf"), "").unwrap();
        std::fs::write(d.join("a/b/ignored.txt"), "").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("..", d.join("a/b/up")).unwrap();
            std::os::unix::fs::symlink(d.join("a/b"), d.join("a/c")).unwrap();
        }
        let files = collect_traces(&[d.join("a")]).unwrap();
        assert_eq!(files, vec![d.join("a/b/t.htf"), d.join("a/u.mtf")]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
