//! The loop's end of the receiver: the bounded queue of accepted requests, and the server
//! that fills it.

#[cfg(feature = "otlp")]
use super::http;
#[cfg(feature = "otlp")]
use super::options::Received;
use super::options::{Limits, ReceiveError};
use std::net::SocketAddr;

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
