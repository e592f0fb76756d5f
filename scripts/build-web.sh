#!/usr/bin/env bash
# Compiles the engine (Sources/OPEPKit) with its web interface (Web/Engine) as Embedded Swift for
# wasm32 into Web/opep-engine.wasm: the same files as the native build, linked against wasi-libc
# (Debian: wasi-libc, libclang-rt-dev-wasm32) so that it needs no imports at all. WebAssembly SIMD
# (every current browser has it) runs the autocorrelation eight lanes at a time, as natively.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-Web/opep-engine.wasm}"
libc=/usr/lib/wasm32-wasi
builtins=$(ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a 2>/dev/null | head -1 || true)
for need in "$libc/libc.a" "$libc/libm.a" "$builtins"; do
    [[ -n "$need" && -f "$need" ]] || { echo "build-web: missing ${need:-libclang_rt.builtins-wasm32.a} (apt-get install wasi-libc libclang-rt-dev-wasm32)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swiftc -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded -enable-experimental-feature Extern \
    -wmo -O -parse-as-library -Xfrontend -disable-stack-protector -Xcc -msimd128 -Xllvm -mattr=+simd128 -module-name OPEPKit \
    $(find Sources/OPEPKit Web/Engine -name '*.swift' | LC_ALL=C sort) -c -o "$work/engine.o"
exports=(opep_start opep_input opep_process opep_frames opep_finish opep_breaths opep_breath_count)
wasm-ld --no-entry --gc-sections --strip-all ${exports[@]/#/--export=} \
    "$work/engine.o" "$libc/libc.a" "$libc/libm.a" "$builtins" -o "$out"
echo "$out: $(wc -c < "$out") bytes"
