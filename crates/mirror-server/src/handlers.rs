//! Route handlers.

use std::sync::{Arc, atomic::Ordering};

use axum::{
    Json,
    body::Bytes,
    extract::{RawQuery, State, rejection::JsonRejection},
    http::{Method, StatusCode, Uri, header},
    response::{IntoResponse, Response},
};
use mirror_core::{MoveStats, PositionKey, notation, openings::Openings, stats::FEW_GAMES};
use mirror_engine::{Engine, EngineOptions, Source};
use mirror_store::GraphStore;
use shakmaty::Position;

use crate::{
    AppState,
    cache::{Knobs, Question},
    error::ApiError,
    params::{self, Query as _, Raw},
    response::{
        ExploreMove, ExploreResponse, Health, MoveResponse, OpeningJson, PlayerListed, ScoreJson,
        SourceJson, TimeJson, by_colour, candidate, recent_json,
    },
};

type St<S> = State<Arc<AppState<S>>>;

fn query(RawQuery(q): RawQuery) -> Result<Raw, ApiError> {
    params::from_query(q.as_deref().unwrap_or_default())
}

/// A JSON body, or the error naming why it is not one.
fn json_value(
    b: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<serde_json::Value, ApiError> {
    match b {
        Ok(Json(v)) => Ok(v),
        Err(JsonRejection::MissingJsonContentType(_)) => Err(ApiError::UnsupportedMediaType(
            "send the body as JSON with Content-Type: application/json".into(),
        )),
        Err(JsonRejection::BytesRejection(_)) => Err(ApiError::TooLarge(crate::BODY_LIMIT)),
        Err(e) => Err(ApiError::BadRequest(format!(
            "invalid JSON body: {}",
            e.body_text()
        ))),
    }
}

fn json_body(b: Result<Json<serde_json::Value>, JsonRejection>) -> Result<Raw, ApiError> {
    params::from_json(json_value(b)?)
}

/// Players known to have games, shared by the requests of one server.
type KnownPlayers = Arc<std::sync::Mutex<std::collections::HashSet<String>>>;

/// Fails with 404 when the player has no games. A player found once is remembered (one
/// store read less per request; mirror never removes a player's games).
fn require_player<S: GraphStore>(
    known: &KnownPlayers,
    store: &S,
    user: &str,
) -> Result<(), ApiError> {
    let key = user.to_ascii_lowercase();
    let lock = || {
        known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if lock().contains(&key) {
        return Ok(());
    }
    if store.counts(user)?.games == 0 {
        return Err(ApiError::UnknownPlayer(user.to_string()));
    }
    lock().insert(key);
    Ok(())
}

/// `/move`: the engine's answer, drawn with the request's seed. In the player's book and
/// where the model answers out of it, the engine's outcomes (every move it may play there,
/// each answer written out) are kept per (player, data version, position, options): a
/// request for a kept position draws one on this task, without the book's reads, the
/// model, its guard or the blocking pool.
async fn choose_move<S: GraphStore + Send + Sync + 'static>(
    state: Arc<AppState<S>>,
    raw: Raw,
) -> Result<Response, ApiError> {
    let params::MoveRequest {
        user,
        pos,
        last,
        options,
        seed,
    } = params::MoveQuery::from_raw(raw)?.parse()?;
    let seed = seed.unwrap_or_else(|| {
        state
            .seeds
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
    });
    let u = mirror_engine::first_draw(seed);
    // The version is read before the data (see `kept`): a write by anyone is seen.
    let version = crate::versions::player_version(&state, &user).await?;
    // The player's key, not the name as written: one question, one kept answer (as the
    // explorer's).
    let key = Question::Move {
        player: player_key(&user)?,
        fen: notation::fen(&pos),
        last,
        options: Knobs::of(&EngineOptions {
            seed: 0,
            ..options.clone()
        }),
    };
    if let Some(v) = version
        && let Some(kept) = state.kept_moves.get(&key, v)
        && let Some(body) = kept.body(u)
    {
        return Ok(json_bytes(body.clone()));
    }
    // A position without legal moves is the engine's error (422), checked once there.
    let known = state.known_players.clone();
    let book_cache = state.book_cache.clone();
    let kept_moves = state.kept_moves.clone();
    let body = state
        .blocking(move |store, fallbacks| {
            require_player(&known, store, &user)?;
            let book = mirror_engine::KeptBook::new(store, &book_cache, version);
            let mut engine = Engine::new(book, user.clone(), EngineOptions { seed, ..options });
            if let Some(make) = fallbacks {
                engine.set_fallback(make(&user));
            }
            if let Some(v) = version
                && let Some(outcomes) = engine.outcomes_after(&pos, last)?
            {
                let bodies = (0..outcomes.reachable())
                    .map(|i| {
                        let body = move_body(&user, &pos, &outcomes.choice(i))?;
                        Ok((outcomes.moves()[i].1, body))
                    })
                    .collect::<Result<Vec<_>, ApiError>>()?;
                let kept = Arc::new(crate::cache::KeptMove {
                    draws: outcomes.draws(),
                    bodies,
                });
                let body = kept.body(u).cloned().ok_or_else(|| {
                    ApiError::Internal("the engine's outcomes hold no move".into())
                })?;
                kept_moves.put(key, v, kept);
                return Ok(body);
            }
            move_body(&user, &pos, &engine.choose_after(&pos, last)?)
        })
        .await?;
    Ok(json_bytes(body))
}

/// The `/move` answer for `choice` in `pos`, as JSON.
fn move_body(
    user: &str,
    pos: &shakmaty::Chess,
    choice: &mirror_engine::Choice,
) -> Result<Bytes, ApiError> {
    let (source, candidates) = match &choice.source {
        Source::Book {
            rule,
            stats,
            probability,
            candidates,
        } => (
            SourceJson::Book {
                policy: rule.policy(),
                tier: rule.tier(),
                rule: rule.rule(),
                games: stats.games(),
                wins: stats.wins,
                draws: stats.draws,
                losses: stats.losses,
                probability: *probability,
            },
            candidates
                .iter()
                .map(|(m, s, p)| candidate(pos, *m, s, *p))
                .collect(),
        ),
        Source::Fallback {
            policy,
            detail,
            rejected,
            ..
        } => (
            SourceJson::Fallback {
                policy: policy.clone(),
                detail: detail.clone(),
            },
            rejected
                .iter()
                .map(|(m, s)| candidate(pos, *m, s, 0.0))
                .collect(),
        ),
        Source::Endgame {
            ending,
            plies,
            keeping,
            legal,
            ..
        } => (
            SourceJson::Endgame {
                ending,
                mate_in: plies.div_ceil(2),
                keeping: *keeping,
                legal: *legal,
            },
            Vec::new(),
        ),
    };
    let answer = MoveResponse {
        user: user.to_string(),
        fen: notation::fen(pos),
        uci: notation::uci(choice.mv),
        san: notation::san(pos, choice.mv),
        explanation: choice.describe(),
        words: choice.in_words(user),
        source,
        candidates,
    };
    serde_json::to_vec(&answer)
        .map(Bytes::from)
        .map_err(|e| ApiError::Internal(format!("cannot write the answer as JSON: {e}")))
}

/// `GET /api/v1/move`.
pub(crate) async fn move_get<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    choose_move(state, query(q)?).await
}

/// `POST /api/v1/move` with a JSON body of the same parameters.
pub(crate) async fn move_post<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Response, ApiError> {
    choose_move(state, json_body(body)?).await
}

/// A JSON body already serialized.
fn json_bytes(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The key of `user`, as the caches know players (validated by the query's parser
/// already: a failure here is the store's error).
fn player_key(user: &str) -> Result<mirror_core::PlayerKey, ApiError> {
    mirror_core::PlayerKey::new(user).map_err(|e| ApiError::from(mirror_store::StoreError::from(e)))
}

/// The answer to `key` (the route and its question, parsed) about `user`: the kept
/// one while the player's data is unchanged (see [`crate::cache`];
/// [`GraphRead::player_version`], read from the store, so that a write by anyone, through
/// this server or not, is seen at the next request), else `answer`'s, kept for next time.
/// `heavy` answers run on the bounded blocking pool even when the store reads inline.
async fn kept<S, T, F>(
    state: &Arc<AppState<S>>,
    user: String,
    key: Question,
    heavy: bool,
    answer: F,
) -> Result<Response, ApiError>
where
    S: GraphStore + Send + Sync + 'static,
    T: serde::Serialize,
    F: FnOnce(&S) -> Result<T, ApiError> + Send + 'static,
{
    kept_body(state, user, key, heavy, answer)
        .await
        .map(json_bytes)
}

/// [`kept`]'s answer as JSON bytes (one line: no newline inside).
async fn kept_body<S, T, F>(
    state: &Arc<AppState<S>>,
    user: String,
    key: Question,
    heavy: bool,
    answer: F,
) -> Result<Bytes, ApiError>
where
    S: GraphStore + Send + Sync + 'static,
    T: serde::Serialize,
    F: FnOnce(&S) -> Result<T, ApiError> + Send + 'static,
{
    // The version is read before the data: an answer is never kept under a version older
    // than the data it was read from.
    let version = crate::versions::player_version(state, &user).await?;
    let cache = state.kept.clone();
    // A kept answer is sent from this task: no hop to the blocking pool for a map lookup.
    if let Some(v) = version
        && let Some(body) = cache.get(&key, v)
    {
        return Ok(body);
    }
    let merged = heavy.then(|| (key.clone(), version));
    let work = move |store: &S, _: Option<&mirror_engine::FallbackFactory>| {
        // A heavy answer waited for its turn: another request may have kept it meanwhile.
        if heavy
            && let Some(v) = version
            && let Some(body) = cache.get(&key, v)
        {
            return Ok(body);
        }
        let body =
            Bytes::from(serde_json::to_vec(&answer(store)?).map_err(|e| {
                ApiError::Internal(format!("cannot write the answer as JSON: {e}"))
            })?);
        if let Some(v) = version {
            cache.put(key, v, body.clone());
        }
        Ok(body)
    };
    let body = if let Some(merged) = merged {
        // Identical requests share one computation, and few run at once.
        let state2 = state.clone();
        state
            .in_flight
            .run(merged, || async move {
                let turn = state2
                    .heavy
                    .clone()
                    .acquire_owned()
                    .await
                    .map_err(|_| ApiError::Busy)?;
                // The turn is the computation's, not the request's: a client that leaves
                // does not free it while the work goes on (its answer is kept).
                state2
                    .blocking(move |store, fallbacks| {
                        let _turn = turn;
                        work(store, fallbacks)
                    })
                    .await
            })
            .await?
    } else {
        state.quick(work).await?
    };
    Ok(body)
}

/// `GET /api/v1/explore`, shaped like lichess's player explorer (answers kept, see
/// [`kept`]).
pub(crate) async fn explore<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let asked = params::ExploreQuery::from_raw(query(q)?)?.parse()?;
    explore_body(&state, asked).await.map(json_bytes)
}

/// `GET /api/v1/player`: lichess's player explorer under mirror's prefix, with lichess's
/// parameters (`player`, a required `color`, `fen` and `play` together), answered as
/// lichess answers it: NDJSON, whose last line is the complete answer (mirror's games are
/// all indexed already, so it is the only line).
pub(crate) async fn player<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let asked = params::PlayerQuery::from_raw(query(q)?)?.parse()?;
    let body = explore_body(&state, asked).await?;
    let mut line = Vec::with_capacity(body.len() + 1);
    line.extend_from_slice(&body);
    line.push(b'\n');
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], line).into_response())
}

/// `GET /api/v1/game`: one of the player's stored games, to replay on the page (its moves
/// in UCI and SAN, their times, the players, the result, its opening).
pub(crate) async fn game<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let params::GameRequest { user, id } = params::GameQuery::from_raw(query(q)?)?.parse()?;
    let known = state.known_players.clone();
    let answer = state
        .blocking(move |store, _| {
            require_player(&known, store, &user)?;
            let unknown = || ApiError::UnknownGame {
                player: user.clone(),
                id: id.0.clone(),
            };
            if store.ingested(&user, std::slice::from_ref(&id))?.is_empty() {
                return Err(unknown());
            }
            let record = store.game(&id)?.ok_or_else(|| {
                ApiError::Internal(format!("game {id} is listed for {user} but has no record"))
            })?;
            let mut names = vec![user.clone()];
            names.extend(store.accounts(&user)?.into_iter().map(|a| a.name));
            crate::response::GameJson::new(&record, record.color_of(&names))
                .map_err(ApiError::Internal)
        })
        .await?;
    Ok(Json(answer).into_response())
}

/// The explorer's answer (kept, see [`kept`]) as JSON bytes.
async fn explore_body<S: GraphStore + Send + Sync + 'static>(
    state: &Arc<AppState<S>>,
    asked: params::ExploreRequest,
) -> Result<Bytes, ApiError> {
    let params::ExploreRequest {
        user,
        pos,
        opening,
        filter,
        recent_games: recent,
        moves: listed,
    } = asked;
    // Keyed by what was asked, parsed: the same question written another way (another
    // order, another move path to the same position and opening) shares one answer.
    let key = Question::Explore {
        player: player_key(&user)?,
        position: PositionKey::from_position(&pos),
        opening: opening.map(|o| o.name.as_str()),
        filter: filter.clone(),
        recent_games: recent,
        moves: listed,
    };
    let player = filter.color.unwrap_or(pos.turn());
    let known = state.known_players.clone();
    kept_body(state, user.clone(), key, false, move |store| {
        require_player(&known, store, &user)?;
        let key = PositionKey::from_position(&pos);
        let rows = store.moves(&user, key, &filter)?;
        let evals = crate::response::ExploreEvals::read(store, key, &rows)?;
        let mut total = MoveStats::default();
        let mut moves = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let (m, interval) = r.checked(&pos, key)?;
            let truth = evals.of_move(i, &notation::uci(m), pos.turn());
            total.merge(&r.stats);
            let (white, draws, black) = by_colour(&r.stats, player);
            let mut child = pos.clone();
            child.play_unchecked(m);
            moves.push(ExploreMove {
                uci: notation::uci(m),
                san: notation::san(&pos, m),
                white,
                draws,
                black,
                average_opponent_rating: r.stats.average_opponent_rating(),
                performance: r.stats.performance(),
                game: None,
                score: ScoreJson {
                    value: interval.score,
                    low: interval.low,
                    high: interval.high,
                    few_games: r.stats.games() < FEW_GAMES,
                },
                opening: Openings::builtin()
                    .at(&child)
                    .or(opening)
                    .map(OpeningJson::from),
                last_played: mirror_core::Date::from_u32(r.stats.last).map(|d| d.to_string()),
                time: TimeJson::of(&r.stats),
                eval: truth.eval,
                win_loss: truth.win_loss,
                judgement: truth.judgement.map(|j| j.as_str()),
            });
        }
        let recent_games = if recent == 0 || rows.is_empty() {
            Vec::new()
        } else {
            store
                .recent_games(&user, key, &filter, recent)?
                .iter()
                .map(recent_json)
                .collect()
        };
        if let Some(n) = listed {
            // lichess's `moves`: the most played first, the totals still the position's.
            moves.truncate(n);
        }
        let (white, draws, black) = by_colour(&total, player);
        Ok(ExploreResponse {
            white,
            draws,
            black,
            moves,
            recent_games,
            opening: opening.map(OpeningJson::from),
            queue_position: 0,
            eval: evals.here(),
        })
    })
    .await
}

/// `GET /api/v1/pace`: how long the player would take in a position (the book's time
/// there, else their time model, else a share of the clock left; `mirror_engine::pace`),
/// for a page that plays at their pace. The time model is kept per player version.
pub(crate) async fn pace<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let params::PaceRequest { user, pos, clock } =
        params::PaceQuery::from_raw(query(q)?)?.parse()?;
    let version = crate::versions::player_version(&state, &user).await?;
    let known = state.known_players.clone();
    let models = state.pace_models.clone();
    let answer = state
        .blocking(move |store, _| {
            require_player(&known, store, &user)?;
            let key = Question::Pace {
                player: player_key(&user)?,
            };
            let model = match version.and_then(|v| models.get(&key, v)) {
                Some(m) => m,
                None => {
                    let m = Arc::new(mirror_store::pace_of(store, &user)?);
                    if let Some(v) = version {
                        models.put(key, v, m.clone());
                    }
                    m
                }
            };
            let filter = mirror_store::Filter {
                color: Some(pos.turn()),
                ..mirror_store::Filter::default()
            };
            // The player's moves in games of the clock's time class (a blitz game waits as
            // they do in blitz).
            let key = PositionKey::from_position(&pos);
            let stats = mirror_engine::pace::timed_stats(&filter, clock, |f| {
                store
                    .moves(&user, key, f)
                    .map(|rows| rows.into_iter().map(|r| r.stats).collect())
            })?;
            let ply = mirror_engine::pace::ply_of(&pos);
            let p = mirror_engine::pace::pace(&stats, clock, Some(&model), ply);
            Ok(crate::response::PaceAnswer::new(&p))
        })
        .await?;
    Ok(Json(answer).into_response())
}

/// `GET /api/v1/report`: where to study (see `mirror_store::report`; answers kept, see
/// [`kept`]: a report reads the player's whole graph).
pub(crate) async fn report<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let params::ReportRequest { user, options } =
        params::ReportQuery::from_raw(query(q)?)?.parse()?;
    let key = Question::Report {
        player: player_key(&user)?,
        options: options.clone(),
    };
    let known = state.known_players.clone();
    kept(&state, user.clone(), key, true, move |store| {
        require_player(&known, store, &user)?;
        let r = mirror_store::report::report(store, &user, &options)?;
        Ok(crate::response::ReportJson::new(&user, &r))
    })
    .await
}

/// A drill's failure as an answer: the store's errors as the store's, nothing to prepare
/// (an opponent never met) 422, a bad answer 400.
fn drill_error(e: mirror_drill::DrillError) -> ApiError {
    match e {
        mirror_drill::DrillError::Store(s)
        | mirror_drill::DrillError::Prep(mirror_store::prep::PrepError::Store(s)) => {
            ApiError::from(s)
        }
        mirror_drill::DrillError::Prep(other) => ApiError::Unprocessable(other.to_string()),
        mirror_drill::DrillError::Answer(why) => ApiError::BadRequest(why),
        mirror_drill::DrillError::Schedule(why) => ApiError::Internal(why),
    }
}

/// Seconds since the Unix epoch.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The cards of `user` made with `options`, kept per player version (a new analysis
/// raises every player's); made on the blocking pool with a heavy turn (the engine's
/// cards read the report), which the computation keeps if the client leaves.
async fn drill_cards<S: GraphStore + Send + Sync + 'static>(
    state: &Arc<AppState<S>>,
    user: &str,
    options: &mirror_drill::CardOptions,
) -> Result<Arc<Vec<mirror_drill::Card>>, ApiError> {
    let version = crate::versions::player_version(state, user).await?;
    let key = Question::Drill {
        player: player_key(user)?,
        options: Knobs::of(options),
    };
    if let Some(v) = version
        && let Some(cards) = state.drill_cards.get(&key, v)
    {
        return Ok(cards);
    }
    let turn = state
        .heavy
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::Busy)?;
    let (cache, known) = (state.drill_cards.clone(), state.known_players.clone());
    let (user, options) = (user.to_string(), options.clone());
    state
        .blocking(move |store, _| {
            let _turn = turn;
            require_player(&known, store, &user)?;
            if let Some(them) = &options.opponent {
                require_player(&known, store, them)?;
            }
            let cards = Arc::new(mirror_drill::cards(store, &user, &options).map_err(drill_error)?);
            if let Some(v) = version {
                cache.put(key, v, cards.clone());
            }
            Ok(cards)
        })
        .await
}

/// `GET /api/v1/drill`: the player's drill queue now (the due cards, the longest overdue
/// first, then up to `new` new ones) with the counts per colour, as `mirror drill --list
/// --json` lists cards. Reads only: retirements are stored by `mirror drill`.
pub(crate) async fn drill_queue<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let params::DrillRequest { user, options, new } =
        params::DrillQuery::from_raw(query(q)?)?.parse()?;
    let cards = drill_cards(&state, &user, &options).await?;
    let listing = state
        .blocking(move |store, _| {
            let name = mirror_store::require_player(store, &user)?;
            let records = store.drill_records(&user)?;
            let (deck, _) =
                mirror_drill::Deck::assemble(&name, (*cards).clone(), records, options.color);
            let now = unix_now();
            let queue = deck.queue(now, new);
            Ok(deck.listing_of(now, queue))
        })
        .await?;
    Ok(Json(listing).into_response())
}

/// `POST /api/v1/drill` with an answer to one card ([`params::DrillAnswerBody`]) and the
/// token: the answer checked and stored (FSRS at the answer's retention, 0.9 by default;
/// graded by its time),
/// the other side's reply drawn, and the player's card after it.
pub(crate) async fn drill_answer<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    headers: axum::http::HeaderMap,
    q: RawQuery,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Response, ApiError> {
    writer(&state, &headers)?;
    let params::DrillRequest { user, options, .. } =
        params::DrillQuery::from_raw(query(q)?)?.parse()?;
    let asked: params::DrillAnswerBody = serde_json::from_value(json_value(body)?)
        .map_err(|e| ApiError::BadRequest(format!("invalid drill answer: {e}")))?;
    let answer = asked.parse()?;
    let cards = drill_cards(&state, &user, &options).await?;
    let seed = state
        .seeds
        .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
    let out = state
        .blocking(move |store, _| {
            let card = cards
                .iter()
                .find(|c| c.key == answer.key && c.color == answer.color)
                .ok_or_else(|| {
                    ApiError::NotFound(format!(
                        "{user} has no drill card at position {:016x} as {} (with these options)",
                        answer.key.0,
                        mirror_core::codec::color_name(answer.color)
                    ))
                })?;
            let pos = card.position().map_err(drill_error)?;
            let m = answer
                .uci
                .as_deref()
                .map(|u| {
                    notation::parse_move(&pos, u)
                        .map_err(|e| ApiError::BadRequest(format!("uci: {e}")))
                })
                .transpose()?;
            let record = store
                .drill_records(&user)?
                .into_iter()
                .find(|r| r.key == card.key && r.color == card.color)
                .unwrap_or_else(|| mirror_store::DrillRecord::new(card.key, card.color));
            let scheduler = mirror_drill::Scheduler::new(answer.retention).map_err(drill_error)?;
            let (_, verdict) = mirror_drill::answer_card(
                store,
                &user,
                card,
                &record,
                m,
                answer.took,
                unix_now(),
                (
                    &scheduler,
                    &mirror_drill::Grading::default(),
                    &options.filter,
                ),
            )
            .map_err(drill_error)?;
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
            let drawn = mirror_drill::draw_reply(
                store,
                &user,
                card,
                (options.opponent.as_deref(), &options.filter),
                &mut rng,
            )
            .map_err(drill_error)?;
            let next = drawn.as_ref().and_then(|(_, after)| {
                let key = PositionKey::from_position(after);
                cards
                    .iter()
                    .find(|c| c.key == key && c.color == card.color)
                    .cloned()
            });
            Ok(crate::response::DrillAnswerJson {
                verdict,
                reply: drawn.map(|(r, _)| r),
                next,
            })
        })
        .await?;
    Ok(Json(out).into_response())
}

/// `GET /api/v1/repertoire`: the player's repertoire with one colour as one PGN game with
/// variations ([`mirror_store::repertoire`]), as a file to save (bounded by its
/// `maxMoves`, read on the blocking pool).
pub(crate) async fn repertoire<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let params::RepertoireRequest {
        user,
        options,
        chapters,
    } = params::RepertoireQuery::from_raw(query(q)?)?.parse()?;
    let color = match options.color {
        shakmaty::Color::White => "white",
        shakmaty::Color::Black => "black",
    };
    let known = state.known_players.clone();
    let text = state
        .blocking(move |store, _| {
            require_player(&known, store, &user)?;
            // The name as stored (the file's tags name the player as their games do).
            let name = mirror_store::require_player(store, &user)?;
            let rep = mirror_store::repertoire::repertoire(store, &name, &options)?;
            Ok(match chapters {
                Some(n) => rep.to_pgn_chapters(n),
                None => rep.to_pgn(),
            })
        })
        .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-chess-pgn".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"repertoire-{color}.pgn\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// `GET /api/v1/prep`: the lines where the player's tree meets the opponent's (answers
/// kept while both players' data is unchanged, see [`kept`]).
pub(crate) async fn prep<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    let params::PrepRequest {
        user,
        opponent,
        options,
    } = params::PrepQuery::from_raw(query(q)?)?.parse()?;
    // Kept under the player's version; the opponent's is part of the key.
    let theirs = crate::versions::player_version(&state, &opponent).await?;
    let key = Question::Prep {
        player: player_key(&user)?,
        opponent: player_key(&opponent)?,
        theirs,
        options: Knobs::of(&options),
    };
    let known = state.known_players.clone();
    kept(&state, user.clone(), key, true, move |store| {
        require_player(&known, store, &user)?;
        require_player(&known, store, &opponent)?;
        crate::prep::PrepJson::prepare(store, &user, &opponent, &options).map_err(|e| match e {
            mirror_store::prep::PrepError::Store(s) => ApiError::from(s),
            other => ApiError::Unprocessable(other.to_string()),
        })
    })
    .await
}

/// `POST /api/v1/ingest` with an [`IngestRequest`](crate::IngestRequest) and
/// `Authorization: Bearer TOKEN`: runs the ingest on this server's store, one at a time,
/// and answers what it printed. Later answers (the explorer's, the page's) show the new
/// games at once: the kept answers are dropped when the store changes.
pub(crate) async fn ingest<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    headers: axum::http::HeaderMap,
    body: axum::body::Body,
) -> Result<Json<crate::CommandOutput>, ApiError> {
    // The token before the body, and the body within its bound and deadline: the route has
    // no time limit of its own (an ingest runs long).
    let writes = writer(&state, &headers)?;
    let bytes = crate::body::read(
        body,
        &headers,
        crate::BODY_LIMIT,
        crate::body::BODY_DEADLINE,
    )
    .await?;
    let request: crate::IngestRequest =
        serde_json::from_value(crate::body::json(&headers, &bytes)?)
            .map_err(|e| ApiError::BadRequest(format!("invalid ingest request: {e}")))?;
    let request = tokio::task::spawn_blocking(move || request.check().map(|()| request))
        .await
        .map_err(|e| ApiError::Internal(format!("the request's check failed: {e}")))??;
    let job = state
        .jobs
        .add("mirror ingest".to_string(), request.user.clone())?;
    // The caller leaving (Ctrl-C of a forwarded `mirror ingest`) cancels the ingest, as
    // Ctrl-C stops a local one: after the batch or month it is writing, which is kept, and
    // the next ingest goes on from there. The job itself runs on its own task, so the
    // store's lock is released only when it has stopped.
    let leaving = CancelOnDrop(Some(job.clone()));
    let run = tokio::spawn(run_job(state.clone(), writes, job.clone(), request, None));
    let ran = run.await;
    leaving.disarm();
    ran.map_err(|e| ApiError::Internal(format!("the ingest failed: {e}")))?;
    Ok(Json(job.output()))
}

/// Cancels a job when dropped armed: the handler waiting for it was dropped, which is what
/// the server does with a request whose client has gone.
struct CancelOnDrop(Option<Arc<crate::jobs::Job>>);

impl CancelOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(job) = self.0.take() {
            job.cancel();
        }
    }
}

/// The server's writes, if `headers` carry the token (on every address: the owner's page
/// gets it from `/api/v1/session`).
fn writer<S>(
    state: &Arc<AppState<S>>,
    headers: &axum::http::HeaderMap,
) -> Result<Arc<crate::Writes>, ApiError> {
    let Some(writes) = &state.writes else {
        return Err(ApiError::Unauthorized(
            "this server accepts no writes".into(),
        ));
    };
    if !writes.authorized(headers) {
        return Err(ApiError::Unauthorized(
            "a write needs the server's token (Authorization: Bearer TOKEN): the file next \
             to the store, or MIRROR_SERVER_TOKEN where the server was started"
                .into(),
        ));
    }
    Ok(writes.clone())
}

/// `GET /api/v1/session`: the write token, for the page of the server's owner: asked from
/// this machine by the user the server runs as (the kernel's socket table says, see
/// [`crate::owner`]) and from the server's own page (a browser's `Sec-Fetch-Site` and
/// `Origin` say no other site asked). Never kept by a cache.
pub(crate) async fn session<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    request: axum::extract::Request,
) -> Result<Response, ApiError> {
    let Some(writes) = state.writes.clone() else {
        return Err(ApiError::Forbidden("this server accepts no writes".into()));
    };
    let headers = request.headers();
    let refuse = |why: String| {
        ApiError::Forbidden(format!(
            "the token goes only to the page of the user who started the server, on this \
             machine ({why}); enter it in the page: the file next to the store, or \
             MIRROR_SERVER_TOKEN where the server was started"
        ))
    };
    if let Some(site) = headers.get("sec-fetch-site")
        && site.as_bytes() != b"same-origin"
    {
        return Err(refuse(format!(
            "asked from {:?}, not the server's own page",
            String::from_utf8_lossy(site.as_bytes())
        )));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers
            .get(header::HOST)
            .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
            .unwrap_or_default();
        if origin.as_bytes() != format!("http://{host}").as_bytes() {
            return Err(refuse(format!(
                "asked from {:?}",
                String::from_utf8_lossy(origin.as_bytes())
            )));
        }
    }
    let peer = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0)
        .ok_or_else(|| refuse("the connection's address is unknown".into()))?;
    tokio::task::spawn_blocking(move || crate::owner::check(peer))
        .await
        .map_err(|e| ApiError::Internal(format!("the owner's check failed: {e}")))?
        .map_err(|e| refuse(e.to_string()))?;
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(serde_json::json!({ "token": writes.token })),
    )
        .into_response())
}

/// Runs `request` as `job` once the ingest before it has ended; `upload` (a PGN sent by
/// the page) is removed after.
async fn run_job<S: GraphStore + Send + Sync + 'static>(
    state: Arc<AppState<S>>,
    writes: Arc<crate::Writes>,
    job: Arc<crate::jobs::Job>,
    request: crate::IngestRequest,
    upload: Option<tempfile::TempPath>,
) {
    let one_at_a_time = writes.lock.clone().lock_owned().await;
    job.start();
    if job.cancelled() {
        // Cancelled while it waited its turn: nothing read, nothing written.
        job.warn("cancelled before it started");
        job.finish(false);
        return;
    }
    let store = state.store.clone();
    let on_blocking = job.clone();
    let ran = tokio::task::spawn_blocking(move || {
        let _one_at_a_time = one_at_a_time;
        let _upload = upload;
        crate::jobs::run_ingest(&*store, &writes, &request, &on_blocking)
    })
    .await;
    match ran {
        Ok(ok) => job.finish(ok),
        Err(e) => {
            tracing::error!(job = job.id(), error = %e, "an ingest stopped");
            job.warn(&format!("error: the ingest stopped: {e}"));
            job.finish(false);
        }
    }
}

/// `POST /api/v1/imports` with an [`ImportRequest`](crate::jobs::ImportRequest): starts
/// the ingest and answers 202 with its job at once; `GET /api/v1/imports/{id}` follows it.
pub(crate) async fn import<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    headers: axum::http::HeaderMap,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Response, ApiError> {
    let writes = writer(&state, &headers)?;
    let asked: crate::jobs::ImportRequest = serde_json::from_value(json_value(body)?)
        .map_err(|e| ApiError::BadRequest(format!("invalid import request: {e}")))?;
    let (request, what) = asked.ingest()?;
    if asked.chesscom.is_none() && asked.lichess.is_none() {
        // New games of a player the store has: that player must be there.
        let user = asked.user.clone().unwrap_or_default();
        let known = state.known_players.clone();
        let found = user.clone();
        state
            .quick(move |store, _| require_player(&known, store, &found))
            .await?;
    }
    let job = state.jobs.add(what, asked.player())?;
    tokio::spawn(run_job(state.clone(), writes, job.clone(), request, None));
    Ok((StatusCode::ACCEPTED, Json(job.status())).into_response())
}

/// `POST /api/v1/imports/pgn?user=NAME[&alias=OTHERS]` (other spellings one per line) with
/// PGN text as the body (up to
/// [`UPLOAD_LIMIT`](crate::jobs::UPLOAD_LIMIT)): the games of NAME in it, as
/// `mirror ingest --user NAME --pgn FILE` takes them; 202 with the job.
pub(crate) async fn import_pgn<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    headers: axum::http::HeaderMap,
    q: RawQuery,
    body: axum::body::Body,
) -> Result<Response, ApiError> {
    // The token and the query before the body; the body to a file as it arrives.
    let writes = writer(&state, &headers)?;
    let (user, aliases) = params::UploadQuery::from_raw(query(q)?)?.parse()?;
    let (saved, size) = crate::body::to_file(
        body,
        &headers,
        crate::jobs::UPLOAD_LIMIT,
        crate::body::UPLOAD_DEADLINE,
        ".pgn",
    )
    .await?;
    if size == 0 {
        return Err(ApiError::BadRequest(
            "the body is empty: send the PGN text of the games".into(),
        ));
    }
    let path = saved
        .to_str()
        .ok_or_else(|| ApiError::Internal("the upload's file name is not UTF-8".into()))?
        .to_string();
    let request = crate::IngestRequest {
        user: Some(user.clone()),
        aliases,
        pgn: vec![path],
        plain_progress: true,
        ..crate::IngestRequest::default()
    };
    let job = state
        .jobs
        .add(format!("PGN upload for {user}"), Some(user))?;
    tokio::spawn(run_job(
        state.clone(),
        writes,
        job.clone(),
        request,
        Some(saved),
    ));
    Ok((StatusCode::ACCEPTED, Json(job.status())).into_response())
}

/// `GET /api/v1/imports`: the ingests run through this server, running and recent, the
/// newest first.
pub(crate) async fn imports<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Json<Vec<crate::jobs::JobStatus>>, ApiError> {
    params::none(&query(q)?)?;
    Ok(Json(state.jobs.statuses()))
}

/// The job numbered `id` (as the path gives it), while it is kept.
fn kept_job<S>(state: &AppState<S>, id: &str) -> Result<Arc<crate::jobs::Job>, ApiError> {
    let n: u64 = id
        .parse()
        .map_err(|_| ApiError::BadRequest(format!("{id:?} is not a job number")))?;
    state
        .jobs
        .get(n)
        .ok_or_else(|| ApiError::NotFound(format!("/api/v1/imports/{n} (no such job kept)")))
}

/// `GET /api/v1/imports/{id}`: one ingest, as it runs.
pub(crate) async fn import_status<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    axum::extract::Path(id): axum::extract::Path<String>,
    q: RawQuery,
) -> Result<Json<crate::jobs::JobStatus>, ApiError> {
    params::none(&query(q)?)?;
    let job = kept_job(&state, &id)?;
    Ok(Json(job.status()))
}

/// `DELETE /api/v1/imports/{id}` (with the token): cancels an ingest. A waiting one never
/// starts; a running one stops after the batch it is writing (what it committed stays,
/// and importing again resumes after it). Answers the job as it is now.
pub(crate) async fn import_cancel<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    headers: axum::http::HeaderMap,
    axum::extract::Path(id): axum::extract::Path<String>,
    q: RawQuery,
) -> Result<Response, ApiError> {
    writer(&state, &headers)?;
    params::none(&query(q)?)?;
    let job = kept_job(&state, &id)?;
    if !job.cancel() {
        return Err(ApiError::Unprocessable(format!(
            "import {} has already ended ({:?})",
            job.id(),
            job.status().state
        )));
    }
    Ok((StatusCode::ACCEPTED, Json(job.status())).into_response())
}

/// `GET /api/v1/book`: the player's summed move rows from a position, exactly as the store
/// has them (what a remote engine reads).
pub(crate) async fn book<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Json<Vec<crate::response::BookRowJson>>, ApiError> {
    let params::BookRequest { user, key, filter } =
        params::BookQuery::from_raw(query(q)?)?.parse()?;
    let known = state.known_players.clone();
    state
        .quick(move |store, _| {
            require_player(&known, store, &user)?;
            Ok(Json(
                store
                    .moves(&user, key, &filter)?
                    .iter()
                    .map(crate::response::BookRowJson::from_row)
                    .collect(),
            ))
        })
        .await
}

/// `GET /api/v1/book/newest`: the month of the player's newest game.
pub(crate) async fn book_newest<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
    q: RawQuery,
) -> Result<Json<crate::response::NewestJson>, ApiError> {
    let user = params::NewestQuery::from_raw(query(q)?)?.parse()?;
    let known = state.known_players.clone();
    state
        .quick(move |store, _| {
            require_player(&known, store, &user)?;
            let month = mirror_engine::Book::newest_month(store, &user)?;
            Ok(Json(crate::response::NewestJson {
                month: month.map(|m| m.to_string()),
            }))
        })
        .await
}

/// `GET /api/v1/players`: the players in the store, most games first.
pub(crate) async fn players<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
) -> Result<Json<Vec<PlayerListed>>, ApiError> {
    state
        .blocking(|store, _| {
            let mut out: Vec<PlayerListed> = store
                .players()?
                .into_iter()
                .map(|p| PlayerListed {
                    name: p.name,
                    games: p.games,
                })
                .collect();
            out.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
            Ok(Json(out))
        })
        .await
}

/// The OpenAPI document as written (`openapi.json`), before the engine's knobs are added.
const OPENAPI_FILE: &str = include_str!("../openapi.json");

/// The schema of a knob's value as a query parameter.
fn knob_schema(kind: mirror_engine::KnobKind) -> serde_json::Value {
    use mirror_engine::KnobKind;
    match kind {
        KnobKind::Int { min, max } => {
            serde_json::json!({ "type": "integer", "minimum": min, "maximum": max })
        }
        KnobKind::Bool => serde_json::json!({ "type": "string", "enum": ["true", "false"] }),
        KnobKind::Choice(words) => serde_json::json!({ "type": "string", "enum": words }),
        KnobKind::Weight | KnobKind::Text => serde_json::json!({ "type": "string" }),
    }
}

/// The OpenAPI document of this API: `openapi.json` with `/api/v1/move`'s knobs from
/// the engine's table ([`mirror_engine::KNOBS`]), as parameters and as body properties
/// (kept true by the tests: its parameters are the endpoints' own, and schemathesis checks
/// every answer against it).
pub fn openapi_document() -> &'static str {
    static DOC: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let mut doc: serde_json::Value = serde_json::from_str(OPENAPI_FILE)
            .expect("openapi.json is JSON (a test reads it at every build)");
        let knobs: Vec<&mirror_engine::Knob> = mirror_engine::KNOBS
            .iter()
            .filter(|k| k.group == mirror_engine::KnobGroup::Engine)
            .collect();
        let op = &mut doc["paths"]["/api/v1/move"];
        if let Some(params) = op["get"]["parameters"].as_array_mut() {
            params.extend(knobs.iter().map(|k| {
                serde_json::json!({
                    "name": k.http_name(),
                    "in": "query",
                    "required": false,
                    "description": k.doc,
                    "schema": knob_schema(k.kind),
                })
            }));
        }
        let body =
            &mut op["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"];
        let any = body["seed"].clone();
        if let Some(props) = body.as_object_mut() {
            for k in &knobs {
                props.insert(k.http_name(), any.clone());
            }
        }
        doc.to_string()
    });
    &DOC
}

/// `GET /api/v1/openapi.json`.
pub(crate) async fn openapi() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        openapi_document(),
    )
}

/// `GET /health`: the store answers.
pub(crate) async fn health<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
) -> Result<Json<Health>, ApiError> {
    let players = state
        .blocking(|store, _| Ok(store.players()?.len()))
        .await
        .map_err(|_| ApiError::Busy)?;
    Ok(Json(Health {
        status: "ok",
        players,
        version: env!("CARGO_PKG_VERSION"),
    }))
}

/// `GET /metrics`: Prometheus text.
pub(crate) async fn metrics<S: GraphStore + Send + Sync + 'static>(
    State(state): St<S>,
) -> impl IntoResponse {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
}

/// Any unknown path.
pub(crate) async fn not_found(uri: Uri) -> ApiError {
    ApiError::NotFound(uri.path().to_string())
}

/// A known path with a method it does not serve.
pub(crate) async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::MethodNotAllowed {
        method: method.to_string(),
        path: uri.path().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_store::embedded::{EmbeddedStore, OpenMode};

    /// Waits up to 5 s for `done`.
    async fn until(done: impl Fn() -> bool) -> bool {
        for _ in 0..500 {
            if done() {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        false
    }

    /// A heavy answer whose client leaves keeps its turn until its computation ends: a
    /// client that starts reports and leaves cannot make more of them run at once.
    #[tokio::test]
    async fn an_abandoned_heavy_answer_keeps_its_turn_until_it_ends() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Arc::new(
            EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing)
                .expect("open"),
        );
        let state = AppState::new(store, 8);
        let all = state.heavy.available_permits();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let asked = state.clone();
        let ends = ended.clone();
        let request = tokio::spawn(async move {
            kept(
                &asked,
                "someone".into(),
                Question::Pace {
                    player: mirror_core::PlayerKey::new("someone").expect("a name"),
                },
                true,
                move |_| {
                    let _ = wait.recv();
                    ends.store(true, std::sync::atomic::Ordering::SeqCst);
                    Ok(1)
                },
            )
            .await
        });
        assert!(until(|| state.heavy.available_permits() == all - 1).await);
        // The client leaves while the answer is computed.
        request.abort();
        assert!(request.await.is_err_and(|e| e.is_cancelled()));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(
            state.heavy.available_permits(),
            all - 1,
            "the turn is the computation's while it runs"
        );
        go.send(()).expect("the computation waits");
        assert!(until(|| state.heavy.available_permits() == all).await);
        assert!(ended.load(std::sync::atomic::Ordering::SeqCst));
    }
}
