//! What the receiver is given and what it refuses: its address, its bounds, why it cannot
//! start, and the request it hands over.

use std::net::SocketAddr;

/// Where `--otlp-http` listens when given without an address: OTLP/HTTP's port on loopback.
pub const DEFAULT_ADDR: &str = "127.0.0.1:4318";

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
                "--otlp-http: this multitrace was built without the `otlp` feature"
            ),
            ReceiveError::Listen { addr, source } => {
                write!(f, "--otlp-http {addr}: cannot listen: {source}")
            }
            ReceiveError::Start(e) => write!(f, "--otlp-http: cannot start the server: {e}"),
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
