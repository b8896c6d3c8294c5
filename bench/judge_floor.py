#!/usr/bin/env python3
"""How often `mirror eval`'s mistake judge calls even the best available move a mistake.

    python3 bench/judge_floor.py PGN [POSITIONS] [SEED] [DEPTH]

The judge (crates/mirror-eval, `win_loss`) scores a move by the win% the mover loses: the
position searched to DEPTH (default 8) before the move, against the position after it
searched to DEPTH, each from a cleared hash, one thread; 15 win% points or more is a
mistake. A sample of POSITIONS (default 250) positions from ply 16 on of the games of PGN
(plain or zstd, read by the reference's `open_pgn`), drawn with SEED (default 3), each
judged for:

- the move played in the game;
- Stockfish's own best move of the search before the move (what an engine playing its
  judge's depth would play);
- the best of every legal move by the judge itself (the move whose position after it
  scores best at DEPTH): no move does better by this judge, so its share is the judge's
  floor;
- the best of every legal move by a search one and two plies shallower (DEPTH-1, DEPTH-2
  after each move), judged at DEPTH: what a searching mirror at those depths could reach
  if it searched every move.

Prints each share (figures, never asserted). Needs python-chess and zstandard
(tests/requirements.txt) and /usr/games/stockfish (or STOCKFISH in the environment).
"""

import math
import os
import random
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "reference"))
from graph import open_pgn  # noqa: E402  (the reference's PGN reader: plain or zstd)


def win_percent(cp):
    cp = max(-1000, min(1000, cp))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


def centipawns(info):
    score = info["score"].relative
    if score.is_mate():
        return 1000 if score.mate() > 0 else -1000
    return score.score()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 250
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    depth = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    candidates = []
    with open_pgn(path) as games:
        while (game := chess.pgn.read_game(games)) is not None:
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= 16 and not board.is_game_over():
                    candidates.append((board.fen(), move))
                board.push(move)
    random.Random(seed).shuffle(candidates)
    sample = candidates[:count]
    engine = chess.engine.SimpleEngine.popen_uci(
        os.environ.get("STOCKFISH", "/usr/games/stockfish"))
    engine.configure({"Threads": 1, "Hash": 16})

    def after(board, move, d):
        board.push(move)
        if board.is_checkmate():
            cp = 1000
        elif board.is_stalemate() or board.is_insufficient_material():
            cp = 0
        else:
            # A fresh game each search: the hash is cleared, as the judge does.
            cp = -centipawns(engine.analyse(board, chess.engine.Limit(depth=d), game=object()))
        board.pop()
        return win_percent(cp)

    kinds = ["played", "Stockfish's own best move", f"best of every move at depth {depth} (the floor)",
             f"best of every move at depth {depth - 1}", f"best of every move at depth {depth - 2}"]
    mistakes = dict.fromkeys(kinds, 0)
    for fen, played in sample:
        board = chess.Board(fen)
        root = engine.analyse(board, chess.engine.Limit(depth=depth), game=object())
        before = win_percent(centipawns(root))
        moves = list(board.legal_moves)
        judged = {m: after(board, m, depth) for m in moves}
        losses = {
            kinds[0]: before - judged[played],
            kinds[1]: before - judged[root["pv"][0]],
            kinds[2]: before - max(judged.values()),
        }
        for kind, d in ((kinds[3], depth - 1), (kinds[4], depth - 2)):
            shallow = {m: after(board, m, d) for m in moves}
            losses[kind] = before - judged[max(moves, key=lambda m: shallow[m])]
        for kind, loss in losses.items():
            mistakes[kind] += loss >= 15
    engine.quit()
    print(f"{len(sample)} positions of {path} (ply 16 on, seed {seed}), judged at depth {depth}:")
    for kind in kinds:
        print(f"  {kind:<40} mistakes {100 * mistakes[kind] / max(1, len(sample)):5.1f}%")


if __name__ == "__main__":
    main()
