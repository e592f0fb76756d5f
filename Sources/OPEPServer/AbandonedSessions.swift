import Foundation
import Logging
import OPEPHistory

/// Closes the sessions whose recording stopped without ending them: a server killed or crashed
/// mid-session (this one before a restart, or another writing to the same history) leaves them
/// "recording". ``run()`` checks at once and then every `interval` until its task is cancelled;
/// each check marks the sessions not saved for ``HistoryStore/abandonedAfter`` interrupted, kept
/// up to their last save (``HistoryStore/interruptAbandonedSessions(quietFor:now:)``). A check
/// that fails (the database down) is tried again at the next. `opep serve` runs it beside the
/// server.
public struct AbandonedSessions: Sendable {
    public let store: HistoryStore
    public let interval: Duration
    public let logger: Logger

    public init(store: HistoryStore, interval: Duration = ServerConfiguration().abandonedSessionCheck, logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Checks now and every `interval`, until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            check()
            try? await Task.sleep(for: interval)
        }
    }

    /// One check.
    public func check() {
        do {
            let ids = try store.interruptAbandonedSessions()
            if !ids.isEmpty {
                logger.notice(
                    "sessions whose recording stopped without an end are marked interrupted",
                    metadata: ["sessions": "\(ids.map(String.init).joined(separator: ","))"])
            }
        } catch {
            logger.debug("cannot check for abandoned sessions now", metadata: ["error": "\(error)"])
        }
    }
}
