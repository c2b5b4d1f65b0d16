//! `multitrace check`: loads (or compiles) the model once, then checks every multitrace in
//! parallel and prints the results in input order.
//!
//! Inputs are streamed: files are listed first (paths only), JSON Lines are read one line at
//! a time (files or standard input). Workers take the next input from a shared source but never
//! run more than a fixed window ahead of the printer, so memory does not grow with the number
//! of multitraces.

use crate::{CheckArgs, ColorArg, FormatArg, ModeArg, ProcedureArg};
use anyhow::{bail, Context, Result};
use multitrace_compiler::syntax::read_text;
use multitrace_runtime::check::explore::{Budget, ExploreOptions, CHECK_STACK_SIZE};
use multitrace_runtime::check::{CheckError, CheckOptions, Choice, Engine, Procedure, Scratch};
use multitrace_runtime::manifest::Expectations;
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::record::{ErrorRecord, Names, Record};
use multitrace_runtime::syntax::{parse_htf, parse_jsonl_line, parse_mtf, NameIndex, ParseError};
use multitrace_runtime::verdict::{Mode, Sym, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// A checked multitrace: verdict, procedure, names of its components, whether it fell back
/// to term exploration.
type Checked = (Verdict, Procedure, Vec<String>, bool);

/// One input: a file, one line of a JSON Lines stream, or an input that could not be read.
enum Input {
    File(PathBuf),
    Line {
        file: String,
        line: usize,
        text: String,
    },
    /// An unreadable input: its name and the error (one Error record, in input order).
    Error(String, ErrorRecord),
}

/// The record of one input, and whether its check fell back to term exploration.
struct Done {
    record: Record,
    fallback: bool,
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
                        let e = ParseError {
                            file: file.clone(),
                            line: line as u32,
                            column: 1,
                            message: format!(
                                "JSON line longer than {} bytes, the limit; raise it with --max-line-bytes N (the rest of this input is not read)",
                                self.max_line
                            ),
                        };
                        let i = self.take_index();
                        return Some((i, Input::Error(format!("{file}:{line}"), (&e).into())));
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
                            let e = ParseError {
                                file: file.clone(),
                                line: line as u32,
                                column: column as u32,
                                message: format!(
                                    "invalid UTF-8 (byte 0x{:02X}); JSON Lines must be UTF-8 text (the rest of this input is not read)",
                                    bytes.get(valid).copied().unwrap_or(0)
                                ),
                            };
                            let i = self.take_index();
                            return Some((i, Input::Error(format!("{file}:{line}"), (&e).into())));
                        }
                    },
                    Err(e) => {
                        self.lines = None;
                        let i = self.take_index();
                        let mut r =
                            ErrorRecord::message(format!("{file}:{line}: cannot read: {e}"));
                        r.file = Some(file.clone());
                        r.line = Some(line as u32);
                        return Some((i, Input::Error(format!("{file}:{line}"), r)));
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
                            let mut r = ErrorRecord::message(format!("{name}: cannot read: {e}"));
                            r.file = Some(name.clone());
                            let i = self.take_index();
                            return Some((i, Input::Error(name, r)));
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
    if args.jobs == Some(0) {
        bail!("--jobs 0: at least one worker thread is needed; give --jobs N with N >= 1, or leave it out for one per core");
    }
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    };
    let expect = match &args.expect {
        Some(path) => Some(read_expectations(path, mode)?),
        None => None,
    };
    let files = collect_traces(&args.traces)?;
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
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
        diagnosis: (!args.no_diagnosis).then_some(Budget {
            max_vertices: (args.max_diagnosis_vertices > 0).then_some(args.max_diagnosis_vertices),
            timeout: budget.timeout,
        }),
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
        .min(256);
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
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && stdout.is_terminal()
        }
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut summary = Summary::default();
    let mut progress = (!args.no_progress && std::io::stderr().is_terminal()).then(|| Progress {
        total: (!streaming).then_some(total_files),
        last: Instant::now(),
        shown: false,
    });
    let mut checker = expect.map(|e| Checker {
        seen: vec![false; e.rows.len()],
        expect: e,
        mismatches: 0,
        unexpected: 0,
    });
    let names = NameIndex::new(&engine.model().alphabet);
    let model_name = args.model.display().to_string();
    run_parallel(&engine, &names, &source, &opts, jobs, |done| {
        if done.fallback && summary.fallbacks == 0 {
            eprintln!(
                "multitrace: note: {}: its components are not the locations {} was compiled with, so it is checked by term exploration (AC and AS need the compiled locations); further fallbacks are counted in the summary",
                done.record.name(),
                model_name
            );
        }
        summary.add(&done);
        if let Some(p) = &mut progress {
            p.tick(summary.count());
        }
        if let Some(c) = &mut checker {
            c.check(&done.record);
        }
        print_record(&mut out, &done.record, args.format, args.quiet, color)
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
        writeln!(out, "{}", summary.line())?;
    }
    out.flush()?;
    let mut code = summary.exit_code();
    if let Some(c) = &checker {
        if c.report() && code != 2 {
            code = 1;
        }
    }
    Ok(code)
}

/// Reads `--expect FILE`; rows for another mode are a usage error.
fn read_expectations(path: &Path, mode: Mode) -> Result<Expectations> {
    let text = read_text(path)?;
    let e = Expectations::parse(path, &text)?;
    if let Some(row) = e.rows.iter().find(|r| r.mode.is_some_and(|m| m != mode)) {
        let m = if mode == Mode::Complete {
            "prefix"
        } else {
            "complete"
        };
        bail!(
            "{}:{}: this expected verdict holds in {m} mode, and the check runs in the other one; add --mode {m}",
            path.display(),
            row.line
        );
    }
    Ok(e)
}

/// `--expect`: compares each record with its expected verdict.
struct Checker {
    expect: Expectations,
    seen: Vec<bool>,
    mismatches: usize,
    unexpected: usize,
}

impl Checker {
    fn check(&mut self, r: &Record) {
        let Some(i) = self.expect.find(&r.trace, r.id.as_deref()) else {
            self.unexpected += 1;
            return;
        };
        self.seen[i] = true;
        let row = &self.expect.rows[i];
        let location = r.local_error.as_ref().map(|b| b.location.as_str());
        let ok = row.verdict == r.verdict
            && row
                .reason
                .as_ref()
                .is_none_or(|x| r.reason.as_ref() == Some(x))
            && row
                .location
                .as_ref()
                .is_none_or(|x| location == Some(x.as_str()));
        if !ok {
            self.mismatches += 1;
            let want = match (&row.reason, &row.location) {
                (Some(r), Some(l)) => format!("{} ({r} at {l})", row.verdict),
                (Some(r), None) => format!("{} ({r})", row.verdict),
                _ => row.verdict.clone(),
            };
            let got = match (&r.reason, location) {
                (Some(x), Some(l)) => format!("{} ({x} at {l})", r.verdict),
                (Some(x), None) => format!("{} ({x})", r.verdict),
                _ => r.verdict.clone(),
            };
            eprintln!(
                "multitrace: MISMATCH {}: expected {want} ({}:{}), got {got}",
                r.name(),
                self.expect.dir.join("").display(),
                row.line
            );
        }
    }

    /// Prints the totals; whether anything mismatched.
    fn report(&self) -> bool {
        let missing = self.seen.iter().filter(|s| !**s).count();
        eprintln!(
            "multitrace: --expect: {} of {} checked against an expected verdict, {}{}{}",
            self.seen.len() - missing,
            plural(
                self.seen.len() - missing + self.unexpected,
                "multitrace",
                "multitraces"
            ),
            plural(self.mismatches, "mismatch", "mismatches"),
            if missing > 0 {
                format!(
                    "; {} not found among the inputs",
                    plural(missing, "expected row", "expected rows")
                )
            } else {
                String::new()
            },
            if self.unexpected > 0 {
                format!(
                    "; {} without an expected verdict",
                    plural(self.unexpected, "input", "inputs")
                )
            } else {
                String::new()
            },
        );
        self.mismatches > 0
    }
}

/// `1 multitrace`, `2 multitraces`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    // Sorted naturally (`t9` before `t100`), so that the order is the one a person expects
    // and which of two links to one directory is searched does not vary.
    entries.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
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

/// Natural order of names: runs of digits compare as numbers (`trace9` < `trace10`), the
/// rest as text; ties (`t01`, `t1`) are broken by the plain text order, so the order is total.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while !x.is_empty() && !y.is_empty() {
        let (dx, dy) = (x[0].is_ascii_digit(), y[0].is_ascii_digit());
        let run = |s: &[u8], digit: bool| {
            s.iter()
                .position(|c| c.is_ascii_digit() != digit)
                .unwrap_or(s.len())
        };
        let (nx, ny) = (run(x, dx), run(y, dy));
        let ord = if dx && dy {
            let (tx, ty) = (&x[..nx], &y[..ny]);
            let (sx, sy) = (
                &tx[tx.iter().position(|&c| c != b'0').unwrap_or(nx)..],
                &ty[ty.iter().position(|&c| c != b'0').unwrap_or(ny)..],
            );
            sx.len().cmp(&sy.len()).then_with(|| sx.cmp(sy))
        } else {
            x[..nx].cmp(&y[..ny])
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (x, y) = (&x[nx..], &y[ny..]);
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
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
    mut sink: impl FnMut(Done) -> std::io::Result<()>,
) -> Result<()> {
    let window = Window {
        printed: Mutex::new(0),
        moved: Condvar::new(),
        size: jobs * 64,
    };
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Done)>();
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
) -> Done {
    let start = Instant::now();
    let model = engine.model();
    let (trace, id, outcome) = match input {
        Input::File(path) => (
            path.display().to_string(),
            None,
            check_file(engine, scratch, &path, opts),
        ),
        Input::Error(name, e) => (name, None, Err(e)),
        Input::Line { file, line, text } => {
            let trace = format!("{file}:{line}");
            match parse_jsonl_line(&file, line, text.trim_end(), &model.alphabet, names) {
                Ok((id, traces)) => {
                    let r = engine
                        .check_letters(scratch, &traces, opts)
                        .map(|(v, p)| (v, p, model.alphabet.location_names().to_vec(), false))
                        .map_err(|e| ErrorRecord::message(format!("{trace}: {e}")));
                    // The id stands in for the line only when the line gave one.
                    let id = (id != trace).then_some(id);
                    (trace, id, r)
                }
                Err(e) => (trace, None, Err((&e).into())),
            }
        }
    };
    let time = start.elapsed();
    match outcome {
        Ok((v, p, locations, fallback)) => {
            let render = render(model);
            let names = Names {
                render: &render,
                locations: &locations,
            };
            Done {
                record: Record::checked(trace, id, &v, p, &names, time),
                fallback,
            }
        }
        Err(e) => Done {
            record: Record::error(trace, id, e, time),
            fallback: false,
        },
    }
}

fn model_error(e: multitrace_compiler::syntax::ModelError) -> ErrorRecord {
    match &e {
        multitrace_compiler::syntax::ModelError::Parse(p) => p.into(),
        _ => ErrorRecord::message(e.to_string()),
    }
}

fn check_file(
    engine: &Engine,
    scratch: &mut Scratch,
    path: &Path,
    opts: &CheckOptions,
) -> std::result::Result<Checked, ErrorRecord> {
    let text = read_text(path).map_err(model_error)?;
    let file = path.display().to_string();
    let model = engine.model();
    let check_error = |e: CheckError| {
        let mut r = ErrorRecord::message(format!("{file}: {e}"));
        r.file = Some(file.clone());
        r
    };
    if path.extension().is_some_and(|e| e == "mtf") {
        let traces = parse_mtf(&file, &text, &model.alphabet).map_err(|e| ErrorRecord::from(&e))?;
        let names = model.alphabet.location_names().to_vec();
        let (v, p) = engine
            .check_letters(scratch, &traces, opts)
            .map_err(check_error)?;
        return Ok((v, p, names, false));
    }
    let Some(sig) = model.signature() else {
        let mut r = ErrorRecord::message(format!(
            "{file}: this model is a raw automaton; give its multitraces as .mtf or JSON Lines"
        ));
        r.file = Some(file.clone());
        return Err(r);
    };
    let (mt, htf_names) = parse_htf(&file, &text, sig).map_err(|e| ErrorRecord::from(&e))?;
    let matches = engine.matches_locations(&mt);
    let (v, p) = engine
        .check_multitrace(scratch, &mt, opts)
        .map_err(check_error)?;
    // Verdicts are indexed by compiled location when the components are the locations, else
    // by component of the file.
    let names = if matches {
        model.alphabet.location_names().to_vec()
    } else {
        htf_names
    };
    let fallback = !matches && opts.choice == Choice::Auto && model.automata().is_some();
    Ok((v, p, names, fallback))
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
    format: FormatArg,
    quiet: bool,
    color: bool,
) -> std::io::Result<()> {
    let kind = rec.verdict_kind();
    if let Some(e) = &rec.error {
        // Also where scripts look for input errors (the record keeps the stream complete).
        eprintln!("multitrace: {}", e.message);
    }
    if quiet && matches!(kind, Some(VerdictKind::Pass | VerdictKind::WeakPass)) {
        return Ok(());
    }
    match format {
        FormatArg::Jsonl => writeln!(out, "{}", rec.to_json()),
        FormatArg::Text => {
            let line = rec.text_line();
            if color {
                // The verdict word only: green, yellow, red, magenta; errors bold red.
                let code = match kind {
                    Some(VerdictKind::Pass) => "32",
                    Some(VerdictKind::WeakPass) => "33",
                    Some(VerdictKind::Fail) => "31",
                    Some(VerdictKind::Inconclusive) => "35",
                    None => "1;31",
                };
                let name = rec.name();
                let rest = &line[name.len() + 2 + rec.verdict.len()..];
                writeln!(out, "{name}: \x1b[{code}m{}\x1b[0m{rest}", rec.verdict)?;
            } else {
                writeln!(out, "{line}")?;
            }
            if let Some(w) = &rec.witness {
                writeln!(out, "  witness: {}", w.join(" "))?;
            }
            Ok(())
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
    reasons: BTreeMap<(VerdictKind, String), usize>,
    errors: usize,
    fallbacks: usize,
    times: Vec<Duration>,
}

/// A duration with a unit that suits it, to three significant digits: `850 ns`, `12.3 µs`,
/// `4.56 ms`, `123 s`.
fn human(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    let (x, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let decimals = if unit == "ns" || x >= 100.0 {
        0
    } else if x < 10.0 {
        2
    } else {
        1
    };
    format!("{x:.decimals$} {unit}")
}

impl Summary {
    fn count(&self) -> usize {
        self.times.len()
    }

    fn add(&mut self, done: &Done) {
        let rec = &done.record;
        match rec.verdict_kind() {
            Some(k) => {
                *self.counts.entry(k).or_default() += 1;
                if let Some(r) = &rec.reason {
                    *self.reasons.entry((k, r.clone())).or_default() += 1;
                }
            }
            None => self.errors += 1,
        }
        self.fallbacks += usize::from(done.fallback);
        self.times.push(Duration::from_micros(rec.time_us));
    }

    /// `10 multitraces: 4 Pass, 2 WeakPass, 4 Fail (3 CentralError, 1 LocalError); total
    /// 1.234 ms, median 141.000 µs`.
    fn line(&mut self) -> String {
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
            parts.push(format!("{} Error", self.errors));
        }
        let mut line = format!(
            "{}: {}; total {}, median {}",
            plural(self.times.len(), "multitrace", "multitraces"),
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            },
            human(total),
            human(median)
        );
        if self.fallbacks > 0 {
            line.push_str(&format!(
                "; {} checked by term exploration (components are not the compiled locations)",
                self.fallbacks
            ));
        }
        line
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
    fn durations_have_a_suitable_unit() {
        let h = |ns: u64| human(Duration::from_nanos(ns));
        assert_eq!(h(850), "850 ns");
        assert_eq!(h(12_345), "12.3 µs");
        assert_eq!(h(4_560_000), "4.56 ms");
        assert_eq!(h(123_000_000_000), "123 s");
        assert_eq!(h(0), "0 ns");
    }

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut v = vec!["t100", "t9", "t10", "a", "t09", "t9b", "t", "b2c10", "b2c9"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["a", "b2c9", "b2c10", "t", "t09", "t9", "t9b", "t10", "t100"]
        );
        assert_eq!(natural_cmp("x1", "x1"), std::cmp::Ordering::Equal);
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
