//! Request parameters shared by GET (query string) and POST (JSON), validated into typed
//! values with errors that name the parameter.

use std::collections::HashMap;

use mirror_core::{TimeClass, time::Month};
use mirror_engine::notation;
use mirror_store::{Filter, player_key};
use shakmaty::{CastlingMode, Chess, Color, Position, uci::UciMove};

use crate::error::ApiError;

/// Raw parameters as strings (from a query string or a JSON object).
pub type Raw = HashMap<String, String>;

/// The parameters `/api/v1/move` reads (the engine always plays the side to move, so no
/// `color`; it returns no games, so no `recentGames`).
pub const MOVE_PARAMS: &[&str] = &[
    "user",
    "fen",
    "moves",
    "play",
    "speeds",
    "rated",
    "modes",
    "since",
    "until",
    "seed",
    "min_games",
    "policy",
];

/// The parameters `/api/v1/explore` reads (it chooses no move, so no `seed`, `min_games`
/// or `policy`).
pub const EXPLORE_PARAMS: &[&str] = &[
    "user",
    "fen",
    "moves",
    "play",
    "color",
    "speeds",
    "rated",
    "modes",
    "since",
    "until",
    "recentGames",
];

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError::BadRequest(msg.into())
}

/// Rejects parameters the endpoint does not read (a typo, or a parameter of another
/// endpoint, would otherwise be dropped silently), naming the first one.
pub fn check_known(raw: &Raw, known: &[&str]) -> Result<(), ApiError> {
    let mut unknown: Vec<&str> = raw
        .keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect();
    unknown.sort_unstable();
    match unknown.first() {
        None => Ok(()),
        Some(k) => Err(bad(format!(
            "unknown parameter {k:?} for this endpoint; it takes: {}",
            known.join(", ")
        ))),
    }
}

/// The player's name: required, sane.
pub fn user(raw: &Raw) -> Result<String, ApiError> {
    let u = raw
        .get("user")
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad("missing parameter \"user\""))?;
    player_key(u).map_err(|_| bad(format!("invalid user name {u:?}")))?;
    Ok(u.to_string())
}

/// The position: `fen`, or `moves`/`play` (UCI, comma or space separated) from the start.
pub fn position(raw: &Raw) -> Result<Chess, ApiError> {
    let moves = raw.get("moves").or_else(|| raw.get("play"));
    match (raw.get("fen"), moves) {
        (Some(_), Some(_)) => Err(bad("give either \"fen\" or \"moves\"/\"play\", not both")),
        (Some(fen), None) => notation::parse_fen(fen).map_err(bad),
        (None, moves) => {
            let mut pos = Chess::default();
            let text = moves.map_or("", String::as_str).trim();
            // Comma- or space-separated; an empty item (`e2e4,,e7e5`) is a mistake, not
            // nothing.
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
            }
            Ok(pos)
        }
    }
}

fn month(raw: &Raw, key: &str) -> Result<Option<Month>, ApiError> {
    raw.get(key)
        .map(|v| {
            // lichess sends YYYY-MM; a bare year is the year's first or last month.
            v.parse::<Month>()
                .or_else(|e| {
                    let y: u16 = v.parse().map_err(|_| e.clone())?;
                    let m = if key == "until" { 12 } else { 1 };
                    Month::new(y, m).ok_or(e)
                })
                .map_err(|_| bad(format!("{key}: {v:?} is not a month (YYYY-MM)")))
        })
        .transpose()
}

/// The game filter: `color`, `speeds`, `rated` (or lichess's `modes`), `since`, `until`.
/// `default_color` applies when `color` is absent.
pub fn filter(raw: &Raw, default_color: Option<Color>) -> Result<Filter, ApiError> {
    let color = match raw.get("color").map(|c| c.to_ascii_lowercase()) {
        None => default_color,
        Some(c) if c == "white" => Some(Color::White),
        Some(c) if c == "black" => Some(Color::Black),
        Some(c) => return Err(bad(format!("color: {c:?} is not white or black"))),
    };
    let time_classes = match raw.get("speeds") {
        None => Vec::new(),
        Some(s) => s
            .split(',')
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.parse::<TimeClass>().map_err(|_| {
                    bad(format!(
                        "speeds: {t:?} is not bullet, blitz, rapid, classical or daily"
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let rated = match (
        raw.get("rated").map(String::as_str),
        raw.get("modes").map(String::as_str),
    ) {
        (Some("true"), _) | (None, Some("rated")) => Some(true),
        (Some("false"), _) | (None, Some("casual")) => Some(false),
        (None, None) | (None, Some("casual,rated" | "rated,casual")) => None,
        (Some(v), _) => return Err(bad(format!("rated: {v:?} is not true or false"))),
        (None, Some(v)) => return Err(bad(format!("modes: {v:?} is not rated, casual or both"))),
    };
    let since = month(raw, "since")?;
    let until = month(raw, "until")?;
    if let (Some(s), Some(u)) = (since, until)
        && s > u
    {
        return Err(bad(format!("since {s} is after until {u}")));
    }
    Ok(Filter {
        color,
        time_classes,
        rated,
        since,
        until,
    })
}

/// An optional non-negative integer.
pub fn number<T: std::str::FromStr>(raw: &Raw, key: &str) -> Result<Option<T>, ApiError> {
    raw.get(key)
        .map(|v| {
            v.trim()
                .parse::<T>()
                .map_err(|_| bad(format!("{key}: {v:?} is not a valid number")))
        })
        .transpose()
}

/// The engine's `policy` (`tiers`, `habit[:W]`, `likely[:W]`), if given.
pub fn policy(raw: &Raw) -> Result<Option<mirror_engine::Policy>, ApiError> {
    raw.get("policy")
        .map(|v| {
            v.parse()
                .map_err(|e: mirror_engine::ParsePolicyError| bad(format!("policy: {e}")))
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

/// UCI of a legal move (standard castling).
pub fn uci(m: shakmaty::Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}
