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

fn shared(queue: usize) -> (Shared, Receiver<Received>) {
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
    let got: Vec<Received> = rx.try_iter().collect();
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
    assert_eq!(rx.try_recv().unwrap(), reqs[0]);
    assert_eq!(
        post(&shared, "/v1/traces", &pb, &reqs[2].encode_to_vec()).status,
        StatusCode::OK
    );
    assert_eq!(
        rx.try_iter().collect::<Vec<_>>(),
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
    let inbox = Inbox::listen(addr, limits).unwrap();
    let at = inbox.addr();
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
    assert_eq!(inbox.take(), Some(reqs[0].clone()));
    assert_eq!(inbox.take(), Some(reqs[1].clone()));
    assert_eq!(inbox.take(), None);
}
