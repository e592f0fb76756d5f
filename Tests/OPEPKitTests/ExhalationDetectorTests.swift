import XCTest
@testable import OPEPKit

/// The detector on frame sequences written by hand: level, flutter and whether it was heard.
final class ExhalationDetectorTests: XCTestCase {
    private struct Span {
        var seconds: Double
        var levelDB: Double
        var pitched: Bool
        /// Heard afresh on every `heardEvery`-th pitched frame (1: all of them).
        var heardEvery = 1
        /// Heard afresh on this share of its pitched frames, spread evenly (instead of `heardEvery`).
        var heardShare: Double?
        /// Levels the frames take in turn instead of `levelDB`, in dB.
        var cycle: [Double] = []
        /// Whether its heard frames count towards the heard share (a slow, unclear estimate does not).
        var counted = true

        static func silence(_ seconds: Double) -> Span { Span(seconds: seconds, levelDB: -60, pitched: false) }
        static func flutter(_ seconds: Double, heardEvery: Int = 1) -> Span { Span(seconds: seconds, levelDB: -20, pitched: true, heardEvery: heardEvery) }
        static func soundWithoutFlutter(_ seconds: Double) -> Span { Span(seconds: seconds, levelDB: -20, pitched: false) }
    }

    private func decisions(_ spans: [Span], frameInterval: Double = 0.01) throws -> [ExhalationDetector.Decision] {
        var configuration = ExhalationDetector.Configuration()
        configuration.noiseFloorDB = -60
        var detector = try ExhalationDetector(configuration: configuration, frameInterval: frameInterval)
        var out: [ExhalationDetector.Decision] = []
        for span in spans {
            for k in 0..<Int((span.seconds / frameInterval).rounded()) {
                let heard = span.pitched && (span.heardShare.map { Int(Double(k + 1) * $0) > Int(Double(k) * $0) } ?? (k % span.heardEvery == 0))
                let level = span.cycle.isEmpty ? span.levelDB : span.cycle[k % span.cycle.count]
                if let decision = detector.process(levelDB: level, pitched: span.pitched, heard: heard, counted: heard && span.counted) {
                    out.append(decision)
                }
            }
        }
        while let decision = detector.finish() { out.append(decision) }
        return out
    }

    /// How many exhalations started, ended, were withdrawn, and were withdrawn after they ended
    /// as doubtful first exhalations.
    private func count(_ decisions: [ExhalationDetector.Decision]) -> (started: Int, ended: Int, withdrawn: Int, doubted: Int) {
        var result = (started: 0, ended: 0, withdrawn: 0, doubted: 0)
        for decision in decisions {
            switch decision {
            case .exhalationStarted: result.started += 1
            case .exhalationEnded: result.ended += 1
            case .exhalationWithdrawn: result.withdrawn += 1
            case .doubtfulExhalationWithdrawn: result.doubted += 1
            default: break
            }
        }
        return result
    }

    /// The breaths that stand: exhalations ended and not withdrawn afterwards as doubtful.
    private func breaths(_ spans: [Span]) throws -> Int {
        let found = count(try decisions(spans))
        return found.ended - found.doubted
    }

    func testAFlutterGapInsideAContinuingSoundDoesNotSplitTheExhalation() throws {
        for gap in [0.2, 0.5, 0.9] {
            let found = count(try decisions([.silence(2), .flutter(1.5), .soundWithoutFlutter(gap), .flutter(1.5), .silence(2)]))
            XCTAssertEqual(found.started, 1, "gap \(gap) s")
            XCTAssertEqual(found.ended, 1, "gap \(gap) s")
            XCTAssertEqual(found.withdrawn, 0, "gap \(gap) s")
        }
    }

    func testALongerFlutterGapEndsTheExhalation() throws {
        let found = count(try decisions([.silence(2), .flutter(1.5), .soundWithoutFlutter(1.5), .flutter(1.5), .silence(2)]))
        XCTAssertEqual(found.started, 2)
        XCTAssertEqual(found.ended, 2)
    }

    func testSilenceEndsTheExhalationAfterTheHangover() throws {
        let all = try decisions([.silence(2), .flutter(2), .silence(0.5), .flutter(2), .silence(2)])
        let found = count(all)
        XCTAssertEqual(found.started, 2)
        XCTAssertEqual(found.ended, 2)
        guard case let .exhalationEnded(last) = all.first(where: { if case .exhalationEnded = $0 { true } else { false } }) else {
            return XCTFail("no end")
        }
        XCTAssertEqual(last, 399, "the last frame with flutter and sound")
    }

    func testAFlutterShorterThanAnyBreathIsWithdrawn() throws {
        for flutter in [0.6, 0.9] {
            let all = try decisions([.silence(2), .flutter(flutter), .soundWithoutFlutter(2), .silence(2)])
            let found = count(all)
            XCTAssertEqual(found.started, 1, "flutter \(flutter) s")
            XCTAssertEqual(found.withdrawn, 1, "flutter \(flutter) s")
            XCTAssertEqual(found.ended, 0, "flutter \(flutter) s")
        }
        let atTheEnd = count(try decisions([.silence(2), .flutter(0.6)]))
        XCTAssertEqual(atTheEnd.withdrawn, 1, "a short flutter cut off by the end of the recording")
    }

    /// A room's own periodicity (a fan) heard on after a short breath's sound has gone makes the
    /// flutter outlast it; the breath as it would be reported, to its last loud frame, is too short.
    func testAFlutterHeardOnInSilenceDoesNotLengthenABreath() throws {
        let periodicSilence = Span(seconds: 0.6, levelDB: -60, pitched: true)
        let short = count(try decisions([.silence(2), .flutter(0.7), periodicSilence, .silence(2)]))
        XCTAssertEqual(short.started, 1)
        XCTAssertEqual(short.withdrawn, 1, "0.7 s of sound, flutter for 1.3 s")
        XCTAssertEqual(short.ended, 0)
        let long = count(try decisions([.silence(2), .flutter(1.2), periodicSilence, .silence(2)]))
        XCTAssertEqual(long.ended, 1, "1.2 s of sound")
        XCTAssertEqual(long.withdrawn, 0)
    }

    func testAFlutterMostlyHeldRatherThanHeardIsWithdrawn() throws {
        let held = count(try decisions([.silence(2), .flutter(3, heardEvery: 5), .silence(2)]))
        XCTAssertGreaterThanOrEqual(held.started, 1)
        XCTAssertEqual(held.withdrawn, held.started, "heard on 20 % of frames")
        XCTAssertEqual(held.ended, 0, "heard on 20 % of frames")
        let heard = count(try decisions([.silence(2), .flutter(2), .silence(1), .flutter(3, heardEvery: 2), .silence(2)]))
        XCTAssertEqual(heard.withdrawn, 0, "heard on 50 % of frames after a first breath")
        XCTAssertEqual(heard.ended, 2)
    }

    /// The session's first exhalation needs `firstHeardShare` (0.5) of its first second heard
    /// afresh; once one has been heard, `minimumHeardShare` (0.4) will do.
    func testTheFirstExhalationNeedsItsFlutterHeardMoreOften() throws {
        var unclear = Span.flutter(3)
        unclear.heardShare = 0.45
        let first = count(try decisions([.silence(2), unclear, .silence(2)]))
        XCTAssertEqual(first.ended, 0, "heard on 45 % of frames, nothing heard before")
        XCTAssertGreaterThanOrEqual(first.withdrawn, 1)
        let later = count(try decisions([.silence(2), .flutter(2), .silence(1), unclear, .silence(2)]))
        XCTAssertEqual(later.ended, 2, "heard on 45 % of frames after a clear breath")
        XCTAssertEqual(later.withdrawn, 0)
        unclear.heardShare = 0.55
        XCTAssertEqual(try breaths([.silence(2), unclear, .silence(2), .flutter(2), .silence(2)]), 2, "heard on 55 % of frames, then a clear breath")
    }

    /// The session's first exhalation heard in `firstHeardShare` (0.5) of its first second but not
    /// in `clearFirstHeardShare` (0.75) stands only when another is heard within
    /// `doubtfulFirstWait` (10 s) of its end; otherwise it is withdrawn, then or when the session
    /// ends. A clear one stands at once, and with no wait every first exhalation over 0.5 does.
    func testADoubtfulFirstExhalationStandsOnlyWhenAnotherFollows() throws {
        var doubtful = Span.flutter(3)
        doubtful.heardShare = 0.6
        XCTAssertEqual(try breaths([.silence(2), doubtful, .silence(15)]), 0, "alone, heard on 60 % of frames")
        let alone = try decisions([.silence(2), doubtful, .silence(15)])
        guard case let .doubtfulExhalationWithdrawn(first, last) = alone.last, case let .exhalationStarted(start) = alone.first,
            case let .exhalationEnded(end) = alone.dropLast().last
        else { return XCTFail("\(alone)") }
        XCTAssertEqual(first, start)
        XCTAssertEqual(last, end)
        XCTAssertEqual(try breaths([.silence(2), doubtful, .silence(2)]), 0, "withdrawn when the session ends")
        XCTAssertEqual(try breaths([.silence(2), doubtful, .silence(8), .flutter(2), .silence(2)]), 2, "another 8 s after it")
        XCTAssertEqual(try breaths([.silence(2), doubtful, .silence(12), .flutter(2), .silence(2)]), 1, "another only 12 s after it")
        XCTAssertEqual(try breaths([.silence(2), doubtful, .silence(2), doubtful, .silence(2)]), 2, "two heard on 60 %")
        var unheard = Span.flutter(3)
        unheard.heardShare = 0.3
        XCTAssertEqual(try breaths([.silence(2), doubtful, .silence(2), unheard, .silence(15)]), 0, "the next one unheard")
        var clear = doubtful
        clear.heardShare = 0.8
        XCTAssertEqual(try breaths([.silence(2), clear, .silence(15)]), 1, "heard on 80 %")
        var configuration = ExhalationDetector.Configuration()
        configuration.noiseFloorDB = -60
        configuration.doubtfulFirstWait = 0
        var detector = try ExhalationDetector(configuration: configuration, frameInterval: 0.01)
        var ended = 0
        for span in [Span.silence(2), doubtful, .silence(15)] {
            for k in 0..<Int((span.seconds / 0.01).rounded()) {
                let heard = span.pitched && (span.heardShare.map { Int(Double(k + 1) * $0) > Int(Double(k) * $0) } ?? true)
                if case .exhalationEnded = detector.process(levelDB: span.levelDB, pitched: span.pitched, heard: heard) { ended += 1 }
                XCTAssertFalse(detector.holds(frame: 0))
            }
        }
        XCTAssertNil(detector.finish())
        XCTAssertEqual(ended, 1, "no wait")
    }

    /// After `soundsWithoutDevice` (5) sounds of a second or more without a flutter, someone is
    /// breathing without the device: the first exhalation then needs `clearFirstHeardShare`
    /// (0.75) of its first second heard afresh. Shorter sounds, fewer of them, or a breath heard
    /// before them leave the bar where it was.
    func testManyLongSoundsWithoutAFlutterRaiseTheFirstExhalationsBar() throws {
        var unclear = Span.flutter(3)
        unclear.heardShare = 0.6
        func breathing(_ sounds: Int, seconds: Double = 1.5) -> [Span] {
            Array(repeating: [.soundWithoutFlutter(seconds), .silence(2)], count: sounds).flatMap { $0 }
        }
        let next: [Span] = [.silence(2), .flutter(2), .silence(2)]
        XCTAssertEqual(try breaths([.silence(2)] + breathing(4) + [unclear] + next), 2, "heard on 60 % after four long sounds, then a clear one")
        XCTAssertEqual(try breaths([.silence(2)] + breathing(5) + [unclear] + next), 1, "heard on 60 % after five")
        XCTAssertEqual(try breaths([.silence(2)] + breathing(12, seconds: 0.8) + [unclear] + next), 2, "after twelve sounds under a second")
        XCTAssertEqual(try breaths([.silence(2), .flutter(2), .silence(2)] + breathing(5) + [unclear, .silence(2)]), 2, "after a clear breath")
        var clear = unclear
        clear.heardShare = 0.8
        XCTAssertEqual(try breaths([.silence(2)] + breathing(8) + [clear, .silence(2)]), 1, "heard on 80 % after eight long sounds")
        XCTAssertEqual(try breaths([.silence(2)] + breathing(8) + [unclear, .silence(2), .flutter(2), .silence(2)]), 1, "the next, clear one counts")
    }

    /// A flutter heard only once its sound has fallen more than `releaseDropDB` (12 dB) below the
    /// sound's loudest is another sound's, heard through the tail; one heard at the sound's level,
    /// or after the loud part lies more than `maximumConfirmDelay` (1 s) back, confirms it.
    func testAFlutterInASoundsFadedTailDoesNotConfirmIt() throws {
        func tail(_ seconds: Double, levelDB: Double) -> Span { Span(seconds: seconds, levelDB: levelDB, pitched: true) }
        let faded = try decisions([.silence(2), .soundWithoutFlutter(0.8), tail(0.9, levelDB: -35), .silence(2)])
        XCTAssertEqual(count(faded).started, 0, "15 dB under the sound's loudest")
        XCTAssertEqual(count(try decisions([.silence(2), .soundWithoutFlutter(0.8), tail(1.5, levelDB: -30), .silence(2)])).ended, 1, "10 dB under it")
        let long = try decisions([.silence(2), .soundWithoutFlutter(0.8), tail(3, levelDB: -35), .silence(2)])
        XCTAssertEqual(count(long).ended, 1, "the loud part over 1 s back")
        guard case let .exhalationStarted(first) = long.first else { return XCTFail("no start") }
        XCTAssertEqual(
            first, 289, "its flutter counted from 3.8 s, once the loud part lay 1 s back, and confirmed at 3.89 s; the breath is "
                + "reported from as far back as the sound's wait of 1 s goes, all of it above the flutter's level less 12 dB")
    }

    /// The tracker first hears a flutter 0.2-1 s after the rocker opens, by chance. The exhalation
    /// is reported from where its sound rose to within `releaseDropDB` (12 dB) of the flutter's
    /// level, whenever the flutter came (it was 0.4 s before the flutter, no earlier); a quieter
    /// sound before it, an inhalation or a voice across the room, is left out.
    func testAnExhalationStartsWhereItsSoundRoseWheneverItsFlutterIsHeard() throws {
        for lead in [0.3, 0.6, 0.9] {
            let late = try decisions([.silence(2), .soundWithoutFlutter(lead), .flutter(2), .silence(2)])
            guard case let .exhalationStarted(first) = late.first else {
                XCTFail("no start with the flutter \(lead) s into the sound")
                continue
            }
            XCTAssertEqual(first, 200, "the flutter heard \(lead) s into the sound")
        }
        let quieterBefore = try decisions([
            .silence(2), Span(seconds: 0.5, levelDB: -40, pitched: false), .soundWithoutFlutter(0.6), .flutter(2), .silence(2),
        ])
        guard case let .exhalationStarted(first) = quieterBefore.first else { return XCTFail("no start after a quieter sound") }
        XCTAssertEqual(first, 250, "the sound 20 dB under the flutter's level is left out")
    }

    /// A breath in a loud room: its flutter is heard throughout, but its level crosses the start
    /// margin (10 dB over the floor of -60 dB) only one frame in four, the others 7 dB over it.
    private static let breathInALoudRoom = Span(seconds: 2, levelDB: -53, pitched: true, cycle: [-49, -53, -53, -53])

    func testOnceExhalationsWereHeardAFlutterConfirmsASoundNearTheirLevel() throws {
        let breath = Span(seconds: 2, levelDB: -45, pitched: true)
        let found = count(try decisions([.silence(2), breath, .silence(3), Self.breathInALoudRoom, .silence(2)]))
        XCTAssertEqual(found.started, 2)
        XCTAssertEqual(found.ended, 2)
        XCTAssertEqual(found.withdrawn, 0)
    }

    func testBeforeAnyExhalationOrFarBelowThemTheStartMarginHolds() throws {
        XCTAssertEqual(count(try decisions([.silence(2), Self.breathInALoudRoom, .silence(2)])).started, 0)
        let found = count(try decisions([.silence(2), .flutter(2), .silence(3), Self.breathInALoudRoom, .silence(2)]))
        XCTAssertEqual(found.started, 1, "a sound 33 dB under the exhalations heard is not one of them")
    }

    func testNoDecisionReachesFurtherBackThanTheDecisionDelay() throws {
        var configuration = ExhalationDetector.Configuration()
        configuration.noiseFloorDB = -60
        var detector = try ExhalationDetector(configuration: configuration, frameInterval: 0.01)
        let spans: [Span] = [.silence(2), .flutter(0.6), .soundWithoutFlutter(2), .flutter(1.5), .soundWithoutFlutter(0.9), .flutter(2), .silence(2)]
        var index = 0
        for span in spans {
            for _ in 0..<Int((span.seconds / 0.01).rounded()) {
                if let decision = detector.process(levelDB: span.levelDB, pitched: span.pitched) {
                    switch decision {
                    case let .exhalationStarted(first), let .exhalationWithdrawn(first):
                        XCTAssertLessThanOrEqual(index - first, detector.decisionDelay, "\(decision) at frame \(index)")
                    case let .exhalationEnded(last):
                        XCTAssertLessThanOrEqual(index - last, detector.decisionDelay, "\(decision) at frame \(index)")
                    case let .huffCough(_, _, sound):
                        XCTAssertLessThanOrEqual(index - sound.upperBound, detector.decisionDelay, "\(decision) at frame \(index)")
                        XCTAssertLessThanOrEqual(index - sound.lowerBound, detector.soundReach, "\(decision) at frame \(index)")
                    case let .inhalation(first, last):
                        XCTAssertLessThanOrEqual(index - last, detector.decisionDelay, "\(decision) at frame \(index)")
                        XCTAssertLessThanOrEqual(index - first, detector.soundReach, "\(decision) at frame \(index)")
                    case let .doubtfulExhalationWithdrawn(first, _):
                        XCTAssertLessThanOrEqual(index - first, detector.longestHold, "\(decision) at frame \(index)")
                    }
                }
                index += 1
            }
        }
    }

    private func huffs(_ spans: [Span]) throws -> [(first: Int, last: Int)] {
        try decisions(spans).compactMap { if case let .huffCough(first, last, _) = $0 { (first, last) } else { nil } }
    }

    func testALongLoudSoundWithoutFlutterIsNoHuffCough() throws {
        let huff = try huffs([.silence(2), .soundWithoutFlutter(0.7), .silence(2)])
        XCTAssertEqual(huff.count, 1)
        XCTAssertEqual(huff.first.map { $0.last - $0.first + 1 }, 70)
        for seconds in [1.8, 2.5, 4.0] {
            XCTAssertTrue(try huffs([.silence(2), .soundWithoutFlutter(seconds), .silence(2)]).isEmpty,
                          "a loud sound of \(seconds) s without flutter is no huff cough")
        }
        var sentence = Span.soundWithoutFlutter(3)
        sentence.cycle = Array(repeating: -20, count: 12) + Array(repeating: -24, count: 10) + Array(repeating: -30, count: 6)
        XCTAssertTrue(try huffs([.silence(2), sentence, .silence(2)]).isEmpty,
                      "a sentence without a pause, its syllables swaying 10 dB, is no huff cough")
    }

    func testAnInhalationIsMeasuredOverItsWholeLength() throws {
        let breathIn = Span(seconds: 2, levelDB: -45, pitched: false)
        let found: [(first: Int, last: Int)] = try decisions([.silence(2), breathIn, .silence(2)]).compactMap {
            if case let .inhalation(first, last) = $0 { (first, last) } else { nil }
        }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.first, 200)
        XCTAssertEqual(found.first?.last, 399, "all 2 s of it, not the last 0.7 s")
        XCTAssertTrue(try decisions([.silence(2), Span(seconds: 3.5, levelDB: -45, pitched: false), .silence(2)]).isEmpty,
                      "a quiet sound longer than any breath in is nothing")
    }

    func testAHuffStandingOutOfSpeechIsFoundOverItsOwnFrames() throws {
        var speech = Span.soundWithoutFlutter(2)
        speech.cycle = [-30, -30, -30, -30, -34, -34, -38]
        var huff = Span.soundWithoutFlutter(0.6)
        huff.levelDB = -15
        let found = try huffs([.silence(2), speech, huff, speech, .silence(2)])
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.first, 400, "the huff starts after 2 s of silence and 2 s of speech")
        XCTAssertEqual(found.first?.last, 459)
    }

    func testBadSettingsNameTheParameter() {
        var configuration = ExhalationDetector.Configuration()
        configuration.flutterGap = 0.1
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "flutterGap")
        }
        configuration = .init()
        configuration.minimumHeardShare = 1.5
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "minimumHeardShare")
        }
        configuration = .init()
        configuration.firstHeardShare = 1.2
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "firstHeardShare")
        }
        configuration = .init()
        configuration.clearFirstHeardShare = 1.5
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "clearFirstHeardShare")
        }
        configuration = .init()
        configuration.doubtfulFirstWait = -1
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "doubtfulFirstWait")
        }
        configuration = .init()
        configuration.soundsWithoutDevice = 0
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "soundsWithoutDevice")
        }
        configuration = .init()
        configuration.slowFlutterCorrelation = -0.1
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "slowFlutterCorrelation")
        }
        configuration = .init()
        configuration.slowFlutterFrequency = .nan
        XCTAssertThrowsError(try ExhalationDetector(configuration: configuration, frameInterval: 0.01)) { error in
            XCTAssertEqual((error as? EngineConfigurationError)?.parameter, "slowFlutterFrequency")
        }
    }

    /// A flutter whose estimates do not count towards the heard share is withdrawn; one whose
    /// last estimates do not count still ends where its flutter does.
    func testEstimatesThatDoNotCountAreNotHeardButKeepTheBreathGoing() throws {
        var uncounted = Span.flutter(2)
        uncounted.counted = false
        let withdrawn = count(try decisions([.silence(2), uncounted, .silence(2)]))
        XCTAssertEqual(withdrawn.ended, 0)
        XCTAssertGreaterThanOrEqual(withdrawn.withdrawn, 1)
        XCTAssertEqual(count(try decisions([.silence(2), .flutter(2), .silence(2)])).ended, 1)
        func end(_ spans: [Span]) throws -> Int? {
            try decisions(spans).compactMap { if case let .exhalationEnded(last) = $0 { last } else { nil } }.first
        }
        var tail = Span.flutter(1)
        tail.counted = false
        let ended = try XCTUnwrap(try end([.silence(2), .flutter(1.5), .flutter(1), .silence(2)]))
        XCTAssertEqual(try end([.silence(2), .flutter(1.5), tail, .silence(2)]), ended)
    }

    /// A slow estimate counts towards the heard share only when it correlates clearly; a faster one, or one whose track
    /// reports no pitch yet, whenever there is one.
    func testASlowEstimateIsHeardOnlyWhenItCorrelatesClearly() throws {
        let detector = try ExhalationDetector(configuration: .init(), frameInterval: 0.01)
        XCTAssertFalse(detector.countsAsHeard(pitch: 12, confidence: 0.6))
        XCTAssertTrue(detector.countsAsHeard(pitch: 12, confidence: 0.62))
        XCTAssertTrue(detector.countsAsHeard(pitch: 14.9, confidence: 0.9))
        XCTAssertTrue(detector.countsAsHeard(pitch: 15, confidence: 0.3))
        XCTAssertTrue(detector.countsAsHeard(pitch: 30, confidence: 0.3))
        XCTAssertTrue(detector.countsAsHeard(pitch: nil, confidence: 0.3))
        XCTAssertFalse(detector.countsAsHeard(pitch: 20, confidence: 0))
        XCTAssertFalse(detector.countsAsHeard(pitch: nil, confidence: 0))
        var every = ExhalationDetector.Configuration()
        every.slowFlutterCorrelation = 0
        XCTAssertTrue(try ExhalationDetector(configuration: every, frameInterval: 0.01).countsAsHeard(pitch: 12, confidence: 0.1))
    }

    /// Settings stored before the slow-flutter test read its defaults.
    func testSettingsStoredBeforeTheSlowFlutterTestReadItsDefaults() throws {
        let decoded = try JSONDecoder().decode(ExhalationDetector.Configuration.self, from: Data(#"{"minimumHeardShare": 0.3}"#.utf8))
        XCTAssertEqual(decoded.minimumHeardShare, 0.3)
        XCTAssertEqual(decoded.slowFlutterFrequency, 15)
        XCTAssertEqual(decoded.slowFlutterCorrelation, 0.62)
        XCTAssertEqual(decoded.firstHeardShare, 0.5)
        XCTAssertEqual(decoded.soundsWithoutDevice, 5)
        XCTAssertEqual(decoded.longSound, 1)
        XCTAssertEqual(decoded.clearFirstHeardShare, 0.75)
        XCTAssertEqual(decoded.doubtfulFirstWait, 10)
    }
}
