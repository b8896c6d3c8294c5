//! The web page (`web/`, built into `web/dist/` and embedded in the binary by `build.rs`):
//! `/` and `/assets/{name}`, with gzip or brotli as the browser accepts, content-hashed
//! asset names cached for a year, and a Content-Security-Policy that allows nothing from
//! elsewhere.

use axum::{
    extract::Path,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

use crate::error::ApiError;

/// One built file and its compressed forms.
pub(crate) struct Asset {
    pub(crate) name: &'static str,
    pub(crate) etag: &'static str,
    pub(crate) identity: &'static [u8],
    pub(crate) gzip: &'static [u8],
    pub(crate) brotli: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// Nothing but this server: scripts and styles from its files, images from its files and
/// `data:` URLs (chessground's pieces and board), requests to its API.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(name: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.name == name)
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Whether `accept` (an Accept-Encoding value) takes `coding` (not with `q=0`).
fn accepts(accept: &str, coding: &str) -> bool {
    accept.split(',').any(|part| {
        let mut it = part.split(';').map(str::trim);
        let name = it.next().unwrap_or_default();
        let zero = it.any(|p| {
            p.strip_prefix("q=")
                .and_then(|q| q.parse::<f32>().ok())
                .is_some_and(|q| q == 0.0)
        });
        name.eq_ignore_ascii_case(coding) && !zero
    })
}

fn send(a: &'static Asset, req: &HeaderMap, cache: &'static str) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(a.name)),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::ETAG, HeaderValue::from_static(a.etag));
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    let matches = req
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == a.etag || t.trim() == "*"));
    if matches {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    let accept = req
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let body = if accepts(accept, "br") {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
        a.brotli
    } else if accepts(accept, "gzip") {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        a.gzip
    } else {
        a.identity
    };
    (StatusCode::OK, headers, body).into_response()
}

/// `GET /`: the page (always revalidated: it names the current assets).
pub(crate) async fn index(req: HeaderMap) -> Response {
    let page = asset("index.html").expect("build.rs refuses a web/dist without index.html");
    send(page, &req, "no-cache")
}

/// `GET /assets/{name}`: a built file, named by its content's hash.
pub(crate) async fn file(Path(name): Path<String>, req: HeaderMap) -> Result<Response, ApiError> {
    match asset(&name).filter(|a| a.name != "index.html") {
        Some(a) => Ok(send(a, &req, "public, max-age=31536000, immutable")),
        None => Err(ApiError::NotFound(format!("/assets/{name}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding() {
        assert!(accepts("gzip, deflate, br", "br"));
        assert!(accepts("gzip;q=1.0, br;q=0.5", "br"));
        assert!(!accepts("gzip, br;q=0", "br"));
        assert!(!accepts("identity", "gzip"));
        assert!(!accepts("", "gzip"));
        assert!(accepts("GZIP", "gzip"));
    }

    #[test]
    fn every_asset_is_named_by_its_hash_but_the_page() {
        for a in ASSETS {
            assert!(
                a.name == "index.html" || a.name.contains('-'),
                "{} has no content hash in its name",
                a.name
            );
            assert!(!a.gzip.is_empty() && !a.brotli.is_empty());
        }
    }
}
