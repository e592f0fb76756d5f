import Foundation

/// The live coach as a static web app, for any HTTPS file host: the page, its scripts, the engine
/// (WebAssembly), the web app manifest, the service worker and the icons, laid out as `opep serve`
/// serves them (`index.html`, `manifest.webmanifest` and `sw.js` at the top, the rest under
/// `assets/`). The history's pages, which need the server, are left out.
public enum WebAppExport {
    /// Files served from the top of the site rather than under `assets/`.
    static let topLevel: Set<String> = ["index.html", "manifest.webmanifest", "sw.js"]
    /// Pages and scripts that only work with `opep serve`'s history API.
    static let serverOnly: Set<String> = ["history.html", "history.js", "session.html", "session.js"]

    /// A failure naming the folder or file and what went wrong.
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Writes the site into `folder` (created if need be; files of the same names are replaced);
    /// returns the paths written, relative to it.
    @discardableResult
    public static func write(to folder: String) throws(Failure) -> [String] {
        try write(to: folder, from: DashboardFiles().root)
    }

    static func write(to folder: String, from root: URL?) throws(Failure) -> [String] {
        guard let root else { throw Failure(path: folder, reason: "the dashboard's files are missing from this build") }
        let manager = FileManager.default
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: root.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw Failure(path: root.path, reason: "cannot list the dashboard's files")
        }
        let target = URL(fileURLWithPath: folder)
        do {
            try manager.createDirectory(at: target.appendingPathComponent("assets"), withIntermediateDirectories: true)
        } catch {
            throw Failure(path: folder, reason: "cannot create the folder (\(error.localizedDescription))")
        }
        var written: [String] = []
        for name in names where !serverOnly.contains(name) {
            let relative = topLevel.contains(name) ? name : "assets/\(name)"
            let destination = target.appendingPathComponent(relative)
            guard let data = manager.contents(atPath: root.appendingPathComponent(name).path) else {
                throw Failure(path: root.appendingPathComponent(name).path, reason: "cannot read the file")
            }
            do {
                try data.write(to: destination, options: .atomic)
            } catch {
                throw Failure(path: destination.path, reason: "cannot write (\(error.localizedDescription))")
            }
            written.append(relative)
        }
        return written
    }
}
