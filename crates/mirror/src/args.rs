//! The option groups several commands share (where the store is, which games count) and
//! the helpers that go with them. Nothing here knows the commands.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use mirror_core::{TimeClass, time::Month};
use mirror_store::{
    Filter,
    embedded::{EmbeddedStore, OpenMode},
    place::{AnyStore, Backend, Place},
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

/// Where the store lives (the rules of which store that means: [`Place`]).
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
    /// The place these flags name.
    pub fn place(&self) -> Place {
        Place {
            backend: self.store.map(|k| match k {
                StoreKind::Embedded => Backend::Embedded,
                StoreKind::Neo4j => Backend::Neo4j,
            }),
            data_dir: self.data_dir.clone(),
            db: self.db.clone(),
        }
    }

    /// mirror's data directory.
    pub fn data_dir(&self) -> anyhow::Result<PathBuf> {
        Ok(self.place().data_dir()?)
    }

    /// Opens the store; an embedded store held by a running `mirror serve` names it.
    pub fn open(&self, mode: OpenMode) -> anyhow::Result<AnyStore> {
        self.named(self.place().open(mode))
    }

    /// Opens the embedded store, named as [`StoreArgs::open`] does.
    pub fn open_embedded(&self, mode: OpenMode) -> anyhow::Result<EmbeddedStore> {
        self.named(self.place().open_embedded(mode))
    }

    /// A store's open, an error of a store held by another process naming the server
    /// that holds it.
    fn named<T>(&self, opened: Result<T, mirror_store::StoreError>) -> anyhow::Result<T> {
        match opened {
            Err(e @ mirror_store::StoreError::InUse { .. }) => {
                let holder = mirror_server::client::ServerFile::holder(&self.place().path()?);
                Err(anyhow::Error::new(e).context(holder))
            }
            other => Ok(other?),
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
    let place = store_args.place();
    if place.backend() != Backend::Embedded {
        return Ok(None);
    }
    Ok(mirror_server::client::ServerFile::read(&place.path()?)?)
}
