#!/usr/bin/env python3
"""Drives `mirror uci` with python-chess's UCI client and plays a short match against
Stockfish. Checks the handshake and options, that every move mirror plays is legal, and
that every game ends by the rules. Prints one JSON object with the games.

Usage: uci_match.py MIRROR_BINARY DB PLAYER STOCKFISH [GAMES]
"""
import json
import sys

import chess
import chess.engine

MAX_PLIES = 300


def main():
    binary, db, player, stockfish = sys.argv[1:5]
    games = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    mirror = chess.engine.SimpleEngine.popen_uci([binary, "--db", db, "uci", "--user", player, "--seed", "11"])
    sf = chess.engine.SimpleEngine.popen_uci(stockfish)
    try:
        assert mirror.id["name"].startswith("mirror"), mirror.id
        assert player in mirror.id["name"], mirror.id
        for name in ("Player", "Seed", "Tiers", "MinGames"):
            assert name in mirror.options, (name, list(mirror.options))
        mirror.configure({"Seed": 12})
        out = []
        for g in range(games):
            board = chess.Board()
            mirror_white = g % 2 == 0
            mirror_moves = 0
            while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
                mirror_turn = (board.turn == chess.WHITE) == mirror_white
                if mirror_turn:
                    result = mirror.play(board, chess.engine.Limit(time=0.05))
                    assert result.move in board.legal_moves, (board.fen(), result.move)
                    mirror_moves += 1
                else:
                    result = sf.play(board, chess.engine.Limit(depth=1))
                board.push(result.move)
            outcome = board.outcome(claim_draw=True)
            out.append({
                "mirror_white": mirror_white,
                "plies": board.ply(),
                "mirror_moves": mirror_moves,
                "result": board.result(claim_draw=True),
                "termination": outcome.termination.name if outcome else "MAX_PLIES",
            })
        print(json.dumps({"games": out}))
    finally:
        mirror.quit()
        sf.quit()


if __name__ == "__main__":
    main()
