// The C library's maths without Foundation, so that the engine builds from the same files for the
// host (Darwin, Glibc or Musl) and as Embedded Swift for WebAssembly (wasi-libc).
#if hasFeature(Embedded)
@_extern(c, "pow") private func cPow(_ x: Double, _ y: Double) -> Double
@_extern(c, "exp") private func cExp(_ x: Double) -> Double
@_extern(c, "log10") private func cLog10(_ x: Double) -> Double
@_extern(c, "asin") private func cAsin(_ x: Double) -> Double
#else
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
private func cPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
private func cExp(_ x: Double) -> Double { exp(x) }
private func cLog10(_ x: Double) -> Double { log10(x) }
private func cAsin(_ x: Double) -> Double { asin(x) }
#endif

/// `x` raised to the power `y`.
@inline(__always) func power(_ x: Double, _ y: Double) -> Double { cPow(x, y) }

/// e raised to the power `x`.
@inline(__always) func exponential(_ x: Double) -> Double { cExp(x) }

/// The base-10 logarithm of `x`.
@inline(__always) func logarithm10(_ x: Double) -> Double { cLog10(x) }

/// The arc sine of `x`, in radians.
@inline(__always) func arcsine(_ x: Double) -> Double { cAsin(x) }
