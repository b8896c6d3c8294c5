//! A minimal UCI client for Stockfish (or another UCI engine): searches of a fixed depth or
//! number of nodes with MultiPV, optionally among given moves, each from a cleared hash so
//! that results do not depend on what was searched before. `mirror eval` judges with it;
//! the engine's search re-ranks the model's moves with it ([`crate::search`]).

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
};

/// What went wrong with the UCI engine; each names its executable.
#[derive(Debug, thiserror::Error)]
pub enum StockfishError {
    /// It answered something unusable, or exited.
    #[error("stockfish {path}: {message}")]
    Failed {
        /// The executable.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Talking to it failed (or a given path does not exist); the system's error is the
    /// cause.
    #[error("stockfish {path}: {what}")]
    Io {
        /// The executable.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

/// A score from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// Centipawns with mates as ±1000, as lichess counts them for win%.
    pub fn capped_cp(self) -> f64 {
        match self {
            Score::Cp(c) => f64::from(c.clamp(-1000, 1000)),
            Score::Mate(m) if m > 0 => 1000.0,
            Score::Mate(_) => -1000.0,
        }
    }
}

/// Stockfish: `given` (a path that must exist, or a bare name to find on PATH), else
/// `stockfish` on PATH, else Debian's `/usr/games/stockfish`; `Ok(None)` when there is
/// none; an error names a given path that does not exist.
pub fn find(given: Option<&Path>) -> Result<Option<PathBuf>, StockfishError> {
    if let Some(p) = given {
        if !p.exists() && p.components().count() != 1 {
            return Err(StockfishError::Io {
                path: p.to_path_buf(),
                what: "no such file",
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
        return Ok(Some(p.to_path_buf()));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("stockfish"))
            .find(|p| p.is_file())
    });
    Ok(on_path.or_else(|| {
        let debian = PathBuf::from("/usr/games/stockfish");
        debian.is_file().then_some(debian)
    }))
}

/// lichess's win percentage of the side to move for an evaluation:
/// `50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`, centipawns capped at ±1000 (its home
/// is [`mirror_core::evaluation`], beside the stored evaluations it also judges).
pub use mirror_core::evaluation::win_percent;

/// One principal variation: its first move (UCI) and score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// First move, UCI (castling as king to its destination square, e.g. `e1g1`).
    pub mv: String,
    /// Score for the side to move.
    pub score: Score,
}

/// A running Stockfish process.
#[derive(Debug)]
pub struct Stockfish {
    path: PathBuf,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    multipv: u32,
    /// The engine's name from `id name`.
    pub name: String,
}

impl Stockfish {
    /// Starts `path` with one thread and a 16 MiB hash.
    pub fn start(path: &Path) -> Result<Stockfish, StockfishError> {
        let fail = |e: &dyn std::fmt::Display| StockfishError::Failed {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| StockfishError::Io {
                path: path.to_path_buf(),
                what: "cannot start",
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(fail(&"no pipes"));
        };
        let mut sf = Stockfish {
            path: path.to_path_buf(),
            child,
            stdin,
            stdout: BufReader::new(stdout),
            multipv: 1,
            name: String::new(),
        };
        sf.send("uci")?;
        let mut name = String::new();
        sf.read_until(|l| {
            if let Some(n) = l.strip_prefix("id name ") {
                name = n.trim().to_string();
            }
            l.trim() == "uciok"
        })?;
        sf.name = name;
        sf.send("setoption name Threads value 1")?;
        sf.send("setoption name Hash value 16")?;
        sf.ready()?;
        Ok(sf)
    }

    fn err(&self, message: impl Into<String>) -> StockfishError {
        StockfishError::Failed {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    fn send(&mut self, line: &str) -> Result<(), StockfishError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|source| StockfishError::Io {
                path: self.path.clone(),
                what: "write failed (did it exit?)",
                source,
            })
    }

    fn read_until(&mut self, mut done: impl FnMut(&str) -> bool) -> Result<(), StockfishError> {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|source| StockfishError::Io {
                    path: self.path.clone(),
                    what: "read failed",
                    source,
                })?;
            if n == 0 {
                return Err(self.err("exited unexpectedly"));
            }
            if done(&line) {
                return Ok(());
            }
        }
    }

    fn ready(&mut self) -> Result<(), StockfishError> {
        self.send("isready")?;
        self.read_until(|l| l.trim() == "readyok")
    }

    /// The best `multipv` lines of the position (FEN) at `depth`, best first; empty when
    /// the side to move has no legal move. The hash is cleared first.
    pub fn analyse(
        &mut self,
        fen: &str,
        depth: u32,
        multipv: u32,
    ) -> Result<Vec<Line>, StockfishError> {
        let infos = self.search(fen, &format!("go depth {depth}"), multipv)?;
        // The last exact line of each rank.
        let mut lines: Vec<Option<Line>> = vec![None; multipv as usize];
        for (k, line, bound) in infos {
            if !bound && (1..=lines.len()).contains(&k) {
                lines[k - 1] = Some(line);
            }
        }
        Ok(lines.into_iter().flatten().collect())
    }

    /// The best move (UCI) of the position (FEN) after a search of every legal move within
    /// `nodes` nodes; `None` when the side to move has no legal move. The hash is cleared
    /// first.
    pub fn best_within(&mut self, fen: &str, nodes: u64) -> Result<Option<String>, StockfishError> {
        let infos = self.search(fen, &format!("go nodes {}", nodes.max(1)), 1)?;
        Ok(infos
            .iter()
            .rev()
            .find(|(k, _, bound)| *k == 1 && !bound)
            .or_else(|| infos.iter().rev().find(|(k, _, _)| *k == 1))
            .map(|(_, l, _)| l.mv.clone()))
    }

    /// A line for each of `moves` (UCI) in the position (FEN), searched together within
    /// `nodes` nodes (MultiPV as many as the moves, `searchmoves` them), best first: each
    /// move's last exact score, else its last bound (the node limit can stop a move's
    /// search between the two). The hash is cleared first.
    pub fn analyse_moves(
        &mut self,
        fen: &str,
        nodes: u64,
        moves: &[String],
    ) -> Result<Vec<Line>, StockfishError> {
        let multipv = u32::try_from(moves.len()).unwrap_or(u32::MAX).max(1);
        let go = format!("go nodes {} searchmoves {}", nodes.max(1), moves.join(" "));
        let infos = self.search(fen, &go, multipv)?;
        let last = |m: &str, bound: bool| {
            infos
                .iter()
                .rev()
                .find(|(_, l, b)| l.mv == m && *b == bound)
                .map(|(_, l, _)| l.clone())
        };
        let mut lines: Vec<Line> = moves
            .iter()
            .filter_map(|m| last(m, false).or_else(|| last(m, true)))
            .collect();
        lines.sort_by(|a, b| b.score.capped_cp().total_cmp(&a.score.capped_cp()));
        Ok(lines)
    }

    /// Every `info` line with a score and a pv of one search, in order.
    fn search(
        &mut self,
        fen: &str,
        go: &str,
        multipv: u32,
    ) -> Result<Vec<(usize, Line, bool)>, StockfishError> {
        if multipv != self.multipv {
            self.send(&format!("setoption name MultiPV value {multipv}"))?;
            self.multipv = multipv;
        }
        self.send("ucinewgame")?;
        self.ready()?;
        self.send(&format!("position fen {fen}"))?;
        self.send(go)?;
        let mut infos = Vec::new();
        self.read_until(|l| {
            if l.starts_with("bestmove") {
                return true;
            }
            infos.extend(parse_info(l));
            false
        })?;
        Ok(infos)
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// `(multipv, line, whether its score is only a bound)` of an `info` line with a score and
/// a pv.
fn parse_info(l: &str) -> Option<(usize, Line, bool)> {
    let mut it = l.split_whitespace();
    if it.next()? != "info" {
        return None;
    }
    let (mut k, mut score, mut mv, mut bound) = (1usize, None, None, false);
    while let Some(w) = it.next() {
        match w {
            "multipv" => k = it.next()?.parse().ok()?,
            "score" => {
                let kind = it.next()?;
                let v: i32 = it.next()?.parse().ok()?;
                score = Some(match kind {
                    "cp" => Score::Cp(v),
                    "mate" => Score::Mate(v),
                    _ => return None,
                });
            }
            "lowerbound" | "upperbound" => bound = true,
            "pv" => {
                mv = Some(it.next()?.to_string());
                break;
            }
            _ => {}
        }
    }
    Some((
        k,
        Line {
            mv: mv?,
            score: score?,
        },
        bound,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_info_lines() {
        let l = "info depth 8 seldepth 10 multipv 2 score cp -35 nodes 5012 nps 1 tbhits 0 time 3 pv d7d5 e4d5";
        assert_eq!(
            parse_info(l),
            Some((
                2,
                Line {
                    mv: "d7d5".into(),
                    score: Score::Cp(-35)
                },
                false
            ))
        );
        let m = "info depth 3 seldepth 2 multipv 1 score mate -1 nodes 3 pv g8h8";
        assert_eq!(
            parse_info(m).map(|(_, l, _)| l.score),
            Some(Score::Mate(-1))
        );
        assert_eq!(
            parse_info("info depth 9 score cp 10 lowerbound pv e2e4").map(|(_, l, b)| (l.score, b)),
            Some((Score::Cp(10), true))
        );
        assert_eq!(parse_info("info string NNUE evaluation enabled"), None);
    }

    #[test]
    fn win_percent_is_lichess_formula() {
        assert!((win_percent(0.0) - 50.0).abs() < 1e-12);
        assert!((win_percent(100.0) - 59.1).abs() < 0.05);
        assert!((win_percent(-300.0) + win_percent(300.0) - 100.0).abs() < 1e-9);
        assert_eq!(win_percent(5000.0), win_percent(1000.0));
        assert_eq!(Score::Mate(3).capped_cp(), 1000.0);
        assert_eq!(Score::Mate(-2).capped_cp(), -1000.0);
    }
}
