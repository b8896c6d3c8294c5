//! What an evaluation needs besides the measuring: the player's book built from their
//! training games only, and the check that a model was trained on the same split.

use std::path::Path;

use mirror_core::{GameRecord, batch::Batch};
use mirror_model::Predictor;
use mirror_store::{
    GraphWrite,
    embedded::{EmbeddedStore, OpenMode},
};
use shakmaty::Color;

use crate::{EvalError, report::SplitInfo};

/// The player's training games as a throwaway embedded store: the book the engine sees.
pub fn book_store(
    player: &str,
    games: &[(GameRecord, Color)],
    dir: &Path,
) -> Result<EmbeddedStore, EvalError> {
    let store = EmbeddedStore::open(&dir.join("book.redb"), OpenMode::CreateIfMissing)?;
    for chunk in games.chunks(2_000) {
        let mut batch = Batch::new();
        for (g, c) in chunk {
            batch
                .add_game(g.clone(), *c)
                .map_err(|source| EvalError::Replay {
                    game: g.id.to_string(),
                    source,
                })?;
        }
        store.write_batch(player, &batch)?;
    }
    Ok(store)
}

/// Fails unless the model in `dir` is fair for this split: trained on `player`'s games
/// with this very split (its validation games may be the ones evaluated: it chose its epoch
/// on them, as options are chosen), or on games that all precede the evaluated ones (e.g. a
/// model of split 80,10,10 measured on the test games of 90,0,10: the same newest games), or
/// a population model (`mirror pretrain`: other players' games).
pub fn check_model(
    p: &Predictor,
    dir: &Path,
    player: &str,
    info: &SplitInfo,
) -> Result<(), EvalError> {
    let m = &p.meta;
    // A population model learnt from other players' games, none of this split's (unless
    // the player is among the population: their figures would then be optimistic).
    if m.player == mirror_model::library::POPULATION {
        return Ok(());
    }
    let player_ok = m.player.eq_ignore_ascii_case(player);
    let same = player_ok
        && (m.train_games, m.val_games, m.test_games)
            == (info.train_games, info.val_games, info.test_games)
        && m.train_dates == info.train_dates;
    // Games are in date order. The model saw all but the last `test_games` of them; the
    // evaluated games start `from_end` games before the end. Its last training date (ISO
    // text, whose order is the dates') must not come after them either, in case older
    // games were added since.
    let (from_end, first_evaluated) = match info.evaluated.as_str() {
        "validation" => (info.val_games + info.test_games, &info.val_dates.0),
        _ => (info.test_games, &info.test_dates.0),
    };
    let before = player_ok
        && m.test_games >= from_end
        && m.train_dates.1 != "?"
        && first_evaluated != "?"
        && m.train_dates.1 <= *first_evaluated;
    if same || before {
        return Ok(());
    }
    Err(EvalError::ModelSplit(format!(
        "the model in {} was trained on {}'s games {}/{}/{} (training {} .. {}), but this split is {}/{}/{} (training {} .. {}), and the model saw some of the {} games evaluated: pass --train to train one on this split, or --no-model",
        dir.display(),
        m.player,
        m.train_games,
        m.val_games,
        m.test_games,
        m.train_dates.0,
        m.train_dates.1,
        info.train_games,
        info.val_games,
        info.test_games,
        info.train_dates.0,
        info.train_dates.1,
        info.evaluated
    )))
}
