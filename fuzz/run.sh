#!/usr/bin/env bash
# Fuzzes one target for SECONDS (default 600) from its seeds and prints libFuzzer's final
# statistics (executions, coverage). Needs the nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). Usage: fuzz/run.sh TARGET [SECONDS], TARGET one of
# pgn_decoder, http_params, uci_session, game_record, store_codecs, ingest_request.
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET [SECONDS]}
secs=${2:-600}
here=$(cd "$(dirname "$0")" && pwd)
data=${MIRROR_SHARED_DATA:-$here/../../shared/data}
corpus=$here/corpus/$target
mkdir -p "$corpus"
case $target in
pgn_decoder) cp -n "$data"/pgn/edge-cases/*.pgn "$corpus"/ ;;
http_params | uci_session | ingest_request) cp -n "$here"/seeds/"$target"/* "$corpus"/ ;;
game_record | store_codecs) ;; # from nothing: libFuzzer finds the formats' shapes
*) echo "unknown target $target" >&2; exit 2 ;;
esac
cd "$here"
exec cargo +nightly fuzz run "$target" "$corpus" -- \
    -max_total_time="$secs" -max_len=65536 -print_final_stats=1
