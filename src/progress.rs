//! The progress bar of a batch on a terminal (`indicatif`): count, total when known, rate and
//! time left, on standard error only when it is a terminal. Records printed while it shows go
//! through [`Progress::suspend`], which clears the bar first, so a record never lands on the
//! bar's line. The same bar shows the analyses' progress (`gen`, `compare`, `partition`:
//! [`Progress::analysis`] and [`Progress::report`], fed by the library's callbacks).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// The bar, or nothing when standard error is not a terminal or `--no-progress` was given.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A hidden-until-first-tick bar, when `shown` and standard error is a terminal.
    pub fn new(shown: bool) -> Self {
        Progress((shown && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(Self::style("{spinner} {pos} checked, {per_sec}"));
            bar.set_message("multitraces");
            bar
        }))
    }

    /// The bar of an analysis (`gen`, `compare`, `partition`), when standard error is a
    /// terminal: a spinner with `message` and the time elapsed, redrawn every 100 ms until the
    /// first report, then count (of the total when known), rate and time left.
    /// [`Progress::clear`] removes it before anything is printed.
    pub fn analysis(message: &str) -> Self {
        let p = Progress::new(true);
        if let Some(bar) = &p.0 {
            bar.set_style(Self::style("{spinner} {msg} ({elapsed})"));
            bar.set_message(message.to_string());
            bar.enable_steady_tick(std::time::Duration::from_millis(100));
        }
        p
    }

    /// A report of the analysis library: `done` `unit`s of `total` when known.
    pub fn report(&self, p: multitrace_analysis::progress::Progress) {
        let Some(bar) = &self.0 else { return };
        if bar.message() != p.unit {
            bar.set_message(p.unit);
            bar.set_style(Self::style(match p.total {
                Some(_) => "[{bar:30}] {pos}/{len} {msg}, {per_sec}, {eta} left",
                None => "{spinner} {pos} {msg}, {per_sec} ({elapsed})",
            }));
        }
        if let Some(total) = p.total {
            bar.set_length(total);
        }
        bar.set_position(p.done);
    }

    /// Whether the bar is shown at all.
    pub fn shown(&self) -> bool {
        self.0.is_some()
    }

    fn style(template: &str) -> ProgressStyle {
        ProgressStyle::with_template(template).expect("a valid template")
    }

    /// `done` records so far, of `total` when the inputs' size is known.
    pub fn tick(&self, done: usize, total: Option<usize>) {
        let Some(bar) = &self.0 else { return };
        if let (Some(total), None) = (total, bar.length()) {
            bar.set_length(total as u64);
            bar.set_style(Self::style("[{bar:30}] {pos}/{len} {msg}, {per_sec}, {eta} left"));
        }
        bar.set_position(done as u64);
    }

    /// Runs `f` (which prints) with the bar cleared, and draws it again after.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar for good (before the summary).
    pub fn clear(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Runs the analysis `f` with a progress bar saying `message` (fed by the library's reports),
/// removed before anything is printed (`gen`, `compare`, `partition`).
pub fn with_bar<R>(
    message: &str,
    f: impl FnOnce(Option<multitrace_analysis::progress::ProgressFn>) -> R,
) -> R {
    let bar = Progress::analysis(message);
    let result = f(Some(&|p| bar.report(p)));
    bar.clear();
    result
}
