#!/usr/bin/env bash
# Compiles the engine (Sources/OPEPKit) with its web interface (Web/Engine) as Embedded Swift for
# wasm32 into the page's Sources/OPEPServer/Dashboard/opep-engine.wasm (or OUT): the same files as
# the native build, linked against wasi-libc (Debian: wasi-libc, libclang-rt-dev-wasm32) so that it
# needs no imports at all. WebAssembly SIMD
# (every current browser has it) runs the autocorrelation eight lanes at a time, as natively.
set -euo pipefail
cd "$(dirname "$0")/.."
# `--check` builds into .build/web and fails unless the committed module is that build, byte for byte.
committed=Sources/OPEPServer/Dashboard/opep-engine.wasm
check=false
if [[ "${1:-}" == "--check" ]]; then check=true; out=.build/web/check.wasm; else out="${1:-$committed}"; fi
libc=/usr/lib/wasm32-wasi
builtins=$(ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a 2>/dev/null | head -1 || true)
for need in "$libc/libc.a" "$libc/libm.a" "$builtins"; do
    [[ -n "$need" && -f "$need" ]] || { echo "build-web: missing ${need:-libclang_rt.builtins-wasm32.a} (apt-get install wasi-libc libclang-rt-dev-wasm32)" >&2; exit 1; }
done
# A fixed, relative place for the object file: its path goes into the module, and the build must
# give the same bytes on every clone.
work=.build/web
mkdir -p "$work"
swiftc -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded -enable-experimental-feature Extern \
    -wmo -O -parse-as-library -Xfrontend -disable-stack-protector -Xcc -msimd128 -Xllvm -mattr=+simd128 -module-name OPEPKit \
    $(find Sources/OPEPKit Web/Engine -name '*.swift' | LC_ALL=C sort) -c -o "$work/engine.o"
exports=(opep_start opep_input opep_process opep_frames opep_live opep_events opep_event_count opep_finish opep_snapshot opep_document opep_document_length opep_text opep_set_text opep_advice)
# A stack of 1 MiB (the default 64 KiB is too small for the analysis's value types copied on it).
wasm-ld --no-entry --gc-sections --strip-all -z stack-size=1048576 ${exports[@]/#/--export=} \
    "$work/engine.o" "$libc/libc.a" "$libc/libm.a" "$builtins" -o "$out"
if $check; then
    cmp -s "$out" "$committed" || { echo "build-web: $committed is not the build of the current sources; run scripts/build-web.sh and commit it" >&2; exit 1; }
    echo "$committed: $(wc -c < "$out") bytes, the build of the current sources"
else
    echo "$out: $(wc -c < "$out") bytes"
fi
