//! The engine's book read through a running `mirror serve` (`/api/v1/book`), for
//! `mirror play` and `mirror uci` while the server holds the embedded store.

use mirror_core::{PositionKey, codec, time::Month};
use mirror_engine::Book;
use mirror_server::response::{BookRowJson, NewestJson};
use mirror_store::{Filter, MoveRow, PlayerInfo, StoreError};

use crate::serve::ServerFile;

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
    pub fn new(file: &ServerFile) -> anyhow::Result<RemoteBook> {
        Ok(RemoteBook {
            url: file.url.clone(),
            client: file.client()?,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
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
        let fail = |e: &dyn std::fmt::Display| {
            StoreError::Backend(format!("mirror serve at {} ({path}): {e}", self.url))
        };
        let url = reqwest::Url::parse_with_params(&format!("{}{path}", self.url), params)
            .map_err(|e| fail(&e))?;
        self.rt.block_on(async {
            let resp = self.client.get(url).send().await.map_err(|e| fail(&e))?;
            let status = resp.status();
            let text = resp.text().await.map_err(|e| fail(&e))?;
            if !status.is_success() {
                return Err(fail(&format!("{status}: {text}")));
            }
            serde_json::from_str(&text).map_err(|e| fail(&e))
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
                sources: vec![GameSource::Lichess, GameSource::Otb],
            },
            Filter {
                color: Some(Color::White),
                rated: Some(true),
                ..Filter::default()
            },
        ];
        for f in filters {
            let mut raw: mirror_server::params::Raw = filter_params(&f)
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            raw.insert("user".into(), "someone".into());
            raw.insert("key".into(), "00000000000000ff".into());
            let back = mirror_server::params::BookQuery::from_raw(raw)
                .and_then(|q| q.parse())
                .expect("the server reads what the client writes");
            assert_eq!(back.filter, f);
            assert_eq!(back.key, PositionKey(255));
        }
    }
}
