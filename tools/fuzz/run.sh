#!/usr/bin/env bash
# Builds the libFuzzer targets of Tests/Fuzz and runs each for FUZZ_SECONDS, then prints a
# table of executions and coverage per target. Exits non-zero when any target crashed; the
# crashing input is kept under $FUZZ_DIR/crashes for a regression test.
#
# usage: tools/fuzz/run.sh [target ...]      targets: hci btsnoop batch dialect site (default: all)
# env:   FUZZ_SECONDS  seconds per target (default 600)
#        FUZZ_JOBS     targets fuzzed at once (default 1; the build machines have 2 cores)
#        FUZZ_DIR      build products, corpora, logs and crashes (default .build-fuzz)
#
# Each target is one Swift file compiled together with its module's sources (the pure
# modules need nothing else; the site target adds libyaml), instrumented with
# -sanitize=fuzzer,address. The corpus a run grows is kept in $FUZZ_DIR/corpus and reused.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${FUZZ_DIR:-$root/.build-fuzz}
seconds=${FUZZ_SECONDS:-600}
jobs=${FUZZ_JOBS:-1}
all=(hci btsnoop batch dialect site)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
mkdir -p "$dir/bin" "$dir/seeds" "$dir/corpus" "$dir/logs" "$dir/crashes"

# The module a target is compiled into, its sources, link flags, input limit and dictionary.
module() { case $1 in hci|btsnoop) echo BLE ;; *) echo Wire ;; esac; }
sources() {
    case $1 in
        hci) echo "$root"/Sources/BLE/*.swift "$root/Tests/Fuzz/HCIEventsFuzz.swift" ;;
        btsnoop) echo "$root"/Sources/BLE/*.swift "$root/Tests/Fuzz/BtsnoopFuzz.swift" ;;
        batch) echo "$root"/Sources/Wire/*.swift "$root/Tests/Fuzz/BatchFuzz.swift" ;;
        dialect) echo "$root"/Sources/Wire/*.swift "$root/Tests/Fuzz/DialectFuzz.swift" ;;
        site) echo "$root"/Sources/Wire/*.swift "$root"/Sources/SiteModel/*.swift "$root"/Sources/YAML/*.swift \
                   "$root/Tests/Fuzz/SiteFuzz.swift" ;;
        *) echo "unknown target '$1' (one of: ${all[*]})" >&2; exit 64 ;;
    esac
    echo "$root/Tests/Fuzz/Oracle.swift"
}
flags() { case $1 in site) echo "-I $root/Sources/CYAML -lyaml -lm" ;; batch|dialect) echo "-lm" ;; esac; }
max_len() { case $1 in hci) echo 300 ;; dialect) echo 1024 ;; *) echo 4096 ;; esac; }
dictionary() { case $1 in batch|dialect) echo "-dict=$root/Tests/Fuzz/json.dict" ;; site) echo "-dict=$root/Tests/Fuzz/yaml.dict" ;; esac; }

# The site target compiles Wire, SiteModel and YAML as one module: their imports of each other
# are taken out of copies of the files (an import of a module not built here is an error).
merged() {
    local target=$1 out="$dir/src/$1" f; shift
    rm -rf "$out"; mkdir -p "$out"
    for f in "$@"; do
        sed -E '/^(public |internal )?import (Wire|SiteModel)$/d' "$f" > "$out/$(basename "$(dirname "$f")")-$(basename "$f")"
    done
    echo "$out"/*.swift
}

# Rebuilds a target only when one of its sources is newer than the binary.
build() {
    local target=$1 bin="$dir/bin/fuzz-$1" srcs compiled
    srcs=$(sources "$target")
    if [ -x "$bin" ] && [ -z "$(find $srcs -newer "$bin" 2>/dev/null)" ]; then return; fi
    echo "building fuzz-$target" >&2
    # shellcheck disable=SC2086 # word splitting of the source list is intended
    compiled=$(if [ "$target" = site ]; then merged "$target" $srcs; else echo $srcs; fi)
    # shellcheck disable=SC2086 # word splitting of the source list and flags is intended
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name "$(module "$target")" \
        $compiled $(flags "$target") -o "$bin" 2> "$dir/logs/build-$target.log" \
        || { cat "$dir/logs/build-$target.log" >&2; exit 1; }
}

# Seeds from the real captures, the shipped sites and the protocol's payloads, rebuilt every run.
seed() {
    local target=$1 out="$dir/seeds/$1" fixtures="$root/Tests/BLETests/Fixtures" n=0
    rm -rf "$out"; mkdir -p "$out"
    case $target in
        hci)
            grep -ho '"h4_hex": "[0-9a-f]*"' "$fixtures"/*.jsonl | cut -d'"' -f4 | sort -u | while read -r hex; do
                n=$((n + 1)); printf "$(sed 's/../\\x&/g' <<< "$hex")" > "$out/event-$n"
            done ;;
        btsnoop)
            local log="$fixtures/horizon74_btsnoop_hci.log"
            for size in 16 200 1024 4096; do head -c "$size" "$log" > "$out/head-$size"; done
            # Later stretches behind the file header: records cut at odd places.
            for skip in 2000 30000 90000; do
                { head -c 16 "$log"; dd if="$log" bs=1 skip=$((16 + skip)) count=3000 status=none; } > "$out/from-$skip"
            done ;;
        batch|dialect) cp "$root/Tests/Fuzz/Seeds/$target"/* "$out/" ;;
        site) cp "$root"/tools/sites/*.yaml "$root/Tests/Fuzz/Seeds/site"/*.yaml "$out/" ;;
    esac
}

# Runs one target; its log ends with libFuzzer's final statistics.
run() {
    local target=$1 log="$dir/logs/$1.log"
    mkdir -p "$dir/corpus/$target"
    # shellcheck disable=SC2046 # the dictionary flag is absent for the BLE targets
    # Swift's own crash handler would race ASan's report; ASan's stack is the one wanted.
    SWIFT_BACKTRACE=enable=no "$dir/bin/fuzz-$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 -rss_limit_mb=2048 \
        -max_len="$(max_len "$target")" $(dictionary "$target") -artifact_prefix="$dir/crashes/$target-" \
        "$dir/corpus/$target" "$dir/seeds/$target" > "$log" 2>&1
}

for t in "${targets[@]}"; do build "$t"; seed "$t"; done

echo "fuzzing ${targets[*]} for $seconds s each, $jobs at a time" >&2
failed=()
declare -A pids=()
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    run "$t" & pids[$t]=$!
done
for t in "${targets[@]}"; do wait "${pids[$t]}" || failed+=("$t"); done

printf '%-8s %8s %12s %9s %7s %7s %9s %s\n' target seconds executions exec/s cov ft corpus result
for t in "${targets[@]}"; do
    log="$dir/logs/$t.log"
    runs=0 took=0 cov=? ft=? corp=?
    runs=$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$last")
    result=ok
    [[ " ${failed[*]} " == *" $t "* ]] && result="CRASH: see $log and $dir/crashes/$t-*"
    runs=${runs:-0} took=${took:-0}
    rate=$(( took > 0 ? runs / took : runs ))
    printf '%-8s %8s %12s %9s %7s %7s %9s %s\n' "$t" "${took:-?}" "${runs:-?}" "$rate" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
[ ${#failed[@]} -eq 0 ]
