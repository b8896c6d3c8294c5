#!/usr/bin/env bash
# Installs what the test suite needs besides Rust: Stockfish (Debian) as a UCI opponent,
# python-chess (PyPI) for the independent reference, the test Neo4j (OpenJDK 17 and
# Maven from Debian if missing; Neo4j Community 5.26 from Maven Central, built by
# tests/neo4j/build.sh), and for the browser tests Debian's Chromium, Node.js and the
# web page's locked npm packages (npm ci in web/: chessground, chessops, esbuild,
# playwright-core without its browser download). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
need=()
if [ ! -x /usr/games/stockfish ] && ! command -v stockfish >/dev/null 2>&1; then
  need+=(stockfish)
fi
command -v java >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
bash tests/neo4j/build.sh
(cd web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
