import OPEPFuzzTargets

#if canImport(Glibc)
import Glibc
#endif

/// The target this process fuzzes, from `OPEP_FUZZ_TARGET` (read once, before the first input).
nonisolated(unsafe) private var target: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let name = getenv("OPEP_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let chosen = FuzzTarget(rawValue: name) else {
        fputs("opep-fuzz: OPEP_FUZZ_TARGET=\(name): give one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n", stderr)
        exit(2)
    }
    target = chosen
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target?.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
