import Foundation
import Logging
import OPEPHistory
import ServiceLifecycle

/// Closes the sessions whose recording stopped without ending them: a server killed or crashed
/// mid-session (here or another writing to the same history) leaves them "recording". When the
/// server starts and then every ``ServerConfiguration/abandonedSessionCheck``, the sessions not
/// saved for ``HistoryStore/abandonedAfter`` are marked interrupted, kept up to their last save
/// (``HistoryStore/interruptAbandonedSessions(quietFor:now:)``). A check that fails (the database
/// down) is tried again at the next.
struct AbandonedSessions: Service {
    let store: HistoryStore
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                check()
                try? await Task.sleep(for: interval)
            }
        }
    }

    func check() {
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
