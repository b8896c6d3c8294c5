#!/usr/bin/env python3
"""Plays six basic won endings (KQK, KRK, KBBK, KBNK from ordinary squares; KBNK and KRK
with Black strong) with `mirror uci` on the strong side against Stockfish's defence, through
python-chess's UCI client. Prints one JSON object with each game's result.

Usage: uci_endings.py MIRROR_BINARY DB PLAYER STOCKFISH
"""
import json
import sys

import chess
import chess.engine

ENDINGS = [
    "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
    "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1",
    "4k3/8/8/8/8/8/8/1N2KB2 w - - 0 1",
    "1n2kb2/8/8/8/8/8/8/4K3 b - - 0 1",
    "r3k3/8/8/8/8/8/8/4K3 b - - 0 1",
]


def main():
    binary, db, player, stockfish = sys.argv[1:5]
    # The first ending waits for the tables (seconds, more on a busy machine).
    mirror = chess.engine.SimpleEngine.popen_uci(
        [binary, "--db", db, "uci", "--user", player, "--seed", "3"], timeout=120)
    sf = chess.engine.SimpleEngine.popen_uci(stockfish)
    out = []
    try:
        for fen in ENDINGS:
            board = chess.Board(fen)
            strong = board.turn
            mirror_moves = 0
            while not board.is_game_over(claim_draw=True):
                if board.turn == strong:
                    result = mirror.play(board, chess.engine.Limit(time=0.05))
                    mirror_moves += 1
                else:
                    result = sf.play(board, chess.engine.Limit(depth=12))
                board.push(result.move)
            outcome = board.outcome(claim_draw=True)
            out.append({
                "fen": fen,
                "mirror_moves": mirror_moves,
                "result": board.result(claim_draw=True),
                "termination": outcome.termination.name,
                "mirror_won": outcome.winner == strong,
            })
        print(json.dumps({"games": out}))
    finally:
        mirror.quit()
        sf.quit()


if __name__ == "__main__":
    main()
