//! Personal piece values by logistic regression (Medvedev 2015; `shared/SEEDS.md`).
//!
//! **Which positions are sampled.** Replaying a game, the material difference vector
//! `(dP, dN, dB, dR, dQ)` (White's count minus Black's) of the position after ply *i* is
//! a sample when all of these hold:
//! 1. ply *i* is a capture or a promotion;
//! 2. ply *i* does not give check;
//! 3. ply *i* + 1 exists and is quiet: not a capture, not a promotion, not a check (so an
//!    exchange is sampled once, after its last capture — immediate recaptures are not);
//! 4. ply *i* is not a check evasion, and neither is ply *i* - 1 (a capture that ends a
//!    sequence of checks and evasions is inside a tactical sequence);
//! 5. the vector differs from the game's previous sample (one sample per material
//!    balance reached, as the article's example lists them).
//!
//! On the article's own example game these rules give exactly its seven vectors (tested).
//! The outcome is 1 / 0.5 / 0 from White's side. The fit minimises cross-entropy with an
//! L2 penalty and no intercept (equal material = 50%) by Newton's method, which is
//! deterministic; values are normalised so that the pawn is 100.

use shakmaty::{Chess, Color, Position, Role};

use crate::{GameRecord, GameResult};

/// A material difference vector (P, N, B, R, Q), White minus Black.
pub type Balance = [i8; 5];

/// One sample: the balance and White's score.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sample {
    /// Material difference.
    pub balance: Balance,
    /// 1, 0.5 or 0.
    pub score: f64,
}

const ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// White's material minus Black's, per piece type.
pub fn balance(pos: &Chess) -> Balance {
    let board = pos.board();
    let mut out = [0i8; 5];
    for (i, role) in ROLES.iter().enumerate() {
        let w = (board.by_role(*role) & board.by_color(Color::White)).count();
        let b = (board.by_role(*role) & board.by_color(Color::Black)).count();
        out[i] = i8::try_from(w as i32 - b as i32).unwrap_or(0);
    }
    out
}

/// The sampled balances of one game (see the module docs for the rules).
pub fn game_balances(game: &GameRecord) -> Vec<Balance> {
    // For each ply: (capture or promotion, gives check, was an evasion), and the balance
    // after it.
    let mut pos = Chess::default();
    let mut plies: Vec<(bool, bool, bool, Balance)> = Vec::with_capacity(game.moves.len());
    for code in &game.moves {
        let Ok(m) = code.to_move(&pos) else { break };
        let evasion = pos.is_check();
        let tactical = m.is_capture() || m.is_promotion();
        pos.play_unchecked(m);
        plies.push((tactical, pos.is_check(), evasion, balance(&pos)));
    }
    let mut out: Vec<Balance> = Vec::new();
    for i in 0..plies.len() {
        let (tactical, check, evasion, bal) = plies[i];
        let Some(&(next_tactical, next_check, _, _)) = plies.get(i + 1) else {
            break;
        };
        let prev_evasion = i > 0 && plies[i - 1].2;
        if tactical
            && !check
            && !next_tactical
            && !next_check
            && !evasion
            && !prev_evasion
            && out.last() != Some(&bal)
        {
            out.push(bal);
        }
    }
    out
}

/// The samples of one game with its result from White's side.
pub fn game_samples(game: &GameRecord) -> Vec<Sample> {
    let score = match game.result {
        GameResult::WhiteWins => 1.0,
        GameResult::Draw => 0.5,
        GameResult::BlackWins => 0.0,
    };
    game_balances(game)
        .into_iter()
        .map(|balance| Sample { balance, score })
        .collect()
}

/// The logistic function.
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Solves the n x n system `a x = b` by Gaussian elimination with partial pivoting.
fn solve<const N: usize>(mut a: [[f64; N]; N], mut b: [f64; N]) -> Option<[f64; N]> {
    for col in 0..N {
        let pivot = (col..N).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col];
        for row in col + 1..N {
            let f = a[row][col] / pivot_row[col];
            for (k, v) in a[row].iter_mut().enumerate().skip(col) {
                *v -= f * pivot_row[k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; N];
    for row in (0..N).rev() {
        let s: f64 = (row + 1..N).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// Logistic regression without intercept: minimises
/// `-(1/m) sum [y ln p + (1-y) ln(1-p)] + lambda/(2m) |theta|^2` with `p = sigmoid(theta . x)`,
/// by Newton's method from zero. Returns theta, or `None` when the problem is singular.
pub fn logistic_fit<const N: usize>(xs: &[[f64; N]], ys: &[f64], lambda: f64) -> Option<[f64; N]> {
    let m = xs.len() as f64;
    if xs.is_empty() {
        return None;
    }
    let mut theta = [0.0; N];
    for _ in 0..100 {
        let mut grad = [0.0; N];
        let mut hess = [[0.0; N]; N];
        for (x, y) in xs.iter().zip(ys) {
            let z: f64 = (0..N).map(|k| theta[k] * x[k]).sum();
            let p = sigmoid(z);
            let w = p * (1.0 - p);
            for i in 0..N {
                grad[i] += (p - y) * x[i] / m;
                for j in 0..N {
                    hess[i][j] += w * x[i] * x[j] / m;
                }
            }
        }
        for i in 0..N {
            grad[i] += lambda * theta[i] / m;
            hess[i][i] += lambda / m;
        }
        let step = solve(hess, grad)?;
        let mut largest = 0.0f64;
        for i in 0..N {
            theta[i] -= step[i];
            largest = largest.max(step[i].abs());
        }
        if !theta.iter().all(|t| t.is_finite()) {
            return None;
        }
        if largest < 1e-10 {
            break;
        }
    }
    Some(theta)
}

/// Why no values can be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValuesError {
    /// Too few samples overall.
    #[error(
        "too few samples: {found} positions after captures (need at least {needed}); ingest more games"
    )]
    TooFewSamples {
        /// Samples found.
        found: usize,
        /// Samples needed.
        needed: usize,
    },
    /// A piece type whose balance (almost) never differs.
    #[error(
        "too few samples with unequal {piece}s ({found}, need at least {needed}): its value \
         cannot be told from these games"
    )]
    PieceNeverUnequal {
        /// The piece type.
        piece: &'static str,
        /// Samples where its count differs.
        found: usize,
        /// Needed.
        needed: usize,
    },
    /// The fit did not converge.
    #[error("the regression did not converge on these samples")]
    NoConvergence,
}

/// Fitted values.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    /// Raw coefficients (per unit of material, logistic scale).
    pub theta: [f64; 5],
    /// Normalised so that the pawn is 100: P, N, B, R, Q.
    pub normalized: [f64; 5],
    /// Samples used.
    pub samples: usize,
}

/// Minimum samples overall.
pub const MIN_SAMPLES: usize = 200;
/// Minimum samples in which each piece type's count differs.
pub const MIN_PER_PIECE: usize = 20;

/// Fits piece values to samples.
pub fn fit_values(samples: &[Sample], lambda: f64) -> Result<Values, ValuesError> {
    if samples.len() < MIN_SAMPLES {
        return Err(ValuesError::TooFewSamples {
            found: samples.len(),
            needed: MIN_SAMPLES,
        });
    }
    for (i, piece) in ["pawn", "knight", "bishop", "rook", "queen"]
        .iter()
        .enumerate()
    {
        let found = samples.iter().filter(|s| s.balance[i] != 0).count();
        if found < MIN_PER_PIECE {
            return Err(ValuesError::PieceNeverUnequal {
                piece,
                found,
                needed: MIN_PER_PIECE,
            });
        }
    }
    let xs: Vec<[f64; 5]> = samples.iter().map(|s| s.balance.map(f64::from)).collect();
    let ys: Vec<f64> = samples.iter().map(|s| s.score).collect();
    let theta = logistic_fit(&xs, &ys, lambda).ok_or(ValuesError::NoConvergence)?;
    if theta[0].abs() < 1e-12 {
        return Err(ValuesError::NoConvergence);
    }
    Ok(Values {
        theta,
        normalized: theta.map(|t| 100.0 * t / theta[0]),
        samples: samples.len(),
    })
}

/// The 1-3-3-5-9 material balance of a sample.
pub fn classic_balance(b: &Balance) -> i32 {
    [1, 3, 3, 5, 9]
        .iter()
        .zip(b)
        .map(|(w, d)| w * i32::from(*d))
        .sum()
}

/// The score against the 1-3-3-5-9 balance: steepness and binned points.
#[derive(Clone, Debug, PartialEq)]
pub struct Steepness {
    /// alpha in `score = 1 / (1 + exp(-alpha * dM))`, per pawn.
    pub alpha: f64,
    /// (dM, mean score, samples) for dM from -20 to 20 where there are samples.
    pub bins: Vec<(i32, f64, usize)>,
}

/// Fits the steepness of the score against the 1-3-3-5-9 balance.
pub fn fit_steepness(samples: &[Sample], lambda: f64) -> Option<Steepness> {
    let xs: Vec<[f64; 1]> = samples
        .iter()
        .map(|s| [f64::from(classic_balance(&s.balance))])
        .collect();
    let ys: Vec<f64> = samples.iter().map(|s| s.score).collect();
    let [alpha] = logistic_fit(&xs, &ys, lambda)?;
    let mut bins = Vec::new();
    for dm in -20..=20 {
        let scores: Vec<f64> = samples
            .iter()
            .filter(|s| classic_balance(&s.balance) == dm)
            .map(|s| s.score)
            .collect();
        if !scores.is_empty() {
            bins.push((
                dm,
                scores.iter().sum::<f64>() / scores.len() as f64,
                scores.len(),
            ));
        }
    }
    Some(Steepness { alpha, bins })
}

/// Capablanca's rules of thumb checked on fitted values (P, N, B, R, Q normalised):
/// (rule, holds, left side, right side). Equalities hold within half a pawn.
pub fn capablanca_checks(v: &[f64; 5]) -> Vec<(&'static str, bool, f64, f64)> {
    let [p, n, b, r, q] = *v;
    let near = |a: f64, c: f64| (a - c).abs() <= 0.5 * p;
    vec![
        ("B > N", b > n, b, n),
        ("B > 3P", b > 3.0 * p, b, 3.0 * p),
        ("N > 3P", n > 3.0 * p, n, 3.0 * p),
        (
            "B + N = R + 1.5P",
            near(b + n, r + 1.5 * p),
            b + n,
            r + 1.5 * p,
        ),
        ("Q + P = 2R", near(q + p, 2.0 * r), q + p, 2.0 * r),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{Decoded, read_games};

    /// The article's own example game (Simplex 0.9.7 - IvanHoe 999946f, 2013).
    const ARTICLE_GAME: &str = "[Event \"OpenRating 31\"]\n[Site \"BEAR-HOME\"]\n\
[Date \"2013.05.09\"]\n[Round \"1\"]\n[White \"Simplex 0.9.7\"]\n[Black \"IvanHoe 999946f\"]\n\
[Result \"0-1\"]\n[TimeControl \"60+1\"]\n[PlyCount \"96\"]\n\n\
1.d4 d5 2.c4 e6 3.e3 c6 4.Nf3 Nd7 5.Nbd2 Nh6 6.e4 Bb4 7.a3 Ba5 8.cxd5 exd5\n\
9.exd5 cxd5 10.Qe2+ Kf8 11.Qb5 Nf6 12.Bd3 Qe7+ 13.Kd1 Bb6 14.Re1 Bd7 15.Qb3\n\
Be6 16.Re2 Qc7 17.Qb4+ Kg8 18.Nb3 Bf5 19.Bb1 Bxb1 20.Rxb1 Nf5 21.Bd2 a5 22.Qa4\n\
h6 23.Rc1 Qb8 24.Bxa5 Qf4 25.Qb4 Bxa5 26.Nxa5 Kh7 27.Nxb7 Rab8 28.a4 Ne4 29.h3\n\
Rhc8 30.Ra1 Rc7 31.Qa3 Rcxb7 32.g3 Qc7 33.Rc1 Qa5 34.Rxe4 dxe4 35.Rc5 Qa6\n\
36.Nd2 Nxd4 37.Rc4 Nb3 38.Nxb3 Qxc4 39.Nd2 Rd8 40.Qc3 Qf1+ 41.Kc2 Qe2 42.f4 e3\n\
43.b4 Rc7 44.Kb3 Qd1+ 45.Ka2 Rxc3 46.Nb1 Qxa4+ 47.Na3 Rc2+ 48.Ka1 Rd1# 0-1\n";

    fn game(pgn: &str) -> GameRecord {
        match read_games(pgn.as_bytes())
            .next()
            .expect("game")
            .expect("io")
            .1
        {
            Decoded::Game(g) => g,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reproduces_the_articles_example() {
        let g = game(ARTICLE_GAME);
        assert_eq!(
            game_balances(&g),
            vec![
                [0, 0, 0, 0, 0],
                [1, 0, 0, 0, 0],
                [2, 0, 0, 0, 0],
                [2, -1, 0, 0, 0],
                [2, 0, 0, -1, 0],
                [1, 0, 0, -1, 0],
                [1, 1, 0, -2, 0],
            ]
        );
        assert!(game_samples(&g).iter().all(|s| s.score == 0.0));
    }

    #[test]
    fn recaptures_are_not_sampled_but_the_quiet_position_after_is() {
        // 1. e4 d5 2. exd5 Qxd5 3. Nc3: 2. exd5 is recaptured at once (not sampled); after
        // 2... Qxd5 the next move 3. Nc3 is quiet, so the equal balance is sampled.
        let g = game("[Result \"1-0\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 1-0\n");
        assert_eq!(game_balances(&g), vec![[0, 0, 0, 0, 0]]);
        // The last move of a game has no next move to prove the position quiet.
        let g = game("[Result \"1-0\"]\n\n1. e4 d5 2. exd5 1-0\n");
        assert!(game_balances(&g).is_empty());
        // Captures inside a sequence of checks and evasions are not sampled: 4. Bxf7+
        // gives check, 4... Kxf7 evades, 5. Nxe5+ gives check, 5... dxe5 evades; the quiet
        // 6. d3 follows an evasion, so nothing is sampled.
        let g = game(
            "[Result \"0-1\"]\n\n1. e4 e5 2. Nf3 d6 3. Bc4 h6 4. Bxf7+ Kxf7 5. Nxe5+ dxe5 6. d3 Nf6 0-1\n",
        );
        assert!(game_balances(&g).is_empty());
        // Captures followed by quiet moves, without checks, are sampled: a pawn up after
        // 2. exd5 Nf6, level again after 3... Nxd5 4. c4.
        let g = game("[Result \"1-0\"]\n\n1. e4 d5 2. exd5 Nf6 3. d4 Nxd5 4. c4 Nb6 1-0\n");
        assert_eq!(game_balances(&g), vec![[1, 0, 0, 0, 0], [0, 0, 0, 0, 0]]);
    }

    #[test]
    fn newton_matches_a_known_fit() {
        // y = sigmoid(0.7 x) exactly on a grid: the fit recovers 0.7.
        let xs: Vec<[f64; 1]> = (-10..=10).map(|i| [f64::from(i)]).collect();
        let ys: Vec<f64> = xs.iter().map(|x| sigmoid(0.7 * x[0])).collect();
        let [a] = logistic_fit(&xs, &ys, 0.0).expect("fit");
        assert!((a - 0.7).abs() < 1e-8, "{a}");
    }

    #[test]
    fn too_few_samples_is_an_error() {
        let s = vec![
            Sample {
                balance: [1, 0, 0, 0, 0],
                score: 1.0
            };
            10
        ];
        assert!(matches!(
            fit_values(&s, 1e-6),
            Err(ValuesError::TooFewSamples { found: 10, .. })
        ));
        let s = vec![
            Sample {
                balance: [1, 0, 0, 0, 0],
                score: 1.0
            };
            500
        ];
        assert!(matches!(
            fit_values(&s, 1e-6),
            Err(ValuesError::PieceNeverUnequal {
                piece: "knight",
                ..
            })
        ));
    }

    #[test]
    fn capablanca() {
        let checks = capablanca_checks(&[100.0, 300.0, 330.0, 500.0, 900.0]);
        let holds: Vec<bool> = checks.iter().map(|c| c.1).collect();
        // B>N yes, B>3P yes, N>3P no (equal), B+N=R+1.5P (630 vs 650) yes, Q+P=2R (1000 vs 1000) yes.
        assert_eq!(holds, vec![true, true, false, true, true]);
    }
}
