import Foundation
import OPEPFuzzTargets

// libFuzzer's driver, entered from this program's own `main` (SwiftPM names an executable's entry
// point itself, so libFuzzer's `main` cannot be used): the target comes from `OPEP_FUZZ_TARGET`,
// the arguments are libFuzzer's.

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

let name = ProcessInfo.processInfo.environment["OPEP_FUZZ_TARGET"] ?? ""
guard let chosen = FuzzTarget(rawValue: name) else {
    let targets = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("opep-fuzz: OPEP_FUZZ_TARGET=\(name): give one of \(targets)\n".utf8))
    exit(2)
}
/// The target every input goes to (set once, before the driver starts).
nonisolated(unsafe) var target = chosen

var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(runFuzzerDriver(&argc, &argv) { data, size in
    target.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
})
