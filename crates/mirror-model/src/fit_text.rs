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

/// Where a training stands, for a front end's progress bar: one bar over the whole plan
/// (its epochs, then its stages on the last games), so that its ETA is the whole
/// training's; without a drawn bar, a line at every tenth of an epoch instead.
#[derive(Debug, Default)]
pub struct Tracker {
    /// The batches of each part of the plan.
    plan: Vec<u64>,
    /// The part under way.
    part: usize,
    /// What the ETA covers ([`plan_scope`]).
    scope: String,
    /// The next tenth of the part that gets a line when no bar is drawn.
    next_tenth: u64,
}

/// What a progress event changes: the bar's position, its message during an epoch, and a
/// line to print (an epoch's result; or, with no bar drawn, the tenth of an epoch reached).
#[derive(Debug, PartialEq)]
pub struct Step {
    /// Batches done in the whole plan.
    pub position: u64,
    /// The bar's message while an epoch runs.
    pub message: Option<String>,
    /// An epoch's result, to print.
    pub done: Option<String>,
    /// With no bar drawn: a tenth of the epoch was reached (see [`Tracker::tenth_line`]).
    pub tenth: bool,
}

impl Tracker {
    /// The plan's parts in batches, with `epochs` asked: the bar's whole length.
    pub fn plan(&mut self, parts: &[usize], epochs: usize) -> u64 {
        self.plan = parts.iter().map(|&b| b as u64).collect();
        self.scope = plan_scope(epochs.max(1), self.plan.len().saturating_sub(1));
        self.next_tenth = 1;
        self.plan.iter().sum()
    }

    /// A stage on the last games begins: the next part of the plan.
    pub fn stage(&mut self) {
        self.part += 1;
        self.next_tenth = 1;
    }

    /// Batch `done` of `total` of the part under way, reported as `r`; `hidden` when no
    /// bar is drawn.
    pub fn progress(
        &mut self,
        r: &crate::training::EpochReport,
        done: usize,
        total: usize,
        hidden: bool,
    ) -> Step {
        let total = total.max(1) as u64;
        let in_part = (r.epoch as u64 - 1) * total + done as u64;
        let position = self.plan.iter().take(self.part).sum::<u64>() + in_part;
        if !r.val_top1.is_nan() {
            return Step {
                position,
                message: None,
                done: Some(format!(
                    "epoch {}: loss {}, validation top-1 {:.1}%, top-3 {:.1}%, {:.0} positions/s",
                    r.epoch,
                    r.losses(),
                    100.0 * r.val_top1,
                    100.0 * r.val_top3,
                    r.positions_per_sec
                )),
                tenth: false,
            };
        }
        let tenth = hidden && in_part * 10 >= self.next_tenth * total;
        if tenth {
            self.next_tenth = in_part * 10 / total + 1;
        }
        Step {
            position,
            message: Some(format!(
                "{} loss {} ({:.0} pos/s)",
                r.epoch,
                r.losses(),
                r.positions_per_sec
            )),
            done: None,
            tenth,
        }
    }

    /// The line of a tenth of an epoch reached, with the time elapsed and the ETA of the
    /// whole plan as the front end writes them.
    pub fn tenth_line(
        &self,
        r: &crate::training::EpochReport,
        (done, total): (usize, usize),
        (elapsed, eta): (&str, &str),
    ) -> String {
        format!(
            "epoch {}: batch {done}/{total}, loss {}, {:.0} positions/s, {elapsed} elapsed, ETA {eta} ({})",
            r.epoch,
            r.losses(),
            r.positions_per_sec,
            self.scope
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::EpochReport;

    fn report(epoch: usize, val_top1: f64) -> EpochReport {
        EpochReport {
            epoch,
            train_loss: 2.0,
            value_loss: None,
            val_top1,
            val_top3: 0.5,
            positions_per_sec: 100.0,
        }
    }

    #[test]
    fn the_bar_spans_the_plan_and_a_hidden_bar_gets_a_line_a_tenth() {
        let mut t = Tracker::default();
        // Two epochs of 10 batches, then one stage of 5.
        assert_eq!(t.plan(&[20, 5], 2), 25);
        let s = t.progress(&report(1, f64::NAN), 3, 10, false);
        assert_eq!((s.position, s.tenth, s.done), (3, false, None));
        assert!(s.message.is_some());
        // Epoch 2, batch 1 of 10: 11 of the part; hidden, a tenth is reached once.
        let s = t.progress(&report(2, f64::NAN), 1, 10, true);
        assert_eq!((s.position, s.tenth), (11, true));
        assert!(!t.progress(&report(2, f64::NAN), 1, 10, true).tenth);
        let end = t.progress(&report(2, 0.4), 10, 10, true);
        assert_eq!(end.position, 20);
        assert!(end.done.is_some() && end.message.is_none());
        t.stage();
        let s = t.progress(&report(1, f64::NAN), 2, 5, true);
        assert_eq!((s.position, s.tenth), (22, true));
        assert!(
            t.tenth_line(&report(1, f64::NAN), (2, 5), ("1 minute", "2 minutes"))
                .ends_with("ETA 2 minutes (all 2 epochs, then 1 stage on the last games)")
        );
    }
}
