// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "opep",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "OPEPKit", targets: ["OPEPKit"]),
        .library(name: "OPEPAudio", targets: ["OPEPAudio"]),
        .library(name: "OPEPSimulation", targets: ["OPEPSimulation"]),
        .library(name: "OPEPEvaluation", targets: ["OPEPEvaluation"]),
        .library(name: "OPEPHistory", targets: ["OPEPHistory"]),
        .executable(name: "opep", targets: ["opep"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The engine: flutter pitch tracker, exhalation detector, pressure model, session analysis.
        // No dependencies at all, so it builds for Linux, macOS and iOS alike.
        .target(name: "OPEPKit"),
        // Streaming audio decoders (WAV, AIFF/AIFC, CAF, raw PCM, ffmpeg) and a WAV writer.
        .target(name: "OPEPAudio"),
        // Physically modelled synthetic OPEP sessions with ground truth.
        .target(name: "OPEPSimulation", dependencies: ["OPEPKit"]),
        // Accuracy of the engine against simulated sessions with ground truth.
        .target(name: "OPEPEvaluation", dependencies: ["OPEPKit", "OPEPSimulation"]),
        // Session history in SQLite: the plan, sessions, breaths, sets, events and decimated frames.
        .target(
            name: "OPEPHistory",
            dependencies: ["OPEPKit", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "opep",
            dependencies: [
                "OPEPKit", "OPEPAudio", "OPEPSimulation", "OPEPEvaluation", "OPEPHistory",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "OPEPKitTests", dependencies: ["OPEPKit"]),
        .testTarget(name: "OPEPAudioTests", dependencies: ["OPEPAudio"]),
        .testTarget(name: "OPEPSimulationTests", dependencies: ["OPEPSimulation", "OPEPKit"]),
        .testTarget(name: "OPEPEvaluationTests", dependencies: ["OPEPEvaluation"]),
        .testTarget(name: "OPEPToolTests", dependencies: ["opep"]),
        .testTarget(name: "OPEPHistoryTests", dependencies: ["OPEPHistory", "OPEPKit", "OPEPSimulation"]),
    ],
    swiftLanguageModes: [.v6]
)
