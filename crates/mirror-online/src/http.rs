//! The retrying GET both sources use.

use std::{fmt, sync::Arc, time::Duration};

use reqwest::{StatusCode, header};
use serde::Deserialize;

/// Errors of the online sources.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The username cannot be a username of that site.
    #[error("invalid {site} username {name:?}: {rule}")]
    InvalidUsername {
        /// Site name.
        site: &'static str,
        /// The name given.
        name: String,
        /// What is allowed.
        rule: &'static str,
    },
    /// The site says the user does not exist.
    #[error("{site} has no user {user:?}: {message}")]
    UnknownUser {
        /// Site name.
        site: &'static str,
        /// The username asked for.
        user: String,
        /// The site's message.
        message: String,
    },
    /// The site refused the request.
    #[error("{site} refused the request (403 Forbidden). {hint}")]
    Forbidden {
        /// Site name.
        site: &'static str,
        /// How to fix it.
        hint: &'static str,
    },
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
    #[error("cannot build the HTTP client")]
    Client(#[source] reqwest::Error),
    /// The async runtime that runs the requests could not be started.
    #[error("cannot start the async runtime for the requests")]
    Runtime(#[source] std::io::Error),
    /// The lichess token cannot go in a header.
    #[error("the lichess token has characters a header cannot carry")]
    BadToken(#[source] reqwest::header::InvalidHeaderValue),
}

/// How the client waits between retries: tokio's timer, or a function called instead of
/// waiting (a test records the waits; a caller that must not block gives its own).
#[derive(Clone, Default)]
pub struct Sleeper {
    instead: Option<Arc<dyn Fn(Duration) + Send + Sync>>,
}

impl fmt::Debug for Sleeper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.instead {
            None => "Sleeper::real",
            Some(_) => "Sleeper::instead",
        })
    }
}

impl Sleeper {
    /// Real waiting (tokio's timer).
    pub fn real() -> Sleeper {
        Sleeper::default()
    }

    /// No waiting: `f` is called with each wait asked for.
    pub fn instead(f: impl Fn(Duration) + Send + Sync + 'static) -> Sleeper {
        Sleeper {
            instead: Some(Arc::new(f)),
        }
    }

    /// Waits (or calls the function given instead).
    pub async fn sleep(&self, d: Duration) {
        match &self.instead {
            None => tokio::time::sleep(d).await,
            Some(f) => f(d),
        }
    }
}

/// Timeouts and retries.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    /// Timeout of one request (for a stream: until the answer starts).
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// First backoff wait (doubled each retry).
    pub backoff: Duration,
    /// Wait after a 429 without `Retry-After`.
    pub rate_limit_wait: Duration,
    /// Longest wait honoured for `Retry-After`.
    pub max_wait: Duration,
    /// How to wait.
    pub sleeper: Sleeper,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            timeout: Duration::from_secs(30),
            retries: 4,
            backoff: Duration::from_secs(1),
            rate_limit_wait: Duration::from_secs(60),
            max_wait: Duration::from_secs(300),
            sleeper: Sleeper::real(),
        }
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    message: Option<String>,
    error: Option<String>,
}

/// What a 403 or 404 means for a request.
#[derive(Clone, Copy, Debug)]
pub struct Meaning<'a> {
    /// Site name for messages.
    pub site: &'static str,
    /// A 404 means this user does not exist (otherwise it is unexpected).
    pub user: Option<&'a str>,
    /// What to tell the user on 403.
    pub forbidden_hint: &'static str,
}

enum Attempt {
    Done(reqwest::Response),
    Retry {
        reason: String,
        wait: Option<Duration>,
    },
}

async fn attempt(
    http: &reqwest::Client,
    url: &str,
    headers: &header::HeaderMap,
    policy: &RetryPolicy,
) -> Attempt {
    let req = http.get(url).headers(headers.clone());
    let resp = match tokio::time::timeout(policy.timeout, req.send()).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            return Attempt::Retry {
                reason: if e.is_timeout() {
                    "timed out".into()
                } else {
                    format!("request failed: {e}")
                },
                wait: None,
            };
        }
        Err(_) => {
            return Attempt::Retry {
                reason: "timed out".into(),
                wait: None,
            };
        }
    };
    let status = resp.status();
    if status == StatusCode::TOO_MANY_REQUESTS {
        let wait = resp
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs)
            .unwrap_or(policy.rate_limit_wait);
        return Attempt::Retry {
            reason: "429 Too Many Requests".into(),
            wait: Some(wait),
        };
    }
    if status.is_server_error() {
        return Attempt::Retry {
            reason: format!("server error {status}"),
            wait: None,
        };
    }
    Attempt::Done(resp)
}

async fn refusal(resp: reqwest::Response, url: &str, meaning: Meaning<'_>) -> FetchError {
    let status = resp.status();
    let body = resp.bytes().await.map(|b| b.to_vec()).unwrap_or_default();
    let message = serde_json::from_slice::<ErrorBody>(&body)
        .ok()
        .and_then(|b| b.message.or(b.error))
        .unwrap_or_else(|| status.to_string());
    match (status, meaning.user) {
        (StatusCode::FORBIDDEN, _) => FetchError::Forbidden {
            site: meaning.site,
            hint: meaning.forbidden_hint,
        },
        (StatusCode::NOT_FOUND, Some(user)) => FetchError::UnknownUser {
            site: meaning.site,
            user: user.into(),
            message,
        },
        _ => FetchError::Unexpected {
            url: url.into(),
            reason: format!("{status}: {message}"),
        },
    }
}

/// GET with retries, returning the response as soon as it starts (status 2xx or 304):
/// for streams. 403 and 404 are errors as `meaning` says.
pub async fn open(
    http: &reqwest::Client,
    url: &str,
    headers: header::HeaderMap,
    policy: &RetryPolicy,
    meaning: Meaning<'_>,
) -> Result<reqwest::Response, FetchError> {
    get(http, url, headers, policy, meaning, |resp| async move {
        Ok(resp)
    })
    .await
}

/// GET with retries; `read` turns a started 2xx/304 response into a value, and a read that
/// fails (a body cut short, JSON that does not parse) is retried too.
pub async fn get<T, F, Fut>(
    http: &reqwest::Client,
    url: &str,
    headers: header::HeaderMap,
    policy: &RetryPolicy,
    meaning: Meaning<'_>,
    read: F,
) -> Result<T, FetchError>
where
    F: Fn(reqwest::Response) -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let mut backoff = policy.backoff;
    let attempts = policy.retries + 1;
    let mut last = String::new();
    for n in 1..=attempts {
        let (reason, wait) = match attempt(http, url, &headers, policy).await {
            Attempt::Done(resp) => {
                let status = resp.status();
                if !(status.is_success() || status == StatusCode::NOT_MODIFIED) {
                    return Err(refusal(resp, url, meaning).await);
                }
                match tokio::time::timeout(policy.timeout, read(resp)).await {
                    Ok(Ok(v)) => return Ok(v),
                    Ok(Err(reason)) => (reason, None),
                    Err(_) => ("timed out reading the body".to_string(), None),
                }
            }
            Attempt::Retry { reason, wait } => (reason, wait),
        };
        last = reason;
        if n < attempts {
            let d = wait.map_or(backoff, |w| w.min(policy.max_wait));
            policy.sleeper.sleep(d).await;
            backoff *= 2;
        }
    }
    Err(FetchError::GaveUp {
        url: url.into(),
        reason: last,
        attempts,
    })
}

/// A User-Agent naming mirror, the user and (when given) a contact.
pub fn user_agent(user: &str, contact: Option<&str>) -> String {
    let mut agent = format!("mirror/{} (username: {user}", env!("CARGO_PKG_VERSION"));
    if let Some(c) = contact {
        agent.push_str("; contact: ");
        agent.push_str(c);
    }
    agent.push(')');
    agent
}

/// Checks a username: `min..=max` ASCII letters, digits, `_` or `-`.
pub fn check_username(
    site: &'static str,
    name: &str,
    min: usize,
    max: usize,
    rule: &'static str,
) -> Result<String, FetchError> {
    let ok = (min..=max).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(name.to_ascii_lowercase())
    } else {
        Err(FetchError::InvalidUsername {
            site,
            name: name.to_string(),
            rule,
        })
    }
}
