//! The HTML report of a batch: one self-contained page (no network, no external file) with the
//! counts per verdict and reason, the timing, the options used, a table of the multitraces that
//! can be filtered by verdict, the first failures in full (one lane per location: the consumed
//! part, the blocked actions highlighted, the diagnosis) and the model's sequence diagram.
//!
//! The page is written while the batch runs, so memory stays small whatever the number of
//! multitraces: each [`Record`] becomes one compact row of a JSON array streamed into the page
//! (names share their prefix with the previous row's), which the page's script turns into a
//! paged table; only the first [`ReportOptions::full_failures`] failures are kept, and drawn in
//! full when the batch ends ([`ReportWriter::finish`]), with their local traces read again
//! through a [`TraceSource`]. The file is written under a temporary name and renamed at the
//! end, so an interrupted batch leaves no half page behind.
//!
//! # Example
//!
//! ```
//! use multitrace_compiler::report::{ReportOptions, ReportSetup, ReportWriter};
//! use multitrace_runtime::artifact::decode;
//! use multitrace_runtime::batch::{Batch, BatchOptions, Item};
//! use multitrace_runtime::check::{CheckOptions, Engine};
//!
//! let engine = Engine::new(decode(include_bytes!("../../../fixtures/golden/seed004-mqtt.v1.mtm"))?);
//! let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
//! let path = std::env::temp_dir().join(format!("report-doc-{}.html", std::process::id()));
//! let setup = ReportSetup::new(engine.model(), "mqtt.mtm");
//! let mut report = ReportWriter::create(&path, setup, ReportOptions::default())?;
//! let item = Item {
//!     trace: "bad".into(),
//!     id: None,
//!     traces: vec![("clt1".into(), vec!["clt1!begin".into()]), ("brok".into(), vec!["brok?pub".into()])],
//! };
//! let outcome = batch.check_item(&mut engine.scratch(), item.clone());
//! report.add(&outcome.record)?;
//! let stats = report.finish(&mut |_: &[&multitrace_runtime::record::Record]| vec![Some(item.traces.clone())])?;
//! assert_eq!((stats.multitraces, stats.full_failures), (1, 1));
//! let page = std::fs::read_to_string(&path)?;
//! assert!(page.contains(r#"class="act blocked""#));
//! // Self-contained: nothing is fetched.
//! assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::diagram;
use multitrace_runtime::batch::Batch;
use multitrace_runtime::formats::{parse_jsonl_line, NameIndex};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::record::{BlockedRecord, Record};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// Verdict names in the order of the page's codes (`Error` last).
const VERDICTS: [&str; 5] = ["Pass", "WeakPass", "Fail", "Inconclusive", "Error"];

/// Default number of failures shown in full.
pub const DEFAULT_FULL_FAILURES: usize = 100;

/// A lane longer than this is shown around its interesting points only.
const LANE_FULL: usize = 48;

/// How much the page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportOptions {
    /// Failures drawn in full (lanes and diagnosis), in input order; the others are rows of
    /// the table like every multitrace.
    pub full_failures: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            full_failures: DEFAULT_FULL_FAILURES,
        }
    }
}

/// What the page says about the batch besides its records.
#[derive(Clone, Debug)]
pub struct ReportSetup {
    /// The model as the user named it.
    pub model_name: String,
    /// `automata` or `term-only`.
    pub model_kind: String,
    /// Location names, in order.
    pub locations: Vec<String>,
    /// The model's digest.
    pub digest: u64,
    /// The model's sequence diagram (SVG), or why there is none.
    pub diagram: Result<String, diagram::DiagramError>,
    /// The options used, as (name, value) pairs, in the order to show them.
    pub options: Vec<(String, String)>,
    /// The inputs, as given.
    pub inputs: Vec<String>,
}

impl ReportSetup {
    /// The setup of a report on `model` (named `model_name`), with its diagram; no options
    /// and no inputs listed yet.
    pub fn new(model: &CompiledModel, model_name: &str) -> Self {
        ReportSetup {
            model_name: model_name.to_string(),
            model_kind: model.kind_name().to_string(),
            locations: model.alphabet.location_names().to_vec(),
            digest: model.digest,
            diagram: diagram::model_svg(model, model_name),
            options: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

/// Why a report could not be written.
#[derive(Debug)]
pub enum ReportError {
    /// The file could not be created, written or renamed.
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Io { path, error } => {
                write!(f, "{}: cannot write the report: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for ReportError {}

/// Local traces by location name (the names the records use).
pub type LocalTraces = Vec<(String, Vec<String>)>;

/// Reads again the local traces of the failures shown in full, all at once (so that a JSON
/// Lines file is read once): one entry per record, `None` when they cannot be read again
/// (standard input, a file changed since). A closure `FnMut(&[&Record]) -> Vec<Option<..>>`
/// is one.
pub trait TraceSource {
    /// The local traces of each record, in order.
    fn traces(&mut self, records: &[&Record]) -> Vec<Option<LocalTraces>>;
}

impl<F: FnMut(&[&Record]) -> Vec<Option<LocalTraces>>> TraceSource for F {
    fn traces(&mut self, records: &[&Record]) -> Vec<Option<LocalTraces>> {
        self(records)
    }
}

/// Reads the traces of records written by [`Batch::run`] again: trace files (`.htf`, `.mtf`)
/// as the batch reads them ([`Batch::read_items`]), and lines of JSON Lines files (`FILE:LINE`),
/// each file read once. Standard input cannot be read again.
pub struct ReRead<'a, 'b> {
    batch: &'a Batch<'b>,
}

impl<'a, 'b> ReRead<'a, 'b> {
    /// Reads through `batch` (the one that checked the records, or one over the same model).
    pub fn new(batch: &'a Batch<'b>) -> Self {
        ReRead { batch }
    }
}

/// `FILE:LINE` of a JSON Lines record.
fn jsonl_line(trace: &str) -> Option<(&str, usize)> {
    let (file, line) = trace.rsplit_once(':')?;
    let line = line.parse().ok()?;
    Path::new(file)
        .extension()
        .is_some_and(|e| e == "jsonl")
        .then_some((file, line))
}

impl TraceSource for ReRead<'_, '_> {
    fn traces(&mut self, records: &[&Record]) -> Vec<Option<LocalTraces>> {
        let model = self.batch.engine().model();
        let alphabet = &model.alphabet;
        let mut out: Vec<Option<LocalTraces>> = vec![None; records.len()];
        let mut lines: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
        for (k, r) in records.iter().enumerate() {
            if let Some((file, line)) = jsonl_line(&r.trace) {
                lines.entry(file).or_default().push((line, k));
                continue;
            }
            let path = Path::new(&r.trace);
            if path.is_file() {
                out[k] = self
                    .batch
                    .read_items(path)
                    .ok()
                    .and_then(|mut v| (v.len() == 1).then(|| v.remove(0).traces));
            }
        }
        let names = NameIndex::new(alphabet);
        for (file, mut wanted) in lines {
            wanted.sort_unstable();
            let Ok(f) = File::open(file) else { continue };
            let mut reader = std::io::BufReader::new(f);
            let mut text = String::new();
            let mut number = 0;
            for (line, k) in wanted {
                while number < line {
                    text.clear();
                    match reader.read_line(&mut text) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => number += 1,
                    }
                }
                if number != line {
                    break;
                }
                if let Ok((_, traces)) =
                    parse_jsonl_line(file, line, text.trim_end(), alphabet, &names)
                {
                    out[k] = Some(
                        alphabet
                            .location_names()
                            .iter()
                            .zip(&traces)
                            .map(|(n, t)| {
                                (
                                    n.clone(),
                                    t.iter().map(|&l| alphabet.name(l).to_string()).collect(),
                                )
                            })
                            .collect(),
                    );
                }
            }
        }
        out
    }
}

/// What a finished report holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportStats {
    /// The page's file.
    pub path: PathBuf,
    /// Multitraces (records) in the report.
    pub multitraces: usize,
    /// Failures drawn in full.
    pub full_failures: usize,
    /// Failures in all.
    pub failures: usize,
    /// Size of the page in bytes.
    pub bytes: u64,
}

/// Writes a report while a batch runs: [`ReportWriter::create`], [`ReportWriter::add`] for
/// each record in input order, then [`ReportWriter::finish`].
pub struct ReportWriter {
    out: BufWriter<File>,
    path: PathBuf,
    temp: PathBuf,
    setup: ReportSetup,
    options: ReportOptions,
    started: Instant,
    counts: [usize; 5],
    reasons: BTreeMap<(usize, String), usize>,
    reason_codes: HashMap<String, usize>,
    reason_names: Vec<String>,
    times: Vec<u32>,
    previous: String,
    failures: Vec<Record>,
    failures_total: usize,
    finished: bool,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ReportError + '_ {
    move |error| ReportError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    diagram::svg::escape(s)
}

/// JSON for a `<script type="application/json">` element: `<` never appears raw, so the text
/// cannot close the element.
fn script_json(v: &str) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "\"\"".into())
        .replace('<', "\\u003c")
}

impl ReportWriter {
    /// Starts the page at `path` (written under a temporary name beside it until
    /// [`ReportWriter::finish`]).
    pub fn create(
        path: &Path,
        setup: ReportSetup,
        options: ReportOptions,
    ) -> Result<Self, ReportError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "report.html".into());
        let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::create(&temp).map_err(io(path))?;
        let mut w = ReportWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
            temp,
            setup,
            options,
            started: Instant::now(),
            counts: [0; 5],
            reasons: BTreeMap::new(),
            reason_codes: HashMap::new(),
            reason_names: Vec::new(),
            times: Vec::new(),
            previous: String::new(),
            failures: Vec::new(),
            failures_total: 0,
            finished: false,
        };
        let head = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"multitrace {}\">\n<title>multitrace report: {}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<div id=\"page\">\n<script type=\"application/json\" id=\"mt-rows\">[",
            env!("CARGO_PKG_VERSION"),
            escape(&w.setup.model_name)
        );
        w.out.write_all(head.as_bytes()).map_err(io(path))?;
        Ok(w)
    }

    /// Adds one record (in input order).
    pub fn add(&mut self, r: &Record) -> Result<(), ReportError> {
        let v = r.verdict_kind().map_or(4, |k| {
            VERDICTS.iter().position(|&n| n == k.name()).unwrap_or(4)
        });
        self.counts[v] += 1;
        let reason = match &r.reason {
            Some(reason) => {
                *self.reasons.entry((v, reason.clone())).or_default() += 1;
                let next = self.reason_names.len();
                let code = *self.reason_codes.entry(reason.clone()).or_insert(next);
                if code == next {
                    self.reason_names.push(reason.clone());
                }
                code as i64
            }
            None => -1,
        };
        self.times.push(r.time_us.min(u32::MAX as u64) as u32);
        let full = if v == 2 {
            self.failures_total += 1;
            if self.failures.len() < self.options.full_failures {
                self.failures.push(r.clone());
                self.failures.len() as i64 - 1
            } else {
                -1
            }
        } else {
            -1
        };
        let name = r.name();
        let shared = self
            .previous
            .char_indices()
            .zip(name.chars())
            .take_while(|((_, a), b)| a == b)
            .count();
        let rest: String = name.chars().skip(shared).collect();
        let explanation = match &r.explanation {
            Some(e) => script_json(e),
            None => "0".into(),
        };
        let row = format!(
            "{}[{shared},{},{v},{reason},{},{explanation},{full}]",
            if self.times.len() > 1 { ",\n" } else { "\n" },
            script_json(&rest),
            r.time_us
        );
        self.previous = name.to_string();
        self.out.write_all(row.as_bytes()).map_err(io(&self.path))
    }

    /// Number of records added so far.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether no record was added.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Writes the rest of the page (the failures in full, with their local traces from
    /// `traces`) and renames it to its final name.
    pub fn finish(mut self, traces: &mut dyn TraceSource) -> Result<ReportStats, ReportError> {
        let wall = self.started.elapsed();
        let failures = std::mem::take(&mut self.failures);
        let refs: Vec<&Record> = failures.iter().collect();
        let mut local = traces.traces(&refs);
        local.resize(refs.len(), None);
        let mut s = String::new();
        s.push_str("\n]</script>\n");
        let reasons: Vec<String> = self.reason_names.iter().map(|r| script_json(r)).collect();
        let _ = writeln!(
            s,
            "<script type=\"application/json\" id=\"mt-reasons\">[{}]</script>",
            reasons.join(",")
        );
        self.summary(&mut s, wall);
        self.table(&mut s);
        let _ = writeln!(s, "<section id=\"mt-failures\">");
        let _ = writeln!(
            s,
            "<h2>Failures</h2>\n<p class=\"muted\">{}</p>",
            if self.failures_total == 0 {
                "No multitrace failed.".to_string()
            } else if self.failures_total <= failures.len() {
                format!(
                    "Every failure in full ({}): each location's local trace is one lane; green actions are consumed at the furthest point where the local traces are still consistent with the model (the blue bar), the blocked action is red, and the table gives what is allowed there.",
                    self.failures_total
                )
            } else {
                format!(
                    "The first {} of {} failures in full (the others are rows of the table above): each location's local trace is one lane; green actions are consumed at the furthest point where the local traces are still consistent with the model (the blue bar), the blocked action is red, and the table gives what is allowed there.",
                    failures.len(),
                    self.failures_total
                )
            }
        );
        for (k, (r, t)) in failures.iter().zip(&local).enumerate() {
            failure_html(&mut s, k, r, t.as_ref());
        }
        s.push_str("</section>\n");
        self.model_section(&mut s);
        let _ = write!(s, "</div>\n<script>{JS}</script>\n</body>\n</html>\n");
        let path = self.path.clone();
        self.out.write_all(s.as_bytes()).map_err(io(&path))?;
        self.out.flush().map_err(io(&path))?;
        self.out.get_ref().sync_all().map_err(io(&path))?;
        std::fs::rename(&self.temp, &self.path).map_err(io(&path))?;
        self.finished = true;
        let bytes = std::fs::metadata(&self.path).map_err(io(&path))?.len();
        Ok(ReportStats {
            path: self.path.clone(),
            multitraces: self.times.len(),
            full_failures: failures.len(),
            failures: self.failures_total,
            bytes,
        })
    }

    fn summary(&mut self, s: &mut String, wall: std::time::Duration) {
        let n = self.times.len();
        let _ = writeln!(
            s,
            "<header id=\"mt-summary\">\n<h1>multitrace report</h1>\n<p class=\"muted\">Model <code>{}</code> ({}, locations {}); <span id=\"mt-total\" data-count=\"{n}\">{} {}</span>.</p>\n<div class=\"grid\">",
            escape(&self.setup.model_name),
            escape(&self.setup.model_kind),
            escape(&self.setup.locations.join(" ")),
            thousands(n),
            if n == 1 { "multitrace" } else { "multitraces" }
        );
        s.push_str(
            "<table class=\"counts\" id=\"mt-counts\">\n<tr><th>verdict</th><th>count</th></tr>\n",
        );
        for (v, name) in VERDICTS.iter().enumerate() {
            let c = self.counts[v];
            if c == 0 && v == 4 {
                continue;
            }
            let _ = writeln!(
                s,
                "<tr class=\"verdict\" data-verdict=\"{name}\"><td><span class=\"badge v-{name}\">{name}</span></td><td class=\"n\">{}</td></tr>",
                thousands(c)
            );
            for ((rv, reason), c) in &self.reasons {
                if *rv == v {
                    let _ = writeln!(
                        s,
                        "<tr class=\"reason\" data-verdict=\"{name}\" data-reason=\"{r}\"><td>{r}</td><td class=\"n\">{}</td></tr>",
                        thousands(*c),
                        r = escape(reason)
                    );
                }
            }
        }
        s.push_str("</table>\n");
        let mut times = std::mem::take(&mut self.times);
        let total: u64 = times.iter().map(|&t| u64::from(t)).sum();
        times.sort_unstable();
        let q = |p: f64| -> u64 {
            if times.is_empty() {
                0
            } else {
                u64::from(times[((times.len() - 1) as f64 * p).round() as usize])
            }
        };
        let _ = writeln!(
            s,
            "<table class=\"timing\" id=\"mt-timing\">\n<tr><th>time per multitrace</th><th></th></tr>\n<tr><td>median</td><td class=\"n\">{}</td></tr>\n<tr><td>90th percentile</td><td class=\"n\">{}</td></tr>\n<tr><td>99th percentile</td><td class=\"n\">{}</td></tr>\n<tr><td>max</td><td class=\"n\">{}</td></tr>\n<tr><td>sum (all workers)</td><td class=\"n\">{}</td></tr>\n<tr><td>wall clock of the batch</td><td class=\"n\">{}</td></tr>\n</table>",
            human_us(q(0.5)),
            human_us(q(0.9)),
            human_us(q(0.99)),
            human_us(times.last().map_or(0, |&t| u64::from(t))),
            human_us(total),
            human_us(wall.as_micros().min(u64::MAX as u128) as u64),
        );
        self.times = times;
        s.push_str("<dl class=\"options\" id=\"mt-options\">\n");
        let _ = writeln!(
            s,
            "<dt>model</dt><dd>{} (digest {:016x})</dd>",
            escape(&self.setup.model_name),
            self.setup.digest
        );
        if !self.setup.inputs.is_empty() {
            let _ = writeln!(
                s,
                "<dt>inputs</dt><dd>{}</dd>",
                escape(&self.setup.inputs.join(" "))
            );
        }
        for (k, v) in &self.setup.options {
            let _ = writeln!(s, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
        }
        s.push_str("</dl>\n</div>\n</header>\n");
    }

    fn table(&self, s: &mut String) {
        s.push_str("<section id=\"mt-table\">\n<h2>Multitraces</h2>\n<div class=\"filters\" role=\"toolbar\">\n");
        let n = self.times.len();
        let _ = writeln!(
            s,
            "<button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">All <span class=\"n\">{}</span></button>",
            thousands(n)
        );
        for (v, name) in VERDICTS.iter().enumerate() {
            if self.counts[v] > 0 {
                let _ = writeln!(
                    s,
                    "<button type=\"button\" data-filter=\"{name}\" aria-pressed=\"false\">{name} <span class=\"n\">{}</span></button>",
                    thousands(self.counts[v])
                );
            }
        }
        s.push_str("<input id=\"mt-search\" type=\"search\" placeholder=\"filter by name or explanation\">\n</div>\n");
        s.push_str("<table class=\"rows\" id=\"mt-rows-table\">\n<colgroup><col class=\"c-i\"><col class=\"c-name\"><col class=\"c-v\"><col class=\"c-r\"><col class=\"c-e\"><col class=\"c-t\"></colgroup>\n<thead><tr><th>#</th><th>multitrace</th><th>verdict</th><th>reason</th><th>explanation</th><th>time</th></tr></thead>\n<tbody id=\"mt-tbody\"></tbody>\n</table>\n");
        s.push_str("<div class=\"pager\"><button type=\"button\" id=\"mt-prev\">previous</button><span id=\"mt-pageinfo\"></span><button type=\"button\" id=\"mt-next\">next</button></div>\n<noscript><p>The table needs JavaScript; the counts above and the failures below do not.</p></noscript>\n</section>\n");
    }

    fn model_section(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "<section id=\"mt-model\">\n<h2>The model</h2>\n<p class=\"muted\"><code>{}</code>: {}, locations {}.</p>",
            escape(&self.setup.model_name),
            escape(&self.setup.model_kind),
            escape(&self.setup.locations.join(" "))
        );
        match &self.setup.diagram {
            Ok(svg) => {
                let _ = writeln!(s, "<div class=\"diagram\">\n{svg}</div>");
            }
            Err(why) => {
                let why = why.to_string();
                let _ = writeln!(s, "<p class=\"muted\">No diagram: {}.</p>", escape(&why));
            }
        }
        s.push_str("</section>\n");
    }
}

impl Drop for ReportWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let head = match digits.len() % 3 {
        0 => 3.min(digits.len()),
        r => r,
    };
    let mut out = digits[..head].to_string();
    for group in digits.as_bytes()[head..].chunks(3) {
        out.push(',');
        out.extend(group.iter().map(|&b| b as char));
    }
    out
}

/// `850 µs`, `4.56 ms`, `1.23 s`.
fn human_us(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        let ms = us as f64 / 1e3;
        if ms < 10.0 {
            format!("{ms:.2} ms")
        } else {
            format!("{ms:.1} ms")
        }
    } else {
        format!("{:.2} s", us as f64 / 1e6)
    }
}

/// The lanes and the diagnosis of one failure.
fn failure_html(s: &mut String, k: usize, r: &Record, traces: Option<&LocalTraces>) {
    let _ = writeln!(
        s,
        "<article class=\"failure\" id=\"f{k}\" data-trace=\"{}\" data-reason=\"{}\">\n<h3>{} <span class=\"badge v-Fail\">Fail</span> <span class=\"muted\">{}</span></h3>",
        escape(r.name()),
        escape(r.reason.as_deref().unwrap_or("")),
        escape(r.name()),
        escape(r.reason.as_deref().unwrap_or(""))
    );
    if let Some(e) = &r.explanation {
        let _ = writeln!(s, "<p class=\"explanation\">{}</p>", escape(e));
    }
    let diagnosis = r.diagnosis.as_ref();
    // Locations: those of the traces, then any the diagnosis names besides.
    let mut locations: Vec<String> = traces
        .map(|t| t.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let mut seen: BTreeSet<String> = locations.iter().cloned().collect();
    if let Some(d) = diagnosis {
        for (n, _) in &d.consumed.0 {
            if seen.insert(n.clone()) {
                locations.push(n.clone());
            }
        }
    }
    if let Some(l) = &r.local_error {
        if seen.insert(l.location.clone()) {
            locations.push(l.location.clone());
        }
    }
    s.push_str("<div class=\"lanes\">\n");
    for loc in &locations {
        let actions = traces.and_then(|t| t.iter().find(|(n, _)| n == loc).map(|(_, a)| a));
        let consumed =
            diagnosis.and_then(|d| d.consumed.0.iter().find(|(n, _)| n == loc).map(|&(_, c)| c));
        let mut marks: Vec<&BlockedRecord> = diagnosis
            .map(|d| d.blocked.iter().filter(|b| &b.location == loc).collect())
            .unwrap_or_default();
        if let Some(l) = r.local_error.as_ref().filter(|b| &b.location == loc) {
            if !marks.contains(&l) {
                marks.push(l);
            }
        }
        lane_html(s, loc, actions.map(Vec::as_slice), consumed, &marks);
    }
    s.push_str("</div>\n");
    if traces.is_none() {
        s.push_str("<p class=\"muted\">The local traces could not be read again (standard input, or a file changed since): the lanes show what the diagnosis says.</p>\n");
    }
    // What the model allows where each location is blocked, and, for a LocalError, what the
    // location's local verifier allowed on its own.
    let mut rows: Vec<(&BlockedRecord, String)> = diagnosis
        .map(|d| {
            d.blocked
                .iter()
                .map(|b| (b, "the model, at the furthest consistent point".to_string()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(l) = &r.local_error {
        rows.push((
            l,
            format!("{}'s local verifier, on its trace alone", l.location),
        ));
    }
    if !rows.is_empty() {
        s.push_str("<table class=\"diag\"><tr><th>location</th><th>action</th><th>found</th><th>allowed there</th><th>according to</th></tr>\n");
        for (b, source) in rows {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&b.location),
                b.position,
                b.found.as_deref().map_or("end of its trace".to_string(), escape),
                if b.allowed.is_empty() {
                    "nothing".to_string()
                } else {
                    escape(&b.allowed.join(" "))
                },
                escape(&source)
            );
        }
        s.push_str("</table>\n");
    }
    if let Some(d) = diagnosis {
        let mut notes = Vec::new();
        if d.ended {
            notes.push("the interaction has ended at that point");
        }
        if d.partial {
            notes.push("the diagnosis is partial: its budget ran out");
        }
        if !notes.is_empty() {
            let _ = writeln!(s, "<p class=\"muted\">{}.</p>", notes.join("; "));
        }
    }
    s.push_str("</article>\n");
}

/// One lane: the location's actions (around the interesting points when long), the consumed
/// ones green, a bar where consumption stops, the blocked actions (`marks`: the diagnosis's and
/// the local verifier's) red.
fn lane_html(
    s: &mut String,
    location: &str,
    actions: Option<&[String]>,
    consumed: Option<usize>,
    marks: &[&BlockedRecord],
) {
    let _ = write!(
        s,
        "<div class=\"loc\">{}</div><div class=\"lane\" data-location=\"{}\">",
        escape(location),
        escape(location)
    );
    // Blocked positions count from 1; indices from 0.
    let marked: BTreeSet<usize> = marks.iter().map(|b| b.position - 1).collect();
    let title = |i: usize| -> String {
        let b = marks.iter().find(|b| b.position - 1 == i);
        match b {
            Some(b) if b.allowed.is_empty() => format!(
                "action {}: not allowed here; the model allows nothing",
                i + 1
            ),
            Some(b) => format!(
                "action {}: not allowed here; the model allows {}",
                i + 1,
                b.allowed.join(" ")
            ),
            None => format!("action {}", i + 1),
        }
    };
    match actions {
        Some(actions) => {
            let len = actions.len();
            let cut = consumed.unwrap_or(0).min(len);
            let mut show = vec![len <= LANE_FULL; len];
            if len > LANE_FULL {
                let mut keep = |a: usize, b: usize| {
                    for x in show.iter_mut().take(b.min(len)).skip(a) {
                        *x = true;
                    }
                };
                keep(0, 6);
                keep(cut.saturating_sub(12), cut + 12);
                for &m in &marked {
                    keep(m.saturating_sub(3), m + 4);
                }
                keep(len.saturating_sub(4), len);
            }
            if len == 0 {
                s.push_str("<span class=\"empty\">empty trace</span>");
            }
            let mut i = 0;
            while i <= len {
                if consumed.is_some() && i == cut {
                    let _ = write!(s, "<span class=\"cut\" title=\"consistent up to here: {cut} action{} consumed\"></span>", if cut == 1 { "" } else { "s" });
                }
                if i == len {
                    break;
                }
                if !show[i] {
                    let start = i;
                    while i < len && !show[i] && !(consumed.is_some() && i == cut) {
                        i += 1;
                    }
                    let _ = write!(s, "<span class=\"gap\">… {} more …</span>", i - start);
                    continue;
                }
                let class = if marked.contains(&i) {
                    "act blocked"
                } else if consumed.is_some() && i < cut {
                    "act done"
                } else {
                    "act"
                };
                let _ = write!(
                    s,
                    "<span class=\"{class}\" data-position=\"{}\" title=\"{}\">{}</span>",
                    i + 1,
                    escape(&title(i)),
                    escape(&actions[i])
                );
                i += 1;
            }
            // Blocked at the end of the trace: it cannot end there.
            for b in marks.iter().filter(|b| b.found.is_none()) {
                let _ = write!(
                    s,
                    "<span class=\"act blocked end\" data-position=\"{}\" title=\"the trace cannot end here; the model allows {}\">end of trace</span>",
                    b.position,
                    escape(&b.allowed.join(" "))
                );
            }
        }
        None => {
            // Only the diagnosis: how many were consumed, and the blocked action.
            if let Some(c) = consumed {
                if c > 0 {
                    let _ = write!(
                        s,
                        "<span class=\"act done\">{c} action{}</span>",
                        if c == 1 { "" } else { "s" }
                    );
                }
                s.push_str("<span class=\"cut\"></span>");
            }
            for b in marks {
                let _ = write!(
                    s,
                    "<span class=\"act blocked{}\" data-position=\"{}\" title=\"{}\">{}</span>",
                    if b.found.is_none() { " end" } else { "" },
                    b.position,
                    escape(&title(b.position - 1)),
                    escape(b.found.as_deref().unwrap_or("end of trace"))
                );
            }
        }
    }
    s.push_str("</div>\n");
}
