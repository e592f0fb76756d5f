// The analysis document of `opep analyze --format json` (SessionAnalysis in OPEPHistory), built
// for the page: `{schema_version, settings, summary, breaths, sets, events}` with the same keys, which the native
// Codable conformances of OPEPKit define. WebEngineTests compare the two byte for byte.

/// What the page knows about the input besides the samples.
struct AnalysisSource {
    /// The recording's name, or a name for a live session.
    var file = "live"
    /// What the input was, e.g. "WAV 16-bit integer, 1 channel, 44100 Hz".
    var format = "live microphone, 32-bit float"
    /// When the session started (ISO 8601, UTC), for a live session; nil for a recording.
    var recordedAt: String?
}

enum AnalysisJSON {
    static func document(
        source: AnalysisSource, configuration: SessionAnalyzer.Configuration, frameInterval: Double, latency: Double,
        report: SessionReport, events: [SessionEvent]
    ) -> JSONValue {
        .object([
            ("schema_version", .integer(AnalysisDocumentSchema.version)),
            ("settings", settings(source, configuration, frameInterval: frameInterval, latency: latency)),
            ("summary", summary(report.summary)),
            ("breaths", .array(report.breaths.map(breath))),
            ("sets", .array(report.sets.map(therapySet))),
            ("events", .array(events.map(event))),
        ])
    }

    static func settings(
        _ source: AnalysisSource, _ c: SessionAnalyzer.Configuration, frameInterval: Double, latency: Double
    ) -> JSONValue {
        .members([
            ("file", .string(source.file)),
            ("format", .string(source.format)),
            ("recorded_at", source.recordedAt.map { .string($0) }),
            ("sample_rate", .number(c.sampleRate)),
            ("device", device(c.device)),
            ("target", .object([("lower_cmh2o", .number(c.target.lowerCmH2O)), ("upper_cmh2o", .number(c.target.upperCmH2O))])),
            ("frame_interval_s", .number(frameInterval)),
            ("latency_s", .number(latency)),
            ("noise_floor_db", .value(c.detector.noiseFloorDB)),
            ("set_pause_s", .number(c.setPause)),
            ("huff_set_pause_s", .number(c.huffSetPause)),
            ("inhalation_lead_s", .number(c.inhalationLead)),
            ("pitch_average_s", .number(c.pitchAverageTime)),
            ("tracker", tracker(c.tracker)),
            ("detector", detector(c.detector)),
            ("signal", signal(c.signal)),
            ("warnings", .array([])),
        ])
    }

    static func device(_ d: DeviceProfile) -> JSONValue {
        .object([
            ("name", .string(d.name)),
            ("lower_frequency_hz", .number(d.lowerFrequency)),
            ("upper_frequency_hz", .number(d.upperFrequency)),
            ("intercept_cmh2o", .number(d.interceptCmH2O)),
            ("slope_cmh2o_per_hz", .number(d.slopeCmH2OPerHz)),
        ])
    }

    static func tracker(_ t: FlutterPitchTracker.Configuration) -> JSONValue {
        .object([
            ("method", .string(t.method.rawValue)),
            ("sample_rate", .number(t.sampleRate)),
            ("lower_frequency", .number(t.lowerFrequency)),
            ("upper_frequency", .number(t.upperFrequency)),
            ("high_pass_cutoff", .number(t.highPassCutoff)),
            ("whitening_time", .number(t.whiteningTime)),
            ("energy_rate", .number(t.energyRate)),
            ("analysis_rate", .number(t.analysisRate)),
            ("longest_click", .number(t.longestClick)),
            ("smoothing_fraction", .number(t.smoothingFraction)),
            ("envelope", .string(t.envelope.rawValue)),
            ("frame_interval", .number(t.frameInterval)),
            ("analysis_duration", .number(t.analysisDuration)),
            ("acceptance", .number(t.acceptance)),
            ("continuation_acceptance", .number(t.continuationAcceptance)),
            ("one_view_acceptance", .number(t.oneViewAcceptance)),
            ("fade_drop", .number(t.fadeDrop)),
            ("minimum_modulation", .number(t.minimumModulation)),
            ("second_peak_minimum", .number(t.secondPeakMinimum)),
            ("octave_share", .number(t.octaveShare)),
            ("waveform_repetition", .number(t.waveformRepetition)),
            ("evidence_time", .number(t.evidenceTime)),
            ("evidence_acceptance", .number(t.evidenceAcceptance)),
            ("evidence_continuation", .number(t.evidenceContinuation)),
            ("decay_rate", .number(t.decayRate)),
            ("longest_run_time", .number(t.longestRunTime)),
            ("search_width", .number(t.searchWidth)),
            ("consistency", .number(t.consistency)),
            ("report_run_time", .number(t.reportRunTime)),
            ("gauge_run_time", .number(t.gaugeRunTime)),
            ("acquisition_interval", .number(t.acquisitionInterval)),
            ("hold_duration", .number(t.holdDuration)),
            ("established_track_time", .number(t.establishedTrackTime)),
            ("established_second_peak_minimum", .number(t.establishedSecondPeakMinimum)),
        ])
    }

    static func detector(_ d: ExhalationDetector.Configuration) -> JSONValue {
        .members([
            ("on_margin_db", .number(d.onMarginDB)),
            ("off_margin_db", .number(d.offMarginDB)),
            ("noise_floor_db", .value(d.noiseFloorDB)),
            ("floor_percentile", .number(d.floorPercentile)),
            ("floor_window", .number(d.floorWindow)),
            ("absolute_floor_db", .number(d.absoluteFloorDB)),
            ("confirm_duration", .number(d.confirmDuration)),
            ("minimum_duration", .number(d.minimumDuration)),
            ("onset_allowance", .number(d.onsetAllowance)),
            ("maximum_confirm_delay", .number(d.maximumConfirmDelay)),
            ("release_drop_db", .number(d.releaseDropDB)),
            ("hangover", .number(d.hangover)),
            ("flutter_gap", .number(d.flutterGap)),
            ("minimum_breath", .number(d.minimumBreath)),
            ("minimum_heard_share", .number(d.minimumHeardShare)),
            ("first_heard_share", .number(d.firstHeardShare)),
            ("sounds_without_device", .number(Double(d.soundsWithoutDevice))),
            ("long_sound", .number(d.longSound)),
            ("clear_first_heard_share", .number(d.clearFirstHeardShare)),
            ("doubtful_first_wait", .number(d.doubtfulFirstWait)),
            ("slow_flutter_frequency", .number(d.slowFlutterFrequency)),
            ("slow_flutter_correlation", .number(d.slowFlutterCorrelation)),
            ("huff_durations", .array([.number(d.huffDurations.lowerBound), .number(d.huffDurations.upperBound)])),
            ("huff_margin_db", .number(d.huffMarginDB)),
            ("huff_below_exhalation_db", .number(d.huffBelowExhalationDB)),
            ("huff_stretch_db", .number(d.huffStretchDB)),
            ("inhalation_durations", .array([.number(d.inhalationDurations.lowerBound), .number(d.inhalationDurations.upperBound)])),
        ])
    }

    static func signal(_ s: SignalCheck.Configuration) -> JSONValue {
        .object([
            ("patience", .number(s.patience)),
            ("memory_time", .number(s.memoryTime)),
            ("hold_time", .number(s.holdTime)),
            ("measured_share", .number(s.measuredShare)),
            ("warning_share", .number(s.warningShare)),
            ("clipped_share_limit", .number(s.clippedShareLimit)),
            ("noisy_margin_db", .number(s.noisyMarginDB)),
            ("quiet_room_dbfs", .number(s.quietRoomDBFS)),
            ("silent_dbfs", .number(s.silentDBFS)),
            ("shallow_modulation", .number(s.shallowModulation)),
            ("narrow_band_hz", .number(s.narrowBandHz)),
            ("gain_control_overshoot_db", .number(s.gainControlOvershootDB)),
            ("gain_control_room_rise_db", .number(s.gainControlRoomRiseDB)),
            ("no_flutter_evidence", .number(s.noFlutterEvidence)),
        ])
    }

    static func unmeasured(_ u: UnmeasuredTime) -> JSONValue {
        var members: [(String, JSONValue?)] = [("total_s", .number(u.total))]
        for problem in SignalProblem.allCases where u.time(problem) > 0 {
            members.append((problem.rawValue + "_s", .number(u.time(problem))))
        }
        return .members(members)
    }

    static func summary(_ s: SessionSummary) -> JSONValue {
        .members([
            ("duration_s", .number(s.duration)),
            ("breaths", .integer(s.breathCount)),
            ("sets", .integer(s.setCount)),
            ("huff_coughs", .integer(s.huffCoughCount)),
            ("exhalation_time_s", .number(s.exhalationTime)),
            ("mean_breath_duration_s", .value(s.meanBreathDuration)),
            ("mean_pressure_cmh2o", .value(s.meanPressure)),
            ("mean_pitch_hz", .value(s.meanPitch)),
            ("time_share", s.zoneShares.map { shares in
                .object([("below", .number(shares.below)), ("in", .number(shares.within)), ("above", .number(shares.above))])
            }),
            ("exhalation_inhalation_ratio", .value(s.exhalationInhalationRatio)),
            ("inhalations_heard", .integer(s.inhalationsHeard)),
            ("flutter_share", .value(s.flutterShare)),
            ("unmeasured", s.unmeasured.map(unmeasured)),
        ])
    }

    static func breath(_ b: Breath) -> JSONValue {
        .members([
            ("index", .integer(b.index)),
            ("set", .integer(b.set)),
            ("start_s", .number(b.start)),
            ("end_s", .number(b.end)),
            ("duration_s", .number(b.duration)),
            ("mean_pressure_cmh2o", .value(b.meanPressure)),
            ("min_pressure_cmh2o", .value(b.minPressure)),
            ("max_pressure_cmh2o", .value(b.maxPressure)),
            ("mean_pitch_hz", .value(b.meanPitch)),
            ("share_in_target", .value(b.shareInTarget)),
            ("flutter_share", .number(b.flutterShare)),
            ("unmeasured", b.unmeasured.map(unmeasured)),
            ("signal", b.signal.map(signal)),
        ])
    }

    static func signal(_ f: SignalFigures) -> JSONValue {
        .members([
            ("snr_db", .value(f.snrDB)),
            ("modulation", .number(f.modulation)),
            ("clipped_share", .number(f.clippedShare)),
            ("upper_frequency_hz", .value(f.upperFrequencyHz)),
            ("problem", f.problem.map { .string($0.rawValue) }),
        ])
    }

    static func therapySet(_ s: TherapySet) -> JSONValue {
        .members([
            ("index", .integer(s.index)),
            ("start_s", .number(s.start)),
            ("end_s", .number(s.end)),
            ("breaths", .integer(s.breathCount)),
            ("huff_coughs", .integer(s.huffCoughs)),
            ("mean_pressure_cmh2o", .value(s.meanPressure)),
            ("share_in_target", .value(s.shareInTarget)),
        ])
    }

    static func event(_ e: SessionEvent) -> JSONValue {
        .members([
            ("type", .string(e.kind.rawValue)),
            ("time_s", .number(e.time)),
            ("duration_s", .value(e.duration)),
            ("breath", .value(e.breath)),
            ("set", .value(e.set)),
            ("breath_in_set", .value(e.breathInSet)),
        ])
    }
}
