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

/// The write token of [`start_with_writes`].
const TOKEN: &str = "the-owners-token";

/// The real router over an empty store (plus `/slow`, an answer that takes 30 s).
async fn start(limits: Limits) -> Server {
    start_on(limits, false).await
}

/// [`start`], accepting writes with [`TOKEN`] (the page's too).
async fn start_with_writes(limits: Limits) -> Server {
    start_on(limits, true).await
}

async fn start_on(limits: Limits, writes: bool) -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Arc::new(
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open"),
    );
    let state = if writes {
        let fetch = mirror_ingest::run::FetchSetup {
            chesscom_base: "http://127.0.0.1:9".into(),
            lichess_base: "http://127.0.0.1:9".into(),
            contact: None,
            lichess_token: None,
            batch_size: 1000,
        };
        AppState::with_writes(store, 4, None, TOKEN.into(), (fetch, "a test store".into()))
    } else {
        AppState::new(store, 4)
    };
    let app: Router = router(state).merge(Router::new().route(
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

/// Past the cap, a new client takes the slot of the oldest idle connection (never of one
/// with a request in flight); with every connection busy, it waits for one to end.
#[tokio::test]
async fn connections_past_the_cap_take_an_idle_ones_slot_or_wait() {
    let s = start(Limits {
        connections: 2,
        ..Limits::default()
    })
    .await;
    let url = format!("http://{}/health", s.addr);
    let client = |ms: u64| {
        reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_millis(ms))
            .build()
            .expect("client")
    };
    // Two idle connections (no request): a third client is served at once.
    let mut idle = Vec::new();
    for _ in 0..2 {
        idle.push(TcpStream::connect(s.addr).await.expect("connect"));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = client(3_000)
        .get(&url)
        .send()
        .await
        .expect("served past idle ones");
    assert_eq!(r.status().as_u16(), 200);
    // The oldest idle one was closed to make room: reading it ends.
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(3), idle[0].read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?}");
    drop(idle);
    // Two connections with a request in flight: a third waits for one of them.
    let slow = format!("http://{}/slow", s.addr);
    let busy: Vec<_> = (0..2)
        .map(|_| {
            let (c, u) = (client(60_000), slow.clone());
            tokio::spawn(async move { c.get(&u).send().await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        client(700).get(&url).send().await.is_err(),
        "a third connection is not served while two answer"
    );
    for b in &busy {
        b.abort();
    }
    let r = client(5_000)
        .get(&url)
        .send()
        .await
        .expect("served once one closed");
    assert_eq!(r.status().as_u16(), 200);
}

/// Hundreds of idle sockets and sockets trickling their headers, beyond the cap, do not
/// keep a new client from being answered: `/health` stays answered (figures printed:
/// docs/benchmarks.md).
#[tokio::test]
async fn hundreds_of_idle_and_trickling_sockets_do_not_starve_the_server() {
    let s = start(Limits {
        connections: 64,
        ..Limits::default()
    })
    .await;
    let rss_before = rss_kib();
    let mut held = Vec::new();
    for i in 0..300 {
        let mut c = TcpStream::connect(s.addr).await.expect("connect");
        if i % 2 == 1 {
            // Trickling: part of a request line, the rest never comes.
            c.write_all(b"GET /health HT").await.expect("write");
        }
        held.push(c);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    let url = format!("http://{}/health", s.addr);
    let mut times = Vec::new();
    for _ in 0..20 {
        let started = std::time::Instant::now();
        let r = client
            .get(&url)
            .send()
            .await
            .expect("answered beside 300 idle sockets");
        assert_eq!(r.status().as_u16(), 200);
        times.push(started.elapsed());
        // A fresh connection each time, as a new client would come.
        let c = TcpStream::connect(s.addr).await.expect("connect");
        held.push(c);
    }
    times.sort();
    let grown = rss_kib().saturating_sub(rss_before);
    println!(
        "/health beside {} idle or trickling sockets (cap 64): median {:?}, max {:?}; \
         the process grew by {grown} KiB",
        held.len(),
        times[times.len() / 2],
        times[times.len() - 1]
    );
    // A socket waiting for its turn costs the server its buffers, not a task's memory: far
    // under 64 KiB each.
    assert!(grown < 320 * 64, "{grown} KiB for {} sockets", held.len());
}

/// This process's resident memory in KiB (`VmRSS` of `/proc/self/status`).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
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

/// Sends `head` (a request's line and headers) and `body` on a new connection, then waits up
/// to `wait` for the answer's status.
async fn status_of(s: &Server, head: &str, body: &[u8], wait: Duration) -> Option<u16> {
    let mut c = TcpStream::connect(s.addr).await.expect("connect");
    let head = head.replace("HOST", &s.addr.to_string());
    c.write_all(head.as_bytes()).await.expect("write");
    c.write_all(body).await.expect("write");
    let mut buf = Vec::new();
    let mut piece = [0u8; 1024];
    let read = tokio::time::timeout(wait, async {
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = c.read(&mut piece).await.expect("read");
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&piece[..n]);
        }
    })
    .await;
    read.ok()?;
    String::from_utf8_lossy(&buf)
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
}

/// A write's token is checked before its body is read, a body over the bound is refused
/// from its `Content-Length`, and a body that never comes is given up after its deadline
/// (the ingest route has no time limit of its own): hundreds of such sockets leave
/// `/health` answering at once.
#[tokio::test]
async fn write_bodies_wait_for_the_token_and_their_deadline() {
    let s = start_with_writes(Limits::default()).await;
    let head = |path: &str, token: bool, length: usize| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\n\
             Content-Length: {length}\r\n{}\r\n",
            if token {
                format!("Authorization: Bearer {TOKEN}\r\n")
            } else {
                String::new()
            }
        )
    };
    let quick = Duration::from_secs(2);
    for path in ["/api/v1/ingest", "/api/v1/imports/pgn?user=someone"] {
        // No token: 401 with no byte of the body sent.
        assert_eq!(
            status_of(&s, &head(path, false, 1000), b"", quick).await,
            Some(401),
            "{path}"
        );
        // Over the bound: 413 from the header alone.
        assert_eq!(
            status_of(&s, &head(path, true, 100 * 1024 * 1024), b"", quick).await,
            Some(413),
            "{path}"
        );
    }
    // With the token, a body that stops coming: 408 once its 10 s are up, not before.
    let started = std::time::Instant::now();
    let status = status_of(
        &s,
        &head("/api/v1/ingest", true, 1000),
        b"{\"user\": ",
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(status, Some(408));
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(15),
        "{waited:?}"
    );

    // 300 sockets trickling ingest bodies (with the token), and /health from a fresh client
    // meanwhile answers within 100 ms.
    let mut sockets = Vec::new();
    for i in 0..300 {
        let mut c = TcpStream::connect(s.addr).await.expect("connect");
        let h = head("/api/v1/ingest", true, 10_000 + i).replace("HOST", &s.addr.to_string());
        c.write_all(h.as_bytes()).await.expect("write");
        c.write_all(b"[").await.expect("write");
        sockets.push(c);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let mut slowest = Duration::ZERO;
    for _ in 0..10 {
        let t = std::time::Instant::now();
        let r = client
            .get(format!("http://{}/health", s.addr))
            .send()
            .await
            .expect("health");
        assert_eq!(r.status().as_u16(), 200);
        slowest = slowest.max(t.elapsed());
    }
    assert!(slowest < Duration::from_millis(100), "{slowest:?}");
    // And each of them is answered and closed once its deadline passes.
    let mut closed = 0;
    for c in &mut sockets {
        let mut buf = Vec::new();
        if tokio::time::timeout(Duration::from_secs(20), c.read_to_end(&mut buf))
            .await
            .is_ok()
        {
            closed += 1;
        }
    }
    assert_eq!(closed, sockets.len());
}
