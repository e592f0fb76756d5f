import Foundation
import OPEPFuzzTargets

// libFuzzer's driver, entered from the program's own `main` (SwiftPM names an executable's entry
// point itself, so libFuzzer's `main` cannot be used): the target comes from `OPEP_FUZZ_TARGET`,
// the arguments are libFuzzer's.

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target every input goes to (set once, before the driver starts).
nonisolated(unsafe) private var chosen: (any FuzzEntryPoint)?

/// Fuzzes the target of `targets` that `OPEP_FUZZ_TARGET` names with libFuzzer, given this
/// program's arguments; exits 2 with the names when it names none of them.
public func fuzz(choosingFrom targets: [any FuzzEntryPoint]) -> Never {
    let name = ProcessInfo.processInfo.environment["OPEP_FUZZ_TARGET"] ?? ""
    guard let target = targets.first(where: { $0.name == name }) else {
        let names = targets.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("\(CommandLine.arguments[0]): OPEP_FUZZ_TARGET=\(name): give one of \(names)\n".utf8))
        exit(2)
    }
    chosen = target
    var argc = CommandLine.argc
    var argv = Optional(CommandLine.unsafeArgv)
    exit(runFuzzerDriver(&argc, &argv) { data, size in
        chosen?.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    })
}
