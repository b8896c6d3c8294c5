//! The accept loop: a cap on connections, a time limit on headers (and on idle keep-alive
//! connections) and on each request, answers in JSON for requests too large to route, and
//! a shutdown that ends within a bounded time whatever the clients do.
//!
//! Idle connections cannot starve the others: when a new client finds every slot taken,
//! the oldest connection with no request in flight (idle between requests, or still
//! waiting for its first request's headers) is closed to make room. Only connections with
//! a request being answered keep their slot; a client past the cap waits for one of those.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use axum::{
    Router,
    extract::{ConnectInfo, Request},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use hyper_util::{
    rt::{TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
    service::TowerToHyperService,
};
use tokio::sync::{Notify, Semaphore};
use tower::ServiceExt;

use crate::ApiError;

/// The server's bounds on its clients.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once; further clients wait in the listen queue.
    pub connections: usize,
    /// Time a client has to send a request's headers; also how long an idle keep-alive
    /// connection is kept.
    pub header_timeout: Duration,
    /// Time a request may take, body and answer (but an ingest, which takes as long as
    /// its games).
    pub request_timeout: Duration,
    /// Time in-flight requests get at shutdown; then their connections are closed.
    pub shutdown_grace: Duration,
    /// Longest request target (path and query) answered; longer ones get a 414.
    pub uri_limit: usize,
    /// Largest total of header names and values answered; larger ones get a 431.
    pub header_limit: usize,
}

impl Default for Limits {
    /// 512 connections, 10 s for headers or idleness, 60 s per request, 5 s to stop,
    /// 8 KiB of target and 16 KiB of headers.
    fn default() -> Limits {
        Limits {
            connections: 512,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(5),
            uri_limit: 8 * 1024,
            header_limit: 16 * 1024,
        }
    }
}

/// Whether `host` (a `Host` header or an origin's authority) names this machine's loopback.
fn is_loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Requests from where they should not come: on a loopback address, a `Host` that is not a
/// loopback name (a DNS-rebinding page: its own host name resolved to 127.0.0.1); from
/// another site (`Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` whose host is
/// not the `Host`), a write or an expensive read (the report). Other reads stay open to
/// other pages, as lichess's explorer is.
fn refused(local: SocketAddr, req: &Request) -> Option<ApiError> {
    let header = |name: axum::http::HeaderName| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let host = header(axum::http::header::HOST);
    if local.ip().is_loopback()
        && let Some(host) = host
        && !is_loopback_name(host)
    {
        return Some(ApiError::Forbidden(format!(
            "this server answers on 127.0.0.1 only, not for host {host:?}"
        )));
    }
    let costly = req.method() != axum::http::Method::GET
        && req.method() != axum::http::Method::HEAD
        || req.uri().path() == "/api/v1/report";
    if !costly {
        return None;
    }
    let fetch_site = header(axum::http::HeaderName::from_static("sec-fetch-site"));
    let other_site = matches!(fetch_site, Some("cross-site" | "same-site"));
    let other_origin = header(axum::http::header::ORIGIN).is_some_and(|origin| {
        let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
        Some(authority) != host
    });
    (other_site || other_origin).then(|| {
        ApiError::Forbidden(format!(
            "{} {} is not accepted from another site's page",
            req.method(),
            req.uri().path()
        ))
    })
}

/// Requests too large to route get a JSON 414/431 (hyper's own answers to what it cannot
/// parse have no body, so its limits are set well above these); requests from where they
/// should not come a JSON 403 ([`refused`]); a request that runs past `request_timeout` a
/// JSON 503.
async fn bound(limits: Limits, local: SocketAddr, req: Request, next: Next) -> Response {
    if let Some(e) = refused(local, &req) {
        return e.into_response();
    }
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > limits.uri_limit {
        return ApiError::UriTooLong(limits.uri_limit).into_response();
    }
    let headers: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    if headers > limits.header_limit {
        return ApiError::HeadersTooLarge(limits.header_limit).into_response();
    }
    if req.uri().path() == "/api/v1/ingest" {
        return next.run(req).await;
    }
    match tokio::time::timeout(limits.request_timeout, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => ApiError::TimedOut(limits.request_timeout.as_secs()).into_response(),
    }
}

/// The connections being served, oldest first, each with its requests in flight and the
/// signal that closes it.
#[derive(Default)]
struct Open {
    next: u64,
    conns: BTreeMap<u64, (Arc<AtomicUsize>, Arc<Notify>)>,
}

impl Open {
    fn lock(m: &Mutex<Open>) -> std::sync::MutexGuard<'_, Open> {
        // Every update leaves the map consistent: a poisoned lock is still usable.
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Closes the oldest connection with no request in flight; whether there was one.
    fn evict_oldest_idle(&mut self) -> bool {
        let idle = self
            .conns
            .iter()
            .find(|(_, (busy, _))| busy.load(Ordering::Acquire) == 0)
            .map(|(id, _)| *id);
        match idle.and_then(|id| self.conns.remove(&id)) {
            Some((_, close)) => {
                close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Counts a request in flight on its connection until dropped (with the answer's body).
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(busy: &Arc<AtomicUsize>) -> InFlight {
        busy.fetch_add(1, Ordering::AcqRel);
        InFlight(busy.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves `app` on `listener` within `limits` until `shutdown` resolves; then stops
/// accepting, lets in-flight requests finish for `limits.shutdown_grace`, and returns.
pub async fn serve_router<F>(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    shutdown: F,
) -> std::io::Result<()>
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let local = listener.local_addr()?;
    let app = app.layer(middleware::from_fn(move |req: Request, next: Next| {
        bound(limits, local, req, next)
    }));
    let slots = Arc::new(Semaphore::new(limits.connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // Well above `uri_limit` + `header_limit`: the JSON answers come from `bound`.
        .max_buf_size(4 * (limits.uri_limit + limits.header_limit).max(8192));
    tokio::pin!(shutdown);
    let open = Arc::new(Mutex::new(Open::default()));
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: wait, then accept again.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Every slot taken: the oldest idle connection makes room; with none idle, the
        // client waits for a request to end.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(tokio::sync::TryAcquireError::Closed) => break,
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                if Open::lock(&open).evict_oldest_idle() {
                    tracing::debug!(%peer, "every connection slot taken: the oldest idle closed");
                }
                tokio::select! {
                    () = &mut shutdown => break,
                    slot = slots.clone().acquire_owned() => match slot {
                        Ok(slot) => slot,
                        Err(_) => break,
                    },
                }
            }
        };
        let busy = Arc::new(AtomicUsize::new(0));
        let close = Arc::new(Notify::new());
        let id = {
            let mut o = Open::lock(&open);
            let id = o.next;
            o.next += 1;
            o.conns.insert(id, (busy.clone(), close.clone()));
            id
        };
        let app = app.clone();
        let service = tower::service_fn(move |req: Request<hyper::body::Incoming>| {
            // In flight from the request's headers until its answer's body is sent.
            let flight = InFlight::new(&busy);
            let mut req = req.map(axum::body::Body::new);
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            let app = app.clone();
            async move {
                let res = app.oneshot(req).await?;
                Ok::<_, std::convert::Infallible>(res.map(move |body| {
                    use http_body_util::BodyExt;
                    axum::body::Body::new(body.map_frame(move |frame| {
                        let _ = &flight;
                        frame
                    }))
                }))
            }
        });
        let conn = builder.serve_connection(
            TokioIo::new(crate::unparsed::JsonErrors::new(
                stream,
                (limits.uri_limit, limits.header_limit),
            )),
            TowerToHyperService::new(service),
        );
        let conn = graceful.watch(conn);
        let open = open.clone();
        tokio::spawn(async move {
            let _slot = slot;
            tokio::select! {
                ended = conn => if let Err(e) = ended {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                },
                // Closed to make room (dropping the connection closes its socket).
                () = close.notified() => {}
            }
            Open::lock(&open).conns.remove(&id);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace_secs = limits.shutdown_grace.as_secs(),
            "connections still open at shutdown: closed"
        );
    }
    Ok(())
}

/// Listens for Ctrl-C and (on Unix) SIGTERM from now on, and returns what resolves at the
/// first: when `mirror serve` stops. Called before the server says it is up, so that a
/// signal sent as soon as it says so stops it gracefully (a handler set up later would
/// leave that signal to the system, which ends the process at once). Must be called
/// within a Tokio runtime.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(term) => {},
                () = wait(int) => {},
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
