//! The client side of a running `mirror serve`: the file next to the embedded store that
//! says which server holds it ([`ServerFile`]), and the engine's book read through that
//! server ([`RemoteBook`], `/api/v1/book`) for `mirror play` and `mirror uci` while the
//! server holds the store.

use std::path::{Path, PathBuf};

use mirror_core::{PositionKey, codec, time::Month};
use mirror_engine::Book;
use mirror_store::{Filter, MoveRow, PlayerInfo, StoreError};

use crate::response::{BookRowJson, NewestJson};

/// Why the server's file or its client failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server file could not be read, written or removed.
    #[error("{what}")]
    Io {
        /// What was being done, naming the file.
        what: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The server file is not one mirror wrote.
    #[error("{} is not a mirror server file", path.display())]
    NotAServerFile {
        /// The file.
        path: PathBuf,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
    /// The HTTP client could not be set up.
    #[error("cannot set up the client of the running server")]
    Http(#[source] reqwest::Error),
    /// The server named by the file did not answer, or its answer broke off.
    #[error(
        "the server named by {} ({url}) does not answer: if it stopped uncleanly, remove \
         that file and run again",
        path.display()
    )]
    Unreachable {
        /// The server's address.
        url: String,
        /// The server file.
        path: PathBuf,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// The server refused the request or answered something else than expected.
    #[error("mirror serve at {url} refused the ingest ({status}): {text}")]
    Refused {
        /// The server's address.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The answer's body.
        text: String,
    },
}

/// How long an idle connection to the server is kept for reuse: half the time the server
/// keeps it ([`crate::listen::Limits`]'s header timeout).
const KEEP_ALIVE_REUSE: std::time::Duration = std::time::Duration::from_secs(5);

/// Why the server's write token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The token file could not be read.
    #[error("cannot read --token-file {}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// Others than its owner may read the token file.
    #[error("--token-file {} may be read by others (mode {mode:o}): chmod 600 it", path.display())]
    Readable {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The token is shorter than 16 characters.
    #[error("the token of {0} needs at least 16 characters")]
    TooShort(String),
}

/// The server's write token: from `file` (which must be its owner's alone), else from
/// MIRROR_SERVER_TOKEN; `None` when neither is given. At least 16 characters; never from
/// the command line, where `ps` shows it.
pub fn server_token(file: Option<&Path>) -> Result<Option<String>, TokenError> {
    let (token, from) = match file {
        Some(path) => {
            let unreadable = |source| TokenError::Unreadable {
                path: path.to_path_buf(),
                source,
            };
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(path)
                    .map_err(unreadable)?
                    .permissions()
                    .mode();
                if mode & 0o077 != 0 {
                    return Err(TokenError::Readable {
                        path: path.to_path_buf(),
                        mode: mode & 0o777,
                    });
                }
            }
            let text = std::fs::read_to_string(path).map_err(unreadable)?;
            (text, format!("--token-file {}", path.display()))
        }
        None => match std::env::var("MIRROR_SERVER_TOKEN") {
            Ok(t) if !t.is_empty() => (t, "MIRROR_SERVER_TOKEN".to_string()),
            _ => return Ok(None),
        },
    };
    let token = token.trim().to_string();
    if token.len() < 16 {
        return Err(TokenError::TooShort(from));
    }
    Ok(Some(token))
}

/// The file next to the embedded store that says which server holds it
/// (`STORE.redb.serve`): its address and the token its writes need. Written when the
/// server starts, readable by its user only, removed when it stops.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct ServerFile {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The secret of `POST /api/v1/ingest`.
    pub token: String,
    /// The server's process.
    pub pid: u32,
    /// Where this was read from.
    #[serde(skip)]
    pub path: PathBuf,
}

impl ServerFile {
    /// A client of the server this file names (this machine's own `mirror serve`): never
    /// through a proxy, which `HTTP_PROXY` would otherwise make it use and which would then
    /// see the write token.
    pub fn client(&self) -> Result<reqwest::Client, ClientError> {
        reqwest::Client::builder()
            .no_proxy()
            // The server closes a keep-alive connection idle for its header timeout (10 s):
            // one idle for half that is not reused, so a person who thinks for minutes in
            // `mirror play` never sends on a connection the server has closed.
            .pool_idle_timeout(KEEP_ALIVE_REUSE)
            .build()
            .map_err(ClientError::Http)
    }

    /// Runs `request` on the server (`POST /api/v1/ingest` with the token) and returns
    /// what the ingest printed there.
    pub fn ingest(
        &self,
        request: &crate::IngestRequest,
    ) -> Result<crate::CommandOutput, ClientError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| ClientError::Io {
                what: "cannot start the async runtime".into(),
                source,
            })?;
        let client = self.client()?;
        let unreachable = |source| ClientError::Unreachable {
            url: self.url.clone(),
            path: self.path.clone(),
            source,
        };
        let body = serde_json::to_string(request)
            .expect("an ingest request (strings, numbers, booleans) always serializes");
        rt.block_on(async {
            let resp = client
                .post(format!("{}/api/v1/ingest", self.url))
                .bearer_auth(&self.token)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(unreachable)?;
            let status = resp.status();
            let text = resp.text().await.map_err(unreachable)?;
            let refused = |text: String| ClientError::Refused {
                url: self.url.clone(),
                status: status.as_u16(),
                text,
            };
            if !status.is_success() {
                return Err(refused(text));
            }
            serde_json::from_str(&text).map_err(|_| refused(text))
        })
    }

    /// The server file of the embedded store at `store`.
    pub fn path_of(store: &Path) -> PathBuf {
        let mut p = store.as_os_str().to_owned();
        p.push(".serve");
        p.into()
    }

    /// Who holds the embedded store at `store`, in words: the server its file names (its
    /// address and process), else another mirror process.
    pub fn holder(store: &Path) -> String {
        match Self::read(store) {
            Ok(Some(server)) => format!(
                "held by mirror serve at {} (process {}): stop it, or ask it (the page, the \
                 HTTP API)",
                server.url, server.pid
            ),
            _ => "another mirror process holds it".to_string(),
        }
    }

    /// The server holding the embedded store at `store`, if one says so.
    pub fn read(store: &Path) -> Result<Option<ServerFile>, ClientError> {
        let path = Self::path_of(store);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(ClientError::Io {
                    what: format!("cannot read {}", path.display()),
                    source: e,
                });
            }
        };
        let mut file: ServerFile =
            serde_json::from_str(&text).map_err(|e| ClientError::NotAServerFile {
                path: path.clone(),
                source: e,
            })?;
        file.path = path;
        Ok(Some(file))
    }

    /// Writes the file of a server at `url` holding the embedded store at `store` (mode
    /// 0600) and returns a guard that removes it.
    pub fn write(store: &Path, url: String, token: String) -> Result<RemoveOnDrop, ClientError> {
        let path = Self::path_of(store);
        let file = ServerFile {
            url,
            token,
            pid: std::process::id(),
            path: path.clone(),
        };
        let io = |what: &str, e: std::io::Error| ClientError::Io {
            what: format!("cannot {what} {}", path.display()),
            source: e,
        };
        // A new file each time, so that its mode is this one whatever a stale file had.
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io("replace", e)),
            _ => {}
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut f = options.open(&path).map_err(|e| io("write", e))?;
        let text =
            serde_json::to_string(&file).expect("a server file is plain strings and numbers");
        std::io::Write::write_all(&mut f, text.as_bytes()).map_err(|e| io("write", e))?;
        Ok(RemoveOnDrop(path))
    }
}

/// Removes the server file when the server stops.
#[derive(Debug)]
pub struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A book answered by the server named in the store's server file.
pub struct RemoteBook {
    url: String,
    client: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for RemoteBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RemoteBook({})", self.url)
    }
}

/// A filter as the API's parameters (the inverse of the server's parsing).
pub fn filter_params(f: &Filter) -> Vec<(&'static str, String)> {
    let join = |items: Vec<&str>| items.join(",");
    let mut p = Vec::new();
    if let Some(c) = f.color {
        p.push(("color", codec::color_name(c).to_string()));
    }
    if !f.time_classes.is_empty() {
        p.push((
            "speeds",
            join(f.time_classes.iter().map(|t| t.as_str()).collect()),
        ));
    }
    if let Some(r) = f.rated {
        p.push(("rated", r.to_string()));
    }
    if let Some(m) = f.since {
        p.push(("since", m.to_string()));
    }
    if let Some(m) = f.until {
        p.push(("until", m.to_string()));
    }
    if let Some(r) = f.opponent_rating {
        p.push(("opponentRating", r.to_string()));
    }
    if !f.sources.is_empty() {
        p.push((
            "sources",
            join(f.sources.iter().map(|s| s.as_str()).collect()),
        ));
    }
    p
}

impl RemoteBook {
    /// The book of the server in `file`.
    pub fn new(file: &ServerFile) -> Result<RemoteBook, ClientError> {
        Ok(RemoteBook {
            url: file.url.clone(),
            client: file.client()?,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| ClientError::Io {
                    what: "cannot start the client's runtime".into(),
                    source: e,
                })?,
        })
    }

    /// The server's address.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn get<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        params: &[(&str, String)],
    ) -> Result<T, StoreError> {
        let fail = |source: Box<dyn std::error::Error + Send + Sync>| StoreError::Database {
            what: format!("mirror serve at {} ({path}) failed", self.url),
            source,
        };
        let url = reqwest::Url::parse_with_params(&format!("{}{path}", self.url), params)
            .map_err(|e| fail(Box::new(e)))?;
        self.rt.block_on(async {
            // A read is safe to send twice: a connection the server closed as it was
            // reused (the race the idle timeout above narrows) is tried once more on a new one.
            let resp = match self.client.get(url.clone()).send().await {
                Ok(resp) => resp,
                Err(e) if e.is_request() || e.is_connect() => {
                    tracing::debug!(error = %e, "the server's connection failed; sent again");
                    self.client
                        .get(url)
                        .send()
                        .await
                        .map_err(|e| fail(Box::new(e)))?
                }
                Err(e) => return Err(fail(Box::new(e))),
            };
            let status = resp.status();
            let text = resp.text().await.map_err(|e| fail(Box::new(e)))?;
            if !status.is_success() {
                return Err(fail(format!("it answered {status}: {text}").into()));
            }
            serde_json::from_str(&text).map_err(|e| fail(Box::new(e)))
        })
    }

    /// The players of the store, with their games.
    pub fn players(&self) -> Result<Vec<PlayerInfo>, StoreError> {
        #[derive(serde::Deserialize)]
        struct Player {
            name: String,
            games: u64,
        }
        let players: Vec<Player> = self.get("/api/v1/players", &[])?;
        Ok(players
            .into_iter()
            .map(|p| PlayerInfo {
                name: p.name,
                games: p.games,
            })
            .collect())
    }
}

impl Book for RemoteBook {
    fn rows(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        let mut params = vec![("user", player.to_string()), ("key", pos.to_string())];
        params.extend(filter_params(filter));
        let rows: Vec<BookRowJson> = self.get("/api/v1/book", &params)?;
        rows.iter()
            .map(|r| r.to_row().map_err(StoreError::Corrupt))
            .collect()
    }

    fn newest_month(&self, player: &str) -> Result<Option<Month>, StoreError> {
        let newest: NewestJson = self.get("/api/v1/book/newest", &[("user", player.into())])?;
        newest
            .month
            .map(|m| {
                m.parse::<Month>()
                    .map_err(|e| StoreError::Corrupt(format!("month {m:?} from the server: {e}")))
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::{GameSource, TimeClass};
    use mirror_store::RatingRange;
    use shakmaty::Color;

    /// The parameters read back by the server's own parser give the same filter.
    #[test]
    fn filters_round_trip_through_the_servers_parser() {
        let filters = [
            Filter::default(),
            Filter {
                color: Some(Color::Black),
                time_classes: vec![TimeClass::Blitz, TimeClass::Daily],
                rated: Some(false),
                since: "2020-01".parse().ok(),
                until: "2024-12".parse().ok(),
                opponent_rating: Some(RatingRange {
                    min: 1600,
                    max: 1900,
                }),
                // In the server's order (it sorts list items).
                sources: vec![GameSource::Otb, GameSource::Lichess],
            },
            Filter {
                color: Some(Color::White),
                rated: Some(true),
                ..Filter::default()
            },
        ];
        for f in filters {
            let mut raw: crate::params::Raw = filter_params(&f)
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            raw.insert("user".into(), "someone".into());
            raw.insert("key".into(), "00000000000000ff".into());
            let back = <crate::params::BookQuery as crate::params::Query>::from_raw(raw)
                .and_then(|q| q.parse())
                .expect("the server reads what the client writes");
            assert_eq!(back.filter, f);
            assert_eq!(back.key, PositionKey(255));
        }
    }
}
