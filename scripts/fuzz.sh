#!/usr/bin/env bash
# Fuzzes the program's entry points for outside input with libFuzzer and AddressSanitizer
# (Sources/OPEPFuzzTargets and OPEPServerFuzzTargets, drivers in Fuzz/). Seeds: Fuzz/Corpus/TARGET;
# what a run learns goes to .build-fuzz/corpus/TARGET; a crash, hang (> 1 s per input), leak or
# sanitizer report is written to Fuzz/Regressions/TARGET/, which `swift test` replays.
#   scripts/fuzz.sh --list            the targets, one a line
#   scripts/fuzz.sh TARGET SECONDS    fuzzes one; exit 0 only without a finding
#   scripts/fuzz.sh --brief SECONDS   fuzzes each of the engine's and decoders' targets (CI), whose
#                                     driver builds without the server's packages
set -euo pipefail
cd "$(dirname "$0")/.."

cases() { sed -n 's/^    case \([a-zA-Z]*\)\( = "\([a-z-]*\)"\)\{0,1\}$/\1 \3/p' "$@" \
    | while read -r name raw; do echo "${raw:-$name}"; done; }
engine_targets() { cases Sources/OPEPFuzzTargets/FuzzTarget.swift; }
targets() { engine_targets; cases Sources/OPEPServerFuzzTargets/ServerFuzzTarget.swift; }

usage() {
    echo "usage: scripts/fuzz.sh --list | TARGET SECONDS | --brief SECONDS (targets: $(targets | tr '\n' ' '))" >&2
    exit 2
}
if [[ "${1:-}" == "--list" ]]; then targets; exit 0; fi
[[ $# -eq 2 ]] && [[ "$2" =~ ^[0-9]+$ ]] || usage
seconds=$2
if [[ "$1" == "--brief" ]]; then
    chosen=$(engine_targets)
else
    targets | grep -x "$1" >/dev/null || usage
    chosen=$1
fi
# The engine's driver when it is enough: it builds in a fraction of the time.
driver=opep-fuzz-engine
for target in $chosen; do engine_targets | grep -x "$target" >/dev/null || driver=opep-fuzz; done

scratch=.build-fuzz
build=(swift build --package-path Fuzz --scratch-path "$scratch" -c release -Xswiftc -sanitize=fuzzer,address)
"${build[@]}" --product "$driver" >&2
fuzzer="$("${build[@]}" --show-bin-path)/$driver"

# Fuzzes one target; its line of results on standard output, a finding's on standard error.
fuzz_one() {
    local target=$1 corpus="$scratch/corpus/$1" findings="Fuzz/Regressions/$1" log="$scratch/$1.log" status=0
    mkdir -p "$corpus" "$findings"
    OPEP_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=Fuzz/lsan-suppressions.txt "$fuzzer" "$corpus" "Fuzz/Corpus/$target" \
        -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/" >"$log" 2>&1 || status=$?
    local runs rate coverage
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    echo "$target: ${runs:-0} inputs in $seconds s (${rate:-0}/s), $coverage, corpus $(ls "$corpus" | wc -l) inputs"
    if [[ $status -ne 0 ]]; then
        echo "$target: a finding (exit $status), kept in $findings/; the fuzzer's log: $log" >&2
        grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5 >&2
        return 1
    fi
}

# Two targets at a time (the fuzzer uses one core).
failed=0
running=0
for target in $chosen; do
    if [[ $running -eq 2 ]]; then wait -n || failed=1; running=1; fi
    fuzz_one "$target" &
    running=$((running + 1))
done
while [[ $running -gt 0 ]]; do wait -n || failed=1; running=$((running - 1)); done
exit $failed
