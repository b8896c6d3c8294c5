//! A polite client for the Chess.com Published-Data API.
//!
//! - Serial requests, a User-Agent with contact information (Chess.com answers 403 without).
//! - 429 waits for `Retry-After`; 5xx, timeouts, broken connections and truncated bodies
//!   are retried with exponential backoff up to a limit.
//! - Monthly archives are revalidated with `If-None-Match` / `If-Modified-Since`.
//! - Usernames are validated before they reach a URL.
//!
//! Waiting goes through a [`Sleeper`], so tests can record waits instead of sleeping.

pub mod game;

use std::{
    fmt,
    sync::{Arc, Mutex},
    time::Duration,
};

use mirror_core::time::Month;
use reqwest::{StatusCode, header};
use serde::Deserialize;

pub use game::{ApiGame, decode_game};

/// The public API's base URL.
pub const DEFAULT_BASE: &str = "https://api.chess.com";

/// Errors of the client.
#[derive(Debug, thiserror::Error)]
pub enum ChesscomError {
    /// The username cannot be a Chess.com username.
    #[error("invalid Chess.com username {0:?}: 3 to 25 characters, letters, digits, '_' or '-'")]
    InvalidUsername(String),
    /// Chess.com says the user does not exist.
    #[error("Chess.com has no user {user:?}: {message}")]
    UnknownUser {
        /// The username asked for.
        user: String,
        /// Chess.com's message.
        message: String,
    },
    /// Chess.com refused the request (it requires contact information).
    #[error(
        "Chess.com refused the request (403 Forbidden). It requires contact information in \
         the User-Agent: pass --contact EMAIL or set MIRROR_CONTACT"
    )]
    Forbidden,
    /// Still failing after all retries.
    #[error("{url}: {reason} (after {attempts} attempts)")]
    GaveUp {
        /// The URL.
        url: String,
        /// The last failure.
        reason: String,
        /// Attempts made.
        attempts: u32,
    },
    /// An answer that is not what the API documents.
    #[error("{url}: unexpected answer: {reason}")]
    Unexpected {
        /// The URL.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Checks a username against Chess.com's allowed characters.
pub fn validate_username(name: &str) -> Result<String, ChesscomError> {
    let ok = (3..=25).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(name.to_ascii_lowercase())
    } else {
        Err(ChesscomError::InvalidUsername(name.to_string()))
    }
}

/// How the client waits between retries.
#[derive(Clone, Default)]
pub enum Sleeper {
    /// Real waiting (tokio's timer).
    #[default]
    Real,
    /// No waiting: every requested wait is recorded (for tests).
    Recorded(Arc<Mutex<Vec<Duration>>>),
}

impl fmt::Debug for Sleeper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sleeper::Real => f.write_str("Sleeper::Real"),
            Sleeper::Recorded(_) => f.write_str("Sleeper::Recorded"),
        }
    }
}

impl Sleeper {
    async fn sleep(&self, d: Duration) {
        match self {
            Sleeper::Real => tokio::time::sleep(d).await,
            Sleeper::Recorded(log) => {
                if let Ok(mut v) = log.lock() {
                    v.push(d);
                }
            }
        }
    }
}

/// Client settings.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// API base URL (no trailing slash), e.g. `https://api.chess.com`.
    pub base: String,
    /// Contact for the User-Agent (an e-mail address or URL). Never logged.
    pub contact: Option<String>,
    /// Timeout of one request.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// First backoff wait (doubled each retry).
    pub backoff: Duration,
    /// Longest wait honoured for `Retry-After`.
    pub max_wait: Duration,
    /// How to wait.
    pub sleeper: Sleeper,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            base: DEFAULT_BASE.into(),
            contact: None,
            timeout: Duration::from_secs(30),
            retries: 4,
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(120),
            sleeper: Sleeper::Real,
        }
    }
}

/// Validators of a fetched resource, for revalidation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    /// `ETag`.
    pub etag: Option<String>,
    /// `Last-Modified` (as sent; Chess.com's format is not RFC 7231).
    pub last_modified: Option<String>,
}

/// A monthly archive.
#[derive(Debug)]
pub enum MonthFetch {
    /// 304: nothing changed since the validators.
    NotModified,
    /// The month's games and the new validators.
    Games {
        /// Games in the archive.
        games: Vec<ApiGame>,
        /// Validators of this answer.
        validators: Validators,
    },
}

/// The Chess.com API client.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    cfg: ClientConfig,
}

#[derive(Deserialize)]
struct Archives {
    archives: Vec<String>,
}

#[derive(Deserialize)]
struct MonthBody {
    games: Vec<ApiGame>,
}

#[derive(Deserialize)]
struct ApiErrorBody {
    message: Option<String>,
}

enum Attempt {
    Done(reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>),
    Retry {
        reason: String,
        wait: Option<Duration>,
    },
}

impl Client {
    /// A client for `user` (the User-Agent names the user and the contact).
    pub fn new(cfg: ClientConfig, user: &str) -> Result<Client, ChesscomError> {
        let mut agent = format!("mirror/{} (username: {user}", env!("CARGO_PKG_VERSION"));
        if let Some(c) = &cfg.contact {
            agent.push_str("; contact: ");
            agent.push_str(c);
        }
        agent.push(')');
        let http = reqwest::Client::builder()
            .user_agent(agent)
            .timeout(cfg.timeout)
            .build()
            .map_err(|e| ChesscomError::Client(e.to_string()))?;
        Ok(Client { http, cfg })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.cfg.base.trim_end_matches('/'))
    }

    async fn attempt(&self, url: &str, headers: &header::HeaderMap) -> Attempt {
        let resp = match self.http.get(url).headers(headers.clone()).send().await {
            Ok(r) => r,
            Err(e) => {
                let reason = if e.is_timeout() {
                    "timed out".to_string()
                } else {
                    format!("request failed: {e}")
                };
                return Attempt::Retry { reason, wait: None };
            }
        };
        let status = resp.status();
        let resp_headers = resp.headers().clone();
        if status == StatusCode::TOO_MANY_REQUESTS {
            let wait = resp_headers
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            return Attempt::Retry {
                reason: "429 Too Many Requests".into(),
                wait,
            };
        }
        if status.is_server_error() {
            return Attempt::Retry {
                reason: format!("server error {status}"),
                wait: None,
            };
        }
        match resp.bytes().await {
            Ok(b) => Attempt::Done(status, resp_headers, b.to_vec()),
            Err(e) => Attempt::Retry {
                reason: if e.is_timeout() {
                    "timed out reading the body".into()
                } else {
                    format!("body cut short: {e}")
                },
                wait: None,
            },
        }
    }

    /// GET with retries; `parse` turns a 2xx body into a value, and a body that does not
    /// parse (truncated JSON) is retried too. A 404 is [`ChesscomError::UnknownUser`] when
    /// `user` is given.
    async fn get<T>(
        &self,
        url: &str,
        headers: header::HeaderMap,
        user: Option<&str>,
        parse: impl Fn(StatusCode, &header::HeaderMap, &[u8]) -> Result<T, String>,
    ) -> Result<T, ChesscomError> {
        let mut backoff = self.cfg.backoff;
        let attempts = self.cfg.retries + 1;
        let mut last = String::new();
        for attempt in 1..=attempts {
            let (reason, wait) = match self.attempt(url, &headers).await {
                Attempt::Done(status, h, body) => {
                    if status == StatusCode::FORBIDDEN {
                        return Err(ChesscomError::Forbidden);
                    }
                    if status == StatusCode::NOT_FOUND {
                        let message = serde_json::from_slice::<ApiErrorBody>(&body)
                            .ok()
                            .and_then(|b| b.message)
                            .unwrap_or_else(|| "not found".into());
                        return Err(match user {
                            Some(user) => ChesscomError::UnknownUser {
                                user: user.into(),
                                message,
                            },
                            None => ChesscomError::Unexpected {
                                url: url.into(),
                                reason: format!("404 Not Found: {message}"),
                            },
                        });
                    }
                    match parse(status, &h, &body) {
                        Ok(v) => return Ok(v),
                        // A 200 whose body does not parse was cut short: retry.
                        Err(reason) if status.is_success() => (reason, None),
                        Err(reason) => {
                            return Err(ChesscomError::Unexpected {
                                url: url.into(),
                                reason,
                            });
                        }
                    }
                }
                Attempt::Retry { reason, wait } => (reason, wait),
            };
            last = reason;
            if attempt < attempts {
                let d = wait.map_or(backoff, |w| w.min(self.cfg.max_wait));
                self.cfg.sleeper.sleep(d).await;
                backoff *= 2;
            }
        }
        Err(ChesscomError::GaveUp {
            url: url.into(),
            reason: last,
            attempts,
        })
    }

    /// The months with games, oldest first (from `/pub/player/{user}/games/archives`).
    pub async fn archives(&self, user: &str) -> Result<Vec<Month>, ChesscomError> {
        let user = validate_username(user)?;
        let url = self.url(&format!("/pub/player/{user}/games/archives"));
        // A 404 here means the user does not exist.
        self.get(
            &url,
            header::HeaderMap::new(),
            Some(&user),
            |status, _, body| {
                if status != StatusCode::OK {
                    return Err(format!("status {status}"));
                }
                let a: Archives =
                    serde_json::from_slice(body).map_err(|e| format!("invalid JSON: {e}"))?;
                let mut months = a
                    .archives
                    .iter()
                    .map(|u| month_of_archive(u).ok_or_else(|| format!("archive URL {u:?}")))
                    .collect::<Result<Vec<Month>, String>>()?;
                months.sort();
                months.dedup();
                Ok(months)
            },
        )
        .await
    }

    /// One monthly archive, revalidated against `validators` when given.
    pub async fn month(
        &self,
        user: &str,
        month: Month,
        validators: Option<&Validators>,
    ) -> Result<MonthFetch, ChesscomError> {
        let user = validate_username(user)?;
        let url = self.url(&format!(
            "/pub/player/{user}/games/{:04}/{:02}",
            month.year(),
            month.month()
        ));
        let mut headers = header::HeaderMap::new();
        if let Some(v) = validators {
            if let Some(e) = v
                .etag
                .as_deref()
                .and_then(|e| header::HeaderValue::from_str(e).ok())
            {
                headers.insert(header::IF_NONE_MATCH, e);
            }
            if let Some(l) = v
                .last_modified
                .as_deref()
                .and_then(|l| header::HeaderValue::from_str(l).ok())
            {
                headers.insert(header::IF_MODIFIED_SINCE, l);
            }
        }
        self.get(&url, headers, None, |status, h, body| {
            if status == StatusCode::NOT_MODIFIED {
                return Ok(MonthFetch::NotModified);
            }
            if status != StatusCode::OK {
                return Err(format!("status {status}"));
            }
            let m: MonthBody =
                serde_json::from_slice(body).map_err(|e| format!("invalid JSON: {e}"))?;
            let text = |name| {
                h.get(name)
                    .and_then(|v: &header::HeaderValue| v.to_str().ok())
                    .map(str::to_string)
            };
            Ok(MonthFetch::Games {
                games: m.games,
                validators: Validators {
                    etag: text(header::ETAG),
                    last_modified: text(header::LAST_MODIFIED),
                },
            })
        })
        .await
    }
}

/// The month of an archive URL (`.../games/2014/03`).
pub fn month_of_archive(url: &str) -> Option<Month> {
    let mut parts = url.trim_end_matches('/').rsplit('/');
    let m: u8 = parts.next()?.parse().ok()?;
    let y: u16 = parts.next()?.parse().ok()?;
    if parts.next()? != "games" {
        return None;
    }
    Month::new(y, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames() {
        assert_eq!(validate_username("Hikaru").ok().as_deref(), Some("hikaru"));
        assert!(validate_username("magnus_carlsen-2").is_ok());
        for bad in [
            "",
            "ab",
            "a b c",
            "../etc",
            "x%2F",
            "名前abc",
            &"a".repeat(26),
        ] {
            assert!(validate_username(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn archive_urls() {
        let m = month_of_archive("https://api.chess.com/pub/player/x/games/2014/03").expect("m");
        assert_eq!(m.to_string(), "2014-03");
        assert!(month_of_archive("https://api.chess.com/pub/player/x/games/archives").is_none());
        assert!(month_of_archive("https://api.chess.com/pub/player/x/stats/2014/03").is_none());
    }
}
