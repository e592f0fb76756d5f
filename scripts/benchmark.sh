#!/usr/bin/env bash
# Speed and memory of the engine and of `opep analyze`, in a release build.
#   scripts/benchmark.sh            engine speed, then peak memory on 1-minute, 10-minute and 1-hour files
#   scripts/benchmark.sh --quick    engine speed, then peak memory on 1-minute and 10-minute files
# Speed is the median of several runs (x real time, one core). Peak memory is the resident set of
# the whole `opep analyze` process (ru_maxrss), which must stay flat as the file grows.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product opep >/dev/null
opep=.build/release/opep

echo "== engine speed"
"$opep" benchmark --seconds 120 --runs 9
"$opep" benchmark --seconds 120 --runs 9 --sample-rate 16000

echo "== peak memory of opep analyze (resident set)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lengths=("1 minute:1:6:5" "10 minutes:5:13:20")
[[ "${1:-}" == "--quick" ]] || lengths+=("1 hour:24:16:20")
for entry in "${lengths[@]}"; do
    IFS=: read -r name sets breaths rest <<<"$entry"
    "$opep" simulate -o "$work/session.wav" --sets "$sets" --breaths "$breaths" --rest "$rest" --noise mixed >/dev/null
    python3 - "$opep" "$work/session.wav" "$name" <<'PY'
import resource, subprocess, sys, time, wave
opep, path, name = sys.argv[1:4]
with wave.open(path) as w:
    seconds = w.getnframes() / w.getframerate()
start = time.monotonic()
subprocess.run([opep, "analyze", path, "--format", "json"], check=True, stdout=subprocess.DEVNULL)
elapsed = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{name:>10}: {seconds:7.0f} s of audio, peak resident {peak:5.1f} MiB, {elapsed:5.2f} s ({seconds / elapsed:,.0f} x real time with decoding)")
PY
    rm -f "$work"/session.*
done
