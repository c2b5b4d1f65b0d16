//! Broken and hostile inputs (issue 6): every case gives exit status 2 and one precise
//! message, never a panic.
//!
//! Each case is a file `tests/bad_inputs/cases/NAME.case`; the data files it uses sit beside
//! it (`NAME.hif`, `NAME.htf`, ...). A case file has `# comment` lines and `key: value` lines:
//!
//! - `args: ...` the command line after `multitrace`, split on whitespace (required);
//! - `exit: N` the expected exit status (default 2);
//! - `stderr: TEXT` a fragment that standard error must contain (one or more lines; the
//!   fragment of a file error includes its `file:line:column`);
//! - `stderr-lacks: TEXT` a fragment that standard error must not contain;
//! - `stdout: TEXT` a fragment that standard output must contain (verdicts of the traces that
//!   could be read);
//! - `generate: FILE GENERATOR ARGS...` writes an input too large or too binary to store
//!   (generators below), before the command runs;
//! - `run: ...` a command line after `multitrace` run before the command (e.g. `compile`),
//!   which must exit with status 0; `generate:` and `run:` steps run in file order, so a
//!   source can be edited after it was compiled;
//! - `absent: FILE` a file that must not exist after the run (relative paths are from the
//!   cases directory, where the command runs);
//! - `limit: seconds N` / `limit: memory-mb N` bounds on the run's wall time and peak resident
//!   memory (measured from `/proc` on Linux);
//! - `limit: address-space-mb N` runs the command under an address-space limit of `N` MiB
//!   (`prlimit --as`, Linux's util-linux), so that an allocation past it fails: the case must
//!   still answer (issue 22: budgets bound memory).
//!
//! Placeholders in values: `{name}` (the case's name), `{root}` (the repository) and `{tmp}`
//! (a scratch directory, removed after the case). The command runs in the cases directory,
//! so `{name}.htf` names the case's own file and messages quote it as such.
//!
//! Every run must also: exit with the expected status, print no `panicked` and no
//! `RUST_BACKTRACE`, and print exactly one error line (lines other than `multitrace: note:`)
//! on standard error when the status is 2.
//!
//! Generators:
//! - `nested-seq N`: an interaction over the MQTT fixture's names nested `N` deep,
//!   `seq(seq(...seq(clt1 -- begin -> brok, o)..., o), o)`;
//! - `nested-mixed N`: `N` levels cycling through strict, seq, par, alt, loopW and coreg;
//! - `nested-strict-seq N`: `N` levels alternating `strict(` and `seq(`, each closed with a
//!   message (`..., clt1 -- pub -> brok)`), the innermost `clt1 -- begin -> brok`;
//! - `long-trace N`: a `.htf` of the MQTT fixture whose `clt1` local trace has `N` actions
//!   (`clt1!begin`, `N - 2` times `clt1!pub`, `clt1!end`);
//! - `repeat TEXT N`: `TEXT` (no whitespace) `N` times;
//! - `bytes N SEED`: `N` pseudo-random bytes (the high byte of each draw of
//!   `multitrace_model::rng::Rng::new(SEED)`);
//! - `from FILE EDITS...`: a copy of `FILE` (a path, placeholders allowed) with edits applied
//!   in order: `truncate N` (keep the first `N` bytes), `flip BYTE BIT`, `set BYTE VALUE`
//!   (decimal or `0x..`), `fix-checksum` (recompute a `.mtm` file's trailing FNV-1a checksum,
//!   as a hostile file would), `append TEXT` (add `TEXT`, no whitespace, at the end);
//! - `symlink TARGET`: a symbolic link to `TARGET` (Unix only);
//! - `fifo`: a named pipe (`mkfifo`, Unix only);
//! - `deep N FILE`: `N` nested directories `FILE/d/d/...`, a copy of `FILE` in the innermost;
//! - `remove`: removes `FILE` (a file, or a directory and its contents), e.g. a source after
//!   it was compiled.
//!
//! Missing parent directories of `FILE` are created.

use multitrace_model::rng::Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a case does before its command, in file order.
enum Step {
    /// A `generate:` line.
    Generate(Vec<String>),
    /// A `run:` line.
    Run(Vec<String>),
}

/// A parsed case file.
#[derive(Default)]
struct Case {
    args: Vec<String>,
    exit: i32,
    stderr: Vec<String>,
    stderr_lacks: Vec<String>,
    stdout: Vec<String>,
    steps: Vec<Step>,
    absent: Vec<String>,
    max_seconds: Option<u64>,
    max_memory_mb: Option<u64>,
    address_space_mb: Option<u64>,
}

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs/cases")
}

fn parse_case(name: &str, text: &str, tmp: &Path) -> Result<Case, String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let expand = |s: &str| {
        s.replace("{name}", name)
            .replace("{root}", root)
            .replace("{tmp}", &tmp.display().to_string())
    };
    let mut case = Case {
        exit: 2,
        ..Case::default()
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(format!("{name}.case:{}: expected `key: value`", n + 1));
        };
        let value = expand(value.trim());
        match key.trim() {
            "args" => case.args = value.split_whitespace().map(String::from).collect(),
            "exit" => {
                case.exit = value
                    .parse()
                    .map_err(|_| format!("{name}.case:{}: bad exit status", n + 1))?
            }
            "stderr" => case.stderr.push(value),
            "stderr-lacks" => case.stderr_lacks.push(value),
            "stdout" => case.stdout.push(value),
            "generate" => case.steps.push(Step::Generate(
                value.split_whitespace().map(String::from).collect(),
            )),
            "run" => case.steps.push(Step::Run(
                value.split_whitespace().map(String::from).collect(),
            )),
            "absent" => case.absent.push(value),
            "limit" => {
                let words: Vec<&str> = value.split_whitespace().collect();
                let number = words.get(1).and_then(|w| w.parse().ok());
                match (words.first().copied(), number) {
                    (Some("seconds"), Some(v)) => case.max_seconds = Some(v),
                    (Some("memory-mb"), Some(v)) => case.max_memory_mb = Some(v),
                    (Some("address-space-mb"), Some(v)) => case.address_space_mb = Some(v),
                    _ => return Err(format!("{name}.case:{}: bad limit", n + 1)),
                }
            }
            other => return Err(format!("{name}.case:{}: unknown key `{other}`", n + 1)),
        }
    }
    if case.args.is_empty() {
        return Err(format!("{name}.case: no `args:` line"));
    }
    Ok(case)
}

fn number(s: &str) -> Result<usize, String> {
    let parsed = match s.strip_prefix("0x") {
        Some(hex) => usize::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("bad number `{s}`"))
}

/// FNV-1a 64, as `multitrace_model::artifact::fnv1a` (this test only sees the binary).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Runs one `generate:` line.
fn generate(spec: &[String]) -> Result<(), String> {
    let (file, kind, args) = match spec {
        [file, kind, args @ ..] => (file, kind.as_str(), args),
        _ => return Err("generate: expected FILE GENERATOR ARGS".into()),
    };
    let arg = |i: usize| -> Result<usize, String> {
        number(args.get(i).ok_or("generate: missing argument")?)
    };
    if let Some(parent) = Path::new(file).parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {file}: {e}"))?;
    }
    if kind == "remove" {
        let path = Path::new(file);
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        return removed.map_err(|e| format!("cannot remove {file}: {e}"));
    }
    if kind == "symlink" {
        let target = args.first().ok_or("generate symlink: missing TARGET")?;
        #[cfg(unix)]
        return std::os::unix::fs::symlink(target, file)
            .map_err(|e| format!("cannot link {file} to {target}: {e}"));
        #[cfg(not(unix))]
        return Err(format!(
            "generate symlink: no symbolic links on this system ({target})"
        ));
    }
    if kind == "fifo" {
        let made = Command::new("mkfifo")
            .arg(file)
            .status()
            .map_err(|e| format!("cannot run mkfifo: {e}"))?;
        return made
            .success()
            .then_some(())
            .ok_or_else(|| format!("mkfifo {file} failed"));
    }
    if kind == "deep" {
        let source = args.get(1).ok_or("generate deep: missing FILE")?;
        let mut dir = PathBuf::from(file);
        for _ in 0..arg(0)? {
            dir.push("d");
        }
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {file}: {e}"))?;
        let name = Path::new(source)
            .file_name()
            .ok_or("generate deep: bad FILE")?;
        return std::fs::copy(source, dir.join(name))
            .map(|_| ())
            .map_err(|e| format!("cannot copy {source}: {e}"));
    }
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(file).map_err(|e| format!("cannot create {file}: {e}"))?,
    );
    let w = |out: &mut std::io::BufWriter<std::fs::File>, b: &[u8]| {
        out.write_all(b)
            .map_err(|e| format!("cannot write {file}: {e}"))
    };
    match kind {
        "nested-seq" => {
            let n = arg(0)?;
            w(&mut out, "seq(".repeat(n).as_bytes())?;
            w(&mut out, b"clt1 -- begin -> brok")?;
            w(&mut out, ", o)".repeat(n).as_bytes())?;
        }
        "nested-mixed" => {
            let n = arg(0)?;
            const OPEN: [&str; 6] = ["strict(", "seq(", "par(", "alt(", "loopW(", "coreg(clt1)("];
            const CLOSE: [&str; 6] = [
                ", clt2 -- sub -> brok)",
                ", clt1 -- pub -> brok)",
                ", brok -- pub -> clt2)",
                ", o)",
                ")",
                ", clt1 -- end -> brok)",
            ];
            for i in 0..n {
                w(&mut out, OPEN[i % 6].as_bytes())?;
            }
            w(&mut out, b"clt1 -- begin -> brok")?;
            for i in (0..n).rev() {
                w(&mut out, CLOSE[i % 6].as_bytes())?;
            }
        }
        "nested-strict-seq" => {
            let n = arg(0)?;
            for i in 0..n {
                w(&mut out, [&b"strict("[..], b"seq("][i % 2])?;
            }
            w(&mut out, b"clt1 -- begin -> brok")?;
            w(&mut out, ", clt1 -- pub -> brok)".repeat(n).as_bytes())?;
        }
        "long-trace" => {
            let n = arg(0)?.max(2);
            w(&mut out, b"{ [clt1] clt1!begin")?;
            let chunk = ".clt1!pub".repeat(1000);
            for _ in 0..(n - 2) / 1000 {
                w(&mut out, chunk.as_bytes())?;
            }
            w(&mut out, ".clt1!pub".repeat((n - 2) % 1000).as_bytes())?;
            w(&mut out, b".clt1!end; [brok] ; [clt2] }\n")?;
        }
        "repeat" => {
            let text = args.first().ok_or("generate repeat: missing TEXT")?;
            w(&mut out, text.repeat(arg(1)?).as_bytes())?;
        }
        "bytes" => {
            let (n, mut rng) = (arg(0)?, Rng::new(arg(1)? as u64));
            let bytes: Vec<u8> = (0..n).map(|_| (rng.next_u64() >> 56) as u8).collect();
            w(&mut out, &bytes)?;
        }
        "from" => {
            let src = args.first().ok_or("generate from: missing FILE")?;
            let mut bytes = std::fs::read(src).map_err(|e| format!("cannot read {src}: {e}"))?;
            let mut i = 1;
            while i < args.len() {
                let at = |k: usize| -> Result<usize, String> {
                    number(args.get(i + k).ok_or("generate from: missing argument")?)
                };
                let len = bytes.len();
                let out_of_range = || format!("edit out of range of {src} ({len} bytes)");
                match args[i].as_str() {
                    "truncate" => {
                        bytes.truncate(at(1)?);
                        i += 2;
                    }
                    "flip" => {
                        *bytes.get_mut(at(1)?).ok_or_else(out_of_range)? ^= 1 << (at(2)? % 8);
                        i += 3;
                    }
                    "set" => {
                        *bytes.get_mut(at(1)?).ok_or_else(out_of_range)? = at(2)? as u8;
                        i += 3;
                    }
                    "append" => {
                        let text = args
                            .get(i + 1)
                            .ok_or("generate from append: missing TEXT")?;
                        bytes.extend_from_slice(text.as_bytes());
                        i += 2;
                    }
                    "fix-checksum" => {
                        let body = len.checked_sub(8).ok_or_else(out_of_range)?;
                        let sum = fnv1a(&bytes[..body]).to_le_bytes();
                        bytes[body..].copy_from_slice(&sum);
                        i += 1;
                    }
                    other => return Err(format!("generate from: unknown edit `{other}`")),
                }
            }
            w(&mut out, &bytes)?;
        }
        other => return Err(format!("unknown generator `{other}`")),
    }
    out.flush().map_err(|e| format!("cannot write {file}: {e}"))
}

/// Peak resident memory of a running process in MiB (Linux), `None` elsewhere or once it
/// has exited.
fn peak_rss_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// What a run did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    time: Duration,
    peak_mb: Option<u64>,
}

/// Runs a `run:` step: it must succeed.
fn run_step(args: &[String]) -> Result<(), String> {
    let out = Command::new(env!("CARGO_BIN_EXE_multitrace"))
        .args(args)
        .current_dir(cases_dir())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start multitrace: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "run: {}: exit status {:?}: {}",
            args.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        ))
    }
}

fn run(case: &Case) -> Result<Run, String> {
    let bin = env!("CARGO_BIN_EXE_multitrace");
    let mut command = match case.address_space_mb {
        // prlimit sets the limit and executes the command in the same process.
        Some(mb) => {
            let mut c = Command::new("prlimit");
            c.arg(format!("--as={}", mb << 20)).arg("--").arg(bin);
            c
        }
        None => Command::new(bin),
    };
    let mut child = command
        .args(&case.args)
        .current_dir(cases_dir())
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start multitrace (or prlimit, from util-linux): {e}"))?;
    // Read the pipes on their own threads so that a chatty child cannot block.
    let mut out_pipe = child.stdout.take().ok_or("no stdout")?;
    let mut err_pipe = child.stderr.take().ok_or("no stderr")?;
    let out_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut s);
        s
    });
    let start = Instant::now();
    // Generous default: a case that hangs must fail, not stall the suite.
    let deadline = Duration::from_secs(case.max_seconds.unwrap_or(120));
    let mut peak: Option<u64> = None;
    let status = loop {
        if let Some(mb) = peak_rss_mb(child.id()) {
            peak = Some(peak.map_or(mb, |p| p.max(mb)));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "still running after {} s (limit {} s); killed",
                    start.elapsed().as_secs(),
                    deadline.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for multitrace: {e}")),
        }
    };
    let time = start.elapsed();
    let stdout = String::from_utf8_lossy(&out_thread.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_thread.join().unwrap_or_default()).into_owned();
    Ok(Run {
        code: status.code(),
        stdout,
        stderr,
        time,
        peak_mb: peak,
    })
}

/// Runs one case; `Err` says what went wrong.
fn check_case(name: &str, text: &str) -> Result<String, String> {
    let tmp = std::env::temp_dir().join(format!(
        "multitrace-bad-inputs-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let result = (|| {
        let case = parse_case(name, text, &tmp)?;
        for step in &case.steps {
            match step {
                Step::Generate(g) => generate(g)?,
                Step::Run(args) => run_step(args)?,
            }
        }
        let r = run(&case)?;
        let mut problems = Vec::new();
        if r.code != Some(case.exit) {
            problems.push(format!("exit status {:?}, expected {}", r.code, case.exit));
        }
        for f in &case.stderr {
            if !r.stderr.contains(f.as_str()) {
                problems.push(format!("standard error lacks `{f}`"));
            }
        }
        for f in &case.stderr_lacks {
            if r.stderr.contains(f.as_str()) {
                problems.push(format!("standard error contains `{f}`"));
            }
        }
        for f in &case.stdout {
            if !r.stdout.contains(f.as_str()) {
                problems.push(format!("standard output lacks `{f}`"));
            }
        }
        for f in &case.absent {
            let path = cases_dir().join(f);
            if path.symlink_metadata().is_ok() {
                problems.push(format!("{f} exists after the run"));
                let _ = std::fs::remove_file(&path);
            }
        }
        for bad in ["panicked", "RUST_BACKTRACE"] {
            if r.stderr.contains(bad) || r.stdout.contains(bad) {
                problems.push(format!("output contains `{bad}`"));
            }
        }
        let errors: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| !l.starts_with("multitrace: note:"))
            .collect();
        if case.exit == 2 && errors.len() != 1 {
            problems.push(format!("{} error lines, expected one", errors.len()));
        }
        if let (Some(limit), Some(peak)) = (case.max_memory_mb, r.peak_mb) {
            if peak > limit {
                problems.push(format!("peak memory {peak} MiB, limit {limit} MiB"));
            }
        }
        let measured = format!(
            "{:.2} s{}",
            r.time.as_secs_f64(),
            r.peak_mb
                .map(|mb| format!(", peak {mb} MiB"))
                .unwrap_or_default()
        );
        if problems.is_empty() {
            Ok(measured)
        } else {
            Err(format!(
                "{} ({measured})\n  args: {}\n  stderr: {}\n  stdout: {}",
                problems.join("; "),
                case.args.join(" "),
                r.stderr.trim_end().replace('\n', "\n          "),
                r.stdout.chars().take(2000).collect::<String>().trim_end()
            ))
        }
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

#[test]
fn bad_inputs_give_status_2_and_one_precise_message() {
    let dir = cases_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "case").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(names.len() >= 30, "only {} cases found", names.len());
    // Two cases at a time: most are quick, a few write and read large files.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(name) = names.get(i) else { break };
                let text = std::fs::read_to_string(dir.join(format!("{name}.case")))
                    .unwrap_or_else(|e| panic!("{name}.case: {e}"));
                let r = check_case(name, &text);
                results.lock().unwrap().push((name.clone(), r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut failures = Vec::new();
    for (name, r) in &results {
        match r {
            Ok(measured) => eprintln!("bad input {name}: ok ({measured})"),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad-input cases failed:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}
