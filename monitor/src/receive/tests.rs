use super::http::{body, head, Reply, Shared};
use super::*;
use hyper::header::{HeaderMap, HeaderValue, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, StatusCode};
use prost::Message as _;
use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::sync::mpsc::{sync_channel, Receiver};

/// The checkout example's three exports (one per service), as the SDK wrote them.
const SPANS: &str = include_str!("../../../tests/cli/otel-checkout/spans.jsonl");

fn requests() -> Vec<Received> {
    SPANS
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A request queued by the HTTP server (its protocol checked).
fn over_http(q: Queued) -> Received {
    assert_eq!(q.0, Protocol::Http);
    q.1
}

fn shared(queue: usize) -> (Shared, Receiver<Queued>) {
    let (tx, rx) = sync_channel(queue);
    let limits = Limits {
        max_body: 1 << 20,
        queue,
    };
    (Shared { tx, limits }, rx)
}

fn headers(kind: &str, gzip: bool) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(CONTENT_TYPE, HeaderValue::from_str(kind).unwrap());
    if gzip {
        h.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    h
}

/// What the server answers `POST path` with these headers and body.
fn post(shared: &Shared, path: &str, h: &HeaderMap, bytes: &[u8]) -> Reply {
    match head(&Method::POST, path, h, shared.limits.max_body) {
        Err(reply) => reply,
        Ok(hd) => body(hd, bytes, shared),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// The message of an error reply's `google.rpc.Status` (JSON or protobuf).
fn message(r: &Reply) -> String {
    if r.content_type == "application/json" {
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        v["message"].as_str().unwrap().to_string()
    } else {
        // Field 2 (the message) of the Status: its bytes after the code.
        String::from_utf8_lossy(&r.body).into_owned()
    }
}

#[test]
fn protobuf_json_and_gzip_bodies_queue_the_request_they_hold() {
    let (shared, rx) = shared(8);
    let reqs = requests();
    let pb = headers("application/x-protobuf", false);
    let js = headers("application/json; charset=utf-8", false);
    let r = post(&shared, "/v1/traces", &pb, &reqs[0].encode_to_vec());
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.content_type, "application/x-protobuf");
    // An ExportTraceServiceResponse with no partial success: the empty message.
    assert!(r.body.is_empty());
    let line = SPANS.lines().nth(1).unwrap();
    let r = post(&shared, "/v1/traces", &js, line.as_bytes());
    assert_eq!(
        (r.status, r.content_type),
        (StatusCode::OK, "application/json")
    );
    assert_eq!(r.body, b"{}");
    let zipped = gzip(&reqs[2].encode_to_vec());
    let r = post(
        &shared,
        "/v1/traces",
        &headers("application/x-protobuf", true),
        &zipped,
    );
    assert_eq!(r.status, StatusCode::OK);
    let zipped = gzip(line.as_bytes());
    let r = post(
        &shared,
        "/v1/traces",
        &headers("application/json", true),
        &zipped,
    );
    assert_eq!(r.status, StatusCode::OK);
    let got: Vec<Received> = rx.try_iter().map(over_http).collect();
    assert_eq!(
        got,
        vec![
            reqs[0].clone(),
            reqs[1].clone(),
            reqs[2].clone(),
            reqs[1].clone()
        ]
    );
    assert!(got.iter().all(|r| !r.resource_spans.is_empty()));
}

#[test]
fn bad_bodies_types_and_paths_are_refused_and_nothing_is_queued() {
    let (shared, rx) = shared(8);
    let pb = headers("application/x-protobuf", false);
    let js = headers("application/json", false);
    // Not protobuf: a field of wire type 7, which does not exist.
    let r = post(&shared, "/v1/traces", &pb, &[0x0f, 0x01]);
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        message(&r).contains("not an OTLP protobuf"),
        "{}",
        message(&r)
    );
    let r = post(&shared, "/v1/traces", &js, b"{\"resourceSpans\": 3}");
    assert_eq!(
        (r.status, r.content_type),
        (StatusCode::BAD_REQUEST, "application/json")
    );
    assert!(message(&r).contains("not an OTLP JSON"), "{}", message(&r));
    let r = post(
        &shared,
        "/v1/traces",
        &headers("application/json", true),
        b"plain",
    );
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(message(&r).contains("gzip"), "{}", message(&r));
    let r = post(&shared, "/v1/traces", &headers("text/plain", false), b"{}");
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let mut br = headers("application/json", false);
    br.insert(CONTENT_ENCODING, HeaderValue::from_static("br"));
    assert_eq!(
        post(&shared, "/v1/traces", &br, b"{}").status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        post(&shared, "/v1/logs", &js, b"{}").status,
        StatusCode::NOT_FOUND
    );
    let get = head(&Method::GET, "/v1/traces", &js, 1 << 20).unwrap_err();
    assert_eq!(get.status, StatusCode::METHOD_NOT_ALLOWED);
    let health = head(&Method::GET, "/health", &HeaderMap::new(), 1 << 20).unwrap_err();
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(rx.try_iter().count(), 0);
}

#[test]
fn bodies_over_the_limit_are_413_sent_or_unpacked() {
    let (shared, rx) = shared(8);
    let mut h = headers("application/json", false);
    h.insert(CONTENT_LENGTH, HeaderValue::from(2u64 << 20));
    let r = head(&Method::POST, "/v1/traces", &h, shared.limits.max_body).unwrap_err();
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    // A small gzip body that unpacks past the limit (a zip bomb) is refused, not unpacked.
    let bomb = gzip(&vec![b' '; (1 << 20) + 1]);
    assert!(bomb.len() < 10_000);
    let r = post(
        &shared,
        "/v1/traces",
        &headers("application/json", true),
        &bomb,
    );
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(message(&r).contains("limit"));
    assert_eq!(rx.try_iter().count(), 0);
}

#[test]
fn a_full_queue_is_503_with_retry_after_and_the_queued_requests_stay() {
    let (shared, rx) = shared(2);
    let reqs = requests();
    let pb = headers("application/x-protobuf", false);
    for r in &reqs[..2] {
        assert_eq!(
            post(&shared, "/v1/traces", &pb, &r.encode_to_vec()).status,
            StatusCode::OK
        );
    }
    let full = post(&shared, "/v1/traces", &pb, &reqs[2].encode_to_vec());
    assert_eq!(full.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(full.retry, "Retry-After");
    assert!(message(&full).contains("full"));
    // Taking one makes room for one.
    assert_eq!(over_http(rx.try_recv().unwrap()), reqs[0]);
    assert_eq!(
        post(&shared, "/v1/traces", &pb, &reqs[2].encode_to_vec()).status,
        StatusCode::OK
    );
    assert_eq!(
        rx.try_iter().map(over_http).collect::<Vec<_>>(),
        vec![reqs[1].clone(), reqs[2].clone()]
    );
}

/// One HTTP/1.1 exchange on a fresh connection: the status code, the headers and the body.
fn exchange(addr: SocketAddr, request: &[u8]) -> (u16, String, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    s.write_all(request).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let headers = String::from_utf8_lossy(&all[..split]).into_owned();
    let code = headers[9..12].parse().unwrap();
    (code, headers, all[split + 4..].to_vec())
}

fn http_post(addr: SocketAddr, kind: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// Over a socket: requests acknowledged are in the queue in order, one past the queue's room
/// gets 503 with `Retry-After`, and after `close` the port refuses and the queue still holds
/// what was acknowledged.
#[test]
fn the_server_queues_what_it_acknowledges_and_closes() {
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let limits = Limits {
        max_body: 1 << 20,
        queue: 2,
    };
    let at = Endpoints {
        otlp_http: Some(addr),
        otlp_grpc: None,
    };
    let inbox = Inbox::listen(at, limits).unwrap().unwrap();
    let at = inbox.addr(Protocol::Http).unwrap();
    assert_eq!(inbox.addr(Protocol::Grpc), None);
    assert_ne!(at.port(), 0);
    let reqs = requests();
    let pb = "application/x-protobuf";
    let (code, _, body) = exchange(at, &http_post(at, pb, &reqs[0].encode_to_vec()));
    assert_eq!((code, body.len()), (200, 0));
    let line = SPANS.lines().nth(1).unwrap();
    let (code, _, body) = exchange(at, &http_post(at, "application/json", line.as_bytes()));
    assert_eq!((code, &body[..]), (200, &b"{}"[..]));
    let (code, headers, _) = exchange(at, &http_post(at, pb, &reqs[2].encode_to_vec()));
    assert_eq!(code, 503);
    assert!(
        headers.to_ascii_lowercase().contains("retry-after: 1"),
        "{headers}"
    );
    let (code, _, _) = exchange(
        at,
        b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(code, 200);
    let (code, _, _) = exchange(at, &http_post(at, "text/plain", b"x"));
    assert_eq!(code, 415);
    // Woken at once by a queued request.
    assert!(inbox.wait(std::time::Duration::from_secs(5)));
    inbox.close();
    assert!(std::net::TcpStream::connect(at).is_err(), "still listening");
    assert_eq!(inbox.take(), Some((Protocol::Http, reqs[0].clone())));
    assert_eq!(inbox.take(), Some((Protocol::Http, reqs[1].clone())));
    assert_eq!(inbox.take(), None);
}

/// A gRPC client's runtime (current-thread, as the server's).
fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

type Client =
    opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient<
        tonic::transport::Channel,
    >;

/// A tonic client of the server at `at`, sending gzip when `gzip`.
async fn client(at: SocketAddr, gzip: bool) -> Client {
    let c = Client::connect(format!("http://{at}")).await.unwrap();
    if gzip {
        c.send_compressed(tonic::codec::CompressionEncoding::Gzip)
    } else {
        c
    }
}

/// Over a socket, both receivers into one queue: gRPC exports (gzip or not) and HTTP posts
/// are queued in the order acknowledged, each with its protocol; one past the queue's room is
/// UNAVAILABLE with a `RetryInfo` (retryable, per the OTLP specification's throttling); after
/// `close` the gRPC port refuses and the queue holds what was acknowledged.
#[test]
fn grpc_exports_share_the_queue_and_a_full_one_is_unavailable_with_retry_info() {
    use tonic_types::StatusExt as _;
    let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let limits = Limits {
        max_body: 1 << 20,
        queue: 3,
    };
    let at = Endpoints {
        otlp_http: Some(any),
        otlp_grpc: Some(any),
    };
    let inbox = Inbox::listen(at, limits).unwrap().unwrap();
    let (h, g) = (
        inbox.addr(Protocol::Http).unwrap(),
        inbox.addr(Protocol::Grpc).unwrap(),
    );
    assert_ne!(g.port(), 0);
    assert_eq!(
        inbox.listening()[1],
        format!("receiving OTLP/gRPC on http://{g}")
    );
    let reqs = requests();
    let rt = client_runtime();
    let reply = rt.block_on(async { client(g, true).await.export(reqs[0].clone()).await });
    // An ExportTraceServiceResponse with no partial success.
    assert_eq!(reply.unwrap().into_inner(), Default::default());
    let pb = "application/x-protobuf";
    let (code, _, _) = exchange(h, &http_post(h, pb, &reqs[1].encode_to_vec()));
    assert_eq!(code, 200);
    let reply = rt.block_on(async { client(g, false).await.export(reqs[2].clone()).await });
    assert!(reply.is_ok(), "{reply:?}");
    let full = rt
        .block_on(async { client(g, false).await.export(reqs[0].clone()).await })
        .unwrap_err();
    assert_eq!(full.code(), tonic::Code::Unavailable, "{full:?}");
    assert!(full.message().contains("full"), "{full:?}");
    let retry = full.get_details_retry_info().expect("RetryInfo");
    assert_eq!(retry.retry_delay, Some(std::time::Duration::from_secs(1)));
    // The clients gone first: a connection open stays until the stop's grace.
    drop(rt);
    inbox.close();
    assert!(std::net::TcpStream::connect(g).is_err(), "still listening");
    assert_eq!(inbox.take(), Some((Protocol::Grpc, reqs[0].clone())));
    assert_eq!(inbox.take(), Some((Protocol::Http, reqs[1].clone())));
    assert_eq!(inbox.take(), Some((Protocol::Grpc, reqs[2].clone())));
    assert_eq!(inbox.take(), None);
}

/// A gRPC message over the limit, as sent or unpacked from gzip, is refused by tonic (not
/// retryable: no `RetryInfo`) and not queued; one within it still is.
#[test]
fn grpc_messages_over_the_limit_are_refused_not_retryable() {
    use tonic_types::StatusExt as _;
    let limits = Limits {
        max_body: 4 << 10,
        queue: 4,
    };
    let at = Endpoints {
        otlp_http: None,
        otlp_grpc: Some("127.0.0.1:0".parse().unwrap()),
    };
    let inbox = Inbox::listen(at, limits).unwrap().unwrap();
    let g = inbox.addr(Protocol::Grpc).unwrap();
    // Many copies of the checkout's spans: over 4 KiB, and gzip packs them far below it.
    let mut big = requests()[0].clone();
    let spans = big.resource_spans[0].clone();
    big.resource_spans = vec![spans; 64];
    assert!(big.encoded_len() > 4 << 10);
    let rt = client_runtime();
    // tonic's codes: OUT_OF_RANGE as sent, RESOURCE_EXHAUSTED unpacking.
    let codes = [tonic::Code::OutOfRange, tonic::Code::ResourceExhausted];
    for (gzip, code) in [false, true].into_iter().zip(codes) {
        let e = rt
            .block_on(async { client(g, gzip).await.export(big.clone()).await })
            .unwrap_err();
        assert_eq!(e.code(), code, "gzip {gzip}: {e:?}");
        assert!(e.get_details_retry_info().is_none());
    }
    let small = requests()[1].clone();
    let ok = rt.block_on(async { client(g, true).await.export(small.clone()).await });
    assert!(ok.is_ok(), "{ok:?}");
    drop(rt);
    inbox.close();
    assert_eq!(inbox.take(), Some((Protocol::Grpc, small)));
    assert_eq!(inbox.take(), None);
}
