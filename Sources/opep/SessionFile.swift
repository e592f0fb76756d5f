import Foundation
import OPEPAudio
import OPEPHistory
import OPEPKit

/// Everything the analysis of one recording produced, except the frames (those are streamed).
/// The type and its JSON live in OPEPHistory, which exports saved sessions in the same shape.
extension SessionAnalysis {
    /// Streams a recording through the analysis; `onFrame` sees every frame as it becomes final.
    static func run(
        path: String, raw: RawPCMFormat?, options: AnalysisOptions, onFrame: (SessionFrame) throws -> Void = { _ in }
    ) throws -> SessionAnalysis {
        let source = try openSource(path: path, raw: raw)
        let configuration = try options.configuration(sampleRate: source.sampleRate, raw: raw)
        var run: AnalysisRun
        do {
            run = try AnalysisRun(configuration: configuration)
        } catch {
            throw failure("\(path): \(error)")
        }
        var frameError: (any Error)?
        let report = try run.run(reading: { buffer in
            if let frameError { throw frameError }
            return try readChunk(source, path: path, into: &buffer)
        }, onOutput: { output in
            guard case let .frame(frame) = output, frameError == nil else { return }
            do { try onFrame(frame) } catch { frameError = error }
        })
        if let frameError { throw frameError }
        return SessionAnalysis(run: run, report: report, file: path, format: source.formatDescription, warnings: source.warnings)
    }
}

/// Buffered text output to standard output or a file.
final class TextOutput {
    private let handle: FileHandle
    private let path: String
    private var pending = ""

    /// Standard output.
    init() {
        handle = .standardOutput
        path = "standard output"
    }

    /// A new file at `path`, replacing any.
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw failure("\(path): cannot create file")
        }
        self.handle = handle
        self.path = path
    }

    func line(_ text: String) throws {
        pending += text
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        guard !pending.isEmpty else { return }
        do {
            try handle.write(contentsOf: Data(pending.utf8))
        } catch {
            throw failure("\(path): cannot write (\(error.localizedDescription))")
        }
        pending = ""
    }

    func close() throws {
        try flush()
        if handle !== FileHandle.standardOutput { try? handle.close() }
    }
}
