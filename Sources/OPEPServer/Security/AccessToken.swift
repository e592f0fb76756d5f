import Foundation

/// The secret that lets a browser or a script use the server when it listens beyond loopback.
///
/// 192 random bits from the system's generator, written as 32 URL-safe base64 characters, so it
/// fits an address (`https://HOST:PORT/?token=...`) and a QR code. Compared in constant time.
public struct AccessToken: Sendable, Equatable, CustomStringConvertible {
    /// The token as it appears in addresses, cookies and `Authorization: Bearer` headers.
    public let text: String

    /// Random bytes in a new token (192 bits; the issue asks for at least 128).
    public static let byteCount = 24

    /// A token from its text; nil unless it is 32 to 256 URL-safe base64 characters.
    public init?(text: String) {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        guard (32...256).contains(text.count), text.allSatisfy(allowed.contains) else { return nil }
        self.text = text
    }

    /// A new random token.
    public static func random() -> AccessToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return AccessToken(text: text)!
    }

    /// Whether `candidate` is this token, in time that depends only on the lengths.
    public func matches(_ candidate: some StringProtocol) -> Bool {
        let expected = Array(text.utf8)
        let given = Array(candidate.utf8)
        var difference = UInt8(truncatingIfNeeded: expected.count ^ given.count)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    /// Never prints the secret itself (logs, errors).
    public var description: String { "AccessToken(\(text.count) characters)" }
}

/// Where the token is kept: a file readable by its owner only (mode 0600), next to the history.
public struct AccessTokenFile: Sendable {
    /// The file's path.
    public let path: String

    /// The token file beside the database at `databasePath` (`opep-token` in the same folder).
    public init(besideDatabase databasePath: String) {
        let folder = (databasePath as NSString).deletingLastPathComponent
        path = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent("opep-token")
    }

    public init(path: String) {
        self.path = path
    }

    /// The kept token, or a new one written there first (also when `replace` is set). The file's
    /// mode is made 0600 whenever it is read.
    public func loadOrCreate(replace: Bool = false) throws(AccessTokenError) -> (token: AccessToken, created: Bool) {
        let manager = FileManager.default
        if !replace, manager.fileExists(atPath: path) {
            guard let data = manager.contents(atPath: path) else { throw .unreadable(path: path) }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let token = AccessToken(text: text) else { throw .malformed(path: path) }
            do {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            } catch {
                throw .unwritable(path: path, reason: "cannot make it private (mode 0600): \(error.localizedDescription)")
            }
            return (token, false)
        }
        let token = AccessToken.random()
        try write(token)
        return (token, true)
    }

    private func write(_ token: AccessToken) throws(AccessTokenError) {
        if let reason = writeWholeFile(Data((token.text + "\n").utf8), to: path, mode: 0o600) {
            throw .unwritable(path: path, reason: reason)
        }
    }
}

/// Why the token file could not be used.
public enum AccessTokenError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String)
    case malformed(path: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path): "\(path): cannot read the access token"
        case let .malformed(path): "\(path): not an access token (32-256 characters A-Z a-z 0-9 - _); remove it or use --new-token"
        case let .unwritable(path, reason): "\(path): cannot write the access token (\(reason))"
        }
    }
}
