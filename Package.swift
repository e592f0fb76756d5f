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
        .library(name: "OPEPReport", targets: ["OPEPReport"]),
        .library(name: "OPEPCalibration", targets: ["OPEPCalibration"]),
        .executable(name: "opep", targets: ["opep"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // Self-contained HTML reports with inline SVG plots: sessions, adherence, calibration.
        .target(name: "OPEPReport", dependencies: ["OPEPKit"]),
        // Fitting a device's pitch-to-pressure line against a manometer.
        .target(name: "OPEPCalibration", dependencies: ["OPEPKit"]),
        .executableTarget(
            name: "opep",
            dependencies: [
                "OPEPKit", "OPEPAudio", "OPEPSimulation", "OPEPEvaluation", "OPEPReport", "OPEPCalibration",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "OPEPKitTests", dependencies: ["OPEPKit"]),
        .testTarget(name: "OPEPAudioTests", dependencies: ["OPEPAudio"]),
        .testTarget(name: "OPEPSimulationTests", dependencies: ["OPEPSimulation", "OPEPKit"]),
        .testTarget(name: "OPEPEvaluationTests", dependencies: ["OPEPEvaluation"]),
        .testTarget(
            name: "OPEPReportTests", dependencies: ["OPEPReport", "OPEPCalibration", "OPEPKit", "OPEPSimulation"]),
        .testTarget(name: "OPEPToolTests", dependencies: ["opep"]),
    ],
    swiftLanguageModes: [.v6]
)
