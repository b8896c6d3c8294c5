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
- the time of a move (printed as "n" timed moves, "ms" their milliseconds, "tt" those in
  time trouble, on edges with at least one timed move): a game's move through an edge
  counts at the first ply the game played it. Its [%emt] (seconds, or H:MM:SS) as written,
  else its [%clk] (H:MM:SS.s, the clock after the move): the same side's previous clock
  (the base time before its first move) + the increment - this clock, no time when that
  previous clock is unknown or the result is negative. Clock left when the move was made:
  [%clk] - increment, or (for [%emt]) the clock before the move - the time. Time trouble:
  left < max(10% of the base, 10 s). TimeControl "B" / "B+I" (seconds): base and
  increment; "1/S": S seconds for each move, the clock full again before every move, and
  its [%clk] gives no time (Chess.com's daily clocks are not the clock left);
  anything else is unknown: [%clk] gives no time, [%emt] a time without a clock left. In a
  move's comments the first [%clk] / [%emt] whose value reads counts; seconds are whole
  milliseconds rounded half up.

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
  --trouble prints only {"trouble": [W, D, L], "calm": [W, D, L], "usual": {CLASS: [N, MS]}}:
  the player's results in the games where at least one of their moves has a time, split
  by whether any of their moves was made in time trouble; and, per time class, the
  player's moves with a time (every one, a repeated position's too) and their
  milliseconds. Time class of a "B+I" / "B" TimeControl (seconds): Chess.com's games by
  B + 40 I under 180 bullet, under 600 blitz, else rapid, "1/S" daily; other games by
  B + 40 I under 180 bullet, under 480 blitz, under 1500 rapid, else classical, "-" daily;
  anything else unknown.
  --pace-model prints only the player's pace, twelve {"stage", "band", "moves", "share"}
  objects: each of the player's moves whose time and clock left are known counts
  time / (clock left + time) in the cell of its stage (plies 0-19, 20-59, 60 on) and of
  its band: (clock left + time) over the game's start clock (that sum at the player's
  first such move) at 0.5 or more, 0.25 or more, 0.1 or more, less; "share" is the
  cell's average rounded to four decimals (null without moves).
"""
import io
import json
import re
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


CLK = re.compile(r"\[%clk[ \t]([^\]]*)\]")
EMT = re.compile(r"\[%emt[ \t]([^\]]*)\]")
DIGITS = re.compile(r"[0-9]*")


def seconds_ms(text):
    """H:MM:SS.fff, MM:SS or SS.fff in milliseconds (half up), or None."""
    text = text.strip(" \t\n\r\x0c")
    whole, dot, frac = text.partition(".")
    if not DIGITS.fullmatch(frac) or len(frac) > 9:
        return None
    parts = whole.split(":")
    if len(parts) > 3 or any(not p or len(p) > 9 or not DIGITS.fullmatch(p) for p in parts):
        return None
    secs = 0
    for p in parts:
        secs = secs * 60 + int(p)
    ms = int((frac + "000")[:3])
    if len(frac) > 3 and frac[3] >= "5":
        ms += 1
    return secs * 1000 + ms


def first_value(pattern, comment):
    for m in pattern.finditer(comment):
        v = seconds_ms(m.group(1))
        if v is not None:
            return v
    return None


def control_of(tag):
    """("sudden", base_ms, inc_ms), ("per", ms, 0) or None."""
    tag = tag.strip()
    if ":" in tag:
        return None
    if "/" in tag:
        moves, _, per = tag.partition("/")
        if moves.isdigit() and int(moves) == 1 and per.isdigit() and int(per) > 0:
            return ("per", int(per) * 1000, 0)
        return None
    base, _, inc = tag.partition("+")
    inc = inc if "+" in tag else "0"
    if base.isdigit() and inc.isdigit() and int(base) > 0:
        return ("sudden", int(base) * 1000, int(inc) * 1000)
    return None


def time_class(tag, chesscom):
    """The time class of a TimeControl tag (see --trouble)."""
    tag = tag.strip()
    if tag == "-":
        return "daily"
    control = control_of(tag)
    if control is None:
        return "unknown"
    if control[0] == "per":
        return "daily" if chesscom else "unknown"
    est = (control[1] + 40 * control[2]) / 1000
    if chesscom:
        return "bullet" if est < 180 else ("blitz" if est < 600 else "rapid")
    if est < 180:
        return "bullet"
    return "blitz" if est < 480 else ("rapid" if est < 1500 else "classical")


def move_times(game):
    """(spent_ms, trouble, left_ms or None) or None for each mainline move."""
    ctl = control_of(game.headers.get("TimeControl", ""))
    inc = ctl[2] if ctl else 0
    below = max(ctl[1] // 10, 10_000) if ctl else None
    before = [ctl[1] if ctl else None] * 2
    out = []
    for ply, node in enumerate(game.mainline()):
        side = ply % 2
        clk, emt = first_value(CLK, node.comment), first_value(EMT, node.comment)
        spent = left = after = None
        if emt is not None:
            spent = emt
            if before[side] is not None:
                left = max(before[side] - emt, 0)
                after = left + inc
        elif clk is not None and ctl is not None and ctl[0] == "sudden":
            if before[side] is not None and before[side] + inc - clk >= 0:
                spent = before[side] + inc - clk
            left, after = max(clk - inc, 0), clk
        if ctl is None:
            before[side] = None
        elif ctl[0] == "per":
            before[side] = ctl[1]
        else:
            before[side] = after
        if spent is None or spent >= 2**32:
            out.append(None)
        else:
            out.append((spent, left is not None and below is not None and left < below, left))
    return out


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
    trouble_only = "--trouble" in args
    pace_only = "--pace-model" in args
    pace = [[[0.0, 0] for _ in range(4)] for _ in range(3)]
    trouble = {"trouble": [0, 0, 0], "calm": [0, 0, 0], "usual": {}}
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
            times = move_times(game)
            mine = times[0 if white in names else 1::2]
            base = None
            for ply in range(0 if white in names else 1, len(times), 2):
                t = times[ply]
                if t is None or t[2] is None or t[2] + t[0] == 0:
                    continue
                before = t[2] + t[0]
                base = before if base is None else base
                stage = 0 if ply < 20 else (1 if ply < 60 else 2)
                share = before / base
                band = 0 if share >= 0.5 else (1 if share >= 0.25 else (2 if share >= 0.1 else 3))
                pace[stage][band][0] += t[0] / before
                pace[stage][band][1] += 1
            usual = trouble["usual"].setdefault(
                time_class(h.get("TimeControl", ""), source == "chesscom"), [0, 0])
            for t in mine:
                if t is not None:
                    usual[0] += 1
                    usual[1] += t[0]
            if any(t is not None for t in mine):
                split = "trouble" if any(t is not None and t[1] for t in mine) else "calm"
                trouble[split][{"w": 0, "d": 1, "l": 2}[col]] += 1
            board = game.board()
            pairs = {}
            for move, t in zip(moves, times):
                pairs.setdefault((board.epd(), move.uci()), t)
                board.push(move)
            for pair, t in pairs.items():
                e = edges.setdefault(pair + (quarter,), {"w": 0, "d": 0, "l": 0, "n": 0, "ms": 0, "tt": 0})
                e[col] += 1
                if t is not None:
                    e["n"] += 1
                    e["ms"] += t[0]
                    e["tt"] += int(t[1])
    elapsed = time.perf_counter() - start
    if bench:
        print(read, f"{elapsed:.3f}")
        return
    if trouble_only:
        print(json.dumps(trouble))
        return
    if pace_only:
        cells = []
        for stage in range(3):
            for band in range(4):
                total, n = pace[stage][band]
                share = round(total / n, 4) if n else None
                cells.append({"stage": stage, "band": band, "moves": n, "share": share})
        print(json.dumps(cells))
        return
    lines = []
    for (epd, uci, quarter), e in edges.items():
        row = {"epd": epd, "uci": uci, "w": e["w"], "d": e["d"], "l": e["l"]}
        if e["n"] > 0:
            row.update(n=e["n"], ms=e["ms"], tt=e["tt"])
        if by_quarter:
            row["q"] = quarter
        lines.append(json.dumps(row, separators=(",", ":")))
    lines.sort()
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
