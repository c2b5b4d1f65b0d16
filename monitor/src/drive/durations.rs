//! The durations and windows a user writes: `30s`, `500ms`, `2m`, `1h` (a bare number is
//! seconds), a reorder window of `N` events or of a duration in the events' own time, and the
//! arrival model they go with ([`Arrival`]).

use crate::session::Reorder;
use std::time::Duration;

/// A duration such as `30s`, `500ms`, `2m` or `1h` (seconds when no unit is written); the
/// message says what is wrong otherwise.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s.split_at(
        s.find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len()),
    );
    let x: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration such as 30s, 500ms or 2m"))?;
    let secs = match unit {
        "ms" => x / 1e3,
        "s" | "" => x,
        "m" => x * 60.0,
        "h" => x * 3600.0,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (ms, s, m or h)")),
    };
    Ok(Duration::from_secs_f64(secs))
}

/// A reorder window: a number of events (`5`), or a duration of event time (`2s`).
pub fn parse_window(s: &str) -> Result<Reorder, String> {
    if let Ok(n) = s.trim().parse::<usize>() {
        return Ok(Reorder::Events(n));
    }
    parse_duration(s).map(|d| Reorder::Span(d.as_nanos() as u64))
}

/// How events may arrive (`--arrival`), and so when one is fed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Arrival {
    /// An integer order key is a position, any other key is held until its run ends; with
    /// --otel, parents.
    Auto,
    /// --otel: a service's events wait while one of its spans' parents in that service has
    /// not come.
    Parents,
    /// The order key is the position in the local trace: held until the positions before it.
    Positions,
    /// Held in the reorder window.
    Window,
    /// Each location's events come in order-key order (an assumption).
    InOrder,
    /// Every event is held until its run ends.
    End,
}

impl Arrival {
    /// The model named `name` as the command writes it (`in-order`, ...).
    pub fn from_name(name: &str) -> Option<Arrival> {
        Some(match name {
            "auto" => Arrival::Auto,
            "parents" => Arrival::Parents,
            "positions" => Arrival::Positions,
            "window" => Arrival::Window,
            "in-order" => Arrival::InOrder,
            "end" => Arrival::End,
            _ => return None,
        })
    }

    /// Its name as the command writes it.
    pub fn name(self) -> &'static str {
        match self {
            Arrival::Auto => "auto",
            Arrival::Parents => "parents",
            Arrival::Positions => "positions",
            Arrival::Window => "window",
            Arrival::InOrder => "in-order",
            Arrival::End => "end",
        }
    }

    /// The session's window for this model, the first position of a local trace and the
    /// reorder window given (which goes with `window`, `auto` and `parents` only, and is
    /// needed by `window`), and whether spans' parents are followed: `parents`, and `auto`
    /// with OpenTelemetry spans (`otel`), whose keys are timestamps.
    pub fn reorder(
        self,
        first: i64,
        window: Option<Reorder>,
        otel: bool,
    ) -> Result<(Reorder, bool), String> {
        let parents = self == Arrival::Parents || (self == Arrival::Auto && otel);
        if self == Arrival::Parents && !otel {
            return Err("--arrival parents follows spans: it needs --otel".into());
        }
        let reorder = match (self, window) {
            (Arrival::Auto | Arrival::Window | Arrival::Parents, Some(w)) => w,
            (Arrival::Window, None) => {
                return Err("--arrival window needs --reorder-window N|DURATION".into())
            }
            (_, Some(_)) => {
                return Err(format!(
                    "--reorder-window goes with --arrival window, auto or parents, not with \
                     --arrival {}",
                    self.name()
                ))
            }
            (Arrival::Auto | Arrival::Parents, None) if parents => Reorder::Events(0),
            (Arrival::Auto | Arrival::Parents, None) => Reorder::Auto(first),
            (Arrival::Positions, None) => Reorder::Positions(first),
            (Arrival::InOrder, None) => Reorder::Events(0),
            (Arrival::End, None) => Reorder::Unbounded,
        };
        Ok((reorder, parents))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_errors() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration(" 2m "), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(
            parse_duration("3d"),
            Err("`3d`: unknown unit `d` (ms, s, m or h)".to_string())
        );
        assert!(parse_duration("s")
            .unwrap_err()
            .contains("is not a duration"));
        assert!(matches!(parse_window("7"), Ok(Reorder::Events(7))));
        assert!(matches!(
            parse_window("2s"),
            Ok(Reorder::Span(2_000_000_000))
        ));
    }
}
