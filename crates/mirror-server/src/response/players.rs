//! `mirror players` and `/api/v1/players`: every player of the store.

use super::*;

/// `mirror players`: every player with their games, edge rows and accounts, and the
/// positions of the store.
#[derive(Debug, Serialize)]
pub struct PlayerList {
    /// The players.
    pub players: Vec<PlayerRowJson>,
    /// Positions in the store.
    pub positions: u64,
}

/// One player of [`PlayerList`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerRowJson {
    /// The name as stored.
    pub name: String,
    /// Games.
    pub games: u64,
    /// Edge rows.
    pub edge_rows: u64,
    /// The profile's accounts.
    pub accounts: Vec<AccountJson>,
}

/// An account of a profile.
#[derive(Debug, Serialize)]
pub struct AccountJson {
    /// `chesscom`, `lichess` or `otb`.
    pub source: &'static str,
    /// The name there.
    pub name: String,
}

impl PlayerList {
    /// Reads the list from `store`.
    pub fn read<S: mirror_store::GraphStore + ?Sized>(
        store: &S,
    ) -> Result<PlayerList, mirror_store::StoreError> {
        let mut players = Vec::new();
        for p in store.players()? {
            let accounts = store.accounts(&p.name)?;
            players.push(PlayerRowJson {
                edge_rows: store.counts(&p.name)?.edge_rows,
                accounts: accounts
                    .into_iter()
                    .map(|a| AccountJson {
                        source: a.source.as_str(),
                        name: a.name,
                    })
                    .collect(),
                name: p.name,
                games: p.games,
            });
        }
        Ok(PlayerList {
            players,
            positions: store.position_count()?,
        })
    }
}

impl std::fmt::Display for PlayerList {
    /// A line per player: name, games, edge rows, accounts.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.players {
            let accounts: Vec<String> = p
                .accounts
                .iter()
                .map(|a| format!("{}:{}", a.source, a.name))
                .collect();
            write!(
                f,
                "{}\t{} games\t{} edge rows",
                p.name, p.games, p.edge_rows
            )?;
            if !accounts.is_empty() {
                write!(f, "\taccounts {}", accounts.join(", "))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
