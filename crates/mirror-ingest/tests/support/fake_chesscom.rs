//! A fake Chess.com on 127.0.0.1 (port 0) that serves the real recorded responses from
//! `shared/data/chesscom/` and injects faults: 429 with Retry-After, 5xx, slow answers,
//! truncated bodies, 304 on revalidation, 404 for unknown users, 403 without contact.

#![allow(dead_code)]

use std::{
    collections::{HashMap, VecDeque},
    io::{BufRead, BufReader, Write},
    net::{TcpListener, TcpStream},
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

/// Where the shared data is.
pub fn shared_data() -> PathBuf {
    std::env::var_os("MIRROR_SHARED_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

/// A canned answer.
#[derive(Clone, Debug)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Headers (name, value).
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

/// A fault to inject before the normal answer of a path.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer with this status, extra headers and body instead.
    Status(u16, Vec<(String, String)>, String),
    /// Wait this long, then answer normally.
    Slow(Duration),
    /// Send the normal headers but only half of the body, then close.
    Truncated,
}

/// One request the server saw.
#[derive(Clone, Debug)]
pub struct Seen {
    /// Path, without the query.
    pub path: String,
    /// The query string (without `?`), empty when none.
    pub query: String,
    /// Headers, names lower-cased.
    pub headers: HashMap<String, String>,
}

/// Answers requests no route matches: gets the path, the query and the headers.
pub type Handler =
    Arc<dyn Fn(&str, &str, &HashMap<String, String>) -> Option<Answer> + Send + Sync>;

#[derive(Default)]
struct State {
    handler: Option<Handler>,
    routes: HashMap<String, Answer>,
    faults: HashMap<String, VecDeque<Fault>>,
    require_contact: bool,
    seen: Vec<Seen>,
}

/// The running fake server.
pub struct FakeChesscom {
    /// Base URL, e.g. `http://127.0.0.1:40123`.
    pub base: String,
    state: Arc<Mutex<State>>,
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        304 => "Not Modified",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn send(stream: &mut TcpStream, a: &Answer, truncate: bool) {
    let mut head = format!("HTTP/1.1 {} {}\r\n", a.status, reason(a.status));
    for (k, v) in &a.headers {
        if !k.eq_ignore_ascii_case("content-length")
            && !k.eq_ignore_ascii_case("connection")
            && !k.eq_ignore_ascii_case("transfer-encoding")
            && !k.eq_ignore_ascii_case("content-encoding")
        {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        a.body.len()
    ));
    let _ = stream.write_all(head.as_bytes());
    let body = if truncate {
        &a.body[..a.body.len() / 2]
    } else {
        &a.body[..]
    };
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

fn json_answer(status: u16, body: String) -> Answer {
    Answer {
        status,
        headers: vec![(
            "Content-Type".into(),
            "application/json; charset=utf-8".into(),
        )],
        body: body.into_bytes(),
    }
}

impl FakeChesscom {
    /// Starts the server with no routes.
    pub fn start() -> FakeChesscom {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let state = Arc::new(Mutex::new(State::default()));
        let st = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let st = st.clone();
                std::thread::spawn(move || handle(stream, &st));
            }
        });
        FakeChesscom { base, state }
    }

    /// Starts the server with the hikaru months (2014-02, 2014-03), the recorded month of
    /// fabianocaruana (2020-05) and the recorded archives list of afgano29.
    pub fn with_recordings() -> FakeChesscom {
        let s = FakeChesscom::start();
        let data = shared_data().join("chesscom");
        let mut archives = Vec::new();
        for (y, m) in [(2014, 2), (2014, 3)] {
            let body = std::fs::read(data.join(format!("hikaru/hikaru_{y}_{m:02}.json")))
                .expect("hikaru month");
            let path = format!("/pub/player/hikaru/games/{y}/{m:02}");
            archives.push(format!("\"https://api.chess.com{path}\""));
            s.route(
                &path,
                Answer {
                    status: 200,
                    headers: vec![
                        (
                            "Content-Type".into(),
                            "application/json; charset=utf-8".into(),
                        ),
                        ("ETag".into(), format!("W/\"hikaru-{y}-{m:02}\"")),
                        (
                            "Last-Modified".into(),
                            "Friday, 18-Oct-2024 01:24:09 GMT+0000".into(),
                        ),
                        ("Cache-Control".into(), "public, max-age=5".into()),
                    ],
                    body,
                },
            );
        }
        s.route(
            "/pub/player/hikaru/games/archives",
            json_answer(200, format!("{{\"archives\":[{}]}}", archives.join(","))),
        );
        for file in [
            "get_player_games_by_month.yaml",
            "get_player_game_archives.yaml",
        ] {
            let (path, answer) = load_recording(&data.join("recorded").join(file));
            s.route(&path, answer);
        }
        s.route(
            "/pub/player/fabianocaruana/games/archives",
            json_answer(
                200,
                "{\"archives\":[\"https://api.chess.com/pub/player/fabianocaruana/games/2020/05\"]}"
                    .into(),
            ),
        );
        s
    }

    /// Serves `answer` at `path`.
    pub fn route(&self, path: &str, answer: Answer) {
        self.state
            .lock()
            .expect("lock")
            .routes
            .insert(path.into(), answer);
    }

    /// Queues a fault for the next request of `path`.
    pub fn fault(&self, path: &str, fault: Fault) {
        self.state
            .lock()
            .expect("lock")
            .faults
            .entry(path.into())
            .or_default()
            .push_back(fault);
    }

    /// Answers requests that no route matches.
    pub fn set_handler(&self, handler: Handler) {
        self.state.lock().expect("lock").handler = Some(handler);
    }

    /// Answer 403 to requests whose User-Agent has no contact.
    pub fn require_contact(&self, on: bool) {
        self.state.lock().expect("lock").require_contact = on;
    }

    /// The requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().expect("lock").seen.clone()
    }

    /// Forgets the requests seen.
    pub fn clear_seen(&self) {
        self.state.lock().expect("lock").seen.clear();
    }
}

fn handle(mut stream: TcpStream, state: &Arc<Mutex<State>>) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target.clone(), String::new()),
    };
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let (answer, fault) = {
        let mut st = state.lock().expect("lock");
        st.seen.push(Seen {
            path: path.clone(),
            query: query.clone(),
            headers: headers.clone(),
        });
        let ua = headers.get("user-agent").cloned().unwrap_or_default();
        if st.require_contact && !ua.contains("contact:") {
            (
                json_answer(403, "{\"code\":0,\"message\":\"Forbidden\"}".into()),
                None,
            )
        } else {
            let fault = st.faults.get_mut(&path).and_then(VecDeque::pop_front);
            let dynamic = st.handler.as_ref().and_then(|h| h(&path, &query, &headers));
            let answer = match st.routes.get(&path) {
                Some(a) => {
                    let etag = a
                        .headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case("etag"));
                    match (etag, headers.get("if-none-match")) {
                        (Some((_, e)), Some(inm)) if e == inm => Answer {
                            status: 304,
                            headers: a
                                .headers
                                .iter()
                                .filter(|(k, _)| !k.eq_ignore_ascii_case("content-type"))
                                .cloned()
                                .collect(),
                            body: Vec::new(),
                        },
                        _ => a.clone(),
                    }
                }
                None if dynamic.is_some() => {
                    dynamic.unwrap_or_else(|| json_answer(500, "{}".into()))
                }
                None => {
                    let user = path
                        .strip_prefix("/pub/player/")
                        .and_then(|r| r.split('/').next())
                        .unwrap_or("");
                    json_answer(
                        404,
                        format!("{{\"code\":0,\"message\":\"User \\\"{user}\\\" not found.\"}}"),
                    )
                }
            };
            (answer, fault)
        }
    };
    match fault {
        None => send(&mut stream, &answer, false),
        Some(Fault::Status(status, extra, body)) => {
            let mut a = json_answer(status, body);
            a.headers.extend(extra);
            send(&mut stream, &a, false);
        }
        Some(Fault::Slow(d)) => {
            std::thread::sleep(d);
            send(&mut stream, &answer, false);
        }
        Some(Fault::Truncated) => send(&mut stream, &answer, true),
    }
}

/// Reads one recorded interaction: the request path and the response.
pub fn load_recording(path: &std::path::Path) -> (String, Answer) {
    let text = std::fs::read_to_string(path).expect("recording");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("yaml");
    let it = &doc["interactions"][0];
    let uri = it["request"]["uri"].as_str().expect("uri");
    let path = uri
        .strip_prefix("https://api.chess.com")
        .unwrap_or(uri)
        .to_string();
    let resp = &it["response"];
    let status = resp["status"]["code"].as_u64().expect("status") as u16;
    let mut headers = Vec::new();
    if let Some(map) = resp["headers"].as_mapping() {
        for (k, v) in map {
            let k = k.as_str().unwrap_or_default().to_string();
            if let Some(values) = v.as_sequence() {
                for val in values {
                    headers.push((k.clone(), val.as_str().unwrap_or_default().to_string()));
                }
            }
        }
    }
    let body = resp["body"]["string"]
        .as_str()
        .unwrap_or_default()
        .as_bytes()
        .to_vec();
    (
        path,
        Answer {
            status,
            headers,
            body,
        },
    )
}
