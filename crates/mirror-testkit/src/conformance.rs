//! The conformance suite every [`GraphStore`] backend must pass, on real games (the shared
//! player's games from `../shared/data`).
//!
//! Each check is a function taking a fresh, empty store. A backend's test file expands
//! [`conformance_tests!`](crate::conformance_tests) with an expression that makes a fresh
//! store, so the same checks run unchanged against every backend.

use std::path::PathBuf;

use mirror_core::{
    GameRecord, MoveCode, MoveStats, PositionKey, TimeClass,
    batch::Batch,
    pgn::{Decoded, read_games},
    time::Month,
};
use rustc_hash::FxHashMap;
use shakmaty::{Chess, Color};

use mirror_core::GameId;
use mirror_store::{Filter, GraphStore, MoveRow, RatingRange, StoreError};

/// The player of the shared single-player collection.
pub const PLAYER: &str = "Biskupstunga";

/// Directory of the shared data (`MIRROR_SHARED_DATA`, else `../shared/data` beside the
/// repository).
pub fn shared_data() -> PathBuf {
    std::env::var_os("MIRROR_SHARED_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

/// The first `n` standard games of the shared 500-game file with the player's colour.
pub fn sample_games(n: usize) -> Vec<(GameRecord, Color)> {
    let path = shared_data().join("pgn/single-player/biskupstunga_first500.pgn");
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    read_games(bytes.as_slice())
        .filter_map(|r| match r.expect("readable").1 {
            Decoded::Game(g) => {
                let c = g.color_of(&[PLAYER])?;
                Some((g, c))
            }
            _ => None,
        })
        .take(n)
        .collect()
}

fn batch_of(games: &[(GameRecord, Color)]) -> Batch {
    Batch::from_games(games).expect("legal games")
}

/// Independent expectation: replays each game and sums, per (position, move), the games
/// that pass `keep`, counting a game once per edge.
fn expected_moves(
    games: &[(GameRecord, Color)],
    pos: PositionKey,
    keep: impl Fn(&GameRecord, Color) -> bool,
) -> Vec<(String, u32, u32, u32)> {
    let mut sums: FxHashMap<String, MoveStats> = FxHashMap::default();
    for (g, c) in games {
        if !keep(g, *c) {
            continue;
        }
        let mut seen = Vec::new();
        for ply in g.replay() {
            let ply = ply.expect("legal");
            if ply.key == pos && !seen.contains(&ply.code) {
                seen.push(ply.code);
                let s = MoveStats::from_game(g.result.outcome_for(*c), g.side(!*c).rating, g.date);
                sums.entry(ply.code.to_string()).or_default().merge(&s);
            }
        }
    }
    let mut v: Vec<_> = sums
        .into_iter()
        .map(|(m, s)| (m, s.wins, s.draws, s.losses))
        .collect();
    v.sort();
    v
}

fn actual_moves<S: GraphStore>(
    store: &S,
    pos: PositionKey,
    filter: &Filter,
) -> Vec<(String, u32, u32, u32)> {
    tuples(store.moves(PLAYER, pos, filter).expect("moves"))
}

/// Move rows as (move, wins, draws, losses), sorted: [`expected_moves`]' shape.
fn tuples(rows: Vec<MoveRow>) -> Vec<(String, u32, u32, u32)> {
    let mut v: Vec<_> = rows
        .into_iter()
        .map(|r| {
            (
                r.mv.to_string(),
                r.stats.wins,
                r.stats.draws,
                r.stats.losses,
            )
        })
        .collect();
    v.sort();
    v
}

fn start() -> PositionKey {
    PositionKey::from_position(&Chess::default())
}

/// An empty store answers with nothing, not errors.
pub fn empty_store<S: GraphStore>(store: S) {
    assert_eq!(store.counts(PLAYER).expect("counts").games, 0);
    assert!(
        store
            .moves(PLAYER, start(), &Filter::default())
            .expect("moves")
            .is_empty()
    );
    assert!(store.players().expect("players").is_empty());
    assert!(store.games(PLAYER).expect("games").is_empty());
    assert_eq!(store.position_count().expect("positions"), 0);
}

/// Written games come back: counts, records (oldest first), EPD, explorer rows equal to
/// an independent replay.
pub fn write_and_read_back<S: GraphStore>(store: S) {
    let games = sample_games(120);
    let batch = batch_of(&games);
    let before = store.data_version();
    let player_before = store.player_version(PLAYER).expect("player version");
    let report = store.write_batch(PLAYER, &batch).expect("write");
    // Every store tells a player's version, read from the store itself (a server keeps
    // answers under it): a write of the player's games changes it, and so does an account.
    let player_after = store.player_version(PLAYER).expect("player version");
    assert!(player_before.is_some() && player_after.is_some());
    assert!(
        player_before < player_after,
        "{player_before:?} -> {player_after:?}"
    );
    // A store that tells its data version tells a new one after each change; one that
    // cannot know (others write to it) never claims one.
    let after = store.data_version();
    assert_eq!(before.is_some(), after.is_some());
    assert!(
        before < after || before.is_none(),
        "{before:?} -> {after:?}"
    );
    store
        .add_account(
            PLAYER,
            &mirror_store::Account {
                source: mirror_core::GameSource::Chesscom,
                name: PLAYER.into(),
            },
        )
        .expect("add account");
    assert!(after < store.data_version() || after.is_none());
    assert!(player_after < store.player_version(PLAYER).expect("player version"));
    assert_eq!(report.games, 120);
    assert_eq!(report.new_edges, batch.edges().len() as u64);
    assert_eq!(report.new_positions, batch.position_count() as u64);
    let counts = store
        .counts("biskupstunga")
        .expect("counts (case-insensitive)");
    assert_eq!(counts.games, 120);
    assert_eq!(counts.edge_rows, batch.edges().len() as u64);
    assert_eq!(
        store.position_count().expect("positions"),
        report.new_positions
    );
    let players = store.players().expect("players");
    assert_eq!(players.len(), 1);
    assert_eq!((players[0].name.as_str(), players[0].games), (PLAYER, 120));

    assert_eq!(
        store.position_epd(start()).expect("epd").as_deref(),
        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -")
    );
    let stored = store.games(PLAYER).expect("games");
    assert_eq!(stored.len(), 120);
    assert!(
        stored.windows(2).all(|w| w[0].0.date <= w[1].0.date),
        "oldest first"
    );
    let mut want: Vec<_> = games.clone();
    want.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    let mut got = stored.clone();
    got.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    assert_eq!(got, want);
    assert_eq!(
        store.game(&games[7].0.id).expect("game"),
        Some(games[7].0.clone())
    );

    // Explorer rows at the start and two plies deep, for both colours.
    let mut pos = Chess::default();
    let mut keys = vec![start()];
    for code in &games[0].0.moves[..4] {
        use shakmaty::Position;
        pos.play_unchecked(code.to_move(&pos).expect("legal"));
        keys.push(PositionKey::from_position(&pos));
    }
    for key in keys {
        for color in [Color::White, Color::Black] {
            let filter = Filter {
                color: Some(color),
                ..Filter::default()
            };
            let want = expected_moves(&games, key, |_, c| c == color);
            assert_eq!(actual_moves(&store, key, &filter), want, "{key} {color:?}");
        }
        let want_all = expected_moves(&games, key, |_, _| true);
        assert_eq!(actual_moves(&store, key, &Filter::default()), want_all);
    }
    let rows = store
        .moves(PLAYER, start(), &Filter::default())
        .expect("moves");
    assert!(
        rows.windows(2)
            .all(|w| w[0].stats.games() >= w[1].stats.games())
    );
}

/// A batch with an already ingested game writes nothing and names the games.
pub fn reingest_is_refused<S: GraphStore>(store: S) {
    let games = sample_games(30);
    store
        .write_batch(PLAYER, &batch_of(&games[..20]))
        .expect("write");
    let before = store.edges(PLAYER).expect("edges");
    let err = store
        .write_batch(PLAYER, &batch_of(&games[15..30]))
        .expect_err("overlap refused");
    let StoreError::AlreadyIngested(ids) = err else {
        panic!("unexpected error {err}")
    };
    assert_eq!(ids.len(), 5);
    assert_eq!(
        store.edges(PLAYER).expect("edges"),
        before,
        "nothing written"
    );
    assert_eq!(store.counts(PLAYER).expect("counts").games, 20);
    let mut ids_all: Vec<_> = games.iter().map(|(g, _)| g.id.clone()).collect();
    ids_all.truncate(25);
    assert_eq!(
        store.ingested(PLAYER, &ids_all).expect("ingested").len(),
        20
    );
    assert!(
        store
            .ingested("someone-else", &ids_all)
            .expect("ingested")
            .is_empty()
    );
}

/// Writing games in several batches gives exactly the rows of one batch (`one` may be
/// another backend, which writes the same games in one batch).
pub fn batches_merge_exactly<A: GraphStore, B: GraphStore>(one: A, many: B) {
    let games = sample_games(90);
    one.write_batch(PLAYER, &batch_of(&games)).expect("write");
    for chunk in games.chunks(17) {
        many.write_batch(PLAYER, &batch_of(chunk)).expect("write");
    }
    assert_same_graph(&one, &many);
    // Unfiltered and colour-only questions (which a backend may answer from running
    // totals) agree with the edge rows summed, after one batch and after many.
    let rows = one.edges(PLAYER).expect("edges");
    let mut positions: Vec<PositionKey> = rows.iter().map(|e| e.pos).collect();
    positions.dedup();
    for pos in positions.iter().step_by(25) {
        for color in [None, Some(Color::White), Some(Color::Black)] {
            let f = Filter {
                color,
                ..Filter::default()
            };
            let want = mirror_store::sum_by_move(
                rows.iter().filter(|e| e.pos == *pos).map(|e| Ok(*e)),
                &f,
            )
            .expect("sum");
            assert_eq!(one.moves(PLAYER, *pos, &f).expect("moves"), want);
            assert_eq!(many.moves(PLAYER, *pos, &f).expect("moves"), want);
        }
    }
}

/// Batches of several players written in one transaction give each player what their
/// own batch gives (`reference` writes them one by one), also when a player has two
/// batches in the write (their games numbered on from the first's: the same recent games);
/// a write in which one game is already recorded for its player writes nothing, for any
/// player.
pub fn several_players_in_one_write<S: GraphStore, R: GraphStore>(store: S, reference: R) {
    let games = sample_games(60);
    let (a, b) = games.split_at(35);
    let players = ["Alice", "bob"];
    reference
        .write_batch(players[0], &batch_of(a))
        .expect("write");
    reference
        .write_batch(players[1], &batch_of(b))
        .expect("write");
    let report = store
        .write_batches(&[
            (players[0].to_string(), batch_of(&a[..20])),
            (players[1].to_string(), batch_of(b)),
            (players[0].to_string(), batch_of(&a[20..])),
        ])
        .expect("write");
    assert_eq!(report.games, 60);
    for p in players {
        assert_eq!(
            store.edges(p).expect("edges"),
            reference.edges(p).expect("edges")
        );
        assert_eq!(store.counts(p).expect("c"), reference.counts(p).expect("c"));
        let recent = |s: &dyn GraphStore| -> Vec<(GameId, MoveCode)> {
            s.recent_games(p, start(), &Filter::default(), 100)
                .expect("recent")
                .into_iter()
                .map(|r| (r.game.id, r.mv))
                .collect()
        };
        assert_eq!(recent(&store), recent(&reference), "{p}'s recent games");
    }
    assert_eq!(
        store.position_count().expect("p"),
        reference.position_count().expect("p")
    );
    let err = store
        .write_batches(&[
            ("carol".to_string(), batch_of(a)),
            (players[1].to_string(), batch_of(&b[..5])),
        ])
        .expect_err("bob has these games");
    assert!(
        matches!(&err, StoreError::AlreadyIngested(ids) if ids.len() == 5),
        "{err}"
    );
    assert_eq!(
        store.counts("carol").expect("c").games,
        0,
        "nothing written"
    );
    assert_eq!(
        store.counts(players[1]).expect("c"),
        reference.counts(players[1]).expect("c")
    );
}

/// Both stores hold the same graph of [`PLAYER`]: edges, counts and positions.
pub fn assert_same_graph<A: GraphStore, B: GraphStore>(a: &A, b: &B) {
    assert_eq!(
        a.edges(PLAYER).expect("edges"),
        b.edges(PLAYER).expect("edges")
    );
    assert_eq!(a.counts(PLAYER).expect("c"), b.counts(PLAYER).expect("c"));
    assert_eq!(
        a.position_count().expect("p"),
        b.position_count().expect("p")
    );
}

/// Every filter dimension is a query: time class, rated, months.
pub fn filters<S: GraphStore>(store: S) {
    // Real games; a third of them relabelled as lichess games and a third as games
    // without a site (over the board), so that the source filter has something to split.
    let games: Vec<(GameRecord, Color)> = sample_games(200)
        .into_iter()
        .enumerate()
        .map(|(i, (mut g, c))| {
            match i % 3 {
                1 => g.id = mirror_core::GameId(format!("https://lichess.org/game{i:04}")),
                2 => g.id = mirror_core::GameId(format!("pgn:{i:032x}")),
                _ => {}
            }
            (g, c)
        })
        .collect();
    store.write_batch(PLAYER, &batch_of(&games)).expect("write");
    let key = start();
    let month_of = |g: &GameRecord| g.date.and_then(|d| d.month());
    let months: Vec<Month> = games.iter().filter_map(|(g, _)| month_of(g)).collect();
    let mid = months[months.len() / 2];

    let blitz = Filter {
        time_classes: vec![TimeClass::Blitz],
        ..Filter::default()
    };
    assert_eq!(
        actual_moves(&store, key, &blitz),
        expected_moves(&games, key, |g, _| g.time_class == TimeClass::Blitz)
    );
    let since = Filter {
        since: Some(mid),
        ..Filter::default()
    };
    assert_eq!(
        actual_moves(&store, key, &since),
        expected_moves(&games, key, |g, _| month_of(g).is_some_and(|m| m >= mid))
    );
    let until = Filter {
        until: Some(mid),
        color: Some(Color::White),
        ..Filter::default()
    };
    assert_eq!(
        actual_moves(&store, key, &until),
        expected_moves(&games, key, |g, c| c == Color::White
            && month_of(g).is_some_and(|m| m <= mid))
    );
    let casual = Filter {
        rated: Some(false),
        ..Filter::default()
    };
    assert_eq!(
        actual_moves(&store, key, &casual),
        expected_moves(&games, key, |g, _| !g.rated)
    );
    let none = Filter {
        since: Month::new(2100, 1),
        ..Filter::default()
    };
    assert!(actual_moves(&store, key, &none).is_empty());
    rating_and_source_filters(&store, &games, key);
}

/// [`filters`]' opponent-rating and source dimensions, on its `games`.
fn rating_and_source_filters<S: GraphStore>(
    store: &S,
    games: &[(GameRecord, Color)],
    key: PositionKey,
) {
    // The opponent's rating, inclusive at both ends: from the middle rating of these
    // games up; a game without the opponent's rating is never in a rating range.
    let opponent = |g: &GameRecord, c: Color| g.side(!c).rating;
    let mut ratings: Vec<u16> = games.iter().filter_map(|(g, c)| opponent(g, *c)).collect();
    ratings.sort_unstable();
    let median = ratings[ratings.len() / 2];
    for range in [
        RatingRange {
            min: median,
            max: 4000,
        },
        RatingRange {
            min: 0,
            max: median,
        },
    ] {
        let f = Filter {
            opponent_rating: Some(range),
            ..Filter::default()
        };
        let want = expected_moves(games, key, |g, c| {
            opponent(g, c).is_some_and(|r| range.contains(r))
        });
        assert!(!want.is_empty(), "{range}");
        assert_eq!(actual_moves(store, key, &f), want, "{range}");
    }
    use mirror_core::GameSource;
    for sources in [
        vec![GameSource::Lichess],
        vec![GameSource::Otb, GameSource::Chesscom],
        vec![GameSource::Otb],
    ] {
        let f = Filter {
            sources: sources.clone(),
            color: Some(Color::Black),
            ..Filter::default()
        };
        let want = expected_moves(games, key, |g, c| {
            c == Color::Black && sources.contains(&g.source())
        });
        assert!(!want.is_empty(), "{sources:?}");
        assert_eq!(actual_moves(store, key, &f), want, "{sources:?}");
    }
    let every = Filter {
        sources: GameSource::ALL.to_vec(),
        ..Filter::default()
    };
    assert_eq!(
        actual_moves(store, key, &every),
        actual_moves(store, key, &Filter::default())
    );
}

/// `moves_many` answers each key as the independent replay does, in the keys' order:
/// positions with move totals (the opening) and without (late in a game, fewer than 30
/// pieces), a position nobody reached, a key asked twice; with the colour-only filter
/// (the totals) and a time-class filter (the rows).
pub fn moves_many<S: GraphStore>(store: S) {
    let games = sample_games(120);
    store.write_batch(PLAYER, &batch_of(&games)).expect("write");
    let (long, color) = games
        .iter()
        .max_by_key(|(g, _)| g.moves.len())
        .expect("games");
    let mut keys: Vec<PositionKey> = long.replay().map(|p| p.expect("legal").key).collect();
    assert!(keys.len() > 40, "a long game: {}", keys.len());
    keys.push(PositionKey(12345));
    keys.push(keys[3]);
    type Keep<'a> = &'a dyn Fn(&GameRecord, Color) -> bool;
    let filters: [(Filter, Keep<'_>); 3] = [
        (Filter::default(), &|_, _| true),
        (
            Filter {
                color: Some(*color),
                ..Filter::default()
            },
            &|_, c| c == *color,
        ),
        (
            Filter {
                time_classes: vec![long.time_class],
                ..Filter::default()
            },
            &|g, _| g.time_class == long.time_class,
        ),
    ];
    for (filter, keep) in &filters {
        let answers = store.moves_many(PLAYER, &keys, filter).expect("moves_many");
        assert_eq!(answers.len(), keys.len());
        for (&key, rows) in keys.iter().zip(answers) {
            let want = expected_moves(&games, key, keep);
            assert_eq!(tuples(rows), want, "{key:?} {filter:?}");
        }
    }
    assert!(
        store
            .moves_many(PLAYER, &[], &Filter::default())
            .expect("no keys")
            .is_empty()
    );
}

/// A profile's accounts: recorded once per (source, name) whatever the case, read back
/// by source then name, per player.
pub fn accounts<S: GraphStore>(store: S) {
    use mirror_core::GameSource;
    use mirror_store::Account;
    assert!(store.accounts(PLAYER).expect("accounts").is_empty());
    let acc = |source, name: &str| Account {
        source,
        name: name.into(),
    };
    for a in [
        acc(GameSource::Lichess, "DrNykterstein"),
        acc(GameSource::Chesscom, "MagnusCarlsen"),
        acc(GameSource::Otb, "Carlsen,M"),
        acc(GameSource::Lichess, "drnykterstein"),
        acc(GameSource::Chesscom, "DrNykterstein"),
    ] {
        store.add_account("Magnus", &a).expect("add");
    }
    assert_eq!(
        store.accounts("magnus").expect("accounts"),
        vec![
            acc(GameSource::Otb, "Carlsen,M"),
            acc(GameSource::Chesscom, "DrNykterstein"),
            acc(GameSource::Chesscom, "MagnusCarlsen"),
            acc(GameSource::Lichess, "DrNykterstein"),
        ]
    );
    assert!(store.accounts("other").expect("accounts").is_empty());
    assert!(
        store
            .add_account("Magnus", &acc(GameSource::Otb, " "))
            .is_err()
    );
}

/// Drill records: none at first, each stored one read back exactly (by position then
/// colour), a second write replaces a card's record and leaves the others, players apart.
pub fn drill_records<S: GraphStore>(store: S) {
    use mirror_store::{DrillAnswer, DrillRecord};
    assert!(store.drill_records(PLAYER).expect("records").is_empty());
    let fresh = DrillRecord::new(PositionKey(0xF00D_0000_0000_0003), Color::Black);
    let mut answered = DrillRecord::new(PositionKey(42), Color::White);
    answered.memory = Some((2.3065, 2.118_104));
    answered.due = 1_796_000_000;
    answered.reviews = 2;
    answered.lapses = 1;
    answered.history = vec![
        DrillAnswer {
            at: 1_795_000_000,
            grade: 1,
            millis: 9_000,
        },
        DrillAnswer {
            at: 1_795_086_400,
            grade: 3,
            millis: 2_500,
        },
    ];
    let same_place_black = DrillRecord::new(PositionKey(42), Color::Black);
    store
        .put_drill_records(
            PLAYER,
            &[fresh.clone(), answered.clone(), same_place_black.clone()],
        )
        .expect("put");
    let mut want = vec![answered.clone(), same_place_black.clone(), fresh.clone()];
    assert_eq!(store.drill_records(PLAYER).expect("records"), want);
    // The name as written does not matter; another player has none.
    assert_eq!(
        store
            .drill_records(&PLAYER.to_uppercase())
            .expect("records"),
        want
    );
    assert!(
        store
            .drill_records("someone else")
            .expect("records")
            .is_empty()
    );
    let mut retired = answered.clone();
    retired.retired = true;
    retired.reviews = 3;
    store
        .put_drill_records(PLAYER, &[retired.clone()])
        .expect("put");
    want[0] = retired;
    assert_eq!(store.drill_records(PLAYER).expect("records"), want);
    store
        .put_drill_records(PLAYER, &[])
        .expect("nothing to put");
}

/// Recent games of a position: newest first, through the position, passing the filter.
pub fn recent_games<S: GraphStore>(store: S) {
    let games = sample_games(200);
    store.write_batch(PLAYER, &batch_of(&games)).expect("write");
    let key = start();
    let recent = store
        .recent_games(PLAYER, key, &Filter::default(), 5)
        .expect("recent");
    assert_eq!(recent.len(), 5);
    let mut newest: Vec<&GameRecord> = games.iter().map(|(g, _)| g).collect();
    newest.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| b.id.cmp(&a.id)));
    let want: Vec<_> = newest[..5].iter().map(|g| g.id.clone()).collect();
    let got: Vec<_> = recent.iter().map(|r| r.game.id.clone()).collect();
    assert_eq!(got, want, "the five newest games, newest first");
    assert!(recent.iter().all(|r| r.mv == r.game.moves[0]));
    // After 1. e4 as Black: only games with 1. e4 where the player was Black.
    let mut pos = Chess::default();
    {
        use shakmaty::Position;
        let m = games
            .iter()
            .find(|(g, c)| *c == Color::Black && g.moves[0].to_string() == "e2e4")
            .expect("a game as Black after 1. e4")
            .0
            .moves[0];
        pos.play_unchecked(m.to_move(&pos).expect("legal"));
    }
    let k = PositionKey::from_position(&pos);
    let black = Filter {
        color: Some(Color::Black),
        ..Filter::default()
    };
    let recent = store.recent_games(PLAYER, k, &black, 3).expect("recent");
    assert!(!recent.is_empty());
    assert!(
        recent
            .iter()
            .all(|r| r.color == Color::Black && r.game.moves[0].to_string() == "e2e4")
    );
    assert!(recent.windows(2).all(|w| w[0].game.date >= w[1].game.date));
    assert!(
        store
            .recent_games("nobody", k, &black, 3)
            .expect("recent")
            .is_empty()
    );
    // Every position of the first 16 plies of every 7th game, under three filters: exactly
    // the newest games through it that pass (a brute-force replay of all games).
    let mut by_age: Vec<&(GameRecord, Color)> = games.iter().collect();
    by_age.sort_by(|a, b| b.0.date.cmp(&a.0.date).then_with(|| b.0.id.cmp(&a.0.id)));
    let blitz_white = Filter {
        color: Some(Color::White),
        time_classes: vec![TimeClass::Blitz],
        ..Filter::default()
    };
    let mut checked = 0;
    for (g, _) in games.iter().step_by(7) {
        for ply in g.replay().take(16) {
            let pos = ply.expect("legal").key;
            for filter in [&Filter::default(), &black, &blitz_white] {
                let want: Vec<GameId> = by_age
                    .iter()
                    .filter_map(|(g, c)| {
                        mirror_store::recent_game(g.clone(), *c, pos, filter).map(|r| r.game.id)
                    })
                    .take(4)
                    .collect();
                let found = store.recent_games(PLAYER, pos, filter, 4).expect("recent");
                // Each game is at the position after its `ply` moves, and plays its `mv`.
                for r in &found {
                    let at = r
                        .game
                        .replay()
                        .nth(r.ply as usize)
                        .expect("a ply")
                        .expect("legal");
                    assert_eq!((at.key, at.code), (pos, r.mv), "{}", r.game.id);
                }
                let got: Vec<GameId> = found.into_iter().map(|r| r.game.id).collect();
                assert_eq!(got, want, "{pos:?} {filter:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "{checked}");
}

/// Fetch states round-trip per player and unit, and can be overwritten.
pub fn fetch_state<S: GraphStore>(store: S) {
    use mirror_store::FetchState;
    assert_eq!(
        store.fetch_state(PLAYER, "chess.com/2014-03").expect("get"),
        None
    );
    let s = FetchState {
        etag: Some("W/\"59035ea262f2b14549892c7ed8166109\"".into()),
        last_modified: Some("Thursday, 17-Oct-2024 22:34:57 GMT+0000".into()),
        complete: false,
        games: 162,
        cursor: None,
    };
    store
        .set_fetch_state(PLAYER, "chess.com/2014-03", &s)
        .expect("set");
    assert_eq!(
        store
            .fetch_state("biskupstunga", "chess.com/2014-03")
            .expect("get"),
        Some(s)
    );
    assert_eq!(
        store
            .fetch_state("other", "chess.com/2014-03")
            .expect("get"),
        None
    );
    let done = FetchState {
        complete: true,
        cursor: Some(1_391_648_083_000),
        ..FetchState::default()
    };
    store
        .set_fetch_state(PLAYER, "chess.com/2014-03", &done)
        .expect("set");
    assert_eq!(
        store.fetch_state(PLAYER, "chess.com/2014-03").expect("get"),
        Some(done)
    );
}

/// Evaluations are kept on the positions, shared by every player: read back as written,
/// replaced only by a deeper search (or an engine's where a comment's was), and nothing
/// for a position without one.
pub fn evaluations<S: GraphStore>(store: S) {
    use mirror_core::evaluation::{EvalScore, EvalSource, Evaluation};
    let games = sample_games(40);
    store.write_batch(PLAYER, &batch_of(&games)).expect("write");
    let root = start();
    let child = store
        .moves(PLAYER, root, &Filter::default())
        .expect("moves")
        .first()
        .map(|r| r.child)
        .expect("a move from the start");
    let unknown = PositionKey(12345);
    assert_eq!(
        store.evaluations(&[root, child, unknown]).expect("read"),
        vec![None, None, None]
    );
    let at = |score, best: Option<&str>, depth, source| Evaluation {
        score,
        best: best.map(str::to_string),
        depth,
        engine: "Stockfish 15.1".into(),
        source,
    };
    let root_eval = at(EvalScore::Cp(31), Some("e2e4"), 8, EvalSource::Engine);
    let child_eval = at(EvalScore::Mate(-3), None, 0, EvalSource::Comment);
    assert_eq!(
        store
            .write_evaluations(&[(root, root_eval.clone()), (child, child_eval.clone())])
            .expect("write"),
        2
    );
    assert_eq!(
        store.evaluations(&[unknown, child, root]).expect("read"),
        vec![None, Some(child_eval), Some(root_eval.clone())]
    );
    // Shallower or as deep: kept as it was. Deeper, or an engine over a comment: replaced.
    let shallow = at(EvalScore::Cp(5), Some("d2d4"), 6, EvalSource::Engine);
    let deeper = at(EvalScore::Cp(25), Some("d2d4"), 12, EvalSource::Engine);
    let engine = at(EvalScore::Cp(-410), Some("g8f6"), 0, EvalSource::Engine);
    assert_eq!(
        store
            .write_evaluations(&[(root, shallow), (root, root_eval.clone())])
            .expect("write"),
        0
    );
    assert_eq!(
        store.evaluations(&[root]).expect("read"),
        vec![Some(root_eval)]
    );
    assert_eq!(
        store
            .write_evaluations(&[(root, deeper.clone()), (child, engine.clone())])
            .expect("write"),
        2
    );
    assert_eq!(
        store.evaluations(&[root, child]).expect("read"),
        vec![Some(deeper), Some(engine)]
    );
    assert_eq!(store.write_evaluations(&[]).expect("nothing"), 0);
}

/// Expands to one `#[test]` per conformance check, the one list every backend runs.
/// `$with` names a function `fn(test: &str, check: impl FnOnce(Store, Reference))` that
/// calls `check` with a fresh, empty store of the backend and a fresh, empty store to
/// compare it with (another of the same backend, or the embedded store, which passes the
/// suite itself), or skips the test loudly when the backend is unavailable.
#[macro_export]
macro_rules! conformance_tests {
    ($with:path) => {
        #[test]
        fn empty_store() {
            $with(stringify!(empty_store), |store, _| {
                $crate::conformance::empty_store(store)
            });
        }
        #[test]
        fn write_and_read_back() {
            $with(stringify!(write_and_read_back), |store, _| {
                $crate::conformance::write_and_read_back(store)
            });
        }
        #[test]
        fn reingest_is_refused() {
            $with(stringify!(reingest_is_refused), |store, _| {
                $crate::conformance::reingest_is_refused(store)
            });
        }
        #[test]
        fn batches_merge_exactly() {
            $with(stringify!(batches_merge_exactly), |store, reference| {
                $crate::conformance::batches_merge_exactly(reference, store)
            });
        }
        #[test]
        fn several_players_in_one_write() {
            $with(
                stringify!(several_players_in_one_write),
                |store, reference| {
                    $crate::conformance::several_players_in_one_write(store, reference)
                },
            );
        }
        #[test]
        fn filters() {
            $with(stringify!(filters), |store, _| {
                $crate::conformance::filters(store)
            });
        }
        #[test]
        fn moves_many() {
            $with(stringify!(moves_many), |store, _| {
                $crate::conformance::moves_many(store)
            });
        }
        #[test]
        fn recent_games() {
            $with(stringify!(recent_games), |store, _| {
                $crate::conformance::recent_games(store)
            });
        }
        #[test]
        fn drill_records() {
            $with(stringify!(drill_records), |store, _| {
                $crate::conformance::drill_records(store)
            });
        }
        #[test]
        fn fetch_state() {
            $with(stringify!(fetch_state), |store, _| {
                $crate::conformance::fetch_state(store)
            });
        }
        #[test]
        fn accounts() {
            $with(stringify!(accounts), |store, _| {
                $crate::conformance::accounts(store)
            });
        }
        #[test]
        fn evaluations() {
            $with(stringify!(evaluations), |store, _| {
                $crate::conformance::evaluations(store)
            });
        }
    };
}
