import Wire
import SiteModel

/// The calibration file's `fingerprints:` section (`RoomFingerprintSet`, decoded by
/// `SiteCalibration`): what `whereabouts calibrate --rooms` writes, alone or after a survey fit.
extension RoomFingerprintSet {
    /// The section's text; `taught` says what it was taught from (readings and windows used).
    public func calibrationSection(readings: Int) -> String {
        let fixed = SurveyCalibration.fixed, quoted = SurveyCalibration.quoted
        var out = "fingerprints:\n"
        out += "  window: \(fixed(window, 2))\n"
        out += "  taught: { readings: \(readings), windows: \(rooms.reduce(0) { $0 + $1.windows }), rooms: \(rooms.count) }\n"
        out += rooms.isEmpty ? "  rooms: []\n" : "  rooms:\n"
        for room in rooms {
            out += "    - room: \(quoted(room.room))\n      windows: \(room.windows)\n"
            out += room.nodes.isEmpty ? "      nodes: []\n" : "      nodes:\n"
            for n in room.nodes {
                out += "        - { node: \(quoted(n.node)), heard: \(fixed(n.heard, 3)), level: \(fixed(n.level, 1)), sd: \(fixed(n.sd, 1)) }\n"
            }
        }
        return out
    }

    /// A calibration file holding fingerprints only: `comment` lines first, as YAML comments.
    public func calibrationFile(comment: [String], readings: Int) -> String {
        comment.map { "# " + $0 + "\n" }.joined() + "version: \(SiteCalibration.version)\nfitted: rooms\n" + calibrationSection(readings: readings)
    }
}
