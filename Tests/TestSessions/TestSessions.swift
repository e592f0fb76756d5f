// Sessions the history and server tests share: one simulated recording and its analysis.
import Foundation
import OPEPKit
import OPEPSimulation

/// A short simulated session: 1 set of `breaths` breaths at 16 kHz, as one sample array.
public func simulatedSession(breaths: Int = 3, sampleRate: Double = 16000, seed: UInt64 = 5) throws -> [Float] {
    var simulator = try SessionSimulator(configuration: SimulationConfiguration(
        sampleRate: sampleRate, sets: 1, breathsPerSet: breaths, pressureRange: 10...18, huffCoughsPerSet: 1,
        restBetweenSets: 4, leadInSilence: 2, seed: seed))
    var samples: [Float] = []
    var buffer: [Float] = []
    while simulator.render(into: &buffer, maxFrames: 16384) > 0 { samples += buffer }
    return samples
}

/// The analysis of `samples` in 100 ms chunks: every output and the report.
public func analyse(_ samples: [Float], sampleRate: Double = 16000) throws -> (outputs: [SessionOutput], report: SessionReport, run: AnalysisRun) {
    var run = try AnalysisRun(configuration: .init(sampleRate: sampleRate))
    var outputs: [SessionOutput] = []
    let chunk = Int(sampleRate / 10)
    var start = 0
    let report = run.run(reading: { buffer in
        let end = min(samples.count, start + chunk)
        buffer = Array(samples[start..<end])
        defer { start = end }
        return end - start
    }, onOutput: { outputs.append($0) })
    return (outputs, report, run)
}
