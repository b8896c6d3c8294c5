//! `mirror drill` on real games: the cards a King's Gambit player's games make, a session
//! in a pseudo-terminal that walks the cards as a person would, and every answer kept.

mod common;

use common::{
    Env, PLAYER, drill_session, first500, http, page_token, post_json, reference_evals, shared,
    spawn_serve,
};

fn fedorov() -> Env {
    let env = Env::new();
    env.ingest_as(
        "Fedorov, Alexei",
        &shared().join("pgn/population/pgnmentor_players_chesslablab.pgn.zst"),
        &[],
    );
    env
}

fn listing(env: &Env, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "drill",
        "--user",
        "Fedorov, Alexei",
        "--color",
        "white",
        "--min-games",
        "5",
        "--list",
        "--json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&env.ok(&args)).expect("JSON")
}

/// Alexei Fedorov answered 1.e4 e5 with 2.f4 in all 7 of his games there: that card's
/// right move is f2f4, and only it; after 1.e4 c5 he plays 2.Nf3 (12 of 17 games) and
/// 2.d3 (5): both count (each at least a quarter of the games).
#[test]
fn the_cards_of_a_kings_gambit_player() {
    let env = fedorov();
    let list = listing(&env, &[]);
    let cards = list["cards"].as_array().expect("cards");
    let at = |line: &[&str]| {
        cards
            .iter()
            .find(|c| c["line"] == serde_json::json!(line))
            .unwrap_or_else(|| panic!("a card after {line:?}: {list}"))
    };
    let kg = at(&["e2e4", "e7e5"]);
    assert_eq!(kg["right"], serde_json::json!(["f2f4"]));
    assert_eq!(kg["why"]["kind"], "repertoire");
    assert_eq!(
        (kg["why"]["games"].as_u64(), kg["why"]["of"].as_u64()),
        (Some(7), Some(7))
    );
    assert_eq!(
        kg["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    let sicilian = at(&["e2e4", "c7c5"]);
    assert_eq!(sicilian["right"], serde_json::json!(["g1f3", "d2d3"]));
    assert_eq!(at(&[])["right"], serde_json::json!(["e2e4"]));
    // The line goes on after the gambit: 2...exf4 is a card of its own.
    assert_eq!(
        at(&["e2e4", "e7e5", "f2f4", "e5f4"])["right"],
        serde_json::json!(["g1f3"])
    );
    assert!(
        cards
            .iter()
            .all(|c| c["color"] == "white" && c["new"] == true)
    );
    assert_eq!(list["white"]["new"].as_u64(), Some(cards.len() as u64));
    assert_eq!(list["black"]["new"].as_u64(), Some(0));
    // A bad share is refused by name; --json needs --list.
    let err = env.fails(&[
        "drill",
        "--user",
        "Fedorov, Alexei",
        "--share",
        "2",
        "--list",
    ]);
    assert!(err.contains("--share"), "{err}");
    let err = env.fails(&["drill", "--user", "Fedorov, Alexei", "--json"]);
    assert!(err.contains("--list"), "{err}");
    let err = env.fails(&["drill", "--user", "Nobody", "--list"]);
    assert!(err.contains("Nobody"), "{err}");
}

/// A session in a pseudo-terminal: every card is first answered with `?` (shown, wrong),
/// then, when it comes again in the session, with the move shown; every card of the
/// session is answered right once in the end, and the store keeps each answer: the cards
/// answered are no longer new and come back in a day or more.
#[test]
fn a_drill_session_in_a_pseudo_terminal() {
    let env = fedorov();
    let run = drill_session(
        &env.cmd(),
        &[
            "--user",
            "Fedorov, Alexei",
            "--color",
            "white",
            "--min-games",
            "5",
            "--new",
            "4",
            "--seed",
            "11",
        ],
    );
    assert_eq!(run["exit"], 0, "{run}");
    let asked = run["asked"].as_array().expect("asked");
    let gave_up = asked.iter().filter(|a| a[1] == "?").count();
    let answered = asked.len() - gave_up;
    assert_eq!(gave_up, 4, "each of the 4 cards once: {run}");
    assert_eq!(answered, 4, "and each again, right: {run}");
    assert_eq!(
        run["summary"], "8 answers to 4 cards: 4 right, 4 wrong.",
        "{run}"
    );
    // The first question is the start position, the deck's first card.
    assert_eq!(asked[0][0], "The start position");
    let list = listing(&env, &[]);
    let cards = list["cards"].as_array().expect("cards");
    let done: Vec<&serde_json::Value> = cards.iter().filter(|c| c["new"] == false).collect();
    assert_eq!(done.len(), 4, "{list}");
    for c in &done {
        assert_eq!(c["reviews"], 2, "{c}");
        assert_eq!(c["lapses"], 0, "a new card answered wrong is no lapse: {c}");
        assert_eq!(c["dueNow"], false, "{c}");
        assert!(c["dueDate"].is_string(), "{c}");
    }
    assert_eq!(list["white"]["later"].as_u64(), Some(4));
}

/// The drill over HTTP, on `mirror serve`: the queue lists the new cards (the start
/// position first), an answer needs the token, is checked, stored (the card leaves the
/// queue and comes back later) and followed by the other side's reply and the next card
/// on the line; a card that is not one of the player's, a move not legal there and a bad
/// body are refused by name.
#[test]
fn the_drill_over_http() {
    let env = fedorov();
    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    let q = "user=Fedorov%2C%20Alexei&color=white&minGames=5&new=3";
    let (status, queue) = http("GET", &format!("{url}/api/v1/drill?{q}"), &[], None);
    assert_eq!(status, 200, "{queue}");
    assert_eq!(queue["player"], "Fedorov, Alexei");
    let cards = queue["cards"].as_array().expect("cards");
    assert_eq!(cards.len(), 3, "{queue}");
    assert_eq!(queue["white"]["new"], 7);
    let start = &cards[0];
    assert_eq!(start["line"], serde_json::json!([]));
    assert_eq!(start["right"], serde_json::json!(["e2e4"]));
    let answer = |uci: Option<&str>| serde_json::json!({"key": start["key"], "color": "white", "uci": uci, "millis": 2500});
    // Writes need the token.
    let (status, refused) = http(
        "POST",
        &format!("{url}/api/v1/drill?{q}"),
        &[],
        Some((
            "application/json",
            serde_json::to_vec(&answer(Some("e2e4"))).expect("json"),
        )),
    );
    assert_eq!(status, 401, "{refused}");
    let bearer = page_token(&url);
    let post =
        |body: &serde_json::Value| post_json(&format!("{url}/api/v1/drill?{q}"), body, &bearer);
    let (status, bad) = post(&answer(Some("e2e5")));
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"].as_str().is_some_and(|e| e.contains("uci")),
        "{bad}"
    );
    let (status, bad) =
        post(&serde_json::json!({"key": "0123", "color": "white", "uci": null, "millis": 1}));
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"].as_str().is_some_and(|e| e.contains("key")),
        "{bad}"
    );
    let (status, missing) = post(
        &serde_json::json!({"key": "0123456789abcdef", "color": "white", "uci": null, "millis": 1}),
    );
    assert_eq!(status, 404, "{missing}");
    // Nothing refused was stored.
    let (_, again) = http("GET", &format!("{url}/api/v1/drill?{q}"), &[], None);
    assert_eq!(again["white"]["new"], 7, "{again}");
    let (status, done) = post(&answer(Some("e2e4")));
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["verdict"]["right"], true);
    assert_eq!(done["verdict"]["grade"], "easy");
    assert_eq!(done["verdict"]["rightMoves"][0]["games"], 33);
    assert!(
        done["verdict"]["days"].as_u64().is_some_and(|d| d >= 1),
        "{done}"
    );
    let reply = &done["reply"];
    assert_eq!(reply["played"], "e2e4");
    // Drawn from the replies to 1.e4 in his 33 games with it.
    assert_eq!(reply["games"][1], 33, "{done}");
    assert!(reply["games"][0].as_u64() >= Some(1), "{done}");
    // The next card is the player's card after the reply, when there is one.
    if !done["next"].is_null() {
        assert_eq!(done["next"]["line"][0], "e2e4", "{done}");
        assert_eq!(done["next"]["line"][1], reply["reply"], "{done}");
    }
    let (_, after) = http("GET", &format!("{url}/api/v1/drill?{q}"), &[], None);
    assert_eq!(after["white"]["new"], 6, "{after}");
    assert_eq!(after["white"]["later"], 1, "{after}");
    assert!(
        after["cards"]
            .as_array()
            .expect("cards")
            .iter()
            .all(|c| c["key"] != start["key"]),
        "answered: not in today's queue: {after}"
    );
    // The retention asked schedules the card: a new card answered right in the same time
    // comes back later at a lower retention (FSRS's interval for its first stability).
    let at = |card: &serde_json::Value, retention: serde_json::Value| {
        serde_json::json!({"key": card["key"], "color": "white", "uci": card["right"][0],
            "millis": 2500, "retention": retention})
    };
    let (status, bad) = post(&at(&cards[1], serde_json::json!(1.5)));
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("retention")),
        "{bad}"
    );
    let (_, high) = post(&at(&cards[1], serde_json::json!(0.97)));
    let (_, low) = post(&at(&cards[2], serde_json::json!(0.7)));
    let days = |v: &serde_json::Value| v["verdict"]["days"].as_u64().expect("days");
    assert_eq!(
        (
            high["verdict"]["grade"].as_str(),
            low["verdict"]["grade"].as_str()
        ),
        (Some("easy"), Some("easy"))
    );
    assert!(
        days(&high) < days(&done) && days(&done) < days(&low),
        "0.97: {high}; 0.9: {done}; 0.7: {low}"
    );
    // The CLI reads the same record.
    let _ = child.kill();
    let _ = child.wait();
    let list = listing(&env, &[]);
    let first = &list["cards"][0];
    assert_eq!(
        (first["reviews"].as_u64(), first["new"].as_bool()),
        (Some(1), Some(false))
    );
}

/// Against a named opponent the cards are the player's moves on the lines of `mirror prep`
/// (prep's better move where it suggests one): Biskupstunga as Black against Alexei
/// Fedorov, who opens 1.e4 in all his 33 White games, is asked 1...d5 first, his usual
/// reply, on every line; and the cards are exactly the moves of the prep lines.
#[test]
fn prep_cards_against_a_named_opponent() {
    let env = fedorov();
    env.ingest(&first500(), &[]);
    let args = [
        "--user",
        "Biskupstunga",
        "--opponent",
        "Fedorov, Alexei",
        "--color",
        "black",
    ];
    let mut list_args = vec!["drill"];
    list_args.extend(args);
    list_args.extend(["--depth", "8", "--list", "--json"]);
    let list: serde_json::Value = serde_json::from_str(&env.ok(&list_args)).expect("JSON");
    let mut prep_args = vec!["prep"];
    prep_args.extend(args);
    prep_args.push("--json");
    let prep: serde_json::Value = serde_json::from_str(&env.ok(&prep_args)).expect("JSON");
    let cards = list["cards"].as_array().expect("cards");
    assert!(!cards.is_empty(), "{list}");
    for c in cards {
        assert_eq!(c["color"], "black", "{c}");
        assert_eq!(c["why"]["kind"], "prep", "{c}");
        assert_eq!(c["why"]["opponent"], "Fedorov, Alexei", "{c}");
        assert_eq!(
            c["line"].as_array().map(|l| l.len() % 2),
            Some(1),
            "Black to move: {c}"
        );
    }
    assert_eq!(cards[0]["line"], serde_json::json!(["e2e4"]));
    assert_eq!(cards[0]["right"], serde_json::json!(["d7d5"]));
    assert_eq!(cards[0]["why"]["reach"], 1.0);
    // The prep lines' moves of the player, each position once.
    let mut want: Vec<(Vec<String>, String)> = Vec::new();
    for line in prep[0]["lines"].as_array().expect("lines") {
        assert_eq!(line["suggestions"], serde_json::json!([]), "{line}");
        let uci: Vec<String> = line["uci"]
            .as_array()
            .expect("uci")
            .iter()
            .map(|u| u.as_str().expect("a move").to_string())
            .collect();
        for (i, step) in line["steps"].as_array().expect("steps").iter().enumerate() {
            if step["by"] == "user" && !want.iter().any(|(l, _)| *l == uci[..i]) {
                want.push((uci[..i].to_vec(), uci[i].clone()));
            }
        }
    }
    let mut got: Vec<(Vec<String>, String)> = cards
        .iter()
        .map(|c| {
            (
                c["line"]
                    .as_array()
                    .expect("line")
                    .iter()
                    .map(|u| u.as_str().expect("a move").to_string())
                    .collect(),
                c["right"][0].as_str().expect("a move").to_string(),
            )
        })
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// The engine's cards ("where you lose"): where `mirror analyse` says the player's usual
/// move loses, the card asks for Stockfish's best move there, and only it, as Stockfish
/// through python-chess finds it at the analysis's depth on its own; each of the report's findings
/// of that colour is such a card (the drill's depth permitting), one card per position.
#[test]
fn the_engines_cards_ask_for_stockfishs_best_move() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    env.ok(&[
        "analyse",
        "--user",
        PLAYER,
        "--min-games",
        "5",
        "--depth",
        "8",
        "--progress",
        "none",
    ]);
    let epd = |fen: &serde_json::Value| -> String {
        let fields: Vec<&str> = fen.as_str().expect("fen").split(' ').take(4).collect();
        fields.join(" ")
    };
    for color in ["white", "black"] {
        let list: serde_json::Value = serde_json::from_str(&env.ok(&[
            "drill",
            "--user",
            PLAYER,
            "--color",
            color,
            "--min-games",
            "5",
            "--list",
            "--json",
        ]))
        .expect("JSON");
        let cards = list["cards"].as_array().expect("cards");
        let mut positions: Vec<String> = cards.iter().map(|c| epd(&c["fen"])).collect();
        positions.sort();
        let all = positions.len();
        positions.dedup();
        assert_eq!(positions.len(), all, "one card per position");
        let engine: Vec<&serde_json::Value> = cards
            .iter()
            .filter(|c| c["why"]["kind"] == "loses")
            .collect();
        let report: serde_json::Value = serde_json::from_str(&env.ok(&[
            "report",
            "--user",
            PLAYER,
            "--color",
            color,
            "--min-games",
            "5",
            "--limit",
            "50",
            "--json",
        ]))
        .expect("JSON");
        let findings = report["engine"].as_array().expect("engine");
        assert!(!findings.is_empty(), "{color}: {report}");
        assert!(!engine.is_empty(), "{color}: no engine card");
        for f in findings {
            let plies = f["moves"].as_array().map_or(0, Vec::len);
            if plies >= 20 {
                continue;
            }
            let card = engine
                .iter()
                .find(|c| epd(&c["fen"]) == epd(&f["fen"]))
                .unwrap_or_else(|| panic!("{color}: a card for the finding {f}"));
            assert_eq!(card["why"]["played"], f["played"]["uci"], "{card}");
            assert_eq!(
                card["right"],
                serde_json::json!([f["best"]["uci"]]),
                "{card}"
            );
        }
        let lines: Vec<String> = engine
            .iter()
            .map(|c| serde_json::json!({ "epd": epd(&c["fen"]) }).to_string())
            .collect();
        for (card, theirs) in engine.iter().zip(reference_evals(&lines, 8)) {
            assert_eq!(
                card["right"],
                serde_json::json!([theirs["best"]]),
                "{color}: Stockfish's best at depth 8: {theirs}; the card: {card}"
            );
            assert_ne!(card["why"]["played"], theirs["best"], "{card}");
        }
    }
}
