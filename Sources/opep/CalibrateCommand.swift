import ArgumentParser
import Foundation
import OPEPCalibration
import OPEPHistory
import OPEPKit
import OPEPReport

/// How the manometer's clock is put on the recording's.
enum AlignmentMode: String, ExpressibleByArgument, CaseIterable {
    case auto, none
}

struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit a device's pitch-to-pressure line from a recording and a manometer trace.",
        discussion: """
            MANOMETER.csv has a header and the columns time_s and pressure_cmh2o (others are \
            ignored). Each 10 ms frame in which the analysis hears a flutter during an exhalation \
            is paired with the manometer's pressure at that moment (linear interpolation; frames \
            outside the trace or in gaps over 0.1 s are skipped), and pressure = intercept + slope \
            × pitch is fitted by least squares. The manometer's clock is shifted by --offset, or \
            found by cross-correlating the exhalations heard with the times the manometer reads \
            above --threshold (within ±--max-lag s, 10 ms steps). The result is a device profile \
            that `opep analyze --device FILE` reads. With --pressure-signal the CSV is a fast \
            pressure waveform (~1 kHz): its flutter is tracked too and compared with the sound's, \
            and its 0.1 s mean is what the line is fitted to.
            """
    )

    @Argument(help: "The recording of the device's sound.")
    var recording: String

    @Argument(help: "The manometer's CSV: time_s,pressure_cmh2o.")
    var manometer: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The device profile (JSON) to write.", valueName: "FILE"))
    var output: String

    @Option(help: "Name of the device in the profile.")
    var name: String = "Calibrated device"

    @Option(help: ArgumentHelp("Flutter band searched, in Hz (written to the profile).", valueName: "LOW-HIGH"))
    var band: RangeArgument = RangeArgument(10...40)

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds added to the manometer's times (it started this long after the recording).", valueName: "SECONDS"))
    var offset: Double?

    @Option(help: ArgumentHelp("Align the clocks automatically (default without --offset) or not at all.", valueName: "auto|none"))
    var align: AlignmentMode?

    @Option(help: ArgumentHelp("Largest clock offset searched by --align auto, in seconds.", valueName: "s"))
    var maxLag: Double = 30

    @Option(help: ArgumentHelp("The manometer counts as 'exhaling' above this pressure: for alignment, and only frames where it is are fitted.", valueName: "cmH2O"))
    var threshold: Double = 5

    @Flag(help: "The manometer CSV is a fast pressure waveform: also track its flutter and compare pitches.")
    var pressureSignal = false

    @Option(help: ArgumentHelp("Also write the scatter plot with the fitted line as HTML.", valueName: "FILE"))
    var plot: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("A fixed noise floor in dB (full scale) instead of learning it.", valueName: "dB"))
    var noiseFloorDb: Double?

    @Option(help: "Output format of the results.")
    var format: ReportFormat = .text

    @OptionGroup var raw: RawInputOptions

    func validate() throws {
        if offset != nil, align == .auto { throw ValidationError("Give either --offset or --align auto, not both.") }
        if let offset, !offset.isFinite { throw ValidationError("--offset must be a number of seconds.") }
        guard maxLag > 0, maxLag <= 600 else { throw ValidationError("--max-lag must be between 0 and 600 s.") }
        guard band.range.lowerBound >= 1, band.range.upperBound > band.range.lowerBound * 1.2, band.range.upperBound <= 90 else {
            throw ValidationError("--band must lie within 1-90 Hz with the upper at least 1.2 times the lower, e.g. 10-40.")
        }
        if format == .csv { throw ValidationError("--format must be text or json.") }
        if recording == "-", raw.format == nil {
            throw ValidationError("Reading '-' needs --sample-rate and --encoding to know the raw PCM layout.")
        }
    }

    struct Output: Encodable {
        var recording: String
        var manometer: String
        var profile: DeviceProfile
        var fit: LineFit
        var offsetS: Double
        var alignment: String
        var alignmentScore: Double?
        var pitchFrames: Int
        var pitchAgreement: PitchAgreement?
    }

    func run() throws {
        let trace = try readManometer()
        let heard = try listen()
        // A pressure waveform oscillates with the flutter; its 0.1 s mean is the pressure the line predicts.
        let pressure = pressureSignal ? trace.smoothed(window: 0.1) : trace
        let recordingRange = 0...max(heard.duration, 0)

        let chosenOffset: Double
        var score: Double?
        let alignment: String
        if let offset {
            chosenOffset = offset
            alignment = "given"
        } else if align == AlignmentMode.none {
            chosenOffset = 0
            alignment = "none"
        } else {
            do {
                let found = try OffsetSearch.find(envelope: heard.envelope, manometer: pressure, threshold: threshold, maxLag: maxLag)
                chosenOffset = found.offset
                score = found.score
                alignment = "auto"
            } catch {
                throw failure("\(manometer): cannot align with \(recording): \(error) (no exhalation above \(threshold.clean) cmH2O? give --offset)")
            }
        }
        let result: CalibrationResult
        do {
            result = try Calibration.fit(
                pitches: heard.pitches, manometer: pressure, offset: chosenOffset, recordingRange: recordingRange,
                alignment: alignment, alignmentScore: score, exhaling: threshold)
        } catch {
            throw failure("\(manometer): \(error)")
        }
        var agreement: PitchAgreement?
        if pressureSignal {
            let pressurePitches: [PitchSample]
            do {
                pressurePitches = try PressureFlutter.track(trace, band: band.range)
            } catch {
                throw failure("\(manometer): cannot track the pressure's flutter: \(error)")
            }
            agreement = PitchAgreement.compare(sound: heard.pitches, pressure: pressurePitches, offset: chosenOffset)
        }
        let profile = result.profile(name: name, band: band.range)
        do {
            try profile.validate()
        } catch {
            throw failure("\(manometer): the fitted line is not usable: \(error)")
        }
        try writeReport(try reportJSON(profile, pretty: true) + "\n", to: output)
        if let plot { try writePlot(result, agreement: agreement, to: plot) }

        switch format {
        case .json:
            let out = Output(
                recording: recording, manometer: manometer, profile: profile, fit: result.fit, offsetS: result.offset,
                alignment: alignment, alignmentScore: score, pitchFrames: heard.pitches.count, pitchAgreement: agreement)
            print(try reportJSON(out, pretty: true))
        default:
            print(summary(result, agreement: agreement, heard: heard.pitches.count))
        }
    }

    func summary(_ result: CalibrationResult, agreement: PitchAgreement?, heard: Int) -> String {
        let fit = result.fit
        var lines: [String] = []
        let how = switch result.alignment {
        case "auto": "found by aligning the exhalations, score \(fixed(result.alignmentScore ?? 0, 2))"
        case "given": "given"
        default: "none"
        }
        lines.append("\(recording) + \(manometer): \(fit.count) of \(heard) pitch frames paired, manometer offset \(fixed(result.offset, 3)) s (\(how))")
        lines.append("pressure = \(fixed(fit.intercept, 3)) + \(fixed(fit.slope, 3)) × pitch   (cmH2O, Hz)")
        lines.append("slope \(fixed(fit.slope, 4)) cmH2O/Hz, intercept \(fixed(fit.intercept, 3)) cmH2O, r² \(fixed(fit.rSquared, 3)), n \(fit.count), residual SD \(fixed(fit.residualStandardDeviation, 2)) cmH2O")
        if pressureSignal {
            if let agreement {
                lines.append("sound vs pressure pitch: median |difference| \(fixed(agreement.medianAbsoluteDifference, 2)) Hz (median difference \(fixed(agreement.medianDifference, 2)) Hz), \(percent(agreement.shareWithinHalfHertz)) of \(agreement.count) frames within 0.5 Hz")
            } else {
                lines.append("sound vs pressure pitch: no frame had both pitches")
            }
        }
        lines.append("wrote \(output)" + (plot.map { " and \($0)" } ?? ""))
        return lines.joined(separator: "\n")
    }

    private func writePlot(_ result: CalibrationResult, agreement: PitchAgreement?, to path: String) throws {
        let fit = result.fit
        var facts: [(label: String, value: String)] = [
            ("Slope", fixed(fit.slope, 4) + " cmH2O/Hz"), ("Intercept", fixed(fit.intercept, 3) + " cmH2O"),
            ("r²", fixed(fit.rSquared, 3)), ("n", "\(fit.count)"), ("Residual SD", fixed(fit.residualStandardDeviation, 2) + " cmH2O"),
            ("Manometer offset", fixed(result.offset, 3) + " s (\(result.alignment))"),
        ]
        if let agreement {
            facts.append(("Pitch agreement", "median |Δ| \(fixed(agreement.medianAbsoluteDifference, 2)) Hz, \(percent(agreement.shareWithinHalfHertz)) within 0.5 Hz"))
        }
        let name = (recording as NSString).lastPathComponent
        let document = CalibrationPlotDocument(
            title: "Calibration of \(self.name): \(name)", points: result.pairs.map { ($0.pitch, $0.pressure) },
            intercept: fit.intercept, slope: fit.slope, facts: facts,
            reference: ("Acapella study line", DeviceProfile.acapella.interceptCmH2O, DeviceProfile.acapella.slopeCmH2OPerHz))
        try writeReport(document.html(), to: path)
    }

    private func readManometer() throws -> ManometerTrace {
        guard FileManager.default.fileExists(atPath: manometer) else { throw failure("\(manometer): file not found") }
        guard let data = FileManager.default.contents(atPath: manometer) else { throw failure("\(manometer): cannot read the file") }
        guard let text = String(data: data, encoding: .utf8) else { throw failure("\(manometer): not a text (UTF-8) CSV file") }
        do {
            return try ManometerTrace.parse(csv: text)
        } catch {
            throw failure("\(manometer): \(error)")
        }
    }

    /// The pitch frames heard and the exhalation envelope of the recording.
    ///
    /// The pitch comes from the analyzer's frames, not the bare tracker's: they are the tracker's
    /// frames (same pitch, same times) but carry a pitch only inside detected exhalations, so a
    /// flutter-like beat in speech or noise between breaths cannot pair with a pressure of ~0 and
    /// bend the line; and the same pass gives the exhalation envelope used for alignment.
    private func listen() throws -> (pitches: [PitchSample], envelope: [(time: Double, value: Double)], duration: Double) {
        let source = try openSource(path: recording, raw: raw.format)
        let device = DeviceProfile(name: name, lowerFrequency: band.range.lowerBound, upperFrequency: band.range.upperBound, interceptCmH2O: 0, slopeCmH2OPerHz: 1)
        var configuration = SessionAnalyzer.Configuration(sampleRate: source.sampleRate, device: device)
        if let noiseFloorDb { configuration.detector.noiseFloorDB = noiseFloorDb }
        var run: AnalysisRun
        do {
            run = try AnalysisRun(configuration: configuration)
        } catch {
            throw failure("\(recording): \(error)")
        }
        var pitches: [PitchSample] = []
        var envelope: [(time: Double, value: Double)] = []
        let report = try run.run(reading: { try readChunk(source, path: recording, into: &$0) }) { output in
            guard case let .frame(frame) = output else { return }
            envelope.append((frame.time, frame.exhaling ? 1 : 0))
            if frame.exhaling, let pitch = frame.pitch { pitches.append(PitchSample(time: frame.time, pitch: pitch)) }
        }
        for warning in source.warnings { printError("warning: \(warning)") }
        guard !pitches.isEmpty else { throw failure("\(recording): no flutter was heard, so there is nothing to calibrate") }
        return (pitches, envelope, report.summary.duration)
    }
}
