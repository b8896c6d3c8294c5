//! A polite client for the Chess.com Published-Data API: the archives list and monthly
//! archives, revalidated with `If-None-Match` / `If-Modified-Since`.

use mirror_core::time::Month;
use reqwest::{StatusCode, header};
use serde::Deserialize;

pub use crate::chesscom_game::{ApiGame, decode_game};
use crate::http::{self, FetchError, Meaning, RetryPolicy};

/// The public API's base URL.
pub const DEFAULT_BASE: &str = "https://api.chess.com";

const SITE: &str = "Chess.com";
const FORBIDDEN_HINT: &str = "It requires contact information in the User-Agent: pass \
                              --contact EMAIL or set MIRROR_CONTACT";

/// Checks a username against Chess.com's allowed characters (lower-cases it).
pub fn validate_username(name: &str) -> Result<String, FetchError> {
    http::check_username(
        SITE,
        name,
        3,
        25,
        "3 to 25 characters, letters, digits, '_' or '-'",
    )
}

/// Client settings.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// API base URL (no trailing slash), e.g. `https://api.chess.com`.
    pub base: String,
    /// Contact for the User-Agent (an e-mail address or URL). Never logged.
    pub contact: Option<String>,
    /// Timeouts and retries.
    pub retry: RetryPolicy,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            base: DEFAULT_BASE.into(),
            contact: None,
            retry: RetryPolicy::default(),
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

async fn body_json<T: serde::de::DeserializeOwned>(resp: reqwest::Response) -> Result<T, String> {
    let bytes = resp
        .bytes()
        .await
        .map_err(|e| format!("body cut short: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("invalid JSON: {e}"))
}

impl Client {
    /// A client for `user` (the User-Agent names the user and the contact).
    pub fn new(cfg: ClientConfig, user: &str) -> Result<Client, FetchError> {
        let http = reqwest::Client::builder()
            .user_agent(http::user_agent(user, cfg.contact.as_deref()))
            .build()
            .map_err(FetchError::Client)?;
        Ok(Client { http, cfg })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.cfg.base.trim_end_matches('/'))
    }

    /// The months with games, oldest first (from `/pub/player/{user}/games/archives`).
    pub async fn archives(&self, user: &str) -> Result<Vec<Month>, FetchError> {
        let user = validate_username(user)?;
        let url = self.url(&format!("/pub/player/{user}/games/archives"));
        let meaning = Meaning {
            site: SITE,
            user: Some(&user),
            forbidden_hint: FORBIDDEN_HINT,
        };
        http::get(
            &self.http,
            &url,
            header::HeaderMap::new(),
            &self.cfg.retry,
            meaning,
            |resp| async move {
                if resp.status() != StatusCode::OK {
                    return Err(format!("status {}", resp.status()));
                }
                let a: Archives = body_json(resp).await?;
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
    ) -> Result<MonthFetch, FetchError> {
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
        let meaning = Meaning {
            site: SITE,
            user: None,
            forbidden_hint: FORBIDDEN_HINT,
        };
        http::get(
            &self.http,
            &url,
            headers,
            &self.cfg.retry,
            meaning,
            |resp| async move {
                if resp.status() == StatusCode::NOT_MODIFIED {
                    return Ok(MonthFetch::NotModified);
                }
                if resp.status() != StatusCode::OK {
                    return Err(format!("status {}", resp.status()));
                }
                let text = |name| {
                    resp.headers()
                        .get(name)
                        .and_then(|v: &header::HeaderValue| v.to_str().ok())
                        .map(str::to_string)
                };
                let validators = Validators {
                    etag: text(header::ETAG),
                    last_modified: text(header::LAST_MODIFIED),
                };
                let m: MonthBody = body_json(resp).await?;
                Ok(MonthFetch::Games {
                    games: m.games,
                    validators,
                })
            },
        )
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
