import Foundation
import XCTest

/// A folder for one test's files, removed when the test is done with it.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("opep-tool-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ data: Data, to name: String) throws -> String {
        let file = path(name)
        try data.write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Data(text.utf8), to: name)
    }
}

/// The simulator's ground truth as `opep simulate` writes it (snake_case keys).
struct GroundTruthFile: Decodable {
    struct Breath: Decodable {
        var index: Int
        var set: Int
        var start: Double
        var end: Double
        var flutterStart: Double
        var flutterEnd: Double
        var meanPressure: Double
    }

    var duration: Double
    var breaths: [Breath]

    var setCount: Int { Set(breaths.map(\.set)).count }

    /// Whether `time` lies inside a true exhalation.
    func isInsideExhalation(_ time: Double) -> Bool {
        breaths.contains { $0.start <= time && time <= $0.end }
    }
}

/// A session written by `opep simulate`: the WAV, its true frames (CSV) and its decoded ground truth (JSON).
struct SimulatedSession {
    /// The small session most tests use: one set of three breaths at 16 kHz, about 37 s.
    static let smallOptions = ["--sets", "1", "--breaths", "3", "--sample-rate", "16000", "--rest", "5"]

    let wav: String
    let truthCSV: String
    let truth: GroundTruthFile
}

extension XCTestCase {
    /// Simulates a session into `directory` as NAME.wav, NAME.truth.json and NAME.truth.csv.
    func simulateSession(
        in directory: TemporaryDirectory, name: String = "session", options: [String] = SimulatedSession.smallOptions,
        seed: UInt64 = 1
    ) throws -> SimulatedSession {
        let wav = directory.path("\(name).wav")
        let result = try run(["simulate", "-o", wav, "--seed", "\(seed)"] + options)
        guard result.status == 0 else { throw ToolFailed(description: "opep simulate failed: \(result.stderr)") }
        let truthJSON = directory.path("\(name).truth.json")
        let truth = try snakeCaseDecoder.decode(GroundTruthFile.self, from: Data(contentsOf: URL(fileURLWithPath: truthJSON)))
        return SimulatedSession(wav: wav, truthCSV: directory.path("\(name).truth.csv"), truth: truth)
    }
}

let snakeCaseDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
}()

/// SplitMix64: reproducible random bytes for fuzz-like inputs.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` random bytes drawn from a generator seeded with `seed`.
func randomBytes(_ count: Int, seed: UInt64) -> Data {
    var generator = SplitMix64(seed: seed)
    return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
}

/// The median of `values`; nil when there are none.
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
