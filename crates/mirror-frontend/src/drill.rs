//! `mirror drill` in the terminal: each card's board as `mirror play` draws it, the line
//! that leads there in SAN, why the card exists, a move typed in SAN (or UCI), the verdict
//! with how the player's games went with each move, the other side's reply as their
//! opponents played it, and a summary at the end. No undo: an answer is recorded as given.

use std::{
    io::{self, BufRead, Write},
    time::Instant,
};

use mirror_core::notation;
use mirror_drill::{Card, DrillError, Listing, MoveResult, Session, Summary, Verdict, Why};
use mirror_store::{Drills, GraphRead};
use shakmaty::{Chess, Color, Position};

use crate::board;

fn io_err(e: DrillError) -> io::Error {
    io::Error::other(e)
}

/// The card's line from the start in SAN, numbered ("1. e4 c6 2. Nf3").
pub fn line_san(card: &Card) -> String {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for uci in &card.line {
        let Ok(m) = notation::parse_move(&pos, uci) else {
            break;
        };
        let n = pos.fullmoves();
        if pos.turn() == Color::White {
            out.push(format!("{n}. {}", notation::san(&pos, m)));
        } else if out.is_empty() {
            out.push(format!("{n}... {}", notation::san(&pos, m)));
        } else {
            out.push(notation::san(&pos, m));
        }
        pos.play_unchecked(m);
    }
    out.join(" ")
}

/// The last move of the card's line, if any.
fn last_move(card: &Card) -> Option<shakmaty::Move> {
    let mut pos = Chess::default();
    let mut last = None;
    for uci in &card.line {
        let m = notation::parse_move(&pos, uci).ok()?;
        pos.play_unchecked(m);
        last = Some(m);
    }
    last
}

/// Why the card exists, with its answer, for a list of cards.
pub fn why_listed(card: &Card, player: &str, pos: &Chess) -> String {
    match &card.why {
        Why::Repertoire { games, of, score } => format!(
            "{player}'s move in {} of {} games, score {}",
            notation::thousands(u64::from(*games)),
            notation::thousands(u64::from(*of)),
            percent(*score)
        ),
        Why::Loses {
            played,
            games,
            win_loss,
            best_played,
        } => {
            let mut text = format!(
                "the engine's move: {player}'s usual {} ({} games) loses {win_loss:.0} win% points",
                san_at(pos, played),
                notation::thousands(u64::from(*games))
            );
            if let Some((g, s)) = best_played {
                text.push_str(&format!(
                    "; with the engine's move {player} scored {} in {} games",
                    percent(*s),
                    notation::thousands(u64::from(*g))
                ));
            }
            text
        }
        Why::Prep { .. } => why_text(card, player, pos),
    }
}

/// A move of the card's position in SAN (its UCI if it does not replay).
fn san_at(pos: &Chess, uci: &str) -> String {
    notation::parse_move(pos, uci).map_or_else(|_| uci.to_string(), |m| notation::san(pos, m))
}

fn percent(score: f64) -> String {
    format!("{:.0}%", 100.0 * score)
}

/// Why the card exists, in a player's words (without giving the answer away).
pub fn why_text(card: &Card, player: &str, pos: &Chess) -> String {
    match &card.why {
        Why::Repertoire { of, .. } => format!(
            "{player} reached this position in {} games: what is {player}'s move here?",
            notation::thousands(u64::from(*of))
        ),
        Why::Loses {
            played,
            games,
            win_loss,
            ..
        } => format!(
            "{player}'s usual {} here ({} games) loses {win_loss:.0} win% points by the engine: find the better move.",
            san_at(pos, played),
            notation::thousands(u64::from(*games))
        ),
        Why::Prep {
            opponent,
            reach,
            instead_of,
        } => {
            let mut text = format!(
                "Against {opponent}: this position comes on {} of the lines.",
                percent(*reach)
            );
            if let Some(usual) = instead_of {
                text.push_str(&format!(
                    " Prep backs a better move than {player}'s usual {}.",
                    san_at(pos, usual)
                ));
            }
            text
        }
    }
}

fn result_text(r: &MoveResult, player: &str) -> String {
    match r.score {
        Some(s) if r.games > 0 => format!(
            "{}: {player} scored {} in {} games with it",
            r.san,
            percent(s),
            notation::thousands(u64::from(r.games))
        ),
        _ => format!("{}: {player} never played it here", r.san),
    }
}

/// The verdict in words.
pub fn verdict_text(v: &Verdict, player: &str) -> String {
    let back = if v.days == 1 {
        "back tomorrow".to_string()
    } else {
        format!("back in {} days", v.days)
    };
    let rights: Vec<String> = v
        .right_moves
        .iter()
        .map(|r| result_text(r, player))
        .collect();
    if v.right {
        format!("Right. {} ({back}).", rights.join("; "))
    } else {
        let mut text = format!("No. The move here: {}.", rights.join("; "));
        if let Some(a) = &v.answered {
            text.push_str(&format!(" Yours, {}.", result_text(a, player)));
        }
        text.push_str(" It comes again in this session.");
        text
    }
}

/// The cards of `listing` as `mirror drill --list` prints them: the counts per colour,
/// then a line per card (when it is due, its colour, its line, its right moves in SAN, why).
pub fn list_text(listing: &Listing, player: &str) -> io::Result<String> {
    let mut out = String::new();
    for (name, c) in [("White", listing.white), ("Black", listing.black)] {
        out.push_str(&format!(
            "{name}: {} due, {} new, {} later, {} retired\n",
            c.due, c.new, c.later, c.retired
        ));
    }
    for l in &listing.cards {
        let pos = l.card.position().map_err(io_err)?;
        let right: Vec<String> = l.card.right.iter().map(|u| san_at(&pos, u)).collect();
        let when = if l.new {
            "new".to_string()
        } else {
            l.due_date.clone().unwrap_or_default()
        };
        let line = line_san(&l.card);
        out.push_str(&format!(
            "{when:>10}  {:<5}  {:<40}  {}  ({})\n",
            mirror_core::codec::color_name(l.card.color),
            if line.is_empty() { "start" } else { &line },
            right.join(", "),
            why_listed(&l.card, player, &pos)
        ));
    }
    Ok(out)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Runs `session` for `player` on `input` and `out` until no question is left, the input
/// ends or the player types `quit`; returns what it did. Every answer is stored as it is
/// given.
pub fn drill<S, R, W>(
    session: &mut Session<'_, S>,
    player: &str,
    mut input: R,
    out: &mut W,
) -> io::Result<Summary>
where
    S: GraphRead + Drills + ?Sized,
    R: BufRead,
    W: Write,
{
    writeln!(
        out,
        "{} cards to answer. Type {player}'s move in SAN (or UCI); `?` shows the answer, `quit` stops.",
        session.left()
    )?;
    let mut line = String::new();
    'cards: while let Some(ask) = session.ask() {
        let pos = ask.card.position().map_err(io_err)?;
        writeln!(out)?;
        let last = last_move(&ask.card);
        writeln!(
            out,
            "{}",
            board::render(&pos, ask.card.color, last.as_ref())
        )?;
        let moves = line_san(&ask.card);
        writeln!(
            out,
            "{}{}",
            if moves.is_empty() {
                "The start position".to_string()
            } else {
                moves
            },
            if ask.new { "  (new card)" } else { "" }
        )?;
        writeln!(out, "{}", why_text(&ask.card, player, &pos))?;
        let started = Instant::now();
        let answer = loop {
            write!(out, "your move> ")?;
            out.flush()?;
            line.clear();
            if input.read_line(&mut line)? == 0 {
                break 'cards;
            }
            let text = line.trim();
            match text {
                "" => continue,
                "quit" | "q" => break 'cards,
                "?" => break None,
                _ => match notation::parse_move(&pos, text) {
                    Ok(m) => break Some(m),
                    Err(e) => writeln!(out, "{e}; try again")?,
                },
            }
        };
        let verdict = session
            .answer(answer, started.elapsed(), unix_now())
            .map_err(io_err)?;
        writeln!(out, "{}", verdict_text(&verdict, player))?;
        // The other side's reply, when the line goes on to another card of the session.
        if let Some(reply) = session.reply(ask.entry).map_err(io_err)?
            && reply.next.is_some()
        {
            writeln!(
                out,
                "{} {} (their reply in {} of {} games)",
                san_at(&pos, &reply.played),
                reply.san,
                notation::thousands(u64::from(reply.games.0)),
                notation::thousands(u64::from(reply.games.1))
            )?;
        }
    }
    let s = session.summary();
    writeln!(out)?;
    writeln!(
        out,
        "{} answers to {} cards: {} right, {} wrong.",
        s.answers, s.cards, s.right, s.wrong
    )?;
    Ok(s)
}
