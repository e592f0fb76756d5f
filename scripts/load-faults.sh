#!/usr/bin/env bash
# The faults of issue 25 under load, on a throwaway PostgreSQL cluster (or a SQLite file) and a
# release build of `opep`:
#   restart   `pg_ctl restart -m fast` 8 s into 20,000 uploads and 50 live sessions: nothing
#             acknowledged lost or stored twice, every live session ends complete.
#   kill      `kill -9` of the server 15 s into 20,000 uploads and 50 live sessions, a new server
#             started on the same history at once: nothing acknowledged lost or stored twice, and
#             40 s later every live session of the killed server is `interrupted`, kept up to its
#             last save (none left recording).
# Usage: scripts/load-faults.sh [--store postgres|sqlite] [restart] [kill]   (default: both, PostgreSQL)
# Prints each run's `opep load` report and its verdict; exits non-zero when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."

store=postgres
runs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --store) store="$2"; shift 2 ;;
        restart|kill) runs+=("$1"); shift ;;
        *) echo "usage: scripts/load-faults.sh [--store postgres|sqlite] [restart] [kill]" >&2; exit 2 ;;
    esac
done
[[ ${#runs[@]} -gt 0 ]] || runs=(restart kill)
[[ "$store" == postgres || "$store" == sqlite ]] || { echo "--store $store: give postgres or sqlite" >&2; exit 2; }
[[ "$store" == postgres || " ${runs[*]} " != *" restart "* ]] || { echo "restart needs --store postgres" >&2; exit 2; }

swift build -c release --product opep >/dev/null
opep="$(swift build -c release --show-bin-path)/opep"
work=$(mktemp -d)
server=""
source scripts/throwaway-postgres.sh
cleanup() {
    [[ -z "$server" ]] || kill -9 "$server" 2>/dev/null || true
    stop_postgres
    rm -rf "$work"
}
trap cleanup EXIT
[[ "$store" == sqlite ]] || start_throwaway_postgres

uploads=20000
live=50
kill_at=15
failed=0

# A new history for one run: a database on the cluster, or a SQLite file.
new_history() {
    if [[ "$store" == postgres ]]; then
        "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U opep -d postgres -qc "CREATE DATABASE $1" >/dev/null
        echo "postgres://opep@127.0.0.1:$pg_port/$1"
    else
        echo "$work/$1.sqlite"
    fi
}

# Starts `opep serve` on the history $1 at port $2 in the background; sets $server.
start_server() {
    "$opep" serve --port "$2" --database "$1" --max-sessions $((live + 50)) >>"$work/serve-$run.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
        curl -sf "http://127.0.0.1:$2/api/health" >/dev/null && return 0
        sleep 0.1
    done
    echo "opep serve did not start on port $2" >&2
    return 1
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

check() {
    if eval "$2"; then echo "  ok: $1"; else echo "  FAILED: $1"; failed=1; fi
}

for run in "${runs[@]}"; do
    history=$(new_history "faults_$run")
    port=$(free_port)
    start_server "$history" "$port"
    echo "== $run ($store): opep load --uploads $uploads --clients 16 --live $live"
    "$opep" load --url "http://127.0.0.1:$port" --uploads "$uploads" --clients 16 --live "$live" >"$work/load.txt" 2>&1 &
    load=$!
    if [[ "$run" == restart ]]; then
        sleep 8
        restart_postgres
        echo "  pg_ctl restart -m fast at 8 s"
        wait "$load" || true
        sed 's/^/  | /' "$work/load.txt"
        check "no acknowledged upload lost, none stored twice" 'grep -q "lost 0, stored twice 0" "$work/load.txt"'
        check "every live session ended complete" 'grep -q "stored complete, 0 dropped" "$work/load.txt"'
        check "the server logged the outage's end" 'grep -q "reachable again" "$work/serve-$run.log"'
    else
        sleep "$kill_at"
        kill -9 "$server"
        wait "$server" 2>/dev/null || true
        echo "  kill -9 of the server at $kill_at s; a new one started on the same history"
        start_server "$history" "$port"
        wait "$load" || true
        sed 's/^/  | /' "$work/load.txt"
        check "no acknowledged upload lost, none stored twice" 'grep -q "lost 0, stored twice 0" "$work/load.txt"'
        sleep 40
        "$opep" history --database "$history" >"$work/history.txt"
        interrupted=$(awk '$NF == "interrupted" && $(NF-1) == "browser"' "$work/history.txt" | wc -l)
        recording=$(awk '$NF == "recording"' "$work/history.txt" | wc -l)
        with_breaths=$(awk '$NF == "interrupted" && $(NF-1) == "browser" && $5 > 0' "$work/history.txt" | wc -l)
        # Each ran $kill_at s before the kill, less up to 2 s (their starts are spread) and 1 s (saves).
        shortest=$(awk '$NF == "interrupted" && $(NF-1) == "browser" { split($4, t, ":"); s = t[1] * 60 + t[2]; if (m == "" || s < m) m = s } END { print m + 0 }' "$work/history.txt")
        echo "  after 40 s: $interrupted live sessions interrupted ($with_breaths with breaths, the shortest $shortest s long), $recording recording"
        check "every live session of the killed server is interrupted" '[[ $interrupted -eq $live ]]'
        check "each kept its breaths and its time up to its last save" '[[ $with_breaths -eq $live && $shortest -ge $((kill_at - 4)) ]]'
        check "none left recording" '[[ $recording -eq 0 ]]'
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
    echo "  the server's log, beyond its sessions (count, level, message):"
    grep -vE " info " "$work/serve-$run.log" | sed -E 's/^[^ ]+ ([a-z]+) [^:]+: /\1 /; s/(hb\.request\.id|session|sessions)=[^ ]+ ?//g' \
        | cut -c1-160 | sort | uniq -c | sort -rn | head -8 | sed 's/^/  | /'
done
exit "$failed"
