import ArgumentParser
import Foundation
import OPEPServer

struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "The live coach as a static web app that runs on the phone, offline.",
        subcommands: [Export.self]
    )

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the coach's static site (page, engine, manifest, service worker, icons) into a folder.",
            discussion: """
                The page runs the analysis itself (the Swift engine compiled to WebAssembly), keeps the \
                sessions on the device and works offline after its first visit. Put the folder on any \
                HTTPS static host (browsers give the microphone and the service worker only to https:// \
                pages, and to http://localhost or 127.0.0.1), open it on the phone and add it to the \
                home screen.
                """
        )

        @Argument(help: ArgumentHelp("The folder to write (created if need be).", valueName: "DIR"))
        var folder: String

        func validate() throws {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw ValidationError("\(folder) is a file; give a folder to write the site into.")
            }
        }

        func run() throws {
            let written: [String]
            do {
                written = try WebAppExport.write(to: folder)
            } catch {
                throw failure("\(error)")
            }
            let size = written.reduce(0) { total, name in
                total + ((try? FileManager.default.attributesOfItem(atPath: (folder as NSString).appendingPathComponent(name))[.size] as? Int) ?? 0)
            }
            print("\(folder): \(written.count) files, \(size / 1024) KiB: \(written.joined(separator: ", "))")
        }
    }
}
