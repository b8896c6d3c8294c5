//! The option groups several commands share (where the store is, which games count) and
//! the helpers that go with them. Nothing here knows the commands.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_core::{TimeClass, time::Month};
use mirror_store::{
    Filter,
    embedded::{EmbeddedStore, OpenMode},
};
use shakmaty::Color;

/// Which backend holds the graph.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum StoreKind {
    /// One redb file (the default).
    Embedded,
    /// Neo4j over Bolt (`MIRROR_NEO4J_URI`, `MIRROR_NEO4J_USER`, `MIRROR_NEO4J_PASSWORD`).
    Neo4j,
}

/// A store of either kind.
pub type AnyStore = Box<dyn mirror_store::GraphStore + Send + Sync>;

/// Where the store lives.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// The backend (default: embedded when --db is given, else neo4j when MIRROR_NEO4J_URI
    /// is set, else embedded).
    #[arg(long, global = true, value_enum, env = "MIRROR_STORE")]
    pub store: Option<StoreKind>,
    /// mirror's data directory (default: the platform's user data dir + /mirror).
    #[arg(long, global = true, env = "MIRROR_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The store file (default: DATA_DIR/mirror.redb).
    #[arg(long, global = true, env = "MIRROR_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl StoreArgs {
    /// mirror's data directory.
    pub fn data_dir(&self) -> anyhow::Result<PathBuf> {
        match &self.data_dir {
            Some(d) => Ok(d.clone()),
            None => Ok(dirs::data_dir()
                .context("no user data directory on this platform: pass --data-dir or --db")?
                .join("mirror")),
        }
    }

    /// The store file this invocation uses.
    pub fn path(&self) -> anyhow::Result<PathBuf> {
        match &self.db {
            Some(db) => Ok(db.clone()),
            None => Ok(self.data_dir()?.join("mirror.redb")),
        }
    }

    /// Opens the embedded store; held by a running `mirror serve`, the error names it.
    pub fn open_embedded(&self, mode: OpenMode) -> anyhow::Result<EmbeddedStore> {
        let path = self.path()?;
        match EmbeddedStore::open(&path, mode) {
            Ok(store) => Ok(store),
            Err(e @ mirror_store::StoreError::InUse { .. }) => {
                Err(anyhow::Error::new(e).context(mirror_server::client::ServerFile::holder(&path)))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Games per write transaction: `given`, else the backend's default (Neo4j holds a
    /// transaction's changes in its heap, so its batches are smaller).
    pub fn batch_size(&self, given: Option<u32>) -> usize {
        given.map_or(
            match self.kind() {
                StoreKind::Embedded => 50_000,
                StoreKind::Neo4j => 1_000,
            },
            |n| n as usize,
        )
    }

    /// The backend this invocation uses: the one asked for; else a store file given
    /// (`--db`) is the embedded store, whatever the environment says of Neo4j.
    pub fn kind(&self) -> StoreKind {
        self.store.unwrap_or_else(|| {
            if self.db.is_some() {
                StoreKind::Embedded
            } else if std::env::var("MIRROR_NEO4J_URI").is_ok_and(|u| !u.is_empty()) {
                StoreKind::Neo4j
            } else {
                StoreKind::Embedded
            }
        })
    }

    /// Which store and where, for messages: `the embedded store FILE` or `Neo4j at URI`
    /// (never the password).
    pub fn describe(&self) -> anyhow::Result<String> {
        Ok(match self.kind() {
            StoreKind::Embedded => format!("the embedded store {}", self.path()?.display()),
            StoreKind::Neo4j => format!(
                "Neo4j at {}",
                std::env::var("MIRROR_NEO4J_URI").unwrap_or_default()
            ),
        })
    }

    /// Opens the store of the chosen kind.
    pub fn open(&self, mode: OpenMode) -> anyhow::Result<AnyStore> {
        if let (Some(StoreKind::Neo4j), Some(db)) = (self.store, &self.db) {
            anyhow::bail!(
                "--db {} names an embedded store file, but the store asked for is Neo4j \
                 (--store neo4j or MIRROR_STORE): drop one of them",
                db.display()
            );
        }
        match self.kind() {
            StoreKind::Embedded => Ok(Box::new(self.open_embedded(mode)?)),
            StoreKind::Neo4j => Ok(Box::new(open_neo4j()?)),
        }
    }
}

/// Whether a store could not be opened because another process holds it.
pub fn is_in_use(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref(),
        Some(mirror_store::StoreError::InUse { .. })
    )
}

/// A progress bar of `len` steps (a spinner for `None`) drawn with `template`.
pub fn bar(len: Option<u64>, template: &str) -> indicatif::ProgressBar {
    let bar = len.map_or_else(
        indicatif::ProgressBar::new_spinner,
        indicatif::ProgressBar::new,
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// Connects to Neo4j from the environment.
pub fn open_neo4j() -> anyhow::Result<mirror_store::neo4j::Neo4jStore> {
    let cfg = mirror_store::neo4j::Neo4jConfig::from_env().context(
        "the Neo4j store needs MIRROR_NEO4J_URI (and MIRROR_NEO4J_USER, MIRROR_NEO4J_PASSWORD)",
    )?;
    Ok(mirror_store::neo4j::Neo4jStore::connect(cfg)?)
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    White,
    Black,
}

impl From<ColorArg> for Color {
    fn from(c: ColorArg) -> Color {
        match c {
            ColorArg::White => Color::White,
            ColorArg::Black => Color::Black,
        }
    }
}

/// Which of the player's games count: time class, rated, months.
#[derive(Args, Debug, Clone, Default)]
pub struct FilterArgs {
    /// Only these time classes (bullet, blitz, rapid, classical, daily; comma-separated).
    #[arg(long = "time-class", value_delimiter = ',')]
    pub time_class: Vec<TimeClass>,
    /// Only rated games.
    #[arg(long, conflicts_with = "casual")]
    pub rated: bool,
    /// Only casual games.
    #[arg(long)]
    pub casual: bool,
    /// Only games from this month on (YYYY-MM).
    #[arg(long)]
    pub since: Option<Month>,
    /// Only games up to this month (YYYY-MM, inclusive).
    #[arg(long)]
    pub until: Option<Month>,
    /// Only games against an opponent rated in this range (MIN-MAX, inclusive, e.g.
    /// 1600-1900); games without the opponent's rating are left out.
    #[arg(long, value_name = "MIN-MAX")]
    pub opponent_rating: Option<mirror_store::RatingRange>,
    /// Only games played on these sites (chesscom, lichess, otb: over the board or any
    /// other PGN; comma-separated).
    #[arg(long = "source", value_delimiter = ',')]
    pub sources: Vec<mirror_core::GameSource>,
}

impl FilterArgs {
    /// The store filter for games where the player had `color` (all games for `None`).
    pub fn filter(&self, color: Option<impl Into<Color>>) -> anyhow::Result<Filter> {
        if let (Some(s), Some(u)) = (self.since, self.until)
            && s > u
        {
            anyhow::bail!("--since {s} is after --until {u}");
        }
        Ok(Filter {
            color: color.map(Into::into),
            time_classes: self.time_class.clone(),
            rated: match (self.rated, self.casual) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
            since: self.since,
            until: self.until,
            opponent_rating: self.opponent_rating,
            sources: self.sources.clone(),
        })
    }
}

/// The server holding this invocation's embedded store, if its file says so (a Neo4j
/// store is never held by one process).
pub fn server_file(
    store_args: &StoreArgs,
) -> anyhow::Result<Option<mirror_server::client::ServerFile>> {
    if store_args.kind() != StoreKind::Embedded {
        return Ok(None);
    }
    Ok(mirror_server::client::ServerFile::read(
        &store_args.path()?,
    )?)
}
