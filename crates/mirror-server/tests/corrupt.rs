//! One policy for a stored row that makes no sense (here: a move that is not legal in its
//! position, as a damaged store or a hash collision would give): the explorer and the move
//! endpoint both answer a JSON 500 naming the position and the move, and the server goes
//! on answering.

use std::sync::Arc;

use axum::{body::Body, http::Request};
use mirror_core::{GameId, GameRecord, MoveCode, PositionKey, batch::Batch, notation, time::Date};
use mirror_server::{AppState, router};
use mirror_store::{
    Accounts, EdgeRow, FetchState, Filter, GraphRead, GraphWrite, MoveRow, PlayerCounts,
    PlayerInfo, RecentGame, Result, WriteReport,
    embedded::{EmbeddedStore, OpenMode},
};
use mirror_testkit::conformance::{PLAYER, sample_games};
use shakmaty::{Chess, Color};
use tower::ServiceExt;

/// A real store whose answers at the start position carry one damaged row: the first
/// move's code replaced by Black's a7-a5, which White cannot play.
struct Damaged(EmbeddedStore);

fn black_a5() -> MoveCode {
    let after_e4 =
        notation::parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
            .expect("fen");
    let m = notation::parse_move(&after_e4, "a5").expect("legal for Black");
    MoveCode::from_move(&m).expect("a plain move")
}

impl GraphRead for Damaged {
    fn ingested(&self, player: &str, ids: &[GameId]) -> Result<Vec<GameId>> {
        self.0.ingested(player, ids)
    }

    fn moves(&self, player: &str, pos: PositionKey, filter: &Filter) -> Result<Vec<MoveRow>> {
        let mut rows = self.0.moves(player, pos, filter)?;
        if pos == PositionKey::from_position(&Chess::default())
            && let Some(first) = rows.first_mut()
        {
            first.mv = black_a5();
        }
        Ok(rows)
    }

    fn edges(&self, player: &str) -> Result<Vec<EdgeRow>> {
        self.0.edges(player)
    }

    fn games(&self, player: &str) -> Result<Vec<(GameRecord, Color)>> {
        self.0.games(player)
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>> {
        self.0.game(id)
    }

    fn position_epd(&self, pos: PositionKey) -> Result<Option<String>> {
        self.0.position_epd(pos)
    }

    fn players(&self) -> Result<Vec<PlayerInfo>> {
        self.0.players()
    }

    fn counts(&self, player: &str) -> Result<PlayerCounts> {
        self.0.counts(player)
    }

    fn position_count(&self) -> Result<u64> {
        self.0.position_count()
    }

    fn recent_games(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<RecentGame>> {
        self.0.recent_games(player, pos, filter, limit)
    }

    fn newest_date(&self, player: &str) -> Result<Option<Date>> {
        self.0.newest_date(player)
    }

    fn fetch_state(&self, player: &str, unit: &str) -> Result<Option<FetchState>> {
        self.0.fetch_state(player, unit)
    }

    fn evaluations(&self, keys: &[PositionKey]) -> Result<Vec<Option<mirror_store::Evaluation>>> {
        self.0.evaluations(keys)
    }
}

impl GraphWrite for Damaged {
    fn write_batch(&self, player: &str, batch: &Batch) -> Result<WriteReport> {
        self.0.write_batch(player, batch)
    }

    fn set_fetch_state(&self, player: &str, unit: &str, state: &FetchState) -> Result<()> {
        self.0.set_fetch_state(player, unit, state)
    }

    fn write_evaluations(
        &self,
        evals: &[(PositionKey, mirror_store::Evaluation)],
    ) -> Result<usize> {
        self.0.write_evaluations(evals)
    }
}

impl mirror_store::Drills for Damaged {
    fn drill_records(&self, player: &str) -> Result<Vec<mirror_store::DrillRecord>> {
        self.0.drill_records(player)
    }

    fn put_drill_records(&self, player: &str, records: &[mirror_store::DrillRecord]) -> Result<()> {
        self.0.put_drill_records(player, records)
    }
}

impl Accounts for Damaged {
    fn accounts(&self, player: &str) -> Result<Vec<mirror_store::Account>> {
        self.0.accounts(player)
    }

    fn add_account(&self, player: &str, account: &mirror_store::Account) -> Result<()> {
        self.0.add_account(player, account)
    }
}

/// The status and JSON body of `GET path`.
async fn get(app: axum::Router, path: String) -> (u16, serde_json::Value) {
    let resp = app
        .oneshot(Request::get(path).body(Body::empty()).expect("request"))
        .await
        .expect("answer");
    let status = resp.status().as_u16();
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
        .await
        .expect("body");
    let json: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    (status, json)
}

/// The explorer's and the move endpoint's answers at the start position, each a JSON
/// 500: their error messages.
async fn errors_at_the_start(app: &axum::Router) -> Vec<String> {
    let user = PLAYER.replace(' ', "%20");
    let mut errors = Vec::new();
    for path in [
        format!("/api/v1/explore?user={user}&color=white"),
        format!("/api/v1/move?user={user}&sample=false"),
    ] {
        let (status, body) = get(app.clone(), path.clone()).await;
        assert_eq!(status, 500, "{path}: {body}");
        errors.push(body["error"].as_str().expect("error").to_string());
    }
    errors
}

#[tokio::test]
async fn a_damaged_row_is_a_json_500_naming_it_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    store
        .write_batch(
            PLAYER,
            &Batch::from_games(&sample_games(60)).expect("legal"),
        )
        .expect("write");
    let app = router(AppState::new(Arc::new(Damaged(store)), 4));
    let user = PLAYER.replace(' ', "%20");
    for error in errors_at_the_start(&app).await {
        assert!(error.contains("corrupt store data"), "{error}");
        assert!(
            error.contains("a7a5") && error.contains("not legal"),
            "{error}"
        );
    }
    // Elsewhere in the tree the server answers as before.
    let (status, body) = get(app, format!("/api/v1/explore?user={user}&play=e2e4")).await;
    assert_eq!(status, 200, "{body}");
}

/// The same policy for a store file damaged on disk: the statistics of every stored row
/// of 1. e4 (edge rows and move totals, found in the file by the key of the position
/// the move leads to) overwritten with bytes that cannot be counts. The explorer and the
/// move endpoint answer a JSON 500 naming the position and the move whose row is damaged,
/// and the rest of the tree still answers.
#[tokio::test]
async fn a_store_file_damaged_on_disk_is_a_json_500() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    {
        let store = EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect("open");
        store
            .write_batch(
                PLAYER,
                &Batch::from_games(&sample_games(60)).expect("legal"),
            )
            .expect("write");
    }
    let after_e4 =
        notation::parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
            .expect("fen");
    let child = PositionKey::from_position(&after_e4).to_be_bytes();
    let mut bytes = std::fs::read(&path).expect("read");
    // A row's value: the statistics without their times, then the child's key (then the
    // times, when the row has any).
    let stats_len = mirror_core::stats::STATS_UNTIMED_LEN;
    let mut damaged = 0;
    for at in stats_len..bytes.len().saturating_sub(child.len()) {
        let mut stats = [0u8; mirror_core::stats::STATS_LEN];
        stats[..stats_len].copy_from_slice(&bytes[at - stats_len..at]);
        if bytes[at..at + child.len()] == child && mirror_core::MoveStats::decode(&stats).is_some()
        {
            bytes[at - stats_len..at].fill(0xff);
            damaged += 1;
        }
    }
    assert!(
        damaged >= 2,
        "an edge row and a move total of 1. e4: {damaged}"
    );
    std::fs::write(&path, &bytes).expect("write");

    let store = EmbeddedStore::open(&path, OpenMode::MustExist).expect("reopen");
    let app = router(AppState::new(Arc::new(store), 4));
    let user = PLAYER.replace(' ', "%20");
    for error in errors_at_the_start(&app).await {
        let start = PositionKey::from_position(&Chess::default());
        assert!(
            error.contains("corrupt store data")
                && error.contains(&format!("position {start}: the row of the move e2e4")),
            "{error}"
        );
    }
    let (status, body) = get(app, format!("/api/v1/explore?user={user}&play=d2d4")).await;
    assert_eq!(status, 200, "{body}");
}
