#!/usr/bin/env bash
# The tests under a sanitizer (issue 26), each in a build tree of its own:
#   scripts/sanitize.sh thread    the history and server tests under ThreadSanitizer (SQLite and a
#                                 throwaway PostgreSQL, scripts/throwaway-postgres.sh)
#   scripts/sanitize.sh address   the decoder and engine tests under AddressSanitizer
# Exit 0 only when every test passes and the sanitizer reports nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
thread) filter='OPEPHistoryTests|OPEPServerTests' ;;
address) filter='OPEPAudioTests|OPEPKitTests' ;;
*)
    echo "usage: scripts/sanitize.sh thread | address" >&2
    exit 2
    ;;
esac
sanitizer=$1
scratch=".build-$sanitizer"
log="$scratch/tests.log"

if [[ $sanitizer == thread ]]; then
    source scripts/throwaway-postgres.sh
    start_throwaway_postgres
    trap stop_postgres EXIT
    export OPEP_TEST_POSTGRES_URL="$pg_url"
fi

swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >&2
status=0
TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" ASAN_OPTIONS="detect_leaks=0" \
    swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$filter" >"$log" 2>&1 || status=$?
reports=$(grep -c "^WARNING: ThreadSanitizer\|^==[0-9]*==ERROR: AddressSanitizer" "$log" || true)
summary=$(grep -E "^\s*Executed [0-9]+ tests" "$log" | tail -1 | sed 's/^\s*//')
echo "$sanitizer: ${summary:-no tests ran}; $reports sanitizer reports (log: $log)"
if [[ $status -ne 0 || $reports -ne 0 ]]; then
    grep -E "^(WARNING|SUMMARY): |ERROR: AddressSanitizer|error: " "$log" | sort | uniq -c | sort -rn | head -20 >&2
    exit 1
fi
