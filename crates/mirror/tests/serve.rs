//! `mirror serve` as a process: binds loopback, answers, stops gracefully on SIGTERM.

mod common;

use std::{io::Read, path::PathBuf};

use common::*;

/// GETs `url` and reads its JSON body (a runtime per call: tests only).
fn get_json(url: &str) -> serde_json::Value {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            reqwest::get(url)
                .await
                .expect("request")
                .json()
                .await
                .expect("json")
        })
}

/// Stops the server with SIGTERM, checks that it exits 0 (a graceful stop), and returns
/// the rest of its stderr.
fn stop(mut child: std::process::Child, mut stderr: impl Read) -> String {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let exit = child.wait().expect("wait");
    assert!(exit.success(), "graceful stop exits 0: {exit:?}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("rest");
    rest
}

#[test]
fn serve_answers_and_stops_on_sigterm() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (child, url, _, stderr) = spawn_serve(env.cmd());
    let get = |query: &str| get_json(&format!("{url}/api/v1/move?{query}"));
    let body = get("user=Biskupstunga&moves=e2e4&seed=1");
    assert_eq!(body["source"]["kind"], "book", "{body}");
    // Outside the player's games the shipped model answers (loaded once, then shared):
    // without sampling, the same position gives the same move whatever the seed.
    let fen = "rnbqkbnr/1pppppp1/p6p/8/8/P6P/1PPPPPP1/RNBQKBNR w KQkq - 0 3";
    let a = get(&format!("user=biskupstunga&fen={fen}&seed=1&sample=false"));
    let b = get(&format!("user=Biskupstunga&fen={fen}&seed=2&sample=false"));
    assert_eq!(a["source"]["kind"], "fallback", "{a}");
    assert!(
        a["source"]["policy"]
            .as_str()
            .is_some_and(|p| p.starts_with("model (")),
        "{a}"
    );
    assert!(
        a["source"]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("score ")),
        "{a}"
    );
    assert_eq!(a["uci"], b["uci"], "the model is deterministic: {a} {b}");
    // By default it samples the guarded model, the same seed the same move.
    let c = get(&format!("user=Biskupstunga&fen={fen}&seed=5"));
    assert!(
        c["source"]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("sampled, p=")),
        "{c}"
    );
    assert_eq!(
        c["uci"],
        get(&format!("user=Biskupstunga&fen={fen}&seed=5"))["uci"]
    );
    let rest = stop(child, stderr);
    assert!(rest.contains("mirror stopped"), "{rest}");
}

/// The search's budget (and Stockfish's own choice) as HTTP parameters reach the search:
/// out of the book the model's move is searched by Stockfish (found on PATH or Debian's)
/// and the answer says so; without it the answer is the model's as before.
#[test]
fn the_search_budget_reaches_the_search_over_http() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (child, url, _, stderr) = spawn_serve(env.cmd());
    let fen = "rnbqkbnr/1pppppp1/p6p/8/8/P6P/1PPPPPP1/RNBQKBNR w KQkq - 0 3";
    let ask = |extra: &str| {
        get_json(&format!(
            "{url}/api/v1/move?user=Biskupstunga&fen={fen}&seed=1&sample=false{extra}"
        ))
    };
    let searched = ask("&searchNodes=600&searchTop=4");
    let policy = searched["source"]["policy"].as_str().unwrap_or_default();
    assert!(
        policy.contains("+ search (") && policy.contains("600 nodes, top 4"),
        "{searched}"
    );
    assert!(
        searched["source"]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("searched: p=")),
        "{searched}"
    );
    let own = ask("&searchNodes=600&searchOwn=300");
    let policy = own["source"]["policy"].as_str().unwrap_or_default();
    assert!(
        policy.contains("600 nodes, top 6 and its own choice at 300 nodes"),
        "{own}"
    );
    let plain = ask("");
    assert!(
        plain["source"]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("score ")),
        "{plain}"
    );
    let bad = ask("&searchNodes=-5");
    assert!(
        bad["error"]
            .as_str()
            .is_some_and(|e| e.contains("searchNodes")),
        "{bad}"
    );
    // By the model: the shipped model of this player has no value head, so it says so
    // and plays as without a search.
    let by_model = ask("&searchNodes=30&searchBy=model");
    assert!(
        by_model["source"]["policy"]
            .as_str()
            .is_some_and(|p| p.ends_with("(search off: the model has no value head)")),
        "{by_model}"
    );
    assert_eq!(by_model["uci"], plain["uci"], "{by_model} {plain}");
    let bad = ask("&searchBy=alphabeta");
    assert!(
        bad["error"]
            .as_str()
            .is_some_and(|e| e.contains("searchBy") && e.contains("stockfish, model or puct")),
        "{bad}"
    );
    stop(child, stderr);
}

/// A player's model that cannot be loaded: the server says so once on stderr (not at
/// every request) and still answers, with random legal moves outside the player's games.
#[test]
fn a_broken_model_is_one_error_and_the_server_still_answers() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    write_broken_model(&env, "biskupstunga");
    let (child, url, _, stderr) = spawn_serve(env.cmd());
    let fen = "rnbqkbnr/1pppppp1/p6p/8/8/P6P/1PPPPPP1/RNBQKBNR w KQkq - 0 3";
    for seed in [1, 2, 3] {
        let body = get_json(&format!(
            "{url}/api/v1/move?user=Biskupstunga&fen={fen}&seed={seed}&sample=false"
        ));
        assert_eq!(body["source"]["kind"], "fallback", "{body}");
        assert_eq!(
            body["source"]["policy"], "random legal move (the player's model cannot be loaded)",
            "{body}"
        );
    }
    // The book still answers from the player's games.
    let body = get_json(&format!(
        "{url}/api/v1/move?user=Biskupstunga&moves=e2e4&seed=1"
    ));
    assert_eq!(body["source"]["kind"], "book", "{body}");
    let rest = stop(child, stderr);
    assert_eq!(
        rest.matches("cannot load Biskupstunga's model from")
            .count(),
        1,
        "one error for three requests: {rest}"
    );
    assert!(
        rest.contains("Biskupstunga's moves outside their games will be random"),
        "{rest}"
    );
}

#[test]
fn serve_needs_a_valid_address() {
    let env = Env::new();
    let err = env.fails(&["serve", "--bind", "localhost"]);
    assert!(
        err.contains("--bind \"localhost\" is not an address"),
        "{err}"
    );
}

/// `mirror bench serve` loads its own server on the player's tree and prints each load's
/// figures with no failed request; a load without positions is refused by name.
#[test]
fn bench_serve_prints_its_figures() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let out = env.ok(&[
        "bench",
        "serve",
        "--user",
        PLAYER,
        "--seconds",
        "1",
        "--top",
        "3",
        "--random",
        "10",
        "--connections",
        "4",
    ]);
    for label in [
        "cold, most played",
        "cold, random",
        "warm, most played",
        "warm, random",
    ] {
        let line = out
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("{label}: {out}"));
        assert!(line.contains("p99") && line.ends_with("errors 0"), "{line}");
    }
    let err = env.fails(&["bench", "serve", "--user", PLAYER, "--top", "0"]);
    assert!(err.contains("--top 0"), "{err}");
}

/// `mirror bench serve --sample-players N`: players drawn from a store of many (every
/// player of a master's collection with 15 games or more), each loaded there and on a
/// temporary store of that player alone; each has both position sets in the table, with
/// no failed request, and the worst ratios close it. Neo4j is refused by name.
#[test]
fn bench_serve_compares_sampled_players_with_each_alone() {
    let env = Env::new();
    let leko = shared().join("pgn/masters/Leko.pgn.zst");
    let leko = leko.to_str().expect("utf-8 path");
    env.ok(&[
        "ingest",
        "--all-players",
        "--min-games",
        "15",
        "--pgn",
        leko,
    ]);
    let out = env.ok(&[
        "bench",
        "serve",
        "--sample-players",
        "2",
        "--seconds",
        "1",
        "--top",
        "2",
        "--random",
        "5",
        "--connections",
        "2",
    ]);
    let drawn: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(drawn.len(), 2, "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" | ") && !l.contains("many: req/s"))
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    for row in &rows {
        assert!(!row.contains("errors"), "{row}");
        assert!(
            row.contains("most played") || row.contains("random"),
            "{row}"
        );
    }
    assert!(out.contains("worst of the sample: throughput"), "{out}");
    let err = env.fails(&[
        "--store",
        "neo4j",
        "bench",
        "serve",
        "--sample-players",
        "2",
    ]);
    assert!(
        err.contains("--sample-players runs on the embedded store"),
        "{err}"
    );
}

/// Two processes on one store: `mirror serve` holds it, and `mirror ingest` in another
/// process adds games through the server; the server shows them at once.
#[test]
fn ingest_goes_through_the_server_that_holds_the_store() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (child, url, _, stderr) = spawn_serve(env.cmd());
    let get = |path: &str| get_json(&format!("{url}{path}"));
    let games = |v: &serde_json::Value| {
        ["white", "draws", "black"]
            .iter()
            .map(|k| v[k].as_u64().expect("a count"))
            .sum::<u64>()
    };
    // The server says where it is, for its user only.
    let file = PathBuf::from(format!("{}.serve", env.db().display()));
    let meta = std::fs::metadata(&file).expect("the server file");
    #[cfg(unix)]
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
    let server: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    assert_eq!(server["url"], url.as_str());
    let before = get("/api/v1/explore?user=Magnus%20Carlsen");
    assert_eq!(before["error"].as_str().map(|_| ()), Some(()), "{before}");
    let page_players = get("/api/v1/players");
    assert_eq!(page_players.as_array().map(Vec::len), Some(1));

    // Another process ingests real games of a new player, and of the served one again,
    // with a proxy in its environment that would swallow the request (and the token): the
    // client of the machine's own server never uses one.
    let otb = profile_fixture("carlsen_otb.pgn");
    let out = env
        .cmd()
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .env("ALL_PROXY", "http://127.0.0.1:9")
        .args(["ingest", "--user", "Magnus Carlsen", "--alias", "Carlsen,M"])
        .args(["--progress", "none", "--pgn"])
        .arg(&otb)
        .output()
        .expect("ingest");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{o}\n{e}");
    assert!(e.contains(&format!("held by mirror serve at {url}")), "{e}");
    assert!(o.contains("ingested 60 new games of Magnus Carlsen"), "{o}");
    let again = env.ingest(&first500(), &[]);
    assert!(
        again.contains("ingested 0 new games of Biskupstunga"),
        "{again}"
    );
    assert_eq!(summary_value(&again, "already stored"), 499, "{again}");

    // No restart: the players, and the explorer's answers (kept ones too), are new.
    let players = get("/api/v1/players");
    assert_eq!(
        players,
        serde_json::json!([
            { "name": "Biskupstunga", "games": 499 },
            { "name": "Magnus Carlsen", "games": 60 }
        ])
    );
    let white = get("/api/v1/explore?user=Magnus%20Carlsen&color=white&recentGames=0");
    let black = get("/api/v1/explore?user=Magnus%20Carlsen&color=black&recentGames=0");
    assert_eq!(games(&white) + games(&black), 60, "{white}\n{black}");
    let after = get("/api/v1/explore?user=Magnus%20Carlsen");
    assert!(
        after["moves"].as_array().is_some_and(|m| !m.is_empty()),
        "{after}"
    );

    // Writes need the token.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let refused = rt.block_on(async {
        reqwest::Client::new()
            .post(format!("{url}/api/v1/ingest"))
            .header("content-type", "application/json")
            .body(r#"{"args": ["--user", "x", "--pgn", "/dev/null"]}"#)
            .send()
            .await
            .expect("request")
    });
    assert_eq!(refused.status().as_u16(), 401);
    // With the token, the request names only what an ingest may read: an absolute file or
    // directory, never the server's standard input, a FIFO or an unknown field.
    let token = server["token"].as_str().expect("token").to_string();
    let fifo = env.db().with_file_name("games.pgn");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    for (body, says) in [
        (r#"{"args": ["--user", "x"]}"#.to_string(), "unknown field"),
        (
            r#"{"user": "x", "pgn": ["-"]}"#.to_string(),
            "standard input",
        ),
        (
            r#"{"user": "x", "pgn": ["games.pgn"]}"#.to_string(),
            "absolute",
        ),
        (
            format!(r#"{{"user": "x", "pgn": ["{}"]}}"#, fifo.display()),
            "not a regular file",
        ),
    ] {
        let (status, text) = rt.block_on(async {
            let r = reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("client")
                .post(format!("{url}/api/v1/ingest"))
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .expect("request");
            (r.status().as_u16(), r.text().await.expect("body"))
        });
        assert_eq!(status, 400, "{body}: {text}");
        assert!(text.contains(says), "{body}: {text}");
    }
    // An ingest the server cannot do says why, in the calling process.
    let err = env.fails(&[
        "ingest",
        "--user",
        "Nobody",
        "--progress",
        "none",
        "--pgn",
        "-",
    ]);
    assert!(err.contains("standard input"), "{err}");

    stop(child, stderr);
    assert!(
        !file.exists(),
        "the server file is removed when the server stops"
    );
    // Without a server the command line opens the store itself again.
    let direct = env.ok(&["explore", "--user", "Magnus Carlsen", "--color", "white"]);
    assert!(!direct.is_empty());
}

/// `mirror play` and `mirror uci` while `mirror serve` holds the store: they read the
/// player's games through the server and answer exactly as they do on the store itself.
#[test]
fn play_and_uci_read_through_the_server_and_answer_alike() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let save = env.dir.path().join("game.pgn");
    let save = save.to_str().expect("utf-8 path");
    let run = |command: &str, args: &[&str], input: &str| -> (String, String) {
        let mut cmd = env.cmd();
        cmd.arg(command).args(args);
        let out = with_stdin(cmd, input);
        let (o, e) = (
            String::from_utf8(out.stdout).expect("utf-8"),
            String::from_utf8(out.stderr).expect("utf-8"),
        );
        assert!(out.status.success(), "{command}: {o}\n{e}");
        (o, e)
    };
    let play_args = [
        "--user",
        "biskupstunga",
        "--seed",
        "3",
        "--recent-months",
        "6",
        "--save",
        save,
    ];
    let moves = "e4\nbook\nNf3\nhint\nd4\nBc4\nquit\n";
    let uci_args = ["--user", PLAYER, "--seed", "11"];
    let session = "uci\nisready\nposition startpos moves e2e4\ngo\n\
                   position startpos moves d2d4 g8f6 c2c4\ngo\n\
                   setoption name RecentMonths value 3\nposition startpos moves e2e4 e7e5\ngo\nquit\n";
    let (play_here, _) = run("play", &play_args, moves);
    let (uci_here, _) = run("uci", &uci_args, session);
    assert!(play_here.contains("mirror plays 1..."), "{play_here}");

    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    let (play_served, err) = run("play", &play_args, moves);
    assert!(
        err.contains(&format!("held by mirror serve at {url}")),
        "{err}"
    );
    let (uci_served, _) = run("uci", &uci_args, session);
    assert_eq!(play_served, play_here, "the same game through the server");
    assert_eq!(
        uci_served, uci_here,
        "the same UCI answers through the server"
    );
    assert_eq!(uci_here.matches("bestmove ").count(), 3, "{uci_here}");
    // A player the server does not have is named as such.
    let mut cmd = env.cmd();
    cmd.args(["play", "--user", "nobody_here"]);
    let out = with_stdin(cmd, "quit\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown player \"nobody_here\""), "{err}");
    let _ = child.kill();
    let _ = child.wait();
}

/// `mirror play` through a server survives a person who thinks longer than the server keeps
/// an idle connection (10 s), and when the server is gone mid-game it saves what was played
/// before it reports the error.
#[test]
fn play_through_the_server_survives_a_long_think_and_saves_the_game_when_it_fails() {
    use std::io::Write;
    use std::process::Stdio;
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (mut server, url, _, _stderr) = spawn_serve(env.cmd());
    let save = env.dir.path().join("game.pgn");
    let start = |save: &std::path::Path| {
        let mut child = env
            .cmd()
            .args(["play", "--user", PLAYER, "--color", "white", "--seed", "5"])
            .arg("--save")
            .arg(save)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn play");
        let stdin = child.stdin.take().expect("stdin");
        (child, stdin)
    };

    // Read commands that open the store themselves name the server that holds it.
    for args in [
        &["explore", "--user", PLAYER][..],
        &["report", "--user", PLAYER][..],
        &["players"][..],
    ] {
        let err = env.fails(args);
        assert!(
            err.contains(&format!("held by mirror serve at {url}")),
            "{args:?}: {err}"
        );
    }

    // 15 s between two moves: the connection the first move used is closed by then.
    let (child, mut stdin) = start(&save);
    stdin.write_all(b"e4\n").expect("write");
    stdin.flush().expect("flush");
    std::thread::sleep(std::time::Duration::from_secs(15));
    stdin.write_all(b"d4\nquit\n").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("play");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{o}\n{e}");
    assert!(e.contains(&format!("held by mirror serve at {url}")), "{e}");
    assert!(
        o.contains("mirror plays 2..."),
        "the mirror answered 2. d4: {o}"
    );
    let pgn = std::fs::read_to_string(&save).expect("the saved game");
    assert!(pgn.contains("1. e4") && pgn.contains("2. d4"), "{pgn}");

    // The server stops uncleanly after the mirror's first reply: the next reply cannot be
    // read, and the game so far is saved, unfinished, before the error is reported.
    let lost = env.dir.path().join("lost.pgn");
    let (mut child, mut stdin) = start(&lost);
    stdin.write_all(b"e4\n").expect("write");
    stdin.flush().expect("flush");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("mirror plays 1...") {
        let n = stdout.read(&mut buf).expect("read play's output");
        assert!(
            n > 0,
            "play ended early: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    server.kill().expect("kill the server");
    server.wait().expect("wait");
    stdin.write_all(b"d4\n").expect("write");
    drop(stdin);
    let status = child.wait().expect("play");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    assert!(!status.success(), "{err}");
    assert!(
        err.contains(&format!("the game so far is saved to {}", lost.display())),
        "{err}"
    );
    let pgn = std::fs::read_to_string(&lost).expect("the game saved after the error");
    assert!(pgn.contains("1. e4") && pgn.contains("2. d4"), "{pgn}");
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
}

/// The server's write token comes from a file only its owner may read, or the
/// environment; never from the command line, where `ps` shows it.
#[test]
fn the_token_comes_from_an_owners_file_or_the_environment_never_argv() {
    use std::io::BufRead;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let file = env.dir.path().join("token");
    std::fs::write(&file, "a-token-of-twenty-four-c\n").expect("write");
    let path = file.to_str().expect("utf-8 path");
    #[cfg(unix)]
    {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let err = env.fails(&["serve", "--bind", "127.0.0.1:0", "--token-file", path]);
        assert!(err.contains("chmod 600"), "{err}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let err = env.fails(&["serve", "--token", "a-token-of-twenty-four-c"]);
    assert!(err.contains("--token"), "{err}");
    let mut child = env
        .cmd()
        .args(["serve", "--bind", "127.0.0.1:0", "--token-file", path])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("serve");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut banner = String::new();
    stderr.read_line(&mut banner).expect("banner");
    let server: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{}.serve", env.db().display())).expect("server file"),
    )
    .expect("json");
    assert_eq!(server["token"], "a-token-of-twenty-four-c", "{banner}");
    let url = server["url"].as_str().expect("url");
    assert_eq!(get_json(&format!("{url}/health"))["status"], "ok");
    stop(child, stderr);
    // The store itself is its owner's alone too.
    #[cfg(unix)]
    assert_eq!(
        std::fs::metadata(env.db())
            .expect("store")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
}

/// The pace follows the game's own clock: `/api/v1/pace` with a blitz clock waits as the
/// player does in blitz, with a rapid clock as in rapid (the explorer's averages of those
/// games), and a daily game's clocks never count.
#[test]
fn the_pace_reads_the_players_games_of_the_clocks_time_class() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    // The player's average time at the start, by time class, from the explorer.
    let average = |class: &str| -> f64 {
        let out = env.ok(&["explore", "--user", PLAYER, "--time-class", class, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        let (mut timed, mut seconds) = (0.0, 0.0);
        for m in v["moves"].as_array().expect("moves") {
            if let Some(t) = m["time"].as_object() {
                let n = t["timed"].as_f64().expect("timed");
                timed += n;
                seconds += n * t["averageSeconds"].as_f64().expect("average");
            }
        }
        assert!(timed > 0.0, "{class}: {v}");
        seconds / timed
    };
    let (blitz, rapid) = (average("blitz"), average("rapid"));
    assert!(
        (blitz - rapid).abs() > 0.3,
        "the classes differ: {blitz} {rapid}"
    );
    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    for (clock, want) in [("180%2B2", blitz), ("600", rapid)] {
        let p = get_json(&format!("{url}/api/v1/pace?user={PLAYER}&clock={clock}"));
        assert_eq!(p["source"], "book", "{p}");
        let got = p["seconds"].as_f64().expect("seconds");
        assert!(
            (got - want).abs() <= 0.06,
            "{clock}: {got} against {want}: {p}"
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A client written for lichess's player explorer, lichess's own Python client (berserk,
/// from PyPI: `tests/reference/lichess_client.py`), pointed at `mirror serve`, gets the
/// counts of `mirror explore` for every question: lichess's parameters (`player` in any
/// case, a required `color`, `play` from the start or from a `fen`, `speeds`, `since`,
/// `moves`, `recentGames`), its NDJSON answer, and its refusals as HTTP errors.
#[test]
fn lichesss_own_client_reads_the_player_explorer_as_mirror_explore_counts() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    // (berserk's arguments, `mirror explore`'s arguments for the same question)
    let questions: Vec<(serde_json::Value, Vec<&str>)> = vec![
        (
            serde_json::json!({"player": "Biskupstunga", "color": "white"}),
            vec!["--color", "white"],
        ),
        (
            serde_json::json!({"player": "biskupstunga", "color": "black", "play": ["e2e4"],
                "recent_games": 2}),
            vec!["--moves", "e4", "--color", "black"],
        ),
        (
            serde_json::json!({"player": "Biskupstunga", "color": "white",
                "play": ["e2e4", "c7c5"], "speeds": ["blitz"], "since": "2017-02"}),
            vec![
                "--moves",
                "e4 c5",
                "--color",
                "white",
                "--time-class",
                "blitz",
                "--since",
                "2017-02",
            ],
        ),
        (
            serde_json::json!({"player": "Biskupstunga", "color": "white",
                "position": after_e4, "play": ["c7c5"]}),
            vec!["--moves", "e4 c5", "--color", "white"],
        ),
        (
            serde_json::json!({"player": "Biskupstunga", "color": "black", "play": ["d2d4"]}),
            vec!["--moves", "d4", "--color", "black"],
        ),
    ];
    // `mirror explore` first: the server will hold the store.
    let wanted: Vec<serde_json::Value> = questions
        .iter()
        .map(|(_, args)| {
            let mut all = vec!["explore", "--user", "Biskupstunga", "--json"];
            all.extend(args);
            serde_json::from_str(&env.ok(&all)).expect("explore's JSON")
        })
        .collect();
    let (child, url, _, stderr) = spawn_serve(env.cmd());
    let mut lines: Vec<String> = questions.iter().map(|(q, _)| q.to_string()).collect();
    // Refused as lichess would: no colour; a variant mirror does not keep.
    lines.push(serde_json::json!({"player": "Biskupstunga", "color": null}).to_string());
    lines.push(
        serde_json::json!({"player": "Biskupstunga", "color": "white", "variant": "atomic"})
            .to_string(),
    );
    let out = with_stdin(
        {
            let mut c = std::process::Command::new(
                std::env::var("MIRROR_PYTHON").unwrap_or("python3".into()),
            );
            c.arg(repo().join("tests/reference/lichess_client.py"))
                .arg(&url);
            c
        },
        &lines.join("\n"),
    );
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(
        out.status.success() && answers.len() == lines.len(),
        "berserk: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let count =
        |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"));
    for (((q, _), want), got) in questions.iter().zip(&wanted).zip(&answers) {
        // lichess counts by colour; mirror explore by the player's result.
        let (wins, losses) = if q["color"] == "white" {
            ("white", "black")
        } else {
            ("black", "white")
        };
        assert!(count(want, "games") > 0, "{q}: no games to compare");
        assert_eq!(count(got, wins), count(want, "wins"), "{q}: {got}");
        assert_eq!(count(got, "draws"), count(want, "draws"), "{q}");
        assert_eq!(count(got, losses), count(want, "losses"), "{q}");
        let moves = |v: &serde_json::Value, keys: [&str; 3]| -> Vec<(String, u64, u64, u64)> {
            v["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| {
                    (
                        m["uci"].as_str().expect("uci").to_string(),
                        count(m, keys[0]),
                        count(m, keys[1]),
                        count(m, keys[2]),
                    )
                })
                .collect()
        };
        assert_eq!(
            moves(got, [wins, "draws", losses]),
            moves(want, ["wins", "draws", "losses"]),
            "{q}"
        );
        let recent = got["recentGames"].as_array().expect("recentGames").len();
        assert_eq!(
            recent,
            q["recent_games"]
                .as_u64()
                .unwrap_or(4)
                .min(count(want, "games")) as usize,
            "{q}"
        );
    }
    for refused in &answers[questions.len()..] {
        assert_eq!(refused["error"], 400, "{refused}");
    }
    assert!(
        answers[questions.len()]["body"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("color"))
    );
    assert!(
        answers[questions.len() + 1]["body"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("variant"))
    );
    stop(child, stderr);
}

/// The write token goes only to the page of the user who started the server, on this
/// machine (`/api/v1/session`): to this process (the same user) it is the server file's;
/// asked by another site's page (`Origin`, `Sec-Fetch-Site`) or by another user of the
/// machine (run as `nobody` where the tests may switch users) it is a 403 saying where the
/// token is; a write without it is a 401 on loopback too.
#[test]
fn the_token_goes_only_to_the_owners_page() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (child, url, _, stderr) = spawn_serve(env.cmd());
    let server: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{}.serve", env.db().display())).expect("server file"),
    )
    .expect("json");
    let ask = |headers: &[(&str, &str)]| -> (u16, serde_json::Value) {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(async {
                let client = reqwest::Client::builder()
                    .no_proxy()
                    .build()
                    .expect("client");
                let mut req = client.get(format!("{url}/api/v1/session"));
                for (k, v) in headers {
                    req = req.header(*k, *v);
                }
                let r = req.send().await.expect("request");
                let status = r.status().as_u16();
                assert_eq!(
                    r.headers().get("cache-control").map(|v| v.as_bytes()),
                    (status == 200).then_some(&b"no-store"[..]),
                );
                (status, r.json().await.expect("json"))
            })
    };
    let (status, own) = ask(&[("sec-fetch-site", "same-origin")]);
    assert_eq!(status, 200, "{own}");
    assert_eq!(own["token"], server["token"]);
    assert_eq!(
        ask(&[]).1["token"],
        server["token"],
        "a client that is not a browser"
    );
    for headers in [
        [("sec-fetch-site", "cross-site")],
        [("origin", "http://evil.example")],
    ] {
        let (status, refused) = ask(&headers);
        assert_eq!(status, 403, "{headers:?}: {refused}");
        assert!(refused.get("token").is_none());
        assert!(
            refused["error"]
                .as_str()
                .is_some_and(|e| e.contains("MIRROR_SERVER_TOKEN")),
            "{refused}"
        );
    }
    // Another user of this machine: the kernel says whose socket it is.
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n");
    if root {
        let script = format!(
            "import urllib.request, urllib.error\n\
             opener = urllib.request.build_opener(urllib.request.ProxyHandler({{}}))\n\
             try:\n    r = opener.open('{url}/api/v1/session'); print(r.status, r.read().decode())\n\
             except urllib.error.HTTPError as e:\n    print(e.code, e.read().decode())\n"
        );
        let out = std::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
            ])
            .arg(&script)
            .output()
            .expect("setpriv (util-linux) runs Debian's python3 as nobody");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.starts_with("403 "),
            "as nobody: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("another user of this machine (uid 65534"),
            "{text}"
        );
        assert!(!text.contains(server["token"].as_str().expect("token")));
    } else {
        eprintln!("not root: the other-user half of this test needs to switch users");
    }
    stop(child, stderr);
}
