#!/usr/bin/env python3
"""Stockfish's evaluations of positions through python-chess, independently of mirror.

Reads JSON lines with an "epd" field (as `mirror analyse --list` prints them) on stdin and
prints, for each, {"epd", "cp" or "mate" (from White's side), "best" (UCI)}: the engine at
a fixed depth with one thread and a 16 MiB hash, a new game (ucinewgame, a cleared hash)
before each position, the position given as the EPD with the counters "0 1".

A line that also has "uci" (a move there) prints {"epd", "uci", "win_loss"} instead: the
win% the move loses for the side that plays it, lichess's formula (50 + 50 * (2 / (1 +
exp(-0.00368208 * cp)) - 1), cp from White's side clamped to +-1000, a mate as +-1000) on
the evaluations before and after the move at that depth, never below 0; 0 for the
engine's own best move (its first move of the principal variation before the move).

Usage: evals.py STOCKFISH DEPTH < lines.jsonl
       evals.py --comments PGN   prints {"epd", "cp" or "mate"} for each position after a
                                 mainline move whose comment has an [%eval] (python-chess's
                                 reading), the first game's in file order where several
                                 reach it
"""
import json
import math
import sys

import chess
import chess.engine


def evaluate(engine, board, depth):
    info = engine.analyse(board, chess.engine.Limit(depth=depth), game=object())
    return info


def win_percent_white(info):
    cp = info["score"].white().score(mate_score=100000)
    cp = max(-1000, min(1000, cp))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


def comments(path):
    import chess.pgn

    seen = {}
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            for node in game.mainline():
                board.push(node.move)
                ev = node.eval()
                epd = board.epd()
                if ev is None or epd in seen:
                    continue
                score = ev.white()
                seen[epd] = {"epd": epd, "mate": score.mate()} if score.is_mate() else {"epd": epd, "cp": score.score()}
    for v in seen.values():
        print(json.dumps(v))


def main():
    if sys.argv[1] == "--comments":
        comments(sys.argv[2])
        return
    path, depth = sys.argv[1], int(sys.argv[2])
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1, "Hash": 16})
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            asked = json.loads(line)
            epd = asked["epd"]
            board = chess.Board(epd + " 0 1")
            if "uci" in asked:
                mover = board.turn
                info = evaluate(engine, board, depth)
                if info["pv"][0].uci() == asked["uci"]:
                    # The engine's own best move loses nothing.
                    print(json.dumps({"epd": epd, "uci": asked["uci"], "win_loss": 0.0}))
                    continue
                before = win_percent_white(info)
                board.push_uci(asked["uci"])
                after_board = chess.Board(board.epd() + " 0 1")
                after = win_percent_white(evaluate(engine, after_board, depth))
                if mover == chess.BLACK:
                    before, after = 100 - before, 100 - after
                loss = max(0.0, before - after)
                print(json.dumps({"epd": epd, "uci": asked["uci"], "win_loss": loss}))
                continue
            info = evaluate(engine, board, depth)
            score = info["score"].white()
            out = {"epd": epd, "best": info["pv"][0].uci()}
            if score.is_mate():
                out["mate"] = score.mate()
            else:
                out["cp"] = score.score()
            print(json.dumps(out))
    finally:
        engine.quit()


if __name__ == "__main__":
    main()
