//! The page written while a batch runs ([`ReportWriter`]): the head and one compact row per
//! record streamed into a temporary file, then the counts, timing, options, failures and
//! diagram when the batch ends, and the file renamed into place.

use super::failures::failure_html;
use super::reread::TraceSource;
use super::setup::{ReportOptions, ReportSetup};
use super::values::{escape, human_us, script_json, thousands};
use multitrace_model::record::Record;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// Verdict names in the order of the page's codes (`Error` last).
const VERDICTS: [&str; 5] = ["Pass", "WeakPass", "Fail", "Inconclusive", "Error"];

/// Why a report could not be written.
#[derive(Debug)]
pub enum ReportError {
    /// The path names a directory (or ends with `/`): a report is a file.
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
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
            ReportError::IsDirectory { path } => write!(
                f,
                "{}: is a directory; --report names the HTML file to write (e.g. {}/report.html)",
                path.display(),
                path.display().to_string().trim_end_matches('/')
            ),
            ReportError::Io { path, error } => {
                write!(f, "{}: cannot write the report: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for ReportError {}

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
    /// The temporary file (removed when dropped, renamed into place by `finish`).
    temp: Option<tempfile::TempPath>,
    /// Temporary files of killed runs for the same report, removed by [`ReportWriter::create`].
    stale_removed: Vec<PathBuf>,
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

impl ReportWriter {
    /// Starts the page at `path` (written under a temporary name beside it until
    /// [`ReportWriter::finish`]).
    pub fn create(
        path: &Path,
        setup: ReportSetup,
        options: ReportOptions,
    ) -> Result<Self, ReportError> {
        // Checked before any work: a directory cannot become the page at the end.
        let text = path.as_os_str().to_string_lossy();
        if path.is_dir() || text.ends_with('/') || path.file_name().is_none() {
            return Err(ReportError::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "report.html".into());
        // In the target directory (the rename stays on one file system), created with O_EXCL
        // under an unpredictable name: a file or symlink planted there is never followed. The
        // name says whose it is (`.NAME.multitrace-tmp-PID-XXXXXX`), so that the files left by
        // a run that was killed (`kill -9`, a crash: no handler runs) are removed by the next
        // run for the same report.
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let stale_removed = remove_stale_temps(dir, &name);
        let (file, temp) = tempfile::Builder::new()
            .prefix(&format!(".{name}.{TEMP_TAG}{}-", std::process::id()))
            .tempfile_in(dir)
            .map_err(io(path))?
            .into_parts();
        let mut w = ReportWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
            temp: Some(temp),
            stale_removed,
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

    /// The temporary file being written (until [`ReportWriter::finish`]): what a signal
    /// handler removes when the process is stopped.
    pub fn temp_path(&self) -> Option<&Path> {
        self.temp.as_deref()
    }

    /// The temporary files that killed runs had left for this report, removed when it was
    /// created (for the front end to say so).
    pub fn stale_removed(&self) -> &[PathBuf] {
        &self.stale_removed
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
        // The page slices the previous name with JavaScript's `slice`, which counts UTF-16
        // units: a character outside the BMP (`😀`) is two of them.
        let shared: usize = name.chars().take(shared).map(char::len_utf16).sum();
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
        if let Some(temp) = self.temp.take() {
            temp.persist(&self.path).map_err(|e| io(&path)(e.error))?;
        }
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

/// What marks the temporary file of a report: `.NAME.multitrace-tmp-PID-XXXXXX`.
const TEMP_TAG: &str = "multitrace-tmp-";

/// Removes, in `dir`, the temporary files that a killed run left for the report `name`: only
/// files named `.NAME.multitrace-tmp-PID-XXXXXX` for this very `name`, regular files (not
/// links), empty or holding the start of a multitrace page, whose process `PID` is no longer
/// running (read in `/proc`; where there is no `/proc`, nothing is removed). A run writing
/// the same report at the same time keeps its file. Returns the files removed.
fn remove_stale_temps(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    if !Path::new("/proc/self").exists() {
        return removed;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return removed;
    };
    let prefix = format!(".{name}.{TEMP_TAG}");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        let Some((pid, random)) = rest.split_once('-') else {
            continue;
        };
        let ours = random.len() == 6 && random.bytes().all(|b| b.is_ascii_alphanumeric());
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if !ours || pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let path = entry.path();
        let is_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if is_file && holds_a_page_start(&path) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// Whether `path` is empty or starts as every report page does (its generator named).
fn holds_a_page_start(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(512);
    let Ok(f) = File::open(path) else {
        return false;
    };
    if f.take(512).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    head.is_empty()
        || (text.starts_with("<!DOCTYPE html>")
            && text.contains("<meta name=\"generator\" content=\"multitrace "))
}

impl Drop for ReportWriter {
    fn drop(&mut self) {
        // An unfinished page's temporary file goes with its `TempPath`.
        if !self.finished {
            self.temp.take();
        }
    }
}
