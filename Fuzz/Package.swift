// swift-tools-version: 6.0
// libFuzzer's drivers for the fuzz targets: built only by scripts/fuzz.sh, with
// `-sanitize=fuzzer,address`. `opep-fuzz` runs every target; `opep-fuzz-engine` only the engine's
// and the decoders' (OPEPFuzzTargets), without the server's packages, so it builds in minutes.
import PackageDescription

// gold fails on these objects (an internal error reading their DWARF); lld links them.
let linkedByLLD: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"])]

let package = Package(
    name: "opep-fuzz",
    dependencies: [.package(name: "opep", path: "..")],
    targets: [
        .target(name: "FuzzDriver", dependencies: [.product(name: "OPEPFuzzTargets", package: "opep")]),
        .executableTarget(
            name: "opep-fuzz",
            dependencies: ["FuzzDriver", .product(name: "OPEPServerFuzzTargets", package: "opep")],
            linkerSettings: linkedByLLD),
        .executableTarget(name: "opep-fuzz-engine", dependencies: ["FuzzDriver"], linkerSettings: linkedByLLD),
    ]
)
