//! A fit's events ([`FitEvent`]) in words, for the front ends that print a training's
//! report (`mirror train`, `mirror eval --train`): the events stay data, tested as data;
//! this is their one wording.

use crate::fit::FitEvent;

/// What the ETA of a training covers: "all 3 epochs, then 2 stages on the last games".
pub fn plan_scope(epochs: usize, stages: usize) -> String {
    let epochs = if epochs == 1 {
        "its epoch".to_string()
    } else {
        format!("all {epochs} epochs")
    };
    match stages {
        0 => epochs,
        1 => format!("{epochs}, then 1 stage on the last games"),
        n => format!("{epochs}, then {n} stages on the last games"),
    }
}

/// "12 (queen 11, rook 0, bishop 0, knight 1)" (counts by knight, bishop, rook, queen).
fn promotion_text(p: &[usize; 4]) -> String {
    format!(
        "{} (queen {}, rook {}, bishop {}, knight {})",
        p.iter().sum::<usize>(),
        p[3],
        p[2],
        p[1],
        p[0]
    )
}

/// A fit's report line (or lines) for `player`; `None` for the plan and the progress,
/// which a progress bar shows.
pub fn line(player: &str, event: &FitEvent<'_>) -> Option<String> {
    let pct = |x: f64| 100.0 * x;
    Some(match event {
        FitEvent::Split(s) => format!(
            "{player}: {} games -> train {} ({} positions used), validation {} ({} positions), test {} ({} positions outside the training tree, {} inside)",
            s.games,
            s.train_games,
            s.train_positions,
            s.val_games,
            s.val_positions,
            s.test_games,
            s.test_outside,
            s.test_inside
        ),
        FitEvent::Base {
            meta,
            dir,
            new_value_head,
        } => {
            let mut line = format!(
                "fine-tuning the model of {} from {} ({} layers x {} channels)",
                meta.summary(),
                dir.display(),
                meta.layers,
                meta.channels
            );
            if *new_value_head {
                line.push_str(
                    "\nthe base has no value head: a new one learns the games' outcomes beside the moves",
                );
            }
            line
        }
        FitEvent::BaseFigures(t) => format!(
            "the base alone on {player}'s validation positions: top-1 {:.1}%, top-3 {:.1}%",
            pct(t.top1),
            pct(t.top3)
        ),
        FitEvent::BaseKept(t) => format!(
            "no epoch beat the base on {player}'s validation positions (top-1 {:.1}%): the base is kept as it is",
            pct(t.top1)
        ),
        FitEvent::NoStage { asked, train_games } => format!(
            "no stage on the last {asked} training games: there are only {train_games} (all of them were learnt)"
        ),
        FitEvent::StageDone {
            games,
            before,
            after,
            kept,
        } => format!(
            "the last {games} games once more: validation top-1 {:.1}% -> {:.1}%{}",
            pct(*before),
            pct(*after),
            if *kept { " (kept)" } else { " (not kept)" }
        ),
        FitEvent::Test(t) => [
            format!("test positions outside the training tree ({}):", t.outside),
            format!(
                "  model            top-1 {:5.1}%  top-3 {:5.1}%",
                pct(t.model.top1),
                pct(t.model.top3)
            ),
            format!(
                "  random legal     top-1 {:5.1}%  top-3 {:5.1}%",
                pct(t.random.top1),
                pct(t.random.top3)
            ),
            format!(
                "  habit (most played UCI move) top-1 {:5.1}%  top-3 {:5.1}%",
                pct(t.habit.top1),
                pct(t.habit.top3)
            ),
            format!(
                "test positions inside the training tree ({}): model top-1 {:.1}%, top-3 {:.1}%",
                t.inside,
                pct(t.model_inside.top1),
                pct(t.model_inside.top3)
            ),
            format!(
                "promotions by {player}: training {}; test {}",
                promotion_text(&t.promotions_train),
                promotion_text(&t.promotions_test)
            ),
        ]
        .join("\n"),
        FitEvent::Value(v) => format!(
            "value head (the game's outcome for the side to move) on validation: log-loss {:.3}, Brier {:.3} (material alone {:.3} / {:.3}; outcome shares alone {:.3} / {:.3}) on {} validation positions",
            v.model.log_loss,
            v.model.brier,
            v.material.log_loss,
            v.material.brier,
            v.shares.log_loss,
            v.shares.brier,
            v.positions
        ),
        FitEvent::Saved(dir) => format!("model saved in {}", dir.display()),
        FitEvent::Stage {
            games,
            positions,
            from,
            lr,
        } => format!(
            "then the last {games} training games once more ({positions} positions, from {}, learning rate {lr}):",
            from.map_or_else(|| "?".to_string(), |d| d.to_string())
        ),
        FitEvent::Plan(_) | FitEvent::Progress(..) => return None,
    })
}
