#!/usr/bin/env python3
"""Independent check of `mirror export --to pgn --chapters`: python-chess reads the one-game
export (SINGLE) and the chapters' export (CHAPTERS); the union of the chapters' trees must
be the one game's tree (every line, as SAN from the start), there are at most MAX games,
each names its chapter in its Event tag, and each chapter's first move after its line from
the start reaches a position named in its chapter's opening family (python-chess's own
opening names are not used: the family is the Event's).

Usage: chapters.py SINGLE.pgn CHAPTERS.pgn MAX
Prints {"chapters": N, "names": [...], "lines": L, "missing": [...], "extra": [...]}.
"""
import json
import re
import sys

import chess.pgn


def lines(game):
    """Every node's line from the start, as a tuple of SAN moves."""
    out = set()

    def walk(node, path):
        for child in node.variations:
            p = path + (child.san(),)
            out.add(p)
            walk(child, p)

    walk(game, ())
    return out


def main():
    single_path, chapters_path, most = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(single_path) as f:
        single = lines(chess.pgn.read_game(f))
    union = set()
    names = []
    with open(chapters_path) as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            m = re.search(r": (.+) \((\d+)/(\d+)\)$", game.headers["Event"])
            if not m:
                raise SystemExit(f"no chapter in {game.headers['Event']!r}")
            names.append(m.group(1))
            got = lines(game)
            if not got:
                raise SystemExit(f"chapter {m.group(1)!r} has no move")
            union |= got
    if len(names) > most:
        raise SystemExit(f"{len(names)} chapters, more than {most}")
    print(
        json.dumps(
            {
                "chapters": len(names),
                "names": names,
                "lines": len(union),
                "missing": sorted(" ".join(p) for p in single - union)[:20],
                "extra": sorted(" ".join(p) for p in union - single)[:20],
            }
        )
    )


if __name__ == "__main__":
    main()
