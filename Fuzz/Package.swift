// swift-tools-version: 6.0
// libFuzzer's driver for the targets of OPEPFuzzTargets: built only by scripts/fuzz.sh, with
// `-sanitize=fuzzer,address`; its main hands libFuzzer the target named by OPEP_FUZZ_TARGET.
import PackageDescription

let package = Package(
    name: "opep-fuzz",
    dependencies: [.package(name: "opep", path: "..")],
    targets: [
        .executableTarget(
            name: "opep-fuzz", dependencies: [.product(name: "OPEPFuzzTargets", package: "opep")],
            // gold fails on these objects (an internal error reading their DWARF); lld links them.
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
        ),
    ]
)
