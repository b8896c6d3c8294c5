//! The graph questions on real games, checked against independent replays and explorer
//! answers.

use std::collections::{BTreeMap, BTreeSet};

use mirror_core::{PositionKey, batch::Batch};
use mirror_store::{
    Filter, GraphRead, GraphWrite,
    analysis::{deviations, most_played, transpositions, worst_positions},
    embedded::{EmbeddedStore, OpenMode},
};
use mirror_testkit::conformance::{PLAYER, sample_games};
use shakmaty::{Chess, Color, Position};

fn store() -> (
    tempfile::TempDir,
    EmbeddedStore,
    Vec<(mirror_core::GameRecord, Color)>,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let s =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    let games = sample_games(499);
    let mut b = Batch::new();
    for (g, c) in &games {
        b.add_game(g.clone(), *c).expect("legal");
    }
    s.write_batch(PLAYER, &b).expect("write");
    (dir, s, games)
}

fn stm_filter(pos: PositionKey, s: &EmbeddedStore) -> Filter {
    let epd = s.position_epd(pos).expect("epd").expect("stored");
    let color = if epd.contains(" w ") {
        Color::White
    } else {
        Color::Black
    };
    Filter {
        color: Some(color),
        ..Filter::default()
    }
}

#[test]
fn most_played_starts_with_the_players_main_first_move() {
    let (_d, s, _) = store();
    let top = most_played(&s, PLAYER, 10).expect("most played");
    assert_eq!(top.len(), 10);
    assert!(top.windows(2).all(|w| w[0].2 >= w[1].2));
    for (pos, mv, games) in &top {
        let rows = s.moves(PLAYER, *pos, &stm_filter(*pos, &s)).expect("moves");
        let row = rows.iter().find(|r| r.mv == *mv).expect("an own move");
        assert_eq!(row.stats.games(), *games);
    }
}

#[test]
fn worst_positions_have_enough_games_and_lowest_scores() {
    let (_d, s, _) = store();
    let worst = worst_positions(&s, PLAYER, 10, 20).expect("worst");
    assert!(!worst.is_empty());
    assert!(worst.windows(2).all(|w| w[0].2 <= w[1].2));
    for (pos, games, score) in &worst {
        assert!(*games >= 10);
        let rows = s.moves(PLAYER, *pos, &stm_filter(*pos, &s)).expect("moves");
        let (w, d, n) = rows.iter().fold((0u32, 0u32, 0u32), |acc, r| {
            (
                acc.0 + r.stats.wins,
                acc.1 + r.stats.draws,
                acc.2 + r.stats.games(),
            )
        });
        assert_eq!(n, *games);
        assert!((score - (f64::from(w) + 0.5 * f64::from(d)) / f64::from(n)).abs() < 1e-12);
    }
}

#[test]
fn transpositions_equal_an_independent_replay() {
    let (_d, s, games) = store();
    let mut incoming: BTreeMap<PositionKey, BTreeSet<(PositionKey, String)>> = BTreeMap::new();
    for (g, _) in &games {
        let mut pos = Chess::default();
        for code in &g.moves {
            let before = PositionKey::from_position(&pos);
            pos.play_unchecked(code.to_move(&pos).expect("legal"));
            incoming
                .entry(PositionKey::from_position(&pos))
                .or_default()
                .insert((before, code.to_string()));
        }
    }
    let want: BTreeSet<(PositionKey, usize)> = incoming
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .map(|(k, v)| (k, v.len()))
        .collect();
    let got: BTreeSet<(PositionKey, usize)> =
        transpositions(&s, PLAYER).expect("t").into_iter().collect();
    assert!(want.len() > 10, "real games transpose");
    assert_eq!(got, want);
}

#[test]
fn deviations_compare_the_players_and_the_opponents_choices() {
    let (_d, s, _) = store();
    let devs = deviations(&s, PLAYER, 3).expect("deviations");
    assert!(!devs.is_empty());
    for d in &devs {
        let mine = s
            .moves(PLAYER, d.pos, &stm_filter(d.pos, &s))
            .expect("moves");
        let other_color = match stm_filter(d.pos, &s).color {
            Some(Color::White) => Color::Black,
            _ => Color::White,
        };
        let theirs = s
            .moves(
                PLAYER,
                d.pos,
                &Filter {
                    color: Some(other_color),
                    ..Filter::default()
                },
            )
            .expect("moves");
        assert_eq!(mine[0].mv, d.mine.0);
        assert_eq!(theirs[0].mv, d.theirs.0);
        assert_ne!(d.mine.0, d.theirs.0);
        assert!(d.mine.1 >= 3 && d.theirs.1 >= 3);
    }
}

/// The repertoire's move limit cuts whole plies: a tree cut at a limit is the uncut tree
/// down to the last ply that fit, and says it was cut.
#[test]
fn the_repertoire_is_cut_at_whole_plies() {
    use mirror_store::repertoire::{Repertoire, RepertoireMove, RepertoireOptions, repertoire};
    let (_dir, s, _) = store();
    let opts = |depth, max_moves| RepertoireOptions {
        color: Color::White,
        min_games: 2,
        depth,
        max_moves,
        ..RepertoireOptions::default()
    };
    let whole = repertoire(&s, PLAYER, &opts(6, 100_000)).expect("whole");
    assert!(!whole.cut);
    fn count_to(moves: &[RepertoireMove], plies: usize) -> usize {
        if plies == 0 {
            return 0;
        }
        moves.len()
            + moves
                .iter()
                .map(|m| count_to(&m.children, plies - 1))
                .sum::<usize>()
    }
    assert_eq!(count_to(&whole.moves, 6), whole.size);
    let four = count_to(&whole.moves, 4);
    assert!(four < count_to(&whole.moves, 5), "the fifth ply adds moves");
    let cut: Repertoire =
        repertoire(&s, PLAYER, &opts(6, count_to(&whole.moves, 5) - 1)).expect("cut");
    assert!(cut.cut);
    assert_eq!((cut.size, cut.plies, whole.plies), (four, 4, 6));
    assert_eq!(
        cut.moves,
        repertoire(&s, PLAYER, &opts(4, 100_000))
            .expect("four")
            .moves
    );
    // Most played first, each move at least the threshold.
    fn sorted(moves: &[RepertoireMove]) -> bool {
        moves.windows(2).all(|w| w[0].games >= w[1].games)
            && moves.iter().all(|m| m.games >= 2 && sorted(&m.children))
    }
    assert!(sorted(&whole.moves));
}
