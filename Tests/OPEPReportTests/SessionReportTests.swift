import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OPEPKit
@testable import OPEPReport
import XCTest

final class SessionReportTests: XCTestCase {
    nonisolated(unsafe) static var cached: AnalysedSession?

    private func session() throws -> AnalysedSession {
        if let cached = Self.cached { return cached }
        let made = try AnalysedSession.make(sets: 2, breaths: 3)
        Self.cached = made
        return made
    }

    func testEveryBreathIsInTheTableWithTheAnalysedValues() throws {
        let session = try session()
        XCTAssertEqual(session.report.breaths.count, 6)
        let html = SessionReportDocument(input: session.input()).html()
        let document = try parseXML(html)
        let table = try rows(document, "//table[@id='breaths-table']/tbody/tr")
        XCTAssertEqual(table.count, session.report.breaths.count)
        for (cells, breath) in zip(table, session.report.breaths) {
            XCTAssertEqual(cells.count, 13)
            XCTAssertEqual(cells[0], "\(breath.index)")
            XCTAssertEqual(cells[1], "\(breath.set)")
            XCTAssertEqual(cells[2], Markup.clock(breath.start))
            XCTAssertEqual(cells[3], String(format: "%.1f", breath.duration))
            XCTAssertEqual(cells[4], String(format: "%.1f", try XCTUnwrap(breath.meanPressure)))
            XCTAssertEqual(cells[5], String(format: "%.1f", try XCTUnwrap(breath.minPressure)))
            XCTAssertEqual(cells[6], String(format: "%.1f", try XCTUnwrap(breath.maxPressure)))
            XCTAssertEqual(cells[7], String(format: "%.1f", try XCTUnwrap(breath.meanPitch)))
            XCTAssertEqual(cells[8], String(format: "%.1f %%", try XCTUnwrap(breath.shareInTarget) * 100))
            XCTAssertEqual(cells[9], String(format: "%.1f %%", breath.flutterShare * 100))
            let unmeasured = try XCTUnwrap(breath.unmeasured)
            XCTAssertEqual(cells[10], unmeasured.breakdown)
            XCTAssertTrue(unmeasured.total < 0.05 || cells[10].hasSuffix(" s"), cells[10])
            XCTAssertEqual(cells[11], breath.signal?.problem?.words ?? "clear")
            let flags = BreathFlagRules().flags(for: breath, target: .standard).map(\.rawValue)
            XCTAssertEqual(cells[12], flags.isEmpty ? "ok" : flags.joined(), "breath \(breath.index)")
        }
        XCTAssertEqual(try rows(document, "//table[@id='sets-table']/tbody/tr").count, session.report.sets.count)
        let share = try XCTUnwrap(session.report.summary.flutterShare)
        XCTAssertTrue(html.contains("Flutter measured"), "the summary says how much was measured")
        XCTAssertTrue(html.contains(Markup.percent(share) + " of the exhalation time"))
    }

    func testSelfContainedWithLabelledAxes() throws {
        let session = try session()
        let html = SessionReportDocument(input: session.input()).html()
        XCTAssertEqual(externalReferences(html), [])
        for label in ["Pressure (cmH2O)", "Pitch (Hz)", "Level (dBFS)", "Time (s)"] {
            XCTAssertTrue(html.contains(">\(label)</text>"), "axis title \(label)")
        }
        XCTAssertTrue(html.contains("@media print"))
        XCTAssertEqual(html.components(separatedBy: "<svg class=\"chart\"").count - 1, 3)
        XCTAssertLessThan(html.utf8.count, 150_000)
        XCTAssertGreaterThan(html.utf8.count, 10_000)
    }

    /// Under 0.05 s without a pitch (a breath heard from its first frames) rounds to 0.0 s and has
    /// no reason worth naming: neither the summary nor the breath's row says it, where they once
    /// read "Not measured 0.0 s:" with nothing after the colon.
    func testATimeNotMeasuredUnderAFrameOrTwoIsLeftUnsaid() throws {
        var session = try session()
        let scrap = UnmeasuredTime(total: 0.04, tooNoisy: 0.02)
        XCTAssertEqual(scrap.breakdown, "")
        session.report.summary.unmeasured = scrap
        session.report.breaths[0].unmeasured = scrap
        let document = SessionReportDocument(input: session.input())
        XCTAssertFalse(document.summaryFacts(session.report.summary).contains { $0.label == "Not measured" }, "no line for 0.04 s")
        let table = try rows(try parseXML(document.html()), "//table[@id='breaths-table']/tbody/tr")
        XCTAssertEqual(table.first?[10], "")
        session.report.summary.unmeasured = UnmeasuredTime(total: 0.06)
        let facts = document.summaryFacts(session.report.summary)
        XCTAssertEqual(facts.first { $0.label == "Not measured" }?.value, "0.1 s: onsets and short gaps 0.1 s")
    }

    /// The cases the dashboard's copy of the breakdown is held to (Tests/Web/unmeasured_breakdown.mjs),
    /// decoded as stored breaths are.
    func testBreakdownGivesTheCasesThePageIsHeldTo() throws {
        struct Case: Decodable {
            var unmeasured: UnmeasuredTime
            var breakdown: String
        }
        struct Cases: Decodable { var cases: [Case] }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Web/Fixtures/unmeasured-breakdowns.json").standardizedFileURL
        let cases = try JSONDecoder().decode(Cases.self, from: Data(contentsOf: fixture)).cases
        XCTAssertGreaterThanOrEqual(cases.count, 9)
        for c in cases { XCTAssertEqual(c.unmeasured.breakdown, c.breakdown, "\(c.unmeasured)") }
    }

    func testTextIsEscaped() throws {
        let session = try session()
        let title = "Ann's <session> & \"notes\""
        let html = SessionReportDocument(input: session.input(title: title)).html()
        let document = try parseXML(html)
        XCTAssertEqual(try document.nodes(forXPath: "//h1").first?.stringValue, title)
        XCTAssertEqual(try document.nodes(forXPath: "//title").first?.stringValue, title)
        XCTAssertFalse(html.contains("<session>"))
        XCTAssertTrue(html.contains("a&lt;b&gt;&amp;&quot;c&quot;.wav"))
    }

    func testBreathFlags() throws {
        let rules = BreathFlagRules(minimumDuration: 2, unsteadyRange: 8)
        let target = TargetRange.standard
        XCTAssertEqual(rules.flags(for: try breath(index: 1, set: 1, start: 0, duration: 3, mean: 15, min: 12, max: 18), target: target), [])
        XCTAssertEqual(rules.flags(for: try breath(index: 1, set: 1, start: 0, duration: 1.5, mean: 8, min: 7, max: 9), target: target), [.tooShort, .tooSoft])
        XCTAssertEqual(rules.flags(for: try breath(index: 1, set: 1, start: 0, duration: 3, mean: 23, min: 14, max: 30), target: target), [.tooHard, .unsteady])
        XCTAssertEqual(rules.flags(for: try breath(index: 1, set: 1, start: 0, duration: 3, mean: nil, min: nil, max: nil), target: target), [.noFlutter])
    }

    /// A 20-minute session: the decimator keeps at most 2000 points and the file stays small.
    func testTwentyMinuteSessionStaysSmall() throws {
        var decimator = FrameDecimator(maxPoints: 2000)
        var breaths: [Breath] = []
        let frames = 20 * 60 * 100
        for i in 0..<frames {
            let t = Double(i) / 100
            let inBreath = t.truncatingRemainder(dividingBy: 10) >= 4
            let pitch = inBreath ? 15 + 5 * sin(t / 7) : nil
            decimator.add(frame(time: t, pitch: pitch, pressure: pitch.map(DeviceProfile.acapella.pressure(forPitch:)), exhaling: inBreath, level: inBreath ? -25 : -50))
        }
        for k in 0..<120 {
            breaths.append(try breath(index: k + 1, set: k / 10 + 1, start: Double(k) * 10 + 4, duration: 6, mean: 15, min: 12, max: 18))
        }
        XCTAssertEqual(decimator.frameCount, frames)
        XCTAssertLessThanOrEqual(decimator.points.count, 2000)
        XCTAssertGreaterThanOrEqual(decimator.points.count, 1000)
        let session = try session()
        var summary = session.report.summary
        summary.duration = 1200
        summary.breathCount = 120
        let input = SessionReportInput(title: "20 minutes", device: .acapella, target: .standard, summary: summary, breaths: breaths, sets: [], trace: decimator.points)
        let html = SessionReportDocument(input: input).html()
        _ = try parseXML(html)
        print("20-minute report: \(html.utf8.count) bytes, \(decimator.points.count) points")
        XCTAssertLessThan(html.utf8.count, 500_000)
        XCTAssertTrue(html.contains(">Time (min)</text>"))
    }

    func testDecimatorKeepsGapsAndMeans() {
        var decimator = FrameDecimator(maxPoints: 4)
        for i in 0..<8 {
            decimator.add(frame(time: Double(i), pitch: i < 4 ? 10 : nil, pressure: nil, exhaling: i < 4, level: Double(i)))
        }
        let points = decimator.points
        XCTAssertEqual(points.count, 2)
        XCTAssertEqual(points[0].pitch, 10)
        XCTAssertNil(points[1].pitch)
        XCTAssertEqual(points[0].levelDB, 1.5)
        XCTAssertEqual(points[0].time, 1.5)
    }

    func testNiceTicks() {
        XCTAssertEqual(NiceScale(0...23).ticks, [0, 5, 10, 15, 20, 25])
        XCTAssertEqual(NiceScale(0.3...1.7, count: 5).ticks, [0, 0.5, 1, 1.5, 2])
        XCTAssertEqual(NiceScale(0.3...1.7, count: 5, tight: true).ticks, [0.5, 1, 1.5])
        XCTAssertEqual(NiceScale((-47)...(-18)).ticks, [-50, -40, -30, -20, -10])
        XCTAssertEqual(NiceScale(5...5).ticks.first, 4)
    }

    func testLineSeriesBreaksAtMissingValues() {
        let area = PlotArea(left: 0, top: 0, width: 100, height: 100, xDomain: 0...4, yDomain: 0...10)
        let svg = LineSeries(points: [(0, 1), (1, 2), (2, nil), (3, 4), (4, 5)], color: "#000").svg(in: area)
        XCTAssertEqual(svg.components(separatedBy: "M").count - 1, 2, svg)
        let step = LineSeries(points: [(0, 1), (1, 2)], style: .step, color: "#000").svg(in: area)
        XCTAssertTrue(step.contains("H25V80"), step)
    }

    /// Every x tick label stays inside the chart: the last date of an adherence chart sits on the
    /// plot's right edge, and a label centred there would be cut off.
    func testTickLabelsStayInsideTheChart() throws {
        let axis = Axis(label: "Date", unit: "", range: 0...10, tickCount: 10, tight: true, format: { "Nov \(Int($0) + 11)" })
        let chart = Chart(title: "t", x: axis, y: Axis(label: "y", unit: "", range: 0...1), layers: [])
        let svg = chart.svg()
        let labels = svg.components(separatedBy: "<text x=\"").dropFirst().compactMap { part -> (Double, String, String)? in
            guard let x = Double(part.prefix { $0 != "\"" }), part.contains("dominant-baseline") == false,
                let anchor = part.range(of: "text-anchor=\"").map({ String(part[$0.upperBound...].prefix { $0 != "\"" }) }),
                let text = part.split(separator: ">").dropFirst().first?.split(separator: "<").first
            else { return nil }
            return (x, anchor, String(text))
        }
        let dates = labels.filter { $0.2.hasPrefix("Nov") }
        XCTAssertEqual(dates.count, 11, svg)
        for (x, anchor, text) in dates {
            let width = AxisRenderer.estimatedWidth(of: text)
            let right = anchor == "end" ? x : x + width / 2
            XCTAssertLessThanOrEqual(right, chart.width, "\(text) at \(x), anchored \(anchor)")
        }
        XCTAssertEqual(dates.last?.1, "end")
        XCTAssertEqual(dates.first?.1, "middle")
    }
}
