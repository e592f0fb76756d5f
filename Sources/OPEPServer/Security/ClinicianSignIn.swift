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
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let item = pair.drop { $0 == " " }
                if item.hasPrefix(cookieName + "=") { return String(item.dropFirst(cookieName.count + 1)) }
            }
        }
        return nil
    }

    /// The clinician signed in with the request's cookie, while the sign-in holds.
    static func clinician(of request: Request, in store: HistoryStore) throws -> Clinician? {
        guard let text = presented(by: request), let token = AccessToken(text: text) else { return nil }
        return try store.clinician(signedInWith: token.text)
    }

    /// The `Set-Cookie` value that keeps `token` for ``lifetime``.
    static func cookie(keeping token: String, secure: Bool) -> String {
        "\(cookieName)=\(token); Path=/; Max-Age=\(Int(lifetime)); HttpOnly\(secure ? "; Secure" : ""); SameSite=Strict"
    }

    /// The `Set-Cookie` value that makes the browser forget the sign-in.
    static func forgettingCookie(secure: Bool) -> String {
        "\(cookieName)=; Path=/; Max-Age=0; HttpOnly\(secure ? "; Secure" : ""); SameSite=Strict"
    }
}
