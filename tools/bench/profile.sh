#!/usr/bin/env bash
# Instruction counts of the aggregator's hot path under callgrind (docs/benchmarks.md,
# "Profile"): a fixed input of 100,000 readings through the real aggregator, its top
# functions printed and the dump kept for callgrind_annotate or kcachegrind.
#   tools/bench/profile.sh [OUT]      (OUT default: $TMPDIR/whereabouts-aggregator.callgrind)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
out="${1:-${TMPDIR:-/tmp}/whereabouts-aggregator.callgrind}"
mkdir -p "$(dirname "$out")"
swift build -c release ${SCRATCH:+--scratch-path "$SCRATCH"}
bin="$(swift build -c release ${SCRATCH:+--scratch-path "$SCRATCH"} --show-bin-path)"
"$bin/whereabouts-bench" --only profile --out "$out"
echo "callgrind dump: $out (callgrind_annotate --inclusive=yes $out)"
