//! Helpers for the CLI tests: run the built binary in a temporary data directory.

#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStderr, Command, Output, Stdio},
};

/// The player of the shared single-player collection.
pub const PLAYER: &str = "Biskupstunga";

/// The shared data directory.
pub fn shared() -> PathBuf {
    std::env::var_os("MIRROR_SHARED_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

/// The 500-game PGN file.
pub fn first500() -> PathBuf {
    shared().join("pgn/single-player/biskupstunga_first500.pgn")
}

/// The 27,200-game zstd PGN file.
pub fn full27k() -> PathBuf {
    shared().join("pgn/single-player/biskupstunga_2017-2025.pgn.zst")
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A temporary data directory with the binary pointed at it.
pub struct Env {
    /// The directory (deleted on drop).
    pub dir: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Env {
        Env::new()
    }
}

impl Env {
    /// A fresh, empty data directory.
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// The default store file in it.
    pub fn db(&self) -> PathBuf {
        self.dir.path().join("mirror.redb")
    }

    /// The binary, pointed at the data directory.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mirror"));
        c.env("MIRROR_DATA_DIR", self.dir.path())
            .env_remove("MIRROR_DB")
            .env_remove("MIRROR_STORE")
            .env_remove("MIRROR_NEO4J_URI")
            .stdin(Stdio::null());
        c
    }

    /// Runs with `args`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("run mirror")
    }

    /// Runs and asserts success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        assert_ok(self.run(args), args)
    }

    /// Runs and asserts failure; returns stderr.
    pub fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            !out.status.success(),
            "mirror {args:?} should fail\nstdout:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stderr).expect("utf-8")
    }

    /// Ingests `pgn` for the player and returns the summary.
    pub fn ingest(&self, pgn: &Path, extra: &[&str]) -> String {
        self.ingest_as(PLAYER, pgn, extra)
    }

    /// Ingests `pgn` for `user` and returns the summary.
    pub fn ingest_as(&self, user: &str, pgn: &Path, extra: &[&str]) -> String {
        let p = pgn.to_str().expect("utf-8 path");
        let mut args = vec!["ingest", "--user", user, "--progress", "none", "--pgn", p];
        args.extend_from_slice(extra);
        self.ok(&args)
    }

    /// The player's edges as `mirror edges` prints them.
    pub fn edges(&self) -> String {
        self.ok(&["edges", "--user", PLAYER])
    }
}

/// A number after `label` in an ingest summary.
pub fn summary_value(summary: &str, label: &str) -> u64 {
    summary
        .lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in summary:\n{summary}"))
}

/// python-chess's edges for the player (tests/reference/graph.py).
pub fn reference_edges(pgn: &Path) -> String {
    reference_edges_with(pgn, &[])
}

/// python-chess's edges for the player with extra options of graph.py.
pub fn reference_edges_with(pgn: &Path, extra: &[&str]) -> String {
    reference_profile_edges(&[pgn], PLAYER, extra)
}

/// Compares two edge dumps line by line and reports the first differences.
pub fn assert_same_edges(mirror: &str, reference: &str) {
    if mirror == reference {
        return;
    }
    let a: std::collections::BTreeSet<&str> = mirror.lines().collect();
    let b: std::collections::BTreeSet<&str> = reference.lines().collect();
    let only_mirror: Vec<_> = a.difference(&b).take(5).collect();
    let only_ref: Vec<_> = b.difference(&a).take(5).collect();
    panic!(
        "edges differ: mirror {} lines, reference {} lines\nonly in mirror: {only_mirror:#?}\nonly in reference: {only_ref:#?}",
        a.len(),
        b.len()
    );
}

/// Asserts that a run of `mirror args` succeeded; returns its stdout.
pub fn assert_ok(out: Output, args: &[&str]) -> String {
    assert!(
        out.status.success(),
        "mirror {args:?} failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs `cmd` with `input` on its stdin (then closed); returns its output.
pub fn with_stdin(mut cmd: Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    child.wait_with_output().expect("wait")
}

/// `mirror serve` (from `cmd`) on a free loopback port: the child, its base URL, its
/// banner line and the rest of its stderr.
pub fn spawn_serve(mut cmd: Command) -> (Child, String, String, BufReader<ChildStderr>) {
    let mut child = cmd
        .args(["serve", "--bind", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("banner");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, url, line, stderr)
}

/// python-chess's edges for a profile: several PGN files, several names (`a|b`), extra
/// options of graph.py.
pub fn reference_profile_edges(pgns: &[&Path], names: &str, extra: &[&str]) -> String {
    let files: Vec<&str> = pgns
        .iter()
        .map(|p| p.to_str().expect("utf-8 path"))
        .collect();
    let script = repo().join("tests/reference/graph.py");
    let out = Command::new(std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()))
        .arg(&script)
        .arg(files.join(","))
        .arg(names)
        .args(extra)
        .output()
        .expect("python3 must be installed (.ci/run installs it with python-chess)");
    assert!(
        out.status.success(),
        "reference failed (pip install chess zstandard): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Stockfish (Debian's unless MIRROR_STOCKFISH says otherwise), which must be there.
pub fn stockfish() -> String {
    let sf = std::env::var("MIRROR_STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    assert!(
        std::path::Path::new(&sf).exists(),
        "Stockfish not found at {sf}: apt-get install stockfish (or set MIRROR_STOCKFISH)"
    );
    sf
}

/// python-chess + Stockfish at `depth` on each of `lines` (JSON lines with an `epd`, and a
/// `uci` for a move's win% loss: `tests/reference/evals.py`), its answers in order.
pub fn reference_evals(lines: &[String], depth: u32) -> Vec<serde_json::Value> {
    use std::io::Write;
    let mut child =
        Command::new(std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()))
            .arg(repo().join("tests/reference/evals.py"))
            .arg(stockfish())
            .arg(depth.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 with python-chess (tests/setup.sh installs it)");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("write");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("evals.py");
    assert!(out.status.success(), "evals.py failed");
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(answers.len(), lines.len());
    answers
}

/// The profile fixtures: real games of Magnus Carlsen (tests/fixtures/profile/).
pub fn profile_fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/profile").join(name)
}

/// A model directory for `key` (a player key) in `env`'s data dir that is there but
/// cannot be loaded: meta.json that is not JSON, weights that are not weights.
pub fn write_broken_model(env: &Env, key: &str) {
    let dir = env.dir.path().join("models").join(key);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("meta.json"), "{ not json").expect("write");
    std::fs::write(dir.join("model.bpk"), b"not weights").expect("write");
}

/// scipy's answers (`tests/reference/stats.py`) to `lines`: `{"table": [a, b, c, d]}` gives
/// `{"p": ...}` (Fisher's exact test, two-sided), `{"p_values": [...]}` gives `{"q": [...]}`
/// (Benjamini-Hochberg).
pub fn reference_stats(lines: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut child =
        Command::new(std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()))
            .arg(repo().join("tests/reference/stats.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for l in lines {
            writeln!(stdin, "{l}").expect("write");
        }
    }
    let out = child.wait_with_output().expect("stats.py ends");
    assert!(out.status.success(), "stats.py failed (pip install scipy?)");
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The 95% Wilson interval (low, high) of score `p` over `n` games, written out here as
/// the tests' own reference of the intervals mirror prints.
pub fn wilson_interval(p: f64, n: f64) -> (f64, f64) {
    let z: f64 = 1.959_963_984_540_054;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (centre - half, centre + half)
}

/// The EPD (a FEN's first four fields) of `fen` (the start when `None`) after the UCI
/// `moves`.
pub fn epd_after(fen: Option<&str>, moves: &[&str]) -> String {
    use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen, uci::UciMove};
    let mut pos: Chess = fen.map_or_else(Chess::default, |f| {
        f.parse::<Fen>()
            .expect("a FEN")
            .into_position(CastlingMode::Standard)
            .expect("a legal position")
    });
    for m in moves {
        let m = m
            .parse::<UciMove>()
            .expect("a UCI move")
            .to_move(&pos)
            .expect("a legal move");
        pos.play_unchecked(m);
    }
    let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// One HTTP request to the server: `(status, JSON body)`.
pub fn http(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<(&str, Vec<u8>)>,
) -> (u16, serde_json::Value) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let client = reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("client");
            let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
            let mut req = client.request(method, url);
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            if let Some((kind, bytes)) = body {
                req = req.header("content-type", kind).body(bytes);
            }
            let resp = req.send().await.expect("request");
            let status = resp.status().as_u16();
            (status, resp.json().await.expect("a JSON answer"))
        })
}

/// `POST url` with `body` as JSON and the token `bearer`: `(status, JSON body)`.
pub fn post_json(url: &str, body: &serde_json::Value, bearer: &str) -> (u16, serde_json::Value) {
    let bytes = serde_json::to_vec(body).expect("json");
    http(
        "POST",
        url,
        &[("authorization", bearer)],
        Some(("application/json", bytes)),
    )
}

/// The write token as the owner's page gets it: `/api/v1/session`, asked by this process
/// (the user who started the server) as the server's own page asks it.
pub fn page_token(url: &str) -> String {
    let (status, session) = http(
        "GET",
        &format!("{url}/api/v1/session"),
        &[("sec-fetch-site", "same-origin")],
        None,
    );
    assert_eq!(status, 200, "{session}");
    format!("Bearer {}", session["token"].as_str().expect("a token"))
}

/// `mirror drill ARGS` in a pseudo-terminal, answered as a person would
/// (`tests/drivers/drill_pty.py`), with `mirror`'s environment (its data directory and
/// store): the driver's report (`asked`, `summary`, `exit`).
pub fn drill_session(mirror: &Command, args: &[&str]) -> serde_json::Value {
    let mut py = Command::new(std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()));
    for (k, v) in mirror.get_envs() {
        match v {
            Some(v) => py.env(k, v),
            None => py.env_remove(k),
        };
    }
    let out = py
        .arg(repo().join("tests/drivers/drill_pty.py"))
        .arg(mirror.get_program())
        .arg("drill")
        .args(args)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the driver's JSON")
}
