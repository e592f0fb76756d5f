import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `opep serve` takes a calibrated device profile into the plan the dashboard uses.
final class ServeCommandTests: XCTestCase {
    func testServeUsesADeviceProfileFromCalibration() throws {
        let directory = try TemporaryDirectory()
        let profile = try directory.write(
            #"{"name": "Calibrated", "lower_frequency_hz": 10, "upper_frequency_hz": 40, "intercept_cmh2o": -3, "slope_cmh2o_per_hz": 1.3}"#,
            to: "device.json")
        let address = try serve(["--database", directory.path("history.sqlite"), "--device", profile])
        let (data, response) = try fetch(address.appendingPathComponent("api/plan"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        let plan = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let device = try XCTUnwrap(plan["device"] as? [String: Any])
        XCTAssertEqual(device["name"] as? String, "Calibrated")
        XCTAssertEqual(device["slope_cmh2o_per_hz"] as? Double, 1.3)
        XCTAssertEqual(device["intercept_cmh2o"] as? Double, -3)
    }

    func testServeRefusesAMissingProfileInOneLine() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.json")
        let result = try run(["serve", "--port", "0", "--database", directory.path("history.sqlite"), "--device", missing])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertEqual(nonEmptyLines(result.stderr), ["opep: error: \(missing): device profile not found or unreadable"])
    }

    func testServeRefusesAnOriginThatIsNotOneInOneLine() throws {
        for bad in ["coach.example.org", "https://coach.example.org/app/", "ftp://coach.example.org"] {
            let result = try run(["serve", "--port", "0", "--allow-origin", bad])
            XCTAssertNotEqual(result.status, 0, bad)
            let lines = nonEmptyLines(result.stderr)
            XCTAssertTrue(lines.first?.contains("--allow-origin takes an origin like https://coach.example.org") ?? false, "\(bad): \(lines)")
        }
    }

    func testBeyondLoopbackServeRefusesPlainHTTPInOneLine() throws {
        let directory = try TemporaryDirectory()
        let result = try run(["serve", "--host", "0.0.0.0", "--port", "0", "--database", directory.path("history.sqlite")])
        XCTAssertNotEqual(result.status, 0)
        let lines = nonEmptyLines(result.stderr)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.contains("--host 0.0.0.0 opens the coach to the network: serve HTTPS with --tls self-signed") ?? false, "\(lines)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("opep-token")), "nothing made for a server that did not start")
    }

    func testServeRefusesTLSOptionsThatDoNotGoTogetherInOneLine() throws {
        let directory = try TemporaryDirectory()
        let certificate = try directory.write("not a certificate", to: "cert.pem")
        let key = try directory.write("not a key", to: "key.pem")
        let cases: [([String], String)] = [
            (["--tls", "self-signed", "--tls-cert", certificate, "--tls-key", key], "Give either --tls self-signed or --tls-cert FILE --tls-key FILE"),
            (["--tls-cert", certificate], "--tls-cert and --tls-key go together"),
            (["--tls", "self-signed", "--insecure-http"], "--insecure-http asks for plain HTTP"),
            (["--tls", "selfsigned"], "selfsigned"),
            (["--tls-cert", certificate, "--tls-key", key], "\(certificate): not a PEM certificate"),
            (["--tls-cert", directory.path("missing.pem"), "--tls-key", key], "\(directory.path("missing.pem")): cannot read it"),
        ]
        for (options, expected) in cases {
            let result = try run(["serve", "--port", "0", "--database", directory.path("history.sqlite")] + options)
            XCTAssertNotEqual(result.status, 0, "\(options)")
            let lines = nonEmptyLines(result.stderr)
            XCTAssertTrue(lines.first?.contains(expected) ?? false, "\(options): \(lines)")
        }
    }

    /// `opep load` uploads sessions, some twice, to a running server and checks that each is
    /// stored once; the history then lists them all.
    func testTheLoadClientUploadsSessionsThatAreStoredOnce() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("history.sqlite")
        let address = try serve(["--database", database])
        let url = address.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let load = try run(["load", "--url", url, "--uploads", "40", "--clients", "4", "--repeat", "0.25"])
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertTrue(load.stdout.contains("50 uploads (40 sessions, 10 sent twice)"), load.stdout)
        XCTAssertTrue(load.stdout.contains("answers: 40 created (201), 10 already stored (200), 0 failed"), load.stdout)
        XCTAssertTrue(load.stdout.contains("stored: 40 new sessions; lost 0, stored twice 0"), load.stdout)
        let again = try run(["load", "--url", url, "--uploads", "5", "--clients", "2", "--repeat", "0"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("answers: 0 created (201), 5 already stored (200), 0 failed"), again.stdout)
        let live = try run(["load", "--url", url, "--uploads", "0", "--live", "3", "--live-breaths", "1"])
        XCTAssertEqual(live.status, 0, live.stderr)
        XCTAssertTrue(live.stdout.contains("3 live sessions at once ("), live.stdout)
        XCTAssertTrue(live.stdout.contains("3 ended with their summary and stored complete, 0 dropped"), live.stdout)
        XCTAssertTrue(live.stdout.contains("server time per chunk (GET /api/health, "), live.stdout)
        XCTAssertFalse(live.stdout.contains("uploads ("), "no uploads asked for: \(live.stdout)")
        let list = try run(["history", "--database", database])
        XCTAssertEqual(nonEmptyLines(list.stdout).count, 1 + 40 + 3, list.stdout)
        XCTAssertEqual(list.stdout.components(separatedBy: "browser").count - 1, 3, list.stdout)

        let unreachable = try run(["load", "--url", "http://127.0.0.1:1", "--uploads", "1"])
        XCTAssertNotEqual(unreachable.status, 0)
        XCTAssertTrue(unreachable.stderr.hasPrefix("opep: error: http://127.0.0.1:1: cannot reach the server"), unreachable.stderr)
        let nothing = try run(["load", "--url", url, "--uploads", "0"])
        XCTAssertNotEqual(nothing.status, 0)
        XCTAssertTrue(nothing.stderr.contains("--uploads 0 and --live 0: give something to send."), nothing.stderr)
        let badURL = try run(["load", "--url", "127.0.0.1:8080"])
        XCTAssertNotEqual(badURL.status, 0)
        XCTAssertTrue(badURL.stderr.contains("--url 127.0.0.1:8080: give the server's address"), badURL.stderr)
    }

    /// Starts `opep serve --port 0` with `arguments`, stopped when the test ends; its address.
    private func serve(_ arguments: [String]) throws -> URL {
        let server = Process()
        server.executableURL = try opepExecutable()
        server.arguments = ["serve", "--port", "0"] + arguments
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        addTeardownBlock {
            server.terminate()
            server.waitUntilExit()
        }
        return try XCTUnwrap(firstAddress(in: output.fileHandleForReading), "opep serve printed no address")
    }

    /// The first `http://...` address the server prints, waiting up to 60 s.
    private func firstAddress(in handle: FileHandle) throws -> URL? {
        let deadline = Date().addingTimeInterval(60)
        var text = ""
        while Date() < deadline {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return nil }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"http://[^ /]+/"#, options: .regularExpression) {
                return URL(string: String(text[range]))
            }
        }
        return nil
    }

    private func fetch(_ url: URL) throws -> (Data, URLResponse) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<(Data, URLResponse), any Error> = .failure(URLError(.timedOut))
        URLSession.shared.dataTask(with: url) { data, response, error in
            if let data, let response { result = .success((data, response)) } else if let error { result = .failure(error) }
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 30)
        return try result.get()
    }
}
