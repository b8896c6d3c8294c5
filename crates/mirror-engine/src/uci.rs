//! The UCI protocol, so any chess GUI or match runner can play the mirror.
//!
//! Supported: `uci`, `isready`, `ucinewgame`, `setoption` (Player, Seed, Policy, Tiers,
//! MinGames),
//! `position startpos|fen ... [moves ...]`, `go` with any time control (the mirror answers
//! at once; with `infinite` or `ponder` it waits for `stop`), `stop`, `ponderhit`, `quit`.
//! Errors are reported as `info string error: ...` and the engine keeps going.

use std::io::{self, BufRead, Write};

use mirror_core::sampler::Tiers;
use mirror_store::GraphStore;
use shakmaty::{Chess, Position};

use crate::{
    engine::{Engine, EngineError, Fallback},
    notation,
};

fn parse_position(args: &[&str]) -> Result<Chess, String> {
    let (mut pos, rest) = match args.first() {
        Some(&"startpos") => (Chess::default(), &args[1..]),
        Some(&"fen") => {
            let end = args
                .iter()
                .position(|a| *a == "moves")
                .unwrap_or(args.len());
            let fen = args[1..end].join(" ");
            (notation::parse_fen(&fen)?, &args[end..])
        }
        _ => return Err("position needs startpos or fen".into()),
    };
    if let Some((&"moves", moves)) = rest.split_first() {
        for (i, text) in moves.iter().enumerate() {
            let m = text
                .parse::<shakmaty::uci::UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .ok_or_else(|| format!("move {} ({text}) is not legal", i + 1))?;
            pos.play_unchecked(m);
        }
    } else if !rest.is_empty() {
        return Err(format!(
            "unexpected {:?} in position command",
            rest.join(" ")
        ));
    }
    Ok(pos)
}

/// Makes the fallback of a player's engine (their model, or a random legal move); an error
/// (a model that cannot be loaded) says why.
pub type FallbackFor<'a> = &'a dyn Fn(&str) -> Result<Box<dyn Fallback>, String>;

fn set_option<S: GraphStore>(
    engine: &mut Engine<S>,
    fallback_for: FallbackFor<'_>,
    args: &[&str],
) -> Result<(), String> {
    // setoption name <id...> [value <x...>]
    let name_at = args
        .iter()
        .position(|a| *a == "name")
        .ok_or("setoption needs a name")?;
    let value_at = args.iter().position(|a| *a == "value");
    let name = args[name_at + 1..value_at.unwrap_or(args.len())]
        .join(" ")
        .to_ascii_lowercase();
    let value = value_at
        .map(|v| args[v + 1..].join(" "))
        .unwrap_or_default();
    match name.as_str() {
        "player" => {
            if value.trim().is_empty() {
                return Err("Player needs a value".into());
            }
            // The new player's own model, not the previous player's; if it cannot be
            // loaded, nothing changes and the error is reported.
            let fallback = fallback_for(value.trim())?;
            engine.set_player(value.trim());
            engine.set_fallback(fallback);
        }
        "seed" => {
            let seed = value
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("Seed {value:?} is not a non-negative integer"))?;
            engine.set_seed(seed);
        }
        "tiers" => {
            let tiers: Tiers = value
                .parse()
                .map_err(|e: mirror_core::sampler::ParseTiersError| e.to_string())?;
            engine.set_tiers(tiers);
        }
        "policy" => {
            let policy: crate::engine::Policy = value
                .parse()
                .map_err(|e: crate::engine::ParsePolicyError| e.to_string())?;
            engine.set_policy(policy);
        }
        "mingames" => {
            let n = value
                .trim()
                .parse::<u32>()
                .map_err(|_| format!("MinGames {value:?} is not a positive integer"))?;
            engine.set_min_games(n.max(1));
        }
        other => return Err(format!("unknown option {other:?}")),
    }
    Ok(())
}

/// Runs the UCI loop until `quit` or end of input. `fallback_for` gives the fallback of the
/// player `setoption name Player` switches to.
pub fn run<S: GraphStore, R: BufRead, W: Write>(
    engine: &mut Engine<S>,
    fallback_for: FallbackFor<'_>,
    input: R,
    out: &mut W,
) -> io::Result<()> {
    // `None` after a `position` command that failed: `go` must not answer for a position
    // it was not given.
    let mut pos: Option<Chess> = Some(Chess::default());
    let mut pending: Option<String> = None;
    for line in input.lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            continue;
        };
        match cmd {
            "uci" => {
                let o = engine.options();
                writeln!(
                    out,
                    "id name mirror {} ({})",
                    env!("CARGO_PKG_VERSION"),
                    engine.player()
                )?;
                writeln!(out, "id author the mirror developers")?;
                writeln!(
                    out,
                    "option name Player type string default {}",
                    engine.player()
                )?;
                writeln!(
                    out,
                    "option name Seed type spin default {} min 0 max 2147483647",
                    o.seed.min(2_147_483_647)
                )?;
                writeln!(out, "option name Policy type string default {}", o.policy)?;
                writeln!(out, "option name Tiers type string default {}", o.tiers)?;
                writeln!(
                    out,
                    "option name MinGames type spin default {} min 1 max 1000000",
                    o.min_games
                )?;
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "ucinewgame" => {
                pos = Some(Chess::default());
                pending = None;
            }
            "setoption" => {
                if let Err(e) = set_option(engine, fallback_for, args) {
                    writeln!(out, "info string error: {e}")?;
                }
            }
            "position" => match parse_position(args) {
                Ok(p) => pos = Some(p),
                Err(e) => {
                    pos = None;
                    writeln!(
                        out,
                        "info string error: {e}; send a valid position before go"
                    )?;
                }
            },
            "go" => {
                let best = match &pos {
                    None => {
                        writeln!(
                            out,
                            "info string error: no position to move in (the last position command failed)"
                        )?;
                        "0000".to_string()
                    }
                    Some(pos) => match engine.choose(pos) {
                        Ok(choice) => {
                            writeln!(out, "info string {}", choice.describe())?;
                            notation::uci(choice.mv)
                        }
                        Err(EngineError::NoLegalMoves(why)) => {
                            writeln!(out, "info string no legal moves ({why})")?;
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
                };
                if args.contains(&"infinite") || args.contains(&"ponder") {
                    pending = Some(best);
                } else {
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
    fn positions() {
        let p = parse_position(&["startpos", "moves", "e2e4", "e7e5"]).expect("ok");
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
        assert_eq!(f.turn(), shakmaty::Color::Black);
        assert!(
            parse_position(&["startpos", "moves", "e2e5"])
                .expect_err("illegal")
                .contains("e2e5")
        );
        assert!(parse_position(&["fen", "junk"]).is_err());
        assert!(parse_position(&[]).is_err());
    }
}
