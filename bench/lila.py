#!/usr/bin/env python3
"""mirror's embedded ingest against lichess's own explorer indexer, on the same games.

Usage: bench/lila.py LILA_CHECKOUT PGN... [--user NAME | --all-players] [--mirror BIN]
                     [--runs N] [--keep DIR] [--drop-dev-deps]

LILA_CHECKOUT is a checkout of https://github.com/lichess-org/lila-openingexplorer. The
script builds its server and its `import-pgn` tool (`cargo build --release`, with the
repository's `.env` as its README asks), then, in a temporary directory:

1. writes a copy of the games lila's importer takes as they are: each game's `Site` made
   a lichess game id (8 letters and digits, unique per game), a daily `TimeControl`
   (`1/86400`) written `-` (lila's "correspondence"), one without increment (`600`)
   `600+0`, a game without one (over the board) `5400+30` (classical, as mirror counts
   it), a rating that is not a number `?`, an unknown month or year January or 2000;
   nothing else changes;
2. starts lila's server on a fresh database (127.0.0.1, a free port) and times its
   importer over the copy (`import-lichess`: batches of 200 games, each `PUT
   /import/lichess` answered when indexed), then stops it;
3. times `mirror ingest` of the original files into a fresh embedded store, for one
   player (`--user`, default Biskupstunga) or every player (`--all-players`).

Each side runs `--runs` times (2), alternating; the script prints each time, the games
and plies each side indexes (lila keeps the first 50 plies of a game and leaves out
games without both ratings; mirror keeps every ply of the player's games, or of every
player's with `--all-players`: two game-sides a game) and the ratio of the medians
(lila's time over mirror's: above 1, mirror is faster). Not part of the tests: it needs
crates.io for lila's crates on its first build (20-30 minutes on 2 cores, RocksDB from
source; Debian's `libclang-dev`, `liburing-dev` and `g++`), and `--drop-dev-deps` where
GitHub cannot be reached (lila's benchmark dependency comes from there).
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

LILA_PLIES = 50
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def game_id(n):
    """The nth lichess-shaped game id: 8 letters and digits."""
    out = []
    for _ in range(8):
        n, r = divmod(n, len(ALPHABET))
        out.append(ALPHABET[r])
    return "".join(reversed(out))


def open_text(path):
    """The PGN file as text lines (zstd through the `zstd` tool)."""
    if path.endswith(".zst"):
        p = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE)
        return p.stdout, p
    return open(path, "rb"), None


def lichess_copy(paths, out_path):
    """Writes the games with lichess ids and lila's time controls; returns (games, games
    lila takes, plies it keeps)."""
    games = taken = plies = 0
    elo = {"WhiteElo": False, "BlackElo": False}
    result_known = False
    timed = False
    movetext = []

    def close():
        nonlocal taken, plies
        if games and all(elo.values()) and result_known:
            taken += 1
            text = re.sub(r"\{[^}]*\}", " ", " ".join(movetext))
            text = re.sub(r"\d+\.(\.\.)?", " ", text)
            sans = [t for t in text.split() if t not in ("1-0", "0-1", "1/2-1/2", "*")]
            plies += min(len(sans), LILA_PLIES)

    with open(out_path, "wb") as out:
        for path in paths:
            f, proc = open_text(path)
            for raw in f:
                line = raw.decode("utf-8", "replace")
                if line.startswith("[Event "):
                    close()
                    games += 1
                    elo = {"WhiteElo": False, "BlackElo": False}
                    result_known = False
                    timed = False
                    movetext = []
                if line.startswith("["):
                    m = re.match(r'\[(\w+) "(.*)"\]', line)
                    if m:
                        tag, value = m.group(1), m.group(2)
                        if tag == "Site":
                            line = f'[Site "https://lichess.org/{game_id(games)}"]\n'
                        elif tag == "TimeControl":
                            timed = True
                            if "+" not in value and value != "-":
                                # lila reads SECONDS+INCREMENT or "-": a daily "1/86400"
                                # is correspondence, a bare "600" has no increment.
                                tc = "-" if "/" in value or not value.isdigit() else f"{value}+0"
                                line = f'[TimeControl "{tc}"]\n'
                        elif tag in elo:
                            # lila reads digits or "?" (then leaves the game out).
                            elo[tag] = value.strip().isdigit()
                            if not elo[tag]:
                                line = f'[{tag} "?"]\n'
                        elif tag in ("Date", "UTCDate"):
                            # lila needs a year and a month ("1990.??.??": January).
                            y, mo, d = (value.split(".") + ["??", "??"])[:3]
                            y = y if y.isdigit() else "2000"
                            mo = mo if mo.isdigit() else "01"
                            d = d if d.isdigit() else "01"
                            line = f'[{tag} "{y}.{mo}.{d}"]\n'
                        elif tag == "Result":
                            result_known = value in ("1-0", "0-1", "1/2-1/2")
                else:
                    if not movetext and not timed and games:
                        # A game without a clock (over the board): classical, as mirror
                        # counts it; lila needs a speed for every game.
                        out.write(b'[TimeControl "5400+30"]\n')
                        timed = True
                    movetext.append(line)
                out.write(line.encode("utf-8"))
            if proc:
                proc.wait()
            close()
    return games, taken, plies


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def drop_dev_dependencies(lila):
    """Writes the checkout's Cargo.toml without `[dev-dependencies]` and `[[bench]]` (its
    `iai` comes from GitHub, which a machine limited to the package registries cannot
    reach; the server needs neither), keeping the original as Cargo.toml.orig."""
    path = os.path.join(lila, "Cargo.toml")
    if not os.path.exists(path + ".orig"):
        shutil.copy(path, path + ".orig")
    kept, skipping = [], False
    for line in open(path + ".orig"):
        if line.startswith("["):
            skipping = line.strip() in ("[dev-dependencies]", "[[bench]]")
        if not skipping:
            kept.append(line)
    with open(path, "w") as f:
        f.writelines(kept)


def build(lila):
    env = dict(os.environ)
    dotenv = os.path.join(lila, ".env")
    if os.path.exists(dotenv):
        for line in open(dotenv):
            if "=" in line and not line.startswith("#"):
                k, v = line.strip().split("=", 1)
                env[k] = v
    for where in (lila, os.path.join(lila, "import-pgn")):
        print(f"building {where} ...", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release"], cwd=where, env=env, check=True)
    return env


def run_lila(lila, env, copy, tmp):
    db = tempfile.mkdtemp(dir=tmp, prefix="lila-db-")
    port = free_port()
    server = subprocess.Popen(
        [os.path.join(lila, "target/release/lila-openingexplorer"), "--db", db,
         "--bind", f"127.0.0.1:{port}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/monitor", timeout=2)
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("lila's server did not start")
                time.sleep(0.2)
        started = time.perf_counter()
        out = subprocess.run(
            [os.path.join(lila, "import-pgn/target/release/import-lichess"),
             "--endpoint", f"http://127.0.0.1:{port}", copy],
            check=True, capture_output=True, text=True)
        took = time.perf_counter() - started
        # The importer prints a line per batch the server refused (a game it cannot read
        # stops its batch there).
        refused = sum(1 for l in out.stdout.splitlines() if " - " in l and ": " in l)
        return took, refused
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(db, ignore_errors=True)


def run_mirror(mirror, paths, who, tmp):
    db = os.path.join(tmp, "mirror.redb")
    if os.path.exists(db):
        os.remove(db)
    args = [mirror, "ingest", "--db", db, "--progress", "none"] + who
    for p in paths:
        args += ["--pgn", p]
    started = time.perf_counter()
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    took = time.perf_counter() - started
    # mirror's summary: "time  5.98 s (4550 games/s, 325238 plies/s)".
    m = re.search(r"time\s+([\d.]+) s \([\d,]+ games/s, ([\d,]+) plies/s\)", out.stdout)
    plies = round(float(m.group(1)) * int(m.group(2).replace(",", ""))) if m else None
    return took, plies, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lila")
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--user", default="Biskupstunga")
    ap.add_argument("--all-players", action="store_true")
    ap.add_argument("--mirror", default="target/release/mirror")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--keep")
    ap.add_argument("--drop-dev-deps", action="store_true",
                    help="build without lila's dev-dependencies (one is fetched from GitHub)")
    a = ap.parse_args()
    if a.drop_dev_deps:
        drop_dev_dependencies(a.lila)
    env = build(a.lila)
    tmp = a.keep or tempfile.mkdtemp(prefix="mirror-lila-")
    os.makedirs(tmp, exist_ok=True)
    copy = os.path.join(tmp, "lichess-shaped.pgn")
    games, taken, lila_plies = lichess_copy(a.pgn, copy)
    who = ["--all-players"] if a.all_players else ["--user", a.user]
    lila_times, mirror_times, mirror_plies = [], [], None
    for run in range(a.runs):
        took, refused = run_lila(a.lila, env, copy, tmp)
        lila_times.append(took)
        if refused:
            print(f"lila refused {refused} batches of 200 games (indexed up to the game it "
                  "could not read)", flush=True)
        took, mirror_plies, _ = run_mirror(a.mirror, a.pgn, who, tmp)
        mirror_times.append(took)
        print(f"run {run + 1}: lila {lila_times[-1]:.2f} s, mirror {took:.2f} s", flush=True)
    lila_s, mirror_s = statistics.median(lila_times), statistics.median(mirror_times)
    print(f"games in the files: {games:,}; lila indexes {taken:,} of them, {lila_plies:,} plies "
          f"(the first {LILA_PLIES} of each)")
    if mirror_plies:
        print(f"mirror ingests about {mirror_plies:,} plies ({' '.join(who)}; its own time x "
              "plies/s)")
    print(f"lila {lila_s:.2f} s ({taken / lila_s:,.0f} games/s), "
          f"mirror {mirror_s:.2f} s ({games / mirror_s:,.0f} games/s): "
          f"lila / mirror = {lila_s / mirror_s:.2f} (above 1: mirror is faster)")
    if mirror_plies and lila_plies:
        print(f"per ply: lila {lila_plies / lila_s:,.0f} plies/s, mirror "
              f"{mirror_plies / mirror_s:,.0f} plies/s")
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
