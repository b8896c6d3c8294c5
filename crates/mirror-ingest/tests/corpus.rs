//! `--all-players` on real master games: each profile equals a one-player ingest of that
//! player from the same file, a second run adds nothing, and a file given twice counts
//! once; a player with a broken game still gets the rest.

use std::path::PathBuf;

use mirror_ingest::{
    IngestOptions, Input, NoProgress, Source,
    corpus::{CorpusOptions, count_players, ingest_corpus},
    ingest,
};
use mirror_store::{
    GraphRead,
    embedded::{EmbeddedStore, OpenMode},
};

fn leko() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn/masters/Leko.pgn.zst")
}

fn inputs(files: &[PathBuf]) -> Vec<Input> {
    files
        .iter()
        .map(|p| Input::from_source(Source::File(p.clone())))
        .collect()
}

/// The games of each committed transaction.
#[derive(Default)]
struct Writes(Vec<u64>);

impl mirror_ingest::Progress for Writes {
    fn committed(&mut self, report: &mirror_store::WriteReport, _: &mirror_ingest::Summary) {
        self.0.push(report.games);
    }
}

fn store(dir: &tempfile::TempDir, name: &str) -> EmbeddedStore {
    EmbeddedStore::open(&dir.path().join(name), OpenMode::CreateIfMissing).expect("open")
}

/// Small chunks and buffers, so that a large player's games span several transactions and a
/// transaction holds several players.
fn opts(min_games: u64) -> CorpusOptions {
    CorpusOptions {
        min_games,
        batch_size: 300,
        buffer: 700,
    }
}

#[test]
fn every_profile_equals_a_one_player_ingest_of_that_player() {
    let dir = tempfile::tempdir().expect("tempdir");
    let all = store(&dir, "all.redb");
    let files = [leko()];
    let roster = count_players(inputs(&files), &mut NoProgress).expect("count");
    let players = roster.players(15);
    assert!(players.len() >= 10, "{players:?}");
    assert!(roster.players(1).len() > players.len());
    let mut writes = Writes::default();
    let s = ingest_corpus(&all, inputs(&files), &roster, &opts(15), &mut writes).expect("ingest");
    assert_eq!(s.duplicates, 0);
    assert!(
        writes.0.iter().all(|&n| n <= 300),
        "no transaction over the batch size, Leko's games included: {:?}",
        writes.0
    );
    assert!(writes.0.len() > 3);
    assert!(s.other_players > 0, "games without a profiled player");

    let stored: Vec<String> = all
        .players()
        .expect("players")
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(stored.len(), players.len(), "{stored:?}");
    let mut sides = 0;
    // The most active (Leko), and players at the other end of the list (near the minimum).
    let checked: Vec<&(&str, u64)> = players
        .iter()
        .take(3)
        .chain(players.iter().rev().take(3))
        .collect();
    for (name, games) in checked {
        let one = store(
            &dir,
            &format!("{}.redb", name.replace(|c: char| !c.is_alphanumeric(), "_")),
        );
        let mut o = IngestOptions::new(*name);
        o.batch_size = 250;
        let single = ingest(&one, &[Source::File(leko())], &o, &mut NoProgress).expect("one");
        assert!(
            single.ingested <= *games,
            "{name}: {} > {games}",
            single.ingested
        );
        assert_eq!(
            all.edges(name).expect("e"),
            one.edges(name).expect("e"),
            "{name}"
        );
        assert_eq!(
            all.counts(name).expect("c"),
            one.counts(name).expect("c"),
            "{name}"
        );
        let mut a = all.games(name).expect("g");
        let mut b = one.games(name).expect("g");
        a.sort_by(|x, y| x.0.id.cmp(&y.0.id));
        b.sort_by(|x, y| x.0.id.cmp(&y.0.id));
        assert_eq!(a, b, "{name}");
        sides += single.ingested;
    }
    assert!(sides > 0);
    let total: u64 = stored.iter().map(|p| all.counts(p).expect("c").games).sum();
    assert_eq!(total, s.ingested, "every game-side counted once");

    // Again: nothing new, every game-side a duplicate.
    let again =
        ingest_corpus(&all, inputs(&files), &roster, &opts(15), &mut NoProgress).expect("again");
    assert_eq!((again.ingested, again.duplicates), (0, s.ingested));
}

#[test]
fn a_file_given_twice_counts_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let once = store(&dir, "once.redb");
    let twice = store(&dir, "twice.redb");
    let one = [leko()];
    let two = [leko(), leko()];
    let roster = count_players(inputs(&one), &mut NoProgress).expect("count");
    let s1 = ingest_corpus(&once, inputs(&one), &roster, &opts(40), &mut NoProgress).expect("1");
    let roster2 = count_players(inputs(&two), &mut NoProgress).expect("count");
    // Every count doubles, so half the minimum gives the same players.
    assert_eq!(roster2.players(80).len(), roster.players(40).len());
    let s2 = ingest_corpus(&twice, inputs(&two), &roster2, &opts(80), &mut NoProgress).expect("2");
    assert_eq!(s2.ingested, s1.ingested);
    assert_eq!(s2.duplicates, s1.ingested);
    for p in once.players().expect("players") {
        assert_eq!(
            once.edges(&p.name).expect("e"),
            twice.edges(&p.name).expect("e")
        );
    }
}

/// A player's games are held until the last one is read; a counted game that does not
/// decode keeps its player waiting until the end of the inputs, and the rest of their
/// games are written then, as a one-player ingest writes them.
#[test]
fn a_player_whose_counted_game_is_broken_gets_the_rest_at_the_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = String::from_utf8(
        zstd::decode_all(std::fs::File::open(leko()).expect("open")).expect("zstd"),
    )
    .expect("utf-8");
    // The file's first game is Leko's (as "Leko, Peter"); 3. Nd5 is illegal there.
    let first = "1.e4 e6 2.d4 d5 3.Nd2 c5 4.exd5";
    let second = text[1..].find("[Event").expect("more than one game") + 1;
    assert!(text[..second].contains(first), "the first game is Leko's");
    let broken = dir.path().join("leko-broken.pgn");
    std::fs::write(
        &broken,
        text.replacen(first, "1.e4 e6 2.d4 d5 3.Nd5 c5 4.exd5", 1),
    )
    .expect("write");
    let files = [broken.clone()];
    let roster = count_players(inputs(&files), &mut NoProgress).expect("count");
    let leko_games = roster
        .players(15)
        .into_iter()
        .find(|(n, _)| *n == "Leko, Peter")
        .expect("Leko is profiled");
    let all = store(&dir, "all.redb");
    let mut writes = Writes::default();
    let s = ingest_corpus(&all, inputs(&files), &roster, &opts(15), &mut writes).expect("ingest");
    assert_eq!(s.invalid, 1, "the broken game");
    let one = store(&dir, "one.redb");
    let mut o = IngestOptions::new(leko_games.0);
    o.batch_size = 250;
    let single = ingest(&one, &[Source::File(broken)], &o, &mut NoProgress).expect("one");
    assert_eq!(
        single.ingested,
        leko_games.1 - 1,
        "every counted game but the broken one"
    );
    assert_eq!(all.counts(leko_games.0).expect("c").games, single.ingested);
    assert_eq!(
        all.edges(leko_games.0).expect("e"),
        one.edges(leko_games.0).expect("e")
    );
}

/// Stops after its `after`-th committed transaction (the stop a server's job asks for).
struct StopAfter {
    after: usize,
    written: Vec<u64>,
}

impl mirror_ingest::Progress for StopAfter {
    fn committed(&mut self, report: &mirror_store::WriteReport, _: &mirror_ingest::Summary) {
        self.written.push(report.games);
    }

    fn cancelled(&self) -> bool {
        self.written.len() >= self.after
    }
}

/// Asked to stop, the corpus ingest stops after the transaction it is writing, which
/// stays; run again, it ends with every game-side counted once, as an ingest never
/// stopped.
#[test]
fn a_stopped_corpus_ingest_keeps_what_it_wrote_and_resumes_without_double_counting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = [leko()];
    let roster = count_players(inputs(&files), &mut NoProgress).expect("count");
    let whole = store(&dir, "whole.redb");
    let all =
        ingest_corpus(&whole, inputs(&files), &roster, &opts(15), &mut NoProgress).expect("whole");

    let stopped = store(&dir, "stopped.redb");
    let mut stop = StopAfter {
        after: 2,
        written: Vec::new(),
    };
    let err = ingest_corpus(&stopped, inputs(&files), &roster, &opts(15), &mut stop)
        .expect_err("stopped");
    assert!(
        matches!(err, mirror_ingest::IngestError::Cancelled),
        "{err}"
    );
    assert_eq!(stop.written.len(), 2, "no transaction after the stop");
    let kept: u64 = stopped
        .players()
        .expect("players")
        .iter()
        .map(|p| stopped.counts(&p.name).expect("c").games)
        .sum();
    assert_eq!(kept, stop.written.iter().sum::<u64>());
    assert!(
        kept > 0 && kept < all.ingested,
        "{kept} of {}",
        all.ingested
    );

    // The first pass stops too (it asks before each input and every 10,000 games).
    let mut at_once = StopAfter {
        after: 0,
        written: Vec::new(),
    };
    assert!(matches!(
        count_players(inputs(&files), &mut at_once),
        Err(mirror_ingest::IngestError::Cancelled)
    ));

    let rest = ingest_corpus(
        &stopped,
        inputs(&files),
        &roster,
        &opts(15),
        &mut NoProgress,
    )
    .expect("resumed");
    assert_eq!(rest.ingested + kept, all.ingested);
    assert_eq!(rest.duplicates, kept);
    for p in whole.players().expect("players") {
        assert_eq!(
            whole.edges(&p.name).expect("e"),
            stopped.edges(&p.name).expect("e"),
            "{}",
            p.name
        );
    }
}
