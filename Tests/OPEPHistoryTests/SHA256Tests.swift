import Foundation
import TestTools
import XCTest

@testable import OPEPHistory

/// The import key's digest against FIPS 180-4's examples and coreutils' `sha256sum`.
final class SHA256Tests: XCTestCase {
    func testTheStandardsExamples() {
        XCTAssertEqual(SHA256.hex(of: Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(of: Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hex(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testEveryLengthAroundTheBlockBoundariesAgreesWithSha256sum() throws {
        let tool = URL(fileURLWithPath: "/usr/bin/sha256sum")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else { throw missingTool("sha256sum is not installed") }
        var generator = SystemRandomNumberGenerator()
        for length in [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let process = Process()
            process.executableURL = tool
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(bytes))
            try input.fileHandleForWriting.close()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(SHA256.hex(of: bytes), String(text.prefix(64)), "\(length) bytes")
        }
    }
}
