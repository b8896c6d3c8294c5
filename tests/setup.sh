#!/usr/bin/env bash
# Installs what the test suite needs besides Rust: Stockfish (Debian) as a UCI opponent,
# and python-chess (PyPI) for the independent reference. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/games/stockfish ] && ! command -v stockfish >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq stockfish >/dev/null
fi
python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
