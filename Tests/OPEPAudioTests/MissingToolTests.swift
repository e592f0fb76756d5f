import Foundation
import TestTools
import XCTest

/// A missing tool skips a test on a developer's machine and fails it in CI.
final class MissingToolTests: XCTestCase {
    func testAMissingToolSkipsOutsideCIAndFailsInCI() {
        let saved = ProcessInfo.processInfo.environment["CI"]
        defer {
            if let saved { setenv("CI", saved, 1) } else { unsetenv("CI") }
        }
        unsetenv("CI")
        XCTAssertTrue(missingTool("sox is not installed") is XCTSkip)
        setenv("CI", "true", 1)
        let error = missingTool("sox is not installed")
        XCTAssertTrue(error is MissingInCI)
        XCTAssertTrue("\(error)".contains("sox is not installed"))
    }
}
