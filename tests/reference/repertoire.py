#!/usr/bin/env python3
"""Independent check of `mirror export --to pgn`: python-chess reads the exported PGN and
walks its tree; at every node, the moves under it must be exactly the moves played there
in at least MIN_GAMES of the player's games (from EDGES: graph.py's edges of the player's
games with the repertoire's colour, one JSON object per line), most played first (the same
count: by UCI), each with its games and the player's score in its comment ("N games, S%",
N with thousands separators, S the score rounded); below DEPTH plies, no move.

Usage: repertoire.py EXPORT.pgn EDGES.jsonl MIN_GAMES DEPTH
Prints {"nodes": N, "deepest": D, "mismatches": [...]} (the first 20 mismatches).
"""
import json
import re
import sys

import chess
import chess.pgn


def main():
    export, edges_file, min_games, depth = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    moves = {}
    with open(edges_file) as f:
        for line in f:
            e = json.loads(line)
            w = moves.setdefault(e["epd"], {}).setdefault(e["uci"], [0, 0, 0])
            w[0] += e["w"]
            w[1] += e["d"]
            w[2] += e["l"]
    with open(export) as f:
        game = chess.pgn.read_game(f)
        assert chess.pgn.read_game(f) is None, "one game in the file"
    if game.errors:
        raise SystemExit(f"python-chess found errors: {game.errors}")
    mismatches = []
    nodes = 0
    deepest = 0
    stack = [(game, 0)]
    while stack:
        node, ply = stack.pop()
        board = node.board()
        here = moves.get(board.epd(), {})
        want = []
        if ply < depth:
            for uci, (w, d, l) in here.items():
                n = w + d + l
                if n >= min_games:
                    want.append((uci, n, f"{n:,} {'game' if n == 1 else 'games'}, {100 * ((w + 0.5 * d) / n):.0f}%"))
            want.sort(key=lambda m: (-m[1], m[0]))
        got = []
        for child in node.variations:
            comment = re.sub(r"\s+", " ", child.comment.strip())
            got.append((child.move.uci(), None, comment))
            stack.append((child, ply + 1))
            nodes += 1
            deepest = max(deepest, ply + 1)
        if [(u, c) for u, _, c in want] != [(u, c) for u, _, c in got]:
            mismatches.append({"fen": board.fen(), "ply": ply, "want": [(u, c) for u, _, c in want], "got": [(u, c) for u, _, c in got]})
    print(json.dumps({"nodes": nodes, "deepest": deepest, "mismatches": mismatches[:20]}))


if __name__ == "__main__":
    main()
