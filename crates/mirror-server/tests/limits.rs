//! The server's bounds on its clients, over real sockets on 127.0.0.1: a half-sent
//! request neither holds a connection past the header timeout nor keeps the server from
//! stopping; connections past the cap wait; oversized requests and slow answers get JSON.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use axum::{Router, routing::get};
use mirror_server::{AppState, Limits, listen::serve_router, router};
use mirror_store::embedded::{EmbeddedStore, OpenMode};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::oneshot,
};

struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

/// The real router over an empty store (plus `/slow`, an answer that takes 30 s).
async fn start(limits: Limits) -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Arc::new(
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open"),
    );
    let app: Router = router(AppState::new(store, 4)).merge(Router::new().route(
        "/slow",
        get(|| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "late"
        }),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(serve_router(listener, app, limits, async move {
        let _ = rx.await;
    }));
    Server {
        addr,
        stop: Some(tx),
        done,
        _dir: dir,
    }
}

async fn get_json(s: &Server, path: &str, header: Option<(&str, String)>) -> (u16, Value) {
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let mut req = client.get(format!("http://{}{path}", s.addr));
    if let Some((k, v)) = header {
        req = req.header(k, v);
    }
    let r = req.send().await.expect("request");
    let status = r.status().as_u16();
    assert_eq!(
        r.headers()
            .get("x-content-type-options")
            .and_then(|v| v.to_str().ok()),
        Some("nosniff"),
        "{path}: every answer says nosniff, those given before routing too"
    );
    let text = r.text().await.expect("body");
    let json = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text:?}"));
    (status, json)
}

#[tokio::test]
async fn a_half_sent_request_does_not_keep_the_server_from_stopping() {
    let mut s = start(Limits {
        header_timeout: Duration::from_secs(60),
        shutdown_grace: Duration::from_secs(1),
        ..Limits::default()
    })
    .await;
    let mut half = TcpStream::connect(s.addr).await.expect("connect");
    half.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .expect("write");
    // And one whose answer is still being computed.
    let slow_addr = s.addr;
    let slow = tokio::spawn(async move {
        let mut c = TcpStream::connect(slow_addr).await.expect("connect");
        c.write_all(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .await
            .expect("write");
        let mut buf = Vec::new();
        let _ = c.read_to_end(&mut buf).await;
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = s.stop.take().expect("stop").send(());
    let stopped = tokio::time::timeout(Duration::from_secs(5), &mut s.done).await;
    assert!(
        matches!(stopped, Ok(Ok(Ok(())))),
        "the server stops within its grace (1 s) plus slack: {stopped:?}"
    );
    slow.abort();
}

#[tokio::test]
async fn headers_must_arrive_in_time() {
    let s = start(Limits {
        header_timeout: Duration::from_millis(500),
        ..Limits::default()
    })
    .await;
    let mut c = TcpStream::connect(s.addr).await.expect("connect");
    c.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .expect("write");
    let mut buf = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut buf)).await;
    assert!(
        closed.is_ok(),
        "the connection is closed after the header timeout"
    );
    // An idle keep-alive connection is closed the same way.
    let mut idle = TcpStream::connect(s.addr).await.expect("connect");
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("write");
    let mut buf = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), idle.read_to_end(&mut buf)).await;
    assert!(closed.is_ok(), "an idle connection is closed too");
    assert!(
        String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 200"),
        "after its answer"
    );
}

#[tokio::test]
async fn connections_past_the_cap_wait_for_a_free_one() {
    let s = start(Limits {
        connections: 2,
        ..Limits::default()
    })
    .await;
    let first = TcpStream::connect(s.addr).await.expect("connect");
    let _second = TcpStream::connect(s.addr).await.expect("connect");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(700))
        .build()
        .expect("client");
    let url = format!("http://{}/health", s.addr);
    assert!(
        client.get(&url).send().await.is_err(),
        "a third connection is not served while two are open"
    );
    drop(first);
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    let r = client
        .get(&url)
        .send()
        .await
        .expect("served once one closed");
    assert_eq!(r.status().as_u16(), 200);
}

#[tokio::test]
async fn oversized_requests_and_slow_answers_get_json() {
    let s = start(Limits {
        request_timeout: Duration::from_millis(500),
        ..Limits::default()
    })
    .await;
    let long = "a".repeat(9_000);
    let (status, body) = get_json(&s, &format!("/api/v1/explore?player={long}"), None).await;
    assert_eq!(status, 414, "{body}");
    assert_eq!(body["kind"], "uri_too_long");
    let (status, body) = get_json(&s, "/health", Some(("x-big", "b".repeat(20_000)))).await;
    assert_eq!(status, 431, "{body}");
    assert_eq!(body["kind"], "headers_too_large");
    let (status, body) = get_json(&s, "/slow", None).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["kind"], "timed_out");
    let (status, _) = get_json(&s, "/health", None).await;
    assert_eq!(status, 200);
}

/// What hyper cannot parse (a raw `>` in the target, a header line without a colon, a
/// request line that is not HTTP) gets a JSON 400 like every other 4xx, not an empty one;
/// the server goes on serving.
#[tokio::test]
async fn unparsable_requests_get_json_too() {
    let s = start(Limits::default()).await;
    let host = format!("Host: {}\r\n", s.addr);
    for raw in [
        format!("GET /api/v1/explore?player=a&fen=a>b HTTP/1.1\r\n{host}\r\n"),
        format!("GET /health HTTP/1.1\r\n{host}no colon here\r\n\r\n"),
        "NOT HTTP AT ALL\r\n\r\n".to_string(),
    ] {
        let mut c = TcpStream::connect(s.addr).await.expect("connect");
        c.write_all(raw.as_bytes()).await.expect("send");
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut answer))
            .await
            .expect("answered and closed")
            .expect("read");
        let answer = String::from_utf8(answer).expect("text");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        assert!(head.starts_with("HTTP/1.1 400 "), "{raw:?}: {head}");
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let json: Value = serde_json::from_str(body).expect("a JSON body");
        assert_eq!(json["status"], 400, "{body}");
        assert_eq!(json["kind"], "bad_request", "{body}");
        assert!(
            json["error"]
                .as_str()
                .is_some_and(|e| e.contains("percent-encoded"))
        );
    }
    let (status, _) = get_json(&s, "/health", None).await;
    assert_eq!(status, 200);
}

/// A page of another site (or another host name resolved to 127.0.0.1) cannot make the
/// server work: DNS rebinding is refused outright, cross-site writes and reports too; the
/// page itself and plain reads still work.
#[tokio::test]
async fn other_sites_and_other_host_names_are_refused() {
    let s = start(Limits::default()).await;
    let (status, body) = get_json(&s, "/health", Some(("host", "evil.example:80".into()))).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["kind"], "forbidden");
    let here = format!("http://{}", s.addr);
    for host in [s.addr.to_string(), format!("localhost:{}", s.addr.port())] {
        let (status, _) = get_json(&s, "/health", Some(("host", host))).await;
        assert_eq!(status, 200);
    }
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let report = format!("{here}/api/v1/report?player=nobody");
    for (name, value) in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "https://evil.example"),
    ] {
        let r = client
            .get(&report)
            .header(name, value)
            .send()
            .await
            .expect("send");
        assert_eq!(r.status().as_u16(), 403, "report with {name}: {value}");
        let r = client
            .post(format!("{here}/api/v1/ingest"))
            .header(name, value)
            .body("{}")
            .send()
            .await
            .expect("send");
        assert_eq!(r.status().as_u16(), 403, "ingest with {name}: {value}");
        let r = client
            .get(format!("{here}/api/v1/players"))
            .header(name, value)
            .send()
            .await
            .expect("send");
        assert_eq!(
            r.status().as_u16(),
            200,
            "a plain read with {name}: {value}"
        );
    }
    // The page's own requests (same origin) pass.
    let r = client
        .get(&report)
        .header("sec-fetch-site", "same-origin")
        .header("origin", &here)
        .send()
        .await
        .expect("send");
    assert_ne!(r.status().as_u16(), 403);
}
