import Foundation
import OPEPHistory
import OPEPKit
import OPEPReport

/// A whole calendar day written `YYYY-MM-DD`, as `opep report --from/--to` and the clinicians'
/// page give the range of an adherence report.
public enum CalendarDay {
    /// The start of the day `text` in `timeZone`; nil unless it is a real day written `YYYY-MM-DD`.
    public static func start(of text: String, in timeZone: TimeZone = .current) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard text.count == 10, parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2] else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }
}

extension HistoryStore {
    /// The adherence report (``AdherenceReportDocument``) over the whole days from `first` through
    /// `last` (each the start of its day in `timeZone`): the history's own sessions against its
    /// plan, or one patient's against theirs.
    public func adherenceReport(
        from first: Date, through last: Date, patient: Patient? = nil, title: String? = nil, timeZone: TimeZone = .current
    ) throws -> AdherenceReportDocument {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let end = calendar.date(byAdding: .day, value: 1, to: last) ?? last
        let plan = try patient?.plan ?? self.plan()
        let sessions = try sessions(from: first, to: end, patient: patient?.id).compactMap { row -> AdherenceSession? in
            guard let start = try? Date(row.startedAt, strategy: .iso8601) else { return nil }
            return AdherenceSession(
                start: start, duration: row.durationS, breaths: row.breaths, sets: row.sets,
                shareInTarget: row.shareInTarget, meanPressure: row.meanPressureCmH2O)
        }
        let day = Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day()
        let whose = patient.map { " of \($0.name)" } ?? ""
        return AdherenceReportDocument(
            title: title ?? "Therapy adherence\(whose), \(first.formatted(day)) to \(last.formatted(day))",
            sessions: sessions, plan: plan, from: first, to: last, timeZone: timeZone)
    }
}
