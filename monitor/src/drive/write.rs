//! The records a monitor writes: one line each (text or JSON Lines, with the monitor's
//! additions), in the order of the events that decided them, and what they add up to.

use crate::decision::Decision;
use crate::Monitor;
use multitrace_model::record::Record;
use multitrace_model::verdict::VerdictKind;
use serde::{Deserialize, Serialize};
use std::io::Write;

/// How a record is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineFormat {
    /// One line of text.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// What was written: records, Fails among them, whether any is an Error, bytes. A restart
/// from a checkpoint goes on from the totals it saved, so they count every record of the
/// output, those written before the restart included (the exit status is an uninterrupted
/// run's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Records of runs.
    pub records: u64,
    /// Fail records among them.
    pub fails: u64,
    /// Whether any record is an Error (of a run or of a line).
    pub bad: bool,
    /// Bytes of the output (with what was there when the monitor resumed).
    pub written: u64,
}

impl Totals {
    /// The exit status of a monitor that wrote these: 2 when a record is an Error, else 1
    /// when one is a Fail, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.bad {
            2
        } else {
            u8::from(self.fails > 0)
        }
    }

    /// Writes a round's records in their order ([`in_order`]); empties both lists.
    pub fn write(
        &mut self,
        out: &mut dyn Write,
        m: &Monitor<'_>,
        decided: &mut Vec<Decision>,
        loose: &mut Vec<(u64, Record)>,
        format: LineFormat,
    ) -> std::io::Result<()> {
        for w in in_order(decided, loose) {
            match w {
                Written::Line(r) => {
                    self.bad = true;
                    self.written += print(out, &r, None, format)?;
                }
                Written::Decided(d) => {
                    self.records += 1;
                    self.fails +=
                        u64::from(matches!(&d.verdict, Ok(v) if v.kind == VerdictKind::Fail));
                    self.bad |= d.verdict.is_err();
                    self.written += print(out, &d.record(m), Some(&d), format)?;
                }
            }
        }
        Ok(())
    }
}

/// A record of a round: a run's decision, or the Error record of a line without a run.
pub enum Written {
    /// A run's record.
    Decided(Decision),
    /// A line's own Error record.
    Line(Record),
}

/// A round's records in the order they are written: the decisions in the order of their
/// deciding events (a run decided at once and one decided when settled keep the order of
/// their events), then the closes, with the Error records of lines without a run (`loose`,
/// keyed by the session's arrivals before them) where they were read; empties both lists.
pub fn in_order(decided: &mut Vec<Decision>, loose: &mut Vec<(u64, Record)>) -> Vec<Written> {
    decided.sort_by_key(|d| d.arrival);
    let mut out = Vec::with_capacity(decided.len() + loose.len());
    let mut loose_records = loose.drain(..).peekable();
    for d in decided.drain(..) {
        while let Some((_, r)) = loose_records.next_if(|(k, _)| *k < d.arrival) {
            out.push(Written::Line(r));
        }
        out.push(Written::Decided(d));
    }
    out.extend(loose_records.map(|(_, r)| Written::Line(r)));
    out
}

/// Prints a record (with the monitor's additions); returns the bytes written.
pub fn print(
    out: &mut dyn Write,
    r: &Record,
    d: Option<&Decision>,
    format: LineFormat,
) -> std::io::Result<u64> {
    let line = match (format, d) {
        (LineFormat::Jsonl, Some(d)) => d.to_json(r),
        (LineFormat::Jsonl, None) => r.to_json(),
        (LineFormat::Text, Some(d)) => d.text_line(r),
        (LineFormat::Text, None) => r.text_line(),
    };
    writeln!(out, "{line}")?;
    Ok(line.len() as u64 + 1)
}
