/// The interference that plays under a whole session, during rests and exhalations alike.
public enum NoiseKind: String, Sendable, Codable, Hashable, CaseIterable {
    /// Only the faint room tone every session has.
    case quiet
    /// Pink-ish room noise (ventilation, traffic far away).
    case room
    /// A fan: broadband noise, motor hum harmonics and blade-pass tones, slightly modulated at the
    /// rotation rate.
    case fan
    /// Synthetic speech: voiced syllables (glottal pulses through formant resonators) with
    /// consonant bursts, intonation and pauses between phrases.
    case speech
    /// Synthetic music: strummed chords of harmonic tones, a bass line and a hi-hat in a steady tempo.
    case music
    /// Someone else coughing now and then.
    case cough
    /// A bit of all of the above at once.
    case mixed
}
