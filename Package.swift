// swift-tools-version: 6.0
import PackageDescription

/// The engine, the decoders, the simulator and the evaluation compiled with optimisation in debug
/// builds too: the tests and CI's evaluation run hours of audio through them, which takes them up
/// to 30 times longer unoptimised.
let optimisedEvenInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// The engine compiled for the processor that builds it (`-target-cpu native`: on an x86-64 machine
/// with AVX2 or AVX-512 its eight-lane sums take one instruction instead of two), which made the
/// whole analysis 1.21 times as fast on the AMD EPYC machines CI runs on (docs/accuracy-and-speed.md),
/// with the same frames and documents bit for bit: Swift never fuses a multiplication and an
/// addition unasked, so wider instructions round every operation as before. Such a binary may not
/// start on an older processor; `OPEP_PORTABLE=1 swift build` builds one for any x86-64 machine.
/// Only for Linux and macOS on an x86-64 host: an iOS build is for another processor. The define
/// lets `opep benchmark` say how the engine it times was compiled.
let engineForThisProcessor: [SwiftSetting] = {
    #if arch(x86_64)
    guard Context.environment["OPEP_PORTABLE"] != "1" else { return [] }
    let here = BuildSettingCondition.when(platforms: [.linux, .macOS])
    return [.unsafeFlags(["-target-cpu", "native"], here), .define("OPEP_BUILT_FOR_THIS_PROCESSOR", here)]
    #else
    return []
    #endif
}()

let package = Package(
    name: "opep",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .library(name: "OPEPKit", targets: ["OPEPKit"]),
        .library(name: "OPEPAudio", targets: ["OPEPAudio"]),
        .library(name: "OPEPSimulation", targets: ["OPEPSimulation"]),
        .library(name: "OPEPEvaluation", targets: ["OPEPEvaluation"]),
        .library(name: "OPEPReport", targets: ["OPEPReport"]),
        .library(name: "OPEPCalibration", targets: ["OPEPCalibration"]),
        .library(name: "OPEPHistory", targets: ["OPEPHistory"]),
        .library(name: "OPEPServer", targets: ["OPEPServer"]),
        .library(name: "OPEPFuzzTargets", targets: ["OPEPFuzzTargets"]),
        .library(name: "OPEPServerFuzzTargets", targets: ["OPEPServerFuzzTargets"]),
        .executable(name: "opep", targets: ["opep"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The engine: flutter pitch tracker, exhalation detector, pressure model, session analysis.
        // No dependencies at all, so it builds for Linux, macOS and iOS alike.
        .target(name: "OPEPKit", swiftSettings: optimisedEvenInDebug + engineForThisProcessor),
        // Streaming audio decoders (WAV, AIFF/AIFC, CAF, raw PCM, ffmpeg) and a WAV writer.
        .target(name: "OPEPAudio", swiftSettings: optimisedEvenInDebug),
        // Physically modelled synthetic OPEP sessions with ground truth.
        .target(name: "OPEPSimulation", dependencies: ["OPEPKit"], swiftSettings: optimisedEvenInDebug),
        // Accuracy of the engine against simulated sessions with ground truth (real recordings decoded
        // through OPEPAudio, codecs through ffmpeg).
        .target(
            name: "OPEPEvaluation", dependencies: ["OPEPKit", "OPEPSimulation", "OPEPAudio"], swiftSettings: optimisedEvenInDebug),
        // Self-contained HTML reports with inline SVG plots: sessions, adherence, calibration.
        .target(name: "OPEPReport", dependencies: ["OPEPKit"]),
        // Fitting a device's pitch-to-pressure line against a manometer.
        .target(name: "OPEPCalibration", dependencies: ["OPEPKit"]),
        // Session history in a SQLite file or on a PostgreSQL server: the plan, sessions, breaths,
        // sets, events and decimated frames; imported sessions are known by their ImportKey.
        .target(
            name: "OPEPHistory",
            dependencies: [
                "OPEPKit", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The live-coaching server: the WebSocket `/live`, the JSON API and the dashboard's files;
        // beyond loopback the access token and TLS (a self-signed certificate made with
        // swift-certificates when asked); clinicians' passwords hashed with bcrypt; adherence reports
        // (OPEPReport) for the clinicians' page.
        .target(
            name: "OPEPServer",
            dependencies: [
                "OPEPKit", "OPEPHistory", "OPEPAudio", "OPEPReport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [.copy("Dashboard")]
        ),
        .executableTarget(
            name: "opep",
            dependencies: [
                "OPEPKit", "OPEPAudio", "OPEPSimulation", "OPEPEvaluation", "OPEPReport", "OPEPCalibration",
                "OPEPHistory", "OPEPServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Every entry point for outside input as a function of any bytes: libFuzzer's targets
        // (the package in Fuzz/, scripts/fuzz.sh) and what `swift test` replays. The engine's and
        // the decoders' need neither the history nor the server; the document's and /live's do.
        .target(name: "OPEPFuzzTargets", dependencies: ["OPEPKit", "OPEPAudio", "OPEPCalibration"]),
        .target(
            name: "OPEPServerFuzzTargets",
            dependencies: [
                "OPEPFuzzTargets", "OPEPHistory", "OPEPServer", "OPEPKit", .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        // What the test targets share: a missing tool skips a test, or fails it in CI.
        .target(name: "TestTools", path: "Tests/TestTools"),
        // A simulated session and its analysis, shared by the history and server tests.
        .target(name: "TestSessions", dependencies: ["OPEPKit", "OPEPSimulation"], path: "Tests/TestSessions"),
        .testTarget(name: "OPEPKitTests", dependencies: ["OPEPKit"]),
        .testTarget(name: "OPEPFuzzTargetsTests", dependencies: ["OPEPFuzzTargets", "OPEPServerFuzzTargets"]),
        .testTarget(name: "OPEPAudioTests", dependencies: ["OPEPAudio", "TestTools"]),
        .testTarget(name: "OPEPSimulationTests", dependencies: ["OPEPSimulation", "OPEPKit"]),
        .testTarget(name: "OPEPEvaluationTests", dependencies: ["OPEPEvaluation"]),
        .testTarget(
            name: "OPEPReportTests", dependencies: ["OPEPReport", "OPEPCalibration", "OPEPKit", "OPEPSimulation", "TestTools"]),
        .testTarget(name: "OPEPToolTests", dependencies: ["opep", "TestTools"]),
        .testTarget(
            name: "OPEPHistoryTests",
            dependencies: [
                "OPEPHistory", "OPEPKit", "OPEPSimulation", "TestTools", "TestSessions",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A history and a document written by an earlier release, frozen (FrozenHistoryTests).
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "OPEPServerTests",
            dependencies: [
                "OPEPServer", "OPEPHistory", "OPEPKit", "OPEPSimulation", "TestSessions",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
