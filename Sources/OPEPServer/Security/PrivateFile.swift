import Foundation

/// Writes `data` to `path` whole or not at all: into a new file of that folder with `mode`
/// (e.g. 0600, readable by its owner only, from its creation on), then renamed over `path`.
/// - Returns: why it failed, or nil.
func writeWholeFile(_ data: Data, to path: String, mode: Int) -> String? {
    let folder = (path as NSString).deletingLastPathComponent
    let base = folder.isEmpty ? "." : folder
    let temporary = (base as NSString).appendingPathComponent(".opep-\(UInt32.random(in: .min ... .max)).tmp")
    do {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    } catch {
        return error.localizedDescription
    }
    guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: mode]) else {
        return "cannot create \(temporary)"
    }
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        return reason
    }
    return nil
}
