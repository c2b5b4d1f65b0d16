//! The HTML report of a batch: one self-contained page (no network, no external file) with the
//! counts per verdict and reason, the timing, the options used, a table of the multitraces that
//! can be filtered by verdict, the first failures in full (one lane per location: the consumed
//! part, the blocked actions highlighted, the diagnosis) and the model's sequence diagram.
//!
//! The page is written while the batch runs, so memory stays small whatever the number of
//! multitraces: each [`Record`](multitrace_model::record::Record) becomes one compact row of
//! a JSON array streamed into the page (names share their prefix with the previous row's),
//! which the page's script turns into a paged table; only the first [`ReportOptions::full_failures`] failures are kept, and drawn in
//! full when the batch ends ([`ReportWriter::finish`]), with their local traces read again
//! through a [`TraceSource`]. The file is written under a temporary name and renamed at the
//! end, so an interrupted batch leaves no half page behind.
//!
//! The stages, one module each: `setup` (what the page says besides the records, how much it
//! shows), `writer` (the page while the batch runs, then its end), `reread` (the traces of the
//! failures, read again), `failures` (their lanes and diagnosis) and `values` (escaping,
//! numbers, durations).
//!
//! # Example
//!
//! ```
//! use multitrace_report::html::{ReportOptions, ReportSetup, ReportWriter};
//! use multitrace_model::artifact::decode;
//! use multitrace_batch::{Batch, BatchOptions};
//! use multitrace_formats::entry::Item;
//! use multitrace_check::{CheckOptions, Engine};
//!
//! let engine = Engine::new(decode(include_bytes!("../../../fixtures/golden/seed004-mqtt.v2.mtm"))?);
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
//! let stats = report.finish(&mut |_: &[&multitrace_model::record::Record]| vec![Some(item.traces.clone())])?;
//! assert_eq!((stats.multitraces, stats.full_failures), (1, 1));
//! let page = std::fs::read_to_string(&path)?;
//! assert!(page.contains(r#"class="act blocked""#));
//! // Self-contained: nothing is fetched.
//! assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod failures;
pub mod interrupt;
mod reread;
mod setup;
mod values;
mod writer;

pub use reread::{LocalTraces, ReRead, TraceSource};
pub use setup::{ReportOptions, ReportSetup, DEFAULT_FULL_FAILURES};
pub use values::{escape, thousands};
pub use writer::{ReportError, ReportStats, ReportWriter};
