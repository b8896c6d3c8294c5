//! The engine for one player: gathers the player's moves in a position from the store
//! (the book), hands them to the policy in force ([`crate::policy`]) and, where the book
//! does not answer, asks the fallback ([`crate::fallback`]).

use std::fmt;

use mirror_core::{PositionKey, TimeClass, time::Month};
use mirror_store::{Filter, StoreError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Move, Position};

use crate::{
    book::Book,
    choice::{BookRule, Choice, FallbackWhy, Source},
    draw::FallbackOutcomes,
    fallback::{Fallback, RandomLegal},
    options::EngineOptions,
    outcomes::Outcomes,
    policy::{BookMove, Policy, Selection, habit, likely, lower, tiers},
    search::SearchBy,
};

/// Errors of the engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The game is over in this position: checkmate, else stalemate.
    #[error(
        "no legal moves in this position ({})",
        if *checkmate { "checkmate" } else { "stalemate" }
    )]
    NoLegalMoves {
        /// Whether the side to move is checkmated (else it is stalemated).
        checkmate: bool,
    },
    /// The search's judge failed.
    #[error("the search failed")]
    Search(#[source] crate::search::JudgeError),
}

/// `filter` narrowed to the games of `time_class`; `None` when it leaves those out.
fn of_time_class(filter: &Filter, time_class: TimeClass) -> Option<Filter> {
    (filter.time_classes.is_empty() || filter.time_classes.contains(&time_class)).then(|| Filter {
        time_classes: vec![time_class],
        ..filter.clone()
    })
}

/// The engine for one player.
pub struct Engine<S> {
    store: S,
    player: String,
    opts: EngineOptions,
    rng: ChaCha8Rng,
    fallback: Box<dyn Fallback>,
    /// The external engine of the search (see [`crate::search`]), if there is one.
    searcher: Option<std::sync::Arc<crate::search::Searcher>>,
    /// The month of the player's newest game, once looked up.
    newest: Option<Option<Month>>,
}

impl<S> fmt::Debug for Engine<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("player", &self.player)
            .field("opts", &self.opts)
            .field("fallback", &self.fallback.name(self.opts.guard))
            .finish()
    }
}

/// The book's answer for a position without sampling: the player's moves and the tier
/// that applies.
#[derive(Clone, Debug, PartialEq)]
pub struct BookView {
    /// The player's legal moves here with statistics, most played first.
    pub candidates: Vec<BookMove>,
    /// The tier and its probabilities, when one applies (whatever the policy in force).
    pub selection: Option<Selection>,
}

impl<S: Book> Engine<S> {
    /// An engine for `player` with the random-legal fallback.
    pub fn new(store: S, player: impl Into<String>, opts: EngineOptions) -> Engine<S> {
        let rng = ChaCha8Rng::seed_from_u64(opts.seed);
        Engine {
            store,
            player: player.into(),
            opts,
            rng,
            fallback: Box::new(RandomLegal::default()),
            searcher: crate::search::shared(),
            newest: None,
        }
    }

    /// Replaces the fallback (e.g. with a trained model).
    pub fn set_fallback(&mut self, fallback: Box<dyn Fallback>) {
        self.fallback = fallback;
    }

    /// Sets the external engine that searches the model's moves when the `search_nodes`
    /// knob is above 0 ([`crate::search`]; by default the process's, [`crate::search::shared`]).
    pub fn set_searcher(&mut self, searcher: Option<std::sync::Arc<crate::search::Searcher>>) {
        self.searcher = searcher;
    }

    /// The search in force: the model's own (chosen by `mirror train`) when
    /// [`EngineOptions::model_search`] is on and the model has one, else the options'.
    pub fn search(&self) -> crate::search::SearchOptions {
        match (self.opts.model_search, self.fallback.tuned().search) {
            (true, Some(own)) => own,
            _ => self.opts.search,
        }
    }

    /// The sampling temperature in force: the options' when given, else the model's own
    /// (chosen by `mirror train`), else 1 (the model's distribution as it is).
    pub fn temperature(&self) -> f64 {
        self.opts
            .temperature
            .or_else(|| self.fallback.tuned().temperature)
            .unwrap_or(1.0)
    }

    /// The temperature the fallback samples at, `None` when it plays its first choice.
    fn sampling(&self) -> Option<f64> {
        self.opts.sample.then(|| self.temperature())
    }

    /// The fallback's name with the guard, the search and the sampling temperature in
    /// force: `+ search (...)` when it searches, `(search off: ...)` when asked to search
    /// without its judge (no UCI engine, or a model without a value head; a fallback that
    /// does not rank its moves is never searched), `, sampled at temperature T` when it
    /// samples at another temperature than 1.
    pub fn fallback_name(&self) -> String {
        let name = self.searched_name();
        match self.sampling() {
            Some(t) if t != 1.0 && self.fallback.ranks() => {
                format!("{name}, sampled at temperature {t}")
            }
            _ => name,
        }
    }

    /// The fallback's name with the guard and the search in force.
    fn searched_name(&self) -> String {
        let name = self.fallback.name(self.opts.guard);
        let search = self.search();
        if search.nodes == 0 || !self.fallback.ranks() {
            return name;
        }
        match self.judge(search.by) {
            Some(judge) => format!(
                "{name} + search ({}, top {}{}, weight {})",
                judge.name(search.nodes),
                search.top,
                if search.own > 0 {
                    format!(" and its own choice at {} nodes", search.own)
                } else {
                    String::new()
                },
                search.weight
            ),
            None => match search.by {
                SearchBy::Stockfish => format!("{name} (search off: no UCI engine)"),
                SearchBy::Model | SearchBy::Puct => {
                    format!("{name} (search off: the model has no value head)")
                }
            },
        }
    }

    /// The judge of a search by `by`: the external engine, or the fallback's own.
    fn judge(&self, by: SearchBy) -> Option<&dyn crate::search::Judge> {
        match by {
            SearchBy::Stockfish => self
                .searcher
                .as_deref()
                .map(|s| s as &dyn crate::search::Judge),
            SearchBy::Model | SearchBy::Puct => self.fallback.judge(by),
        }
    }

    /// The fallback's distribution in `pos` reached by `last` (likeliest first; the moves
    /// it may play), re-weighed by the search when it searches.
    fn fallback_outcomes(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
    ) -> Result<Option<FallbackOutcomes>, EngineError> {
        let (guard, sample, search) = (self.opts.guard, self.sampling(), self.search());
        if search.nodes > 0 && self.fallback.ranks() && self.judge(search.by).is_some() {
            // The search's prior: the model's own distribution, sharpened by the
            // temperature only when the searched distribution is sampled.
            let dist: Vec<(Move, f64)> = self
                .fallback
                .distribution(pos, last, guard, sample.unwrap_or(1.0))
                .into_iter()
                .filter(|(_, p)| *p > 0.0)
                .collect();
            let judge = self
                .judge(search.by)
                .expect("the judge was there a moment ago, and nothing took it");
            return crate::search::searched(judge, pos, &dist, search, sample.is_some())
                .map(|f| (!f.moves.is_empty()).then_some(f))
                .map_err(EngineError::Search);
        }
        Ok(self.fallback.outcomes(pos, last, guard, sample))
    }

    /// The player.
    pub fn player(&self) -> &str {
        &self.player
    }

    /// Changes the player.
    pub fn set_player(&mut self, player: impl Into<String>) {
        self.player = player.into();
        self.newest = None;
    }

    /// The options in force.
    pub fn options(&self) -> &EngineOptions {
        &self.opts
    }

    /// Replaces the options; a new seed restarts the random sequence from it.
    pub fn set_options(&mut self, opts: EngineOptions) {
        if opts.seed != self.opts.seed {
            self.rng = ChaCha8Rng::seed_from_u64(opts.seed);
        }
        self.opts = opts;
    }

    /// Restarts the random sequence from `seed`.
    pub fn set_seed(&mut self, seed: u64) {
        self.opts.seed = seed;
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// Says the time class of the game being played (for
    /// [`EngineOptions::context_weight`]).
    pub fn set_game_time_class(&mut self, time_class: Option<TimeClass>) {
        self.opts.game_time_class = time_class;
    }

    /// Changes the policy (its weight as given: [`EngineOptions::model_weight`] off).
    pub fn set_policy(&mut self, policy: Policy) {
        self.opts.policy = policy;
        self.opts.model_weight = false;
    }

    /// The policy in force: the options', with the model's own weight in the book for
    /// `likely` when [`EngineOptions::model_weight`] is on and the model has one.
    pub fn policy(&self) -> Policy {
        match (self.opts.policy, self.opts.model_weight) {
            (Policy::Likely { .. }, true) => match self.fallback.tuned().book_prior {
                Some(prior) => Policy::Likely { prior },
                None => self.opts.policy,
            },
            (policy, _) => policy,
        }
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The first month counted as recent, if recency weighting is on.
    fn recent_since(&mut self) -> Result<Option<Month>, EngineError> {
        if self.opts.recent_months == 0 {
            return Ok(None);
        }
        if self.newest.is_none() {
            self.newest = Some(self.store.newest_month(&self.player)?);
        }
        Ok(self.newest.flatten().and_then(|m| {
            Month::from_u16(
                m.to_u16()
                    .saturating_sub(self.opts.recent_months as u16 - 1),
            )
        }))
    }

    /// Games per book move (at least `min_games`) with recent games, and games of the time
    /// class being played, weighted.
    fn weighted_games(
        &mut self,
        pos: &Chess,
        view: &BookView,
    ) -> Result<Vec<(Move, f64)>, EngineError> {
        let min = self.opts.min_games;
        let mut out: Vec<(Move, f64)> = view
            .candidates
            .iter()
            .filter(|c| c.stats.games() >= min)
            .map(|c| (c.mv, f64::from(c.stats.games())))
            .collect();
        let own = Filter {
            color: Some(pos.turn()),
            ..self.opts.filter.clone()
        };
        let recent = self.recent_since()?.map(|since| Filter {
            since: Some(own.since.map_or(since, |s| s.max(since))),
            ..own.clone()
        });
        let like = if self.opts.context_weight > 0.0 {
            self.opts
                .game_time_class
                .and_then(|tc| of_time_class(&own, tc))
        } else {
            None
        };
        let (r, c) = (self.opts.recent_weight, self.opts.context_weight);
        // (1 + r [recent]) (1 + c [like]) = 1 + r [recent] + c [like] + r c [recent and like].
        let recent_and_like = match (&recent, &like) {
            (Some(recent), Some(like)) => Some(Filter {
                time_classes: like.time_classes.clone(),
                ..recent.clone()
            }),
            _ => None,
        };
        for (filter, weight) in [(recent, r), (like, c), (recent_and_like, r * c)] {
            let Some(filter) = filter else { continue };
            let rows = self
                .store
                .rows(&self.player, PositionKey::from_position(pos), &filter)?;
            for row in rows {
                if let Ok(m) = row.mv.to_move(pos)
                    && let Some(e) = out.iter_mut().find(|(b, _)| *b == m)
                {
                    e.1 += weight * f64::from(row.stats.games());
                }
            }
        }
        Ok(out)
    }

    /// The player's pace where the book has no time ([`Book::time_model`]).
    pub fn time_model(&self) -> Result<Option<mirror_core::clock::TimeModel>, EngineError> {
        Ok(self.store.time_model(&self.player)?)
    }

    /// The player's moves here as the pace reads them: in games of the time class of
    /// `clock` where they have timed ones ([`crate::pace::timed_stats`]).
    pub fn pace_stats(
        &self,
        pos: &Chess,
        clock: crate::pace::GoClock,
    ) -> Result<Vec<mirror_core::MoveStats>, EngineError> {
        let filter = Filter {
            color: Some(pos.turn()),
            ..self.opts.filter.clone()
        };
        let key = PositionKey::from_position(pos);
        Ok(crate::pace::timed_stats(&filter, clock, |f| {
            self.store
                .rows(&self.player, key, f)
                .map(|rows| rows.into_iter().map(|r| r.stats).collect())
        })?)
    }

    /// The player's moves here (legal ones only) and the tier that applies.
    pub fn book(&self, pos: &Chess) -> Result<BookView, EngineError> {
        let filter = Filter {
            color: Some(pos.turn()),
            ..self.opts.filter.clone()
        };
        let rows = self
            .store
            .rows(&self.player, PositionKey::from_position(pos), &filter)?;
        // A stored move that is not legal here is a corrupt store (or a hash collision):
        // an error, as in the explorer and the report.
        let at = PositionKey::from_position(pos);
        let candidates: Vec<BookMove> = rows
            .into_iter()
            .map(|r| {
                Ok(BookMove {
                    mv: r.checked(pos, at)?.0,
                    code: r.mv,
                    stats: r.stats,
                })
            })
            .collect::<Result<_, mirror_store::StoreError>>()?;
        let selection = tiers::select(&candidates, &self.opts.tiers, self.opts.min_games);
        Ok(BookView {
            candidates,
            selection,
        })
    }

    /// The `habit`/`likely` blend over the legal moves of `pos` (reached by `last`: the
    /// model reads it), likeliest first; empty when the player has no book move here with
    /// at least `min_games` games. With `decided_alone`, `likely`'s answer when the model
    /// cannot change it (one move at 1).
    fn blend(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        view: &BookView,
        prior: f64,
        decided_alone: bool,
    ) -> Result<Vec<(Move, f64)>, EngineError> {
        let book = self.weighted_games(pos, view)?;
        if decided_alone && let Some(m) = likely::without_model(&book, prior) {
            return Ok(vec![(m, 1.0)]);
        }
        if book.is_empty() {
            return Ok(Vec::new());
        }
        let model = if prior > 0.0 {
            self.fallback.prior(pos, last)
        } else {
            None
        };
        Ok(habit::blend(
            &book,
            &pos.legal_moves(),
            prior,
            model.as_deref(),
        ))
    }

    /// The player's moves in `pos`, each with its games weighted as `habit` and `likely`
    /// weigh them (recency, the time class being played), before the model's prior; empty
    /// out of the book.
    pub fn weighted_book(&mut self, pos: &Chess) -> Result<Vec<(Move, f64)>, EngineError> {
        let view = self.book(pos)?;
        self.weighted_games(pos, &view)
    }

    /// The engine's moves in `pos` with their probabilities, likeliest first: the tier's
    /// or the blend's distribution in the book (for [`Policy::Likely`] the first is always
    /// played); empty when the fallback answers.
    pub fn distribution(&mut self, pos: &Chess) -> Result<Vec<(Move, f64)>, EngineError> {
        self.distribution_after(pos, None)
    }

    /// [`Engine::distribution`] in `pos` reached by the opponent's move `last`.
    pub fn distribution_after(
        &mut self,
        pos: &Chess,
        last: Option<Move>,
    ) -> Result<Vec<(Move, f64)>, EngineError> {
        let view = self.book(pos)?;
        Ok(match self.policy() {
            Policy::Habit { prior } | Policy::Likely { prior } => {
                self.blend(pos, last.as_ref(), &view, prior, false)?
            }
            Policy::Tiers => view
                .selection
                .as_ref()
                .map_or_else(Vec::new, Selection::ranked),
            // Deterministic: the first is always played.
            Policy::Lower => lower::rank(&view.candidates, self.opts.min_games)
                .into_iter()
                .enumerate()
                .map(|(i, (m, _))| (m, f64::from(u8::from(i == 0))))
                .collect(),
        })
    }

    /// The move [`Engine::choose`] would play in `pos` now, without using up randomness:
    /// the next `choose` still plays as if this had not been asked (a hint names exactly
    /// the move the mirror would play with the same options and seed).
    pub fn peek(&mut self, pos: &Chess) -> Result<Choice, EngineError> {
        self.peek_after(pos, None)
    }

    /// [`Engine::peek`] in `pos` reached by the opponent's move `last`.
    pub fn peek_after(&mut self, pos: &Chess, last: Option<Move>) -> Result<Choice, EngineError> {
        let saved = self.rng.clone();
        let choice = self.choose_after(pos, last);
        self.rng = saved;
        choice
    }

    /// In a won basic ending: the move among `keeping` (those that keep the shortest mate)
    /// the fallback's prior likes best, with probability 1; without a prior, each of them
    /// alike. And whether the prior chose.
    fn endgame_distribution(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        keeping: &[Move],
    ) -> (Vec<(Move, f64)>, bool) {
        let prior = self.fallback.prior(pos, last);
        let liked = prior.as_ref().and_then(|p| {
            p.iter()
                .filter(|(m, _)| keeping.contains(m))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(m, _)| *m)
        });
        match liked {
            Some(m) => (vec![(m, 1.0)], true),
            None => {
                let p = 1.0 / keeping.len() as f64;
                (keeping.iter().map(|m| (*m, p)).collect(), false)
            }
        }
    }

    fn endgame_choice(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        (ending, plies, keeping): (crate::endgame::Ending, u8, &[Move]),
    ) -> Choice {
        let (dist, by_model) = self.endgame_distribution(pos, last, keeping);
        let (mv, by) = if by_model {
            (dist[0].0, "the model's likeliest of them".to_string())
        } else {
            (
                dist[self.rng.random_range(0..dist.len())].0,
                "at random among them (no model)".to_string(),
            )
        };
        Choice {
            mv,
            source: Source::Endgame {
                ending: ending.name(),
                plies,
                keeping: keeping.len(),
                legal: pos.legal_moves().len(),
                by,
            },
        }
    }

    /// The probability with which [`Engine::choose_after`] plays each move of `pos`,
    /// likeliest first: the won ending's choice; in the book the sampling policies'
    /// distribution (`habit`, `tiers`) or the deterministic ones' move; else the fallback's
    /// distribution when sampling, its one choice when not.
    pub fn choice_distribution(
        &mut self,
        pos: &Chess,
        last: Option<Move>,
    ) -> Result<Vec<(Move, f64)>, EngineError> {
        if let Some((_, _, keeping)) = crate::endgame::winning_moves(pos) {
            return Ok(self.endgame_distribution(pos, last.as_ref(), &keeping).0);
        }
        let dist = self.distribution_after(pos, last)?;
        if !dist.is_empty() {
            return Ok(match self.policy() {
                Policy::Habit { .. } | Policy::Tiers => dist,
                Policy::Likely { .. } | Policy::Lower => vec![(dist[0].0, 1.0)],
            });
        }
        if self.opts.sample && !pos.legal_moves().is_empty() {
            return Ok(match self.fallback_outcomes(pos, last.as_ref())? {
                Some(f) => f.moves.into_iter().map(|(m, p, _)| (m, p)).collect(),
                None => self.fallback.distribution(
                    pos,
                    last.as_ref(),
                    self.opts.guard,
                    self.temperature(),
                ),
            });
        }
        let choice = self.peek_after(pos, last)?;
        Ok(vec![(choice.mv, 1.0)])
    }

    /// Chooses a move in `pos` (the opponent's move into it unknown, as from a FEN).
    pub fn choose(&mut self, pos: &Chess) -> Result<Choice, EngineError> {
        self.choose_after(pos, None)
    }

    /// Chooses a move in `pos`, reached by the opponent's move `last` (the model reads it:
    /// recaptures and replies are the easiest human moves to guess).
    pub fn choose_after(&mut self, pos: &Chess, last: Option<Move>) -> Result<Choice, EngineError> {
        let _span = tracing::debug_span!("engine.choose", player = %self.player).entered();
        let choice = self.choose_inner(pos, last.as_ref());
        if let Ok(c) = &choice {
            tracing::debug!(
                mv = %mirror_core::notation::uci(c.mv),
                source = %c.describe(),
                "chosen"
            );
        }
        choice
    }

    fn choose_inner(&mut self, pos: &Chess, last: Option<&Move>) -> Result<Choice, EngineError> {
        if pos.legal_moves().is_empty() {
            return Err(EngineError::NoLegalMoves {
                checkmate: pos.is_checkmate(),
            });
        }
        if let Some((ending, plies, keeping)) = crate::endgame::winning_moves(pos) {
            return Ok(self.endgame_choice(pos, last, (ending, plies, &keeping)));
        }
        let view = self.book(pos)?;
        let why = match self.outcomes_in(pos, last, &view)? {
            Ok(outcomes) => {
                let u: f64 = if outcomes.draws() {
                    self.rng.random()
                } else {
                    0.0
                };
                return Ok(outcomes.choice(outcomes.index(u)));
            }
            // A fallback that draws otherwise (a random legal move).
            Err(why) => why,
        };
        let guard = self.opts.guard;
        let sample = self.sampling();
        let (mv, detail) = self
            .fallback
            .choose(pos, last, guard, sample, &mut self.rng);
        Ok(Choice {
            mv,
            source: Source::Fallback {
                policy: self.fallback_name(),
                detail,
                why,
                rejected: view.candidates.iter().map(|c| (c.mv, c.stats)).collect(),
            },
        })
    }

    /// The outcomes in `pos` (see [`Outcomes`]): the book's, else the fallback's if it has
    /// them (the model does; a random legal move does not), else why the book does not
    /// answer.
    fn outcomes_in(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        view: &BookView,
    ) -> Result<Result<Outcomes, FallbackWhy>, EngineError> {
        let why = match self.book_outcomes(pos, last, view)? {
            Ok(outcomes) => return Ok(Ok(outcomes)),
            Err(why) => why,
        };
        Ok(match self.fallback_outcomes(pos, last)? {
            Some(f) => Ok(Outcomes::fallback(
                self.fallback_name(),
                why,
                &view.candidates,
                f,
            )),
            None => Err(why),
        })
    }

    /// The book's outcomes in `pos` (see [`Outcomes`]), or why the book does not answer.
    fn book_outcomes(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        view: &BookView,
    ) -> Result<Result<Outcomes, FallbackWhy>, EngineError> {
        let min_games = self.opts.min_games;
        let not_in_book_or_few = || {
            if view.candidates.is_empty() {
                FallbackWhy::NotInBook
            } else {
                FallbackWhy::TooFewGames { min_games }
            }
        };
        let policy = self.policy();
        Ok(match policy {
            Policy::Tiers => match &view.selection {
                Some(sel) => Ok(Outcomes::tier(
                    sel.tier + 1,
                    sel.rule,
                    sel.moves.iter().map(|(c, p)| (c.mv, *p)).collect(),
                    &view.candidates,
                )),
                None if view.candidates.is_empty() => Err(FallbackWhy::NotInBook),
                None if view
                    .candidates
                    .iter()
                    .all(|c| c.stats.games() < self.opts.min_games) =>
                {
                    Err(FallbackWhy::TooFewGames {
                        min_games: self.opts.min_games,
                    })
                }
                None => Err(FallbackWhy::NoTierAccepts),
            },
            Policy::Lower => match lower::rank(&view.candidates, self.opts.min_games).first() {
                Some(&(mv, low)) => Ok(Outcomes::lower(mv, low, &view.candidates)),
                None => Err(not_in_book_or_few()),
            },
            Policy::Habit { prior } | Policy::Likely { prior } => {
                let likely = matches!(policy, Policy::Likely { .. });
                let dist = self.blend(pos, last, view, prior, likely)?;
                if dist.is_empty() {
                    Err(not_in_book_or_few())
                } else {
                    let rule = if likely {
                        BookRule::Likely { prior }
                    } else {
                        BookRule::Habit { prior }
                    };
                    let prior_policy = format!(
                        "{} (as {policy}'s prior)",
                        self.fallback.name(self.opts.guard)
                    );
                    Ok(Outcomes::blend(rule, dist, &view.candidates, prior_policy))
                }
            }
        })
    }

    /// The engine's outcomes in `pos`, reached by the opponent's move `last`, when its
    /// answer there is a draw from the book or from a fallback that has outcomes (the
    /// model; see [`Outcomes`]); `None` when it answers otherwise (no legal move, a won
    /// ending, a random legal move: [`Engine::choose_after`]).
    /// Drawing [`first_draw`] of the seed from them plays what a fresh engine with that
    /// seed plays.
    pub fn outcomes_after(
        &mut self,
        pos: &Chess,
        last: Option<Move>,
    ) -> Result<Option<Outcomes>, EngineError> {
        if pos.legal_moves().is_empty() || crate::endgame::winning_moves(pos).is_some() {
            return Ok(None);
        }
        let view = self.book(pos)?;
        Ok(self.outcomes_in(pos, last.as_ref(), &view)?.ok())
    }
}

/// The first uniform number in `[0, 1)` of an engine seeded with `seed`: what a fresh
/// engine draws for its first move (see [`Engine::outcomes_after`]).
pub fn first_draw(seed: u64) -> f64 {
    ChaCha8Rng::seed_from_u64(seed).random()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::{MoveCode, batch::Batch, notation};
    use mirror_store::{
        GraphRead, GraphWrite,
        embedded::{EmbeddedStore, OpenMode},
    };
    use mirror_testkit::conformance::{PLAYER, sample_games};
    use shakmaty::Color;

    fn store(dir: &tempfile::TempDir) -> EmbeddedStore {
        let s = EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing)
            .expect("open");
        let mut b = Batch::new();
        for (g, c) in sample_games(499) {
            b.add_game(g, c).expect("legal");
        }
        s.write_batch(PLAYER, &b).expect("write");
        s
    }

    #[test]
    fn book_moves_follow_the_sampler_and_seed_reproduces() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tiers = EngineOptions {
            policy: Policy::Tiers,
            ..EngineOptions::default()
        };
        let mut e = Engine::new(store(&dir), PLAYER, tiers);
        let start = Chess::default();
        let view = e.book(&start).expect("book");
        let sel = view
            .selection
            .clone()
            .expect("the player has opening moves as White");
        let run = |e: &mut Engine<EmbeddedStore>| -> Vec<String> {
            (0..200)
                .map(|_| notation::uci(e.choose(&start).expect("choice").mv))
                .collect()
        };
        e.set_seed(7);
        let a = run(&mut e);
        e.set_seed(7);
        assert_eq!(run(&mut e), a, "same seed, same moves");
        // Frequencies follow the tier's probabilities (200 draws, loose bound).
        for (c, p) in &sel.moves {
            let n = a.iter().filter(|m| **m == c.code.to_string()).count() as f64;
            assert!((n / 200.0 - p).abs() < 0.12, "{} {n} vs {p}", c.code);
        }
        // Every answer says it is from the book with its tier.
        let choice = e.choose(&start).expect("choice");
        assert!(
            matches!(&choice.source, Source::Book { rule, .. } if rule.tier() == Some(sel.tier + 1))
        );
        assert!(choice.describe().starts_with("book, tier"));
    }

    #[test]
    fn kept_outcomes_drawn_with_the_seed_play_what_a_fresh_engine_plays() {
        // Every book policy, the player's own positions and one out of the book: drawing
        // `first_draw(seed)` from the outcomes equals a fresh engine with that seed, move
        // and source alike.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store(&dir);
        let positions: Vec<(Chess, Option<Move>)> = {
            let mut out = vec![(Chess::default(), None)];
            let mut pos = Chess::default();
            for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"] {
                let m = notation::parse_move(&pos, uci).expect("legal");
                pos.play_unchecked(m);
                out.push((pos.clone(), Some(m)));
            }
            out.push((
                notation::parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").expect("fen"),
                None,
            ));
            out
        };
        let mut answered = 0;
        for policy in ["tiers", "habit:1", "likely:1", "lower", "habit:0"] {
            let base = EngineOptions {
                policy: policy.parse().expect("a policy"),
                ..EngineOptions::sampling()
            };
            for (pos, last) in &positions {
                let mut keeper = Engine::new(&store, PLAYER, base.clone());
                let outcomes = keeper.outcomes_after(pos, *last).expect("outcomes");
                for seed in 0..40 {
                    let mut fresh = Engine::new(
                        &store,
                        PLAYER,
                        EngineOptions {
                            seed,
                            ..base.clone()
                        },
                    );
                    let played = fresh.choose_after(pos, *last).expect("a choice");
                    match &outcomes {
                        Some(o) => {
                            assert_eq!(o.choice(o.index(first_draw(seed))), played, "{policy}");
                            answered += 1;
                        }
                        None => assert!(
                            matches!(played.source, Source::Fallback { .. }),
                            "{policy}: no outcomes only where the fallback answers"
                        ),
                    }
                }
            }
        }
        assert!(answered >= 40 * 5 * 4, "the book answered: {answered}");
    }

    /// The population base shipped with mirror.
    #[cfg(feature = "model")]
    fn population() -> mirror_model::Predictor {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/population");
        mirror_model::Predictor::load(&base).expect("the shipped base")
    }

    #[cfg(feature = "model")]
    #[test]
    fn the_temperature_sharpens_the_sampled_distribution_and_nothing_else() {
        // The shipped population model out of the book, on real positions: at temperature
        // 0.5 the sampled distribution is the square of the one at 1, renormalised, over
        // the same moves; the first choice (not sampling) does not change; a model's own
        // temperature plays unless the knob is given.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store(&dir);
        let plain = std::sync::Arc::new(population());
        let mut own = population();
        own.meta.temperature = Some(0.5);
        let own = std::sync::Arc::new(own);
        let engine = |model: &std::sync::Arc<mirror_model::Predictor>, opts: EngineOptions| {
            let mut e = Engine::new(&store, PLAYER, opts);
            e.set_fallback(Box::new(crate::ModelFallback::new(model.clone())));
            e
        };
        let at = |t: Option<f64>| EngineOptions {
            temperature: t,
            ..EngineOptions::sampling()
        };
        let mut compared = 0;
        for (g, _) in &sample_games(40) {
            for ply in g.replay().skip(24).step_by(7).take(3) {
                let pos = ply.expect("the sample games replay").pos;
                let mut one = engine(&plain, at(None));
                if !one.book(&pos).expect("book").candidates.is_empty()
                    || crate::endgame::winning_moves(&pos).is_some()
                {
                    continue;
                }
                let d1 = one.choice_distribution(&pos, None).expect("at 1");
                let d05 = engine(&plain, at(Some(0.5)))
                    .choice_distribution(&pos, None)
                    .expect("at 0.5");
                assert_eq!(
                    d1,
                    engine(&plain, at(Some(1.0)))
                        .choice_distribution(&pos, None)
                        .expect("at 1 given"),
                    "temperature 1 is the model's own distribution"
                );
                let z: f64 = d1.iter().map(|(_, p)| p * p).sum();
                assert_eq!(d05.len(), d1.len(), "the same moves let through");
                for (m, p) in &d1 {
                    let q = d05
                        .iter()
                        .find(|(n, _)| n == m)
                        .map(|(_, q)| *q)
                        .expect("every move of the distribution at 1");
                    assert!(
                        (q - p * p / z).abs() < 1e-4,
                        "{m:?}: {q} against {}",
                        p * p / z
                    );
                }
                assert!(d05[0].1 >= d1[0].1, "the likeliest move more likely");
                assert_eq!(
                    engine(&own, at(None))
                        .choice_distribution(&pos, None)
                        .expect("the model's own"),
                    d05,
                    "the model's own temperature plays"
                );
                assert_eq!(
                    engine(&own, at(Some(1.0)))
                        .choice_distribution(&pos, None)
                        .expect("the knob"),
                    d1,
                    "the knob wins over the model's own"
                );
                let first = |t| {
                    engine(
                        &plain,
                        EngineOptions {
                            temperature: t,
                            ..EngineOptions::default()
                        },
                    )
                    .choose(&pos)
                    .expect("a choice")
                };
                assert_eq!(first(None), first(Some(0.5)), "the first choice is kept");
                compared += 1;
            }
        }
        assert!(compared >= 20, "positions out of the book: {compared}");
        let named = engine(&own, at(None)).fallback_name();
        assert!(named.ends_with("sampled at temperature 0.5"), "{named}");
        let named = engine(&own, EngineOptions::default()).fallback_name();
        assert!(!named.contains("temperature"), "{named}");
    }

    #[cfg(feature = "model")]
    #[test]
    fn the_models_kept_outcomes_drawn_with_the_seed_play_what_a_fresh_engine_plays() {
        // Out of the book the shipped population model answers; its outcomes (sampling or
        // its first choice, guarded or not) drawn with `first_draw(seed)` equal a fresh
        // engine with that seed, move, detail and source alike.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store(&dir);
        let model = std::sync::Arc::new(population());
        let fens = [
            // After 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6: mate in one for White, not in the book.
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 b - - 0 10",
            "8/5pk1/6p1/3R4/8/6P1/r4PK1/8 w - - 0 40",
        ];
        let mut drawn = std::collections::BTreeSet::new();
        let searching = crate::search::SearchOptions {
            nodes: 300,
            ..Default::default()
        };
        for (sample, guard, search) in [
            (true, true, false),
            (true, false, false),
            (false, true, false),
            (false, false, false),
            (true, true, true),
            (false, true, true),
        ] {
            let opts = EngineOptions {
                sample,
                guard: guard.then_some(crate::Guard::default()),
                search: if search {
                    searching
                } else {
                    Default::default()
                },
                ..EngineOptions::sampling()
            };
            for fen in fens {
                let pos = notation::parse_fen(fen).expect("fen");
                let mut keeper = Engine::new(&store, PLAYER, opts.clone());
                keeper.set_fallback(Box::new(crate::ModelFallback::new(model.clone())));
                let o = keeper
                    .outcomes_after(&pos, None)
                    .expect("outcomes")
                    .expect("the model has outcomes out of the book");
                assert_eq!(o.draws(), sample);
                assert_eq!(
                    keeper.fallback_name().contains("+ search (")
                        && keeper.fallback_name().contains("stockfish"),
                    search,
                    "{}",
                    keeper.fallback_name()
                );
                let total: f64 = o.moves().iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-6, "{total}");
                for seed in 0..30 {
                    let mut fresh = Engine::new(
                        &store,
                        PLAYER,
                        EngineOptions {
                            seed,
                            ..opts.clone()
                        },
                    );
                    fresh.set_fallback(Box::new(crate::ModelFallback::new(model.clone())));
                    let played = fresh.choose(&pos).expect("a choice");
                    assert!(
                        matches!(played.source, Source::Fallback { .. }),
                        "{played:?}"
                    );
                    assert_eq!(o.choice(o.index(first_draw(seed))), played, "{fen}");
                    drawn.insert((fen, notation::uci(played.mv)));
                }
            }
        }
        assert!(
            drawn.len() > fens.len(),
            "sampling drew more than one move somewhere"
        );
    }

    #[cfg(feature = "model")]
    #[test]
    fn a_search_of_zero_nodes_plays_as_the_engine_without_one() {
        // Real positions of the player's games the store does not hold (out of its book
        // once they leave it), the shipped base as the model: an engine with a search
        // engine and 0 nodes and one without any choose the same moves, seed by seed,
        // sampling or not.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing)
            .expect("open");
        let games = sample_games(160);
        let mut b = Batch::new();
        for (g, c) in &games[..100] {
            b.add_game(g.clone(), *c).expect("legal");
        }
        store.write_batch(PLAYER, &b).expect("write");
        let shared = crate::search::shared();
        assert!(shared.is_some(), "Stockfish is installed (tests/setup.sh)");
        let model = std::sync::Arc::new(population());
        let positions: Vec<Chess> = games[100..]
            .iter()
            .flat_map(|(g, _)| g.replay().map(|p| p.expect("replays").pos))
            .collect();
        assert!(positions.len() > 2000, "{}", positions.len());
        let mut fallbacks = 0;
        for opts in [EngineOptions::default(), EngineOptions::sampling()] {
            let mut with = Engine::new(&store, PLAYER, opts.clone());
            with.set_searcher(shared.clone());
            with.set_fallback(Box::new(crate::ModelFallback::new(model.clone())));
            let mut without = Engine::new(&store, PLAYER, opts);
            without.set_searcher(None);
            without.set_fallback(Box::new(crate::ModelFallback::new(model.clone())));
            assert_eq!(with.fallback_name(), without.fallback_name());
            for pos in positions.iter().step_by(5) {
                if pos.legal_moves().is_empty() {
                    continue;
                }
                let choice = with.choose(pos).expect("choice");
                fallbacks += usize::from(matches!(choice.source, Source::Fallback { .. }));
                assert_eq!(choice, without.choose(pos).expect("choice"));
            }
        }
        assert!(fallbacks > 500, "the model answered {fallbacks} times");
    }

    #[cfg(feature = "model")]
    #[test]
    fn a_search_by_the_model_needs_its_value_head_and_says_which_judge_it_used() {
        // Out of the book: with a value head the model's own look ahead searches (its
        // name and the answer's detail say so) and plays the mate, which the rules score;
        // without one the engine plays as without a search and says why.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store(&dir);
        // After 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6: Qxf7 mates.
        let pos = notation::parse_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        )
        .expect("fen");
        let by_model = EngineOptions {
            search: crate::search::SearchOptions {
                nodes: 300,
                by: SearchBy::Model,
                top: 64,
                weight: 1.0,
                own: 0,
            },
            sample: false,
            guard: None,
            ..EngineOptions::default()
        };
        for (by, named) in [
            (SearchBy::Model, "the model's value head, 300 positions"),
            (SearchBy::Puct, "the model's PUCT, 300 positions"),
        ] {
            let mut opts = by_model.clone();
            opts.search.by = by;
            let mut with = Engine::new(&store, PLAYER, opts);
            with.set_searcher(None);
            with.set_fallback(Box::new(crate::ModelFallback::new(
                crate::lookahead::tests::untrained(true),
            )));
            assert!(
                with.fallback_name()
                    .contains(&format!("+ search ({named}, top 64, weight 1)")),
                "{}",
                with.fallback_name()
            );
            let played = with.choose(&pos).expect("a choice");
            assert_eq!(notation::uci(played.mv), "h5f7", "{played:?}");
            let Source::Fallback { detail, .. } = &played.source else {
                panic!("the fallback answers: {played:?}");
            };
            assert!(
                detail.starts_with("searched: p=1.00")
                    && detail.contains(&format!("100 win% by {named}")),
                "{detail}"
            );
        }
        let no_head = crate::lookahead::tests::untrained(false);
        let mut without = Engine::new(&store, PLAYER, by_model);
        without.set_fallback(Box::new(crate::ModelFallback::new(no_head.clone())));
        assert!(
            without
                .fallback_name()
                .ends_with("(search off: the model has no value head)"),
            "{}",
            without.fallback_name()
        );
        let mut plain = Engine::new(
            &store,
            PLAYER,
            EngineOptions {
                sample: false,
                guard: None,
                ..EngineOptions::default()
            },
        );
        plain.set_fallback(Box::new(crate::ModelFallback::new(no_head)));
        let (a, b) = (
            without.choose(&pos).expect("a choice"),
            plain.choose(&pos).expect("a choice"),
        );
        assert_eq!(a.mv, b.mv);
        match (a.source, b.source) {
            (Source::Fallback { detail: a, .. }, Source::Fallback { detail: b, .. }) => {
                assert_eq!(a, b);
            }
            other => panic!("the fallback answers: {other:?}"),
        }
    }

    #[test]
    fn a_random_legal_move_is_never_searched() {
        // Without a model the fallback does not rank its moves: a search budget changes
        // nothing, and its name does not claim a search.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store(&dir);
        let pos = notation::parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").expect("fen");
        let searching = EngineOptions {
            search: crate::search::SearchOptions {
                nodes: 500,
                ..Default::default()
            },
            ..EngineOptions::default()
        };
        let mut with = Engine::new(&store, PLAYER, searching);
        let mut without = Engine::new(&store, PLAYER, EngineOptions::default());
        assert_eq!(with.fallback_name(), without.fallback_name());
        for _ in 0..20 {
            assert_eq!(
                with.choose(&pos).expect("choice"),
                without.choose(&pos).expect("choice")
            );
        }
    }

    #[test]
    fn the_sampling_defaults_play_as_their_distribution_says() {
        // In the book (1. e4 e5 by the player's replies) and out of it (a position no game
        // reached): the moves chosen over many seeds follow `choice_distribution`.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut e = Engine::new(store(&dir), PLAYER, EngineOptions::sampling());
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        ] {
            let pos = notation::parse_fen(fen).expect("fen");
            let dist = e.choice_distribution(&pos, None).expect("distribution");
            let total: f64 = dist.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-9, "{dist:?}");
            assert!(dist.len() > 1, "it varies: {dist:?}");
            let n = 400;
            let mut seen = std::collections::HashMap::new();
            for seed in 0..n {
                e.set_seed(seed);
                *seen.entry(e.choose(&pos).expect("choice").mv).or_insert(0) += 1;
            }
            for (m, p) in &dist {
                let f = f64::from(seen.get(m).copied().unwrap_or(0)) / n as f64;
                assert!((f - p).abs() < 0.08, "{fen} {m:?}: {f} vs {p}");
            }
        }
        // With sampling off, out of the book there is one answer.
        e.set_options(EngineOptions::default());
        let pos = notation::parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").expect("fen");
        assert_eq!(e.choice_distribution(&pos, None).expect("d").len(), 1);
    }

    #[test]
    fn out_of_book_uses_the_labelled_fallback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut e = Engine::new(store(&dir), PLAYER, EngineOptions::default());
        let pos = notation::parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").expect("fen");
        let c = e.choose(&pos).expect("choice");
        assert!(pos.is_legal(c.mv));
        let Source::Fallback {
            policy,
            rejected,
            why,
            ..
        } = &c.source
        else {
            panic!("{c:?}")
        };
        assert!(policy.contains("random legal"));
        assert!(rejected.is_empty());
        assert_eq!(*why, FallbackWhy::NotInBook);
        assert!(c.describe().contains("not in the player's games"));
        let mate = notation::parse_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").expect("fen");
        assert!(matches!(
            e.choose(&mate),
            Err(EngineError::NoLegalMoves { checkmate: true })
        ));
    }

    #[test]
    fn likely_plays_the_most_played_move_and_habit_samples_by_games() {
        let dir = tempfile::tempdir().expect("tempdir");
        let start = Chess::default();
        let likely = EngineOptions {
            policy: Policy::Likely { prior: 1.0 },
            ..EngineOptions::default()
        };
        let mut e = Engine::new(store(&dir), PLAYER, likely);
        let view = e.book(&start).expect("book");
        let most = view
            .candidates
            .iter()
            .max_by_key(|c| c.stats.games())
            .map(|c| c.mv)
            .expect("opening moves");
        for seed in 0..20 {
            e.set_seed(seed);
            let c = e.choose(&start).expect("choice");
            assert_eq!(c.mv, most, "seed {seed}");
            assert!(
                c.describe()
                    .starts_with("book, likely:1 (games played + 1 x model)"),
                "{}",
                c.describe()
            );
        }
        // Deciding without the prior where it cannot matter gives the same moves as the
        // full blend, over the first plies of every game.
        let mut checked = 0;
        for (g, _) in sample_games(499) {
            for ply in g.replay().map_while(Result::ok).take(12) {
                let dist = e.distribution(&ply.pos).expect("distribution");
                if let Some((best, _)) = dist.first() {
                    assert_eq!(e.choose(&ply.pos).expect("choice").mv, *best);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // Habit without a prior: probabilities are the shares of games.
        e.set_policy(Policy::Habit { prior: 0.0 });
        let dist = e.distribution(&start).expect("distribution");
        let total: u32 = view.candidates.iter().map(|c| c.stats.games()).sum();
        assert_eq!(dist.len(), view.candidates.len());
        for (m, p) in &dist {
            let games = view
                .candidates
                .iter()
                .find(|c| c.mv == *m)
                .map(|c| c.stats.games())
                .expect("book move");
            assert!((p - f64::from(games) / f64::from(total)).abs() < 1e-12);
        }
        let n = 400;
        let hits = (0..n)
            .filter(|_| e.choose(&start).expect("choice").mv == most)
            .count();
        let p_most = dist[0].1;
        assert_eq!(dist[0].0, most);
        assert!(
            (hits as f64 / n as f64 - p_most).abs() < 0.08,
            "{hits}/{n} vs {p_most}"
        );
        // A prior spreads some weight over moves the player never played here.
        e.set_policy(Policy::Habit { prior: 2.0 });
        let spread = e.distribution(&start).expect("distribution");
        assert_eq!(spread.len(), start.legal_moves().len());
        assert!((spread.iter().map(|(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-9);
    }

    /// A model that puts all its probability on one move, with a chosen book weight.
    struct Insists {
        mv: Move,
        book_prior: Option<f64>,
    }

    impl Fallback for Insists {
        fn name(&self, _guard: Option<crate::Guard>) -> String {
            "insists".into()
        }
        fn choose(
            &mut self,
            _pos: &Chess,
            _last: Option<&Move>,
            _guard: Option<crate::Guard>,
            _sample: Option<f64>,
            _rng: &mut dyn rand::RngCore,
        ) -> (Move, String) {
            (self.mv, String::new())
        }
        fn distribution(
            &mut self,
            _pos: &Chess,
            _last: Option<&Move>,
            _guard: Option<crate::Guard>,
            _temperature: f64,
        ) -> Vec<(Move, f64)> {
            vec![(self.mv, 1.0)]
        }
        fn prior(&mut self, pos: &Chess, _last: Option<&Move>) -> Option<Vec<(Move, f64)>> {
            Some(
                pos.legal_moves()
                    .into_iter()
                    .map(|m| (m, f64::from(u8::from(m == self.mv))))
                    .collect(),
            )
        }
        fn tuned(&self) -> crate::fallback::Tuned {
            crate::fallback::Tuned {
                book_prior: self.book_prior,
                ..crate::fallback::Tuned::default()
            }
        }
    }

    #[test]
    fn likely_takes_the_models_own_weight_unless_one_is_given() {
        let dir = tempfile::tempdir().expect("tempdir");
        let start = Chess::default();
        let mut e = Engine::new(store(&dir), PLAYER, EngineOptions::default());
        let most = e
            .book(&start)
            .expect("book")
            .candidates
            .iter()
            .max_by_key(|c| c.stats.games())
            .map(|c| c.mv)
            .expect("opening moves");
        // A move the player never opened with.
        let unplayed = notation::parse_move(&start, "h2h4").expect("legal");
        let insists = |book_prior| {
            Box::new(Insists {
                mv: unplayed,
                book_prior,
            })
        };
        // Without a chosen weight, likely:30: the player's hundreds of games decide.
        e.set_fallback(insists(None));
        assert_eq!(e.policy(), Policy::Likely { prior: 30.0 });
        assert_eq!(e.choose(&start).expect("choice").mv, most);
        // The model's weight, chosen on validation, plays in the top-1 defaults.
        e.set_fallback(insists(Some(1e6)));
        assert_eq!(e.policy(), Policy::Likely { prior: 1e6 });
        let c = e.choose(&start).expect("choice");
        assert_eq!(c.mv, unplayed);
        assert!(c.describe().contains("likely:1000000"), "{}", c.describe());
        // A policy given by name (flag, config, setoption) keeps its own weight ...
        let mut given = EngineOptions::default();
        given.set("policy", "likely:30").expect("valid");
        assert!(!given.model_weight);
        e.set_options(given);
        assert_eq!(e.policy(), Policy::Likely { prior: 30.0 });
        assert_eq!(e.choose(&start).expect("choice").mv, most);
        // ... as does one set directly, and the sampling defaults (habit) never take it.
        e.set_options(EngineOptions::default());
        e.set_policy(Policy::Likely { prior: 1.0 });
        assert_eq!(e.policy(), Policy::Likely { prior: 1.0 });
        e.set_options(EngineOptions::sampling());
        assert_eq!(e.policy(), Policy::Habit { prior: 1.0 });
    }

    #[test]
    fn recent_games_weigh_more() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(&dir);
        let start = Chess::default();
        // The player's newest month in the sample, and their moves in it only.
        let newest = s
            .recent_games(
                PLAYER,
                PositionKey::from_position(&start),
                &Filter::default(),
                1,
            )
            .expect("recent")[0]
            .game
            .date
            .and_then(|d| d.month())
            .expect("dated");
        let recent = s
            .moves(
                PLAYER,
                PositionKey::from_position(&start),
                &Filter {
                    color: Some(Color::White),
                    since: Some(newest),
                    ..Filter::default()
                },
            )
            .expect("moves");
        let all = s
            .moves(
                PLAYER,
                PositionKey::from_position(&start),
                &Filter {
                    color: Some(Color::White),
                    ..Filter::default()
                },
            )
            .expect("moves");
        let opts = EngineOptions {
            policy: Policy::Habit { prior: 0.0 },
            recent_months: 1,
            recent_weight: 3.0,
            ..EngineOptions::default()
        };
        let mut e = Engine::new(s, PLAYER, opts);
        let dist = e.distribution(&start).expect("distribution");
        let weight = |mv: MoveCode| {
            let a = all
                .iter()
                .find(|r| r.mv == mv)
                .map_or(0, |r| r.stats.games());
            let r = recent
                .iter()
                .find(|r| r.mv == mv)
                .map_or(0, |r| r.stats.games());
            f64::from(a) + 3.0 * f64::from(r)
        };
        let total: f64 = all.iter().map(|r| weight(r.mv)).sum();
        assert!(recent.iter().map(|r| r.stats.games()).sum::<u32>() > 0);
        for r in &all {
            let m = r.mv.to_move(&start).expect("legal");
            let p = dist.iter().find(|(d, _)| *d == m).map_or(0.0, |(_, p)| *p);
            assert!((p - weight(r.mv) / total).abs() < 1e-12, "{}", r.mv);
        }
    }

    /// Games of the time class being played count `context_weight` extra, multiplied with
    /// recency's weight; while the time class is unknown, or the weight is 0, the book is
    /// weighted by recency alone.
    #[test]
    fn games_of_the_time_class_played_weigh_more() {
        use mirror_core::TimeClass;
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(&dir);
        let start = Chess::default();
        let key = PositionKey::from_position(&start);
        let newest = s
            .recent_games(PLAYER, key, &Filter::default(), 1)
            .expect("recent")[0]
            .game
            .date
            .and_then(|d| d.month())
            .expect("dated");
        let white = Filter {
            color: Some(Color::White),
            ..Filter::default()
        };
        let since_newest = Filter {
            since: Some(newest),
            ..white.clone()
        };
        // Rapid games (10 minutes): 91 of the 500.
        let rapid = |f: &Filter| Filter {
            time_classes: vec![TimeClass::Rapid],
            ..f.clone()
        };
        let games = |f: &Filter| -> Vec<(MoveCode, u32)> {
            s.moves(PLAYER, key, f)
                .expect("moves")
                .iter()
                .map(|r| (r.mv, r.stats.games()))
                .collect()
        };
        let (all, recent, like, both) = (
            games(&white),
            games(&since_newest),
            games(&rapid(&white)),
            games(&rapid(&since_newest)),
        );
        let blitz = |f: &Filter| Filter {
            time_classes: vec![TimeClass::Blitz],
            ..f.clone()
        };
        let (all_b, recent_b) = (games(&blitz(&white)), games(&blitz(&since_newest)));
        let sum = |rows: &[(MoveCode, u32)]| rows.iter().map(|r| r.1).sum::<u32>();
        assert!(sum(&like) > 0 && sum(&like) < sum(&all), "{like:?}");
        assert!(sum(&recent) > 0, "{recent:?}");
        let of = |rows: &[(MoveCode, u32)], mv: MoveCode| {
            f64::from(rows.iter().find(|r| r.0 == mv).map_or(0, |r| r.1))
        };
        let opts = EngineOptions {
            policy: Policy::Habit { prior: 0.0 },
            recent_months: 1,
            recent_weight: 2.0,
            context_weight: 3.0,
            ..EngineOptions::default()
        };
        let mut e = Engine::new(s, PLAYER, opts);
        // The distribution over the book moves `rows` is their weights, normalised.
        let check = |e: &mut Engine<EmbeddedStore>,
                     rows: &[(MoveCode, u32)],
                     weight: &dyn Fn(MoveCode) -> f64| {
            let dist = e.distribution(&start).expect("distribution");
            let total: f64 = rows.iter().map(|r| weight(r.0)).sum();
            for (mv, _) in rows {
                let m = mv.to_move(&start).expect("legal");
                let p = dist.iter().find(|(d, _)| *d == m).map_or(0.0, |(_, p)| *p);
                assert!((p - weight(*mv) / total).abs() < 1e-12, "{mv}");
            }
        };
        let by_recency = |mv| of(&all, mv) + 2.0 * of(&recent, mv);
        // The time class is not known yet: recency alone.
        check(&mut e, &all, &by_recency);
        e.set_game_time_class(Some(TimeClass::Rapid));
        check(&mut e, &all, &|mv| {
            by_recency(mv) + 3.0 * of(&like, mv) + 2.0 * 3.0 * of(&both, mv)
        });
        // A filter on other time classes leaves no rapid game to weigh.
        let mut blitz_only = e.options().clone();
        blitz_only.filter.time_classes = vec![TimeClass::Blitz];
        e.set_options(blitz_only);
        check(&mut e, &all_b, &|mv| {
            of(&all_b, mv) + 2.0 * of(&recent_b, mv)
        });
        let mut off = e.options().clone();
        off.filter.time_classes.clear();
        off.context_weight = 0.0;
        e.set_options(off);
        check(&mut e, &all, &by_recency);
    }

    #[test]
    fn lower_plays_the_best_proven_move() {
        let dir = tempfile::tempdir().expect("tempdir");
        let opts = EngineOptions {
            policy: Policy::Lower,
            ..EngineOptions::default()
        };
        let mut e = Engine::new(store(&dir), PLAYER, opts);
        let mut checked = 0;
        for (g, _) in sample_games(499).into_iter().take(60) {
            for ply in g.replay().map_while(Result::ok).take(8) {
                let view = e.book(&ply.pos).expect("book");
                // Independently: the highest Wilson lower bound (z = 1.96) of the score.
                let z: f64 = 1.959_963_984_540_054;
                let low = |c: &BookMove| {
                    let n = f64::from(c.stats.games());
                    let p = (f64::from(c.stats.wins) + 0.5 * f64::from(c.stats.draws)) / n;
                    ((p + z * z / (2.0 * n))
                        - z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt())
                        / (1.0 + z * z / n)
                };
                let Some(best) = view.candidates.iter().map(low).reduce(f64::max) else {
                    continue;
                };
                let c = e.choose(&ply.pos).expect("choice");
                let Source::Book { rule, stats, .. } = &c.source else {
                    panic!("a book position: {c:?}")
                };
                assert_eq!(rule.policy(), "lower");
                let chosen = view
                    .candidates
                    .iter()
                    .find(|b| b.mv == c.mv)
                    .expect("book move");
                assert_eq!(chosen.stats, *stats);
                assert!((low(chosen) - best).abs() < 1e-9, "{}", c.describe());
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
