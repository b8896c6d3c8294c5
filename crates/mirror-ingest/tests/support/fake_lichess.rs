//! A fake lichess game export on the fake server: `/api/games/user/{user}` streams the
//! real PGN games it holds, created from `since` to `until` (Unix ms, by the games'
//! UTCDate/UTCTime tags), oldest first; other users get lichess's 404.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use super::fake_chesscom::{Answer, FakeChesscom};

/// The games a fake export holds, as PGN texts.
pub type Games = Arc<Mutex<Vec<String>>>;

fn tag<'a>(pgn: &'a str, name: &str) -> Option<&'a str> {
    let start = pgn.find(&format!("[{name} \""))? + name.len() + 3;
    let end = start + pgn[start..].find('"')?;
    Some(&pgn[start..end])
}

/// Creation time of a game in Unix ms from its UTCDate and UTCTime tags.
pub fn created_ms(pgn: &str) -> i64 {
    let date = tag(pgn, "UTCDate").unwrap_or("1970.01.01");
    let time = tag(pgn, "UTCTime").unwrap_or("00:00:00");
    let d = mirror_core::time::Date::from_pgn(date).unwrap_or_default();
    let secs: i64 = time
        .split(':')
        .map(|p| p.parse::<i64>().unwrap_or(0))
        .fold(0, |acc, v| acc * 60 + v);
    (d.to_unix_days() * 86_400 + secs) * 1000
}

/// Splits a PGN file into game texts.
pub fn split_games(text: &str) -> Vec<String> {
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    starts
        .iter()
        .enumerate()
        .map(|(i, &s)| text[s..starts.get(i + 1).copied().unwrap_or(text.len())].to_string())
        .collect()
}

/// Serves `games` for `user` at `/api/games/user/{user}`.
pub fn serve(server: &FakeChesscom, user: &str, games: Games) {
    let user = user.to_ascii_lowercase();
    server.set_handler(Arc::new(move |path, query, _headers| {
        let asked = path.strip_prefix("/api/games/user/")?;
        if asked != user {
            return Some(Answer {
                status: 404,
                headers: vec![("Content-Type".into(), "application/json".into())],
                body: b"{\"error\":\"Not found\"}".to_vec(),
            });
        }
        let param = |k: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
                .and_then(|v| v.parse::<i64>().ok())
        };
        let (since, until) = (param("since"), param("until"));
        let mut chosen: Vec<(i64, String)> = games
            .lock()
            .expect("lock")
            .iter()
            .map(|g| (created_ms(g), g.clone()))
            .filter(|(t, _)| since.is_none_or(|s| *t >= s) && until.is_none_or(|u| *t <= u))
            .collect();
        chosen.sort_by_key(|(t, _)| *t);
        let body: String = chosen.into_iter().map(|(_, g)| g).collect();
        Some(Answer {
            status: 200,
            headers: vec![("Content-Type".into(), "application/x-chess-pgn".into())],
            body: body.into_bytes(),
        })
    }));
}
