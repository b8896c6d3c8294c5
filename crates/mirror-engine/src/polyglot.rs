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
