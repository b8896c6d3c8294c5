//! The model's own look ahead: no other program, the player's model judges, two ways.
//!
//! - [`crate::search::SearchBy::Model`], a two-ply expectimax: each searched move's
//!   position is judged by the value head (the mover's expected score: a win plus half a
//!   draw); with a budget beyond those positions, the opponent's likeliest replies there
//!   (by the same model's policy, renormalised over the replies looked at) are played and
//!   judged too, and the move's score is their policy-weighted mean.
//! - [`crate::search::SearchBy::Puct`], a PUCT tree search as lc0's and Allie's, the
//!   priors the engine's probabilities of the searched moves (below them, the model's
//!   policy): each searched move is visited once, then the rest of the budget
//!   goes, one position at a time, where `Q + c·P·√N/(1+n)` is highest; a move's score is
//!   the mean of its visits.
//!
//! A position that is over is scored by the rules (mate, stalemate, too little material),
//! not by the network.

use std::sync::Arc;

use mirror_model::{
    Predictor,
    inference::{rank_with, softmax},
    value::Outcomes,
};
use shakmaty::{Chess, Move, Position};

use crate::search::{Judge, JudgeError};

/// The most replies looked at after each searched move.
pub const MAX_REPLIES: usize = 8;

/// PUCT's exploration constant (lc0's is near it).
const CPUCT: f64 = 1.5;

/// The most positions a PUCT search judges, whatever its budget (one network pass each,
/// about a millisecond: a knob made for Stockfish's nodes must not hold a request for
/// minutes).
pub const MAX_VISITS: u32 = 2_000;

/// How a [`ValueJudge`] looks ahead.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Way {
    /// The two-ply expectimax.
    Expectimax,
    /// The PUCT tree search.
    Puct,
}

/// A model with a value head, as a search's judge.
#[derive(Debug, Clone)]
pub struct ValueJudge {
    predictor: Arc<Predictor>,
    way: Way,
}

impl ValueJudge {
    /// The model as a judge that looks ahead `way`; `None` when it has no value head.
    pub fn new(predictor: Arc<Predictor>, way: Way) -> Option<ValueJudge> {
        predictor
            .has_value_head()
            .then_some(ValueJudge { predictor, way })
    }

    /// The value head's outcomes of each position (each reached by its move).
    fn outcomes(&self, positions: &[(&Chess, Option<&Move>)]) -> (Vec<Vec<f32>>, Vec<Outcomes>) {
        let (logits, values) = self.predictor.judge(positions);
        (
            logits,
            values.expect("a ValueJudge is only made of a model with a value head"),
        )
    }
}

/// The side to move's expected score in a position that is over; `None` while it goes on.
fn over(pos: &Chess) -> Option<f64> {
    if pos.is_checkmate() {
        Some(0.0)
    } else if pos.is_stalemate() || pos.is_insufficient_material() {
        Some(0.5)
    } else {
        None
    }
}

/// The side to move's expected score from its outcomes (loss, draw, win).
fn expected(o: &Outcomes) -> f64 {
    o[2] + 0.5 * o[1]
}

/// `pos` after `m` (legal: the search's moves come from the position).
fn after(pos: &Chess, m: Move) -> Chess {
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

/// The replies looked at after each of `moves` for a budget of `nodes` positions: what
/// the budget leaves once each move's own position is judged, shared evenly, at most
/// [`MAX_REPLIES`].
pub fn replies_for(nodes: u32, moves: usize) -> usize {
    let moves = moves.max(1);
    (usize::try_from(nodes)
        .unwrap_or(usize::MAX)
        .saturating_sub(moves)
        / moves)
        .min(MAX_REPLIES)
}

impl Judge for ValueJudge {
    fn name(&self, nodes: u32) -> String {
        match self.way {
            Way::Expectimax => format!("the model's value head, {nodes} positions"),
            Way::Puct => format!("the model's PUCT, {nodes} positions"),
        }
    }

    fn win_percents(
        &self,
        pos: &Chess,
        moves: &[(Move, f64)],
        nodes: u32,
    ) -> Result<Vec<f64>, JudgeError> {
        Ok(match self.way {
            Way::Expectimax => {
                let moves: Vec<Move> = moves.iter().map(|(m, _)| *m).collect();
                self.expectimax(pos, &moves, nodes)
            }
            Way::Puct => self.puct(pos, moves, nodes),
        })
    }
}

/// A position of the PUCT tree.
struct Node {
    /// The side to move's expected score here: the value head's, or the rules' when the
    /// game is over.
    value: f64,
    /// Its moves, likeliest first (none when the game is over).
    edges: Vec<Edge>,
}

/// A move of the tree.
struct Edge {
    mv: Move,
    /// The policy's probability.
    prior: f64,
    visits: u32,
    /// The sum of its visits' scores, for the side that plays it.
    total: f64,
    child: Option<Box<Node>>,
}

impl Edge {
    fn new(mv: Move, prior: f64) -> Edge {
        Edge {
            mv,
            prior,
            visits: 0,
            total: 0.0,
            child: None,
        }
    }
}

/// The move PUCT visits next among `edges`: the highest `Q + c·P·√N/(1+n)`, an unvisited
/// move's Q being `fpu` (its parent's value).
fn pick(edges: &[Edge], fpu: f64) -> usize {
    let parent: u32 = edges.iter().map(|e| e.visits).sum();
    let sqrt = f64::from(parent.max(1)).sqrt();
    edges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let q = if e.visits == 0 {
                fpu
            } else {
                e.total / f64::from(e.visits)
            };
            (i, q + CPUCT * e.prior * sqrt / (1.0 + f64::from(e.visits)))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0, |(i, _)| i)
}

impl ValueJudge {
    /// A new node of the tree: `pos` (reached by `last`) judged.
    fn expand(&self, pos: &Chess, last: &Move) -> Node {
        if let Some(value) = over(pos) {
            return Node {
                value,
                edges: Vec::new(),
            };
        }
        let (logits, values) = self.outcomes(&[(pos, Some(last))]);
        let edges = softmax(&rank_with(pos, &logits[0]))
            .into_iter()
            .map(|(m, p)| Edge::new(m, p))
            .collect();
        Node {
            value: expected(&values[0]),
            edges,
        }
    }

    /// One visit below `node` (at `pos`): returns the score of its side to move.
    fn visit(&self, node: &mut Node, pos: &Chess) -> f64 {
        if node.edges.is_empty() {
            return node.value;
        }
        let i = pick(&node.edges, node.value);
        self.descend(&mut node.edges[i], pos)
    }

    /// One visit through `edge` (a move at `pos`): its position judged when new, else
    /// visited below; returns the score of the side that plays it.
    fn descend(&self, edge: &mut Edge, pos: &Chess) -> f64 {
        let next = after(pos, edge.mv);
        let theirs = match &mut edge.child {
            Some(child) => self.visit(child, &next),
            None => {
                let child = self.expand(&next, &edge.mv);
                let v = child.value;
                edge.child = Some(Box::new(child));
                v
            }
        };
        let ours = 1.0 - theirs;
        edge.visits += 1;
        edge.total += ours;
        ours
    }

    /// The PUCT search over `moves`, their priors the engine's probabilities (renormalised
    /// over them: the book's and the guard's say is kept, and the root costs no network
    /// pass): each visited once, then the rest of the `nodes` (at most [`MAX_VISITS`])
    /// where PUCT says.
    fn puct(&self, pos: &Chess, moves: &[(Move, f64)], nodes: u32) -> Vec<f64> {
        self.puct_tree(pos, moves, nodes)
            .iter()
            .map(|e| 100.0 * e.total / f64::from(e.visits.max(1)))
            .collect()
    }

    /// The root's moves after [`ValueJudge::puct`]'s search, with their visits.
    fn puct_tree(&self, pos: &Chess, moves: &[(Move, f64)], nodes: u32) -> Vec<Edge> {
        let total: f64 = moves
            .iter()
            .map(|(_, p)| p)
            .sum::<f64>()
            .max(f64::MIN_POSITIVE);
        let mut edges: Vec<Edge> = moves
            .iter()
            .map(|(m, p)| Edge::new(*m, p / total))
            .collect();
        let mut first = 0.0;
        for edge in &mut edges {
            first += self.descend(edge, pos);
        }
        // The root's value: its moves' mean first visit (with every root move visited,
        // [`pick`] never needs it as an unvisited move's urgency).
        let mut root = Node {
            value: first / moves.len().max(1) as f64,
            edges,
        };
        let spent = u32::try_from(moves.len()).unwrap_or(u32::MAX);
        for _ in spent..nodes.min(MAX_VISITS) {
            self.visit(&mut root, pos);
        }
        root.edges
    }

    /// The two-ply expectimax over `moves` within `nodes` positions.
    fn expectimax(&self, pos: &Chess, moves: &[Move], nodes: u32) -> Vec<f64> {
        let children: Vec<Chess> = moves.iter().map(|&m| after(pos, m)).collect();
        let ends: Vec<Option<f64>> = children.iter().map(over).collect();
        // The mover's score after each move; a finished game's is known.
        let mut score: Vec<f64> = ends.iter().map(|e| e.map_or(0.0, |s| 1.0 - s)).collect();
        let open: Vec<usize> = (0..children.len()).filter(|&i| ends[i].is_none()).collect();
        let asked: Vec<(&Chess, Option<&Move>)> = open
            .iter()
            .map(|&i| (&children[i], Some(&moves[i])))
            .collect();
        let (logits, values) = self.outcomes(&asked);
        let replies = replies_for(nodes, moves.len());
        if replies == 0 {
            for (j, &i) in open.iter().enumerate() {
                score[i] = 1.0 - expected(&values[j]);
            }
            return score.iter().map(|s| 100.0 * s).collect();
        }
        // Two plies: the opponent's likeliest replies, weighed by the model's policy.
        let mut grand: Vec<(usize, f64, Chess, Move, Option<f64>)> = Vec::new();
        for (j, &i) in open.iter().enumerate() {
            let ranked = rank_with(&children[i], &logits[j]);
            let likely: Vec<(Move, f64)> = softmax(&ranked).into_iter().take(replies).collect();
            let total: f64 = likely.iter().map(|(_, q)| q).sum();
            for (r, q) in likely {
                let g = after(&children[i], r);
                let end = over(&g);
                grand.push((i, q / total, g, r, end));
            }
            score[i] = 0.0;
        }
        let asked: Vec<(&Chess, Option<&Move>)> = grand
            .iter()
            .filter(|(.., end)| end.is_none())
            .map(|(_, _, g, r, _)| (g, Some(r)))
            .collect();
        let (_, values) = self.outcomes(&asked);
        let mut judged = values.iter();
        for (i, q, _, _, end) in &grand {
            let ours = match end {
                Some(s) => *s,
                None => expected(judged.next().expect("one outcome per open position asked")),
            };
            score[*i] += q * ours;
        }
        score.iter().map(|s| 100.0 * s).collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use mirror_core::notation;

    /// An untrained model with a value head (`value`: or without one), 8 channels, one
    /// layer, seeded: what judges in tests that need no judgement, only a judge.
    pub(crate) fn untrained(value: bool) -> Arc<Predictor> {
        let shipped =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/population");
        let mut meta = mirror_model::inference::read_meta(&shipped).expect("the shipped base");
        (meta.channels, meta.layers, meta.value_head) = (8, 1, value);
        let device = burn::tensor::Device::flex();
        device.seed(5);
        let net = meta.net_config().init(&device);
        Arc::new(Predictor::from_net(net, meta))
    }

    /// The moves `sans` at `pos`, each with the prior `p`.
    fn moves(pos: &Chess, sans: &[(&str, f64)]) -> Vec<(Move, f64)> {
        sans.iter()
            .map(|(m, p)| (notation::parse_move(pos, m).expect("legal"), *p))
            .collect()
    }

    #[test]
    fn the_budget_buys_replies_evenly_up_to_eight() {
        assert_eq!(replies_for(0, 6), 0);
        assert_eq!(replies_for(6, 6), 0, "each move's own position only");
        assert_eq!(replies_for(11, 6), 0);
        assert_eq!(replies_for(12, 6), 1);
        assert_eq!(replies_for(30, 6), 4);
        assert_eq!(replies_for(1_000_000, 6), MAX_REPLIES);
        assert_eq!(replies_for(30, 0), 8, "no moves: nothing to share");
    }

    #[test]
    fn finished_games_are_scored_by_the_rules_the_rest_by_the_value_head() {
        assert!(
            ValueJudge::new(untrained(false), Way::Expectimax).is_none(),
            "no value head, no judge"
        );
        let model = untrained(true);
        let judge = ValueJudge::new(model.clone(), Way::Expectimax).expect("a value head");
        // Black's king on a8, White's on c6: Qb7 mates, Qb6 stalemates, Qh7 goes on.
        let pos = notation::parse_fen("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1").expect("fen");
        let ms = moves(&pos, &[("Qb7#", 0.2), ("Qb6", 0.3), ("Qh7", 0.5)]);
        let one = judge.win_percents(&pos, &ms, 3).expect("judged");
        assert_eq!(one[..2], [100.0, 50.0]);
        let h7 = after(&pos, ms[2].0);
        let (_, v) = model.judge(&[(&h7, Some(&ms[2].0))]);
        let v = v.expect("a value head")[0];
        assert!(
            (one[2] - 100.0 * (1.0 - v[2] - 0.5 * v[1])).abs() < 1e-9,
            "{one:?}"
        );
        // Two plies: Black's replies after Qh7, weighed by the model's policy over them
        // (Black has one legal move there, Kb8).
        let two = judge.win_percents(&pos, &ms, 3 + 3 * 8).expect("judged");
        assert_eq!(two[..2], [100.0, 50.0]);
        let replies = h7.legal_moves();
        let (logits, _) = model.judge(&[(&h7, Some(&ms[2].0))]);
        let ranked = rank_with(&h7, &logits[0]);
        let weights = softmax(&ranked);
        let mut want = 0.0;
        for (r, q) in &weights {
            let g = after(&h7, *r);
            let (_, v) = model.judge(&[(&g, Some(r))]);
            let v = v.expect("a value head")[0];
            want += q * (v[2] + 0.5 * v[1]);
        }
        assert_eq!(replies.len(), weights.len());
        assert!((two[2] - 100.0 * want).abs() < 1e-6, "{two:?} vs {want}");
        assert!(judge.name(30).contains("value head, 30 positions"));
    }

    #[test]
    fn puct_visits_each_move_once_then_spends_the_rest_where_it_looks_best() {
        let model = untrained(true);
        let judge = ValueJudge::new(model.clone(), Way::Puct).expect("a value head");
        let pos = notation::parse_fen("k7/8/2K5/8/8/8/8/1Q6 w - - 0 1").expect("fen");
        let ms = moves(&pos, &[("Qb7#", 0.2), ("Qb6", 0.3), ("Qh7", 0.5)]);
        // One visit each: the rules, and the value head after Qh7, as the expectimax's
        // first ply.
        let once = judge.win_percents(&pos, &ms, 3).expect("judged");
        let ply = ValueJudge::new(model, Way::Expectimax)
            .expect("a value head")
            .win_percents(&pos, &ms, 3)
            .expect("judged");
        assert_eq!(once, ply);
        // More visits: a finished game's score stays the rules' (the mate and the
        // stalemate), the rest stays a score, and the same search gives the same answer.
        let many = judge.win_percents(&pos, &ms, 60).expect("judged");
        assert_eq!(many[..2], [100.0, 50.0], "{many:?}");
        assert!((0.0..=100.0).contains(&many[2]), "{many:?}");
        assert_eq!(judge.win_percents(&pos, &ms, 60).expect("judged"), many);
        assert!(judge.name(60).contains("PUCT, 60 positions"));
    }

    #[test]
    fn puct_spends_its_visits_by_the_engines_priors() {
        let judge = ValueJudge::new(untrained(true), Way::Puct).expect("a value head");
        let pos = Chess::default();
        let visits = |p: [f64; 3]| -> Vec<u32> {
            let ms = moves(&pos, &[("e4", p[0]), ("d4", p[1]), ("Nf3", p[2])]);
            let root = judge.puct_tree(&pos, &ms, 60);
            assert_eq!(root.iter().map(|e| e.visits).sum::<u32>(), 60);
            root.iter().map(|e| e.visits).collect()
        };
        // An untrained model judges the three alike: the priors decide where the visits
        // go (had the search taken its priors from the network, both would be the same).
        let e4 = visits([0.9, 0.05, 0.05]);
        let nf3 = visits([0.05, 0.05, 0.9]);
        assert!(e4[0] > e4[1] + e4[2], "{e4:?}");
        assert!(nf3[2] > nf3[0] + nf3[1], "{nf3:?}");
    }
}
