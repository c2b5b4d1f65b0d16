//! The loop's end of the receiver: the bounded queue of accepted requests, and the server
//! that fills it.

#[cfg(feature = "otlp")]
use super::options::Queued;
use super::options::{Endpoints, Limits, Protocol, ReceiveError};
#[cfg(feature = "otlp")]
use super::{grpc, http, server::Server};
use std::net::SocketAddr;

/// A protocol's server start (`http::start`, `grpc::start`).
#[cfg(feature = "otlp")]
type Start = fn(
    SocketAddr,
    Limits,
    std::sync::mpsc::SyncSender<Queued>,
) -> Result<(Server, SocketAddr), ReceiveError>;

/// The loop's end of the receivers: the queue of accepted requests, and the servers that fill
/// it (stopped by [`Inbox::close`] or when dropped).
pub struct Inbox {
    /// Where each receiver listens (OTLP/HTTP, OTLP/gRPC).
    http: Option<SocketAddr>,
    grpc: Option<SocketAddr>,
    #[cfg(feature = "otlp")]
    rx: std::sync::mpsc::Receiver<Queued>,
    /// A request [`Inbox::wait`] took, handed out first by [`Inbox::take`].
    #[cfg(feature = "otlp")]
    held: std::sync::Mutex<Option<Queued>>,
    #[cfg(feature = "otlp")]
    servers: std::sync::Mutex<Vec<Server>>,
    #[cfg(not(feature = "otlp"))]
    _never: std::convert::Infallible,
}

impl Inbox {
    /// Listens where `at` says (port 0: one the system picks, see [`Inbox::addr`]) and serves
    /// OTLP/HTTP and OTLP/gRPC, each from a thread of its own, into one queue until closed;
    /// `None` when `at` names no address.
    pub fn listen(at: Endpoints, limits: Limits) -> Result<Option<Inbox>, ReceiveError> {
        if !at.any() {
            return Ok(None);
        }
        #[cfg(feature = "otlp")]
        {
            let (tx, rx) = std::sync::mpsc::sync_channel(limits.queue.max(1));
            let mut servers = Vec::new();
            let mut bound = |start: Start, addr: Option<SocketAddr>| {
                addr.map(|a| {
                    start(a, limits, tx.clone()).map(|(s, local)| {
                        servers.push(s);
                        local
                    })
                })
                .transpose()
            };
            let http = bound(http::start, at.otlp_http)?;
            let grpc = bound(grpc::start, at.otlp_grpc)?;
            Ok(Some(Inbox {
                http,
                grpc,
                rx,
                held: std::sync::Mutex::new(None),
                servers: std::sync::Mutex::new(servers),
            }))
        }
        #[cfg(not(feature = "otlp"))]
        {
            let _ = limits;
            Err(ReceiveError::NotBuilt)
        }
    }

    /// The address a receiver listens on (`None`: not asked for).
    pub fn addr(&self, protocol: Protocol) -> Option<SocketAddr> {
        match protocol {
            Protocol::Http => self.http,
            Protocol::Grpc => self.grpc,
        }
    }

    /// What the receivers listen on, a line each, for people and for exporters'
    /// configuration (`receiving OTLP/HTTP on http://127.0.0.1:4318/v1/traces`).
    pub fn listening(&self) -> Vec<String> {
        let http = self
            .http
            .map(|a| format!("receiving OTLP/HTTP on http://{a}/v1/traces"));
        let grpc = self
            .grpc
            .map(|a| format!("receiving OTLP/gRPC on http://{a}"));
        http.into_iter().chain(grpc).collect()
    }

    /// The next accepted request, if one is queued, and how it came.
    #[cfg(feature = "otlp")]
    pub fn take(&self) -> Option<Queued> {
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

    /// Stops the servers: no request is accepted after it returns, and every request
    /// acknowledged before is in the queue (for [`Inbox::take`]).
    pub fn close(&self) {
        #[cfg(feature = "otlp")]
        if let Ok(mut servers) = self.servers.lock() {
            servers.drain(..).for_each(Server::stop);
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
        f.debug_struct("Inbox")
            .field("http", &self.http)
            .field("grpc", &self.grpc)
            .finish()
    }
}
