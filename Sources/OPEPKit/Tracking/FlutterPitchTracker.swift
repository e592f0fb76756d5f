
/// Streaming flutter pitch tracker for OPEP devices, after the stateful `pitchTracker` of the
/// Acapella pitch-to-pressure study (seed 000 section 3).
///
/// Pipeline, every length derived from the sample rate:
/// 1-2. ``AudioEnergyFrontEnd``: average to an analysis rate of at least 14 kHz, subtract a
///    centred moving average (first null 100 Hz; the study's 250), square, average blocks to ~980 Hz ("audio
///    energy"; one energy sample per 45 input samples at 44.1 kHz); beside it the energy of the
///    audio whitened by ``WhiteningPredictor``, its second-order linear prediction error (not the
///    study's).
/// 3. Each energy makes an ``EnvelopeView``: ``ClickSuppressor`` (a sample 10 dB over the median
///    of the last 6 ms replaced by it, unless as loud a sample came within a period; not the study's),
///    ``GaussianSmoother``, σ = 0.2 × the shortest period
///    (5 ms for 40 Hz); the moving average of this energy over one longest period is its level
///    (the plain energy's is the sound's level).
/// 4. ``AmplitudeEnvelope``: the square root (not with ``Method/study``, which reads the energy),
///    so a click 20 dB above the breath stands 10 times above it instead of 100 and cannot
///    dominate a span; the envelope's own moving average over one longest period is subtracted
///    (``MovingAverageHighPass``), so slow swells like an inhalation's are not mistaken for
///    periodicity.
/// 5. ``PeriodSearch``: normalised autocorrelation over a 0.25 s span every 10 ms, narrowed around
///    the previous period, sub-sample peak by parabolic interpolation, accepted above 0.6 when
///    the correlation near twice the period reaches 0.5 (0.3 near the period of a track heard for
///    a second: a breath's falling end). The whitened view is searched first
///    (once a track is heard, the view that heard it last); when it gives nothing, the other is
///    searched too, every 40 ms: the whole band without a track, only near the track's period
///    with one (a track never jumps to another period through the other view). A track the other
///    view finds starts only where the first view correlates at least `continuationAcceptance`
///    (0.4) at its period too: speech and a breath's own beating correlate by chance in one view
///    at a time. A breath's noise beats by itself less once whitened, but a device whose sound is
///    all below a few hundred hertz, under brighter noise, is heard only in the plain view.
/// 6. ``PeriodEvidence``: every 40 ms the span's correlation at every lag joins an average with a
///    0.15 s memory; a period whose average exceeds 0.45 starts a track, and one above 0.4
///    continues it where a single span falls short. The breath's own fluctuation correlates by
///    chance at lags that move from span to span; a flutter's period stays.
/// 7. ``WaveformRepetition``: a period the envelope gave is doubled where the audio's waveform
///    (the high-passed audio low-passed to the energy rate, its sign kept) has, for 0.1 s,
///    repeated at twice it and been inverted at it: a buzz close to a square wave, whose
///    envelope repeats every half cycle.
/// 8. ``PeriodSmoother``: run-length / decay-rate (0.8) moving average of the period; a pitch
///    is reported once 0.1 s of estimates agree, and offered to a live gauge once two do
///    (``Frame/provisionalPitch``).
/// 9. pitch = 1 / period.
/// 10. While the caller's gate keeps frames from being searched (between sounds), the span is
///    searched every 0.5 s for a period of the room's own, a fan's or a motor's (``RoomPeriod``),
///    which the frames then carry; the track is not touched.
///
/// Feed it chunks of any size with ``process(_:onFrame:)``: the frames are the same whatever the
/// split. All memory is allocated by the initialiser; processing allocates nothing.
public struct FlutterPitchTracker {
    /// The tracker's parameters in real units. Defaults are the study's where it gives them.
    public struct Configuration: Sendable, Hashable {
        /// The longest run of estimates a configuration may ask for, in seconds.
        public static let longestRunLimit = 1.0

        /// How estimates become a pitch track (default ``Method/continuity``).
        public var method: Method = .continuity
        /// Input sample rate in Hz (4 kHz to 384 kHz).
        public var sampleRate: Double
        /// Lowest flutter frequency searched for, in Hz (default 10).
        public var lowerFrequency: Double = 10
        /// Highest flutter frequency searched for, in Hz (default 40).
        public var upperFrequency: Double = 40
        /// First null of the moving average removed by the high-pass, in Hz (default 100; the
        /// study's 250 with ``Method/study``). Breath through a device is loudest below 500 Hz.
        public var highPassCutoff: Double = 100
        /// Memory of the ``WhiteningPredictor`` that whitens the high-passed audio of the view
        /// searched first, in seconds (default 0.1; 0 turns that view off, as with
        /// ``Method/study``). See ``AudioEnergyFrontEnd``: a breath's noise is loudest below
        /// 500 Hz, and the envelope of so narrow a noise beats by itself at flutter rates. On the
        /// real-breath flutter frames of the first 24 random tuning sessions (a Python model of
        /// the envelope), the period's median error was 2.2 % without whitening, 1.15 % after a
        /// first difference and 0.97 % after this predictor (order 6: 1.15 %). The sound's level
        /// is still read from the plain audio, and the plain envelope is searched as well where
        /// the whitened one hears no flutter: a dark flutter under brighter noise (music, a fan, a
        /// codec's or a converter's noise) is heard only there.
        public var whiteningTime: Double = 0.1
        /// Target rate of the audio-energy signal, in Hz (default 980: blocks of 45 at 44.1 kHz).
        public var energyRate: Double = 980
        /// Lowest rate the audio is averaged down to before the high-pass, in Hz (default 14000).
        public var analysisRate: Double = 14000
        /// The longest lip or mouth click taken out of the energy before it is smoothed, in
        /// seconds (default 0.003; 0 turns it off, as with ``Method/study``): an energy sample
        /// 10 dB above the median of itself and those of twice this time before it is replaced
        /// by that median, unless a sample as loud came within the longest flutter period before,
        /// as a rocker's clicks do (``ClickSuppressor``).
        public var longestClick: Double = ClickSuppressor.longestClick
        /// Gaussian σ as a fraction of the shortest flutter period (default 0.2).
        public var smoothingFraction: Double = 0.2
        /// What the autocorrelation reads (default ``Envelope/amplitude``; the study's energy
        /// with ``Method/study``).
        public var envelope: Envelope = .amplitude
        /// Spacing of the frames, in seconds (default 0.01).
        public var frameInterval: Double = 0.01
        /// Length of audio each autocorrelation looks at, in seconds (default 2.5 longest periods,
        /// 0.25 s for a 10 Hz band floor).
        public var analysisDuration: Double
        /// Normalised autocorrelation an estimate must exceed to be accepted (default 0.6).
        public var acceptance: Double = 0.6
        /// Normalised autocorrelation enough to continue a track: an estimate within `consistency`
        /// of the track's period (default 0.4; 0.6 with ``Method/study``). A flutter heard once
        /// is believed on weaker evidence while it lasts and its sound has not faded.
        public var continuationAcceptance: Double = 0.4
        /// Normalised autocorrelation above which a new track found in the view searched second
        /// starts on that view alone (default 0.8; above 1, never). Below it, the view searched
        /// first must correlate at least `continuationAcceptance` at the track's period too:
        /// speech correlates by chance at 0.6-0.7 in the plain envelope (docs/real-breath.md).
        /// But a loud buzz whose harmonics stop a kHz or two up fills the plain energy with its
        /// pulses while the whitened energy, spread over the breath's broadband noise the rocker
        /// barely modulates, hears nothing; without this, whole breaths were lost
        /// (docs/real-breath.md, "A buzz the whitened view cannot hear").
        public var oneViewAcceptance: Double = 0.8
        /// How far the sound may fall below its level while the flutter was heard clearly, in dB,
        /// for the track to continue on weaker evidence or be held (default 10; off with
        /// ``Method/study``). When an exhalation ends its sound falls away: the room's
        /// reverberation still beats faintly at the period, but no flutter is left to report.
        public var fadeDrop: Double = 10
        /// Smallest modulation depth (standard deviation of the detrended energy over its level;
        /// read from the amplitude envelope, see ``AmplitudeEnvelope/relativeDepth(standardDeviation:level:)``)
        /// that can carry a flutter (default 0.1). The rocker modulates the sound it makes deeply;
        /// a faint periodic beat under a loud, unmodulated sound, such as music under a cough,
        /// is too shallow to count.
        public var minimumModulation: Double = 0.1
        /// Correlation needed near twice a period, when that lag fits in the span, for the period
        /// to stand (default 0.5; 0.3 with ``Method/study``, as before this check was raised).
        /// On the amplitude envelope 0.3 let chance peaks in plain breathing through: on the
        /// first 120 random tuning sessions 5 breaths were found in 76 exhalations without the
        /// device with 0.3, 1 with 0.4, none with 0.5, and a quiet sound before a cough made a
        /// breath in the named corpus's cough case below 0.5.
        public var secondPeakMinimum: Double = 0.5
        /// How long a track must have been heard (its frames with an accepted estimate), in
        /// seconds, before an estimate heard clearly near its period (above `acceptance`, while the
        /// sound has not faded) continues it with the weaker repetition near twice the period of
        /// `establishedSecondPeakMinimum` (default 1; 0 turns this off, as with ``Method/study``).
        /// As a breath runs out its pressure falls, and its flutter with it: 22 to 10 Hz in the
        /// last 0.3 s, a period 15 % longer each cycle, which a span compared two cycles apart no
        /// longer finds repeated as well. On the first 400 random tuning sessions a third of the
        /// flutter time without a pitch was such an end, the track held at its last period and
        /// cut by the exhalation detector.
        public var establishedTrackTime: Double = 1
        /// Correlation needed near twice the period for an estimate heard clearly to continue an
        /// established track (default 0.3; see `establishedTrackTime`). With none asked for, a
        /// span half in a breath's noise after its flutter stopped was taken 5 % off the period.
        public var establishedSecondPeakMinimum: Double = 0.3
        /// A shorter period wins over the best one when its correlation reaches this share of the
        /// best's (default 0.6; 0.8 with ``Method/study``, as before). Against half-rate reports:
        /// a flutter correlates at twice its period too, and when the breath's own fluctuation
        /// makes every other cycle stronger, better there. On the real-breath flutter frames of the
        /// first 45 random tuning sessions, the true period fell short of 0.8 of twice the period's
        /// correlation in 15 % of the frames and short of 0.6 of it in 7 %, while half the period
        /// reached 0.6 of the true one's in under 1 %.
        public var octaveShare: Double = 0.6
        /// Correlation of the audio's waveform at twice a period the envelope gave that makes the
        /// track take twice the period, when the waveform is inverted (this much below zero) at
        /// the period and repeats at no shorter fraction of twice it (default 0.5; 0 turns it off,
        /// as with ``Method/study``). A buzz close to a square wave has an envelope that repeats
        /// every half cycle; its waveform repeats only every cycle (``WaveformRepetition``).
        public var waveformRepetition: Double = 0.5
        /// Memory of ``PeriodEvidence``, the correlation per lag averaged over recent spans, in
        /// seconds (default 0.15; 0 turns it off, as with ``Method/study``). A breath's own
        /// fluctuation correlates by chance at lags that change from span to span; a flutter's
        /// period persists.
        public var evidenceTime: Double = 0.15
        /// Averaged correlation that starts a track when no single span reached `acceptance`
        /// (default 0.45).
        public var evidenceAcceptance: Double = 0.45
        /// Averaged correlation at a track's period that continues it when a single span falls
        /// short of `continuationAcceptance` (default 0.4, what a single span needs; at 0.3 the
        /// evidence, which lags the sound by its memory, carried tracks into speech before a
        /// breath in the named corpus's AirPods case).
        public var evidenceContinuation: Double = 0.4
        /// The decay rate of the run-length moving average, per estimate, one estimate every
        /// `frameInterval` (default 0.8, the study's).
        public var decayRate: Double = 0.8
        /// Longest run of agreeing estimates the moving average counts, in seconds (default 0.1,
        /// ten estimates 10 ms apart, so the old average keeps 0.8¹⁰ = 11 %).
        public var longestRunTime: Double = 0.1
        /// Share of the previous period searched either side of it (default 0.15).
        public var searchWidth: Double = 0.15
        /// Largest relative difference from the average that still counts as the same track (default 0.12).
        public var consistency: Double = 0.12
        /// How long a run of agreeing estimates must last before a pitch is reported, in seconds
        /// (default 0.1: frames 10 ms apart share most of their audio, so a shorter run would let
        /// chance correlations in noise through).
        public var reportRunTime: Double = 0.1
        /// How long a run of agreeing estimates must last before a track that is not yet reported
        /// offers its pitch to a live gauge (``Frame/provisionalPitch``), in seconds (default 0.02,
        /// two estimates; at `reportRunTime` or above, nothing is offered early, as with
        /// ``Method/study``). The stored frames and the breaths wait for the exhalation detector
        /// and so for `reportRunTime`; only a gauge needs the pitch at once, and
        /// ``SessionAnalyzer`` shows it early only at a sound's start
        /// (``SessionAnalyzer/Configuration/earlyGaugeTime``).
        public var gaugeRunTime: Double = 0.02
        /// While no flutter is tracked, the whole band is searched only every this many seconds
        /// (default 0.04); once a flutter is found, every frame is searched near its period, and
        /// at this interval its fractions are checked for octave errors. This is where the tracker
        /// saves its time in the silence and breathing between exhalations.
        public var acquisitionInterval: Double = 0.04
        /// Time without an accepted estimate during which the track holds its period and is still
        /// reported, and after which it is dropped, in seconds (default 0.3).
        public var holdDuration: Double = 0.3

        /// A configuration for a sample rate, a flutter band and a method; everything else at the
        /// method's defaults.
        public init(sampleRate: Double, lowerFrequency: Double = 10, upperFrequency: Double = 40, method: Method = .continuity) {
            self.sampleRate = sampleRate
            self.lowerFrequency = lowerFrequency
            self.upperFrequency = upperFrequency
            analysisDuration = 2.5 / lowerFrequency
            self.method = method
            if method == .study {
                highPassCutoff = 250
                whiteningTime = 0
                longestClick = 0
                envelope = .energy
                secondPeakMinimum = 0.3
                octaveShare = 0.8
                waveformRepetition = 0
                continuationAcceptance = acceptance
                gaugeRunTime = reportRunTime
                fadeDrop = 200
                holdDuration = 0
                evidenceTime = 0
                establishedTrackTime = 0
            }
        }

        /// A configuration for a sample rate, a device's flutter band and a method.
        public init(sampleRate: Double, device: DeviceProfile, method: Method = .continuity) {
            self.init(sampleRate: sampleRate, lowerFrequency: device.lowerFrequency, upperFrequency: device.upperFrequency, method: method)
        }

        /// Throws if any value is out of its range, naming the parameter, the value and the limit.
        public func validate() throws(EngineConfigurationError) {
            try require(sampleRate >= 4000 && sampleRate <= 384_000, "sampleRate", sampleRate, "between 4000 and 384000 Hz")
            try require(lowerFrequency >= 1, "lowerFrequency", lowerFrequency, "at least 1 Hz")
            try require(upperFrequency >= lowerFrequency * 1.2, "upperFrequency", upperFrequency, "at least 1.2 × lowerFrequency (\(lowerFrequency * 1.2) Hz)")
            try require(upperFrequency <= 200, "upperFrequency", upperFrequency, "at most 200 Hz")
            try require(whiteningTime == 0 || (whiteningTime >= 0.01 && whiteningTime <= 2), "whiteningTime", whiteningTime, "0 (off) or between 0.01 and 2 s")
            try require(energyRate >= upperFrequency * 10, "energyRate", energyRate, "at least 10 × upperFrequency")
            try require(analysisRate >= 2000 && analysisRate <= 48000, "analysisRate", analysisRate, "between 2000 and 48000 Hz")
            try require(energyRate <= min(sampleRate, analysisRate) / 2, "energyRate", energyRate, "at most half of min(sampleRate, analysisRate)")
            try require(highPassCutoff >= 50 && highPassCutoff <= min(sampleRate, analysisRate) / 8, "highPassCutoff", highPassCutoff, "between 50 Hz and min(sampleRate, analysisRate) / 8")
            try require(longestClick >= 0 && longestClick <= 0.02, "longestClick", longestClick, "between 0 and 0.02 s")
            try require(smoothingFraction > 0 && smoothingFraction <= 0.5, "smoothingFraction", smoothingFraction, "in (0, 0.5]")
            try require(frameInterval >= 0.001 && frameInterval <= 0.1, "frameInterval", frameInterval, "between 0.001 and 0.1 s")
            try require(analysisDuration >= 1.5 / lowerFrequency && analysisDuration <= 10 / lowerFrequency, "analysisDuration", analysisDuration, "between 1.5 and 10 longest periods")
            try require(acceptance > 0 && acceptance < 1, "acceptance", acceptance, "in (0, 1)")
            try require(continuationAcceptance > 0 && continuationAcceptance <= acceptance, "continuationAcceptance", continuationAcceptance, "in (0, acceptance (\(acceptance))]")
            try require(oneViewAcceptance > acceptance && oneViewAcceptance <= 2, "oneViewAcceptance", oneViewAcceptance, "in (acceptance (\(acceptance)), 2]")
            try require(fadeDrop >= 1 && fadeDrop <= 200, "fadeDrop", fadeDrop, "between 1 and 200 dB")
            try require(minimumModulation >= 0 && minimumModulation < 1, "minimumModulation", minimumModulation, "in [0, 1)")
            try require(secondPeakMinimum >= -1 && secondPeakMinimum <= 1, "secondPeakMinimum", secondPeakMinimum, "between -1 and 1")
            try require(octaveShare >= 0.3 && octaveShare <= 1, "octaveShare", octaveShare, "between 0.3 and 1")
            try require(waveformRepetition >= 0 && waveformRepetition < 1, "waveformRepetition", waveformRepetition, "0 (off) or in (0, 1)")
            try require(evidenceTime >= 0 && evidenceTime <= 2, "evidenceTime", evidenceTime, "between 0 and 2 s")
            try require(evidenceAcceptance > 0 && evidenceAcceptance < 1, "evidenceAcceptance", evidenceAcceptance, "in (0, 1)")
            try require(
                evidenceContinuation > 0 && evidenceContinuation <= evidenceAcceptance, "evidenceContinuation",
                evidenceContinuation, "in (0, evidenceAcceptance (\(evidenceAcceptance))]")
            try require(decayRate >= 0 && decayRate < 1, "decayRate", decayRate, "in [0, 1)")
            try require(
                longestRunTime >= frameInterval && longestRunTime <= Self.longestRunLimit, "longestRunTime", longestRunTime,
                "between frameInterval (\(frameInterval) s) and \(Self.longestRunLimit) s")
            try require(searchWidth > 0 && searchWidth <= 0.5, "searchWidth", searchWidth, "in (0, 0.5]")
            try require(consistency > 0 && consistency <= 0.5, "consistency", consistency, "in (0, 0.5]")
            try require(
                reportRunTime >= frameInterval && reportRunTime <= longestRunTime, "reportRunTime", reportRunTime,
                "between frameInterval (\(frameInterval) s) and longestRunTime (\(longestRunTime) s)")
            try require(
                gaugeRunTime >= frameInterval && gaugeRunTime <= Self.longestRunLimit, "gaugeRunTime", gaugeRunTime,
                "between frameInterval (\(frameInterval) s) and \(Self.longestRunLimit) s")
            try require(holdDuration >= 0 && holdDuration <= 1, "holdDuration", holdDuration, "between 0 and 1 s")
            try require(
                establishedTrackTime == 0 || (establishedTrackTime >= 0.1 && establishedTrackTime <= 10), "establishedTrackTime",
                establishedTrackTime, "0 (off) or between 0.1 and 10 s")
            try require(
                establishedSecondPeakMinimum >= -1 && establishedSecondPeakMinimum <= secondPeakMinimum,
                "establishedSecondPeakMinimum", establishedSecondPeakMinimum, "between -1 and secondPeakMinimum (\(secondPeakMinimum))")
            try require(acquisitionInterval >= frameInterval && acquisitionInterval <= 0.2, "acquisitionInterval", acquisitionInterval, "between frameInterval and 0.2 s")
        }
    }

    /// The envelope the autocorrelation reads.
    public enum Envelope: String, Sendable, Hashable, CaseIterable {
        /// The smoothed energy, the study's "audio energy".
        case energy
        /// Its square root (``AmplitudeEnvelope``): a click or a knock weighs 10 times its
        /// surroundings instead of 100.
        case amplitude
    }

    /// How estimates become a pitch track.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// Ours: a track, once heard, continues on weaker evidence, holds its period through
        /// short misses, is corrected at once when it sits on a multiple of the period, and is
        /// smoothed by ``PeriodSmoother``.
        case continuity
        /// The study's, faithful to its write-up: every estimate must pass the acceptance, the
        /// period is averaged by ``StudyPeriodAverage`` and the average is the pitch while its
        /// run lasts.
        case study
    }

    /// One analysis frame.
    public struct Frame: Sendable, Hashable {
        /// Centre of the audio the frame describes, in seconds from the first sample.
        public var time: Double
        /// Flutter pitch in Hz, nil when no flutter is tracked.
        public var pitch: Double?
        /// Normalised autocorrelation at the chosen period, 0-1 (0 when nothing was found).
        public var confidence: Double
        /// Mean square of the high-passed audio over the longest flutter period around `time`.
        public var energy: Double
        /// Depth of the envelope's modulation: the detrended energy's standard deviation over
        /// its level, whichever ``Envelope`` is read (of the whitened energy, see
        /// ``Configuration/whiteningTime``).
        public var modulation: Double
        /// The period evidence's strongest averaged correlation (``PeriodEvidence``, 0 when it has
        /// no peak): how much of one period persists in the envelope, pitched or not, apart from
        /// the room's own period and its multiples while that is held (``room``); nil for a
        /// tracker that keeps no evidence (``Configuration/evidenceTime`` 0, as the study's).
        public var periodEvidence: Double? = nil
        /// The periodicity the room itself had between sounds, as last heard there, if any
        /// (``RoomPeriod``).
        public var room: RoomPeriod? = nil
        /// The track's pitch in Hz where `pitch` is still nil because fewer than `reportAfter`
        /// estimates agree, but at least `gaugeAfter` do and this frame's was accepted: what a
        /// live gauge may show as a flutter starts (nil otherwise).
        public var provisionalPitch: Double? = nil
    }

    /// A period heard in the room between sounds, where no breath goes through the device: a fan
    /// or a motor that beats in the flutter band. The tracker probes the room every
    /// ``roomProbeInterval`` while its caller's gate keeps it from searching (one search of a
    /// span, its track untouched; a span is the room's when it correlates above
    /// ``roomProbeAcceptance`` and is modulated less than ``roomModulationLimit``) and holds a
    /// period once two probes in a row agree on it within `consistency`, until four in a row do
    /// not; not with ``Method/study`` (no evidence kept).
    public struct RoomPeriod: Sendable, Hashable {
        /// The room's pitch, in Hz.
        public var pitch: Double
        /// The depth of the room's modulation at that period (as ``Frame/modulation``).
        public var modulation: Double

        public init(pitch: Double, modulation: Double) {
            self.pitch = pitch
            self.modulation = modulation
        }

        /// Whether `pitch` (Hz) lies within `consistency` (a share of the room's pitch) of it.
        public func holds(_ pitch: Double, consistency: Double) -> Bool {
            abs(pitch - self.pitch) <= consistency * self.pitch
        }
    }

    /// How often the room is probed for a period of its own between sounds, in seconds.
    public static let roomProbeInterval = 0.5
    /// Probes in a row that must agree for the room's period to be held (0.5 s of it). A fan
    /// beating 12 % deep under a room's noise correlates 0.2-0.8 from span to span, so four in a
    /// row above the tracker's `acceptance` came seldom: on 12 simulated sessions breathed beside
    /// a fan without the device, the room was not held when 21 of their breaths were found
    /// (docs/real-breath.md, "A fan the room probes hear now and then").
    static let roomProbesToHold = 2
    /// Probes in a row that must miss the room's period for it to be dropped (2 s of it).
    static let roomProbesToDrop = 4
    /// The correlation a single probe's span must exceed to be the room's period (the default
    /// `evidenceAcceptance`, under the default `acceptance` of 0.6 that a new track needs).
    public static let roomProbeAcceptance = 0.45
    /// The modulation depth (as ``Frame/modulation``) from which a probe's span is a sound's
    /// own flutter rising under the gate rather than the room's: a device near the phone
    /// modulates its sound 0.4-1, while a fan's probes in the simulated sessions above were
    /// modulated 0.13-0.21 (10th-90th percentile of 232, at most 0.51); half a second before a
    /// breath, its flutter under the gate gave probes of 0.6 and 1.5, and with them the room held
    /// the device's own rate. 0.3-0.5 gave the same breaths there; 0.5 still holds as the room a
    /// fan modulated 0.42 (the fan of SessionAnalyzerTests), which 0.4 took for a device.
    public static let roomModulationLimit = 0.5

    /// The configuration the tracker was set up with.
    public let configuration: Configuration
    /// Audio samples per energy sample.
    public let blockLength: Int
    /// Rate of the energy signal in Hz (`sampleRate / blockLength`).
    public let energyRate: Double
    /// Actual spacing of the frames in seconds (a whole number of energy samples).
    public let frameInterval: Double
    /// How far the newest frame's time lies behind the newest input sample, in seconds.
    public let latency: Double

    /// The share of a white noise's power at the input that reaches a frame's ``Frame/energy``.
    public var whiteNoiseGain: Double { frontEnd.whiteNoiseGain }

    private var frontEnd: AudioEnergyFrontEnd
    /// The whitened energy of a slice, then the envelope made of it.
    private var energies: [Float]
    /// The plain energy of a slice, then the envelope made of it.
    private var plainEnergies: [Float]
    /// The waveform of a slice (``AudioEnergyFrontEnd``).
    private var waveforms: [Float]
    /// The most input samples turned into energies at once, in samples: chunks up to it (a 100 ms
    /// chunk at 48 kHz, 4,800 samples) stay whole, where 4,096 split each into a second, short
    /// slice with its own pass through every stage.
    private static let sliceLength = 8192
    /// The plain energy's view, whose level is the sound's level.
    private var plain: EnvelopeView
    /// The whitened energy's view, searched first when there is one.
    private var whitened: EnvelopeView
    /// Whether there is a whitened view.
    private let searchesBoth: Bool
    /// Whether the track was last heard in the plain view, which is then searched first (without
    /// a track, the whitened view is, when there is one).
    private var trackOnPlain = false
    private var search: PeriodSearch
    private var evidence: PeriodEvidence
    /// The octave of a buzz; nil when `waveformRepetition` is 0.
    private var waveform: WaveformRepetition?
    /// The evidence's strongest averaged correlation since its last update.
    private var evidenceStrength = 0.0
    /// ``Frame/periodEvidence``: the strength, when the evidence is kept.
    private var periodEvidence: Double? { configuration.evidenceTime > 0 ? evidenceStrength : nil }
    private var periods: PeriodSmoother
    private var studyPeriods: StudyPeriodAverage
    private let spanLength: Int
    private let hop: Int
    private let acquisitionFrames: Int
    /// Agreeing estimates after which a track not yet reported is offered to a live gauge.
    private let gaugeRunLength: Int
    /// The energy, relative to the track's, below which the sound counts as faded.
    private let fadeRatio: Double
    /// The mean energy of the frames in which the track was heard clearly.
    private var trackLevel = 0.0
    /// Frames of the track with an accepted estimate, and how many make it established (nil: never).
    private var trackHeardFrames = 0
    private let establishedFrames: Int?
    private var frameCount = 0
    private var energyCount = 0
    private var untilFrame: Int
    private var previousPeriod: Double?
    private let periodLimits: ClosedRange<Double>
    /// Frames between two probes of the room (a multiple of `acquisitionFrames`).
    private let roomProbeFrames: Int
    /// The mean of the probes in a row that agreed on a period, and how many they were.
    private var roomStreak: RoomPeriod?
    private var roomStreakCount = 0
    /// Probes in a row that did not find the room's period.
    private var missedRoomProbes = 0
    private var room: RoomPeriod?

    /// Lowest rate, in Hz, at which ``PeriodEvidence`` reads the envelope (every third sample at
    /// 980 Hz).
    static let evidenceRate = 300.0

    /// Periods up to 4 % beyond the band are still tracked, so a flutter right at a band edge is
    /// not lost to estimation noise.
    static let bandMargin = 1.04

    /// Sets the tracker up, allocating everything it will need.
    public init(configuration: Configuration) throws(EngineConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        let fs = configuration.sampleRate
        frontEnd = AudioEnergyFrontEnd(
            sampleRate: fs, highPassCutoff: configuration.highPassCutoff, energyRate: configuration.energyRate,
            analysisRate: configuration.analysisRate, whiteningTime: configuration.whiteningTime,
            waveformRate: configuration.waveformRepetition > 0 ? WaveformRepetition.rate : nil)
        blockLength = frontEnd.blockLength
        let maximumBlock = frontEnd.capacity(for: Self.sliceLength)
        energies = [Float](repeating: 0, count: maximumBlock)
        plainEnergies = energies
        waveforms = [Float](repeating: 0, count: maximumBlock * frontEnd.waveformParts)
        let fe = fs / Double(blockLength)
        energyRate = fe
        hop = max(1, Int((configuration.frameInterval * fe).rounded()))
        untilFrame = hop
        let interval = Double(hop) / fe
        frameInterval = interval
        /// A run of estimates lasting `time`: one estimate each frame.
        func estimates(_ time: Double) -> Int { max(1, Int((time / interval).rounded())) }
        acquisitionFrames = max(1, Int((configuration.acquisitionInterval / frameInterval).rounded()))
        fadeRatio = 1 / power(10, configuration.fadeDrop / 10)
        establishedFrames = configuration.establishedTrackTime > 0
            ? Int((configuration.establishedTrackTime / frameInterval).rounded()) : nil
        let shortestPeriod = fe / (configuration.upperFrequency * Self.bandMargin)
        let longestPeriod = fe * Self.bandMargin / configuration.lowerFrequency
        let shortest = Int(shortestPeriod.rounded(.down)) - 1
        let longest = Int(longestPeriod.rounded(.up)) + 1
        spanLength = max(longest + longest / 2, Int((configuration.analysisDuration * fe).rounded()))
        let view = { [spanLength] in
            EnvelopeView(
                envelope: configuration.envelope,
                clicks: ClickSuppressor(
                    sampleRate: fe, longestClick: configuration.longestClick,
                    recurrence: Self.bandMargin / configuration.lowerFrequency, maximumBlock: maximumBlock),
                sigma: configuration.smoothingFraction * fe / configuration.upperFrequency,
                detrendHalfLength: Int((fe / configuration.lowerFrequency / 2).rounded()), spanLength: spanLength,
                maximumBlock: maximumBlock)
        }
        plain = view()
        whitened = view()
        searchesBoth = frontEnd.whitens
        let minimumOverlap = Int((fe / configuration.upperFrequency).rounded(.up)) * 2
        search = PeriodSearch(
            spanLength: spanLength, lagRange: max(2, shortest)...longest, searchWidth: configuration.searchWidth,
            octaveShare: configuration.octaveShare, minimumOverlap: minimumOverlap,
            secondPeakMinimum: configuration.secondPeakMinimum)
        evidence = PeriodEvidence(
            periods: max(2, shortest)...longest, spanLength: spanLength,
            step: Int(fe / Self.evidenceRate), interval: Double(acquisitionFrames) * frameInterval,
            timeConstant: configuration.evidenceTime, octaveShare: configuration.octaveShare)
        waveform = configuration.waveformRepetition > 0
            ? WaveformRepetition(
                minimum: configuration.waveformRepetition, sampleRate: fe * Double(frontEnd.waveformParts),
                parts: frontEnd.waveformParts, spanLength: spanLength, delay: plain.delay,
                checkInterval: Double(acquisitionFrames) * frameInterval, tolerance: configuration.consistency)
            : nil
        studyPeriods = StudyPeriodAverage(decayRate: configuration.decayRate)
        periods = PeriodSmoother(settings: .init(
            decayRate: configuration.decayRate, maxRunLength: estimates(configuration.longestRunTime),
            tolerance: configuration.consistency, reacquireCount: 3,
            dropCount: max(1, Int((configuration.holdDuration / frameInterval).rounded()) + 1),
            reportRunLength: estimates(configuration.reportRunTime)))
        gaugeRunLength = estimates(configuration.gaugeRunTime)
        periodLimits = shortestPeriod...longestPeriod
        roomProbeFrames = acquisitionFrames * max(1, Int((Self.roomProbeInterval / (Double(acquisitionFrames) * frameInterval)).rounded()))
        let centreDelay = Double(plain.delay) + Double(spanLength - 1) / 2
        latency = (centreDelay * Double(blockLength) + Double(blockLength - 1) / 2 + frontEnd.delay) / fs
    }

    /// Clears all state, as if newly set up.
    public mutating func reset() {
        frontEnd.reset()
        plain.reset()
        whitened.reset()
        evidence.reset()
        waveform?.reset()
        evidenceStrength = 0
        periods.reset()
        studyPeriods.reset()
        energyCount = 0
        untilFrame = hop
        frameCount = 0
        previousPeriod = nil
        trackLevel = 0
        trackHeardFrames = 0
        trackOnPlain = false
        roomStreak = nil
        roomStreakCount = 0
        missedRoomProbes = 0
        room = nil
    }

    /// Processes a chunk of mono samples, calling `onFrame` for every frame it completes.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>, onFrame: (Frame) -> Void) {
        process(samples, analysingWhen: { _ in true }, onFrame: onFrame)
    }

    /// Processes a chunk, searching a frame for flutter only when `gate` allows it for the frame's
    /// energy (the mean square of ``Frame/energy``). A frame the gate refuses counts as a miss; a
    /// caller that knows the room's noise floor uses this to skip the search in silence, as the
    /// study's application design suggests (seed 000 section 1).
    public mutating func process(
        _ samples: UnsafeBufferPointer<Float>, analysingWhen gate: (Double) -> Bool, onFrame: (Frame) -> Void
    ) {
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + Self.sliceLength)
            let count = envelope(of: UnsafeBufferPointer(rebasing: samples[start..<end]))
            var offset = 0
            while count - offset >= untilFrame {
                appendToRings(from: offset, count: untilFrame)
                offset += untilFrame
                untilFrame = hop
                if let frame = frame(newest: energyCount - 1, gate: gate) { onFrame(frame) }
            }
            appendToRings(from: offset, count: count - offset)
            untilFrame -= count - offset
            start = end
        }
    }

    /// Turns a slice of audio into the views' detrended envelopes and levels; returns how many
    /// energy samples it made.
    private mutating func envelope(of slice: UnsafeBufferPointer<Float>) -> Int {
        var whitenedBuffer: [Float] = [], plainBuffer: [Float] = [], waveformBuffer: [Float] = []
        swap(&whitenedBuffer, &energies)
        swap(&plainBuffer, &plainEnergies)
        swap(&waveformBuffer, &waveforms)
        defer {
            swap(&whitenedBuffer, &energies)
            swap(&plainBuffer, &plainEnergies)
            swap(&waveformBuffer, &waveforms)
        }
        return whitenedBuffer.withUnsafeMutableBufferPointer { whitenedEnergies -> Int in
            plainBuffer.withUnsafeMutableBufferPointer { plainEnergies -> Int in
                waveformBuffer.withUnsafeMutableBufferPointer { waveforms -> Int in
                    guard let energy = whitenedEnergies.baseAddress, let plainEnergy = plainEnergies.baseAddress,
                        let waveform = waveforms.baseAddress
                    else { return 0 }
                    let count = frontEnd.process(slice, into: plainEnergy, whitened: energy, waveform: waveform)
                    plain.process(plainEnergy, count: count)
                    if searchesBoth { whitened.process(energy, count: count) }
                    return count
                }
            }
        }
    }

    /// Appends `count` envelope samples from `offset` in the slice and their levels to the views'
    /// rings. A frame is analysed when the rings end at its newest sample, so what it reads does
    /// not depend on how the audio was split.
    private mutating func appendToRings(from offset: Int, count: Int) {
        let first = energyCount
        energyCount += count
        plainEnergies.withUnsafeBufferPointer { plain.append($0.baseAddress!, from: offset, count: count, at: first) }
        waveforms.withUnsafeBufferPointer { waveform?.append($0.baseAddress!, from: offset, count: count, at: first) }
        guard searchesBoth else { return }
        energies.withUnsafeBufferPointer { whitened.append($0.baseAddress!, from: offset, count: count, at: first) }
    }

    /// Processes a chunk of mono samples, calling `onFrame` for every frame it completes.
    public mutating func process(_ samples: [Float], onFrame: (Frame) -> Void) {
        samples.withUnsafeBufferPointer { process($0, onFrame: onFrame) }
    }

    private mutating func frame(newest index: Int, gate: (Double) -> Bool) -> Frame? {
        let centre = Double(index - plain.delay) - Double(spanLength - 1) / 2
        let time = (centre * Double(blockLength) + Double(blockLength - 1) / 2 - frontEnd.delay) / configuration.sampleRate
        guard time >= 0 else { return nil }
        return analyse(newest: index, time: time, gate: gate)
    }

    /// Takes this frame's accepted period (nil for none) into the track; returns the period to
    /// report.
    private mutating func smooth(_ period: Double?) -> Double? {
        switch configuration.method {
        case .continuity:
            if let period, let previous = previousPeriod, period < previous * (1 - configuration.searchWidth) {
                periods.restart(at: period)
            }
            let smoothed = periods.update(accepted: period)
            previousPeriod = periods.average
            return smoothed
        case .study:
            let smoothed = studyPeriods.update(accepted: period)
            previousPeriod = studyPeriods.average
            return smoothed
        }
    }

    /// Ends the track at once.
    private mutating func drop() {
        periods.reset()
        studyPeriods.reset()
        previousPeriod = nil
        trackLevel = 0
    }

    /// The correlation an estimate at `period` must exceed: the full acceptance for a new track,
    /// or when the sound has faded; less to continue the track at its own period.
    private func threshold(for period: Double, faded: Bool) -> Double {
        guard !faded, let previous = previousPeriod, abs(period - previous) <= configuration.consistency * previous else {
            return configuration.acceptance
        }
        return configuration.continuationAcceptance
    }

    /// The modulation depth of a span whose `envelope` has `variance`, at the energy `level`.
    private static func depth(_ variance: Double, _ level: Double, envelope: Envelope) -> Double {
        switch envelope {
        case .energy: level > 0 ? variance.squareRoot() / level : 0
        case .amplitude: AmplitudeEnvelope.relativeDepth(standardDeviation: variance.squareRoot(), level: level)
        }
    }

    private mutating func analyse(newest: Int, time: Double, gate: (Double) -> Bool) -> Frame {
        let centre = newest - (spanLength - 1) / 2
        let level = plain.level(at: centre)
        let index = frameCount
        frameCount += 1
        let checkFractions = index % acquisitionFrames == 0
        let updatesEvidence = checkFractions && configuration.evidenceTime > 0
        guard (previousPeriod != nil || checkFractions) && gate(level) else {
            if updatesEvidence {
                evidence.decay()
                evidenceStrength = strengthApartFromRoom(proposal: nil)
            }
            _ = smooth(nil)
            if checkFractions, previousPeriod == nil, configuration.evidenceTime > 0, index % roomProbeFrames == 0 {
                probeRoom(newest: newest)
            }
            return Frame(time: time, pitch: nil, confidence: 0, energy: level, modulation: 0, periodEvidence: periodEvidence, room: room)
        }
        let faded = previousPeriod != nil && level < trackLevel * fadeRatio
        if previousPeriod == nil { trackOnPlain = !searchesBoth }
        var onPlain = trackOnPlain
        var heard = hear(
            onPlain: onPlain, newest: newest, checkFractions: checkFractions, updatesEvidence: updatesEvidence, onlyNear: false)
        if updatesEvidence {
            evidenceStrength = strengthApartFromRoom(proposal: heard.proposal?.evidence.correlation)
        }
        var candidate = decide(heard.found, proposal: heard.proposal, faded: faded)
        if candidate == nil, searchesBoth, checkFractions {
            let second = hear(onPlain: !onPlain, newest: newest, checkFractions: checkFractions, updatesEvidence: false, onlyNear: true)
            if let found = decide(second.found, proposal: nil, faded: faded),
                previousPeriod != nil || found.period.correlation > configuration.oneViewAcceptance
                    || correlation(onPlain: onPlain, newest: newest, at: found.period.period) >= configuration.continuationAcceptance {
                candidate = found
                heard = second
                onPlain.toggle()
            }
        }
        if waveform != nil, let period = waveform?.period(
            for: candidate?.period.period, endingAt: newest, longest: periodLimits.upperBound, checks: checkFractions) {
            candidate?.period.period = period
        }
        if candidate != nil { trackOnPlain = onPlain }
        if let candidate, candidate.strong {
            trackLevel = previousPeriod == nil || trackLevel == 0 ? level : trackLevel + 0.1 * (level - trackLevel)
        } else if faded, candidate == nil {
            drop()
        }
        let smoothed = smooth(candidate?.period.period)
        trackHeardFrames = previousPeriod == nil ? 0 : trackHeardFrames + (candidate == nil ? 0 : 1)
        let provisional = smoothed == nil && candidate != nil && periods.runLength >= gaugeRunLength
            ? periods.average.map { energyRate / $0 } : nil
        return Frame(
            time: time,
            pitch: smoothed.map { energyRate / $0 },
            confidence: max(0, min(1, candidate?.period.correlation ?? 0)),
            energy: level, modulation: heard.modulation, periodEvidence: periodEvidence, room: room,
            provisionalPitch: provisional)
    }

    /// ``Frame/periodEvidence``: the evidence's strongest averaged correlation (the proposal's,
    /// when it made one), or, while the room's own period is held, the strongest at any other
    /// period than the room's and its multiples: a fan beating in the band is no sign of a
    /// device, and a breath without the device beside it is to be told so (``SignalCheck``).
    private func strengthApartFromRoom(proposal: Double?) -> Double {
        guard let room else { return proposal ?? evidence.strongest()?.correlation ?? 0 }
        return evidence.strongest(apartFrom: energyRate / room.pitch, consistency: configuration.consistency)?.correlation ?? 0
    }

    /// Searches the span ending at `newest` for a period of the room's own (the view a new track
    /// is searched in first, then the other), as a single span is accepted, and updates ``room``.
    private mutating func probeRoom(newest: Int) {
        var found = roomPeriod(onPlain: !searchesBoth, newest: newest)
        if found == nil, searchesBoth { found = roomPeriod(onPlain: true, newest: newest) }
        func agrees(_ period: RoomPeriod?) -> Bool {
            guard let found, let period else { return false }
            return period.holds(found.pitch, consistency: configuration.consistency)
        }
        if let found, var streak = roomStreak, agrees(streak) {
            roomStreakCount += 1
            let weight = 1 / Double(roomStreakCount)
            streak.pitch += weight * (found.pitch - streak.pitch)
            streak.modulation += weight * (found.modulation - streak.modulation)
            roomStreak = streak
        } else {
            roomStreak = found
            roomStreakCount = found == nil ? 0 : 1
        }
        if roomStreakCount >= Self.roomProbesToHold {
            room = roomStreak
            missedRoomProbes = 0
        } else if agrees(room) {
            missedRoomProbes = 0
        } else {
            missedRoomProbes += 1
            if missedRoomProbes >= Self.roomProbesToDrop { room = nil }
        }
    }

    /// The period one view's span ending at `newest` holds, if it stands alone, correlates above
    /// ``roomProbeAcceptance`` and is modulated less than ``roomModulationLimit``.
    private mutating func roomPeriod(onPlain: Bool, newest: Int) -> RoomPeriod? {
        let heard = hear(onPlain: onPlain, newest: newest, checkFractions: true, updatesEvidence: false, onlyNear: false)
        guard let period = heard.found, standsAlone(period), period.correlation > Self.roomProbeAcceptance,
            heard.modulation < Self.roomModulationLimit
        else { return nil }
        return RoomPeriod(pitch: energyRate / period.period, modulation: heard.modulation)
    }

    /// ``listen(to:newest:spanLength:previous:checkFractions:updatesEvidence:configuration:search:evidence:)``
    /// on the plain view or the whitened one.
    private mutating func hear(onPlain: Bool, newest: Int, checkFractions: Bool, updatesEvidence: Bool, onlyNear: Bool) -> Hearing {
        onPlain
            ? Self.listen(
                to: plain, newest: newest, spanLength: spanLength, previous: previousPeriod, checkFractions: checkFractions,
                updatesEvidence: updatesEvidence, onlyNear: onlyNear, configuration: configuration, search: &search,
                evidence: &evidence)
            : Self.listen(
                to: whitened, newest: newest, spanLength: spanLength, previous: previousPeriod, checkFractions: checkFractions,
                updatesEvidence: updatesEvidence, onlyNear: onlyNear, configuration: configuration, search: &search,
                evidence: &evidence)
    }

    /// The correlation of the plain or the whitened view's span ending at `newest` at the lag
    /// nearest `period`.
    private func correlation(onPlain: Bool, newest: Int, at period: Double) -> Double {
        let lag = Int(period.rounded())
        var value = -1.0
        (onPlain ? plain : whitened).withSpan(endingAt: newest, length: spanLength) { value = search.correlation(of: $0, at: lag) }
        return value
    }

    /// What a view's span holds: the period found, the evidence's proposal (see
    /// ``decide(_:proposal:faded:)``), and the span's modulation depth.
    private typealias Hearing = (
        found: PeriodCandidate?, proposal: (evidence: PeriodCandidate, spanCorrelation: Double)?, modulation: Double
    )

    /// Searches the span of `view` ending at energy sample `newest`, near `previous` when there is
    /// a track (and only there with `onlyNear`); with `updatesEvidence` the span joins `evidence`
    /// first. Static, so that the view is read where it is while the search and the evidence change.
    private static func listen(
        to view: borrowing EnvelopeView, newest: Int, spanLength: Int, previous: Double?, checkFractions: Bool,
        updatesEvidence: Bool, onlyNear: Bool, configuration: Configuration, search: inout PeriodSearch,
        evidence: inout PeriodEvidence
    ) -> Hearing {
        let level = view.level(at: newest - (spanLength - 1) / 2)
        var hearing: Hearing = (nil, nil, 0)
        view.withSpan(endingAt: newest, length: spanLength) { span in
            let variance = search.variance(of: span)
            hearing.modulation = depth(variance, level, envelope: configuration.envelope)
            guard variance > 0, hearing.modulation >= configuration.minimumModulation else {
                if updatesEvidence { evidence.decay() }
                return
            }
            hearing.found = search.search(span, near: previous, checkFractions: checkFractions, onlyNear: onlyNear)
            guard updatesEvidence else { return }
            evidence.update(span: span.samples)
            guard previous == nil, let strongest = evidence.strongest() else { return }
            hearing.proposal = (strongest, search.correlation(span, at: Int(strongest.period.rounded())))
        }
        return hearing
    }

    /// Whether a period found in a span lies inside the band (with its margin) and, where twice
    /// the period fits in the span, correlates at least `minimum` there.
    private func repeated(_ found: PeriodCandidate, atLeast minimum: Double) -> Bool {
        periodLimits.contains(found.period) && (found.secondPeak ?? .infinity) >= minimum
    }

    /// Whether a period found in a span may stand without a track: repeated as
    /// `secondPeakMinimum` asks.
    private func standsAlone(_ found: PeriodCandidate) -> Bool {
        repeated(found, atLeast: configuration.secondPeakMinimum)
    }

    /// Whether a period found in a span may stand: on its own (``standsAlone(_:)``), or repeated
    /// as `establishedSecondPeakMinimum` asks when it continues an established track.
    private func stands(_ found: PeriodCandidate, faded: Bool) -> Bool {
        standsAlone(found)
            || (repeated(found, atLeast: configuration.establishedSecondPeakMinimum) && continuesEstablishedTrack(found, faded: faded))
    }

    /// Whether `found` was heard clearly near the period of a track heard for
    /// `establishedTrackTime`, in a sound that has not faded (see
    /// ``Configuration/establishedTrackTime``).
    private func continuesEstablishedTrack(_ found: PeriodCandidate, faded: Bool) -> Bool {
        guard let establishedFrames, trackHeardFrames >= establishedFrames, !faded,
            found.correlation > configuration.acceptance, let previous = previousPeriod
        else { return false }
        return abs(found.period - previous) <= configuration.consistency * previous
    }

    /// The frame's accepted period, if any, and whether it was heard clearly (a new track's
    /// evidence, or a single span above the full acceptance). `proposal` is the evidence's
    /// strongest period when it was updated without a track, with this span's own correlation at
    /// it.
    private func decide(
        _ found: PeriodCandidate?, proposal: (evidence: PeriodCandidate, spanCorrelation: Double)?, faded: Bool
    ) -> (period: PeriodCandidate, strong: Bool)? {
        if let found, stands(found, faded: faded) {
            if found.correlation > threshold(for: found.period, faded: faded) {
                return (found, found.correlation > configuration.acceptance)
            }
            if configuration.evidenceTime > 0, !faded, let previous = previousPeriod,
                abs(found.period - previous) <= configuration.consistency * previous,
                evidence.value(at: found.period) > configuration.evidenceContinuation {
                return (found, false)
            }
        }
        guard let proposal, proposal.evidence.correlation > configuration.evidenceAcceptance,
            proposal.spanCorrelation > configuration.continuationAcceptance, periodLimits.contains(proposal.evidence.period)
        else { return nil }
        return (proposal.evidence, true)
    }
}

// JSON lives in the outer modules; Embedded Swift has no Codable.
#if !hasFeature(Embedded)
extension FlutterPitchTracker.Configuration: Codable {
    /// Decodes stored settings tolerantly: a parameter missing from them (stored before it
    /// existed) takes the method's default, and keys this release does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let standard = Self(sampleRate: try c.decode(Double.self, forKey: .sampleRate))
        self.init(
            sampleRate: standard.sampleRate,
            lowerFrequency: try c.decodeIfPresent(Double.self, forKey: .lowerFrequency) ?? standard.lowerFrequency,
            upperFrequency: try c.decodeIfPresent(Double.self, forKey: .upperFrequency) ?? standard.upperFrequency,
            method: try c.decodeIfPresent(FlutterPitchTracker.Method.self, forKey: .method) ?? standard.method)
        try c.update(&highPassCutoff, from: .highPassCutoff)
        try c.update(&whiteningTime, from: .whiteningTime)
        try c.update(&energyRate, from: .energyRate)
        try c.update(&analysisRate, from: .analysisRate)
        try c.update(&longestClick, from: .longestClick)
        try c.update(&smoothingFraction, from: .smoothingFraction)
        try c.update(&envelope, from: .envelope)
        try c.update(&frameInterval, from: .frameInterval)
        try c.update(&analysisDuration, from: .analysisDuration)
        try c.update(&acceptance, from: .acceptance)
        try c.update(&continuationAcceptance, from: .continuationAcceptance)
        try c.update(&oneViewAcceptance, from: .oneViewAcceptance)
        try c.update(&fadeDrop, from: .fadeDrop)
        try c.update(&minimumModulation, from: .minimumModulation)
        try c.update(&secondPeakMinimum, from: .secondPeakMinimum)
        try c.update(&octaveShare, from: .octaveShare)
        try c.update(&waveformRepetition, from: .waveformRepetition)
        try c.update(&evidenceTime, from: .evidenceTime)
        try c.update(&evidenceAcceptance, from: .evidenceAcceptance)
        try c.update(&evidenceContinuation, from: .evidenceContinuation)
        try c.update(&decayRate, from: .decayRate)
        try c.update(&searchWidth, from: .searchWidth)
        try c.update(&consistency, from: .consistency)
        let counted = try decoder.container(keyedBy: FrameCountKeys.self)
        try c.update(&longestRunTime, from: .longestRunTime, orFrames: counted, .maxRunLength, every: frameInterval)
        try c.update(&reportRunTime, from: .reportRunTime, orFrames: counted, .reportAfter, every: frameInterval)
        try c.update(&gaugeRunTime, from: .gaugeRunTime, orFrames: counted, .gaugeAfter, every: frameInterval)
        try c.update(&acquisitionInterval, from: .acquisitionInterval)
        try c.update(&holdDuration, from: .holdDuration)
        try c.update(&establishedTrackTime, from: .establishedTrackTime)
        try c.update(&establishedSecondPeakMinimum, from: .establishedSecondPeakMinimum)
    }
}

extension FlutterPitchTracker.Configuration {
    /// The keys under which settings stored before 2026-11-29 (analysis documents of schema
    /// version 1 and the history's stored configurations) counted three runs in frames instead of
    /// seconds: `maxRunLength` (now `longestRunTime`), `reportAfter` (`reportRunTime`) and
    /// `gaugeAfter` (`gaugeRunTime`). Each is read as that many frames of the stored
    /// `frameInterval` when its successor is absent.
    public enum FrameCountKeys: String, CodingKey, CaseIterable {
        case maxRunLength, reportAfter, gaugeAfter
    }
}

extension KeyedDecodingContainer {
    /// Replaces `value` with the seconds stored under `key`, or else with the frame count stored
    /// under the former key `frames`, converted at `interval` seconds a frame.
    fileprivate func update<Former: CodingKey>(
        _ value: inout Double, from key: Key, orFrames former: KeyedDecodingContainer<Former>, _ frames: Former,
        every interval: Double
    ) throws {
        if let seconds = try decodeIfPresent(Double.self, forKey: key) {
            value = seconds
        } else if let count = try former.decodeIfPresent(Int.self, forKey: frames) {
            value = Double(count) * interval
        }
    }
}

extension FlutterPitchTracker.Method: Codable {}
extension FlutterPitchTracker.Envelope: Codable {}
#endif
