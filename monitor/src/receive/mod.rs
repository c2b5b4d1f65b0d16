//! Spans received over the network (`monitor --otlp-http`, issue 52): an OTLP/HTTP endpoint
//! whose requests reach the driving loop through a bounded queue, each checked exactly as a
//! line of OTLP JSON spans is (`drive::otel`), its place named `otlp-http:N` (N: the
//! request's number among those taken, from 1).
//!
//! Stages: the queue and its handle ([`Inbox`], here) and the HTTP server (`http`, with the
//! `otlp` feature: `hyper` on a current-thread `tokio` runtime in a thread of its own).
//! Without the `otlp` feature [`Inbox::listen`] is refused ([`ReceiveError::NotBuilt`]).
//!
//! # What the server answers (the OTLP/HTTP specification)
//!
//! - `POST /v1/traces` with `Content-Type: application/x-protobuf` or `application/json`
//!   (the OTLP JSON mapping, as the file lines are), the body plain or `Content-Encoding:
//!   gzip`: `200` with an `ExportTraceServiceResponse` in the request's encoding once the
//!   request is in the queue;
//! - a body that does not decode: `400` with a `google.rpc.Status` saying why (in the
//!   request's encoding); another content type or content encoding: `415`; a body over
//!   [`Limits::max_body`] (sent or unpacked): `413`;
//! - the queue full (the loop is behind): `503` with `Retry-After: 1`, so exporters back off
//!   and retry: memory stays bounded by [`Limits::queue`] requests of at most
//!   [`Limits::max_body`] bytes each;
//! - `GET /health`: `200`; any other path: `404`; another method on `/v1/traces`: `405`.
//!
//! # Invariants
//!
//! - An acknowledgement (`200`) means the request was decoded and accepted into the queue:
//!   the loop checks every request it acknowledged, in the order they were queued, also when
//!   stopped ([`Inbox::close`] stops the server first, then the loop drains the queue).
//! - Not yet: durability. With `--state`, the checkpoint holds the runs the requests fed, but
//!   a request acknowledged and not yet checkpointed is lost in a crash (`kill -9`); the
//!   write-ahead log that acknowledges only what is durable is a later step (issue 52 item 2).
//!   A request whose acknowledgement was cut by a stop may be retried by its exporter and
//!   then checked twice.
//! - Listening where asked only ([`DEFAULT_ADDR`]: loopback); no TLS, no authentication, no
//!   gRPC and no metrics yet.

#[cfg(feature = "otlp")]
mod http;
#[cfg(all(test, feature = "otlp"))]
mod tests;

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

/// The loop's end of the receiver: the queue of accepted requests, and the server that fills
/// it (stopped by [`Inbox::close`] or when dropped).
pub struct Inbox {
    addr: SocketAddr,
    #[cfg(feature = "otlp")]
    rx: std::sync::mpsc::Receiver<Received>,
    /// A request [`Inbox::wait`] took, handed out first by [`Inbox::take`].
    #[cfg(feature = "otlp")]
    held: std::sync::Mutex<Option<Received>>,
    #[cfg(feature = "otlp")]
    server: std::sync::Mutex<Option<http::Server>>,
    #[cfg(not(feature = "otlp"))]
    _never: std::convert::Infallible,
}

impl Inbox {
    /// Listens on `addr` (port 0: one the system picks, see [`Inbox::addr`]) and serves
    /// OTLP/HTTP from a thread of its own until closed.
    pub fn listen(addr: SocketAddr, limits: Limits) -> Result<Inbox, ReceiveError> {
        #[cfg(feature = "otlp")]
        {
            let (tx, rx) = std::sync::mpsc::sync_channel(limits.queue.max(1));
            let (server, addr) = http::Server::start(addr, limits, tx)?;
            Ok(Inbox {
                addr,
                rx,
                held: std::sync::Mutex::new(None),
                server: std::sync::Mutex::new(Some(server)),
            })
        }
        #[cfg(not(feature = "otlp"))]
        {
            let _ = (addr, limits);
            Err(ReceiveError::NotBuilt)
        }
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The next accepted request, if one is queued.
    #[cfg(feature = "otlp")]
    pub fn take(&self) -> Option<Received> {
        let held = self.held.lock().ok().and_then(|mut h| h.take());
        held.or_else(|| self.rx.try_recv().ok())
    }

    /// Waits up to `timeout` for a request (kept for [`Inbox::take`]); whether one came.
    #[cfg(feature = "otlp")]
    pub fn wait(&self, timeout: std::time::Duration) -> bool {
        let Ok(mut held) = self.held.lock() else {
            return false;
        };
        if held.is_none() {
            match self.rx.recv_timeout(timeout) {
                Ok(r) => *held = Some(r),
                // Closed: nothing more will come; the loop still sleeps its poll interval.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    drop(held);
                    std::thread::sleep(timeout);
                    return false;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
        held.is_some()
    }

    /// Stops the server: no request is accepted after it returns, and every request
    /// acknowledged before is in the queue (for [`Inbox::take`]).
    pub fn close(&self) {
        #[cfg(feature = "otlp")]
        if let Some(server) = self.server.lock().ok().and_then(|mut s| s.take()) {
            server.stop();
        }
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        self.close();
    }
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").field("addr", &self.addr).finish()
    }
}
