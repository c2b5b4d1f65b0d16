//! How XES attributes become an event's action, lifeline and order key.

/// Where the order of a trace's events comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XesOrder {
    /// The value of this attribute (a date, or a number).
    Key(String),
    /// The order of the events in the trace.
    Document,
}

/// How XES events become actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XesOptions {
    /// The event attribute holding the action (default `concept:name`).
    pub action_key: String,
    /// The event attribute naming the lifeline of actions written as `!m` or `?m`.
    pub lifeline_key: Option<String>,
    /// The order key (default: the attribute `time:timestamp`).
    pub order: XesOrder,
    /// Most events in one trace.
    pub max_trace_events: usize,
}

impl Default for XesOptions {
    fn default() -> Self {
        XesOptions {
            action_key: "concept:name".into(),
            lifeline_key: None,
            order: XesOrder::Key("time:timestamp".into()),
            max_trace_events: crate::events::DEFAULT_MAX_BUFFERED_EVENTS,
        }
    }
}

impl XesOptions {
    /// The options an event log's field names ask for, read as XES attributes: the action
    /// field `action` and the order field `order` (the defaults of event logs) mean XES's own
    /// `concept:name` and `time:timestamp`; the order field `document` means the order of the
    /// events in the trace.
    pub fn from_event_fields(
        action_field: &str,
        lifeline_field: Option<&str>,
        order_field: &str,
        max_trace_events: usize,
    ) -> XesOptions {
        XesOptions {
            action_key: match action_field {
                "action" => "concept:name".to_string(),
                k => k.to_string(),
            },
            lifeline_key: lifeline_field.map(str::to_string),
            order: match order_field {
                "order" => XesOrder::Key("time:timestamp".into()),
                "document" => XesOrder::Document,
                k => XesOrder::Key(k.to_string()),
            },
            max_trace_events,
        }
    }
}
