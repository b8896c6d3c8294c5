//! `/api/v1/drill`'s answers: the queue of cards (`mirror_drill::Listing`, as `mirror drill
//! --list --json` prints it, with the session's cards only) and an answer's outcome.

use mirror_drill::{Card, Reply, Verdict};
use serde::Serialize;

/// What `POST /api/v1/drill` answers: the verdict, the other side's reply after the card's
/// right move (drawn by how often it was played there), and the card that follows on the
/// line, when the player has one there.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DrillAnswerJson {
    /// The answer checked, and when the card comes back.
    pub verdict: Verdict,
    /// The reply, if anyone replied there.
    pub reply: Option<Reply>,
    /// The player's card after the reply, if any (due or not).
    pub next: Option<Card>,
}
