import Foundation
import HummingbirdTLS

/// Where the server listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// What one connection may send and how many may run at once.
    public struct Limits: Sendable {
        /// Largest WebSocket message, in bytes (the WebSocket layer closes on larger frames).
        public var maxMessageBytes: Int = 1 << 20
        /// Longest audio in one binary message, in seconds.
        public var maxAudioSecondsPerMessage: Double = 1
        /// Live sessions running at once; a `start` beyond is refused.
        public var maxSessions: Int = 8
        /// Largest JSON body of an HTTP request (the plan), in bytes.
        public var maxRequestBytes: Int = 64 << 10
        /// Largest session document `POST /api/sessions` accepts, in bytes (2 MB).
        public var maxDocumentBytes: Int = 2 << 20
        /// WebSocket messages one connection may send per second on average (the page sends 10);
        /// faster senders are made to wait, not cut off.
        public var messagesPerSecond: Double = 50
        /// Messages a connection may send at once before ``messagesPerSecond`` applies.
        public var messageBurst: Int = 100
        /// Wrong access tokens one client address may send within ``failedTokenWindow``; then 429.
        public var maxFailedTokens: Int = 10
        public var failedTokenWindow: Duration = .seconds(60)

        public init() {}
    }

    /// Address to listen on (default 127.0.0.1: this machine only).
    public var host: String = "127.0.0.1"
    /// Port to listen on (default 8080; 0 picks a free one).
    public var port: Int = 8080
    public var limits = Limits()
    /// Keep every session's raw audio as a WAV, whatever the page asks.
    public var keepAudio = false
    /// Folder for kept audio; by default `audio/` next to the history database (or a temporary
    /// folder for an in-memory history).
    public var audioFolder: String?
    /// Origins (`scheme://host:port`) whose pages may send sessions to `POST /api/sessions`: the
    /// coach on a phone, served from elsewhere. None by default: only the server's own page.
    public var uploadOrigins: Set<String> = []
    /// The access token every request must carry; nil: none needed (the default on loopback).
    public var access: AccessPolicy?
    /// Serve HTTPS with this certificate and key; nil: plain HTTP.
    public var tls: TLSConfiguration?
    /// Live frames are sent at most this often.
    public var liveInterval: Duration = .milliseconds(50)
    /// Status messages are sent this often (while audio arrives).
    public var statusInterval: Duration = .seconds(1)
    /// The session's measurements are saved this often.
    public var flushInterval: Duration = .seconds(1)
    /// `opep serve` searches the history this often for sessions whose recording stopped without
    /// an end (``HistoryStore/abandonedAfter``) and marks them interrupted (``AbandonedSessions``).
    public var abandonedSessionCheck: Duration = .seconds(10)

    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }
}
