//! Request parameters: raw text from a query string or a JSON body ([`Raw`]), taken per
//! endpoint into its query struct ([`MoveQuery`], [`ExploreQuery`]: a parameter the
//! endpoint does not read is a 400 naming it) and checked into typed requests
//! ([`MoveRequest`], [`ExploreRequest`]) with errors that name the parameter.

use std::collections::HashMap;

use mirror_core::{
    TimeClass, notation,
    openings::{Opening, Openings},
    time::Month,
};
use mirror_engine::EngineOptions;
use mirror_store::{Filter, RatingRange, player_key};
use shakmaty::{Chess, Color, Position, uci::UciMove};

use crate::error::ApiError;

/// Raw parameters as strings (from a query string or a JSON object).
pub type Raw = HashMap<String, String>;

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError::BadRequest(msg.into())
}

/// A per-endpoint query: one `Option<String>` per parameter the endpoint reads, taken out of
/// the raw parameters by name, and the groups it shares with other endpoints (`+ filters:
/// FilterQuery`, the engine's knobs); anything left over is a 400 naming it (a typo, or a
/// parameter of another endpoint, would otherwise be dropped silently).
macro_rules! query {
    ($(#[$doc:meta])* $name:ident {
        $($(#[$fdoc:meta])* $field:ident = $key:literal,)*
    } $(+ $(#[$gdoc:meta])* $group:ident: $gty:ident)*) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: Option<String>,)*
            $($(#[$gdoc])* pub $group: $gty,)*
        }

        impl $name {
            /// The parameters this endpoint reads, as sent: its own, then its groups'.
            pub fn params() -> Vec<String> {
                #[allow(unused_mut)]
                let mut all: Vec<String> = [$($key),*].iter().map(ToString::to_string).collect();
                $(all.extend(<$gty>::params());)*
                all
            }

            /// Takes this endpoint's parameters out of `raw`, leaving the others.
            pub fn take(raw: &mut Raw) -> $name {
                $name {
                    $($field: raw.remove($key),)*
                    $($group: <$gty>::take(raw),)*
                }
            }

            /// Takes this endpoint's parameters out of `raw`; any other is an error.
            pub fn from_raw(mut raw: Raw) -> Result<$name, ApiError> {
                let query = Self::take(&mut raw);
                let mut unknown: Vec<String> = raw.into_keys().collect();
                unknown.sort_unstable();
                match unknown.first() {
                    None => Ok(query),
                    Some(k) => Err(bad(format!(
                        "unknown parameter {k:?} for this endpoint; it takes: {}",
                        Self::params().join(", ")
                    ))),
                }
            }
        }
    };
}

query! {
    /// The games an endpoint looks at, shared by every endpoint that reads the player's
    /// games (the colour is each endpoint's own).
    FilterQuery {
        /// Time classes.
        speeds = "speeds",
        /// `true`/`false`.
        rated = "rated",
        /// lichess's `rated`/`casual`.
        modes = "modes",
        /// First month.
        since = "since",
        /// Last month.
        until = "until",
        /// The opponent's rating range, `MIN-MAX`.
        opponent_rating = "opponentRating",
        /// Where the games were played: `chesscom`, `lichess`, `otb` (comma-separated).
        sources = "sources",
    }
}

/// The engine's own knobs ([`mirror_engine::KNOBS`], group `Engine`) by their HTTP names
/// (`minGames`), as sent, in the table's order.
#[derive(Debug, Default)]
pub struct KnobQuery(pub Vec<(&'static mirror_engine::Knob, String)>);

impl KnobQuery {
    fn knobs() -> impl Iterator<Item = &'static mirror_engine::Knob> {
        mirror_engine::KNOBS
            .iter()
            .filter(|k| k.group == mirror_engine::KnobGroup::Engine)
    }

    /// The knobs' HTTP names.
    pub fn params() -> Vec<String> {
        Self::knobs().map(mirror_engine::Knob::http_name).collect()
    }

    /// Takes the knobs given out of `raw`.
    pub fn take(raw: &mut Raw) -> KnobQuery {
        KnobQuery(
            Self::knobs()
                .filter_map(|k| raw.remove(&k.http_name()).map(|v| (k, v)))
                .collect(),
        )
    }
}

/// The filter parameters of a query struct (they share their names), with `color`.
macro_rules! filter_text {
    ($q:expr, $color:expr) => {
        FilterText {
            color: $color,
            speeds: $q.filters.speeds.as_deref(),
            rated: $q.filters.rated.as_deref(),
            modes: $q.filters.modes.as_deref(),
            since: $q.filters.since.as_deref(),
            until: $q.filters.until.as_deref(),
            opponent_rating: $q.filters.opponent_rating.as_deref(),
            sources: $q.filters.sources.as_deref(),
            theirs: false,
        }
    };
}

query! {
    /// `/api/v1/move`: the position, the filters and the engine's knobs (no `color`: the
    /// engine always plays the side to move; no `recentGames`: it returns no games).
    MoveQuery {
        /// The player.
        user = "user",
        /// The position as FEN.
        fen = "fen",
        /// UCI moves from the start position.
        moves = "moves",
        /// lichess's name for `moves`.
        play = "play",
        /// Seed of the engine's random choices.
        seed = "seed",
    } + /// Whose games.
        filters: FilterQuery
      + /// The engine's knobs.
        knobs: KnobQuery
}

query! {
    /// `/api/v1/explore`: the position, whose games, how many recent games (it chooses no
    /// move, so no engine knobs).
    ExploreQuery {
        /// The player.
        user = "user",
        /// The position as FEN.
        fen = "fen",
        /// UCI moves from the start position.
        moves = "moves",
        /// lichess's name for `moves`.
        play = "play",
        /// The player's colour, kept for the whole walk (default: White for `moves`/`play`,
        /// the side to move for a lone `fen`).
        color = "color",
        /// How many of the newest games to list.
        recent_games = "recentGames",
    } + /// Whose games.
        filters: FilterQuery
}

query! {
    /// `/api/v1/player`: lichess's player explorer, with lichess's names and rules (`player`
    /// and `color` required; `play` walks from `fen`); mirror's own filters are taken too.
    PlayerQuery {
        /// The player (lichess's name for `user`).
        player = "player",
        /// The player's colour: required, as lichess's explorer requires it.
        color = "color",
        /// lichess's variant: `standard` (or `chess`) only.
        variant = "variant",
        /// The position the walk starts from (default: the start position).
        fen = "fen",
        /// UCI moves from `fen`.
        play = "play",
        /// How many moves to list, most played first (default: all).
        moves = "moves",
        /// How many of the newest games to list.
        recent_games = "recentGames",
        /// lichess's top games: its player explorer lists none; only `0` is taken.
        top_games = "topGames",
    } + /// Whose games.
        filters: FilterQuery
}

query! {
    /// `/api/v1/game`: one of the player's stored games, to replay.
    GameQuery {
        /// The player.
        user = "user",
        /// The game, as the explorer's `recentGames[].id` names it.
        id = "id",
    }
}

/// What `/api/v1/game` asks, checked.
#[derive(Debug)]
pub struct GameRequest {
    /// The player.
    pub user: String,
    /// The game.
    pub id: mirror_core::GameId,
}

impl GameQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<GameRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let id = self
            .id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| bad("missing parameter \"id\""))?;
        if id.len() > 512 || id.chars().any(char::is_control) {
            return Err(bad(
                "id: not a game's id (at most 512 characters, no control characters)",
            ));
        }
        Ok(GameRequest {
            user,
            id: mirror_core::GameId(id.to_string()),
        })
    }
}

query! {
    /// `/api/v1/report`: whose games, and how much to list.
    ReportQuery {
        /// The player.
        user = "user",
        /// Only the player's games with this colour.
        color = "color",
        /// Positions reached in fewer games are left out (default 10).
        min_games = "minGames",
        /// A reply met in at most this percent of a position's games is rare (default 10,
        /// 1-100).
        rare = "rare",
        /// Items per list at most (default 10, at most 100).
        limit = "limit",
    } + /// Whose games.
        filters: FilterQuery
}

/// What `/api/v1/report` asks, checked.
#[derive(Debug)]
pub struct ReportRequest {
    /// The player.
    pub user: String,
    /// The report's options.
    pub options: mirror_store::report::ReportOptions,
}

impl ReportQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<ReportRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let filter = filter(&filter_text!(self, self.color.as_deref()), None)?;
        let defaults = mirror_store::report::ReportOptions::default();
        let min_games =
            number::<u32>("minGames", self.min_games.as_deref())?.unwrap_or(defaults.min_games);
        let floor = mirror_store::report::MIN_GAMES_FLOOR;
        if min_games < floor {
            return Err(bad(format!(
                "minGames: {min_games} is less than {floor} (a position reached once says \
                 nothing of a choice)"
            )));
        }
        let limit = number::<usize>("limit", self.limit.as_deref())?.unwrap_or(defaults.limit);
        if limit > 100 {
            return Err(bad(format!("limit: {limit} is more than 100")));
        }
        let rare = number::<u32>("rare", self.rare.as_deref())?.unwrap_or(defaults.rare);
        if !(1..=100).contains(&rare) {
            return Err(bad(format!("rare: {rare} is not a percent from 1 to 100")));
        }
        Ok(ReportRequest {
            user,
            options: mirror_store::report::ReportOptions {
                color: filter.color,
                filter,
                min_games,
                rare,
                limit,
            },
        })
    }
}

query! {
    /// `/api/v1/pace`: how long the player would take in a position.
    PaceQuery {
        /// The player.
        user = "user",
        /// The position as FEN.
        fen = "fen",
        /// UCI moves from the start position.
        moves = "moves",
        /// The side to move's clock left, in milliseconds.
        left = "left",
        /// The game's clock: seconds and increment, as PGN's `TimeControl` (`300+2`).
        clock = "clock",
    }
}

/// What `/api/v1/pace` asks, checked.
#[derive(Debug)]
pub struct PaceRequest {
    /// The player.
    pub user: String,
    /// The position.
    pub pos: Chess,
    /// The side to move's clock.
    pub clock: mirror_engine::pace::GoClock,
}

impl PaceQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<PaceRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let pos = position(self.fen.as_deref(), self.moves.as_deref(), false)?.pos;
        let left_ms = number::<u64>("left", self.left.as_deref())?;
        let clock = match self.clock.as_deref() {
            None => None,
            Some(c) => Some(
                c.parse::<mirror_engine::pace::GameClock>()
                    .map_err(|e| bad(format!("clock: {e}")))?,
            ),
        };
        Ok(PaceRequest {
            user,
            pos,
            clock: mirror_engine::pace::GoClock::of_game(clock, left_ms),
        })
    }
}

query! {
    /// `GET /api/v1/prep`.
    PrepQuery {
        /// The player preparing.
        user = "user",
        /// The opponent.
        opponent = "opponent",
        /// The player's colour (default white).
        color = "color",
        /// Plies at most (default 8, at most 20).
        depth = "depth",
        /// Lines at most (default 20, at most 100).
        lines = "lines",
        /// The opponent's tree thins out below this many games (default 5).
        thin = "thin",
        /// The opponent's time classes, instead of `speeds`.
        their_speeds = "theirSpeeds",
        /// The opponent's games from this month on, instead of `since`.
        their_since = "theirSince",
        /// The opponent's games up to this month, instead of `until`.
        their_until = "theirUntil",
        /// The opponent's sites, instead of `sources`.
        their_sources = "theirSources",
    } + /// Whose games (for both players; the opponent's with their own on top).
        filters: FilterQuery
}

/// What `/api/v1/prep` asks, checked.
#[derive(Debug)]
pub struct PrepRequest {
    /// The player preparing.
    pub user: String,
    /// The opponent.
    pub opponent: String,
    /// The walk's options.
    pub options: mirror_store::prep::PrepOptions,
}

impl PrepQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<PrepRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let opponent = match self.opponent.as_deref() {
            None => return Err(bad("opponent: missing (the player to prepare against)")),
            Some(o) => crate::params::user(Some(o)).map_err(|e| bad(format!("opponent: {e}")))?,
        };
        let filter = filter(&filter_text!(self, self.color.as_deref()), None)?;
        let defaults = mirror_store::prep::PrepOptions::default();
        let depth = number::<usize>("depth", self.depth.as_deref())?.unwrap_or(defaults.depth);
        if !(1..=20).contains(&depth) {
            return Err(bad(format!("depth: {depth} is not from 1 to 20")));
        }
        let limit = number::<usize>("lines", self.lines.as_deref())?.unwrap_or(defaults.limit);
        if !(1..=100).contains(&limit) {
            return Err(bad(format!("lines: {limit} is not from 1 to 100")));
        }
        let sides = mirror_store::Filter {
            color: None,
            ..filter.clone()
        };
        let theirs = FilterText {
            speeds: self.their_speeds.as_deref(),
            since: self.their_since.as_deref(),
            until: self.their_until.as_deref(),
            sources: self.their_sources.as_deref(),
            theirs: true,
            ..FilterText::default()
        };
        let theirs = self::filter(&theirs, None)?;
        Ok(PrepRequest {
            user,
            opponent,
            options: mirror_store::prep::PrepOptions {
                color: filter.color.unwrap_or(shakmaty::Color::White),
                me_filter: sides.clone(),
                them_filter: sides.overlaid(&theirs),
                depth,
                thin: number::<u32>("thin", self.thin.as_deref())?.unwrap_or(defaults.thin),
                limit,
                ..defaults
            },
        })
    }
}

query! {
    /// `GET /api/v1/repertoire`.
    RepertoireQuery {
        /// The player.
        user = "user",
        /// The repertoire's colour (default white).
        color = "color",
        /// Moves played in fewer games are left out (default 10).
        min_games = "minGames",
        /// Plies at most (default 16, at most 40).
        depth = "depth",
        /// Moves at most in the tree (default 5,000, at most 20,000).
        max_moves = "maxMoves",
        /// One chapter (one PGN game) per opening family, at most this many (1-64).
        chapters = "chapters",
    } + /// Which of the player's games count.
        filters: FilterQuery
}

/// What `/api/v1/repertoire` asks, checked.
#[derive(Debug)]
pub struct RepertoireRequest {
    /// The player.
    pub user: String,
    /// The walk's options.
    pub options: mirror_store::repertoire::RepertoireOptions,
    /// Chapters at most, one per opening family (`None`: one game).
    pub chapters: Option<usize>,
}

impl RepertoireQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<RepertoireRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let filter = filter(
            &filter_text!(self, self.color.as_deref()),
            Some(Color::White),
        )?;
        let defaults = mirror_store::repertoire::RepertoireOptions::default();
        let min_games = bounded(
            "minGames",
            self.min_games.as_deref(),
            defaults.min_games,
            1..=u32::MAX,
        )?;
        let depth = bounded("depth", self.depth.as_deref(), defaults.depth, 1..=40)?;
        let max_moves = bounded(
            "maxMoves",
            self.max_moves.as_deref(),
            defaults.max_moves,
            1..=20_000,
        )?;
        let chapters = number::<usize>("chapters", self.chapters.as_deref())?;
        if let Some(n) = chapters
            && !(1..=mirror_store::repertoire::MAX_CHAPTERS).contains(&n)
        {
            return Err(bad(format!("chapters: {n} is not from 1 to 64")));
        }
        Ok(RepertoireRequest {
            chapters,
            user,
            options: mirror_store::repertoire::RepertoireOptions {
                color: filter.color.unwrap_or(Color::White),
                filter,
                min_games,
                depth,
                max_moves,
            },
        })
    }
}

query! {
    /// `GET` and `POST /api/v1/drill`: whose cards, made how.
    DrillQuery {
        /// The player.
        user = "user",
        /// Only the cards of the player's games with this colour (both when not given).
        color = "color",
        /// Drill the lines against this opponent (a stored player).
        opponent = "opponent",
        /// A position is a card when reached in at least this many games (default 10).
        min_games = "minGames",
        /// Plies from the start at most (default 20, at most 40).
        depth = "depth",
        /// A move played in at least this share of a position's games counts as right
        /// beside the main move (0-1, default 0.25).
        share = "share",
        /// New cards at most in the queue (default 10, at most 100).
        new = "new",
    } + /// Which of the player's games count.
        filters: FilterQuery
}

/// What `/api/v1/drill` asks, checked.
#[derive(Debug)]
pub struct DrillRequest {
    /// The player.
    pub user: String,
    /// How the cards are made (the opponent's name as given: checked against the store by
    /// the handler).
    pub options: mirror_drill::CardOptions,
    /// New cards at most in the queue.
    pub new: usize,
}

impl DrillQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<DrillRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let filter = filter(&filter_text!(self, self.color.as_deref()), None)?;
        let defaults = mirror_drill::CardOptions::default();
        let opponent = match self.opponent.as_deref() {
            None => None,
            Some(o) => Some(named_user("opponent", Some(o))?),
        };
        let min_games = bounded(
            "minGames",
            self.min_games.as_deref(),
            defaults.min_games,
            1..=u32::MAX,
        )?;
        let depth = bounded("depth", self.depth.as_deref(), defaults.depth, 1..=40)?;
        let share = bounded("share", self.share.as_deref(), defaults.share, 0.0..=1.0)?;
        let new = bounded("new", self.new.as_deref(), 10, 0..=100)?;
        Ok(DrillRequest {
            user,
            options: mirror_drill::CardOptions {
                color: filter.color,
                filter: Filter {
                    color: None,
                    ..filter
                },
                min_games,
                depth,
                share,
                opponent,
                ..defaults
            },
            new,
        })
    }
}

/// The body of `POST /api/v1/drill`: an answer to one card.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrillAnswerBody {
    /// The card's position key, as listed (16 hex digits).
    pub key: String,
    /// The player's colour at the card.
    pub color: String,
    /// The move answered, UCI; `null` when the player gave up.
    pub uci: Option<String>,
    /// How long the answer took, in milliseconds.
    pub millis: u64,
}

/// A checked answer: the card's key and colour, the move (parsed by the handler in the
/// card's position), the time taken.
#[derive(Debug)]
pub struct DrillAnswer {
    /// The card's position.
    pub key: mirror_core::PositionKey,
    /// The player's colour there.
    pub color: Color,
    /// The move answered, UCI (`None`: gave up).
    pub uci: Option<String>,
    /// The time taken.
    pub took: std::time::Duration,
}

impl DrillAnswerBody {
    /// Checks the body's fields, naming the first bad one.
    pub fn parse(self) -> Result<DrillAnswer, ApiError> {
        let key = u64::from_str_radix(self.key.trim(), 16)
            .ok()
            .filter(|_| self.key.trim().len() == 16)
            .ok_or_else(|| bad(format!("key: {:?} is not 16 hex digits", self.key)))?;
        let color = mirror_core::codec::color_from_name(&self.color.to_ascii_lowercase())
            .ok_or_else(|| bad(format!("color: {:?} is not white or black", self.color)))?;
        if self.millis > 86_400_000 {
            return Err(bad(format!("millis: {} is more than a day", self.millis)));
        }
        Ok(DrillAnswer {
            key: mirror_core::PositionKey(key),
            color,
            uci: self.uci.map(|u| u.trim().to_string()),
            took: std::time::Duration::from_millis(self.millis),
        })
    }
}

/// The games both endpoints filter by, as sent.
#[derive(Default)]
struct FilterText<'a> {
    color: Option<&'a str>,
    speeds: Option<&'a str>,
    rated: Option<&'a str>,
    modes: Option<&'a str>,
    since: Option<&'a str>,
    until: Option<&'a str>,
    opponent_rating: Option<&'a str>,
    sources: Option<&'a str>,
    /// The opponent's own filter of `/api/v1/prep`, sent as `theirSpeeds` and so on.
    theirs: bool,
}

impl FilterText<'_> {
    /// The name a parameter was sent under: `speeds`, or `theirSpeeds` for the opponent's.
    fn name(&self, key: &str) -> String {
        let mut chars = key.chars();
        match chars.next() {
            Some(first) if self.theirs => {
                format!("their{}{}", first.to_ascii_uppercase(), chars.as_str())
            }
            _ => key.to_string(),
        }
    }
}

/// What `/api/v1/move` asks, checked.
#[derive(Debug)]
pub struct MoveRequest {
    /// The player.
    pub user: String,
    /// The position.
    pub pos: Chess,
    /// The move into it, when the request gave the moves (the model reads it).
    pub last: Option<shakmaty::Move>,
    /// The engine's options (filters included); the seed is `seed`.
    pub options: EngineOptions,
    /// The seed, if given (else the server picks one).
    pub seed: Option<u64>,
}

impl MoveQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<MoveRequest, ApiError> {
        let (user, at) = user_and_position(&self.user, &self.fen, &self.moves, &self.play)?;
        // Sampling by default: a game against the mirror varies as the player's do.
        let mut options = EngineOptions {
            filter: filter(&filter_text!(self, None), None)?,
            ..EngineOptions::sampling()
        };
        // The engine's own knobs, checked as everywhere else (`EngineOptions::set`); the
        // guard's switch before its settings.
        for (knob, value) in &self.knobs.0 {
            options
                .set(knob.name, value)
                .map_err(|e| bad(format!("{}: {e}", knob.http_name())))?;
        }
        check_search_cost(&options.search)?;
        let seed = number::<u64>("seed", self.seed.as_deref())?;
        Ok(MoveRequest {
            user,
            pos: at.pos,
            last: at.last,
            options,
            seed,
        })
    }
}

/// The most nodes `/api/v1/move` searches a position for (`searchNodes`), and the most
/// for the judge's own choice (`searchOwn`): with `searchTop` at most
/// [`MAX_HTTP_SEARCH_TOP`], one request costs a few milliseconds of Stockfish (or at most
/// this many positions judged by the model), where the knobs' own range (a million nodes)
/// let one request cost hundreds of times that. The command line and UCI keep the range.
pub const MAX_HTTP_SEARCH_NODES: u32 = 2_000;

/// The most moves `/api/v1/move` searches (`searchTop`).
pub const MAX_HTTP_SEARCH_TOP: usize = 16;

/// Refuses a search dearer than the HTTP bounds, naming the knob and its bound.
fn check_search_cost(search: &mirror_engine::search::SearchOptions) -> Result<(), ApiError> {
    for (name, value) in [("searchNodes", search.nodes), ("searchOwn", search.own)] {
        if value > MAX_HTTP_SEARCH_NODES {
            return Err(bad(format!(
                "{name}: {value} is more than {MAX_HTTP_SEARCH_NODES} over HTTP (the command \
                 line takes more)"
            )));
        }
    }
    if search.top > MAX_HTTP_SEARCH_TOP {
        return Err(bad(format!(
            "searchTop: {} is more than {MAX_HTTP_SEARCH_TOP} over HTTP",
            search.top
        )));
    }
    Ok(())
}

query! {
    /// `/api/v1/book`: the player's moves from a position as the store sums them, for a
    /// remote engine (the command line's `play` and `uci` while a server holds the store).
    BookQuery {
        /// The player.
        user = "user",
        /// The position's key, 16 hex digits.
        key = "key",
        /// Only the player's games with this colour.
        color = "color",
    } + /// Whose games.
        filters: FilterQuery
}

query! {
    /// `/api/v1/book/newest`: the month of the player's newest game.
    NewestQuery {
        /// The player.
        user = "user",
    }
}

/// What `/api/v1/book` asks, checked.
#[derive(Debug)]
pub struct BookRequest {
    /// The player.
    pub user: String,
    /// The position.
    pub key: mirror_core::PositionKey,
    /// Whose games.
    pub filter: Filter,
}

impl BookQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<BookRequest, ApiError> {
        let user = user(self.user.as_deref())?;
        let text = self
            .key
            .as_deref()
            .ok_or_else(|| bad("missing parameter \"key\""))?;
        let key = text
            .parse::<mirror_core::PositionKey>()
            .map_err(|e| bad(format!("key: {e}")))?;
        let filter = filter(&filter_text!(self, self.color.as_deref()), None)?;
        Ok(BookRequest { user, key, filter })
    }
}

impl NewestQuery {
    /// The player, checked.
    pub fn parse(self) -> Result<String, ApiError> {
        user(self.user.as_deref())
    }
}

/// Refuses every parameter: for an endpoint that takes none.
pub fn none(raw: &Raw) -> Result<(), ApiError> {
    let mut keys: Vec<&String> = raw.keys().collect();
    keys.sort_unstable();
    match keys.first() {
        None => Ok(()),
        Some(k) => Err(bad(format!(
            "unknown parameter {k:?}: this endpoint takes none"
        ))),
    }
}

query! {
    /// `POST /api/v1/imports/pgn`: whose games the uploaded PGN holds.
    UploadQuery {
        /// The profile, also the player's name in the games (White or Black).
        user = "user",
        /// Other spellings of the player's name in the games, one per line (a name may
        /// hold a comma: "Kasparov, G."; at most [`MAX_ALIASES`]).
        alias = "alias",
    }
}

/// Other spellings one upload takes at most.
pub const MAX_ALIASES: usize = 16;

impl UploadQuery {
    /// The profile and the other spellings, checked (blank lines are none).
    pub fn parse(self) -> Result<(String, Vec<String>), ApiError> {
        let user = user(self.user.as_deref())?;
        let mut aliases: Vec<String> = Vec::new();
        for a in self.alias.as_deref().unwrap_or("").lines().map(str::trim) {
            if a.is_empty() || aliases.iter().any(|b| b == a) {
                continue;
            }
            player_key(a).map_err(|_| bad(format!("invalid alias {a:?}")))?;
            aliases.push(a.to_string());
        }
        if aliases.len() > MAX_ALIASES {
            return Err(bad(format!(
                "alias: {} spellings, more than {MAX_ALIASES}",
                aliases.len()
            )));
        }
        Ok((user, aliases))
    }
}

/// What `/api/v1/explore` asks, checked.
#[derive(Debug)]
pub struct ExploreRequest {
    /// The player.
    pub user: String,
    /// The position.
    pub pos: Chess,
    /// The opening: the last named position on the path given.
    pub opening: Option<&'static Opening>,
    /// Whose games (the colour defaults to White for a line of moves, to the side to move
    /// for a lone FEN).
    pub filter: Filter,
    /// How many recent games to list (at most 20).
    pub recent_games: usize,
    /// How many moves to list, most played first (all when none).
    pub moves: Option<usize>,
}

impl ExploreQuery {
    /// Checks every parameter, naming the first bad one.
    pub fn parse(self) -> Result<ExploreRequest, ApiError> {
        let (user, Located { pos, opening, .. }) =
            user_and_position(&self.user, &self.fen, &self.moves, &self.play)?;
        // One tree per walk: a line of moves walks from the start, so the player is White
        // unless told (never the side to move, which flips at every step); a lone FEN is
        // the walk's own start, so its side to move.
        let walk_start = if self.fen.is_some() {
            pos.turn()
        } else {
            Color::White
        };
        let filter = filter(&filter_text!(self, self.color.as_deref()), Some(walk_start))?;
        let recent_games =
            number::<usize>("recentGames", self.recent_games.as_deref())?.unwrap_or(4);
        if recent_games > 20 {
            return Err(bad(format!("recentGames: {recent_games} is more than 20")));
        }
        Ok(ExploreRequest {
            user,
            pos,
            opening,
            filter,
            recent_games,
            moves: None,
        })
    }
}

impl PlayerQuery {
    /// Checks every parameter as lichess's player explorer does, naming the first bad one.
    pub fn parse(self) -> Result<ExploreRequest, ApiError> {
        let user = named_user("player", self.player.as_deref())?;
        if self.color.is_none() {
            return Err(bad("missing parameter \"color\" (white or black)"));
        }
        if let Some(v) = self.variant.as_deref()
            && !matches!(v, "standard" | "chess")
        {
            return Err(bad(format!(
                "variant: {v:?}: mirror keeps standard chess only"
            )));
        }
        match number::<usize>("topGames", self.top_games.as_deref())? {
            None | Some(0) => {}
            Some(_) => {
                return Err(bad(
                    "topGames: lichess's player explorer lists no top games; ask for recentGames",
                ));
            }
        }
        let Located { pos, opening, .. } = walk(self.fen.as_deref(), self.play.as_deref())?;
        let filter = filter(&filter_text!(self, self.color.as_deref()), None)?;
        let recent_games =
            number::<usize>("recentGames", self.recent_games.as_deref())?.unwrap_or(4);
        if recent_games > 20 {
            return Err(bad(format!("recentGames: {recent_games} is more than 20")));
        }
        let moves = number::<usize>("moves", self.moves.as_deref())?;
        Ok(ExploreRequest {
            user,
            pos,
            opening,
            filter,
            recent_games,
            moves,
        })
    }
}

/// The player and the position, both required and checked (`user`, `fen`, `moves`, `play`).
fn user_and_position(
    user_given: &Option<String>,
    fen: &Option<String>,
    moves: &Option<String>,
    play: &Option<String>,
) -> Result<(String, Located), ApiError> {
    let u = user(user_given.as_deref())?;
    let at = position(
        fen.as_deref(),
        moves.as_deref().or(play.as_deref()),
        moves.is_some() && play.is_some(),
    )?;
    Ok((u, at))
}

/// A position from a request, its opening and the move into it (known from `moves`).
struct Located {
    pos: Chess,
    opening: Option<&'static Opening>,
    last: Option<shakmaty::Move>,
}

/// The player's name (`user`): required, sane.
/// The number `name` (`default` when not given), refused by name outside `range` (NaN is
/// outside every range).
fn bounded<T>(
    name: &str,
    given: Option<&str>,
    default: T,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, ApiError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let v = number::<T>(name, given)?.unwrap_or(default);
    if range.contains(&v) {
        Ok(v)
    } else if v < *range.start() {
        Err(bad(format!("{name}: {v} is less than {}", range.start())))
    } else if v > *range.end() {
        Err(bad(format!("{name}: {v} is more than {}", range.end())))
    } else {
        Err(bad(format!("{name}: {v} is not a number")))
    }
}

fn user(given: Option<&str>) -> Result<String, ApiError> {
    named_user("user", given)
}

/// The player's name, given as the parameter `name`: required, sane.
fn named_user(name: &str, given: Option<&str>) -> Result<String, ApiError> {
    let u = given
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad(format!("missing parameter {name:?}")))?;
    player_key(u).map_err(|e| bad(e.to_string()))?;
    Ok(u.to_string())
}

/// The position: `fen`, or `moves`/`play` (UCI, comma or space separated) from the start;
/// its opening, the last named position on the path (the FEN's own name for a FEN); and
/// the last move of `moves`.
fn position(fen: Option<&str>, moves: Option<&str>, both_lists: bool) -> Result<Located, ApiError> {
    if both_lists {
        return Err(bad("give either \"moves\" or \"play\", not both"));
    }
    if fen.is_some() && moves.is_some() {
        return Err(bad("give either \"fen\" or \"moves\"/\"play\", not both"));
    }
    walk(fen, moves)
}

/// The position `moves` (UCI, comma or space separated) lead to from `fen` (default: the
/// start), as lichess's explorers read `fen` and `play` together; its opening, the last
/// named position on the path (the FEN's own name to begin with); the last move.
fn walk(fen: Option<&str>, moves: Option<&str>) -> Result<Located, ApiError> {
    let mut pos = match fen {
        Some(fen) => notation::parse_fen(fen).map_err(|e| bad(e.to_string()))?,
        None => Chess::default(),
    };
    let mut opening = fen.and_then(|_| Openings::builtin().at(&pos));
    let mut last = None;
    let text = moves.unwrap_or("").trim();
    // Comma- or space-separated; an empty item (`e2e4,,e7e5`) is a mistake, not nothing.
    let mut items = Vec::new();
    if !text.is_empty() {
        for (i, part) in text.split(',').enumerate() {
            let part = part.trim();
            if part.is_empty() {
                return Err(bad(format!("moves: item {} of {text:?} is empty", i + 1)));
            }
            items.extend(part.split_whitespace());
        }
    }
    for (i, m) in items.into_iter().enumerate() {
        let mv = m
            .parse::<UciMove>()
            .map_err(|_| bad(format!("moves: {m:?} (move {}) is not UCI", i + 1)))?
            .to_move(&pos)
            .map_err(|_| {
                bad(format!(
                    "moves: {m:?} (move {}) is not legal in {}",
                    i + 1,
                    notation::fen(&pos)
                ))
            })?;
        pos.play_unchecked(mv);
        last = Some(mv);
        opening = Openings::builtin().at(&pos).or(opening);
    }
    Ok(Located { pos, opening, last })
}

/// `given` as a month (a bare year: its first month, or its last for `until`); an error
/// names the parameter as `name`.
fn month(key: &str, name: &str, given: Option<&str>) -> Result<Option<Month>, ApiError> {
    given
        .map(|v| {
            // lichess sends YYYY-MM; a bare year is the year's first or last month.
            v.parse::<Month>()
                .or_else(|e| {
                    let y: u16 = v.parse().map_err(|_| e.clone())?;
                    let m = if key == "until" { 12 } else { 1 };
                    Month::new(y, m).ok_or(e)
                })
                .map_err(|_| bad(format!("{name}: {v:?} is not a month (YYYY-MM)")))
        })
        .transpose()
}

/// The game filter: `color`, `speeds`, `rated` (or lichess's `modes`), `since`, `until`,
/// `opponentRating`, `sources`.
/// `default_color` applies when `color` is absent.
fn filter(given: &FilterText<'_>, default_color: Option<Color>) -> Result<Filter, ApiError> {
    let color = match given.color.map(str::to_ascii_lowercase) {
        None => default_color,
        Some(c) => Some(
            mirror_core::codec::color_from_name(&c)
                .ok_or_else(|| bad(format!("color: {c:?} is not white or black")))?,
        ),
    };
    let time_classes = list(given.speeds, |t| {
        t.parse::<TimeClass>().map_err(|_| {
            bad(format!(
                "{}: {t:?} is not bullet, blitz, rapid, classical or daily",
                given.name("speeds")
            ))
        })
    })?;
    let rated = match (given.rated, given.modes) {
        (Some("true"), _) | (None, Some("rated")) => Some(true),
        (Some("false"), _) | (None, Some("casual")) => Some(false),
        (None, None) | (None, Some("casual,rated" | "rated,casual")) => None,
        (Some(v), _) => return Err(bad(format!("rated: {v:?} is not true or false"))),
        (None, Some(v)) => return Err(bad(format!("modes: {v:?} is not rated, casual or both"))),
    };
    let since = month("since", &given.name("since"), given.since)?;
    let until = month("until", &given.name("until"), given.until)?;
    if let (Some(s), Some(u)) = (since, until)
        && s > u
    {
        return Err(bad(format!(
            "{} {s} is after {} {u}",
            given.name("since"),
            given.name("until")
        )));
    }
    let opponent_rating = given
        .opponent_rating
        .map(|r| {
            r.parse::<RatingRange>()
                .map_err(|e| bad(format!("opponentRating: {e}")))
        })
        .transpose()?;
    let sources = list(given.sources, |t| {
        t.parse::<mirror_core::GameSource>()
            .map_err(|e| bad(format!("{}: {e}", given.name("sources"))))
    })?;
    Ok(Filter {
        opponent_rating,
        sources,
        color,
        time_classes,
        rated,
        since,
        until,
    })
}

/// A comma-separated list parameter (absent or empty: no items), each item by `item`;
/// sorted, an item given twice kept once (the same question in any order and spelling).
fn list<T: Ord>(
    given: Option<&str>,
    item: impl Fn(&str) -> Result<T, ApiError>,
) -> Result<Vec<T>, ApiError> {
    let mut items = given
        .unwrap_or_default()
        .split(',')
        .filter(|t| !t.is_empty())
        .map(item)
        .collect::<Result<Vec<T>, ApiError>>()?;
    items.sort_unstable();
    items.dedup();
    Ok(items)
}

/// The parameters of a query string, decoded; a parameter given twice is an error (which
/// of two values was meant cannot be known).
pub fn from_query(query: &str) -> Result<Raw, ApiError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| bad(format!("invalid query string: {e}")))?;
    let mut raw = Raw::with_capacity(pairs.len());
    for (k, v) in pairs {
        if raw.contains_key(&k) {
            return Err(bad(format!("parameter {k:?} is given twice")));
        }
        raw.insert(k, v);
    }
    Ok(raw)
}

/// An optional non-negative integer.
fn number<T: std::str::FromStr>(key: &str, given: Option<&str>) -> Result<Option<T>, ApiError> {
    given
        .map(|v| {
            v.trim()
                .parse::<T>()
                .map_err(|_| bad(format!("{key}: {v:?} is not a valid number")))
        })
        .transpose()
}

/// Converts a JSON object body into raw parameters (strings, numbers, booleans, and
/// arrays of strings for `moves`/`speeds`).
pub fn from_json(v: serde_json::Value) -> Result<Raw, ApiError> {
    let serde_json::Value::Object(map) = v else {
        return Err(bad("the body must be a JSON object"));
    };
    let mut raw = Raw::new();
    for (k, v) in map {
        let text = match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Array(items) => items
                .into_iter()
                .map(|i| match i {
                    serde_json::Value::String(s) => Ok(s),
                    other => Err(bad(format!(
                        "{k}: array items must be strings, not {other}"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?
                .join(","),
            serde_json::Value::Null => continue,
            serde_json::Value::Object(_) => {
                return Err(bad(format!("{k}: objects are not accepted here")));
            }
        };
        raw.insert(k, text);
    }
    Ok(raw)
}
