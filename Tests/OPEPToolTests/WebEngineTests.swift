import Foundation
import XCTest

/// The page's engine, Sources/OPEPKit compiled as Embedded Swift for WebAssembly by
/// scripts/build-web.sh and run by Node (`Web/analyze.mjs`), against the native `opep analyze`:
/// the same frames and the same breaths, at the rates phones record at.
final class WebEngineTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // OPEPToolTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The engine built from the current sources into `directory`.
    private func buildEngine(in directory: TemporaryDirectory) throws -> String {
        guard FileManager.default.fileExists(atPath: "/usr/lib/wasm32-wasi/libc.a") else {
            throw XCTSkip("wasi-libc is not installed (apt-get install wasi-libc libclang-rt-dev-wasm32)")
        }
        let wasm = directory.path("opep-engine.wasm")
        let build = try execute(Self.root.appendingPathComponent("scripts/build-web.sh"), [wasm])
        guard build.reason == .exit, build.status == 0 else {
            throw ToolFailed(description: "scripts/build-web.sh failed: " + String(decoding: build.stderr, as: UTF8.self))
        }
        return wasm
    }

    private struct Breaths: Decodable {
        struct Breath: Decodable {
            var start: Double
            var end: Double
            var meanPressure: Double
            var set: Int

            enum CodingKeys: String, CodingKey {
                case start = "start_s", end = "end_s", meanPressure = "mean_pressure_cmh2o", set
            }
        }
        var breaths: [Breath]
    }

    func testTheWebAssemblyEngineGivesTheNativeFramesAndBreaths() throws {
        _ = try requireTool("node")
        let directory = try TemporaryDirectory()
        let wasm = try buildEngine(in: directory)
        let analyze = Self.root.appendingPathComponent("Web/analyze.mjs").path
        for (i, rate) in [8000, 16000, 44100, 48000].enumerated() {
            let session = try simulateSession(
                in: directory, name: "rate\(rate)",
                options: ["--sets", "1", "--breaths", "3", "--sample-rate", "\(rate)", "--rest", "5", "--noise", "speech"],
                seed: UInt64(30 + i))
            let native = try run(["analyze", session.wav, "--format", "csv"])
            XCTAssertEqual(native.status, 0, native.stderr)
            let web = String(decoding: try tool("node", [analyze, session.wav, "--engine", wasm]), as: UTF8.self)
            let nativeRows = nonEmptyLines(native.stdout), webRows = nonEmptyLines(web)
            XCTAssertGreaterThan(nativeRows.count, 1000, "\(rate) Hz: frames")
            XCTAssertEqual(webRows.count, nativeRows.count, "\(rate) Hz: frame count")
            let differing = zip(nativeRows, webRows).filter { $0 != $1 }
            XCTAssertTrue(differing.isEmpty, "\(rate) Hz: \(differing.count) frames differ, first \(differing.first.map { "\($0.0) | \($0.1)" } ?? "")")

            let nativeBreaths = try JSONDecoder().decode(
                Breaths.self, from: Data(try run(["analyze", session.wav, "--format", "json"]).stdout.utf8))
            let webBreaths = try JSONDecoder().decode(
                Breaths.self, from: try tool("node", [analyze, session.wav, "--engine", wasm, "--format", "json"]))
            XCTAssertEqual(nativeBreaths.breaths.count, session.truth.breaths.count, "\(rate) Hz: the native engine's breaths")
            XCTAssertEqual(webBreaths.breaths.count, nativeBreaths.breaths.count, "\(rate) Hz: breaths")
            for (n, w) in zip(nativeBreaths.breaths, webBreaths.breaths) {
                XCTAssertEqual(w.start, n.start, accuracy: 1e-9, "\(rate) Hz: breath start")
                XCTAssertEqual(w.end, n.end, accuracy: 1e-9, "\(rate) Hz: breath end")
                XCTAssertEqual(w.meanPressure, n.meanPressure, accuracy: 1e-9, "\(rate) Hz: mean pressure")
                XCTAssertEqual(w.set, n.set, "\(rate) Hz: set")
            }
        }
    }

    func testBadInputGetsOneClearLine() throws {
        _ = try requireTool("node")
        let directory = try TemporaryDirectory()
        let wasm = try buildEngine(in: directory)
        let analyze = Self.root.appendingPathComponent("Web/analyze.mjs").path
        let notWAV = try directory.write("just text", to: "notes.wav")
        let node = try requireTool("node")
        for (arguments, expected) in [
            ([notWAV], "notes.wav: not a RIFF WAVE file"),
            ([directory.path("missing.wav")], "missing.wav: cannot read the file"),
            ([notWAV, "--format", "xml"], "--format must be csv or json"),
        ] {
            let result = try execute(node, [analyze] + arguments + ["--engine", wasm])
            let stderr = String(decoding: result.stderr, as: UTF8.self)
            XCTAssertEqual(result.status, 1, "\(arguments): \(stderr)")
            XCTAssertTrue(stderr.hasPrefix("Error: ") && stderr.contains(expected), "\(arguments): \(stderr)")
            XCTAssertEqual(nonEmptyLines(stderr).count, 1, "\(arguments): \(stderr)")
        }
    }
}
