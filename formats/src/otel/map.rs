//! The mapping file of `--otel-map`: `key = value` lines, `#` comments.
//!
//! ```text
//! lifeline = service.name        # resource or span attribute naming the lifeline
//! run = session.id               # attribute naming the run (default: the trace id)
//! message = messaging.destination.name   # attribute naming the message (default: by kind)
//! reply_suffix = _reply          # the reply of CLIENT/SERVER spans; empty: no reply actions
//! ```

use multitrace_model::syntax::ParseError;

/// How spans become actions (see [`super`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtelMap {
    /// The attribute naming the lifeline (default `service.name`).
    pub lifeline_key: String,
    /// The attribute naming the run (`None`: the trace id).
    pub run_key: Option<String>,
    /// The attribute naming the message (`None`: by span kind, else the span name).
    pub message_key: Option<String>,
    /// Appended to the message to name a reply (default `_reply`; empty: no reply actions).
    pub reply_suffix: String,
    /// Most span events held at once.
    pub max_events: usize,
}

impl Default for OtelMap {
    fn default() -> Self {
        OtelMap {
            lifeline_key: "service.name".into(),
            run_key: None,
            message_key: None,
            reply_suffix: "_reply".into(),
            max_events: crate::events::DEFAULT_MAX_BUFFERED_EVENTS,
        }
    }
}

/// Reads a mapping file's text (`file` names it in errors).
pub fn parse_otel_map(file: &str, text: &str) -> Result<OtelMap, ParseError> {
    let mut map = OtelMap::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            continue;
        }
        let err = |col: usize, m: String| ParseError {
            file: file.to_string(),
            line: i as u32 + 1,
            column: col as u32 + 1,
            message: m,
        };
        let Some((k, v)) = line.split_once('=') else {
            return Err(err(
                raw.len() - raw.trim_start().len(),
                "expected `key = value` (keys: lifeline, run, message, reply_suffix)".into(),
            ));
        };
        let v = v.trim().to_string();
        match k.trim() {
            "lifeline" => map.lifeline_key = v,
            "run" => map.run_key = (v != "trace_id").then_some(v),
            "message" => map.message_key = (v != "auto").then_some(v),
            "reply_suffix" => map.reply_suffix = v,
            other => {
                return Err(err(
                    raw.len() - raw.trim_start().len(),
                    format!(
                    "unknown key `{other}`: the keys are lifeline, run, message and reply_suffix"
                ),
                ))
            }
        }
    }
    Ok(map)
}

/// The default rules, or those of the mapping file `path` (read with the limits of
/// [`read_text`](multitrace_model::syntax::read_text)).
pub fn read_otel_map(
    path: Option<&std::path::Path>,
) -> Result<OtelMap, multitrace_model::syntax::ModelError> {
    Ok(match path {
        Some(p) => {
            let text = multitrace_model::syntax::read_text(p)?;
            parse_otel_map(&p.display().to_string(), &text)
                .map_err(multitrace_model::syntax::ModelError::Parse)?
        }
        None => OtelMap::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_errors() {
        let m = parse_otel_map(
            "m",
            "# c\nlifeline = peer.service\nrun = session.id # s\nreply_suffix =\n",
        )
        .unwrap();
        assert_eq!(m.lifeline_key, "peer.service");
        assert_eq!(m.run_key.as_deref(), Some("session.id"));
        assert_eq!(m.reply_suffix, "");
        let e = parse_otel_map("m", "\n  colour = red\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m:2:3: unknown key `colour`: the keys are lifeline, run, message and reply_suffix"
        );
        let e = parse_otel_map("m", "lifeline\n").unwrap_err();
        assert!(e.to_string().starts_with("m:1:1: expected `key = value`"));
    }
}
