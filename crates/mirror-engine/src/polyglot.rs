//! A player's book as Polyglot entries weighted by the engine's policy (`mirror export
//! --to polyglot --policy`): the probabilities of a sampling policy, or only the move a
//! deterministic one plays.

use shakmaty::Move;

use crate::{Book, Engine, EngineError, FallbackWhy, Policy, Source};

/// Entries in every position of `positions` (where the player was to move): the
/// probabilities of the engine's sampling policy, the one move of a deterministic one
/// (none where the book does not answer); `tick` after each position.
pub fn policy_entries<S: Book>(
    engine: &mut Engine<S>,
    positions: &[mirror_store::polyglot::OwnPosition],
    tick: &mut dyn FnMut(),
) -> Result<Vec<mirror_core::polyglot::Entry>, EngineError> {
    let deterministic = matches!(
        engine.options().policy,
        Policy::Likely { .. } | Policy::Lower
    );
    let mut out = Vec::new();
    for (pos, _) in positions {
        tick();
        let weighted: Vec<(Move, f64)> = if deterministic {
            let c = engine.peek(pos)?;
            // The book's move, or the model's where the blend prefers it in a position
            // the player knows: what the mirror plays.
            match c.source {
                Source::Book { .. }
                | Source::Fallback {
                    why: FallbackWhy::PriorChose,
                    ..
                } => vec![(c.mv, 1.0)],
                _ => Vec::new(),
            }
        } else {
            engine.distribution(pos)?
        };
        for (mv, p) in weighted {
            if p > 0.0 {
                let w = (p * f64::from(u16::MAX))
                    .round()
                    .clamp(1.0, f64::from(u16::MAX));
                out.push(mirror_store::polyglot::entry(pos, mv, w as u16));
            }
        }
    }
    Ok(out)
}

/// The player's book as Polyglot entries weighted by the engine under `policy` (its own
/// weight, not the model's), over every position where the player was to move (with
/// `color`, or both), the player's `model` answering where the book does not; `start` is
/// told how many positions there are, `tick` is called after each.
#[cfg(feature = "model")]
pub fn policy_book<S: Book + mirror_store::GraphStore>(
    store: S,
    player: &str,
    (color, policy): (Option<shakmaty::Color>, Policy),
    model: Option<mirror_model::Predictor>,
    (start, tick): (&mut dyn FnMut(u64), &mut dyn FnMut()),
) -> Result<Vec<mirror_core::polyglot::Entry>, EngineError> {
    let positions = mirror_store::polyglot::own_positions(&store, player, color)?;
    start(positions.len() as u64);
    let mut engine = Engine::new(
        store,
        player,
        crate::EngineOptions {
            policy,
            // The policy given, with its own weight.
            model_weight: false,
            ..crate::EngineOptions::default()
        },
    );
    if let Some(p) = model {
        engine.set_fallback(Box::new(crate::ModelFallback::new(std::sync::Arc::new(p))));
    }
    policy_entries(&mut engine, &positions, tick)
}
