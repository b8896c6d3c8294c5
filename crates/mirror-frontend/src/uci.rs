//! The UCI protocol, so any chess GUI or match runner can play the mirror.
//!
//! Supported: `uci`, `isready`, `ucinewgame`, `setoption` (Player, and every engine
//! option of [`mirror_engine::KNOBS`] in CamelCase: Policy, Tiers, MinGames, Seed,
//! RecentMonths, RecentWeight, Guard, GuardTop, GuardMargin, Sample, TimeClass, Rated, Since,
//! Until, OpponentRating, Sources, GameTimeClass, ContextWeight), `position startpos|fen ...
//! [moves ...]`, `go` with any time control (the mirror answers at once, or with
//! PlayerPace after the time the player would take, which `stop` or `quit` cuts short;
//! with `infinite` or `ponder` it waits for `stop`), `stop`, `ponderhit`, `quit`. Unless
//! GameTimeClass is set, the clock of a game's first `go` says the time class being
//! played. Errors are reported as `info string error: ...` and the engine keeps going.

use std::{
    collections::VecDeque,
    io::{self, BufRead, Write},
    sync::mpsc,
    time::{Duration, Instant},
};

use mirror_core::{TimeClass, clock::TimeModel, notation, time::Convention};
use mirror_engine::{
    Book, Engine, EngineError, Fallback, KNOBS, KnobKind, canonical_name,
    pace::{GoClock, pace},
};
use shakmaty::{Chess, Color, Move, Position};

/// The time class a `go` command's clock shows, with the seconds and increment it read:
/// the side to move's remaining time (at its first move, the game's base time) plus 40
/// increments, by Chess.com's convention; `None` without that side's clock.
fn class_from_clock(args: &[&str], turn: Color) -> Option<(TimeClass, u64, u64)> {
    let clock = go_clock(args, turn);
    let (base, inc) = (clock.left_ms? / 1000, clock.increment_ms / 1000);
    let class = TimeClass::from_time_control(&format!("{base}+{inc}"), Convention::ChessCom);
    Some((class, base, inc))
}

/// What a `go` command says about the side to move's time (milliseconds; negative values
/// read as 0).
fn go_clock(args: &[&str], turn: Color) -> GoClock {
    let ms = |key: &str| -> Option<u64> {
        let at = args.iter().position(|a| *a == key)?;
        let v: i64 = args.get(at + 1)?.parse().ok()?;
        Some(v.max(0).unsigned_abs())
    };
    let (time, inc) = match turn {
        Color::White => ("wtime", "winc"),
        Color::Black => ("btime", "binc"),
    };
    GoClock {
        base_ms: None,
        left_ms: ms(time),
        increment_ms: ms(inc).unwrap_or(0),
        movetime_ms: ms("movetime"),
    }
}

/// PlayerPace in a session: on or off, the player's time model once learned (per player),
/// and the clock the mirror's side had at its first move of the game.
#[derive(Debug, Default)]
struct PaceState {
    on: bool,
    model: Option<(String, Option<TimeModel>)>,
    base_ms: Option<u64>,
}

/// With PlayerPace on: waits as long as the player took here (the book's times, else
/// their time model, else a share of the clock; `mirror_engine::pace`), saying how long
/// and why; a `stop` ends the wait.
fn wait_at_pace<S: Book, W: Write>(
    engine: &Engine<S>,
    pos: &Chess,
    args: &[&str],
    state: &mut PaceState,
    lines: &mut Lines,
    out: &mut W,
) -> io::Result<()> {
    let mut clock = go_clock(args, pos.turn());
    if state.base_ms.is_none() || pos.fullmoves().get() == 1 {
        state.base_ms = clock.left_ms;
    }
    clock.base_ms = state.base_ms;
    let player = engine.player().to_string();
    if state.model.as_ref().is_none_or(|(p, _)| *p != player) {
        let model = match engine.time_model() {
            Ok(Some(m)) => {
                writeln!(
                    out,
                    "info string time model: {player}'s shares of the clock from {} timed moves",
                    m.moves()
                )?;
                Some(m)
            }
            Ok(None) => {
                writeln!(
                    out,
                    "info string no time model: the games are not read through mirror serve"
                )?;
                None
            }
            Err(e) => {
                writeln!(out, "info string error: no time model ({e})")?;
                None
            }
        };
        state.model = Some((player, model));
    }
    let model = state.model.as_ref().and_then(|(_, m)| m.as_ref());
    let ply = mirror_engine::pace::ply_of(pos);
    match engine.pace_stats(pos, clock) {
        Ok(stats) => {
            let p = pace(&stats, clock, model, ply);
            writeln!(out, "info string {p}")?;
            out.flush()?;
            lines.wait(p.wait, out)?;
        }
        Err(e) => writeln!(out, "info string error: no pace ({e}): answering now")?,
    }
    Ok(())
}

/// The position of a `position` command and the move into it, if the command gave one.
fn parse_position(args: &[&str]) -> Result<(Chess, Option<Move>), String> {
    let (mut pos, rest) = match args.first() {
        Some(&"startpos") => (Chess::default(), &args[1..]),
        Some(&"fen") => {
            let end = args
                .iter()
                .position(|a| *a == "moves")
                .unwrap_or(args.len());
            let fen = args[1..end].join(" ");
            (
                notation::parse_fen(&fen).map_err(|e| e.to_string())?,
                &args[end..],
            )
        }
        _ => return Err("position needs startpos or fen".into()),
    };
    let mut last = None;
    if let Some((&"moves", moves)) = rest.split_first() {
        for (i, text) in moves.iter().enumerate() {
            let m = text
                .parse::<shakmaty::uci::UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .ok_or_else(|| format!("move {} ({text}) is not legal", i + 1))?;
            pos.play_unchecked(m);
            last = Some(m);
        }
    } else if !rest.is_empty() {
        return Err(format!(
            "unexpected {:?} in position command",
            rest.join(" ")
        ));
    }
    Ok((pos, last))
}

/// Makes the fallback of a player's engine (their model, or a random legal move); an error
/// (a model that cannot be loaded) says why.
pub type FallbackFor<'a> = &'a dyn Fn(&str) -> Result<Box<dyn Fallback>, String>;

/// Sets an option; the engine option's canonical name (`None` for Player and
/// PlayerPace, which `player_pace` holds).
fn set_option<S: Book>(
    engine: &mut Engine<S>,
    fallback_for: FallbackFor<'_>,
    args: &[&str],
    player_pace: &mut bool,
) -> Result<Option<&'static str>, String> {
    // setoption name <id...> [value <x...>]
    let name_at = args
        .iter()
        .position(|a| *a == "name")
        .ok_or("setoption needs a name")?;
    // The value's keyword after the name (a "value" before the name, as in `setoption
    // value 5 name Seed`, is a malformed line, reported, not a panic).
    let value_at = args
        .iter()
        .skip(name_at + 1)
        .position(|a| *a == "value")
        .map(|i| i + name_at + 1);
    if args.iter().take(name_at).any(|a| *a == "value") {
        return Err("setoption: the value comes after the name (setoption name ID value X)".into());
    }
    let name = args[name_at + 1..value_at.unwrap_or(args.len())]
        .join(" ")
        .to_ascii_lowercase();
    let value = value_at
        .map(|v| args[v + 1..].join(" "))
        .unwrap_or_default();
    if name == "playerpace" {
        *player_pace = match value.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            other => return Err(format!("PlayerPace is true or false, not {other:?}")),
        };
        return Ok(None);
    }
    if name == "player" {
        if value.trim().is_empty() {
            return Err("Player needs a value".into());
        }
        // The new player's own model, not the previous player's; if it cannot be
        // loaded, nothing changes and the error is reported.
        let fallback = fallback_for(value.trim())?;
        engine.set_player(value.trim());
        engine.set_fallback(fallback);
        return Ok(None);
    }
    // Every other option is an engine option, checked as on the command line.
    let value = if value.trim() == "<empty>" {
        ""
    } else {
        &value
    };
    let mut opts = engine.options().clone();
    opts.set(&name, value).map_err(|e| e.to_string())?;
    let seed = opts.seed;
    engine.set_options(opts);
    let name = canonical_name(&name);
    if name == Some("seed") {
        // Setting the seed, even to the same value, restarts its random sequence.
        engine.set_seed(seed);
    }
    Ok(name)
}

/// The `uci` answer before `uciok`: the engine's name and author, its `option` lines
/// (Player, then every knob of
/// [`mirror_engine::KNOBS`] with its current value as default: the policy in force, with
/// the model's own weight the one it gives).
fn option_lines<S: Book>(engine: &Engine<S>) -> Vec<String> {
    let o = engine.options();
    let mut lines = vec![
        format!(
            "id name mirror {} ({})",
            env!("CARGO_PKG_VERSION"),
            engine.player()
        ),
        "id author the mirror developers".to_string(),
        format!("option name Player type string default {}", engine.player()),
        // Off unless asked: a GUI's game against the mirror at the player's pace.
        "option name PlayerPace type check default false".to_string(),
    ];
    for knob in KNOBS {
        let value = if knob.name == "policy" {
            engine.policy().to_string()
        } else {
            (knob.get)(o)
        };
        let kind = match knob.kind {
            // GUIs keep spins in 32 bits.
            KnobKind::Int { min, max } => {
                let max = max.min(2_147_483_647);
                let default = value.parse::<i64>().map_or(min, |v| v.clamp(min, max));
                format!("spin default {default} min {min} max {max}")
            }
            KnobKind::Bool => format!("check default {value}"),
            KnobKind::Choice(words) => format!(
                "combo default {value}{}",
                words
                    .iter()
                    .map(|w| format!(" var {w}"))
                    .collect::<String>()
            ),
            KnobKind::Text | KnobKind::Weight if value.is_empty() => {
                "string default <empty>".to_string()
            }
            KnobKind::Text | KnobKind::Weight => format!("string default {value}"),
        };
        lines.push(format!("option name {} type {kind}", knob.uci_name()));
    }
    lines
}

/// The engine's move in `pos` (after `last`) as `bestmove` gives it, its source said in
/// an `info string`: `0000` without a position or a legal move; after an engine error, a
/// legal move still (the GUI's game goes on).
fn best_move<S: Book, W: Write>(
    engine: &mut Engine<S>,
    pos: Option<&Chess>,
    last: Option<Move>,
    out: &mut W,
) -> io::Result<String> {
    Ok(match pos {
        None => {
            writeln!(
                out,
                "info string error: no position to move in (the last position command failed)"
            )?;
            "0000".to_string()
        }
        Some(pos) => match engine.choose_after(pos, last) {
            Ok(choice) => {
                writeln!(out, "info string {}", choice.describe())?;
                notation::uci(choice.mv)
            }
            Err(e @ EngineError::NoLegalMoves { .. }) => {
                writeln!(out, "info string {e}")?;
                "0000".to_string()
            }
            Err(e) => {
                writeln!(out, "info string error: {e}")?;
                // Still answer with a legal move so the GUI's game goes on.
                pos.legal_moves()
                    .first()
                    .map_or("0000".to_string(), |m| notation::uci(*m))
            }
        },
    })
}

/// The GUI's lines, read by a thread of their own (so that a wait at the player's pace
/// hears `stop` as it comes), and those read during a wait, kept for after it.
struct Lines {
    incoming: mpsc::Receiver<io::Result<String>>,
    held: VecDeque<String>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Lines {
    /// Stops listening and waits a moment for the reader: an input that has ended (a
    /// piped session) lets it finish, and it is joined; a GUI's input that stays open
    /// keeps it reading, and the session does not wait for it.
    fn drop(&mut self) {
        self.incoming = mpsc::channel().1;
        if let Some(reader) = self.reader.take() {
            let until = Instant::now() + Duration::from_millis(50);
            while !reader.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            if reader.is_finished() {
                // The reader never panics: it only reads and sends.
                let _ = reader.join();
            }
        }
    }
}

/// What the reader puts before a line that is not UTF-8 (shown escaped after it): no UCI
/// command starts so, and a person cannot type it by accident.
const NOT_UTF8: &str = "\u{fffd}not-utf-8\u{fffd}";

impl Lines {
    fn new<R: BufRead + Send + 'static>(input: R) -> Lines {
        let (tx, incoming) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut input = input;
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                let line = match input.read_until(b'\n', &mut bytes) {
                    Ok(0) => break,
                    Ok(_) => {
                        while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                            bytes.pop();
                        }
                        // A line that is not UTF-8 is answered with an error, not an exit.
                        Ok(String::from_utf8(bytes.clone()).unwrap_or_else(|e| {
                            format!(
                                "{NOT_UTF8} {}",
                                String::from_utf8_lossy(e.as_bytes()).escape_debug()
                            )
                        }))
                    }
                    Err(e) => Err(e),
                };
                let failed = line.is_err();
                if tx.send(line).is_err() || failed {
                    break;
                }
            }
        });
        Lines {
            incoming,
            held: VecDeque::new(),
            reader: Some(reader),
        }
    }

    /// The next line; `None` at the end of input.
    fn next(&mut self) -> Option<io::Result<String>> {
        match self.held.pop_front() {
            Some(line) => Some(Ok(line)),
            None => self.incoming.recv().ok(),
        }
    }

    /// Waits `wait` unless `stop` (or `quit`, kept) comes first; answers `isready` at
    /// once (a GUI may ask while the engine thinks) and keeps the other lines for later.
    fn wait<W: Write>(&mut self, wait: Duration, out: &mut W) -> io::Result<()> {
        let end = Instant::now() + wait;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            match self.incoming.recv_timeout(left) {
                Ok(line) => {
                    let line = line?;
                    match line.split_whitespace().next() {
                        Some("stop") => return writeln!(out, "info string pace: stopped"),
                        Some("isready") => {
                            writeln!(out, "readyok")?;
                            out.flush()?;
                        }
                        Some("quit") => {
                            self.held.push_back(line);
                            return Ok(());
                        }
                        _ => self.held.push_back(line),
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => return Ok(()),
                // The input ended (a piped session): the wait still runs its course.
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(left);
                    return Ok(());
                }
            }
        }
    }
}

/// Runs the UCI loop until `quit` or end of input. `fallback_for` gives the fallback of the
/// player `setoption name Player` switches to. The input is read by a thread of its own.
pub fn run<S: Book, R: BufRead + Send + 'static, W: Write>(
    engine: &mut Engine<S>,
    fallback_for: FallbackFor<'_>,
    input: R,
    out: &mut W,
) -> io::Result<()> {
    let mut lines = Lines::new(input);
    // `None` after a `position` command that failed: `go` must not answer for a position
    // it was not given.
    let mut pos: Option<Chess> = Some(Chess::default());
    // The move into `pos`, when the position command named it (the model reads it).
    let mut last: Option<Move> = None;
    let mut pending: Option<String> = None;
    // The time class being played: GameTimeClass when set, else read from the clock of the
    // game's first `go` (`clock_read`).
    let mut class_by_option = engine.options().game_time_class.is_some();
    let mut clock_read = false;
    let mut pace = PaceState::default();
    while let Some(line) = lines.next() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            continue;
        };
        match cmd {
            "uci" => {
                for line in option_lines(engine) {
                    writeln!(out, "{line}")?;
                }
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "ucinewgame" => {
                pos = Some(Chess::default());
                last = None;
                pending = None;
                clock_read = false;
                pace.base_ms = None;
            }
            "setoption" => match set_option(engine, fallback_for, args, &mut pace.on) {
                Ok(Some("game_time_class")) => {
                    class_by_option = engine.options().game_time_class.is_some();
                }
                Ok(_) => {}
                Err(e) => writeln!(out, "info string error: {e}")?,
            },
            "position" => match parse_position(args) {
                Ok((p, m)) => {
                    pos = Some(p);
                    last = m;
                }
                Err(e) => {
                    pos = None;
                    writeln!(
                        out,
                        "info string error: {e}; send a valid position before go"
                    )?;
                }
            },
            "go" => {
                // A game's first move (a GUI need not send ucinewgame between games).
                if let Some(p) = &pos
                    && !class_by_option
                    && (!clock_read || p.fullmoves().get() == 1)
                    && let Some((class, base, inc)) = class_from_clock(args, p.turn())
                {
                    if engine.options().game_time_class != Some(class) {
                        writeln!(
                            out,
                            "info string playing {class} (the clock: {base} s + {inc} s a move)"
                        )?;
                    }
                    engine.set_game_time_class(Some(class));
                    clock_read = true;
                }
                let best = best_move(engine, pos.as_ref(), last, out)?;
                if args.contains(&"infinite") || args.contains(&"ponder") {
                    pending = Some(best);
                } else {
                    if pace.on
                        && let Some(p) = &pos
                    {
                        wait_at_pace(engine, p, args, &mut pace, &mut lines, out)?;
                    }
                    writeln!(out, "bestmove {best}")?;
                }
            }
            "stop" | "ponderhit" => {
                if let Some(best) = pending.take() {
                    writeln!(out, "bestmove {best}")?;
                }
            }
            "quit" => {
                out.flush()?;
                return Ok(());
            }
            "debug" | "register" => {}
            NOT_UTF8 => writeln!(
                out,
                "info string error: a line that is not UTF-8 was ignored: {}",
                args.join(" ")
            )?,
            other => writeln!(out, "info string unknown command {other:?}")?,
        }
        out.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_option_has_a_uci_name_that_maps_back() {
        for knob in KNOBS {
            assert_eq!(
                canonical_name(&knob.uci_name()),
                Some(knob.name),
                "{}",
                knob.name
            );
        }
        assert_eq!(
            mirror_engine::knob("min_games")
                .map(|k| k.uci_name())
                .as_deref(),
            Some("MinGames")
        );
        assert_eq!(
            mirror_engine::knob("time_class")
                .map(|k| k.http_name())
                .as_deref(),
            Some("timeClass")
        );
    }

    /// `setoption value 5 name Seed` sliced backwards and killed the engine: every
    /// malformed setoption line is an error to report, and a good one still works.
    #[test]
    fn malformed_setoption_lines_are_errors_not_panics() {
        let mut engine = Engine::new(
            crate::test_support::NoBook,
            "alice",
            mirror_engine::EngineOptions::default(),
        );
        let no_fallback: FallbackFor<'_> = &|name| Err(format!("no model for {name}"));
        for line in [
            "value 5 name Seed",
            "value name Seed",
            "name",
            "name value",
            "value",
            "",
            "name Seed value",
            "name Seed value value",
            "name Player",
            "name Player value alice",
            "name Nonsense value 3",
        ] {
            let args: Vec<&str> = line.split_whitespace().collect();
            let got = set_option(&mut engine, no_fallback, &args, &mut false);
            assert!(got.is_err(), "{line:?}: {got:?}");
        }
        let err = set_option(
            &mut engine,
            no_fallback,
            &["value", "5", "name", "Seed"],
            &mut false,
        )
        .expect_err("value before name");
        assert!(err.contains("after the name"), "{err}");
        assert_eq!(
            set_option(
                &mut engine,
                no_fallback,
                &["name", "Seed", "value", "5"],
                &mut false
            ),
            Ok(Some("seed"))
        );
        assert_eq!(engine.options().seed, 5);
    }

    /// A line that is not UTF-8 gets an error line, and the session goes on.
    #[test]
    fn a_line_that_is_not_utf8_is_answered_and_the_session_goes_on() {
        let mut engine = Engine::new(
            crate::test_support::NoBook,
            "alice",
            mirror_engine::EngineOptions::default(),
        );
        let no_fallback: FallbackFor<'_> = &|name| Err(format!("no model for {name}"));
        let input: &[u8] = b"uci\nposition \xff\xfe startpos\nisready\nquit\n";
        let mut out = Vec::new();
        run(
            &mut engine,
            no_fallback,
            std::io::Cursor::new(input.to_vec()),
            &mut out,
        )
        .expect("the session ends with quit");
        let text = String::from_utf8(out).expect("utf-8 out");
        assert!(text.contains("uciok"), "{text}");
        let error = text
            .lines()
            .find(|l| l.starts_with("info string error: a line that is not UTF-8 was ignored: "))
            .unwrap_or_else(|| panic!("no error line: {text}"));
        assert!(
            error.contains("position") && error.ends_with("startpos"),
            "{error}"
        );
        assert!(text.contains("readyok"), "{text}");
    }

    #[test]
    fn positions() {
        let (p, last) = parse_position(&["startpos", "moves", "e2e4", "e7e5"]).expect("ok");
        assert_eq!(last.map(notation::uci).as_deref(), Some("e7e5"));
        assert_eq!(
            notation::fen(&p),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        let f = parse_position(&[
            "fen",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR",
            "w",
            "KQkq",
            "-",
            "0",
            "2",
            "moves",
            "g1f3",
        ])
        .expect("ok");
        assert_eq!(f.0.turn(), shakmaty::Color::Black);
        assert!(parse_position(&["startpos"]).expect("ok").1.is_none());
        assert!(
            parse_position(&["startpos", "moves", "e2e5"])
                .expect_err("illegal")
                .contains("e2e5")
        );
        assert!(parse_position(&["fen", "junk"]).is_err());
        assert!(parse_position(&[]).is_err());
    }
}
