//! `mirror play`: a game against the player's mirror in the terminal (or over pipes).

use std::{
    io::{self, BufRead, Write},
    time::{Duration, Instant},
};

use mirror_core::{MoveStats, PositionKey, clock::TimeModel, pgn_write::MoveNode};
use shakmaty::{Chess, Color, Move, Position};

use mirror_core::{
    notation::{self, MoveInputError},
    openings::{Opening, Openings},
    stats::FEW_GAMES,
};
use mirror_engine::{
    Book, Choice, Engine, EngineError, Source,
    pace::{GameClock, GoClock, pace},
};

use crate::board;

/// How the game is set up.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The colour the human plays.
    pub user_color: Color,
    /// Date for the PGN `Date` tag (`YYYY.MM.DD`).
    pub date: String,
    /// Moves from the start position played before the game begins (a line to practise,
    /// e.g. from `mirror prep`); they cannot be taken back.
    pub start: Vec<Move>,
    /// A clock for both sides (none: untimed).
    pub clock: Option<GameClock>,
    /// The mirror answers after the time the player would take (see
    /// [`mirror_engine::pace`]): the book's time there, else the player's share of the
    /// clock at that stage, within what the clock allows.
    pub pace: bool,
}

/// `H:MM:SS.t` of a clock, as PGN's `[%clk]` writes it.
fn clock_text(ms: u64) -> String {
    let tenths = ms / 100;
    format!(
        "{}:{:02}:{:02}.{}",
        tenths / 36_000,
        tenths / 600 % 60,
        tenths / 10 % 60,
        tenths % 10
    )
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'static str,
    /// Why, e.g. `checkmate`, `threefold repetition`, `White resigned`.
    pub reason: String,
}

/// A finished (or abandoned) game.
#[derive(Debug)]
pub struct PlayedGame {
    /// How it ended.
    pub ending: Ending,
    /// The game as PGN.
    pub pgn: String,
    /// Plies played.
    pub plies: usize,
    /// What stopped the game before its end, if anything did (the mirror's book could not
    /// be read, the terminal failed): the game so far is still here, unfinished, for the
    /// caller to save before it reports this.
    pub stopped_by: Option<io::Error>,
}

const HELP: &str = "\
Type a move in SAN (Nf3, exd5, O-O, e8=Q) or UCI (g1f3), or a command:
  help    this text
  undo    take back your last move (and the mirror's reply; not the time)
  flip    turn the board around
  hint    what your mirror would play here, and why
  book    the player's moves from this position with their results
  resign  give up the game
  pgn     print the game so far as PGN
  quit    stop (the game is saved as unfinished)";

struct Game {
    positions: Vec<Chess>,
    moves: Vec<Move>,
    sans: Vec<String>,
    /// The mover's clock after each move, when the game has a clock.
    clocks: Vec<Option<u64>>,
}

impl Game {
    fn pos(&self) -> &Chess {
        self.positions
            .last()
            .unwrap_or_else(|| unreachable!("never empty"))
    }

    fn push(&mut self, m: Move) {
        let pos = self.pos().clone();
        self.sans.push(notation::san_plus(&pos, m));
        let mut next = pos;
        next.play_unchecked(m);
        self.positions.push(next);
        self.moves.push(m);
        self.clocks.push(None);
    }

    fn pop(&mut self) {
        if self.moves.pop().is_some() {
            self.positions.pop();
            self.sans.pop();
            self.clocks.pop();
        }
    }

    /// The rules that end a game by themselves.
    fn ending(&self) -> Option<Ending> {
        let pos = self.pos();
        if pos.is_checkmate() {
            let result = match pos.turn() {
                Color::White => "0-1",
                Color::Black => "1-0",
            };
            return Some(Ending {
                result,
                reason: "checkmate".into(),
            });
        }
        let draw = |reason: &str| {
            Some(Ending {
                result: "1/2-1/2",
                reason: reason.into(),
            })
        };
        if pos.is_stalemate() {
            return draw("stalemate");
        }
        if pos.is_insufficient_material() {
            return draw("insufficient material");
        }
        let key = PositionKey::from_position(pos);
        let seen = self
            .positions
            .iter()
            .filter(|p| PositionKey::from_position(p) == key)
            .count();
        if seen >= 3 {
            return draw("threefold repetition");
        }
        if pos.halfmoves() >= 100 {
            return draw("fifty-move rule");
        }
        None
    }

    /// The opening: the last named position of the game so far.
    fn opening(&self) -> Option<&'static Opening> {
        Openings::builtin().along(&self.positions)
    }

    fn movetext(&self) -> String {
        let mut text = String::new();
        for (i, san) in self.sans.iter().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            }
            text.push_str(san);
            text.push(' ');
            if let Some(Some(ms)) = self.clocks.get(i) {
                text.push_str(&format!("{{[%clk {}]}} ", clock_text(*ms)));
            }
        }
        text
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn pgn(game: &Game, player: &str, opts: &PlayOptions, ending: &Ending) -> String {
    let mirror_name = format!("{player} (mirror)");
    let (white, black) = match opts.user_color {
        Color::White => ("You".to_string(), mirror_name),
        Color::Black => (mirror_name, "You".to_string()),
    };
    let opening = game.opening();
    let tags = [
        ("Event", "mirror play".to_string()),
        ("Site", "mirror".to_string()),
        ("Date", opts.date.clone()),
        ("Round", "-".to_string()),
        ("White", white),
        ("Black", black),
        ("Result", ending.result.to_string()),
        ("Termination", ending.reason.clone()),
        ("PlyCount", game.moves.len().to_string()),
        ("ECO", opening.map_or("?".into(), |o| o.eco.clone())),
        ("Opening", opening.map_or("?".into(), |o| o.name.clone())),
        (
            "TimeControl",
            opts.clock.map_or("-".into(), |c| {
                format!("{}+{}", c.base_ms / 1000, c.increment_ms / 1000)
            }),
        ),
    ];
    // The moves as one line, each with its clock.
    let line = game
        .sans
        .iter()
        .enumerate()
        .rev()
        .fold(Vec::new(), |after, (i, san)| {
            vec![MoveNode {
                san: san.clone(),
                comment: game
                    .clocks
                    .get(i)
                    .copied()
                    .flatten()
                    .map(|ms| format!("[%clk {}]", clock_text(ms))),
                children: after,
            }]
        });
    let mut text = mirror_core::pgn_write::game(&tags, &line, ending.result);
    // One newline at the end, as before (the writer separates games by a blank line).
    text.pop();
    text
}

/// The player's moves with their statistics and the probability the mirror plays each.
fn book_table(pos: &Chess, rows: &[(Move, MoveStats, f64)]) -> String {
    if rows.is_empty() {
        return "the player never reached this position with this side to move".into();
    }
    let mut out = format!(
        "{:<8} {:>6} {:>6} {:>6} {:>6} {:>18} {:>6} {:>6}\n",
        "move", "games", "win%", "draw%", "loss%", "score% (95%)", "perf", "p"
    );
    for (m, s, p) in rows {
        let g = f64::from(s.games().max(1));
        let score = s.score_interval().map_or("-".into(), |i| {
            format!(
                "{}{:.1} [{:.0}-{:.0}]",
                if s.games() < FEW_GAMES { "?" } else { "" },
                100.0 * i.score,
                100.0 * i.low,
                100.0 * i.high
            )
        });
        out.push_str(&format!(
            "{:<8} {:>6} {:>6.1} {:>6.1} {:>6.1} {:>18} {:>6} {:>6.2}\n",
            notation::san(pos, *m),
            s.games(),
            100.0 * f64::from(s.wins) / g,
            100.0 * f64::from(s.draws) / g,
            100.0 * f64::from(s.losses) / g,
            score,
            s.performance().map_or("-".into(), |v| v.to_string()),
            p
        ));
    }
    if rows.iter().any(|(_, s, _)| s.games() < FEW_GAMES) {
        out.push_str(&format!(
            "? fewer than {FEW_GAMES} games: the score means little (see its interval)\n"
        ));
    }
    out
}

/// The player's moves behind a choice, with the probability the mirror plays each (0 for
/// every book move when the fallback answers).
fn book_rows(choice: &Choice) -> Vec<(Move, MoveStats, f64)> {
    match &choice.source {
        Source::Book { candidates, .. } => candidates.clone(),
        Source::Fallback { rejected, .. } => rejected.iter().map(|(m, s)| (*m, *s, 0.0)).collect(),
        Source::Endgame { .. } => Vec::new(),
    }
}

fn engine_err(e: EngineError) -> io::Error {
    io::Error::other(e.to_string())
}

/// What a typed command does to the game loop.
enum Step {
    /// Ask for the next command (or let the mirror move).
    Next,
    /// The game is over.
    End(Ending),
}

/// One game at the terminal: the engine, the game so far, and what is shown.
struct Session<'a, S, W> {
    engine: &'a mut Engine<S>,
    out: &'a mut W,
    opts: &'a PlayOptions,
    player: String,
    game: Game,
    /// The side the board is drawn from.
    side: Color,
    show_board: bool,
    /// Each side's clock left (White, Black), with a clock.
    clocks: Option<[u64; 2]>,
    /// When the person's clock started running this turn.
    thinking_since: Option<Instant>,
    /// The player's time model, with `pace`.
    model: Option<TimeModel>,
    /// A side ran out of time.
    flagged: Option<Ending>,
}

/// The index of a side's clock.
fn side_index(c: Color) -> usize {
    usize::from(c == Color::Black)
}

impl<S: Book, W: Write> Session<'_, S, W> {
    fn mirror_color(&self) -> Color {
        !self.opts.user_color
    }

    /// Takes `spent` off `color`'s clock and adds the increment; a side whose time runs
    /// out loses (draws when the other side cannot mate).
    fn spend(&mut self, color: Color, spent: Duration) {
        let (Some(clocks), Some(clock)) = (self.clocks.as_mut(), self.opts.clock) else {
            return;
        };
        let left = &mut clocks[side_index(color)];
        let ms = u64::try_from(spent.as_millis()).unwrap_or(u64::MAX);
        if ms < *left {
            *left = *left - ms + clock.increment_ms;
            return;
        }
        *left = 0;
        let (result, reason) = if self.game.pos().has_insufficient_material(!color) {
            (
                "1/2-1/2",
                format!(
                    "{} ran out of time; the other side cannot mate",
                    color_name(color)
                ),
            )
        } else {
            (
                if color == Color::White { "0-1" } else { "1-0" },
                format!("{} ran out of time", color_name(color)),
            )
        };
        self.flagged = Some(Ending { result, reason });
    }

    /// A move of `color` that took `spent`: off the clock, then played (its clock kept
    /// for the PGN's `[%clk]`); not played when the flag fell first.
    fn played(&mut self, m: Move, color: Color, spent: Duration) {
        self.spend(color, spent);
        if self.flagged.is_some() {
            return;
        }
        self.game.push(m);
        if let (Some(last), Some(clocks)) = (self.game.clocks.last_mut(), self.clocks) {
            *last = Some(clocks[side_index(color)]);
        }
    }

    /// How long the player would take here ([`mirror_engine::pace`]).
    fn pace_here(&self, pos: &Chess) -> io::Result<mirror_engine::pace::Pace> {
        let clock = GoClock::of_game(
            self.opts.clock,
            self.clocks.map(|c| c[side_index(pos.turn())]),
        );
        let stats = self.engine.pace_stats(pos, clock).map_err(engine_err)?;
        Ok(pace(
            &stats,
            clock,
            self.model.as_ref(),
            self.game.moves.len(),
        ))
    }

    /// The mirror's move, announced (after the player's time there, with `pace`).
    fn mirror_moves(&mut self) -> io::Result<()> {
        let pos = self.game.pos().clone();
        let started = Instant::now();
        let choice = self
            .engine
            .choose_after(&pos, self.game.moves.last().copied())
            .map_err(engine_err)?;
        if self.opts.pace {
            let p = self.pace_here(&pos)?;
            writeln!(self.out, "(the mirror thinks: {p})")?;
            self.out.flush()?;
            std::thread::sleep(p.wait.saturating_sub(started.elapsed()));
        }
        let spent = started.elapsed();
        let number = self.game.moves.len() / 2 + 1;
        let dots = if self.mirror_color() == Color::White {
            "."
        } else {
            "..."
        };
        writeln!(
            self.out,
            "mirror plays {number}{dots} {}   {}   [{}]",
            notation::san_plus(&pos, choice.mv),
            choice.in_words(&self.player),
            choice.describe()
        )?;
        self.played(choice.mv, pos.turn(), spent);
        self.show_board = true;
        Ok(())
    }

    /// The board (when it changed) and the prompt.
    fn prompt(&mut self) -> io::Result<()> {
        if self.show_board {
            let board = board::render(self.game.pos(), self.side, self.game.moves.last());
            writeln!(self.out, "{board}")?;
            if let Some(o) = self.game.opening() {
                writeln!(self.out, "opening: {} {}", o.eco, o.name)?;
            }
            self.show_board = false;
        }
        if self.thinking_since.is_none() {
            self.thinking_since = Some(Instant::now());
        }
        match self.clocks {
            Some(c) => {
                let (you, mirror) = (
                    c[side_index(self.opts.user_color)],
                    c[side_index(self.mirror_color())],
                );
                write!(
                    self.out,
                    "your move (you {}, mirror {})> ",
                    clock_text(you),
                    clock_text(mirror)
                )?;
            }
            None => write!(self.out, "your move> ")?,
        }
        self.out.flush()
    }

    /// What the mirror would play here, without playing it.
    fn peek(&mut self) -> io::Result<(Chess, Choice)> {
        let pos = self.game.pos().clone();
        let choice = self
            .engine
            .peek_after(&pos, self.game.moves.last().copied())
            .map_err(engine_err)?;
        Ok((pos, choice))
    }

    /// Takes back the user's last move and the mirror's reply (never the given line).
    fn undo(&mut self) -> io::Result<()> {
        // The user's last move after the given line, and the mirror's reply after it.
        let given = self.opts.start.len();
        let user = self.opts.user_color;
        let last = (given..self.game.moves.len())
            .rev()
            .find(|&i| self.game.positions[i].turn() == user);
        let Some(last) = last else {
            return writeln!(self.out, "nothing to undo");
        };
        while self.game.moves.len() > last {
            self.game.pop();
        }
        writeln!(
            self.out,
            "took back; {} moves played",
            self.game.moves.len()
        )?;
        self.show_board = true;
        Ok(())
    }

    /// The moves until the game ends: the mirror's, and the person's from `input`.
    fn moves(&mut self, input: &mut impl BufRead) -> io::Result<Ending> {
        loop {
            if let Some(end) = self.flagged.take().or_else(|| self.game.ending()) {
                return Ok(end);
            }
            if self.game.pos().turn() == self.mirror_color() {
                self.mirror_moves()?;
                continue;
            }
            self.prompt()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(self.out)?;
                return Ok(Ending {
                    result: "*",
                    reason: "unfinished (input ended)".into(),
                });
            }
            if let Step::End(ending) = self.command(line.trim())? {
                return Ok(ending);
            }
        }
    }

    /// One typed line.
    fn command(&mut self, cmd: &str) -> io::Result<Step> {
        let player = self.player.clone();
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => writeln!(self.out, "{HELP}")?,
            "quit" | "exit" => {
                return Ok(Step::End(Ending {
                    result: "*",
                    reason: "unfinished (quit)".into(),
                }));
            }
            "resign" => {
                let user = self.opts.user_color;
                return Ok(Step::End(Ending {
                    result: if user == Color::White { "0-1" } else { "1-0" },
                    reason: format!("{} resigned", color_name(user)),
                }));
            }
            "flip" => {
                self.side = !self.side;
                self.show_board = true;
            }
            "pgn" => {
                let so_far = Ending {
                    result: "*",
                    reason: "in progress".into(),
                };
                writeln!(self.out, "{}", pgn(&self.game, &player, self.opts, &so_far))?;
            }
            "undo" => self.undo()?,
            "hint" => {
                // Exactly what the mirror would play here, with its options and seed.
                let (pos, choice) = self.peek()?;
                writeln!(
                    self.out,
                    "{player}'s mirror would play {} here   [{}]",
                    notation::san(&pos, choice.mv),
                    choice.describe()
                )?;
                if matches!(choice.source, Source::Book { .. }) {
                    write!(self.out, "{}", book_table(&pos, &book_rows(&choice)))?;
                }
            }
            "book" => {
                let (pos, choice) = self.peek()?;
                writeln!(
                    self.out,
                    "{player}'s moves here as {} (win/draw/loss from {player}'s side; p: how \
                     likely the mirror plays each):",
                    color_name(pos.turn())
                )?;
                write!(self.out, "{}", book_table(&pos, &book_rows(&choice)))?;
            }
            _ => match notation::parse_move(self.game.pos(), cmd) {
                Ok(m) => {
                    let spent = self
                        .thinking_since
                        .take()
                        .map_or(Duration::ZERO, |t| t.elapsed());
                    self.played(m, self.opts.user_color, spent);
                }
                Err(e) => {
                    let hint = match e {
                        MoveInputError::Unreadable(_) => " (type help for commands)",
                        _ => "",
                    };
                    writeln!(self.out, "{e}{hint}")?;
                }
            },
        }
        Ok(Step::Next)
    }
}

/// Plays one game: the human moves by typing into `input`, the mirror answers. Returns
/// the game (the caller saves its PGN). End of input stops the game as unfinished.
pub fn play<S: Book, R: BufRead, W: Write>(
    engine: &mut Engine<S>,
    mut input: R,
    out: &mut W,
    opts: &PlayOptions,
) -> io::Result<PlayedGame> {
    let player = engine.player().to_string();
    writeln!(
        out,
        "You play {} against {player}'s mirror. Type help for commands.",
        color_name(opts.user_color)
    )?;
    let mut s = Session {
        engine,
        out,
        opts,
        player,
        game: Game {
            positions: vec![Chess::default()],
            moves: Vec::new(),
            sans: Vec::new(),
            clocks: Vec::new(),
        },
        side: opts.user_color,
        show_board: true,
        clocks: opts.clock.map(|c| [c.base_ms; 2]),
        thinking_since: None,
        model: None,
        flagged: None,
    };
    if opts.pace {
        let player = &s.player;
        s.model = match s.engine.time_model() {
            Ok(Some(m)) => {
                writeln!(
                    s.out,
                    "(pace: the mirror takes the time {player} took in each position, else {player}'s usual share of the clock, from {} timed moves)",
                    mirror_core::notation::thousands(u64::from(m.moves()))
                )?;
                Some(m)
            }
            Ok(None) => {
                writeln!(
                    s.out,
                    "(pace: the time {player} took in each position; no time model where they have none: the games are not read through mirror serve)"
                )?;
                None
            }
            Err(e) => {
                writeln!(s.out, "(pace: no time model: {e})")?;
                None
            }
        };
    }
    for &m in &opts.start {
        s.game.push(m);
    }
    if !opts.start.is_empty() {
        writeln!(s.out, "from {}", s.game.movetext().trim_end())?;
    }
    let (ending, mut stopped_by) = match s.moves(&mut input) {
        Ok(ending) => (ending, None),
        Err(e) => (
            Ending {
                result: "*",
                reason: "unfinished (stopped by an error)".into(),
            },
            Some(e),
        ),
    };
    // The game is returned whatever the terminal does now, so that it can be saved.
    let text = pgn(&s.game, &s.player, opts, &ending);
    let board = board::render(s.game.pos(), s.side, s.game.moves.last());
    let shown = writeln!(s.out, "{board}")
        .and_then(|()| writeln!(s.out, "game over: {} ({})", ending.result, ending.reason));
    if let Err(e) = shown {
        stopped_by.get_or_insert(e);
    }
    Ok(PlayedGame {
        plies: s.game.moves.len(),
        pgn: text,
        ending,
        stopped_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game_after(moves: &[&str]) -> Game {
        let mut g = Game {
            positions: vec![Chess::default()],
            moves: Vec::new(),
            sans: Vec::new(),
            clocks: Vec::new(),
        };
        for m in moves {
            let mv = notation::parse_move(g.pos(), m).expect("legal");
            g.push(mv);
        }
        g
    }

    #[test]
    fn endings() {
        let mate = game_after(&["f3", "e5", "g4", "Qh4"]);
        assert_eq!(
            mate.ending(),
            Some(Ending {
                result: "0-1",
                reason: "checkmate".into()
            })
        );
        let rep = game_after(&["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]);
        assert_eq!(
            rep.ending().map(|e| e.reason),
            Some("threefold repetition".into())
        );
        let not_yet = game_after(&["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
        assert_eq!(not_yet.ending(), None);
        assert_eq!(mate.sans.last().map(String::as_str), Some("Qh4#"));
    }

    /// A game with a clock saves `TimeControl` and each move's `[%clk]`, which the PGN
    /// reader turns back into the moves' times.
    #[test]
    fn a_clocked_game_saves_its_clocks() {
        let mut g = game_after(&["e4", "e5", "Nf3", "Nc6"]);
        g.clocks = vec![Some(59_000), Some(60_500), Some(57_000), Some(58_050)];
        let opts = PlayOptions {
            start: Vec::new(),
            user_color: Color::White,
            date: "2026.12.05".into(),
            clock: Some("60+1".parse().expect("a clock")),
            pace: true,
        };
        let text = pgn(
            &g,
            "Biskupstunga",
            &opts,
            &Ending {
                result: "1-0",
                reason: "Black resigned".into(),
            },
        );
        assert!(text.contains("[TimeControl \"60+1\"]"), "{text}");
        assert!(
            text.contains("1. e4 {[%clk 0:00:59.0]} 1... e5 {[%clk 0:01:00.5]}"),
            "{text}"
        );
        let decoded = mirror_core::pgn::read_games(text.as_bytes())
            .next()
            .expect("one")
            .expect("io")
            .1;
        let mirror_core::pgn::Decoded::Game(game) = decoded else {
            panic!("{decoded:?}");
        };
        let spent: Vec<u32> = game.times.iter().flatten().map(|t| t.spent_ms).collect();
        // The clock is written in tenths (58.05 s shows 58.0, as a clock does).
        assert_eq!(spent, [2_000, 500, 3_000, 3_500]);
        assert!("5:00".parse::<GameClock>().is_err());
        assert_eq!(clock_text(3_723_400), "1:02:03.4");
    }

    /// Input that comes after a pause: a person who thinks.
    struct Pause(Option<&'static [u8]>, Duration);

    impl io::Read for Pause {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some(bytes) = self.0.take() else {
                return Ok(0);
            };
            std::thread::sleep(self.1);
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        }
    }

    /// With a one-second clock, a move typed after 1.2 s comes too late: White lost on
    /// time, the move is not played, and the game says so.
    #[test]
    fn a_side_whose_time_runs_out_loses() {
        let mut engine = Engine::new(
            crate::test_support::NoBook,
            "alice",
            mirror_engine::EngineOptions::default(),
        );
        let opts = PlayOptions {
            user_color: Color::White,
            date: "2026.12.05".into(),
            start: Vec::new(),
            clock: Some("1+0".parse().expect("a clock")),
            pace: false,
        };
        let input = io::BufReader::new(Pause(Some(b"e4\n"), Duration::from_millis(1200)));
        let mut out = Vec::new();
        let game = play(&mut engine, input, &mut out, &opts).expect("a game");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(
            text.contains("your move (you 0:00:01.0, mirror 0:00:01.0)> "),
            "{text}"
        );
        assert_eq!(
            game.ending,
            Ending {
                result: "0-1",
                reason: "White ran out of time".into()
            }
        );
        assert_eq!(game.plies, 0);
        assert!(game.pgn.contains("[TimeControl \"1+0\"]"), "{}", game.pgn);
    }

    fn game_from(fen: &str) -> Game {
        Game {
            positions: vec![notation::parse_fen(fen).expect("fen")],
            moves: Vec::new(),
            sans: Vec::new(),
            clocks: Vec::new(),
        }
    }

    #[test]
    fn draws_by_rule() {
        let stalemate = game_from("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(
            stalemate.ending().map(|e| e.reason),
            Some("stalemate".into())
        );
        let bare = game_from("7k/8/6K1/8/8/8/8/8 w - - 0 1");
        assert_eq!(
            bare.ending().map(|e| e.reason),
            Some("insufficient material".into())
        );
        let fifty = game_from("7k/8/6K1/8/8/8/8/R7 w - - 100 80");
        assert_eq!(
            fifty.ending().map(|e| e.reason),
            Some("fifty-move rule".into())
        );
        let not_yet = game_from("7k/8/6K1/8/8/8/8/R7 w - - 99 80");
        assert_eq!(not_yet.ending(), None);
        // Mate on the move that reaches 100 half-moves is still mate.
        let mate = game_from("7k/R7/6K1/8/8/8/8/8 w - - 99 80");
        let mut g = mate;
        let m = notation::parse_move(g.pos(), "Ra8").expect("mate");
        g.push(m);
        assert_eq!(g.ending().map(|e| e.result), Some("1-0"));
    }

    #[test]
    fn pgn_reads_back() {
        let g = game_after(&["e4", "e5", "Nf3", "Nc6"]);
        let opts = PlayOptions {
            start: Vec::new(),
            user_color: Color::White,
            date: "2026.11.29".into(),
            clock: None,
            pace: false,
        };
        let text = pgn(
            &g,
            "Biskupstunga",
            &opts,
            &Ending {
                result: "*",
                reason: "unfinished (quit)".into(),
            },
        );
        assert!(text.contains("[Black \"Biskupstunga (mirror)\"]"), "{text}");
        assert!(text.contains("1. e4 e5 2. Nf3 Nc6 *"), "{text}");
        let decoded = mirror_core::pgn::read_games(text.as_bytes())
            .next()
            .expect("one")
            .expect("io")
            .1;
        // Unfinished games are skipped by the ingester; the moves were read.
        assert_eq!(
            decoded,
            mirror_core::pgn::Decoded::Skipped(mirror_core::pgn::SkipReason::Unfinished)
        );
    }
}
