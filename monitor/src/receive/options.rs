//! What the receiver is given and what it refuses: its address, its bounds, why it cannot
//! start, and the request it hands over.

use std::net::SocketAddr;

/// Where `--otlp-http` listens when given without an address: OTLP/HTTP's port on loopback.
pub const DEFAULT_ADDR: &str = "127.0.0.1:4318";

/// Where `--otlp-grpc` listens when given without an address: OTLP/gRPC's port on loopback.
pub const DEFAULT_GRPC_ADDR: &str = "127.0.0.1:4317";

/// How a request came: its place in records is `otlp-http:N` or `otlp-grpc:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// OTLP/HTTP (`POST /v1/traces`).
    Http,
    /// OTLP/gRPC (`TraceService/Export`).
    Grpc,
}

impl Protocol {
    /// The name of its requests' place (`otlp-http`, `otlp-grpc`).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Http => "otlp-http",
            Protocol::Grpc => "otlp-grpc",
        }
    }
}

// Where the receivers listen (`monitor --otlp-http`, `--otlp-grpc`; both may be given). With
// clap a plain comment: the doc comment of a flattened `Args` replaces the command's `about`
// (the binary's subcommands are deferred).
#[cfg_attr(
    not(feature = "clap"),
    doc = "Where the receivers listen (`monitor --otlp-http`, `--otlp-grpc`)."
)]
#[cfg_attr(feature = "clap", allow(missing_docs))]
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct Endpoints {
    /// Receive spans over OTLP/HTTP on ADDR (POST /v1/traces, protobuf or JSON, gzip; 16 MiB a
    /// request): checked as --otel lines, until SIGTERM. Without ADDR: 127.0.0.1:4318.
    #[cfg_attr(feature = "clap", arg(long, value_name = "ADDR", group = "spans", num_args = 0..=1, default_missing_value = DEFAULT_ADDR, conflicts_with_all = ["run_field", "action_field", "order_field", "end_field"], help_heading = "Input"))]
    pub otlp_http: Option<SocketAddr>,
    /// Receive spans over OTLP/gRPC on ADDR (TraceService/Export, gzip; 16 MiB a request):
    /// checked as --otel lines, until SIGTERM. Without ADDR: 127.0.0.1:4317.
    #[cfg_attr(feature = "clap", arg(long, value_name = "ADDR", group = "spans", num_args = 0..=1, default_missing_value = DEFAULT_GRPC_ADDR, conflicts_with_all = ["run_field", "action_field", "order_field", "end_field"], help_heading = "Input"))]
    pub otlp_grpc: Option<SocketAddr>,
}

impl Endpoints {
    /// Whether spans are received at all.
    pub fn any(&self) -> bool {
        self.otlp_http.is_some() || self.otlp_grpc.is_some()
    }
}

/// The bounds of the receiver.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most bytes of one request's body, as sent and as unpacked (`413` above).
    pub max_body: usize,
    /// Most requests accepted and not yet taken by the loop (`503` above).
    pub queue: usize,
}

impl Default for Limits {
    /// 16 MiB bodies (4 MiB is the Collector's default batch limit), 64 requests queued.
    fn default() -> Limits {
        Limits {
            max_body: 16 << 20,
            queue: 64,
        }
    }
}

/// Why the receiver could not start.
#[derive(Debug)]
pub enum ReceiveError {
    /// Built without the `otlp` feature.
    NotBuilt,
    /// The address could not be listened on.
    Listen {
        /// The receiver asked for.
        protocol: Protocol,
        /// The address asked.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server's runtime or thread could not be started.
    Start(std::io::Error),
}

impl std::fmt::Display for ReceiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReceiveError::NotBuilt => write!(
                f,
                "--otlp-http, --otlp-grpc: this multitrace was built without the `otlp` \
                 feature (build it with `--features otlp`, or follow a file with --otel)"
            ),
            ReceiveError::Listen {
                protocol,
                addr,
                source,
            } => write!(
                f,
                "--{} {addr}: cannot listen: {source} (give a free address, or port 0 for \
                 one the system picks)",
                protocol.name()
            ),
            ReceiveError::Start(e) => write!(f, "--otlp-*: cannot start the server: {e}"),
        }
    }
}

impl std::error::Error for ReceiveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReceiveError::NotBuilt => None,
            ReceiveError::Listen { source, .. } => Some(source),
            ReceiveError::Start(e) => Some(e),
        }
    }
}

/// A request taken from the queue: one decoded `ExportTraceServiceRequest`.
#[cfg(feature = "otlp")]
pub type Received = opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;

/// What the queue holds: a request and how it came.
#[cfg(feature = "otlp")]
pub type Queued = (Protocol, Received);
