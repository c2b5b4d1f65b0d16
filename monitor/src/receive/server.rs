//! A receiver's thread: its listening socket, a current-thread `tokio` runtime running the
//! protocol's server (`http`, `grpc`) until stopped, and the stop that waits for it.

use super::options::{Protocol, ReceiveError};
use std::future::Future;
use std::net::SocketAddr;

/// The running server: its stop signal and thread.
pub(super) struct Server {
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

/// The stop a server's future is given: resolved when it is to stop accepting (a stop, or the
/// `Inbox` gone).
pub(super) type Stopped = tokio::sync::oneshot::Receiver<()>;

impl Server {
    /// Listens on `addr` and runs `serve` on the listener in a thread of its own until it
    /// returns (it returns once [`Stopped`] resolves and it has stopped accepting); the
    /// address listened on.
    pub(super) fn start<F, Fut>(
        protocol: Protocol,
        addr: SocketAddr,
        serve: F,
    ) -> Result<(Server, SocketAddr), ReceiveError>
    where
        F: FnOnce(tokio::net::TcpListener, Stopped) -> Fut + Send + 'static,
        Fut: Future<Output = ()>,
    {
        let listener =
            std::net::TcpListener::bind(addr).map_err(|source| ReceiveError::Listen {
                protocol,
                addr,
                source,
            })?;
        let local = listener.local_addr().map_err(ReceiveError::Start)?;
        listener
            .set_nonblocking(true)
            .map_err(ReceiveError::Start)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(ReceiveError::Start)?;
        let listener = {
            let _in = rt.enter();
            tokio::net::TcpListener::from_std(listener).map_err(ReceiveError::Start)?
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(protocol.name().into())
            .spawn(move || {
                rt.block_on(serve(listener, stopped));
                // The runtime dropped here drops every connection's task left (and with the
                // last one the queue's sender): nothing is accepted after.
                drop(rt);
            })
            .map_err(ReceiveError::Start)?;
        Ok((Server { stop, thread }, local))
    }

    /// Stops accepting, ends every connection and waits for the thread: every request
    /// acknowledged is in the queue.
    pub(super) fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}
