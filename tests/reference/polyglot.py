"""Reads a Polyglot book with python-chess for the positions of real games.

Usage: polyglot.py BOOK.bin GAMES.pgn N_GAMES PLIES
Prints one JSON line per position reached in the first N_GAMES games (first PLIES plies,
duplicates dropped): {"fen": FEN, "moves": {uci: weight}} as python-chess's reader finds them.
"""

import json
import sys

import chess.pgn
import chess.polyglot


def main() -> None:
    book, pgn_path, n_games, plies = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    seen = set()
    with open(pgn_path, encoding="utf-8-sig") as pgn, chess.polyglot.open_reader(book) as reader:
        for _ in range(n_games):
            game = chess.pgn.read_game(pgn)
            if game is None:
                break
            board = game.board()
            for i, move in enumerate(game.mainline_moves()):
                if i >= plies:
                    break
                fen = board.fen()
                if fen not in seen:
                    seen.add(fen)
                    moves = {}
                    for e in reader.find_all(board):
                        moves[e.move.uci()] = moves.get(e.move.uci(), 0) + e.weight
                    print(json.dumps({"fen": fen, "moves": moves}))
                board.push(move)


if __name__ == "__main__":
    main()
