// swift-tools-version: 6.0
// libFuzzer's driver for the targets of OPEPFuzzTargets: built only by scripts/fuzz.sh, with
// `-sanitize=fuzzer,address` (libFuzzer supplies `main`).
import PackageDescription

let package = Package(
    name: "opep-fuzz",
    dependencies: [.package(name: "opep", path: "..")],
    targets: [
        .executableTarget(name: "opep-fuzz", dependencies: [.product(name: "OPEPFuzzTargets", package: "opep")]),
    ]
)
