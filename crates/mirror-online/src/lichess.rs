//! lichess's game export (`/api/games/user/{user}`), streamed as PGN.
//!
//! The answer can be long (all of a player's games), so it is read as a stream: the
//! request itself is retried (429 waits a minute unless `Retry-After` says otherwise, 5xx
//! and timeouts back off); a stream that breaks later ends with an I/O error, and the games
//! before the break are kept by the caller.

use std::{
    io::{self, Read},
    time::Duration,
};

use reqwest::header;

use crate::http::{self, FetchError, Meaning, RetryPolicy};

/// lichess's base URL.
pub const DEFAULT_BASE: &str = "https://lichess.org";

const SITE: &str = "lichess";

/// Checks a username against lichess's rules (lower-cases it).
pub fn validate_username(name: &str) -> Result<String, FetchError> {
    http::check_username(
        SITE,
        name,
        2,
        30,
        "2 to 30 characters, letters, digits, '_' or '-'",
    )
}

/// Client settings.
#[derive(Clone, Debug)]
pub struct LichessConfig {
    /// Base URL, e.g. `https://lichess.org`.
    pub base: String,
    /// A personal API token (higher rate limits). Never logged.
    pub token: Option<String>,
    /// Contact for the User-Agent.
    pub contact: Option<String>,
    /// Timeouts and retries (the timeout also bounds a stall inside the stream).
    pub retry: RetryPolicy,
}

impl Default for LichessConfig {
    fn default() -> Self {
        LichessConfig {
            base: DEFAULT_BASE.into(),
            token: None,
            contact: None,
            retry: RetryPolicy::default(),
        }
    }
}

/// A streamed export: PGN text as a blocking [`Read`].
pub struct ExportStream {
    rt: tokio::runtime::Runtime,
    resp: reqwest::Response,
    buf: bytes_buf::Buf,
    stall: Duration,
}

impl std::fmt::Debug for ExportStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportStream")
            .field("url", &self.resp.url().as_str())
            .finish()
    }
}

mod bytes_buf {
    /// The rest of the last chunk.
    #[derive(Default)]
    pub struct Buf {
        pub data: Vec<u8>,
        pub pos: usize,
    }
}

impl Read for ExportStream {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.buf.pos >= self.buf.data.len() {
            let next = self
                .rt
                .block_on(async { tokio::time::timeout(self.stall, self.resp.chunk()).await });
            match next {
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "lichess stopped sending games (stalled stream)",
                    ));
                }
                Ok(Err(e)) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("lichess stream broken: {e}"),
                    ));
                }
                Ok(Ok(None)) => return Ok(0),
                Ok(Ok(Some(chunk))) => {
                    self.buf.data = chunk.to_vec();
                    self.buf.pos = 0;
                }
            }
        }
        let n = out.len().min(self.buf.data.len() - self.buf.pos);
        out[..n].copy_from_slice(&self.buf.data[self.buf.pos..self.buf.pos + n]);
        self.buf.pos += n;
        Ok(n)
    }
}

/// Opens the export of `user`'s games created from `since_ms` to `until_ms` (Unix
/// milliseconds), oldest first.
pub fn open_export(
    cfg: &LichessConfig,
    user: &str,
    since_ms: Option<i64>,
    until_ms: Option<i64>,
) -> Result<ExportStream, FetchError> {
    let user = validate_username(user)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(FetchError::Runtime)?;
    let client = reqwest::Client::builder()
        .user_agent(http::user_agent(&user, cfg.contact.as_deref()))
        .build()
        .map_err(FetchError::Client)?;
    let mut url = format!(
        "{}/api/games/user/{user}?sort=dateAsc&moves=true&tags=true&clocks=false&evals=false&opening=false&literate=false",
        cfg.base.trim_end_matches('/')
    );
    if let Some(s) = since_ms {
        url.push_str(&format!("&since={s}"));
    }
    if let Some(u) = until_ms {
        url.push_str(&format!("&until={u}"));
    }
    let mut headers = header::HeaderMap::new();
    headers.insert(
        header::ACCEPT,
        header::HeaderValue::from_static("application/x-chess-pgn"),
    );
    if let Some(token) = &cfg.token {
        let value = header::HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(FetchError::BadToken)?;
        headers.insert(header::AUTHORIZATION, value);
    }
    let meaning = Meaning {
        site: SITE,
        user: Some(&user),
        forbidden_hint: "Check the token in MIRROR_LICHESS_TOKEN",
    };
    let resp = rt.block_on(http::open(&client, &url, headers, &cfg.retry, meaning))?;
    Ok(ExportStream {
        rt,
        resp,
        buf: bytes_buf::Buf::default(),
        stall: cfg.retry.timeout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        assert_eq!(
            validate_username("DrNykterstein").ok().as_deref(),
            Some("drnykterstein")
        );
        assert!(validate_username("ab").is_ok());
        for bad in ["a", "a/b", "x y", &"a".repeat(31)] {
            assert!(validate_username(bad).is_err(), "{bad}");
        }
    }
}
