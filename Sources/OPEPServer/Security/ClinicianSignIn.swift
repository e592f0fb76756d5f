import Foundation
import Hummingbird
import OPEPHistory

/// A clinician's sign-in as the browser keeps it: a random token (as ``AccessToken``) in its own
/// `HttpOnly`, `SameSite=Strict` cookie, which the history knows by its SHA-256 for
/// ``lifetime``.
enum ClinicianSignIn {
    /// The cookie that keeps the sign-in.
    static let cookieName = "opep_clinician"
    /// How long a sign-in holds: a working day.
    static let lifetime: TimeInterval = 12 * 3600

    /// The sign-in token a request's cookie carries, if any.
    static func presented(by request: Request) -> String? {
        AccessPolicy.cookie(named: cookieName, in: request).map(String.init)
    }

    /// The clinician signed in with the request's cookie, while the sign-in holds.
    static func clinician(of request: Request, in store: HistoryStore) throws -> Clinician? {
        guard let text = presented(by: request), let token = AccessToken(text: text) else { return nil }
        return try store.clinician(signedInWith: token.text)
    }

    /// The `Set-Cookie` value that keeps `token` for ``lifetime``.
    static func cookie(keeping token: String, secure: Bool) -> String {
        AccessPolicy.setCookie(cookieName, token, maxAge: Int(lifetime), secure: secure)
    }

    /// The `Set-Cookie` value that makes the browser forget the sign-in.
    static func forgettingCookie(secure: Bool) -> String {
        AccessPolicy.setCookie(cookieName, "", maxAge: 0, secure: secure)
    }
}
