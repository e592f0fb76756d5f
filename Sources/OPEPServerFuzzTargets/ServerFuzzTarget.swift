import OPEPFuzzTargets

/// The entry points that reach the history and the server: the session document, `/live` and the
/// HTTP routes.
/// Their fuzzer compiles the server and the databases' packages with the sanitizers (about
/// eleven minutes here from cold), so only `scripts/fuzz.sh` runs them.
public enum ServerFuzzTarget: String, CaseIterable, FuzzEntryPoint {
    /// A session document (`opep history import`, `POST /api/sessions`), imported into a history.
    case document
    /// One `/live` connection's messages (``LiveProtocol`` says how the bytes are split).
    case live
    /// One request to the HTTP routes, from one of eight askers (``HTTPRequests`` says how).
    case http

    /// Every fuzz target there is: the engine's, then these.
    public static let everyTarget: [any FuzzEntryPoint] = FuzzTarget.entryPoints + allCases

    @discardableResult
    public func run(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .document: return DocumentImport.run(bytes)
        case .live: return LiveProtocol.run(bytes)
        case .http: return HTTPRequests.run(bytes)
        }
    }
}
