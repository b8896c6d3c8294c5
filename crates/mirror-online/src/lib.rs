//! Online sources of a player's games: the Chess.com Published-Data API ([`chesscom`]) and
//! lichess's game export ([`lichess`]). Both are polite (serial requests, an identifying
//! User-Agent) and retry what can be retried ([`http`]): 429 waits (honouring
//! `Retry-After`), 5xx, timeouts, broken connections and truncated bodies back off
//! exponentially up to a limit. Waiting goes through a [`http::Sleeper`], so tests can
//! record waits instead of sleeping.

pub mod chesscom;
pub mod chesscom_game;
pub mod http;
pub mod lichess;

pub use http::{FetchError, RetryPolicy, Sleeper};
