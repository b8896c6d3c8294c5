//! Request parameters: raw text from a query string or a JSON body ([`Raw`]), taken per
//! endpoint into its serde query struct ([`Query`]: [`MoveQuery`], [`ExploreQuery`], with
//! the shared [`FilterQuery`] and [`KnobQuery`] flattened in; a parameter the endpoint does
//! not read is a 400 naming it) and checked into typed requests
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

use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::error::ApiError;

/// Raw parameters as strings (from a query string or a JSON object).
pub type Raw = HashMap<String, String>;

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError::BadRequest(msg.into())
}

/// A per-endpoint query: a serde struct of one `Option<String>` per parameter the endpoint
/// reads (by its camelCase name), with the groups it shares with other endpoints flattened
/// into it ([`FilterQuery`], [`KnobQuery`]). A parameter it does not read is a 400 naming it
/// (a typo, or a parameter of another endpoint, would otherwise be dropped silently).
pub trait Query: DeserializeOwned + Serialize + Default {
    /// The parameters this endpoint reads, as sent (sorted): the names the struct serialises
    /// under, its groups' included.
    fn params() -> Result<Vec<String>, ApiError> {
        match serde_json::to_value(Self::default()) {
            Ok(serde_json::Value::Object(map)) => Ok(map.into_iter().map(|(k, _)| k).collect()),
            Ok(other) => Err(ApiError::Internal(format!(
                "a query serialises as an object, not {other}"
            ))),
            Err(e) => Err(ApiError::Internal(format!("a query's names: {e}"))),
        }
    }

    /// This endpoint's parameters out of `raw`; any other is an error naming it.
    fn from_raw(raw: Raw) -> Result<Self, ApiError>
    where
        Self: 'static,
    {
        let params = names_of::<Self>()?;
        let mut unknown: Vec<&String> = raw.keys().filter(|k| !params.contains(k)).collect();
        unknown.sort_unstable();
        if let Some(k) = unknown.first() {
            return Err(bad(format!(
                "unknown parameter {k:?} for this endpoint; it takes: {}",
                params.join(", ")
            )));
        }
        let object = raw
            .into_iter()
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect();
        serde_json::from_value(serde_json::Value::Object(object))
            .map_err(|e| bad(format!("invalid parameters: {e}")))
    }
}

/// `Q::params()`, worked out once per query type for the process (every request reads
/// them to check its parameters).
fn names_of<Q: Query + 'static>() -> Result<std::sync::Arc<Vec<String>>, ApiError> {
    type Names = HashMap<std::any::TypeId, std::sync::Arc<Vec<String>>>;
    static NAMES: std::sync::OnceLock<std::sync::Mutex<Names>> = std::sync::OnceLock::new();
    let lock = || {
        NAMES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let id = std::any::TypeId::of::<Q>();
    if let Some(names) = lock().get(&id) {
        return Ok(names.clone());
    }
    let names = std::sync::Arc::new(Q::params()?);
    lock().insert(id, names.clone());
    Ok(names)
}

/// The games an endpoint looks at, shared by every endpoint that reads the player's
/// games (the colour is each endpoint's own).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterQuery {
    /// Time classes.
    pub speeds: Option<String>,
    /// `true`/`false`.
    pub rated: Option<String>,
    /// lichess's `rated`/`casual`.
    pub modes: Option<String>,
    /// First month.
    pub since: Option<String>,
    /// Last month.
    pub until: Option<String>,
    /// The opponent's rating range, `MIN-MAX`.
    pub opponent_rating: Option<String>,
    /// Where the games were played: `chesscom`, `lichess`, `otb` (comma-separated).
    pub sources: Option<String>,
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
}

/// Each knob by its HTTP name: its value as sent, or null (so that a query's names list
/// every knob).
impl Serialize for KnobQuery {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for knob in Self::knobs() {
            let given = self.0.iter().find(|(k, _)| k.name == knob.name);
            map.serialize_entry(&knob.http_name(), &given.map(|(_, v)| v))?;
        }
        map.end()
    }
}

/// The knobs among the parameters (flattened into a query, it sees those the query's own
/// fields left), in the table's order; other names are left to the query's check.
impl<'de> Deserialize<'de> for KnobQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KnobQuery, D::Error> {
        struct Knobs;
        impl<'de> serde::de::Visitor<'de> for Knobs {
            type Value = KnobQuery;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the engine's knobs by name")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<KnobQuery, A::Error> {
                let mut given: HashMap<String, String> = HashMap::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    given.insert(k, v);
                }
                Ok(KnobQuery(
                    KnobQuery::knobs()
                        .filter_map(|k| given.remove(&k.http_name()).map(|v| (k, v)))
                        .collect(),
                ))
            }
        }
        d.deserialize_map(Knobs)
    }
}

impl FilterQuery {
    /// The filter parameters as sent, with the endpoint's `color`.
    fn text<'a>(&'a self, color: Option<&'a str>) -> FilterText<'a> {
        FilterText {
            color,
            speeds: self.speeds.as_deref(),
            rated: self.rated.as_deref(),
            modes: self.modes.as_deref(),
            since: self.since.as_deref(),
            until: self.until.as_deref(),
            opponent_rating: self.opponent_rating.as_deref(),
            sources: self.sources.as_deref(),
            theirs: false,
        }
    }
}

/// `/api/v1/move`: the position, the filters and the engine's knobs (no `color`: the
/// engine always plays the side to move; no `recentGames`: it returns no games).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveQuery {
    /// The player.
    pub user: Option<String>,
    /// The position as FEN.
    pub fen: Option<String>,
    /// UCI moves from the start position.
    pub moves: Option<String>,
    /// lichess's name for `moves`.
    pub play: Option<String>,
    /// Seed of the engine's random choices.
    pub seed: Option<String>,
    /// Whose games.
    #[serde(flatten)]
    pub filters: FilterQuery,
    /// The engine's knobs.
    #[serde(flatten)]
    pub knobs: KnobQuery,
}

impl Query for MoveQuery {}

/// `/api/v1/explore`: the position, whose games, how many recent games (it chooses no
/// move, so no engine knobs).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExploreQuery {
    /// The player.
    pub user: Option<String>,
    /// The position as FEN.
    pub fen: Option<String>,
    /// UCI moves from the start position.
    pub moves: Option<String>,
    /// lichess's name for `moves`.
    pub play: Option<String>,
    /// The player's colour, kept for the whole walk (default: White for `moves`/`play`,
    /// the side to move for a lone `fen`).
    pub color: Option<String>,
    /// How many of the newest games to list.
    pub recent_games: Option<String>,
    /// Whose games.
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for ExploreQuery {}

/// `/api/v1/player`: lichess's player explorer, with lichess's names and rules (`player`
/// and `color` required; `play` walks from `fen`); mirror's own filters are taken too.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerQuery {
    /// The player (lichess's name for `user`).
    pub player: Option<String>,
    /// The player's colour: required, as lichess's explorer requires it.
    pub color: Option<String>,
    /// lichess's variant: `standard` (or `chess`) only.
    pub variant: Option<String>,
    /// The position the walk starts from (default: the start position).
    pub fen: Option<String>,
    /// UCI moves from `fen`.
    pub play: Option<String>,
    /// How many moves to list, most played first (default: all).
    pub moves: Option<String>,
    /// How many of the newest games to list.
    pub recent_games: Option<String>,
    /// lichess's top games: its player explorer lists none; only `0` is taken.
    pub top_games: Option<String>,
    /// Whose games.
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for PlayerQuery {}

/// `/api/v1/game`: one of the player's stored games, to replay.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameQuery {
    /// The player.
    pub user: Option<String>,
    /// The game, as the explorer's `recentGames[].id` names it.
    pub id: Option<String>,
}

impl Query for GameQuery {}

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

/// `/api/v1/report`: whose games, and how much to list.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportQuery {
    /// The player.
    pub user: Option<String>,
    /// Only the player's games with this colour.
    pub color: Option<String>,
    /// Positions reached in fewer games are left out (default 10).
    pub min_games: Option<String>,
    /// A reply met in at most this percent of a position's games is rare (default 10,
    /// 1-100).
    pub rare: Option<String>,
    /// Items per list at most (default 10, at most 100).
    pub limit: Option<String>,
    /// Whose games.
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for ReportQuery {}

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
        let filter = filter(&self.filters.text(self.color.as_deref()), None)?;
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

/// `/api/v1/pace`: how long the player would take in a position.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaceQuery {
    /// The player.
    pub user: Option<String>,
    /// The position as FEN.
    pub fen: Option<String>,
    /// UCI moves from the start position.
    pub moves: Option<String>,
    /// The side to move's clock left, in milliseconds.
    pub left: Option<String>,
    /// The game's clock: seconds and increment, as PGN's `TimeControl` (`300+2`).
    pub clock: Option<String>,
}

impl Query for PaceQuery {}

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

/// `GET /api/v1/prep`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepQuery {
    /// The player preparing.
    pub user: Option<String>,
    /// The opponent.
    pub opponent: Option<String>,
    /// The player's colour (default white).
    pub color: Option<String>,
    /// Plies at most (default 8, at most 20).
    pub depth: Option<String>,
    /// Lines at most (default 20, at most 100).
    pub lines: Option<String>,
    /// The opponent's tree thins out below this many games (default 5).
    pub thin: Option<String>,
    /// The opponent's time classes, instead of `speeds`.
    pub their_speeds: Option<String>,
    /// The opponent's games from this month on, instead of `since`.
    pub their_since: Option<String>,
    /// The opponent's games up to this month, instead of `until`.
    pub their_until: Option<String>,
    /// The opponent's sites, instead of `sources`.
    pub their_sources: Option<String>,
    /// Whose games (for both players; the opponent's with their own on top).
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for PrepQuery {}

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
        let filter = filter(&self.filters.text(self.color.as_deref()), None)?;
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

/// `GET /api/v1/repertoire`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepertoireQuery {
    /// The player.
    pub user: Option<String>,
    /// The repertoire's colour (default white).
    pub color: Option<String>,
    /// Moves played in fewer games are left out (default 10).
    pub min_games: Option<String>,
    /// Plies at most (default 16, at most 40).
    pub depth: Option<String>,
    /// Moves at most in the tree (default 5,000, at most 20,000).
    pub max_moves: Option<String>,
    /// One chapter (one PGN game) per opening family, at most this many (1-64).
    pub chapters: Option<String>,
    /// Which of the player's games count.
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for RepertoireQuery {}

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
            &self.filters.text(self.color.as_deref()),
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

/// `GET` and `POST /api/v1/drill`: whose cards, made how.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DrillQuery {
    /// The player.
    pub user: Option<String>,
    /// Only the cards of the player's games with this colour (both when not given).
    pub color: Option<String>,
    /// Drill the lines against this opponent (a stored player).
    pub opponent: Option<String>,
    /// A position is a card when reached in at least this many games (default 10).
    pub min_games: Option<String>,
    /// Plies from the start at most (default 20, at most 40).
    pub depth: Option<String>,
    /// A move played in at least this share of a position's games counts as right
    /// beside the main move (0-1, default 0.25).
    pub share: Option<String>,
    /// New cards at most in the queue (default 10, at most 100).
    pub new: Option<String>,
    /// Which of the player's games count.
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for DrillQuery {}

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
        let filter = filter(&self.filters.text(self.color.as_deref()), None)?;
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
    /// The share of answers FSRS aims to have right when the card comes back (0-1,
    /// exclusive; 0.9 when not given), as `mirror drill --retention`.
    #[serde(default)]
    pub retention: Option<f32>,
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
    /// The desired retention the card is scheduled for.
    pub retention: f32,
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
        let retention = self.retention.unwrap_or(mirror_drill::DEFAULT_RETENTION);
        if !(retention > 0.0 && retention < 1.0) {
            return Err(bad(format!(
                "retention: {retention} is not between 0 and 1 (the share of answers right \
                 when a card comes back)"
            )));
        }
        Ok(DrillAnswer {
            key: mirror_core::PositionKey(key),
            color,
            uci: self.uci.map(|u| u.trim().to_string()),
            took: std::time::Duration::from_millis(self.millis),
            retention,
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
            filter: filter(&self.filters.text(None), None)?,
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

/// `/api/v1/book`: the player's moves from a position as the store sums them, for a
/// remote engine (the command line's `play` and `uci` while a server holds the store).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BookQuery {
    /// The player.
    pub user: Option<String>,
    /// The position's key, 16 hex digits.
    pub key: Option<String>,
    /// Only the player's games with this colour.
    pub color: Option<String>,
    /// Whose games.
    #[serde(flatten)]
    pub filters: FilterQuery,
}

impl Query for BookQuery {}

/// `/api/v1/book/newest`: the month of the player's newest game.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewestQuery {
    /// The player.
    pub user: Option<String>,
}

impl Query for NewestQuery {}

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
        let filter = filter(&self.filters.text(self.color.as_deref()), None)?;
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

/// `POST /api/v1/imports/pgn`: whose games the uploaded PGN holds.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadQuery {
    /// The profile, also the player's name in the games (White or Black).
    pub user: Option<String>,
    /// Other spellings of the player's name in the games, one per line (a name may
    /// hold a comma: "Kasparov, G."; at most [`MAX_ALIASES`]).
    pub alias: Option<String>,
}

impl Query for UploadQuery {}

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
        let filter = filter(&self.filters.text(self.color.as_deref()), Some(walk_start))?;
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
        let filter = filter(&self.filters.text(self.color.as_deref()), None)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(pairs: &[(&str, &str)]) -> Raw {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_query_names_its_own_its_groups_and_the_knobs() {
        let names = MoveQuery::params().expect("names");
        for name in [
            "user",
            "fen",
            "seed",
            "speeds",
            "opponentRating",
            "minGames",
        ] {
            assert!(names.contains(&name.to_string()), "{name} in {names:?}");
        }
        assert!(!names.contains(&"color".to_string()));
        let explore = ExploreQuery::params().expect("names");
        assert!(explore.contains(&"recentGames".to_string()));
        assert!(!explore.contains(&"minGames".to_string()));
    }

    #[test]
    fn flattened_groups_and_knobs_take_their_parameters() {
        let q = MoveQuery::from_raw(raw(&[
            ("user", "someone"),
            ("speeds", "blitz"),
            ("opponentRating", "1500-1800"),
            ("minGames", "3"),
            ("seed", "7"),
        ]))
        .expect("a query");
        assert_eq!(q.user.as_deref(), Some("someone"));
        assert_eq!(q.filters.speeds.as_deref(), Some("blitz"));
        assert_eq!(q.filters.opponent_rating.as_deref(), Some("1500-1800"));
        let knobs: Vec<(&str, &str)> = q
            .knobs
            .0
            .iter()
            .map(|(k, v)| (k.name, v.as_str()))
            .collect();
        assert_eq!(knobs.len(), 1);
        assert_eq!(knobs[0].1, "3");
        assert_eq!(q.seed.as_deref(), Some("7"));
    }

    #[test]
    fn a_parameter_no_field_reads_is_refused_by_name() {
        for (query, name) in [
            (
                ExploreQuery::from_raw(raw(&[("user", "a"), ("minGames", "3")])).err(),
                "minGames",
            ),
            (
                ExploreQuery::from_raw(raw(&[("user", "a"), ("colour", "white")])).err(),
                "colour",
            ),
            (
                ExploreQuery::from_raw(raw(&[("user", "a"), ("filters", "x")])).err(),
                "filters",
            ),
        ] {
            match query {
                Some(ApiError::BadRequest(m)) => {
                    assert!(m.starts_with(&format!("unknown parameter {name:?}")), "{m}")
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        assert!(MoveQuery::from_raw(raw(&[("user", "a"), ("color", "white")])).is_err());
        assert!(NewestQuery::from_raw(raw(&[("user", "a"), ("speeds", "blitz")])).is_err());
    }
}
