import HummingbirdBcrypt
import OPEPHistory

/// A clinician's password, kept in the history only as its bcrypt hash (N. Provos and D. Mazières,
/// "A Future-Adaptable Password Scheme", USENIX 1999; HummingbirdBcrypt, cost 12: about a quarter
/// of a second per hash, so that a stolen history cannot be guessed through quickly).
public enum ClinicianPassword {
    /// Fewest characters a password may have.
    public static let shortest = 10
    /// Most UTF-8 bytes a password may have: bcrypt reads no further, so more would only seem to count.
    public static let longestBytes = 72
    /// bcrypt's cost: 2¹² rounds of its key setup.
    public static let cost: UInt8 = 12

    /// The hash to store for `password`; throws ``ClinicRecordError`` for one too short or too long.
    public static func hash(_ password: String, cost: UInt8 = cost) throws -> String {
        try requireAcceptable(password)
        return Bcrypt.hash(password, cost: cost)
    }

    /// Throws ``ClinicRecordError`` unless `password` is ``shortest`` characters or more and
    /// ``longestBytes`` bytes or fewer.
    public static func requireAcceptable(_ password: String, field: String = "password") throws {
        guard password.count >= shortest else {
            throw ClinicRecordError(field: field, value: nil, expected: "at least \(shortest) characters long")
        }
        guard password.utf8.count <= longestBytes else {
            throw ClinicRecordError(field: field, value: nil, expected: "at most \(longestBytes) bytes of UTF-8")
        }
    }

    /// Whether `password` is the one `hash` was made of.
    public static func verify(_ password: String, hash: String) -> Bool {
        password.utf8.count <= longestBytes && Bcrypt.verify(password, hash: hash)
    }
}
