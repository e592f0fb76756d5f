import Foundation
import TestTools
import XCTest

/// The page's engine, Sources/OPEPKit compiled as Embedded Swift for WebAssembly by
/// scripts/build-web.sh and run by Node (`Web/analyze.mjs`), against the native `opep analyze`:
/// the same frames and the same analysis document (schema_version, settings, summary, breaths, sets, events), byte
/// for byte, at the rates phones record at.
final class WebEngineTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // OPEPToolTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The engine built from the current sources into `directory`.
    private func buildEngine(in directory: TemporaryDirectory) throws -> String {
        guard FileManager.default.fileExists(atPath: "/usr/lib/wasm32-wasi/libc.a") else {
            throw missingTool("wasi-libc is not installed (apt-get install wasi-libc libclang-rt-dev-wasm32)")
        }
        let wasm = directory.path("opep-engine.wasm")
        let build = try execute(Self.root.appendingPathComponent("scripts/build-web.sh"), [wasm])
        guard build.reason == .exit, build.status == 0 else {
            throw ToolFailed(description: "scripts/build-web.sh failed: " + String(decoding: build.stderr, as: UTF8.self))
        }
        return wasm
    }

    /// The module the page ships (scripts/build-web.sh --check, in CI, makes sure it is the build
    /// of the current sources).
    private static let shippedEngine = root.appendingPathComponent("Sources/OPEPServer/Dashboard/opep-engine.wasm").path

    private struct Document: Decodable {
        var breaths: [Record]
        var sets: [Record]
    }

    private struct Record: Decodable {}

    func testTheWebAssemblyEngineGivesTheNativeFramesAndDocument() throws {
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

            let nativeJSON = try run(["analyze", session.wav, "--format", "json"])
            XCTAssertEqual(nativeJSON.status, 0, nativeJSON.stderr)
            let webJSON = String(decoding: try tool("node", [analyze, session.wav, "--engine", wasm, "--format", "json"]), as: UTF8.self)
            let document = try JSONDecoder().decode(Document.self, from: Data(webJSON.utf8))
            XCTAssertEqual(document.breaths.count, session.truth.breaths.count, "\(rate) Hz: breaths")
            XCTAssertEqual(document.sets.count, 1, "\(rate) Hz: sets")
            XCTAssertEqual(webJSON, nativeJSON.stdout, "\(rate) Hz: the analysis documents differ")
        }
    }

    func testBadInputGetsOneClearLine() throws {
        _ = try requireTool("node")
        let directory = try TemporaryDirectory()
        let wasm = Self.shippedEngine
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
