import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OPEPKit
import OPEPReport
import XCTest

final class AdherenceReportTests: XCTestCase {
    func testDaysSessionsAndCharts() throws {
        let zone = TimeZone(identifier: "Europe/Amsterdam")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let first = calendar.date(from: DateComponents(year: 2024, month: 3, day: 1, hour: 0))!
        var sessions: [AdherenceSession] = []
        // Two sessions a day for five days, one on the sixth, none on the seventh.
        for day in 0..<6 {
            for hour in day == 5 ? [8] : [8, 19] {
                let start = calendar.date(byAdding: DateComponents(day: day, hour: hour), to: first)!
                sessions.append(AdherenceSession(start: start, duration: 900, breaths: 28 + day, sets: 3, shareInTarget: 0.5 + 0.05 * Double(day), meanPressure: 12 + Double(day)))
            }
        }
        // Outside the range: not shown.
        sessions.append(AdherenceSession(start: calendar.date(byAdding: .day, value: 9, to: first)!, duration: 600, breaths: 10, sets: 1, shareInTarget: nil, meanPressure: nil))
        let last = calendar.date(byAdding: .day, value: 6, to: first)!
        let document = AdherenceReportDocument(title: "Adherence <March>", sessions: sessions, plan: .standard, from: first, to: last, timeZone: zone)
        let html = document.html()
        let xml = try parseXML(html)
        XCTAssertEqual(externalReferences(html), [])
        let days = try rows(xml, "//table[@id='days-table']/tbody/tr")
        XCTAssertEqual(days.count, 7)
        XCTAssertEqual(days.map { $0[1] }, ["2", "2", "2", "2", "2", "1", "0"])
        XCTAssertEqual(days[0][0], "Fri 2024-03-01")
        XCTAssertEqual(days.map { $0[4] }, ["yes", "yes", "yes", "yes", "yes", "no", "no"])
        let table = try rows(xml, "//table[@id='sessions-table']/tbody/tr")
        XCTAssertEqual(table.count, 11)
        XCTAssertEqual(table[0][0], "2024-03-01 08:00")
        XCTAssertEqual(table[0][2], "28")
        XCTAssertEqual(html.components(separatedBy: "<svg class=\"chart\"").count - 1, 4)
        for label in ["Sessions (per day)", "Breaths (per session)", "Time in target (%)", "Mean pressure (cmH2O)"] {
            XCTAssertTrue(html.contains(">\(label)</text>"), label)
        }
        XCTAssertTrue(html.contains("Days on plan"))
        XCTAssertTrue(html.contains("5 of 7"))
        // Pure: the same inputs give the same bytes.
        XCTAssertEqual(html, document.html())
    }

    func testEmptyRange() throws {
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        let html = AdherenceReportDocument(sessions: [], from: day, to: day, timeZone: TimeZone(identifier: "UTC")!).html()
        let xml = try parseXML(html)
        XCTAssertEqual(try rows(xml, "//table[@id='days-table']/tbody/tr").count, 1)
        XCTAssertTrue(html.contains("No sessions in this range."))
    }
}
