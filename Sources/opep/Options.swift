import ArgumentParser
import Foundation
import OPEPAudio
import OPEPHistory
import OPEPKit

/// A closed range written `LOW-HIGH`, e.g. `10-20`.
struct RangeArgument: ExpressibleByArgument, CustomStringConvertible {
    var range: ClosedRange<Double>

    init(_ range: ClosedRange<Double>) { self.range = range }

    init?(argument: String) {
        let parts = argument.split(separator: "-", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
            low.isFinite, high.isFinite, low <= high
        else { return nil }
        range = low...high
    }

    var description: String { "\(range.lowerBound.clean)-\(range.upperBound.clean)" }
    var defaultValueDescription: String { description }
}

extension Double {
    /// The number without a trailing `.0`.
    var clean: String { self == rounded() && abs(self) < 1e12 ? String(Int(self)) : String(self) }
}

extension RawSampleEncoding: ExpressibleByArgument {}

/// How raw PCM on standard input (or in a headerless file) is laid out.
struct RawInputOptions: ParsableArguments {
    @Option(help: "Sample rate of raw PCM input, in Hz (needed for '-', standard input).")
    var sampleRate: Double?

    @Option(help: "Encoding of raw PCM input: \(RawSampleEncoding.allCases.map(\.rawValue).joined(separator: ", ")).")
    var encoding: RawSampleEncoding?

    @Option(help: "Channels of raw PCM input (mixed to mono).")
    var channels: Int = 1

    func validate() throws {
        if let sampleRate, !(sampleRate >= 4000 && sampleRate <= 384_000) {
            throw ValidationError("--sample-rate must be between 4000 and 384000 Hz, not \(sampleRate.clean).")
        }
        guard channels >= 1, channels <= 64 else { throw ValidationError("--channels must be between 1 and 64, not \(channels).") }
        if (sampleRate == nil) != (encoding == nil) {
            throw ValidationError("Raw PCM needs both --sample-rate and --encoding (e.g. --sample-rate 44100 --encoding f32le).")
        }
    }

    /// The raw layout, when one was given.
    var format: RawPCMFormat? {
        guard let sampleRate, let encoding else { return nil }
        return RawPCMFormat(sampleRate: sampleRate, encoding: encoding, channelCount: channels)
    }
}

/// Device, target and detector settings shared by the commands that analyse sound.
struct AnalysisOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Device profile: 'acapella' or a JSON file (name, lower_frequency_hz, upper_frequency_hz, intercept_cmh2o, slope_cmh2o_per_hz).", valueName: "acapella|FILE"))
    var device: String = "acapella"

    @Option(help: ArgumentHelp("Replace the pressure line: intercept in cmH2O.", valueName: "cmH2O"))
    var intercept: Double?

    @Option(help: ArgumentHelp("Replace the pressure line: slope in cmH2O per Hz.", valueName: "cmH2O/Hz"))
    var slope: Double?

    @Option(help: ArgumentHelp("Flutter band searched, in Hz.", valueName: "LOW-HIGH"))
    var band: RangeArgument?

    @Option(help: ArgumentHelp("Target pressure range, in cmH2O.", valueName: "LOW-HIGH"))
    var target: RangeArgument = RangeArgument(10...20)

    @Option(parsing: .unconditional, help: ArgumentHelp("A fixed noise floor in dB (full scale) instead of learning it.", valueName: "dB"))
    var noiseFloorDb: Double?

    @Option(help: ArgumentHelp("Measure the noise floor from a recording of the quiet room.", valueName: "FILE"))
    var calibrate: String?

    @Option(help: ArgumentHelp("A pause this long without breaths ends a set, in seconds.", valueName: "s"))
    var setPause: Double = SessionAnalyzer.Configuration.defaultSetPause

    @Option(help: "How flutter estimates become a pitch track: continuity (ours) or study (the study's, as published).")
    var tracker: FlutterPitchTracker.Method = .continuity

    func validate() throws {
        if noiseFloorDb != nil, calibrate != nil {
            throw ValidationError("Give either --noise-floor-db or --calibrate, not both.")
        }
        if let noiseFloorDb, !(noiseFloorDb >= -200 && noiseFloorDb <= 0) {
            throw ValidationError("--noise-floor-db must be between -200 and 0 dB, not \(noiseFloorDb.clean).")
        }
        guard target.range.lowerBound < target.range.upperBound else {
            throw ValidationError("--target needs a lower bound below the upper, e.g. 10-20.")
        }
        guard setPause >= 2, setPause <= 600 else { throw ValidationError("--set-pause must be between 2 and 600 s.") }
    }

    /// The device profile with any overrides applied.
    func deviceProfile() throws -> DeviceProfile {
        var profile: DeviceProfile
        if device.lowercased() == "acapella" {
            profile = .acapella
        } else {
            guard let data = FileManager.default.contents(atPath: device) else {
                throw failure("\(device): device profile not found or unreadable")
            }
            do {
                profile = try profileDecoder.decode(DeviceProfile.self, from: data)
            } catch {
                throw failure("\(device): not a device profile (\(describe(error)))")
            }
        }
        if let intercept { profile.interceptCmH2O = intercept }
        if let slope { profile.slopeCmH2OPerHz = slope }
        if let band {
            profile.lowerFrequency = band.range.lowerBound
            profile.upperFrequency = band.range.upperBound
        }
        do {
            try profile.validate()
        } catch {
            throw failure("\(device == "acapella" ? "device" : device): \(error)")
        }
        return profile
    }

    /// The analysis configuration for audio at `sampleRate`.
    func configuration(sampleRate: Double, raw: RawPCMFormat? = nil) throws -> SessionAnalyzer.Configuration {
        var configuration = SessionAnalyzer.Configuration(
            sampleRate: sampleRate, device: try deviceProfile(),
            target: TargetRange(lowerCmH2O: target.range.lowerBound, upperCmH2O: target.range.upperBound))
        configuration.tracker = .init(sampleRate: sampleRate, device: configuration.device, method: tracker)
        configuration.setPause = setPause
        configuration.huffSetPause = SessionAnalyzer.Configuration.defaultHuffSetPause(setPause: setPause)
        if let noiseFloorDb {
            configuration.detector.noiseFloorDB = noiseFloorDb
        } else if let calibrate {
            configuration.detector.noiseFloorDB = try NoiseFloorCalibration.measure(path: calibrate, raw: raw, device: configuration.device)
        }
        do {
            try configuration.validate()
        } catch {
            throw failure("settings: \(error)")
        }
        return configuration
    }
}

/// Reads device profiles (their keys are spelled out in `DeviceProfile`).
let profileDecoder = JSONDecoder()

/// A short description of a decoding error.
func describe(_ error: any Error) -> String {
    switch error {
    case let DecodingError.keyNotFound(key, _): "missing \(key.stringValue)"
    case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
        "wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
    case DecodingError.dataCorrupted: "not valid JSON"
    default: "\(error)"
    }
}

/// The noise floor of a recording of the quiet room: the median level of its frames (dB, down to -140).
enum NoiseFloorCalibration {
    static func measure(path: String, raw: RawPCMFormat?, device: DeviceProfile) throws -> Double {
        let source = try openSource(path: path, raw: raw)
        var run: AnalysisRun
        do {
            run = try AnalysisRun(configuration: .init(sampleRate: source.sampleRate, device: device))
        } catch {
            throw failure("\(path): \(error)")
        }
        var levels: [Double] = []
        _ = try run.run(reading: { try readChunk(source, path: path, into: &$0) }) { output in
            if case let .frame(frame) = output { levels.append(frame.levelDB) }
        }
        guard !levels.isEmpty else { throw failure("\(path): too short to measure a noise floor (under half a second)") }
        levels.sort()
        return levels[levels.count / 2]
    }
}

/// Opens an audio file (or '-' for standard input), turning failures into one-line errors.
func openSource(path: String, raw: RawPCMFormat?) throws -> any AudioSource {
    do {
        return try AudioInput.open(path: path, raw: raw)
    } catch {
        throw failure(error.description)
    }
}

/// Reads the next chunk of up to 4096 frames; 0 at the end.
func readChunk(_ source: any AudioSource, path: String, into buffer: inout [Float]) throws -> Int {
    do {
        return try source.read(into: &buffer, maxFrames: 4096)
    } catch {
        throw failure(error.description)
    }
}

extension FlutterPitchTracker.Method: ExpressibleByArgument {}

/// `--database`: where the history lives, for the commands that read or write it.
struct HistoryDatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The history: a SQLite file (default \(HistoryStore.defaultPath())), or a PostgreSQL server's database as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (missing parts from PGUSER, PGPASSWORD, PGHOST, PGPORT, PGDATABASE).",
        valueName: "PATH|URL"))
    var database: String?

    @Option(help: ArgumentHelp(
        "Connections to a PostgreSQL history open at most at once (default \(HistoryStore.defaultConnections); 1-\(Self.maximumConnections)).",
        valueName: "N"))
    var databaseConnections = HistoryStore.defaultConnections

    /// The most connections one process may open (PostgreSQL allows 100 by default, for everyone).
    static let maximumConnections = 64

    func validate() throws {
        do {
            _ = try HistoryLocation(database)
        } catch {
            throw ValidationError(error.description)
        }
        guard (1...Self.maximumConnections).contains(databaseConnections) else {
            throw ValidationError("--database-connections \(databaseConnections): give 1 to \(Self.maximumConnections).")
        }
    }

    /// Whether --database was given.
    var isGiven: Bool { database != nil }

    /// Where the history is: a SQLite file or a PostgreSQL server's database.
    func location() throws -> HistoryLocation {
        do {
            return try HistoryLocation(database)
        } catch {
            throw failure(error.description)
        }
    }

    /// Opens the history; `missing(path)` is the line for a SQLite file that is not there, when
    /// one must be (nil: it is created).
    func openStore(missing: ((String) -> String)? = nil) throws -> HistoryStore {
        let location = try location()
        if let missing, case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            throw failure(missing(path))
        }
        do {
            return try HistoryStore(location: location, connections: databaseConnections)
        } catch {
            throw failure("\(error)")
        }
    }
}
