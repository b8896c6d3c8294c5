#!/usr/bin/env python3
"""GET /api/v1/prep latency through a running `mirror serve`, each answer computed.

    python3 bench/prep.py http://127.0.0.1:8080 Biskupstunga "Karpov, Anatoly" [N] [DEPTH]

For each colour of the player: N sequential requests (default 80, at most 81) at DEPTH
plies (default 8), each with a different `lines` (20 to 100: the same walk, a different
kept answer, so the server computes every one), then as the peer `/api/v1/explore` (recentGames=0: one
store read each) at up to N of the positions the walk read, each asked once. Prints p50/p99/max in ms and the ratio
of the medians. Figures are printed, never asserted. Standard library only.
"""

import json
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def timed(url):
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(url) as resp:
            body = resp.read()
    except urllib.error.HTTPError as e:
        sys.exit(f"{url}: {e.code} {e.read().decode()}")
    ms = (time.perf_counter() - t) * 1000
    return ms, json.loads(body)


def figures(samples):
    s = sorted(samples)
    p99 = s[min(len(s) - 1, int(round(0.99 * (len(s) - 1))))]
    return s[len(s) // 2], p99, s[-1]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    base, user, opponent = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    n = min(81, int(sys.argv[4]) if len(sys.argv) > 4 else 80)
    depth = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    for color in ("white", "black"):
        prep, lines = [], None
        for i in range(n):
            q = urllib.parse.urlencode(
                {"user": user, "opponent": opponent, "color": color,
                 "depth": depth, "lines": 20 + i})
            ms, answer = timed(f"{base}/api/v1/prep?{q}")
            prep.append(ms)
            lines = len(answer["lines"])
        other = "black" if color == "white" else "white"
        places = []
        for line in answer["lines"]:
            for k, step in enumerate(line["steps"]):
                mine = step["by"] == "user"
                place = (user if mine else opponent, color if mine else other,
                         ",".join(line["uci"][:k]))
                if place not in places:
                    places.append(place)
        peer = []
        for who, side, moves in places[:n]:
            q = urllib.parse.urlencode(
                {"user": who, "color": side, "play": moves, "recentGames": 0})
            ms, _ = timed(f"{base}/api/v1/explore?{q}")
            peer.append(ms)
        p50, p99, top = figures(prep)
        e50, e99, _ = figures(peer)
        print(f"prep as {color}, depth {depth}, {lines} lines: p50 {p50:.1f} ms, "
              f"p99 {p99:.1f} ms, max {top:.1f} ms ({n} requests); explore at {len(peer)} of "
              f"its positions: p50 {e50:.1f} ms, p99 {e99:.1f} ms; prep/explore p50 "
              f"{p50 / e50:.1f}x")


if __name__ == "__main__":
    main()
