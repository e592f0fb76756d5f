import GRDB
import OPEPKit

/// The identity of an imported session, the same for the same session whatever release wrote
/// its document or imports it.
///
/// The first imports keyed a session by the SHA-256 of its document re-encoded by the importing
/// release: every setting added to the engine since (three tracker settings in one release)
/// changed the re-encoded document, so a session sent again from a phone after an upgrade was
/// saved twice. The key is now taken from what every release has measured and stored, exactly:
/// the session's duration, every breath's index, set, start, end and mean pressure, and every
/// set's index, start, end and breath count, each number by its bits. Two different sessions share
/// it only if all of those are equal to the last bit. **Never change this text:** stored keys are
/// compared with it (migration `v3-stable-import-keys` rewrote the earlier ones from the rows).
struct ImportKey: Hashable {
    /// One breath's part of the key.
    struct BreathPart {
        var index: Int, set: Int, start: Double, end: Double, meanPressure: Double?
    }
    /// One set's part of the key.
    struct SetPart {
        var index: Int, start: Double, end: Double, breathCount: Int
    }

    /// The key as stored: `v2:` and the SHA-256 of the canonical text, in hex.
    let text: String

    init(duration: Double, breaths: [BreathPart], sets: [SetPart]) {
        var canonical = "opep-session-identity 2\nduration \(Self.bits(duration))\n"
        for b in breaths {
            canonical += "breath \(b.index) \(b.set) \(Self.bits(b.start)) \(Self.bits(b.end)) \(b.meanPressure.map(Self.bits) ?? "-")\n"
        }
        for s in sets {
            canonical += "set \(s.index) \(Self.bits(s.start)) \(Self.bits(s.end)) \(s.breathCount)\n"
        }
        text = "v2:" + SHA256.hex(of: canonical.utf8)
    }

    /// The key of a session document.
    init(_ document: SessionAnalysis) {
        self.init(
            duration: document.summary.duration,
            breaths: document.breaths.map { .init(index: $0.index, set: $0.set, start: $0.start, end: $0.end, meanPressure: $0.meanPressure) },
            sets: document.sets.map { .init(index: $0.index, start: $0.start, end: $0.end, breathCount: $0.breathCount) })
    }

    /// The key of a stored session, from its rows.
    init(session id: Int64, in db: Database) throws {
        let duration = try Double.fetchOne(db, sql: "SELECT duration_s FROM sessions WHERE id = ?", arguments: [id]) ?? 0
        let breaths = try Row.fetchAll(
            db, sql: #"SELECT "index", "set", start_s, end_s, mean_pressure_cmh2o FROM breaths WHERE session_id = ? ORDER BY "index""#,
            arguments: [id]
        ).map { BreathPart(index: $0[0], set: $0[1], start: $0[2], end: $0[3], meanPressure: $0[4]) }
        let sets = try Row.fetchAll(
            db, sql: #"SELECT "index", start_s, end_s, breaths FROM sets WHERE session_id = ? ORDER BY "index""#, arguments: [id]
        ).map { SetPart(index: $0[0], start: $0[1], end: $0[2], breathCount: $0[3]) }
        self.init(duration: duration, breaths: breaths, sets: sets)
    }

    /// A double's exact bits, in hex: no formatting can round it (-0 counts as 0, which is how
    /// SQLite gives it back).
    private static func bits(_ value: Double) -> String {
        String((value == 0 ? 0 : value).bitPattern, radix: 16)
    }
}
