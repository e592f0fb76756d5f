import Foundation
import OPEPAudio
import OPEPSimulation

extension RecordingLibrary {
    /// Decodes every `.flac` file of `directory` and of its `coughs/` folder (laid out like
    /// `corpus/real-audio/`) through OPEPAudio, named by their paths relative to `directory`.
    public static func load(directory: String) throws -> RecordingLibrary {
        var clips: [RecordedClip] = []
        for folder in ["", "coughs/"] {
            let path = (directory as NSString).appendingPathComponent(folder)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: path) else { continue }
            for file in files.sorted() where file.lowercased().hasSuffix(".flac") {
                let source = try AudioInput.open(path: (path as NSString).appendingPathComponent(file))
                var samples: [Float] = []
                var buffer: [Float] = []
                while try source.read(into: &buffer, maxFrames: 65536) > 0 {
                    samples.append(contentsOf: buffer)
                }
                clips.append(RecordedClip(name: folder + file, sampleRate: source.sampleRate, samples: samples))
            }
        }
        return RecordingLibrary(clips)
    }
}
