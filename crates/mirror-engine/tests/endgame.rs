//! The basic endings' tables and the mirror playing them: the tables against shakmaty's own
//! move generation, the known longest mates, and won positions converted against the
//! table's best defence (distance to mate falls on every move, so no repetition and no
//! 50-move draw).

use std::{collections::HashSet, time::Instant};

use mirror_engine::{
    Engine, EngineOptions, Source,
    endgame::{Ending, Verdict, probe, winning_moves},
};
use mirror_store::embedded::{EmbeddedStore, OpenMode};
use shakmaty::{Chess, Color, Move, Position, fen::Fen};

fn after(pos: &Chess, m: Move) -> Chess {
    let mut p = pos.clone();
    p.play_unchecked(m);
    p
}

/// Builds every table once, printing how long each took.
fn tables() {
    for e in Ending::ALL {
        let t = Instant::now();
        let table = e.table();
        eprintln!(
            "{}: table ready in {:.2} s, longest mate {} plies",
            e.name(),
            t.elapsed().as_secs_f64(),
            table.longest()
        );
    }
}

#[test]
fn the_longest_mates_are_the_known_ones() {
    tables();
    // Mate in 10 (KQK), 16 (KRK), 19 (KBBK) and 33 (KBNK) moves from the worst position.
    for (e, moves) in [
        (Ending::Kqk, 10u8),
        (Ending::Krk, 16),
        (Ending::Kbbk, 19),
        (Ending::Kbnk, 33),
    ] {
        assert_eq!(e.table().longest(), 2 * moves - 1, "{}", e.name());
    }
}

/// The table's verdict on `pos` is what shakmaty's legal moves make of its successors'
/// verdicts (a capture leaves the tables: a draw).
fn consistent(pos: &Chess) -> Result<(), String> {
    let (_, v) = probe(pos).ok_or("not in a table")?;
    let moves = pos.legal_moves();
    let next: Vec<Option<Verdict>> = moves
        .iter()
        .map(|m| probe(&after(pos, *m)).map(|(_, v)| v))
        .collect();
    let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string();
    let ok = match v {
        Verdict::Wins(d) => {
            let best = next
                .iter()
                .filter_map(|n| match n {
                    Some(Verdict::Loses(l)) => Some(*l),
                    _ => None,
                })
                .min();
            best.map(|l| l + 1) == Some(d)
        }
        Verdict::Loses(0) => pos.is_checkmate(),
        Verdict::Loses(d) => {
            let all_won: Option<Vec<u8>> = next
                .iter()
                .map(|n| match n {
                    Some(Verdict::Wins(w)) => Some(*w),
                    _ => None,
                })
                .collect();
            !moves.is_empty() && all_won.and_then(|w| w.into_iter().max()).map(|w| w + 1) == Some(d)
        }
        Verdict::Draw => {
            let strong_to_move = pos.board().by_color(pos.turn()).count() > 1;
            if strong_to_move {
                !next.iter().any(|n| matches!(n, Some(Verdict::Loses(_))))
            } else {
                !pos.is_checkmate()
                    && (moves.is_empty()
                        || next.iter().any(|n| !matches!(n, Some(Verdict::Wins(_)))))
            }
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{fen}: table says {v:?}, its moves give {next:?}"))
    }
}

#[test]
fn every_table_agrees_with_shakmatys_moves() {
    for e in Ending::ALL {
        let table = e.table();
        // Every placement of the three-piece tables, a spread of the four-piece ones.
        let stride = if table.size() > 1 << 18 { 61 } else { 1 };
        let mut checked = 0usize;
        for idx in (0..table.size()).step_by(stride) {
            for turn in [Color::White, Color::Black] {
                let Some(pos) = table.position(idx, turn) else {
                    continue;
                };
                if let Err(e) = consistent(&pos) {
                    panic!("{e}");
                }
                checked += 1;
            }
        }
        eprintln!("{}: {checked} positions agree", e.name());
        assert!(checked > 100_000, "{}: only {checked}", e.name());
    }
}

fn engine(dir: &tempfile::TempDir) -> Engine<EmbeddedStore> {
    let store =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    Engine::new(store, "Biskupstunga", EngineOptions::default())
}

/// The table's best defence: the lone king's move that puts the mate furthest away.
fn defend(pos: &Chess) -> Move {
    pos.legal_moves()
        .into_iter()
        .max_by_key(|m| match probe(&after(pos, *m)) {
            Some((_, Verdict::Wins(w))) => u16::from(w),
            _ => 1000,
        })
        .expect("the lone king has a move")
}

/// Plays `pos` out, the engine for the side to move against the best defence; the plies
/// to mate (and checks every step).
fn convert(engine: &mut Engine<EmbeddedStore>, start: &Chess) -> u32 {
    let strong = start.turn();
    let mut pos = start.clone();
    let mut seen = HashSet::new();
    let mut plies = 0;
    let mut last = None;
    while !pos.is_checkmate() {
        assert!(
            seen.insert(mirror_core::PositionKey::from_position(&pos)),
            "a position repeats"
        );
        assert!(pos.halfmoves() < 100, "the 50-move rule");
        let mv = if pos.turn() == strong {
            let choice = engine.choose_after(&pos, last).expect("a move");
            assert!(
                matches!(choice.source, Source::Endgame { .. }),
                "{choice:?}"
            );
            choice.mv
        } else {
            defend(&pos)
        };
        pos = after(&pos, mv);
        last = Some(mv);
        plies += 1;
    }
    plies
}

#[test]
fn the_mirror_converts_won_positions_against_the_best_defence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut engine = engine(&dir);
    for e in Ending::ALL {
        let table = e.table();
        let won: Vec<(usize, u8)> = table.strong_to_move().collect();
        // Every 97th won position: thousands per ending, from mate in 1 to the longest.
        let (mut games, mut plies, mut optimal) = (0u32, 0u32, 0u32);
        for &(idx, d) in won.iter().step_by(97) {
            let pos = table
                .position(idx, Color::White)
                .expect("a won position is legal");
            let p = convert(&mut engine, &pos);
            assert_eq!(p, u32::from(d), "{e:?} {idx}: as fast as the table's best");
            games += 1;
            plies += p;
            optimal += u32::from(d);
        }
        eprintln!(
            "{}: {games} won positions converted, average mate in {:.2} moves (table's best {:.2})",
            e.name(),
            f64::from(plies.div_ceil(2)) / f64::from(games),
            f64::from(optimal.div_ceil(2)) / f64::from(games)
        );
        assert!(games > 1000);
    }
}

#[test]
fn every_won_three_piece_position_keeps_its_mate() {
    // The inductive form of "converted": in every won KQK and KRK position the engine's
    // choices all bring the mate one ply nearer, so any defence is mated in time.
    for e in [Ending::Kqk, Ending::Krk] {
        let table = e.table();
        let mut n = 0;
        for (idx, d) in table.strong_to_move() {
            let pos = table.position(idx, Color::White).expect("legal");
            let (_, plies, keeping) = winning_moves(&pos).expect("won");
            assert_eq!(plies, d);
            for m in keeping {
                assert_eq!(
                    probe(&after(&pos, m)).map(|(_, v)| v),
                    Some(Verdict::Loses(d - 1))
                );
            }
            n += 1;
        }
        eprintln!("{}: {n} won positions", e.name());
    }
}

#[test]
fn six_ordinary_endings_are_won_from_the_start() {
    // From ordinary squares, either colour strong: the mirror mates against the best
    // defence in exactly the table's distance.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut engine = engine(&dir);
    for fen in [
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1",
        "4k3/8/8/8/8/8/8/1N2KB2 w - - 0 1",
        "1n2kb2/8/8/8/8/8/8/4K3 b - - 0 1",
        "r3k3/8/8/8/8/8/8/4K3 b - - 0 1",
    ] {
        let pos: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("legal");
        let Some((ending, Verdict::Wins(d))) = probe(&pos) else {
            panic!("{fen} is won");
        };
        let plies = convert(&mut engine, &pos);
        eprintln!(
            "{fen} ({}): mate in {} moves",
            ending.name(),
            plies.div_ceil(2)
        );
        assert_eq!(plies, u32::from(d));
    }
}
