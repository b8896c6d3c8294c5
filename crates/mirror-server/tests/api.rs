//! Black-box tests: the server on 127.0.0.1, port 0, over a store of real games.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use mirror_core::batch::Batch;
use mirror_server::{AppState, serve};
use mirror_store::{
    GraphRead, GraphWrite,
    embedded::{EmbeddedStore, OpenMode},
};
use mirror_testkit::conformance::{PLAYER, sample_games};
use serde_json::Value;
use tokio::sync::oneshot;

struct Server {
    base: String,
    store: Arc<EmbeddedStore>,
    state: Arc<AppState<EmbeddedStore>>,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

async fn start(games: usize) -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Arc::new(
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open"),
    );
    let mut b = Batch::new();
    for (g, c) in sample_games(games) {
        b.add_game(g, c).expect("legal");
    }
    store.write_batch(PLAYER, &b).expect("write");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    let state = AppState::new(store.clone(), 16);
    let (tx, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(serve(listener, state.clone(), async move {
        let _ = rx.await;
    }));
    Server {
        base: format!("http://{addr}"),
        store,
        state,
        stop: Some(tx),
        done,
        _dir: dir,
    }
}

async fn get(s: &Server, path: &str) -> (u16, Value) {
    let r = reqwest::get(format!("{}{path}", s.base))
        .await
        .expect("request");
    let status = r.status().as_u16();
    let text = r.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The game being played weighs the book (`gameTimeClass`, `contextWeight`): the player's
/// games of that time class count extra in the candidates' probabilities, as the explorer
/// counts them; with the weight at 0 the time class changes nothing.
#[tokio::test]
async fn the_game_being_played_weighs_the_book() {
    let s = start(499).await;
    let probabilities = |v: &Value| -> Vec<(String, f64)> {
        v["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .map(|c| {
                (
                    c["uci"].as_str().expect("uci").to_string(),
                    c["probability"].as_f64().expect("probability"),
                )
            })
            .collect()
    };
    let games = |v: &Value| -> Vec<(String, f64)> {
        v["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| {
                let n = ["white", "draws", "black"]
                    .iter()
                    .map(|k| m[k].as_u64().expect("count"))
                    .sum::<u64>();
                (m["uci"].as_str().expect("uci").to_string(), n as f64)
            })
            .collect()
    };
    let ask = "/api/v1/move?user=Biskupstunga&moves=e2e4&seed=1&policy=habit:0&recentMonths=0";
    let (_, all) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&color=black",
    )
    .await;
    let (_, rapid) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&color=black&speeds=rapid",
    )
    .await;
    let (all, rapid) = (games(&all), games(&rapid));
    assert!(
        !rapid.is_empty() && rapid.iter().map(|r| r.1).sum::<f64>() < all.iter().map(|r| r.1).sum(),
        "{rapid:?} {all:?}"
    );
    let expected = |w: f64| -> Vec<(String, f64)> {
        let weight = |m: &str| {
            let of = |rows: &[(String, f64)]| rows.iter().find(|r| r.0 == m).map_or(0.0, |r| r.1);
            of(&all) + w * of(&rapid)
        };
        let total: f64 = all.iter().map(|(m, _)| weight(m)).sum();
        all.iter()
            .map(|(m, _)| (m.clone(), weight(m) / total))
            .collect()
    };
    for (extra, w) in [
        ("&gameTimeClass=rapid&contextWeight=4", 4.0),
        ("&gameTimeClass=rapid&contextWeight=0", 0.0),
        ("&contextWeight=4", 0.0),
    ] {
        let (status, v) = get(&s, &format!("{ask}{extra}")).await;
        assert_eq!(status, 200, "{extra}: {v}");
        let got = probabilities(&v);
        for (m, p) in expected(w) {
            let q = got.iter().find(|g| g.0 == m).map_or(0.0, |g| g.1);
            assert!((p - q).abs() < 1e-9, "{extra}: {m} {q} instead of {p}: {v}");
        }
    }
}

#[tokio::test]
async fn move_from_the_book_get_and_post_agree() {
    let s = start(499).await;
    let (status, v) = get(
        &s,
        "/api/v1/move?user=Biskupstunga&moves=e2e4&seed=3&policy=tiers",
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["source"]["kind"], "book", "{v}");
    assert!(v["source"]["tier"].as_u64().expect("tier") >= 1);
    assert_eq!(v["source"]["policy"], "tiers", "{v}");
    // Every engine knob is a parameter: the tiers and the minimum games change the answer
    // (only moves of 20+ games, one tier accepting any), the guard can be switched off.
    let (status, t) = get(
        &s,
        "/api/v1/move?user=Biskupstunga&moves=e2e4&seed=3&policy=tiers&tiers=wd%3E0&minGames=20&guard=false&guardTop=&speeds=blitz,rapid",
    )
    .await;
    assert_eq!(
        status, 400,
        "the guard is off, guardTop has nothing to tune: {t}"
    );
    let (status, t) = get(
        &s,
        "/api/v1/move?user=Biskupstunga&moves=e2e4&seed=3&policy=tiers&tiers=wd%3E0&minGames=20&guard=false&recentMonths=0&recentWeight=1&speeds=blitz,rapid",
    )
    .await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["source"]["rule"], "win+draw > 0", "{t}");
    assert_eq!(t["source"]["tier"], 1, "{t}");
    assert!(
        t["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .all(|c| c["games"].as_u64().expect("games") >= 20 || c["probability"] == 0.0),
        "{t}"
    );
    let uci = v["uci"].as_str().expect("uci").to_string();
    let cands = v["candidates"].as_array().expect("candidates");
    assert!(cands.iter().any(|c| c["uci"] == uci.as_str()));
    let sum: f64 = cands
        .iter()
        .map(|c| c["probability"].as_f64().expect("p"))
        .sum();
    assert!((sum - 1.0).abs() < 1e-9, "{sum}");
    let post = reqwest::Client::new()
        .post(format!("{}/api/v1/move", s.base))
        .json(&serde_json::json!({"user": "biskupstunga", "moves": ["e2e4"], "seed": 3, "policy": "tiers"}))
        .send()
        .await
        .expect("post");
    assert_eq!(post.status().as_u16(), 200);
    let p: Value = post.json().await.expect("json");
    assert_eq!(p["uci"], v["uci"], "same seed, same move");
    assert_eq!(p["san"], v["san"]);
    // policy=likely: the player's most played reply, whatever the seed.
    let mut seen = std::collections::HashSet::new();
    for seed in 0..8 {
        let (status, l) = get(
            &s,
            &format!("/api/v1/move?user=Biskupstunga&moves=e2e4&policy=likely&seed={seed}"),
        )
        .await;
        assert_eq!(status, 200, "{l}");
        assert_eq!(l["source"]["kind"], "book", "{l}");
        // likely has no tiers: no tier number is made up for it.
        assert_eq!(l["source"]["policy"], "likely:1", "{l}");
        assert!(l["source"].get("tier").is_none(), "{l}");
        assert!(
            l["explanation"]
                .as_str()
                .expect("text")
                .contains("likely:1"),
            "{l}"
        );
        // The same in a chess player's words, from the same figures.
        let n = |k: &str| l["source"][k].as_f64().expect("a count");
        let games = n("games");
        assert_eq!(
            l["words"],
            format!(
                "Biskupstunga's move here in {games} games, scoring {:.0}%",
                100.0 * (n("wins") + n("draws") / 2.0) / games
            ),
            "{l}"
        );
        seen.insert(l["uci"].as_str().expect("uci").to_string());
    }
    assert_eq!(seen.len(), 1, "{seen:?}");
    // A position the player never reached: the labelled fallback.
    let (status, v) = get(
        &s,
        "/api/v1/move?user=Biskupstunga&fen=4k3/8/8/8/8/8/4P3/4K3%20w%20-%20-%200%201",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(v["source"]["kind"], "fallback");
    assert!(
        v["source"]["policy"]
            .as_str()
            .expect("p")
            .contains("random legal")
    );
    assert_eq!(
        v["words"],
        "out of Biskupstunga's book: a random legal move (no style model yet)"
    );
}

#[tokio::test]
async fn explore_has_the_lichess_shape_and_the_stores_numbers() {
    let s = start(499).await;
    let (status, v) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&color=black&recentGames=3",
    )
    .await;
    assert_eq!(status, 200, "{v}");
    for k in [
        "white",
        "draws",
        "black",
        "moves",
        "recentGames",
        "opening",
        "queuePosition",
    ] {
        assert!(v.get(k).is_some(), "missing {k}: {v}");
    }
    // As Black: the player's own replies to 1. e4.
    let d5 = v["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .find(|m| m["san"] == "d5")
        .expect("d5");
    // From the CLI table: d5 131 games, 43.5% wins, 3.1% draws as Black -> black wins 57.
    assert_eq!(
        d5["black"].as_u64().expect("b")
            + d5["white"].as_u64().expect("w")
            + d5["draws"].as_u64().expect("d"),
        131
    );
    assert_eq!(d5["black"], 57);
    assert!(d5["averageOpponentRating"].as_u64().is_some() && d5["performance"].as_i64().is_some());
    // The opening, lichess-shaped, for the position and per move; each move's score with
    // its 95% interval (d5: 57 wins and 4 draws of 131 as Black).
    assert_eq!(v["opening"]["eco"], "B00", "{v}");
    assert_eq!(d5["opening"]["name"], "Scandinavian Defense", "{d5}");
    let score = d5["score"]["value"].as_f64().expect("score");
    assert!((score - 59.0 / 131.0).abs() < 1e-12, "{d5}");
    let (low, high) = (
        d5["score"]["low"].as_f64().expect("low"),
        d5["score"]["high"].as_f64().expect("high"),
    );
    assert!(low < score && score < high && high - low < 0.2, "{d5}");
    assert_eq!(d5["score"]["fewGames"], false);
    let (_, transposed) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=d2d4,e7e6,e2e4,d7d5",
    )
    .await;
    let (_, direct) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4,e7e6,d2d4,d7d5",
    )
    .await;
    assert_eq!(transposed["opening"], direct["opening"]);
    assert_eq!(direct["opening"]["name"], "French Defense");
    assert_eq!(transposed["moves"], direct["moves"]);
    // The opponent's rating: a subset of the games, the same range on both endpoints.
    let (_, all) = get(&s, "/api/v1/explore?user=Biskupstunga&play=e2e4").await;
    let (status, some) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&opponentRating=1100-1300",
    )
    .await;
    assert_eq!(status, 200, "{some}");
    let games = |v: &Value| {
        ["white", "draws", "black"]
            .iter()
            .map(|k| v[k].as_u64().expect("count"))
            .sum::<u64>()
    };
    assert!(games(&some) > 0 && games(&some) < games(&all), "{some}");
    // The source: these are all Chess.com games.
    let (status, chesscom) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&sources=chesscom",
    )
    .await;
    assert_eq!(status, 200, "{chesscom}");
    assert_eq!(chesscom["moves"], all["moves"]);
    let (_, elsewhere) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&sources=lichess,otb",
    )
    .await;
    assert_eq!(games(&elsewhere), 0, "{elsewhere}");
    let (status, m) = get(
        &s,
        "/api/v1/move?user=Biskupstunga&moves=e2e4&opponentRating=1100-1300&seed=1",
    )
    .await;
    assert_eq!(status, 200, "{m}");
    let recent = v["recentGames"].as_array().expect("recent");
    assert_eq!(recent.len(), 3);
    assert!(recent.iter().all(|g| {
        g["id"]
            .as_str()
            .expect("id")
            .starts_with("https://www.chess.com/game/")
    }));
    assert!(recent.iter().all(|g| g["black"]["name"] == "Biskupstunga"));
    // Filters: colour white shows the opponents' replies; a far-future month nothing.
    let (_, w) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&color=white",
    )
    .await;
    assert_ne!(w["moves"], v["moves"]);
    // One tree per walk: a line of moves without a colour stays in the player's White
    // games at every step (not the side to move, which flips); a lone FEN is its own
    // start, so its side to move.
    for play in ["e2e4", "e2e4,c7c5", "e2e4,c7c5,g1f3"] {
        let (_, given) = get(
            &s,
            &format!("/api/v1/explore?user=Biskupstunga&play={play}&color=white"),
        )
        .await;
        let (_, default) = get(
            &s,
            &format!("/api/v1/explore?user=Biskupstunga&play={play}"),
        )
        .await;
        assert!(games(&given) > 0, "{play}: {given}");
        assert_eq!(default["moves"], given["moves"], "{play}");
    }
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let (status, fen) = get(
        &s,
        &format!(
            "/api/v1/explore?user=Biskupstunga&fen={}",
            after_e4.replace(' ', "%20").replace('/', "%2F")
        ),
    )
    .await;
    assert_eq!(status, 200, "{fen}");
    assert_eq!(fen["moves"], v["moves"]);
    let (_, none) = get(&s, "/api/v1/explore?user=Biskupstunga&since=2099-01").await;
    assert_eq!(none["moves"].as_array().expect("moves").len(), 0);
    let (_, blitz) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&speeds=blitz,rapid&modes=rated",
    )
    .await;
    assert!(blitz["white"].as_u64().is_some());
}

#[tokio::test]
async fn moves_may_be_separated_by_commas_spaces_or_both() {
    let s = start(100).await;
    let base = "/api/v1/explore?user=Biskupstunga&play=";
    let (status, want) = get(&s, &format!("{base}e2e4,e7e5")).await;
    assert_eq!(status, 200, "{want}");
    for list in ["e2e4%20e7e5", "e2e4,%20e7e5", "%20e2e4%20,e7e5%20"] {
        let (status, v) = get(&s, &format!("{base}{list}")).await;
        assert_eq!((status, &v), (200, &want), "{list}");
    }
}

#[tokio::test]
async fn health_and_metrics() {
    let s = start(50).await;
    let (status, v) = get(&s, "/health").await;
    assert_eq!((status, v["status"].as_str()), (200, Some("ok")));
    get(&s, "/api/v1/move?user=Biskupstunga").await;
    get(&s, "/api/v1/move?user=nobody").await;
    let answer = reqwest::get(format!("{}/api/v1/explore?user=Biskupstunga", s.base))
        .await
        .expect("explore");
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.headers()["x-content-type-options"], "nosniff");
    let text = reqwest::get(format!("{}/metrics", s.base))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(
        text.contains("mirror_http_requests_total{route=\"/api/v1/move\",status=\"200\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("mirror_http_requests_total{route=\"/api/v1/move\",status=\"404\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("mirror_http_errors_total{route=\"/api/v1/move\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("mirror_http_request_duration_seconds_count{route=\"/api/v1/move\"} 2"),
        "{text}"
    );
}

#[tokio::test]
async fn bad_requests_get_4xx_json_naming_the_problem() {
    let s = start(50).await;
    let long = "x".repeat(200);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        (
            "GET",
            "/api/v1/move".into(),
            400,
            "missing parameter \\\"user\\\"",
        ),
        ("GET", "/api/v1/move?user=".into(), 400, "missing parameter"),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&speeds=blitz&speeds=rapid".into(),
            400,
            "parameter \\\"speeds\\\" is given twice",
        ),
        (
            "GET",
            format!("/api/v1/move?user={long}"),
            400,
            "invalid player name",
        ),
        (
            "GET",
            "/api/v1/move?user=nobody".into(),
            404,
            "unknown player",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&fen=banana".into(),
            400,
            "invalid FEN",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&fen=8/8/8/8/8/8/8/8%20w%20-%20-%200%201".into(),
            400,
            "not a legal chess position",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&moves=e2e5".into(),
            400,
            "not legal",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&moves=e4".into(),
            400,
            "is not UCI",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&moves=e2e4&fen=x".into(),
            400,
            "not both",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&seed=-1".into(),
            400,
            "seed",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&minGames=many".into(),
            400,
            "minGames",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&guardMargin=-5".into(),
            400,
            "guardMargin: invalid guard_margin",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&recentWeight=lots".into(),
            400,
            "recentWeight: invalid recent_weight",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&gameTimeClass=hyper".into(),
            400,
            "gameTimeClass: invalid game_time_class \\\"hyper\\\"",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&contextWeight=-1".into(),
            400,
            "contextWeight: invalid context_weight",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&tiers=w%3E2".into(),
            400,
            "invalid tiers",
        ),
        (
            "GET",
            "/api/v1/report?user=Biskupstunga&limit=500".into(),
            400,
            "limit: 500 is more than 100",
        ),
        (
            "GET",
            "/api/v1/report?user=Biskupstunga&minGames=1".into(),
            400,
            "minGames: 1 is less than 2",
        ),
        (
            "GET",
            "/api/v1/report?user=Biskupstunga&seed=1".into(),
            400,
            "unknown parameter \\\"seed\\\"",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&opponentRating=1900-1600".into(),
            400,
            "opponentRating: invalid rating range",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&sources=icc".into(),
            400,
            "sources: unknown game source \\\"icc\\\"",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&policy=greedy".into(),
            400,
            "invalid policy \\\"greedy\\\"",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&colour=white".into(),
            400,
            "unknown parameter \\\"colour\\\"",
        ),
        // Parameters of the other endpoint are refused, not dropped.
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&color=white".into(),
            400,
            "unknown parameter \\\"color\\\" for this endpoint",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&recentGames=3".into(),
            400,
            "unknown parameter \\\"recentGames\\\"",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&seed=3".into(),
            400,
            "unknown parameter \\\"seed\\\"",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&moves=e2e4,,e7e5".into(),
            400,
            "moves: item 2 of \\\"e2e4,,e7e5\\\" is empty",
        ),
        (
            "GET",
            "/api/v1/move?user=Biskupstunga&fen=7k/6Q1/6K1/8/8/8/8/8%20b%20-%20-%200%201".into(),
            422,
            "checkmate",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&color=green".into(),
            400,
            "color",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&speeds=hyperbullet".into(),
            400,
            "speeds",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&rated=maybe".into(),
            400,
            "rated",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&modes=ranked".into(),
            400,
            "modes",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&since=2020-13".into(),
            400,
            "since",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&since=2021-01&until=2020-01".into(),
            400,
            "after until",
        ),
        (
            "GET",
            "/api/v1/explore?user=Biskupstunga&recentGames=500".into(),
            400,
            "recentGames",
        ),
        (
            "GET",
            "/api/v1/explore?user=a%00b".into(),
            400,
            "invalid player name",
        ),
        ("GET", "/api/v1/nothing".into(), 404, "no such endpoint"),
        (
            "DELETE",
            "/api/v1/move".into(),
            405,
            "method DELETE not allowed",
        ),
        ("POST", "/api/v1/explore".into(), 405, "not allowed"),
        ("PUT", "/health".into(), 405, "not allowed"),
    ];
    let client = reqwest::Client::new();
    for (method, path, status, needle) in &cases {
        let url = format!("{}{path}", s.base);
        let req = match *method {
            "GET" => client.get(&url),
            "POST" => client.post(&url),
            "PUT" => client.put(&url),
            _ => client.delete(&url),
        };
        let r = req.send().await.expect("send");
        let got = r.status().as_u16();
        assert_eq!(
            r.headers()
                .get("x-content-type-options")
                .map(|v| v.as_bytes()),
            Some(&b"nosniff"[..]),
            "{method} {path}"
        );
        let ct = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap_or("").to_string())
            .unwrap_or_default();
        let body = r.text().await.expect("body");
        assert_eq!(got, *status, "{method} {path}: {body}");
        assert!(ct.starts_with("application/json"), "{method} {path}: {ct}");
        let v: Value = serde_json::from_str(&body).expect("json body");
        assert_eq!(v["status"], *status);
        assert!(
            body.contains(needle),
            "{method} {path}: {body} should say {needle}"
        );
    }
    // Bodies: not JSON, wrong content type, wrong shape, too large.
    let post = |body: String, ct: &'static str| {
        client
            .post(format!("{}/api/v1/move", s.base))
            .header("content-type", ct)
            .body(body)
            .send()
    };
    let bodies: Vec<(String, &str, u16, &str)> = vec![
        (
            "{\"user\": ".into(),
            "application/json",
            400,
            "invalid JSON",
        ),
        (
            "user=Biskupstunga".into(),
            "text/plain",
            415,
            "Content-Type: application/json",
        ),
        ("[1,2]".into(), "application/json", 400, "JSON object"),
        (
            "{\"user\":\"Biskupstunga\",\"moves\":[1]}".into(),
            "application/json",
            400,
            "array items",
        ),
        (
            format!("{{\"user\":\"{}\"}}", "y".repeat(20_000)),
            "application/json",
            413,
            "too large",
        ),
    ];
    for (body, ct, status, needle) in bodies {
        let r = post(body.clone(), ct).await.expect("post");
        let got = r.status().as_u16();
        let text = r.text().await.expect("text");
        assert_eq!(got, status, "{}: {text}", &body[..body.len().min(40)]);
        assert!(text.contains(needle), "{text} should say {needle}");
    }
    // The server is still fine.
    assert_eq!(get(&s, "/health").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_keep_working_while_an_ingest_writes() {
    let s = start(20).await;
    let games = |v: &Value| {
        ["white", "draws", "black"]
            .iter()
            .map(|k| v[k].as_u64().expect("n"))
            .sum::<u64>()
    };
    let (_, first) = get(&s, "/api/v1/explore?user=Biskupstunga").await;
    let store = s.store.clone();
    let writer = std::thread::spawn(move || {
        let games = sample_games(499);
        for chunk in games[20..].chunks(40) {
            let mut b = Batch::new();
            for (g, c) in chunk {
                b.add_game(g.clone(), *c).expect("legal");
            }
            store.write_batch(PLAYER, &b).expect("write");
        }
    });
    // The same question again and again: answers are kept while the store is unchanged,
    // and every write makes them be read afresh (never an older count than seen before).
    let (mut ok, mut seen) = (0, 0);
    while !writer.is_finished() || ok < 50 {
        let (status, v) = get(&s, "/api/v1/explore?user=Biskupstunga").await;
        assert_eq!(status, 200, "{v}");
        assert!(games(&v) >= seen, "{} games after {seen}", games(&v));
        seen = games(&v);
        ok += 1;
    }
    writer.join().expect("writer");
    let (_, kept) = get(&s, "/api/v1/explore?user=Biskupstunga").await;
    // The same question spelled otherwise is read afresh.
    let (_, fresh) = get(&s, "/api/v1/explore?recentGames=4&user=Biskupstunga").await;
    assert_eq!(kept, fresh, "the kept answer was replaced after the ingest");
    assert!(games(&kept) > games(&first), "{kept}");
    let (_, v) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&color=white&recentGames=0",
    )
    .await;
    let (_, b) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&color=black&recentGames=0",
    )
    .await;
    assert_eq!(
        games(&v) + games(&b),
        499,
        "every game is there after the ingest"
    );
}

#[tokio::test]
async fn graceful_shutdown_finishes_and_stops() {
    let mut s = start(20).await;
    assert_eq!(get(&s, "/health").await.0, 200);
    if let Some(stop) = s.stop.take() {
        let _ = stop.send(());
    }
    let done = tokio::time::timeout(Duration::from_secs(5), &mut s.done)
        .await
        .expect("stops in time");
    assert!(done.expect("joined").is_ok());
    assert!(
        reqwest::get(format!("{}/health", s.base)).await.is_err(),
        "no longer listening"
    );
}

#[test]
fn start_position_constant_is_the_default() {
    assert_eq!(
        mirror_core::notation::fen(&shakmaty::Chess::default()),
        START
    );
}

#[tokio::test]
async fn the_report_lists_where_to_study_with_the_moves_that_reach_it() {
    let s = start(499).await;
    let (status, v) = get(
        &s,
        "/api/v1/report?user=Biskupstunga&limit=3&color=white&minGames=5",
    )
    .await;
    assert_eq!(status, 200, "{v}");
    for list in ["costly", "deviations", "surprises", "drift", "unpunished"] {
        let items = v[list].as_array().expect(list);
        // Surprises and drift need a statistical test to pass: 499 games give none.
        let needed = ["costly", "deviations"].contains(&list);
        assert!(
            items.len() <= 3 && (!needed || !items.is_empty()),
            "{list}: {v}"
        );
        for item in items {
            assert_eq!(item["color"], "white", "{item}");
            // The moves reach the position: the explorer answers for them.
            let moves: Vec<&str> = item["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| m.as_str().expect("uci"))
                .collect();
            let (status, e) = get(
                &s,
                &format!(
                    "/api/v1/explore?user=Biskupstunga&play={}&color=white",
                    moves.join(",")
                ),
            )
            .await;
            assert_eq!(status, 200, "{e}");
            let games = ["white", "draws", "black"]
                .iter()
                .map(|k| e[k].as_u64().expect("n"))
                .sum::<u64>();
            assert_eq!(Some(games), item["games"].as_u64(), "{item}");
        }
    }
    assert!(v["averageBlack"].is_null(), "only White's games: {v}");
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_compressed_cached_and_locked_down() {
    let s = start(20).await;
    let client = reqwest::Client::builder()
        .no_gzip()
        .build()
        .expect("client");
    let fetch = |path: &str, encoding: &str| {
        client
            .get(format!("{}{path}", s.base))
            .header("accept-encoding", encoding)
            .send()
    };
    let page = fetch("/", "identity").await.expect("page");
    assert_eq!(page.status(), 200);
    let h = page.headers().clone();
    assert_eq!(h["content-type"], "text/html; charset=utf-8");
    assert_eq!(h["cache-control"], "no-cache");
    let csp = h["content-security-policy"].to_str().expect("ascii");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    let html = page.text().await.expect("html");
    // Every script and style sheet the page names is served from here, hashed, cached a year.
    let assets: Vec<&str> = html
        .split('"')
        .filter(|p| p.starts_with("/assets/"))
        .collect();
    assert_eq!(assets.len(), 2, "{html}");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "{html}"
    );
    for a in assets {
        let plain = fetch(a, "identity").await.expect("asset");
        assert_eq!(plain.status(), 200, "{a}");
        assert_eq!(
            plain.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        assert!(plain.headers().get("content-encoding").is_none());
        let plain = plain.bytes().await.expect("bytes");
        let br = fetch(a, "gzip, deflate, br").await.expect("br");
        assert_eq!(br.headers()["content-encoding"], "br");
        assert_eq!(br.headers()["vary"], "Accept-Encoding");
        let br = br.bytes().await.expect("bytes");
        assert!(
            br.len() < plain.len() / 2,
            "{a}: {} of {}",
            br.len(),
            plain.len()
        );
        let gz = fetch(a, "gzip").await.expect("gzip");
        assert_eq!(gz.headers()["content-encoding"], "gzip");
        let gz = gz.bytes().await.expect("bytes");
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut unzipped)
            .expect("gunzip");
        assert_eq!(unzipped, plain, "{a}: the gzip form is the file");
    }
    // Revalidation: the same page again is a 304.
    let etag = h["etag"].to_str().expect("etag");
    let again = client
        .get(format!("{}/", s.base))
        .header("if-none-match", etag)
        .send()
        .await
        .expect("again");
    assert_eq!(again.status(), 304);
    let (status, v) = get(&s, "/assets/app-000000000000.js").await;
    assert_eq!(
        (status, v["kind"].as_str()),
        (404, Some("not_found")),
        "{v}"
    );
    let (status, v) = get(&s, "/assets/index.html").await;
    assert_eq!(status, 404, "{v}");
}

#[tokio::test]
async fn players_are_listed_and_moves_say_when_they_were_last_played() {
    let s = start(20).await;
    let (status, v) = get(&s, "/api/v1/players").await;
    assert_eq!(status, 200);
    assert_eq!(v, serde_json::json!([{ "name": PLAYER, "games": 20 }]));
    let (_, v) = get(&s, "/api/v1/explore?user=Biskupstunga&recentGames=0").await;
    // The newest game of the player's with each first move, from the games themselves.
    let games = sample_games(20);
    for m in v["moves"].as_array().expect("moves") {
        let newest = games
            .iter()
            .filter(|(g, c)| {
                *c == shakmaty::Color::White
                    && g.moves.first().map(ToString::to_string).as_deref() == m["uci"].as_str()
            })
            .filter_map(|(g, _)| g.date)
            .max()
            .expect("a dated game");
        assert_eq!(m["lastPlayed"], newest.to_string(), "{m}");
    }
}

#[tokio::test]
async fn the_openapi_document_names_every_route_and_parameter() {
    use mirror_server::params::{
        BookQuery, DrillQuery, ExploreQuery, GameQuery, MoveQuery, NewestQuery, PaceQuery,
        PlayerQuery, PrepQuery, Query, RepertoireQuery, ReportQuery, UploadQuery,
    };
    let s = start(20).await;
    let (status, doc) = get(&s, "/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(
        doc,
        serde_json::from_str::<Value>(mirror_server::openapi_document()).expect("valid JSON")
    );
    let params = |path: &str, method: &str| -> Vec<String> {
        let mut names: Vec<String> = doc["paths"][path][method]["parameters"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| p["name"].as_str().expect("a name").to_string())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        params("/api/v1/move", "get"),
        sorted(MoveQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/explore", "get"),
        sorted(ExploreQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/player", "get"),
        sorted(PlayerQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/game", "get"),
        sorted(GameQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/report", "get"),
        sorted(ReportQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/prep", "get"),
        sorted(PrepQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/repertoire", "get"),
        sorted(RepertoireQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/pace", "get"),
        sorted(PaceQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/drill", "get"),
        sorted(DrillQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/drill", "post"),
        sorted(DrillQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/book", "get"),
        sorted(BookQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/book/newest", "get"),
        sorted(NewestQuery::params().expect("names"))
    );
    assert_eq!(
        params("/api/v1/imports/pgn", "post"),
        sorted(UploadQuery::params().expect("names"))
    );
    let mut body: Vec<String> = doc["paths"]["/api/v1/move"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .cloned()
        .collect();
    body.sort();
    assert_eq!(body, sorted(MoveQuery::params().expect("names")));
    // Every documented path is served (with its parameters' examples), and every GET
    // route the router serves under /api and beside it is documented.
    let paths = doc["paths"].as_object().expect("paths");
    for (path, ops) in paths {
        // A path with a template (`/api/v1/imports/{id}`) names no resource by itself.
        if ops.get("get").is_none() || path.contains('{') {
            continue;
        }
        let mut query = Vec::new();
        for p in ops["get"]["parameters"].as_array().into_iter().flatten() {
            if let Some(example) = p["example"].as_str()
                && ["user", "player", "color", "opponent", "moves", "key", "id"]
                    .contains(&p["name"].as_str().unwrap_or_default())
                && (p["name"] != "color" || path.ends_with("/player"))
            {
                query.push(format!(
                    "{}={example}",
                    p["name"].as_str().unwrap_or_default()
                ));
            }
        }
        let r = reqwest::get(format!("{}{path}?{}", s.base, query.join("&")))
            .await
            .expect("request");
        // This test server takes no writes: it has no token to give.
        let expected = if path == "/api/v1/session" { 403 } else { 200 };
        assert_eq!(
            r.status(),
            expected,
            "{path}: {}",
            r.text().await.unwrap_or_default()
        );
    }
    for route in [
        "/api/v1/book",
        "/api/v1/book/newest",
        "/api/v1/ingest",
        "/api/v1/imports",
        "/api/v1/imports/pgn",
        "/api/v1/imports/{id}",
        "/api/v1/move",
        "/api/v1/explore",
        "/api/v1/player",
        "/player",
        "/api/v1/game",
        "/api/v1/session",
        "/api/v1/report",
        "/api/v1/repertoire",
        "/api/v1/drill",
        "/api/v1/pace",
        "/api/v1/players",
        "/api/v1/openapi.json",
        "/health",
        "/metrics",
    ] {
        assert!(paths.contains_key(route), "{route} is not documented");
    }
}

#[tokio::test]
async fn report_answers_are_kept_until_the_store_changes() {
    let s = start(100).await;
    let path = "/api/v1/report?user=Biskupstunga&minGames=3";
    let (status, first) = get(&s, path).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(get(&s, path).await.1, first);
    let mut b = Batch::new();
    for (g, c) in &sample_games(300)[100..] {
        b.add_game(g.clone(), *c).expect("legal");
    }
    s.store.write_batch(PLAYER, &b).expect("write");
    let (_, after) = get(&s, path).await;
    // The same question spelled otherwise was never kept: read afresh.
    let (_, fresh) = get(&s, "/api/v1/report?minGames=3&user=Biskupstunga").await;
    assert_eq!(after, fresh, "the kept report was replaced after the write");
    assert_ne!(after, first, "300 games report otherwise than 100");
}

/// The same question written another way (parameters in another order, list items in
/// another order or twice) is one question: one kept answer, the same body.
#[tokio::test]
async fn the_same_question_written_two_ways_is_one_answer() {
    let s = start(100).await;
    let a = "/api/v1/explore?user=Biskupstunga&speeds=blitz,rapid&moves=e2e4";
    let b = "/api/v1/explore?moves=e2e4&speeds=rapid,blitz,blitz&user=biskupstunga";
    let (status, first) = get(&s, a).await;
    assert_eq!(status, 200, "{first}");
    let kept = s.state.kept.len();
    let (status, second) = get(&s, b).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(first, second);
    assert_eq!(s.state.kept.len(), kept, "answered from the kept answer");
    let (_, other) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&speeds=blitz&moves=e2e4",
    )
    .await;
    assert_ne!(other, first, "another question");
    assert_eq!(s.state.kept.len(), kept + 1);
}

/// `/move` in the book keeps the engine's outcomes and draws per request: every seed gets,
/// first computed and then kept, exactly what a fresh engine with that seed plays; a write
/// to the player's games is seen at the next request.
#[tokio::test]
async fn kept_move_outcomes_answer_as_a_fresh_engine_and_follow_writes() {
    let s = start(100).await;
    let fresh = |seed: u64, policy: &str| {
        let mut e = mirror_engine::Engine::new(
            s.store.clone(),
            PLAYER,
            mirror_engine::EngineOptions {
                seed,
                policy: policy.parse().expect("policy"),
                ..mirror_engine::EngineOptions::sampling()
            },
        );
        let pos = mirror_core::notation::parse_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        )
        .expect("fen");
        let last = mirror_core::notation::parse_move(&shakmaty::Chess::default(), "e2e4").ok();
        mirror_core::notation::uci(e.choose_after(&pos, last).expect("choice").mv)
    };
    for policy in ["habit:1", "tiers", "likely:1"] {
        let mut seen = std::collections::HashSet::new();
        for round in 0..2 {
            for seed in 0..24u64 {
                let (status, v) = get(
                    &s,
                    &format!(
                        "/api/v1/move?user=Biskupstunga&moves=e2e4&policy={policy}&seed={seed}"
                    ),
                )
                .await;
                assert_eq!(status, 200, "{v}");
                let uci = v["uci"].as_str().expect("uci").to_string();
                assert_eq!(
                    uci,
                    fresh(seed, policy),
                    "{policy} seed {seed} round {round}"
                );
                seen.insert(uci);
            }
        }
        if policy == "habit:1" {
            assert!(seen.len() > 1, "{policy} varies with the seed: {seen:?}");
        }
    }
    assert!(!s.state.kept_moves.is_empty(), "the outcomes were kept");
    // More games: the kept outcomes are of an older version, and not used.
    let ask = "/api/v1/move?user=Biskupstunga&moves=e2e4&policy=habit:1&seed=5";
    let (_, before) = get(&s, ask).await;
    let mut b = Batch::new();
    for (g, c) in &sample_games(400)[100..] {
        b.add_game(g.clone(), *c).expect("legal");
    }
    s.store.write_batch(PLAYER, &b).expect("write");
    let (_, after) = get(&s, ask).await;
    assert_eq!(after["uci"].as_str(), Some(fresh(5, "habit:1").as_str()));
    assert_ne!(
        before["source"]["games"], after["source"]["games"],
        "the new games count: {before} {after}"
    );
}

/// `GET /api/v1/prep`: the player against their own games with the other colour (the
/// store holds one player), lines likeliest first with the product of the shares, each
/// step's numbers those of the mover's rows; bad parameters are 400s naming them, an
/// unknown opponent a 404, a colour without games a 422; the answer is kept.
#[tokio::test]
async fn prep_answers_lines_and_names_what_is_wrong() {
    let s = start(200).await;
    let (status, v) = get(
        &s,
        &format!("/api/v1/prep?user={PLAYER}&opponent={PLAYER}&depth=4"),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["color"], "white");
    let lines = v["lines"].as_array().expect("lines");
    assert!(!lines.is_empty(), "{v}");
    let mut last = f64::INFINITY;
    for line in lines {
        let p = line["probability"].as_f64().expect("p");
        assert!(p <= last);
        last = p;
        let steps = line["steps"].as_array().expect("steps");
        let product: f64 = steps
            .iter()
            .map(|s| s["share"].as_f64().expect("share"))
            .product();
        assert!((product - p).abs() < 1e-9, "{line}");
        assert!(steps.len() <= 4);
        // The first move: the player's own rows at the start, as White.
        let rows = s
            .store
            .moves(
                PLAYER,
                mirror_core::PositionKey::from_position(&shakmaty::Chess::default()),
                &mirror_store::Filter {
                    color: Some(shakmaty::Color::White),
                    ..Default::default()
                },
            )
            .expect("rows");
        let first = &steps[0];
        let row = rows
            .iter()
            .find(|r| r.mv.to_string() == line["uci"][0].as_str().expect("uci"))
            .expect("the first move is the player's");
        assert_eq!(first["games"], row.stats.games());
        assert_eq!(first["wins"], row.stats.wins);
        assert_eq!(first["by"], "user");
    }
    let (again_status, again) = get(
        &s,
        &format!("/api/v1/prep?user={PLAYER}&opponent={PLAYER}&depth=4"),
    )
    .await;
    assert_eq!((again_status, &again), (200, &v), "kept");
    for (query, status, names) in [
        (format!("user={PLAYER}"), 400, "opponent"),
        (
            format!("user={PLAYER}&opponent={PLAYER}&depth=0"),
            400,
            "depth",
        ),
        (
            format!("user={PLAYER}&opponent={PLAYER}&lines=500"),
            400,
            "lines",
        ),
        (
            format!("user={PLAYER}&opponent={PLAYER}&limit=5"),
            400,
            "limit",
        ),
        (format!("user={PLAYER}&opponent=nobody"), 404, "nobody"),
        (
            format!("user={PLAYER}&opponent={PLAYER}&sources=otb"),
            422,
            "no games as white",
        ),
        // Each side's filter its own: the opponent's games only on the board, the player's
        // from every site; a bad opponent's filter named as sent.
        (
            format!("user={PLAYER}&opponent={PLAYER}&theirSources=otb"),
            422,
            "no games as black",
        ),
        (
            format!("user={PLAYER}&opponent={PLAYER}&sources=otb&theirSources=chesscom"),
            422,
            "no games as white",
        ),
        (
            format!("user={PLAYER}&opponent={PLAYER}&theirSpeeds=hyper"),
            400,
            "theirSpeeds: \"hyper\"",
        ),
        (
            format!("user={PLAYER}&opponent={PLAYER}&theirSince=2020-05&theirUntil=2019-01"),
            400,
            "theirSince 2020-05 is after theirUntil 2019-01",
        ),
    ] {
        let (got, body) = get(&s, &format!("/api/v1/prep?{query}")).await;
        assert_eq!(got, status, "{query}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| e.contains(names)),
            "{query}: {body}"
        );
    }
    // The opponent's blitz games only: their replies are their blitz rows, the player's
    // moves all of theirs.
    let (status, v) = get(
        &s,
        &format!("/api/v1/prep?user={PLAYER}&opponent={PLAYER}&depth=2&theirSpeeds=blitz"),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    use shakmaty::Position;
    let start_pos = shakmaty::Chess::default();
    let mut narrower = 0;
    for line in v["lines"].as_array().expect("lines") {
        let Some(reply) = line["steps"].get(1) else {
            continue;
        };
        let first: shakmaty::uci::UciMove =
            line["uci"][0].as_str().expect("uci").parse().expect("uci");
        let mut after = start_pos.clone();
        after.play_unchecked(first.to_move(&start_pos).expect("legal"));
        let blitz = mirror_store::Filter {
            color: Some(shakmaty::Color::Black),
            time_classes: vec![mirror_core::TimeClass::Blitz],
            ..Default::default()
        };
        let rows = s
            .store
            .moves(
                PLAYER,
                mirror_core::PositionKey::from_position(&after),
                &blitz,
            )
            .expect("rows");
        let games: u32 = rows.iter().map(|r| r.stats.games()).sum();
        assert_eq!(reply["positionGames"], games, "{line}");
        let every = s
            .store
            .moves(
                PLAYER,
                mirror_core::PositionKey::from_position(&after),
                &mirror_store::Filter {
                    color: Some(shakmaty::Color::Black),
                    ..Default::default()
                },
            )
            .expect("rows");
        if every.iter().map(|r| r.stats.games()).sum::<u32>() > games {
            narrower += 1;
        }
    }
    assert!(narrower > 0, "the opponent's filter leaves games out: {v}");
}

/// `/api/v1/pace`: in the book, the player's average time there in games of the clock's
/// time class (as the explorer sums it for the side to move's games; 3+2 is blitz); out of it, their share of the clock left at that stage and clock
/// (as the report shows it) of the clock given; bad clocks are 400s that name them.
#[tokio::test]
async fn pace_answers_the_books_time_else_the_players_share_of_the_clock() {
    let s = start(300).await;
    let (status, book) = get(
        &s,
        "/api/v1/pace?user=Biskupstunga&moves=e2e4&left=180000&clock=180%2B2",
    )
    .await;
    assert_eq!(status, 200, "{book}");
    assert_eq!(book["source"], "book", "{book}");
    let (_, explore) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&moves=e2e4&color=black&speeds=blitz",
    )
    .await;
    let (mut timed, mut secs) = (0.0, 0.0);
    for m in explore["moves"].as_array().expect("moves") {
        if let Some(n) = m["time"]["timed"].as_f64() {
            timed += n;
            secs += n * m["time"]["averageSeconds"].as_f64().expect("seconds");
        }
    }
    assert_eq!(book["timed"].as_f64(), Some(timed), "{book}");
    // The explorer rounds each move's average to 0.1 s.
    let want = secs / timed;
    let got = book["seconds"].as_f64().expect("seconds");
    assert!((got - want).abs() < 0.06, "{got} against {want}");

    let (status, model) = get(
        &s,
        "/api/v1/pace?user=Biskupstunga&moves=a2a3,h7h6&left=60000&clock=60%2B0",
    )
    .await;
    assert_eq!(status, 200, "{model}");
    assert_eq!(model["source"], "model", "{model}");
    let (_, report) = get(&s, "/api/v1/report?user=Biskupstunga").await;
    let cell = &report["clock"]["pace"][0];
    assert_eq!(cell["stage"], "moves 1-10");
    assert_eq!(cell["clock"], "half the clock or more left");
    let share = model["share"].as_f64().expect("share");
    assert!((share - cell["share"].as_f64().expect("cell")).abs() < 1e-4);
    assert_eq!(model["timed"], cell["moves"], "{model} {cell}");
    let secs = model["seconds"].as_f64().expect("seconds");
    assert!((secs - 60.0 * share).abs() < 0.002, "{secs} {share}");
    assert!(
        model["detail"]
            .as_str()
            .is_some_and(|d| d.contains("usual")),
        "{model}"
    );
    // No clock given and no time here: no wait.
    let (_, none) = get(&s, "/api/v1/pace?user=Biskupstunga&moves=a2a3,h7h6").await;
    assert_eq!(
        (none["source"].as_str(), none["seconds"].as_f64()),
        (Some("none"), Some(0.0))
    );
    for (q, named) in [
        ("clock=5:00", "clock"),
        ("left=soon", "left"),
        ("colour=white", "colour"),
    ] {
        let (status, err) = get(&s, &format!("/api/v1/pace?user=Biskupstunga&{q}")).await;
        assert_eq!(status, 400, "{q}: {err}");
        assert!(
            err["error"].as_str().is_some_and(|e| e.contains(named)),
            "{err}"
        );
    }
}

/// A name that would be a path, or hides what it says, is a 400 naming the reason on every
/// route that takes a player (the model a `/move` loads is found by the checked key only).
#[tokio::test]
async fn names_that_would_be_paths_are_refused_on_every_route() {
    let s = start(20).await;
    for name in ["..%2F..%2Fevilmodel", "a%5Cb", "..", "abc%E2%80%AEgpj"] {
        for path in [
            format!("/api/v1/explore?user={name}"),
            format!("/api/v1/move?user={name}"),
            format!("/api/v1/report?user={name}"),
            format!("/api/v1/pace?user={name}"),
            format!("/api/v1/prep?user={name}&opponent=someone"),
        ] {
            let (status, body) = get(&s, &path).await;
            assert_eq!(status, 400, "{path}: {body}");
            let error = body["error"].as_str().unwrap_or_default();
            assert!(error.contains("invalid player name"), "{path}: {body}");
        }
    }
}

/// `/move`'s search knobs are bounded over HTTP (the knobs' own range let one request cost
/// hundreds of times the default): beyond the bound a 400 names the knob; at it the request
/// is answered.
#[tokio::test]
async fn move_search_knobs_are_bounded_over_http() {
    let s = start(20).await;
    let max = mirror_server::params::MAX_HTTP_SEARCH_NODES;
    for (q, named) in [
        (format!("searchNodes={}", max + 1), "searchNodes"),
        ("searchNodes=1000000".to_string(), "searchNodes"),
        (format!("searchOwn={}", max + 1), "searchOwn"),
        (
            format!(
                "searchTop={}",
                mirror_server::params::MAX_HTTP_SEARCH_TOP + 1
            ),
            "searchTop",
        ),
    ] {
        let (status, err) = get(&s, &format!("/api/v1/move?user=Biskupstunga&{q}")).await;
        assert_eq!(status, 400, "{q}: {err}");
        assert!(
            err["error"].as_str().is_some_and(|e| e.starts_with(named)),
            "{q}: {err}"
        );
    }
    let (status, ok) = get(
        &s,
        &format!("/api/v1/move?user=Biskupstunga&searchNodes={max}&searchBy=puct&seed=1"),
    )
    .await;
    assert_eq!(status, 200, "{ok}");
}

/// `/api/v1/player` (and lichess's `/player`): lichess's player explorer answered as lichess
/// answers it (NDJSON, the last line complete), with lichess's parameters: `color` required,
/// `play` from `fen`, `moves` cutting the list but not the totals, `topGames` refused.
#[tokio::test]
async fn the_player_explorer_answers_lichess_parameters_in_ndjson() {
    let s = start(499).await;
    let raw = |path: &str| {
        let url = format!("{}{path}", s.base);
        async move {
            let r = reqwest::get(url).await.expect("request");
            let status = r.status().as_u16();
            let kind = r
                .headers()
                .get("content-type")
                .map(|v| v.to_str().expect("ascii").to_string());
            (status, kind, r.text().await.expect("body"))
        }
    };
    let (status, kind, body) =
        raw("/api/v1/player?player=biskupstunga&color=black&play=e2e4&recentGames=2").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(kind.as_deref(), Some("application/x-ndjson"));
    assert!(body.ends_with('\n') && body.lines().count() == 1, "{body}");
    let line: Value = serde_json::from_str(body.trim_end()).expect("a JSON line");
    let (_, explore) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&color=black&recentGames=2",
    )
    .await;
    assert_eq!(line, explore);
    // lichess's own path, the same answer.
    let (_, _, same) = raw("/player?player=Biskupstunga&color=black&play=e2e4&recentGames=2").await;
    assert_eq!(same, body);
    // `fen` and `play` together: the walk goes on from the FEN.
    let after_e4 =
        "rnbqkbnr%2Fpppppppp%2F8%2F8%2F4P3%2F8%2FPPPP1PPP%2FRNBQKBNR%20b%20KQkq%20-%200%201";
    let (status, _, from_fen) = raw(&format!(
        "/api/v1/player?player=Biskupstunga&color=white&fen={after_e4}&play=c7c5"
    ))
    .await;
    assert_eq!(status, 200, "{from_fen}");
    let (_, walked) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4,c7c5&color=white",
    )
    .await;
    let from_fen: Value = serde_json::from_str(from_fen.trim_end()).expect("JSON");
    assert_eq!(from_fen["moves"], walked["moves"]);
    assert_eq!(from_fen["white"], walked["white"]);
    // `moves`: the most played first, the totals still the position's.
    let (_, _, two) = raw("/api/v1/player?player=Biskupstunga&color=black&play=e2e4&moves=1").await;
    let two: Value = serde_json::from_str(two.trim_end()).expect("JSON");
    assert_eq!(two["moves"].as_array().expect("moves").len(), 1);
    assert_eq!(two["moves"][0], explore["moves"][0]);
    for k in ["white", "draws", "black"] {
        assert_eq!(two[k], explore[k], "{k}");
    }
    // Refusals name what is wrong.
    for (path, names) in [
        ("/api/v1/player?player=Biskupstunga&play=e2e4", "color"),
        ("/api/v1/player?color=white", "player"),
        (
            "/api/v1/player?player=Biskupstunga&color=white&variant=atomic",
            "variant",
        ),
        (
            "/api/v1/player?player=Biskupstunga&color=white&topGames=4",
            "topGames",
        ),
        (
            "/api/v1/player?player=Biskupstunga&color=white&user=x",
            "user",
        ),
        (
            "/api/v1/player?player=Biskupstunga&color=white&moves=two",
            "moves",
        ),
    ] {
        let (status, v) = get(&s, path).await;
        assert_eq!(status, 400, "{path}: {v}");
        assert!(
            v["error"].as_str().expect("error").contains(names),
            "{path}: {v}"
        );
    }
    let (status, _, _) =
        raw("/api/v1/player?player=Biskupstunga&color=white&topGames=0&variant=standard").await;
    assert_eq!(status, 200);
}

/// `/api/v1/game`: a stored game of the player, to replay: its moves in SAN and UCI as the
/// PGN has them, with the clock's times; the game behind a recent game of the explorer;
/// another player's or an unknown id a 404 naming it.
#[tokio::test]
async fn a_stored_game_replays_move_by_move() {
    let s = start(20).await;
    let first = "https://www.chess.com/game/live/1960894102";
    let (status, g) = get(&s, &format!("/api/v1/game?user=biskupstunga&id={first}")).await;
    assert_eq!(status, 200, "{g}");
    // The PGN: 1. e4 {[%clk 0:10:00]} 1... d5 {[%clk 0:10:00]} 2. exd5 {[%clk 0:09:54.6]}
    // 2... c5 {[%clk 0:09:55.7]} 3. Nc3 ...
    let sans: Vec<&str> = g["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["san"].as_str().expect("san"))
        .collect();
    assert_eq!(sans[..6], ["e4", "d5", "exd5", "c5", "Nc3", "c4"], "{g}");
    assert_eq!(sans[10], "Bb5+", "{g}");
    assert_eq!(g["moves"][2]["uci"], "e4d5");
    assert_eq!(g["moves"][2]["clock"], 594.6);
    assert!(
        (g["moves"][2]["seconds"].as_f64().expect("seconds") - 5.4).abs() < 1e-9,
        "{g}"
    );
    assert_eq!(g["color"], "white");
    assert_eq!(g["white"]["name"], "Biskupstunga");
    assert_eq!(g["black"]["name"], "DARTH-ZANE");
    assert_eq!(g["url"], first);
    assert_eq!(g["date"], "2017-02-20");
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&g["result"].as_str().expect("result")));
    // Every SAN is the UCI move in its position: the line replays.
    let mut pos = shakmaty::Chess::default();
    for m in g["moves"].as_array().expect("moves") {
        let san: shakmaty::san::SanPlus = m["san"].as_str().expect("san").parse().expect("SAN");
        let mv = san.san.to_move(&pos).expect("legal");
        // The check marks are the position's: `+` after a check, `#` after mate.
        let after = shakmaty::Position::play(pos.clone(), mv).expect("plays");
        assert_eq!(
            san.suffix.is_some(),
            shakmaty::Position::is_check(&after),
            "{m}"
        );
        assert_eq!(
            shakmaty::uci::UciMove::from_standard(mv).to_string(),
            m["uci"].as_str().expect("uci")
        );
        pos = shakmaty::Position::play(pos, mv).expect("plays");
    }
    // The explorer's recent games open here, each at the move it lists.
    let (_, e) = get(
        &s,
        "/api/v1/explore?user=Biskupstunga&play=e2e4&color=black&recentGames=3",
    )
    .await;
    for r in e["recentGames"].as_array().expect("recent") {
        let id = r["id"].as_str().expect("id");
        let (status, g) = get(&s, &format!("/api/v1/game?user=Biskupstunga&id={id}")).await;
        assert_eq!(status, 200, "{g}");
        assert_eq!(g["moves"][0]["uci"], "e2e4");
        assert_eq!(g["moves"][1]["uci"], r["uci"]);
        assert_eq!(g["white"], r["white"]);
        assert_eq!(g["winner"], r["winner"]);
    }
    for (path, status, names) in [
        (
            "/api/v1/game?user=Biskupstunga&id=https://www.chess.com/game/live/1",
            404,
            "live/1",
        ),
        ("/api/v1/game?user=nobody&id=x", 404, "nobody"),
        ("/api/v1/game?user=Biskupstunga", 400, "id"),
        ("/api/v1/game?user=Biskupstunga&id=a%0Ab", 400, "id"),
    ] {
        let (got, v) = get(&s, path).await;
        assert_eq!(got, status, "{path}: {v}");
        assert!(
            v["error"].as_str().expect("error").contains(names),
            "{path}: {v}"
        );
    }
}

#[tokio::test]
async fn the_repertoire_is_the_stores_tree_as_a_pgn_file() {
    use mirror_store::repertoire::{RepertoireOptions, repertoire};
    let s = start(499).await;
    let r = reqwest::get(format!(
        "{}/api/v1/repertoire?user=biskupstunga&color=black&minGames=3&depth=9&speeds=blitz",
        s.base
    ))
    .await
    .expect("request");
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-type"].to_str().ok(),
        Some("application/x-chess-pgn")
    );
    assert_eq!(
        r.headers()["content-disposition"].to_str().ok(),
        Some("attachment; filename=\"repertoire-black.pgn\"")
    );
    let text = r.text().await.expect("body");
    let want = repertoire(
        s.store.as_ref(),
        PLAYER,
        &RepertoireOptions {
            color: shakmaty::Color::Black,
            filter: mirror_store::Filter {
                color: Some(shakmaty::Color::Black),
                time_classes: vec![mirror_core::TimeClass::Blitz],
                ..mirror_store::Filter::default()
            },
            min_games: 3,
            depth: 9,
            max_moves: 5_000,
        },
    )
    .expect("repertoire");
    assert!(want.size > 20, "{}", want.size);
    assert_eq!(text, want.to_pgn());
    // The tags name the player as stored, the main line starts with the most played move
    // (python-chess reads the file back: tests/reference/repertoire.py).
    assert!(text.contains("[Black \"Biskupstunga\"]"), "{text}");
    assert!(
        text.contains(&format!("\n\n1. {} {{", want.moves[0].san)),
        "{text}"
    );
    // In chapters: the library's chapters, each a game named by its Event tag.
    let chapters = reqwest::get(format!(
        "{}/api/v1/repertoire?user=biskupstunga&color=black&minGames=3&depth=9&speeds=blitz&chapters=4",
        s.base
    ))
    .await
    .expect("request")
    .text()
    .await
    .expect("body");
    assert_eq!(chapters, want.to_pgn_chapters(4));
    let events = chapters.matches("[Event ").count();
    assert!((2..=4).contains(&events), "{events} chapters: {chapters}");
    assert_eq!(want.chapters(4).len(), events);
    for (query, status) in [
        ("user=biskupstunga&depth=0", 400),
        ("user=biskupstunga&chapters=0", 400),
        ("user=biskupstunga&chapters=65", 400),
        ("user=biskupstunga&maxMoves=20001", 400),
        ("user=biskupstunga&minGames=0", 400),
        ("user=biskupstunga&colour=white", 400),
        ("user=nobody", 404),
    ] {
        let (got, v) = get(&s, &format!("/api/v1/repertoire?{query}")).await;
        assert_eq!(got, status, "{query}: {v}");
    }
}
