import Foundation
import OPEPFuzzTargets
import OPEPServerFuzzTargets
import XCTest

/// Replays every fuzz target's seeds and every input a fuzzer once found (`Fuzz/Corpus/TARGET/`,
/// `Fuzz/Regressions/TARGET/`): a crash, a hang or a sanitizer report there fails the tests.
final class FuzzCorpusTests: XCTestCase {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    private func files(_ folder: String, _ target: any FuzzEntryPoint) throws -> [URL] {
        let directory = Self.fuzz.appendingPathComponent(folder).appendingPathComponent(target.name)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).sorted { $0.path < $1.path }
    }

    /// Each target has seeds, and each seed is good input (a fuzzer starting from them starts inside the format).
    func testEverySeedIsTakenAsGoodInput() throws {
        for target in ServerFuzzTarget.everyTarget {
            let seeds = try files("Corpus", target)
            XCTAssertFalse(seeds.isEmpty, "\(target.name) has no seeds")
            for seed in seeds {
                let data = try Data(contentsOf: seed)
                XCTAssertTrue(data.withUnsafeBytes { target.run($0) }, "\(target.name)/\(seed.lastPathComponent) is refused")
            }
        }
    }

    /// Inputs that once crashed, hung or leaked run to their end.
    func testEveryRegressionInputRuns() throws {
        for target in ServerFuzzTarget.everyTarget {
            for input in try files("Regressions", target) {
                let data = try Data(contentsOf: input)
                _ = data.withUnsafeBytes { target.run($0) }
            }
        }
    }

    /// `scripts/fuzz.sh --list` names exactly the targets there are.
    func testTheScriptListsEveryTarget() throws {
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        script.arguments = ["bash", Self.fuzz.deletingLastPathComponent().appendingPathComponent("scripts/fuzz.sh").path, "--list"]
        let output = Pipe()
        script.standardOutput = output
        try script.run()
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        XCTAssertEqual(script.terminationStatus, 0)
        XCTAssertEqual(listed.split(separator: "\n").map(String.init), ServerFuzzTarget.everyTarget.map(\.name))
    }

    /// Bytes a fuzzer starts from: nothing, one byte, garbage, a truncated header.
    func testTheSmallestInputsAreRefused() {
        let inputs: [[UInt8]] = [[], [0], [0x11, 0, 0x52, 0x49, 0x46, 0x46], Array(repeating: 0xFF, count: 64)]
        for target in ServerFuzzTarget.everyTarget where target.name != FuzzTarget.engine.name {
            for input in inputs {
                XCTAssertFalse(input.withUnsafeBytes { target.run($0) }, "\(target.name) took \(input)")
            }
        }
    }
}
