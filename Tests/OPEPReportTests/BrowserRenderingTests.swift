import Foundation
import OPEPReport
import TestTools
import XCTest

/// Renders a report in headless Chromium, when it is installed, and checks a real picture comes out.
final class BrowserRenderingTests: XCTestCase {
    func testReportRendersInChromium() throws {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let chromium = ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap({ name in
            folders.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        }).first else {
            throw missingTool("chromium is not installed")
        }
        let session = try AnalysedSession.make(sets: 1, breaths: 3)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opep-report-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = folder.appendingPathComponent("report.html"), png = folder.appendingPathComponent("report.png")
        try Data(SessionReportDocument(input: session.input()).html().utf8).write(to: html)

        let process = Process()
        process.executableURL = chromium
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder.appendingPathComponent("profile").path)",
            "--screenshot=\(png.path)", "--window-size=1200,2000", html.absoluteString,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        guard done.wait(timeout: .now() + 90) == .success else {
            process.terminate()
            done.wait()
            return XCTFail("chromium did not finish within 90 s")
        }
        let data = try Data(contentsOf: png)
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        // A blank 1200×2000 page compresses to a few kB; charts, text and tables make it much larger.
        XCTAssertGreaterThan(data.count, 40_000)
    }
}
