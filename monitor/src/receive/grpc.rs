//! The OTLP/gRPC server: `tonic`'s server (HTTP/2) for `opentelemetry-proto`'s generated
//! `TraceService`, on a current-thread `tokio` runtime in a thread of its own (`server`).
//! An `Export` is put in the loop's bounded queue without waiting, as an OTLP/HTTP request
//! is; the replies are the module `receive`'s table.

use super::options::{Limits, Protocol, Queued, ReceiveError, Received};
use super::server::Server;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use std::net::SocketAddr;
use std::sync::mpsc::{SyncSender, TrySendError};
use std::time::Duration;
use tonic::codec::CompressionEncoding;
use tonic::{Code, Request, Response, Status};
use tonic_types::{ErrorDetails, StatusExt as _};

/// How long a stop waits for the requests in flight to be answered (a client that stalls
/// mid-request is cut after it; its request was not acknowledged).
const GRACE: Duration = Duration::from_secs(5);

/// The delay a refusal asks exporters to wait before retrying (`RetryInfo`).
const RETRY: Duration = Duration::from_secs(1);

/// The service: every call's end of the queue.
pub(super) struct Receiver {
    pub(super) tx: SyncSender<Queued>,
}

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: Request<Received>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        queue(&self.tx, request.into_inner()).map(Response::new)
    }
}

/// Queues a request: its reply (no partial success: every span is accepted; one the model
/// cannot map is its run's Error record, as in a file).
pub(super) fn queue(
    tx: &SyncSender<Queued>,
    request: Received,
) -> Result<ExportTraceServiceResponse, Status> {
    let why = match tx.try_send((Protocol::Grpc, request)) {
        Ok(()) => return Ok(ExportTraceServiceResponse::default()),
        Err(TrySendError::Full(_)) => "the monitor's queue of requests is full: retry later",
        Err(TrySendError::Disconnected(_)) => "the monitor is stopping",
    };
    // Retryable (the OTLP specification's throttling): UNAVAILABLE with the delay to wait.
    let details = ErrorDetails::with_retry_info(Some(RETRY));
    Err(Status::with_error_details(Code::Unavailable, why, details))
}

/// Listens on `addr` and serves OTLP/gRPC until stopped; the address listened on.
pub(super) fn start(
    addr: SocketAddr,
    limits: Limits,
    tx: SyncSender<Queued>,
) -> Result<(Server, SocketAddr), ReceiveError> {
    // Gzip requests accepted (and replies compressed when asked); a message over the limit
    // is tonic's OUT_OF_RANGE as sent, RESOURCE_EXHAUSTED unpacked: neither is retryable
    // (no RetryInfo).
    let service = TraceServiceServer::new(Receiver { tx })
        .accept_compressed(CompressionEncoding::Gzip)
        .send_compressed(CompressionEncoding::Gzip)
        .max_decoding_message_size(limits.max_body);
    Server::start(Protocol::Grpc, addr, move |listener, stopped| async move {
        let (done, finish) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming_shutdown(
                    tonic::transport::server::TcpIncoming::from(listener),
                    async move {
                        let _ = finish.await;
                    },
                ),
        );
        // A stop, or the Inbox gone: stop accepting, and answer the requests in flight
        // (each already queued or refused) within the grace.
        let _ = stopped.await;
        let _ = done.send(());
        let _ = tokio::time::timeout(GRACE, serving).await;
    })
}
