//! Spans received over the network (`monitor --otlp-http`, issue 52): an OTLP/HTTP endpoint
//! whose requests reach the driving loop through a bounded queue, each checked exactly as a
//! line of OTLP JSON spans is (`drive::otel`), its place named `otlp-http:N` (N: the
//! request's number among those taken, from 1).
//!
//! Stages: the limits and errors (`options`), the queue and its handle ([`Inbox`]: `inbox`)
//! and the HTTP server (`http`, with the `otlp` feature: `hyper` on a current-thread `tokio`
//! runtime in a thread of its own).
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
