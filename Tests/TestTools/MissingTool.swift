import Foundation
import XCTest

/// A tool a test needs is missing. On a developer's machine the test is skipped with `reason`; in
/// CI (`CI=true`, which `.ci/run` sets after installing every tool) the test fails instead, so a
/// suite can never pass there by skipping.
public func missingTool(_ reason: String) -> any Error {
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        return MissingInCI(reason: reason)
    }
    return XCTSkip(reason)
}

/// Why a test could not run in CI.
public struct MissingInCI: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "\(reason), and CI=true: .ci/run installs every tool the tests need" }
}
