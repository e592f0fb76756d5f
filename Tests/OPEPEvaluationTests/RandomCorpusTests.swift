import XCTest
@testable import OPEPEvaluation
@testable import OPEPSimulation

final class RandomCorpusTests: XCTestCase {
    func testTuningAndHeldOutNeverShareASeed() {
        let tuning = Evaluator.randomCorpus(split: .tuning, count: 300)
        let heldOut = Evaluator.randomCorpus(split: .heldOut, count: 300)
        XCTAssertEqual(tuning.count, 300)
        XCTAssertEqual(tuning[17].name, "tuning-0017")
        XCTAssertEqual(heldOut[3].name, "held-out-0003")
        XCTAssertTrue(Set(tuning.map(\.simulation.seed)).isDisjoint(with: heldOut.map(\.simulation.seed)))
        XCTAssertFalse(Evaluator.tuningSeeds.overlaps(Evaluator.heldOutSeeds))
        XCTAssertTrue(tuning.allSatisfy { Evaluator.tuningSeeds.contains($0.simulation.seed) })
        XCTAssertTrue(heldOut.allSatisfy { Evaluator.heldOutSeeds.contains($0.simulation.seed) })
        XCTAssertEqual(Evaluator.randomCorpus(split: .tuning, count: 5), Array(tuning.prefix(5)))
    }

    /// More than half of each corpus breathes real breath, and some of those sessions hold
    /// exhalations without the device; the rest of every draw is the same as without it.
    func testMostSessionsOfEachCorpusBreatheRealBreath() {
        for split in [CorpusSplit.tuning, .heldOut] {
            let cases = Evaluator.randomCorpus(split: split, count: 200)
            let real = cases.compactMap(\.simulation.variation?.breath)
            XCTAssertGreaterThanOrEqual(real.count, 100, "\(split)")
            XCTAssertLessThan(real.count, 200, "\(split)")
            XCTAssertGreaterThan(real.filter { $0.plainExhalations > 0 }.count, 50, "\(split)")
            for c in cases.prefix(20) {
                var variation = c.simulation.variation!
                variation.breath = nil
                var plain = SessionVariation.random(seed: c.simulation.seed)
                plain.breath = nil
                XCTAssertEqual(variation, plain)
            }
        }
    }

    func testEachSplitHearsOnlyItsOwnRecordings() {
        let clip: (String) -> RecordedClip = { RecordedClip(name: $0, sampleRate: 16000, samples: [0.1, -0.1]) }
        let library = RecordingLibrary([
            clip("speech-librispeech-198-209.flac"), clip("speech-librispeech-5703-47212.flac"),
            clip("coughs/cough-01.flac"), clip("coughs/cough-02.flac"),
        ])
        for split in CorpusSplit.allCases {
            let files = Evaluator.randomCorpus(split: split, count: 200, recordings: library)
                .flatMap { $0.simulation.variation?.recording?.files ?? [] }
            XCTAssertFalse(files.isEmpty)
            XCTAssertTrue(files.allSatisfy { RecordingLibrary.split(of: $0) == split }, "\(split): \(Set(files))")
        }
    }

    func testCodecRoundTripKeepsTheAlignment() throws {
        guard Evaluator.ffmpegPath != nil else {
            return XCTFail("ffmpeg is not on the PATH: install it (the CI does) to test the codecs of the random corpus")
        }
        for rate in [16000.0, 44100] {
            var generator = SeededGenerator(seed: 8)
            let bursts = [Int(0.6 * rate), Int(1.3 * rate)]
            let audio: [Float] = (0..<Int(2 * rate)).map { i in
                bursts.contains { (0..<Int(0.04 * rate)).contains(i - $0) } ? Float(generator.uniform(-0.4...0.4)) : 0
            }
            for codec in [RecordingChain.Codec.aac(bitrate: 64000), .opus(bitrate: 32000), .telephone] {
                let decoded = try CodecRoundTrip.process(audio, codec: codec, sampleRate: rate)
                XCTAssertEqual(decoded.count, audio.count)
                let lag = CodecRoundTrip.bestLag(reference: audio, signal: decoded, within: Int(0.02 * rate))
                XCTAssertLessThanOrEqual(abs(lag), Int(0.0005 * rate), "\(codec) at \(rate) Hz is off by \(lag) samples")
            }
        }
    }

    func testRandomCasesEvaluateInParallelInCaseOrder() throws {
        let cases = Evaluator.randomCorpus(split: .tuning, count: 3).map { c in
            var c = c
            c.simulation.sampleRate = 8000
            c.simulation.breathsPerSet = 2
            c.simulation.huffCoughsPerSet = 0
            c.simulation.variation?.chain.codec = nil
            return c
        }
        var seen: [String] = []
        let results = try Evaluator.evaluate(cases, jobs: 2) { seen.append($0.name) }
        XCTAssertEqual(results.map(\.name), cases.map(\.name))
        XCTAssertEqual(seen, cases.map(\.name))
        XCTAssertTrue(results.allSatisfy { $0.summary.hasPrefix("8k, ") && $0.breathsTrue == 2 })
        let summary = EvaluationSummary(results)
        XCTAssertEqual(summary.cases, 3)
        XCTAssertNotNil(summary.coverage)
        XCTAssertTrue(cases.map(\.name).contains(try XCTUnwrap(summary.worstCase)))
    }
}
