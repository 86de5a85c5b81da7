/// Decides which track points are worth a row: a still device writes rarely, a moving one at
/// most every `trackInterval`, a room or floor change always.
///
/// Runs on the caller's thread at enqueue, so thinned points never take queue space.
struct Thinner: Sendable {
    var rule: ThinningRule

    /// The last written point of each device.
    private var last: [String: ThinningRule.Written] = [:]

    init(trackInterval: Double, stillDistance: Double, stillInterval: Double) {
        rule = ThinningRule(trackInterval: trackInterval, stillDistance: stillDistance, stillInterval: stillInterval)
    }

    /// Whether `point` gets a row; remembers it when it does.
    mutating func admit(_ point: TrackPoint) -> Bool {
        guard rule.admits(point, after: last[point.device]) else { return false }
        last[point.device] = ThinningRule.Written(point)
        return true
    }

    /// Drops a forgotten device's last point: its next point, if it ever comes back, is kept.
    mutating func forget(_ id: String) { last.removeValue(forKey: id) }

    /// Devices whose last point is remembered.
    var count: Int { last.count }
}

/// The thinning rule itself, on one device's last written point.
struct ThinningRule: Sendable {
    var trackInterval: Double
    var stillDistance: Double
    var stillInterval: Double

    struct Written: Sendable {
        var t: Double, x: Double, y: Double, z: Double
        var floor: String?, room: String?

        init(_ point: TrackPoint) {
            (t, x, y, z, floor, room) = (point.t, point.x, point.y, point.z, point.floor, point.room)
        }
    }

    /// Whether `point` gets a row when `previous` was the device's last written point.
    func admits(_ point: TrackPoint, after previous: Written?) -> Bool {
        guard let previous else { return true }
        let dt = point.t - previous.t
        // Time going back means a replay or a clock step: start afresh rather than go silent.
        if dt < 0 || point.room != previous.room || point.floor != previous.floor { return true }
        if dt >= stillInterval { return true }
        guard dt >= trackInterval else { return false }
        let dx = point.x - previous.x, dy = point.y - previous.y, dz = point.z - previous.z
        return (dx * dx + dy * dy + dz * dz) > stillDistance * stillDistance
    }
}
