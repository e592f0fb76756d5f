/// Decides whether a pitch heard in a sound is the room's own periodicity rather than the
/// device's flutter (issue 22: no breath without the device).
///
/// A fan or a motor can beat in the flutter band all the time; between sounds nothing asks
/// about it, but a breath taken without the device near it makes a sound, and the tracker then
/// hears the room's period in it (on simulated sessions with a fan 14 dB under the device, 7 of
/// 11 exhalations without the device became breaths). A device's flutter exists only while the
/// air goes through it. So a pitch within `FlutterPitchTracker.Configuration.consistency` of the
/// period the room had before the sound (``FlutterPitchTracker/RoomPeriod``) is the room's,
/// unless the sound is modulated at least `deviceDepthRatio` (1.5) times as deeply as the room
/// was: a device near the phone modulates its sound 0.4-1, a room heard through a breath no
/// deeper than the room alone. The detector and the signal check both take such a pitch as none,
/// so a breath without the device beside a fan is told to breathe out through the device.
public enum RoomPeriodicity {
    /// How much deeper than the room's own modulation a sound at the room's period must be
    /// modulated to be the device's.
    public static let deviceDepthRatio = 1.5

    /// Whether `pitch` (Hz), heard with modulation depth `modulation`, is explained by `room`.
    public static func explains(pitch: Double?, modulation: Double, room: FlutterPitchTracker.RoomPeriod?, consistency: Double) -> Bool {
        guard let pitch, let room else { return false }
        return room.holds(pitch, consistency: consistency) && modulation < deviceDepthRatio * room.modulation
    }
}
