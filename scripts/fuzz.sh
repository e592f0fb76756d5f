#!/usr/bin/env bash
# Fuzzes the program's entry points for outside input with libFuzzer and AddressSanitizer
# (Sources/OPEPFuzzTargets, driver in Fuzz/). Seeds: Fuzz/Corpus/TARGET; what a run learns goes to
# .build-fuzz/corpus/TARGET; a crash, hang (> 1 s per input), leak or sanitizer report is written
# to Fuzz/Regressions/TARGET/, which `swift test` replays.
#   scripts/fuzz.sh --list            the targets, one a line
#   scripts/fuzz.sh TARGET SECONDS    fuzzes one; exit 0 only without a finding
set -euo pipefail
cd "$(dirname "$0")/.."

targets() { sed -n 's/^    case \([a-zA-Z]*\)\( = "\([a-z-]*\)"\)\{0,1\}$/\1 \3/p' Sources/OPEPFuzzTargets/FuzzTarget.swift \
    | while read -r name raw; do echo "${raw:-$name}"; done; }

if [[ "${1:-}" == "--list" ]]; then targets; exit 0; fi
if [[ $# -ne 2 ]] || ! targets | grep -qx "$1" || ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh --list | scripts/fuzz.sh TARGET SECONDS (targets: $(targets | tr '\n' ' '))" >&2
    exit 2
fi
target=$1
seconds=$2

scratch=.build-fuzz
swift build --package-path Fuzz --scratch-path "$scratch" -c release -Xswiftc -sanitize=fuzzer,address >&2
fuzzer="$(swift build --package-path Fuzz --scratch-path "$scratch" -c release -Xswiftc -sanitize=fuzzer,address --show-bin-path)/opep-fuzz"
corpus="$scratch/corpus/$target"
findings="Fuzz/Regressions/$target"
mkdir -p "$corpus" "$findings"
log="$scratch/$target.log"
status=0
OPEP_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=1 "$fuzzer" "$corpus" "Fuzz/Corpus/$target" \
    -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1 || status=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
echo "$target: ${runs:-0} inputs in $seconds s (${rate:-0}/s), $coverage, corpus $(ls "$corpus" | wc -l) inputs"
if [[ $status -ne 0 ]]; then
    echo "$target: a finding (exit $status), kept in $findings/; the fuzzer's log: $log" >&2
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5 >&2
    exit 1
fi
