//! `mirror ingest --user NAME` from a fake Chess.com serving real recordings, and
//! `mirror ingest --lichess USER` from a fake lichess export streaming real games.

mod common;
#[path = "../../mirror-ingest/tests/support/mod.rs"]
mod support;

use support::{fake_chesscom, fake_lichess};

use std::{
    io::{BufRead, BufReader},
    process::Stdio,
    time::Duration,
};

use common::*;
use fake_chesscom::{FakeChesscom, Fault};

fn ingest_args<'a>(server: &'a FakeChesscom, user: &'a str) -> Vec<&'a str> {
    vec![
        "ingest",
        "--user",
        user,
        "--api-base",
        &server.base,
        "--contact",
        "tests@mirror.invalid",
        "--progress",
        "none",
    ]
}

fn hikaru_edges(env: &Env) -> String {
    env.ok(&["edges", "--user", "hikaru"])
}

#[test]
fn ingest_from_chesscom_then_rerun() {
    let server = FakeChesscom::with_recordings();
    let env = Env::new();
    let out = env.ok(&ingest_args(&server, "hikaru"));
    assert!(
        out.contains(
            "Chess.com months: 2 in range, 2 fetched, 0 not modified, 0 already complete, 0 failed"
        ),
        "{out}"
    );
    assert_eq!(summary_value(&out, "ingested"), 214);
    assert!(out.contains("2 (non-standard start position)"), "{out}");
    let explore = env.ok(&["explore", "--user", "Hikaru", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&explore).expect("json");
    assert!(v["games"].as_u64().expect("games") > 50, "{explore}");
    let again = env.ok(&ingest_args(&server, "hikaru"));
    assert!(again.contains("2 already complete"), "{again}");
    assert_eq!(summary_value(&again, "ingested"), 0);
}

#[test]
fn kill_9_mid_ingest_then_rerun_equals_one_clean_run() {
    let server = FakeChesscom::with_recordings();
    let clean = Env::new();
    clean.ok(&ingest_args(&server, "hikaru"));
    let want = hikaru_edges(&clean);

    let env = Env::new();
    server.clear_seen();
    // March answers late, so the process is surely still running after February.
    server.fault(
        "/pub/player/hikaru/games/2014/03",
        Fault::Slow(Duration::from_secs(30)),
    );
    let mut args = ingest_args(&server, "hikaru");
    let last = args.len() - 1;
    args[last] = "plain";
    let mut child = env
        .cmd()
        .args(&args)
        .args(["--timeout", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut february_done = false;
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with("month 2014-02 done") {
            february_done = true;
            break;
        }
    }
    assert!(february_done);
    // Kill while March's (slow) request is in flight.
    let asked = |s: &FakeChesscom| s.seen().iter().any(|r| r.path.ends_with("/2014/03"));
    for _ in 0..500 {
        if asked(&server) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(asked(&server), "the ingest asked for March");
    child.kill().expect("SIGKILL");
    assert!(!child.wait().expect("wait").success());

    let partial = env.ok(&["players"]);
    assert!(partial.contains("hikaru\t54 games"), "{partial}");
    let rerun = env.ok(&ingest_args(&server, "hikaru"));
    assert!(
        rerun.contains("1 fetched") && rerun.contains("1 already complete"),
        "{rerun}"
    );

    assert_eq!(summary_value(&rerun, "ingested"), 160);
    assert_eq!(hikaru_edges(&env), want);
}

#[test]
fn unknown_and_invalid_users_are_clear_errors() {
    let server = FakeChesscom::with_recordings();
    let env = Env::new();
    let err = env.fails(&ingest_args(&server, "nosuchuser42"));
    assert!(
        err.contains("Chess.com has no user \"nosuchuser42\": User \"nosuchuser42\" not found."),
        "{err}"
    );
    // Refused as a player's name (PlayerKey) before it reaches a URL.
    let err = env.fails(&ingest_args(&server, "../etc/passwd"));
    assert!(
        err.contains("invalid player name") && err.contains("slash"),
        "{err}"
    );
    assert!(server.seen().iter().all(|r| !r.path.contains("..")));
}

#[test]
fn forbidden_without_contact_says_how_to_fix_it() {
    let server = FakeChesscom::with_recordings();
    server.require_contact(true);
    let env = Env::new();
    let out = env
        .cmd()
        .args([
            "ingest",
            "--user",
            "hikaru",
            "--api-base",
            &server.base,
            "--progress",
            "none",
        ])
        .env_remove("MIRROR_CONTACT")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("403") && err.contains("--contact EMAIL"),
        "{err}"
    );
}

#[test]
fn a_failed_month_is_listed_and_the_exit_code_says_so() {
    let server = FakeChesscom::with_recordings();
    server.fault(
        "/pub/player/hikaru/games/2014/03",
        Fault::Status(500, vec![], "down".into()),
    );
    let env = Env::new();
    let mut args = ingest_args(&server, "hikaru");
    args.extend(["--retries", "0"]);
    let out = env.run(&args);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("1 failed"), "{stdout}");
    assert!(
        stderr.contains("error: month 2014-03 failed") && stderr.contains("500"),
        "{stderr}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 54);
}

#[test]
fn ingest_from_lichess_then_rerun_from_the_cursor() {
    let server = FakeChesscom::start();
    let text = std::fs::read_to_string(first500()).expect("read");
    fake_lichess::serve(
        &server,
        PLAYER,
        std::sync::Arc::new(std::sync::Mutex::new(fake_lichess::split_games(&text))),
    );
    let env = Env::new();
    let run = |env: &Env| {
        env.cmd()
            .args([
                "ingest",
                "--lichess",
                PLAYER,
                "--lichess-api",
                &server.base,
                "--progress",
                "none",
            ])
            .env("MIRROR_LICHESS_TOKEN", "lip_test_token")
            .output()
            .expect("run")
    };
    let out = run(&env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("lichess export of Biskupstunga: all games"),
        "{stdout}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 499);
    assert!(
        !stdout.contains("lip_test_token")
            && !String::from_utf8_lossy(&out.stderr).contains("lip_test_token")
    );
    let auth = server.seen()[0].headers.get("authorization").cloned();
    assert_eq!(auth.as_deref(), Some("Bearer lip_test_token"));
    let again = run(&env);
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        stdout.contains("lichess export of Biskupstunga since"),
        "{stdout}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 0);
}

/// The recorded Chess.com, whose February 2014 answers 3 s late (an import of hikaru is
/// surely running when it is stopped), and `mirror serve` on a fresh store that fetches
/// from it.
fn serving_a_slow_february() -> (
    FakeChesscom,
    Env,
    std::process::Child,
    String,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let server = FakeChesscom::with_recordings();
    server.fault(
        "/pub/player/hikaru/games/2014/02",
        Fault::Slow(Duration::from_secs(3)),
    );
    let env = Env::new();
    let mut cmd = env.cmd();
    cmd.env("MIRROR_CHESSCOM_API", &server.base)
        .env("MIRROR_CONTACT", "tests@mirror.invalid");
    let (child, url, _, stderr) = spawn_serve(cmd);
    (server, env, child, url, stderr)
}

/// Waits for `job`, stopped while February was fetched: it ends cancelled after that
/// month, whose games it kept, and March was never asked for. Returns the games kept.
fn stopped_after_february(server: &FakeChesscom, url: &str, job: &serde_json::Value) -> u64 {
    let job = wait_for_job(url, job);
    assert_eq!(job["state"], "cancelled", "{job}");
    assert_eq!(job["monthsDone"], 1, "{job}");
    let kept = job["gamesNew"].as_u64().expect("games");
    assert!(kept > 0 && kept < 214, "February's games are kept: {job}");
    assert!(
        !server
            .seen()
            .iter()
            .any(|s| s.path == "/pub/player/hikaru/games/2014/03"),
        "March was never asked for"
    );
    kept
}

/// Follows job `id` until it ends; returns its last status.
fn wait_for_job(base: &str, job: &serde_json::Value) -> serde_json::Value {
    let id = job["id"].as_u64().expect("a job id");
    for _ in 0..600 {
        let (status, now) = http("GET", &format!("{base}/api/v1/imports/{id}"), &[], None);
        assert_eq!(status, 200, "{now}");
        if matches!(now["state"].as_str(), Some("done" | "failed" | "cancelled")) {
            return now;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("job {id} did not end in 30 s");
}

/// The page's "Add a player": a Chess.com account through `mirror serve` (which starts on a
/// store that does not exist yet) gives the store exactly what `mirror ingest` gives, with
/// its months and games counted in the job; "sync" fetches nothing new; a PGN upload adds
/// its player; bad requests are refused by name, and nothing is written for them.
#[test]
fn the_page_adds_a_player_and_syncs_through_the_server() {
    let server = FakeChesscom::with_recordings();
    let env = Env::new();
    let mut cmd = env.cmd();
    cmd.env("MIRROR_CHESSCOM_API", &server.base)
        .env("MIRROR_CONTACT", "tests@mirror.invalid");
    let (mut child, url, _, _stderr) = spawn_serve(cmd);

    let (status, players) = http("GET", &format!("{url}/api/v1/players"), &[], None);
    assert_eq!((status, players), (200, serde_json::json!([])));
    let imports = format!("{url}/api/v1/imports");
    // Every import needs the token, on loopback too; the owner's page gets it.
    let (status, answer) = http(
        "POST",
        &imports,
        &[],
        Some(("application/json", br#"{"chesscom":"hikaru"}"#.to_vec())),
    );
    assert_eq!(status, 401, "{answer}");
    assert!(
        server.seen().is_empty(),
        "nothing was fetched without the token"
    );
    let bearer = page_token(&url);
    let (status, job) = post_json(
        &imports,
        &serde_json::json!({ "chesscom": "hikaru" }),
        &bearer,
    );
    assert_eq!(status, 202, "{job}");
    assert_eq!(job["what"], "Chess.com hikaru");
    assert_eq!(job["player"], "hikaru");
    let done = wait_for_job(&url, &job);
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["monthsTotal"], 2, "{done}");
    assert_eq!(done["monthsDone"], 2, "{done}");
    assert_eq!(done["gamesNew"], 214, "{done}");
    assert!(done["gamesRead"].as_u64() >= Some(214), "{done}");
    assert_eq!(done["errors"], serde_json::json!([]), "{done}");
    let log = done["log"].to_string();
    assert!(log.contains("ingested 214 new games of hikaru"), "{log}");
    let (_, players) = http("GET", &format!("{url}/api/v1/players"), &[], None);
    assert_eq!(
        players,
        serde_json::json!([{ "name": "hikaru", "games": 214 }])
    );

    // Sync: the profile's recorded account again, nothing new.
    let (status, job) = post_json(&imports, &serde_json::json!({ "user": "hikaru" }), &bearer);
    assert_eq!(status, 202, "{job}");
    let synced = wait_for_job(&url, &job);
    assert_eq!(synced["state"], "done", "{synced}");
    assert_eq!(synced["gamesNew"], 0, "{synced}");
    assert!(
        synced["log"].to_string().contains("2 already complete"),
        "{synced}"
    );

    // A PGN upload for another player.
    let pgn = std::fs::read(first500()).expect("pgn");
    let (status, job) = http(
        "POST",
        &format!("{imports}/pgn?user=Biskupstunga"),
        &[("authorization", &bearer)],
        Some(("application/x-chess-pgn", pgn)),
    );
    assert_eq!(status, 202, "{job}");
    let uploaded = wait_for_job(&url, &job);
    assert_eq!(uploaded["state"], "done", "{uploaded}");
    assert_eq!(uploaded["gamesNew"], 499, "{uploaded}");
    let (_, list) = http("GET", &imports, &[], None);
    let ids: Vec<u64> = list
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|j| j["id"].as_u64())
        .collect();
    assert_eq!(ids, [3, 2, 1], "{list}");

    // Refused, by name, and nothing written.
    for (body, status, says) in [
        (
            serde_json::json!({ "chesscom": "no/such" }),
            400,
            "Chess.com",
        ),
        (
            serde_json::json!({ "chesscom": "a", "lichess": "b" }),
            400,
            "not both",
        ),
        (serde_json::json!({}), 400, "name a Chess.com account"),
        (
            serde_json::json!({ "url": "http://x" }),
            400,
            "unknown field",
        ),
        (
            serde_json::json!({ "user": "Nobody Here" }),
            404,
            "Nobody Here",
        ),
    ] {
        let (got, answer) = post_json(&imports, &body, &bearer);
        assert_eq!(got, status, "{body}: {answer}");
        assert!(
            answer["error"].to_string().contains(says),
            "{body}: {answer}"
        );
    }
    let (status, answer) = http(
        "POST",
        &imports,
        &[
            ("origin", "http://evil.example"),
            ("authorization", &bearer),
        ],
        Some(("application/json", br#"{"chesscom":"hikaru"}"#.to_vec())),
    );
    assert_eq!(status, 403, "{answer}");
    let (status, answer) = http("GET", &format!("{imports}/99"), &[], None);
    assert_eq!(status, 404, "{answer}");
    let (_, list) = http("GET", &imports, &[], None);
    assert_eq!(list.as_array().map(Vec::len), Some(3), "{list}");
    let _ = child.kill();
    let _ = child.wait();
}

/// Beyond loopback the page's imports need the server's token.
#[test]
fn beyond_loopback_an_import_needs_the_token() {
    let server = FakeChesscom::with_recordings();
    let env = Env::new();
    let token = "a-token-of-sixteen-or-more";
    let mut child = env
        .cmd()
        .env("MIRROR_CHESSCOM_API", &server.base)
        .env("MIRROR_CONTACT", "tests@mirror.invalid")
        .env("MIRROR_SERVER_TOKEN", token)
        .args(["serve", "--bind", "0.0.0.0:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut url = None;
    for _ in 0..4 {
        let mut line = String::new();
        stderr.read_line(&mut line).expect("a line");
        if let Some(port) = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("http://0.0.0.0:"))
        {
            url = Some(format!("http://127.0.0.1:{}", port.trim_end_matches('/')));
            break;
        }
    }
    let url = url.expect("the server's address");
    let imports = format!("{url}/api/v1/imports");
    let body = br#"{"chesscom":"hikaru"}"#.to_vec();
    let (status, answer) = http(
        "POST",
        &imports,
        &[],
        Some(("application/json", body.clone())),
    );
    assert_eq!(status, 401, "{answer}");
    let (status, answer) = http(
        "POST",
        &imports,
        &[("authorization", "Bearer not-the-token-at-all")],
        Some(("application/json", body.clone())),
    );
    assert_eq!(status, 401, "{answer}");
    assert!(server.seen().is_empty(), "nothing was fetched");
    let bearer = format!("Bearer {token}");
    let (status, job) = http(
        "POST",
        &imports,
        &[("authorization", &bearer)],
        Some(("application/json", body)),
    );
    assert_eq!(status, 202, "{job}");
    assert_eq!(wait_for_job(&url, &job)["gamesNew"], 214);
    let _ = child.kill();
    let _ = child.wait();
}

/// An import can be cancelled (`DELETE /api/v1/imports/{id}`, with the token): one waiting
/// its turn never starts; a running one stops after the month it is writing, keeps it, and
/// never asks for the next; importing again goes on from there to the same 214 games.
#[test]
fn an_import_is_cancelled_waiting_or_running_and_resumes_after() {
    let (server, _env, mut child, url, _stderr) = serving_a_slow_february();
    let bearer = page_token(&url);
    let imports = format!("{url}/api/v1/imports");
    let body = serde_json::json!({ "chesscom": "hikaru" });
    let (status, first) = post_json(&imports, &body, &bearer);
    assert_eq!(status, 202, "{first}");
    let (status, second) = post_json(&imports, &body, &bearer);
    assert_eq!(status, 202, "{second}");
    let cancel = |job: &serde_json::Value, headers: &[(&str, &str)]| {
        http("DELETE", &format!("{imports}/{}", job["id"]), headers, None)
    };
    // Without the token: refused, nothing changes.
    let (status, answer) = cancel(&second, &[]);
    assert_eq!(status, 401, "{answer}");
    let (status, answer) = cancel(&second, &[("authorization", &bearer)]);
    assert_eq!(status, 202, "{answer}");
    assert_eq!(answer["state"], "waiting", "{answer}");
    // The first, once it runs.
    for _ in 0..100 {
        let (_, now) = http("GET", &format!("{imports}/{}", first["id"]), &[], None);
        if now["state"] == "running" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, answer) = cancel(&first, &[("authorization", &bearer)]);
    assert_eq!(status, 202, "{answer}");
    let kept = stopped_after_february(&server, &url, &first);
    let second = wait_for_job(&url, &second);
    assert_eq!(second["state"], "cancelled", "{second}");
    assert_eq!(second["gamesRead"], 0, "{second}");
    let (_, players) = http("GET", &format!("{url}/api/v1/players"), &[], None);
    assert_eq!(players[0]["games"], kept, "{players}");
    // An ended job is not cancelled again; an unknown one is not there.
    let (status, answer) = cancel(&first, &[("authorization", &bearer)]);
    assert_eq!(status, 422, "{answer}");
    let (status, answer) = cancel(
        &serde_json::json!({ "id": 999 }),
        &[("authorization", &bearer)],
    );
    assert_eq!(status, 404, "{answer}");
    // Again: the rest, to the same 214 games as one uninterrupted import.
    let (status, again) = post_json(&imports, &body, &bearer);
    assert_eq!(status, 202, "{again}");
    let again = wait_for_job(&url, &again);
    assert_eq!(again["state"], "done", "{again}");
    assert_eq!(again["gamesNew"].as_u64(), Some(214 - kept), "{again}");
    let (_, players) = http("GET", &format!("{url}/api/v1/players"), &[], None);
    assert_eq!(players[0]["games"], 214, "{players}");
    let _ = child.kill();
    let _ = child.wait();
}

/// `mirror ingest` beside a running server ingests through it; stopping that command
/// (Ctrl-C, or a kill) stops the server's ingest as it stops a local one: after the month
/// it is writing, which is kept. Run again, it adds exactly the rest.
#[test]
fn a_forwarded_ingest_stops_when_its_command_is_stopped() {
    let (server, env, mut serve, url, _stderr) = serving_a_slow_february();
    let mut forwarded = env
        .cmd()
        .args(ingest_args(&server, "hikaru"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn mirror ingest");
    // The server's job, once February is being fetched.
    let job = (0..300)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(20));
            let (_, jobs) = http("GET", &format!("{url}/api/v1/imports"), &[], None);
            let running = jobs
                .as_array()?
                .iter()
                .find(|j| j["state"] == "running")?
                .clone();
            server
                .seen()
                .iter()
                .any(|s| s.path == "/pub/player/hikaru/games/2014/02")
                .then_some(running)
        })
        .expect("the forwarded ingest runs on the server");
    forwarded.kill().expect("stop the command");
    let _ = forwarded.wait();
    stopped_after_february(&server, &url, &job);
    // Again, to its end: the rest, to the same 214 games.
    env.ok(&ingest_args(&server, "hikaru"));
    let (_, players) = http("GET", &format!("{url}/api/v1/players"), &[], None);
    assert_eq!(players[0]["games"], 214, "{players}");
    let _ = serve.kill();
    let _ = serve.wait();
}

/// A PGN with two spellings of one player, uploaded compressed (zstd, as the page now
/// offers): the job says in data which games it left out and the names most often in
/// them, the player's other spelling first; uploading the same file again with that
/// spelling adds exactly the games left out, and the third spelling the last two.
#[test]
fn an_upload_says_what_it_left_out_and_takes_the_other_spellings() {
    let env = Env::new();
    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    let bearer = page_token(&url);
    let zst = std::fs::read(shared().join("pgn/masters/Kasparov.pgn.zst")).expect("pgn");
    let upload = |alias: Option<&str>| {
        let mut query = "user=Kasparov%2C%20Gary".to_string();
        if let Some(a) = alias {
            query.push_str(&format!(
                "&alias={}",
                a.replace(',', "%2C").replace(' ', "%20")
            ));
        }
        let (status, job) = http(
            "POST",
            &format!("{url}/api/v1/imports/pgn?{query}"),
            &[("authorization", &bearer)],
            Some(("application/x-chess-pgn", zst.clone())),
        );
        assert_eq!(status, 202, "{job}");
        let done = wait_for_job(&url, &job);
        assert_eq!(done["state"], "done", "{done}");
        done
    };
    let first = upload(None);
    assert_eq!(first["gamesNew"], 1563, "{first}");
    let left = &first["leftOut"];
    // 1,979 games read: 1,563 of "Kasparov, Gary", one without a result skipped, 415
    // left out, 413 of them "Kasparov,G"'s (grep of the file: 239 + 175 tags, one of
    // them the game without a result).
    assert_eq!(left["games"], 415, "{first}");
    assert_eq!(
        left["names"][0],
        serde_json::json!({ "name": "Kasparov,G", "games": 413 }),
        "{left}"
    );
    let second = upload(Some("Kasparov,G"));
    assert_eq!(second["gamesNew"], 413, "{second}");
    assert_eq!(second["leftOut"]["games"], 2, "{second}");
    assert_eq!(second["leftOut"]["names"][0]["name"], "Kasparov, G.");
    let third = upload(Some("Kasparov, G."));
    assert_eq!(third["gamesNew"], 2, "{third}");
    assert!(third["leftOut"].is_null(), "nothing left out: {third}");
    let (_, players) = http("GET", &format!("{url}/api/v1/players"), &[], None);
    assert_eq!(
        players,
        serde_json::json!([{ "name": "Kasparov, Gary", "games": 1978 }])
    );
    let _ = child.kill();
    let _ = child.wait();

    // Both other spellings in one upload (one per line, as the page sends the ticked
    // ones), into a fresh store: every game at once, nothing left out.
    let env = Env::new();
    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    let bearer = page_token(&url);
    let post = |query: &str| {
        http(
            "POST",
            &format!("{url}/api/v1/imports/pgn?{query}"),
            &[("authorization", &bearer)],
            Some(("application/x-chess-pgn", zst.clone())),
        )
    };
    let (status, job) =
        post("user=Kasparov%2C%20Gary&alias=Kasparov%2CG%0AKasparov%2C%20G.%0A%0AKasparov%2CG");
    assert_eq!(status, 202, "{job}");
    let done = wait_for_job(&url, &job);
    assert_eq!(done["gamesNew"], 1978, "{done}");
    assert!(done["leftOut"].is_null(), "nothing left out: {done}");
    let many: Vec<String> = (0..17).map(|i| format!("Name{i}")).collect();
    let (status, refused) = post(&format!(
        "user=Kasparov%2C%20Gary&alias={}",
        many.join("%0A")
    ));
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("17 spellings")),
        "{refused}"
    );
    let _ = child.kill();
    let _ = child.wait();
}
