import Foundation
import TestTools
import XCTest

/// Seconds any child process may take before the test fails instead of waiting.
let processTimeout: TimeInterval = 120

/// How a child process ended and what it printed.
struct Execution {
    var reason: Process.TerminationReason
    /// The exit status, or the signal number when `reason` is `.uncaughtSignal`.
    var status: Int32
    var stdout: Data
    var stderr: Data
}

struct ProcessTimedOut: Error, CustomStringConvertible {
    var command: String
    var description: String { "\(command) did not finish within \(Int(processTimeout)) s and was terminated" }
}

/// Writing to a pipe whose reader has exited must fail with EPIPE, not kill the test process.
private let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// Runs `executable` and waits at most `processTimeout` for it. `stdin` is fed through a pipe from
/// another thread (no input: /dev/null); standard output and error go to temporary files, so a
/// chatty child can never block on a full pipe.
func execute(_ executable: URL, _ arguments: [String], stdin: Data? = nil) throws -> Execution {
    _ = brokenPipesIgnored
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdout = try CapturedFile()
    let stderr = try CapturedFile()
    defer {
        stdout.remove()
        stderr.remove()
    }
    process.standardOutput = stdout.handle
    process.standardError = stderr.handle
    let input = stdin.map { _ in Pipe() }
    process.standardInput = input ?? FileHandle.nullDevice

    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    if let input, let stdin {
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async {
            try? writer.write(contentsOf: stdin)
            try? writer.close()
        }
    }
    guard exited.wait(timeout: .now() + processTimeout) == .success else {
        process.terminate()
        exited.wait()
        throw ProcessTimedOut(command: ([executable.lastPathComponent] + arguments).joined(separator: " "))
    }
    return Execution(
        reason: process.terminationReason, status: process.terminationStatus,
        stdout: try stdout.contents(), stderr: try stderr.contents())
}

/// A temporary file a child process writes into.
private struct CapturedFile {
    let url: URL
    let handle: FileHandle

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("opep-tool-tests-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    func contents() throws -> Data { try Data(contentsOf: url) }

    func remove() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }
}

/// The `opep` executable: SwiftPM builds it into the products folder that holds the test bundle.
func opepExecutable() throws -> URL {
    #if os(macOS)
    let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
    #else
    let products: URL? = Bundle.main.bundleURL
    #endif
    guard let executable = products?.appendingPathComponent("opep"), FileManager.default.isExecutableFile(atPath: executable.path) else {
        throw missingTool("opep is not built next to the test bundle; run `swift build --build-tests` first")
    }
    return executable
}

extension XCTestCase {
    /// Runs `opep` as a user would and returns its exit status and output.
    ///
    /// Every run also fails the test if `opep` was killed by a signal (a crash or a trap) or printed
    /// a Swift runtime error.
    @discardableResult
    func run(
        _ arguments: [String], stdin: Data? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let execution = try execute(try opepExecutable(), arguments, stdin: stdin)
        let stdout = String(decoding: execution.stdout, as: UTF8.self)
        let stderr = String(decoding: execution.stderr, as: UTF8.self)
        let command = (["opep"] + arguments).joined(separator: " ")
        XCTAssertEqual(
            execution.reason, .exit, "\(command) was killed by signal \(execution.status): \(stderr)", file: file, line: line)
        XCTAssertFalse(stderr.contains("Fatal error"), "\(command) hit a Swift runtime error: \(stderr)", file: file, line: line)
        return (execution.status, stdout, stderr)
    }
}

/// The path of an external tool on the PATH; when it is not installed, a skip (a failure in CI).
func requireTool(_ name: String) throws -> URL {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    for folder in folders {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw missingTool("\(name) is not installed")
}

struct ToolFailed: Error, CustomStringConvertible {
    var description: String
}

/// Runs sox, ffmpeg or another tool that must succeed; returns its standard output.
@discardableResult
func tool(_ name: String, _ arguments: [String]) throws -> Data {
    let execution = try execute(try requireTool(name), arguments)
    guard execution.reason == .exit, execution.status == 0 else {
        throw ToolFailed(description: "\(name) \(arguments.joined(separator: " ")) failed (\(execution.status)): "
            + String(decoding: execution.stderr, as: UTF8.self))
    }
    return execution.stdout
}

/// The lines of a tool's output, without empty ones.
func nonEmptyLines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init)
}
