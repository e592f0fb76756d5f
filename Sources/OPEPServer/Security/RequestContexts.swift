import Hummingbird
import HummingbirdWebSocket
import OPEPHistory

/// A request context that knows the client's address (for counting wrong tokens per client).
public protocol ClientAddressContext: RequestContext {
    /// The client's IP address, or nil when not on a socket (the in-process test client).
    var clientAddress: String? { get }
}

/// The context of the server's HTTP routes.
public struct ServerRequestContext: ClientAddressContext {
    public var coreContext: CoreRequestContextStorage
    public let clientAddress: String?
    /// The patient whose token the request presented (``AccessGate``); nil for the server's own
    /// token, or no token where none is needed: the whole history.
    public var patient: Patient?
    /// The clinician signed in with the request's cookie (``ClinicianSignIn``), when the request
    /// carries neither the server's token nor a patient's: their patients' sessions and the
    /// clinic's API only.
    public var clinician: Clinician?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }
}

/// The context of the `/live` upgrade.
public struct LiveRequestContext: ClientAddressContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public let clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        clientAddress = source.channel.remoteAddress?.ipAddress
    }
}
