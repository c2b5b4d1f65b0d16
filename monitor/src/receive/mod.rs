//! Spans received over the network (`monitor --otlp-http`, `--otlp-grpc`, issue 52): OTLP/HTTP
//! and OTLP/gRPC endpoints whose requests reach the driving loop through one bounded queue,
//! each checked exactly as a line of OTLP JSON spans is (`drive::otel`), its place named
//! `otlp-http:N` or `otlp-grpc:N` (N: the request's number among those taken by that
//! endpoint, from 1).
//!
//! Stages: the limits, errors and endpoints (`options`), the queue and its handle ([`Inbox`]:
//! `inbox`), the thread and runtime a server runs on (`server`: a current-thread `tokio`
//! runtime in a thread of its own), the HTTP server (`http`, `hyper`) and the gRPC server
//! (`grpc`, `tonic`'s server for `opentelemetry-proto`'s `TraceService`), all but `options`
//! and `inbox` with the `otlp` feature.
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
//! # What the gRPC server answers (the OTLP/gRPC specification)
//!
//! - `TraceService/Export`, plain or gzip: `OK` with an empty `ExportTraceServiceResponse`
//!   once the request is in the queue;
//! - the queue full, or the monitor stopping: `UNAVAILABLE` with a `RetryInfo` of 1 s (the
//!   specification's throttling: exporters retry after it);
//! - a message over [`Limits::max_body`]: tonic's `OUT_OF_RANGE` (as sent) or
//!   `RESOURCE_EXHAUSTED` (unpacked), without `RetryInfo`, so it is not retried.
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
//! - Listening where asked only ([`DEFAULT_ADDR`]: loopback); no TLS, no authentication and
//!   no metrics yet.

#[cfg(feature = "otlp")]
mod grpc;
#[cfg(feature = "otlp")]
mod http;
mod inbox;
mod options;
#[cfg(feature = "otlp")]
mod server;
#[cfg(all(test, feature = "otlp"))]
mod tests;

pub use inbox::Inbox;
pub use options::{Endpoints, Limits, Protocol, ReceiveError, DEFAULT_ADDR, DEFAULT_GRPC_ADDR};
#[cfg(feature = "otlp")]
pub use options::{Queued, Received};
