//! Test support, a dev-dependency only: the [`conformance`] suite every store backend
//! must pass on real games (with its fixtures: the shared player and data), and a real
//! Neo4j 5.26 server for the test suites, started with
//! `tests/neo4j/run.sh` (Neo4j Community embedded in a small Java launcher, Bolt on
//! 127.0.0.1, auth off unless a password is given).
//!
//! [`shared`] gives a test the process's one server, one test at a time (Community has a
//! single user database, and the tests empty it); [`Neo4jServer::start`] starts a private
//! one (to kill it, or with authentication on).
//!
//! Whether a missing server fails or skips: with `MIRROR_REQUIRE_NEO4J=1` (set by
//! `.ci/run`) a server that cannot start is a test failure. Otherwise, on a machine without
//! `java` and `mvn`, the tests print a loud `SKIPPED` line on stderr and pass.

pub mod conformance;

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{Mutex, MutexGuard, OnceLock, mpsc},
    time::Duration,
};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether the environment demands a live server (CI).
pub fn required() -> bool {
    std::env::var("MIRROR_REQUIRE_NEO4J").is_ok_and(|v| v == "1")
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Why this machine cannot run the test server, if it cannot.
pub fn unavailable() -> Option<String> {
    let missing: Vec<&str> = ["java", "mvn"]
        .into_iter()
        .filter(|p| !on_path(p))
        .collect();
    (!missing.is_empty()).then(|| format!("{} not on PATH", missing.join(" and ")))
}

/// Says loudly, on the real stderr, that `test` did not run against Neo4j.
pub fn skip(test: &str, why: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {why}, so the Neo4j backend was NOT tested against a server \
         (install OpenJDK 17 and Maven; CI sets MIRROR_REQUIRE_NEO4J=1 and fails instead)"
    );
}

/// Options of a private server.
#[derive(Clone, Debug, Default)]
pub struct ServerOptions {
    /// Data directory to use (kept); `None`: a fresh temporary one, deleted at shutdown.
    pub data_dir: Option<PathBuf>,
    /// Turns authentication on, with user `neo4j` and this password.
    pub password: Option<String>,
    /// Page cache in MiB (default 64).
    pub page_cache_mb: Option<u32>,
    /// The JVM's heap in MiB (default 1024); Neo4j gives its transactions 70% of it.
    pub heap_mb: Option<u32>,
}

/// A running test server. Dropping it stops it (stdin closed, then waited for).
pub struct Neo4jServer {
    child: Child,
    stdin: Option<ChildStdin>,
    uri: String,
    log: PathBuf,
    /// Stdout lines after the ready line (a mutex makes the server `Sync`, for the shared
    /// static).
    lines: Mutex<mpsc::Receiver<String>>,
}

impl std::fmt::Debug for Neo4jServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Neo4jServer")
            .field("uri", &self.uri)
            .field("pid", &self.child.id())
            .finish()
    }
}

impl Neo4jServer {
    /// Starts a server with `tests/neo4j/run.sh` and waits for its ready line (building the
    /// launcher first if needed: the first build downloads Neo4j from Maven Central).
    pub fn start(opts: &ServerOptions) -> Result<Neo4jServer, String> {
        if let Some(why) = unavailable() {
            return Err(why);
        }
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log = std::env::temp_dir().join(format!("mirror-neo4j-{}-{n}.log", std::process::id()));
        let log_file = std::fs::File::create(&log)
            .map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("tests/neo4j/run.sh"));
        if let Some(dir) = &opts.data_dir {
            cmd.arg(dir);
        }
        cmd.env_remove("NEO4J_PASSWORD").env_remove("NEO4J_PORT");
        if let Some(pw) = &opts.password {
            cmd.env("NEO4J_PASSWORD", pw);
        }
        if let Some(mb) = opts.page_cache_mb {
            cmd.env("NEO4J_PAGECACHE_MB", mb.to_string());
        }
        cmd.env_remove("NEO4J_HEAP");
        if let Some(mb) = opts.heap_mb {
            cmd.env("NEO4J_HEAP", format!("{mb}m"));
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .spawn()
            .map_err(|e| format!("cannot run tests/neo4j/run.sh: {e}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // The first run builds the launcher (Maven downloads ~120 MiB).
        match rx.recv_timeout(Duration::from_secs(600)) {
            Ok(first) if first.starts_with("NEO4J_READY bolt://127.0.0.1:") => Ok(Neo4jServer {
                child,
                stdin,
                uri: first["NEO4J_READY ".len()..].trim().to_string(),
                log,
                lines: Mutex::new(rx),
            }),
            Ok(other) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!(
                    "the test Neo4j printed {other:?} before its ready line"
                ))
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!(
                    "the test Neo4j did not become ready; its log ({}):\n{}",
                    log.display(),
                    tail(&log, 40)
                ))
            }
        }
    }

    /// `bolt://127.0.0.1:PORT`.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The JVM's process id (run.sh execs java).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's log file (its stderr).
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// Stops the server by closing its stdin; returns its exit status and any stdout lines
    /// after the ready line.
    pub fn stop(mut self) -> (std::process::ExitStatus, Vec<String>) {
        self.stdin = None;
        let status = self.child.wait().expect("wait for the test Neo4j");
        (status, self.rest())
    }

    fn rest(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines.try_iter().collect()
    }

    /// Stops the server with SIGTERM; returns its exit status and any stdout lines after
    /// the ready line.
    pub fn terminate(mut self) -> (std::process::ExitStatus, Vec<String>) {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -TERM failed");
        let status = self.child.wait().expect("wait for the test Neo4j");
        (status, self.rest())
    }

    /// Kills the JVM with SIGKILL, as a crash would, and waits for it.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stdin = None;
    }
}

impl Drop for Neo4jServer {
    fn drop(&mut self) {
        // Closing stdin makes the launcher shut down cleanly.
        self.stdin = None;
        for _ in 0..300 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The process's shared server, for one test at a time.
pub struct Shared {
    _guard: MutexGuard<'static, ()>,
    uri: String,
}

impl Shared {
    /// `bolt://127.0.0.1:PORT` of the shared server (auth off).
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// The shared server of this test process (started on first use, stopped when the process
/// exits: its stdin closes), locked for the caller until the returned guard drops. `None`
/// (after a loud `SKIPPED` line) when this machine cannot run it and CI does not require
/// it; panics when it is required and does not start.
pub fn shared(test: &str) -> Option<Shared> {
    static LOCK: Mutex<()> = Mutex::new(());
    static SERVER: OnceLock<Result<Neo4jServer, String>> = OnceLock::new();
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let server = SERVER.get_or_init(|| Neo4jServer::start(&ServerOptions::default()));
    match server {
        Ok(s) => Some(Shared {
            _guard: guard,
            uri: s.uri().to_string(),
        }),
        Err(why) => {
            if required() || unavailable().is_none() {
                panic!("{test}: the test Neo4j is required but did not start: {why}");
            }
            skip(test, why);
            None
        }
    }
}

/// A private server for one test (killed, restarted or with auth on). `None` (after a
/// loud `SKIPPED` line) when this machine cannot run it and CI does not require it.
pub fn private(test: &str, opts: &ServerOptions) -> Option<Neo4jServer> {
    match Neo4jServer::start(opts) {
        Ok(s) => Some(s),
        Err(why) => {
            if required() || unavailable().is_none() {
                panic!("{test}: the test Neo4j is required but did not start: {why}");
            }
            skip(test, &why);
            None
        }
    }
}
