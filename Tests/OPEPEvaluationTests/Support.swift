@testable import OPEPEvaluation
@testable import OPEPKit
@testable import OPEPSimulation

/// A short case: one set of `breaths` breaths (about 10 s each) with one huff cough.
func smallCase(sampleRate: Double = 16000, breaths: Int = 3, seed: UInt64 = 3) -> EvaluationCase {
    let simulation = SimulationConfiguration(
        sampleRate: sampleRate, sets: 1, breathsPerSet: breaths, huffCoughsPerSet: 1, restBetweenSets: 5,
        leadInSilence: 1, seed: seed)
    return EvaluationCase(name: "small \(Int(sampleRate)) Hz", simulation: simulation)
}

/// A breath as the analysis reports it, from `start` to `end` seconds.
func foundBreath(_ start: Double, _ end: Double, index: Int = 1) -> Breath {
    Breath(index: index, set: 1, start: start, end: end, duration: end - start, flutterShare: 1)
}

/// A simulated breath from `start` to `end` seconds (at least a second long).
func trueBreath(_ start: Double, _ end: Double, index: Int = 0) -> TrueBreath {
    let device = DeviceProfile.acapella
    var generator = SeededGenerator(seed: UInt64(index))
    let trajectory = PressureTrajectory(
        duration: end - start, plateau: 15, threshold: device.pressure(forPitch: device.lowerFrequency), using: &generator)
    return TrueBreath(index: index, set: 0, start: start, trajectory: trajectory, device: device)
}

/// True breaths 0-3 s, 10-13 s and 20-23 s.
let threeTrueBreaths = [trueBreath(0, 3, index: 0), trueBreath(10, 13, index: 1), trueBreath(20, 23, index: 2)]
