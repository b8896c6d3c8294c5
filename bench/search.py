#!/usr/bin/env python3
"""The cost of a move with the engine's search: `mirror uci` answering positions out of the
player's book, one `go` at a time, at each search budget (nodes), budget 0 as the peer.

    python3 bench/search.py MIRROR DATA_DIR USER PGN [[BY:]NODES[+OWN] ...]

MIRROR is the binary, DATA_DIR its data directory holding USER's games (and model), PGN a
file of other players' games (plain text): every position from ply 10 on is asked once per
budget (default budgets 0 2000 8000; `model:30` or `puct:30` for the model's own look
ahead, `--search-by`, instead of Stockfish; `8000+2000` for Stockfish's own choice at 2000
nodes beside them, `--search-own`), each budget in its own `mirror uci` process
with `--search-weight 0.1`, seed 1. Prints p50/p99/max of `go` -> `bestmove` in ms, how many
answers named the search, and each budget's median against budget 0. Figures are printed,
never asserted. Needs python-chess (tests/requirements.txt).
"""

import statistics
import subprocess
import sys
import time

import chess.pgn


def positions(path):
    out = []
    with open(path, encoding="utf-8-sig") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= 10 and not board.is_game_over():
                    out.append(board.fen())
                board.push(move)
    return out


def run(mirror, data_dir, user, fens, budget):
    by, _, nodes = budget.rpartition(":")
    nodes, _, own = nodes.partition("+")
    cmd = [mirror, "--data-dir", data_dir, "uci", "--user", user, "--seed", "1",
           "--search-nodes", nodes, "--search-weight", "0.1", "--search-by", by or "stockfish",
           "--search-own", own or "0"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until(prefix):
        seen = []
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit(f"mirror uci exited: {seen[-3:]}")
            seen.append(line.strip())
            if line.startswith(prefix):
                return seen

    send("uci")
    until("uciok")
    send("isready")
    until("readyok")
    times, searched = [], 0
    for fen in fens:
        send(f"position fen {fen}")
        t = time.perf_counter()
        send("go")
        lines = until("bestmove")
        times.append((time.perf_counter() - t) * 1000)
        searched += any("+ search (" in line for line in lines)
    send("quit")
    p.wait()
    return times, searched


def figures(samples):
    s = sorted(samples)
    return s[len(s) // 2], s[min(len(s) - 1, round(0.99 * (len(s) - 1)))], s[-1]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    mirror, data_dir, user, pgn = sys.argv[1:5]
    budgets = sys.argv[5:] or ["0", "2000", "8000"]
    fens = positions(pgn)
    print(f"{len(fens)} positions of {pgn} from ply 10, one `go` each, one thread")
    base = None
    for nodes in budgets:
        times, searched = run(mirror, data_dir, user, fens, nodes)
        p50, p99, mx = figures(times)
        base = base or statistics.median(times)
        print(f"  search {nodes:>12} nodes: p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {mx:7.2f} ms"
              f"  ({searched} searched; median {p50 / base:4.2f}x budget {budgets[0]})")


if __name__ == "__main__":
    main()
