//! The conformance suite against a live Neo4j 5.26: the test server of
//! `tests/neo4j/run.sh`, started once for this test binary (`mirror_testkit::shared`), one
//! test at a time, emptied before each. CI requires it (`MIRROR_REQUIRE_NEO4J=1`); a
//! machine without Java skips loudly.

#![cfg(feature = "neo4j")]

use mirror_core::{PositionKey, batch::Batch};
use mirror_store::{
    Filter, GraphRead, GraphWrite,
    embedded::{EmbeddedStore, OpenMode},
    neo4j::{Neo4jConfig, Neo4jStore},
    repertoire::{RepertoireOptions, repertoire},
    report::{self, ReportOptions},
};
use mirror_testkit::conformance::{self, PLAYER, sample_games};
use shakmaty::{CastlingMode, Chess, Color, fen::Epd};

/// A store on the shared server, emptied, and the lock that keeps other tests out.
fn fresh(test: &str) -> Option<(mirror_testkit::Shared, Neo4jStore)> {
    let server = mirror_testkit::shared(&format!("neo4j::{test}"))?;
    let store = Neo4jStore::connect(Neo4jConfig::new(server.uri())).expect("connect to Neo4j");
    mirror_store::neo4j::bench::wipe(&store).expect("wipe");
    Some((server, store))
}

/// Every conformance check (the embedded store's list), against the emptied shared server
/// and, where a check compares two stores, an embedded one.
fn with(test: &str, check: impl FnOnce(Neo4jStore, EmbeddedStore)) {
    let Some((_server, neo)) = fresh(test) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let emb =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    check(neo, emb);
}

mirror_testkit::conformance_tests!(with);

/// A graph written before schema versions (moves without `opp`, no version mark) is
/// refused on connect with the way to rebuild it; an empty graph is marked and accepted.
#[test]
fn an_old_graph_is_refused_with_how_to_rebuild_it() {
    let Some((server, store)) = fresh("an_old_graph_is_refused_with_how_to_rebuild_it") else {
        return;
    };
    store
        .write_batch(PLAYER, &Batch::from_games(&sample_games(5)).expect("legal"))
        .expect("write");
    drop(store);
    // What an older mirror left: the moves, without the version mark.
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let cypher = |text: &'static str| {
        rt.block_on(async {
            let g = neo4rs::Graph::new(server.uri(), "neo4j", "")
                .await
                .expect("bolt");
            g.run(neo4rs::query(text)).await.expect(text);
        });
    };
    cypher("MATCH (s:MirrorSchema) DELETE s");
    let err = Neo4jStore::connect(Neo4jConfig::new(server.uri())).expect_err("old graph");
    let text = err.to_string();
    assert!(
        text.contains("schema version 0") && text.contains("rebuild it"),
        "{text}"
    );
    // Emptied, the same database is a new graph again.
    cypher("MATCH (n) DETACH DELETE n");
    let again = Neo4jStore::connect(Neo4jConfig::new(server.uri())).expect("a new graph");
    mirror_store::neo4j::bench::wipe(&again).expect("wipe");
}

#[test]
fn same_answers_as_the_embedded_store() {
    let Some((_server, neo)) = fresh("same_answers_as_the_embedded_store") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let emb =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    let games = sample_games(150);
    for chunk in games.chunks(40) {
        let b = Batch::from_games(chunk).expect("legal");
        emb.write_batch(PLAYER, &b).expect("embedded");
        neo.write_batch(PLAYER, &b).expect("neo4j");
    }
    conformance::assert_same_graph(&neo, &emb);
    assert_eq!(neo.games(PLAYER).expect("g"), emb.games(PLAYER).expect("g"));
    // The report, which reads the rows and the games one at a time: the same on both,
    // apart from the pace's sums, added up in each store's order of the games.
    for opts in [
        ReportOptions {
            min_games: 2,
            ..ReportOptions::default()
        },
        ReportOptions {
            color: Some(Color::Black),
            min_games: 3,
            ..ReportOptions::default()
        },
    ] {
        let mut on_neo = report::report(&neo, PLAYER, &opts).expect("neo4j report");
        let mut on_emb = report::report(&emb, PLAYER, &opts).expect("embedded report");
        // Something to compare: positions where the player varies, and the surprises'
        // and drift's tests run on the same positions.
        assert!(
            !on_emb.deviations.is_empty(),
            "deviations {}, costly {}, slow {}",
            on_emb.deviations.len(),
            on_emb.costly.len(),
            on_emb.clock.slow.len()
        );
        for stage in 0..3 {
            for band in 0..4 {
                let (a, n) = on_neo.clock.pace.cell(stage, band);
                let (b, m) = on_emb.clock.pace.cell(stage, band);
                assert_eq!(n, m);
                assert!((a.unwrap_or(0.0) - b.unwrap_or(0.0)).abs() < 1e-12);
            }
        }
        on_neo.clock.pace = Default::default();
        on_emb.clock.pace = Default::default();
        assert_eq!(on_neo, on_emb);
    }
    // The repertoire (one read of the store per ply): the same tree on both.
    for color in [Color::White, Color::Black] {
        let opts = RepertoireOptions {
            color,
            min_games: 2,
            depth: 8,
            ..RepertoireOptions::default()
        };
        let on_neo = repertoire(&neo, PLAYER, &opts).expect("neo4j repertoire");
        let on_emb = repertoire(&emb, PLAYER, &opts).expect("embedded repertoire");
        assert!(on_emb.size > 10, "{}", on_emb.size);
        assert_eq!(on_neo, on_emb);
    }
}

#[test]
fn example_queries_agree_with_the_embedded_analyses() {
    use mirror_store::{analysis, neo4j};
    let Some((_server, neo)) = fresh("example_queries_agree_with_the_embedded_analyses") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let emb =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    let b = Batch::from_games(&sample_games(300)).expect("legal");
    emb.write_batch(PLAYER, &b).expect("embedded");
    neo.write_batch(PLAYER, &b).expect("neo4j");
    let player = "biskupstunga";

    let rows = neo
        .example(neo4j::EX_TRANSPOSITIONS, vec![("player", player.into())])
        .expect("transpositions");
    let mut got: Vec<(String, i64)> = rows
        .iter()
        .map(|r| {
            (
                r.get::<String>("epd").expect("epd"),
                r.get::<i64>("orders").expect("orders"),
            )
        })
        .collect();
    got.sort();
    let mut want: Vec<(String, i64)> = analysis::transpositions(&emb, PLAYER)
        .expect("t")
        .into_iter()
        .map(|(k, n)| (emb.position_epd(k).expect("epd").expect("stored"), n as i64))
        .collect();
    want.sort();
    want.truncate(got.len());
    assert_eq!(got.len(), want.len().min(50));

    let rows = neo
        .example(
            neo4j::EX_WORST,
            vec![("player", player.into()), ("minGames", 10i64.into())],
        )
        .expect("worst");
    let got: Vec<String> = rows
        .iter()
        .map(|r| r.get::<String>("epd").expect("epd"))
        .collect();
    let want: Vec<String> = analysis::worst_positions(&emb, PLAYER, 10, 20)
        .expect("w")
        .into_iter()
        .map(|(k, _, _)| emb.position_epd(k).expect("epd").expect("stored"))
        .collect();
    assert_eq!(got, want);

    // most_played: the same (position, move, games) above the cut-off's tie.
    let rows = neo
        .example(
            neo4j::EX_MOST_PLAYED,
            vec![("player", player.into()), ("limit", 40i64.into())],
        )
        .expect("most played");
    let got: Vec<(String, String, i64)> = rows
        .iter()
        .map(|r| {
            (
                r.get::<String>("epd").expect("epd"),
                r.get::<String>("uci").expect("uci"),
                r.get::<i64>("games").expect("games"),
            )
        })
        .collect();
    assert_eq!(got.len(), 40);
    let cut = got.last().expect("rows").2;
    let mut got: Vec<_> = got.into_iter().filter(|r| r.2 > cut).collect();
    let mut want: Vec<(String, String, i64)> = analysis::most_played(&emb, PLAYER, 1000)
        .expect("m")
        .into_iter()
        .filter(|(_, _, g)| i64::from(*g) > cut)
        .map(|(k, mv, g)| {
            (
                emb.position_epd(k).expect("epd").expect("stored"),
                mv.to_string(),
                i64::from(g),
            )
        })
        .collect();
    got.sort();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    // slow positions: the report's, slowest first (one time class: the same order as the
    // ratio to the usual move), each with its average time.
    let opts = mirror_store::report::ReportOptions {
        filter: Filter {
            time_classes: vec![mirror_core::TimeClass::Blitz],
            ..Default::default()
        },
        min_games: 4,
        ..Default::default()
    };
    let slow = mirror_store::report::report(&emb, PLAYER, &opts)
        .expect("report")
        .clock
        .slow;
    assert!(!slow.is_empty(), "the sample's games have clocks");
    let rows = neo
        .example(
            neo4j::EX_SLOW,
            vec![
                ("player", player.into()),
                ("timeClass", "blitz".into()),
                ("minGames", 4i64.into()),
                ("limit", (slow.len() as i64).into()),
            ],
        )
        .expect("slow positions");
    let got: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r.get::<String>("epd").expect("epd"),
                r.get::<f64>("seconds").expect("seconds"),
            )
        })
        .collect();
    assert_eq!(got.len(), slow.len());
    for ((epd, seconds), s) in got.iter().zip(&slow) {
        let want = emb.position_epd(s.place.pos).expect("epd").expect("stored");
        assert_eq!(
            (epd, (seconds - s.seconds).abs() < 1e-9),
            (&want, true),
            "{s:?}"
        );
    }
    // deviations: the same positions, leaving out those where a side's most common move
    // is tied (the query breaks ties by UCI text, the embedded analysis by move code).
    let rows = neo
        .example(
            neo4j::EX_DEVIATIONS,
            vec![("player", player.into()), ("minGames", 5i64.into())],
        )
        .expect("deviations");
    let tied = |pos: PositionKey| {
        [Color::White, Color::Black].iter().any(|c| {
            let m = emb
                .moves(
                    PLAYER,
                    pos,
                    &Filter {
                        color: Some(*c),
                        ..Filter::default()
                    },
                )
                .expect("moves");
            m.len() >= 2 && m[0].stats.games() == m[1].stats.games()
        })
    };
    let key_of_epd = |epd: &str| {
        let pos: Chess = epd
            .parse::<Epd>()
            .expect("epd")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        PositionKey::from_position(&pos)
    };
    let mut got: Vec<PositionKey> = rows
        .iter()
        .map(|r| key_of_epd(&r.get::<String>("epd").expect("epd")))
        .filter(|k| !tied(*k))
        .collect();
    let mut want: Vec<PositionKey> = analysis::deviations(&emb, PLAYER, 5)
        .expect("d")
        .into_iter()
        .map(|d| d.pos)
        .filter(|k| !tied(*k))
        .collect();
    assert!(rows.len() < 50, "below the query's LIMIT");
    got.sort();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

/// neo4rs 0.8 cannot read the IGNORED replies that follow a failure inside a transaction:
/// the store sends nothing more on a failed transaction, and the pool resets the
/// connection before reusing it. With a single connection, a failed statement must leave
/// the next ones working.
#[test]
fn a_failed_statement_leaves_the_connection_usable() {
    let Some((server, emptied)) = fresh("a_failed_statement") else {
        return;
    };
    drop(emptied);
    let store = Neo4jStore::connect(Neo4jConfig {
        max_connections: 1,
        ..Neo4jConfig::new(server.uri())
    })
    .expect("connect");
    for _ in 0..3 {
        let err = store
            .example(
                mirror_store::neo4j::EX_MOST_PLAYED,
                vec![("player", "x".into()), ("limit", (-1i64).into())],
            )
            .expect_err("LIMIT -1 is refused by the server");
        let chain = format!("{err}: {:?}", std::error::Error::source(&err));
        assert!(
            chain.contains("cannot run cypher/examples/most_played.cypher"),
            "{chain}"
        );
        assert!(chain.contains("Neo.ClientError"), "{chain}");
        assert_eq!(store.players().expect("the connection works again"), vec![]);
    }
    let b = Batch::from_games(&sample_games(5)).expect("legal");
    store.write_batch(PLAYER, &b).expect("write after failures");
    assert_eq!(store.counts(PLAYER).expect("counts").games, 5);
}

/// Several clients setting up a new graph at once (two `mirror serve` started together,
/// an ingest beside a server): each finds the constraints missing, one creates them, and
/// every other must still connect (Neo4j refuses its `CREATE ... IF NOT EXISTS` with
/// `EquivalentSchemaRuleAlreadyExists` when the rule appeared after it looked).
#[test]
fn clients_that_set_up_a_new_graph_at_once_all_connect() {
    let Some(server) = mirror_testkit::private(
        "neo4j::clients_that_set_up_a_new_graph_at_once_all_connect",
        &mirror_testkit::ServerOptions::default(),
    ) else {
        return;
    };
    let clients = 8;
    let start = std::sync::Barrier::new(clients);
    let outcomes: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                scope.spawn(|| {
                    start.wait();
                    Neo4jStore::connect(Neo4jConfig::new(server.uri()))
                        .map(drop)
                        .map_err(|e| format!("{e}: {:?}", std::error::Error::source(&e)))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client thread panicked"))
            .collect()
    });
    for outcome in &outcomes {
        assert!(outcome.is_ok(), "every client connects: {outcomes:?}");
    }
    // One version mark, whoever wrote it.
    let marks = tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async {
            let g = neo4rs::Graph::new(server.uri(), "neo4j", "")
                .await
                .expect("bolt");
            let mut rows = g
                .execute(neo4rs::query(
                    "MATCH (s:MirrorSchema) RETURN count(s) AS n, collect(s.version) AS v",
                ))
                .await
                .expect("count the marks");
            let row = rows.next().await.expect("a row").expect("one row");
            (
                row.get::<i64>("n").expect("n"),
                row.get::<Vec<i64>>("v").expect("v"),
            )
        });
    assert_eq!(marks.0, 1, "one schema mark: {marks:?}");
    let store = Neo4jStore::connect(Neo4jConfig::new(server.uri())).expect("connect again");
    let b = Batch::from_games(&sample_games(5)).expect("legal");
    store.write_batch(PLAYER, &b).expect("write");
    assert_eq!(store.counts(PLAYER).expect("counts").games, 5);
}
