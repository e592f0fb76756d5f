import Foundation
import OPEPHistory

/// The `document` target: a session document as `opep history import` and `POST /api/sessions`
/// take it, decoded, checked and saved into a history in memory.
///
/// Besides never crashing, it holds the import to its promise: a saved session, exported and
/// imported again, is found as the same session (never saved twice), whatever its numbers.
enum DocumentImport {
    /// One history for every input (migrating a new one for each would be most of the work);
    /// each saved session is deleted again, so it stays small.
    nonisolated(unsafe) private static var store: HistoryStore? = try? HistoryStore()

    /// Whether the bytes were a session document the history took.
    static func run(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let document = try? SessionAnalysis(json: Data(bytes)), let store else { return false }
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        guard let saved = try? store.importSession(document, defaultStart: start) else { return false }
        defer { _ = try? store.deleteSession(saved.id) }
        precondition(saved.created, "an empty history already held session \(saved.id)")
        guard let exported = try? store.exportAnalysis(saved.id) else {
            preconditionFailure("session \(saved.id) was saved and cannot be exported")
        }
        let again: SessionImport
        do {
            again = try store.importSession(exported, defaultStart: start)
        } catch {
            preconditionFailure("session \(saved.id) exported a document its history refuses: \(error)")
        }
        if again.id != saved.id { _ = try? store.deleteSession(again.id) }
        precondition(again.id == saved.id && !again.created, "session \(saved.id), exported and imported again, was saved twice (\(again.id))")
        return true
    }
}
