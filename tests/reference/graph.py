#!/usr/bin/env python3
"""Independent reference for mirror's graph: python-chess replays a PGN file and prints the
player's edges, one compact JSON object per line: {"epd", "uci", "w", "d", "l"}, lines sorted
bytewise (the same text `mirror edges` prints).

Rules (the same as mirror's, written independently):
- standard chess from the standard start position only (no Variant other than standard,
  no SetUp/FEN other than the start position), a result of 1-0, 0-1 or 1/2-1/2, at least
  one move, no illegal or unreadable move;
- the player is matched case-insensitively on White/Black (not both); PLAYER may list
  several names separated by "|" (a profile's accounts and spellings);
- a game is counted once per id (the Link tag, else the Site tag when it is a game URL),
  across all the files (PGN may list several, separated by ",");
- a game's source: chesscom when its id is a chess.com URL, lichess for a lichess.org URL,
  otb otherwise.
- both sides' moves are edges; a game counts once per (position, move), W/D/L from the
  player's side; positions are EPD with en passant only when legal.

Usage: graph.py PGN[,PGN...] PLAYER[|NAME...] [--limit N] [--opponent-rating MIN-MAX]
                [--opponent NAME] [--source chesscom|lichess|otb] [--bench]
  --source keeps only games from that source.
  --opponent keeps only games against that opponent (case-insensitive).
  --color white|black keeps only games where the player had that colour.
  --by-quarter splits every edge by the game's quarter ("q": "YYYY-Qn", from the Date tag;
  games without a full year and month are left out).
  --opponent-rating keeps only games whose opponent's Elo tag (a positive integer) is in
  the inclusive range.
  --bench prints only "games SECONDS" (games read, wall time) for the benchmark peer.
"""
import io
import json
import sys
import time

import chess
import chess.pgn

try:
    import zstandard  # optional: .zst input
except ImportError:  # pragma: no cover
    zstandard = None

STANDARD = {"", "standard", "chess", "normal", "from position", "fromposition"}
RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def open_pgn(path):
    if path.endswith(".zst"):
        if zstandard is None:
            sys.exit("graph.py: pip install zstandard to read .zst files")
        raw = open(path, "rb")
        return io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(raw), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def main():
    args = sys.argv[1:]
    bench = "--bench" in args
    limit = None
    if "--limit" in args:
        limit = int(args[args.index("--limit") + 1])
    opponent = None
    if "--opponent" in args:
        opponent = args[args.index("--opponent") + 1].strip().lower()
    only_color = None
    if "--color" in args:
        only_color = args[args.index("--color") + 1].lower()
    by_quarter = "--by-quarter" in args
    opp_range = None
    if "--opponent-rating" in args:
        lo, hi = args[args.index("--opponent-rating") + 1].split("-")
        opp_range = (int(lo), int(hi))
    only_source = None
    if "--source" in args:
        only_source = args[args.index("--source") + 1].lower()
    paths, names = args[0].split(","), {n.strip().lower() for n in args[1].split("|")}
    edges = {}
    seen_ids = set()
    read = 0
    start = time.perf_counter()
    for path in paths:
      with open_pgn(path) as f:
        while limit is None or read < limit:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            read += 1
            h = game.headers
            if h.get("Variant", "").strip().lower() not in STANDARD:
                continue
            if h.get("SetUp") == "1" or "FEN" in h:
                if "FEN" not in h or h["FEN"].strip() != chess.STARTING_FEN:
                    continue
            if h.get("Result", "*").strip() not in RESULTS or game.errors:
                continue
            white, black = h.get("White", "").strip().lower(), h.get("Black", "").strip().lower()
            if (white in names) == (black in names):
                continue
            if only_color is not None and (white in names) != (only_color == "white"):
                continue
            quarter = ""
            if by_quarter:
                parts = h.get("Date", "").split(".")
                try:
                    year, month = int(parts[0]), int(parts[1])
                except (ValueError, IndexError):
                    continue
                quarter = f"{year}-Q{(month - 1) // 3 + 1}"
            if opponent is not None and (black if white in names else white) != opponent:
                continue
            if opp_range is not None:
                tag = h.get("BlackElo" if white in names else "WhiteElo", "").strip()
                try:
                    elo = int(tag)
                except ValueError:
                    continue
                if not (0 < elo < 65536 and opp_range[0] <= elo <= opp_range[1]):
                    continue
            moves = list(game.mainline_moves())
            if not moves:
                continue
            gid = None
            for tag in (h.get("Link", ""), h.get("Site", "")):
                low = tag.lower()
                if low.startswith("http") and ("chess.com/game/" in low or "lichess.org/" in low):
                    gid = tag.rstrip("/")
                    break
            if gid is not None:
                if gid in seen_ids:
                    continue
                seen_ids.add(gid)
            source = "otb"
            if gid is not None:
                source = "chesscom" if "chess.com/" in gid.lower() else "lichess"
            if only_source is not None and source != only_source:
                continue
            score = RESULTS[h["Result"].strip()]
            if black in names:
                score = 1.0 - score
            col = {1.0: "w", 0.5: "d", 0.0: "l"}[score]
            board = game.board()
            pairs = set()
            for move in moves:
                pairs.add((board.epd(), move.uci()))
                board.push(move)
            for pair in pairs:
                e = edges.setdefault(pair + (quarter,), {"w": 0, "d": 0, "l": 0})
                e[col] += 1
    elapsed = time.perf_counter() - start
    if bench:
        print(read, f"{elapsed:.3f}")
        return
    lines = []
    for (epd, uci, quarter), e in edges.items():
        row = {"epd": epd, "uci": uci, "w": e["w"], "d": e["d"], "l": e["l"]}
        if by_quarter:
            row["q"] = quarter
        lines.append(json.dumps(row, separators=(",", ":")))
    lines.sort()
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
