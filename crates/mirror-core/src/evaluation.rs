//! An engine's evaluation of a position, stored on the position itself and shared by every
//! player who reaches it: the score from White's side (centipawns or mate, as lichess's
//! cloud evaluations give it), the best move, the depth the search reached, the engine
//! that searched, and where the evaluation came from.

/// A score from White's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EvalScore {
    /// Centipawns (positive: White is better).
    Cp(i32),
    /// Mate in this many moves (positive: White mates; negative: Black mates).
    Mate(i32),
}

/// lichess's win% of a centipawn score (clamped to ±1000): 50 + 50 x (2 / (1 +
/// e^(-0.00368208 x cp)) - 1), the chance the side it favours wins, in percent.
pub fn win_percent(cp: f64) -> f64 {
    let cp = cp.clamp(-1000.0, 1000.0);
    50.0 + 50.0 * (2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0)
}

/// What a move is, by the win% it loses against the best move (lichess's marks: 5, 10
/// and 15 points, its 0.1, 0.2 and 0.3 of winning chances).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judgement {
    /// At least 5 points: `?!`.
    Inaccuracy,
    /// At least 10 points: `?`.
    Mistake,
    /// At least 15 points: `??`.
    Blunder,
}

impl Judgement {
    /// The mark of a move that loses `win_loss` points, if any.
    pub fn of(win_loss: f64) -> Option<Judgement> {
        match win_loss {
            l if l >= 15.0 => Some(Judgement::Blunder),
            l if l >= 10.0 => Some(Judgement::Mistake),
            l if l >= 5.0 => Some(Judgement::Inaccuracy),
            _ => None,
        }
    }

    /// Its name, as lichess writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }

    /// Its annotation symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }
}

/// The win% a move loses for the side that plays it: the position's win% before the move
/// (its best move's) less the win% after it, from the mover's side, never below 0.
pub fn win_loss(before: &Evaluation, after: &Evaluation, mover: shakmaty::Color) -> f64 {
    let mine = |e: &Evaluation| {
        let white = win_percent(e.capped_cp());
        if mover == shakmaty::Color::White {
            white
        } else {
            100.0 - white
        }
    };
    (mine(before) - mine(after)).max(0.0)
}

/// The win% the move `played` (UCI) loses against the best: nothing when it is the
/// engine's best move there (the evaluation after it, a search from the next position to
/// the same depth, may differ by the horizon: a forced recapture must never look like a
/// loss), else [`win_loss`].
pub fn move_loss(
    before: &Evaluation,
    after: &Evaluation,
    mover: shakmaty::Color,
    played: &str,
) -> f64 {
    if before.best.as_deref() == Some(played) {
        0.0
    } else {
        win_loss(before, after, mover)
    }
}

/// The evaluation a game's comment gives after a move, as lichess's exports write it:
/// `[%eval 0.25]` (pawns, from White's side), `[%eval #-3]` (mate), optionally with the
/// depth after a comma (`[%eval 0.25,18]`); the first `[%eval]` whose value reads counts.
pub fn comment_eval(comment: &[u8]) -> Option<(EvalScore, u16)> {
    let text = std::str::from_utf8(comment).ok()?;
    let mut rest = text;
    while let Some(at) = rest.find("[%eval") {
        let after = &rest[at + "[%eval".len()..];
        rest = after;
        let end = after.find(']')?;
        let value = after[..end].trim();
        let (score, depth) = match value.split_once(',') {
            Some((v, d)) => (v.trim(), d.trim().parse::<u16>().ok()),
            None => (value, Some(0)),
        };
        let Some(depth) = depth else {
            continue;
        };
        let parsed = if let Some(mate) = score.strip_prefix('#') {
            mate.parse::<i32>().ok().map(EvalScore::Mate)
        } else {
            score
                .parse::<f64>()
                .ok()
                .filter(|p| p.is_finite() && p.abs() < 1000.0)
                .map(|pawns| EvalScore::Cp((pawns * 100.0).round() as i32))
        };
        if let Some(score) = parsed {
            return Some((score, depth));
        }
    }
    None
}

/// Where an evaluation came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EvalSource {
    /// `mirror analyse`: a UCI engine's search.
    Engine,
    /// A `[%eval]` comment of a game (lichess's exports): replaced by any engine analysis
    /// as deep or deeper.
    Comment,
}

impl EvalScore {
    /// As lichess's JSON has it: centipawns or mate, one of them.
    pub fn cp_mate(self) -> (Option<i32>, Option<i32>) {
        match self {
            EvalScore::Cp(c) => (Some(c), None),
            EvalScore::Mate(m) => (None, Some(m)),
        }
    }
}

impl EvalSource {
    /// `engine` or `comment`, as the JSON answers and Neo4j's properties name it.
    pub fn as_str(self) -> &'static str {
        match self {
            EvalSource::Engine => "engine",
            EvalSource::Comment => "comment",
        }
    }
}

/// The longest engine name kept.
pub const MAX_ENGINE_NAME: usize = 64;

/// One position's evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The score, from White's side.
    pub score: EvalScore,
    /// The best move, in UCI (`None`: the side to move has no legal move, or the source
    /// did not say).
    pub best: Option<String>,
    /// The depth the search reached (0 when unknown, as for a comment without one).
    pub depth: u16,
    /// The engine's name (`id name`), or the comment's source.
    pub engine: String,
    /// Where it came from.
    pub source: EvalSource,
}

/// Bytes that are not an evaluation this version wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an evaluation record is damaged: {0}")]
pub struct BadEvaluation(pub &'static str);

impl Evaluation {
    /// Whether this evaluation should give way to `newer`: a deeper one, or as deep from
    /// an engine where this one is a comment.
    pub fn yields_to(&self, newer: &Evaluation) -> bool {
        newer.depth > self.depth
            || (newer.depth == self.depth
                && self.source == EvalSource::Comment
                && newer.source == EvalSource::Engine)
    }

    /// The score as lichess's win% formula reads it: centipawns, mates as ±1000.
    pub fn capped_cp(&self) -> f64 {
        match self.score {
            EvalScore::Cp(c) => f64::from(c.clamp(-1000, 1000)),
            EvalScore::Mate(m) if m > 0 => 1000.0,
            EvalScore::Mate(_) => -1000.0,
        }
    }

    /// The stored form: a version byte, the source, the score's kind and value, the
    /// depth, the best move (length-prefixed) and the engine's name.
    pub fn encode(&self) -> Vec<u8> {
        let (kind, value) = match self.score {
            EvalScore::Cp(c) => (0u8, c),
            EvalScore::Mate(m) => (1u8, m),
        };
        let best = self.best.as_deref().unwrap_or("");
        let engine = truncate(&self.engine, MAX_ENGINE_NAME);
        let mut out = Vec::with_capacity(10 + best.len() + engine.len());
        out.push(1);
        out.push(match self.source {
            EvalSource::Engine => 0,
            EvalSource::Comment => 1,
        });
        out.push(kind);
        out.extend_from_slice(&value.to_le_bytes());
        out.extend_from_slice(&self.depth.to_le_bytes());
        let best = truncate(best, usize::from(u8::MAX));
        out.push(u8::try_from(best.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(best.as_bytes());
        out.extend_from_slice(engine.as_bytes());
        out
    }

    /// Reads what [`Evaluation::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Result<Evaluation, BadEvaluation> {
        if bytes.len() < 10 {
            return Err(BadEvaluation("too short"));
        }
        if bytes[0] != 1 {
            return Err(BadEvaluation("unknown version"));
        }
        let source = match bytes[1] {
            0 => EvalSource::Engine,
            1 => EvalSource::Comment,
            _ => return Err(BadEvaluation("unknown source")),
        };
        let value = i32::from_le_bytes([bytes[3], bytes[4], bytes[5], bytes[6]]);
        let score = match bytes[2] {
            0 => EvalScore::Cp(value),
            1 => EvalScore::Mate(value),
            _ => return Err(BadEvaluation("unknown score kind")),
        };
        let depth = u16::from_le_bytes([bytes[7], bytes[8]]);
        let best_len = usize::from(bytes[9]);
        let rest = &bytes[10..];
        if rest.len() < best_len {
            return Err(BadEvaluation("best move cut off"));
        }
        let text = |b: &[u8]| {
            std::str::from_utf8(b)
                .map(str::to_string)
                .map_err(|_| BadEvaluation("text is not UTF-8"))
        };
        let best = text(&rest[..best_len])?;
        Ok(Evaluation {
            score,
            best: (!best.is_empty()).then_some(best),
            depth,
            engine: text(&rest[best_len..])?,
            source,
        })
    }
}

/// `s` cut to at most `max` bytes at a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluations_round_trip_and_damage_is_named() {
        for e in [
            Evaluation {
                score: EvalScore::Cp(-35),
                best: Some("e7e5".into()),
                depth: 12,
                engine: "Stockfish 15.1".into(),
                source: EvalSource::Engine,
            },
            Evaluation {
                score: EvalScore::Mate(-3),
                best: None,
                depth: 0,
                engine: "lichess".into(),
                source: EvalSource::Comment,
            },
            Evaluation {
                score: EvalScore::Cp(i32::MIN),
                best: Some("e7e8q".into()),
                depth: u16::MAX,
                engine: "é".repeat(40),
                source: EvalSource::Engine,
            },
        ] {
            let back = Evaluation::decode(&e.encode()).expect("decodes");
            assert_eq!(back.score, e.score);
            assert_eq!(back.best, e.best);
            assert_eq!(back.depth, e.depth);
            assert_eq!(back.source, e.source);
            assert!(e.engine.starts_with(&back.engine) && back.engine.len() <= MAX_ENGINE_NAME);
        }
        assert!(Evaluation::decode(&[1, 0, 0]).is_err());
        assert!(Evaluation::decode(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(Evaluation::decode(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 5, b'e']).is_err());
    }

    #[test]
    fn comment_evaluations_read_as_lichess_writes_them() {
        // Real lines of lichess's exports (../shared/data/pgn/population).
        assert_eq!(
            comment_eval(b" [%eval 0.3] [%clk 0:01:00] "),
            Some((EvalScore::Cp(30), 0))
        );
        assert_eq!(
            comment_eval(b" [%eval -1.61] [%clk 0:00:55] "),
            Some((EvalScore::Cp(-161), 0))
        );
        assert_eq!(comment_eval(b"[%eval #-3]"), Some((EvalScore::Mate(-3), 0)));
        assert_eq!(comment_eval(b"[%eval #2]"), Some((EvalScore::Mate(2), 0)));
        assert_eq!(
            comment_eval(b"[%eval 0.25,18]"),
            Some((EvalScore::Cp(25), 18))
        );
        // Unreadable values are skipped for the next command; nothing is nothing.
        assert_eq!(
            comment_eval(b"[%eval x] [%eval -0.07]"),
            Some((EvalScore::Cp(-7), 0))
        );
        assert_eq!(comment_eval(b"[%clk 0:01:00] a comment"), None);
        assert_eq!(comment_eval(b"[%eval 0.3"), None);
        assert_eq!(comment_eval(b"[%eval nan]"), None);
    }

    #[test]
    fn win_loss_and_marks_follow_lichess() {
        let at = |score| Evaluation {
            score,
            best: None,
            depth: 10,
            engine: String::new(),
            source: EvalSource::Engine,
        };
        assert!((win_percent(0.0) - 50.0).abs() < 1e-9);
        // 100 cp: lichess's 59.1%.
        assert!((win_percent(100.0) - 59.1).abs() < 0.05);
        assert!((win_percent(-100.0) - 40.9).abs() < 0.05);
        // White goes from +0.5 to -1.0: 54.6% - 40.9%, 13.7 points.
        let l = win_loss(
            &at(EvalScore::Cp(50)),
            &at(EvalScore::Cp(-100)),
            shakmaty::Color::White,
        );
        assert!((l - 13.7).abs() < 0.1, "{l}");
        assert_eq!(Judgement::of(l), Some(Judgement::Mistake));
        // The same change is a gain for Black.
        let l = win_loss(
            &at(EvalScore::Cp(50)),
            &at(EvalScore::Cp(-100)),
            shakmaty::Color::Black,
        );
        assert_eq!(l, 0.0);
        // Allowing a mate from an equal position is a blunder; mates count as ±1000 cp.
        let l = win_loss(
            &at(EvalScore::Cp(0)),
            &at(EvalScore::Mate(5)),
            shakmaty::Color::Black,
        );
        assert!(l > 45.0, "{l}");
        assert_eq!(Judgement::of(l), Some(Judgement::Blunder));
        // The engine's own best move loses nothing, whatever the next search says.
        let mut best = at(EvalScore::Cp(143));
        best.best = Some("c3d4".into());
        let after = at(EvalScore::Cp(71));
        assert!(win_loss(&best, &after, shakmaty::Color::White) > 5.0);
        assert_eq!(
            move_loss(&best, &after, shakmaty::Color::White, "c3d4"),
            0.0
        );
        assert_eq!(
            move_loss(&best, &after, shakmaty::Color::White, "f3d4"),
            win_loss(&best, &after, shakmaty::Color::White)
        );
        assert_eq!(Judgement::of(4.99), None);
        assert_eq!(Judgement::of(5.0), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::of(10.0), Some(Judgement::Mistake));
        assert_eq!(Judgement::of(15.0).map(Judgement::symbol), Some("??"));
    }

    #[test]
    fn deeper_replaces_and_an_engine_replaces_a_comment_as_deep() {
        let at = |depth, source| Evaluation {
            score: EvalScore::Cp(0),
            best: None,
            depth,
            engine: String::new(),
            source,
        };
        assert!(at(8, EvalSource::Engine).yields_to(&at(12, EvalSource::Engine)));
        assert!(!at(12, EvalSource::Engine).yields_to(&at(8, EvalSource::Engine)));
        assert!(!at(12, EvalSource::Engine).yields_to(&at(12, EvalSource::Engine)));
        assert!(at(0, EvalSource::Comment).yields_to(&at(0, EvalSource::Engine)));
        assert!(!at(12, EvalSource::Engine).yields_to(&at(12, EvalSource::Comment)));
    }
}
