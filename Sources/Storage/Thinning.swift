/// Decides which track points are worth a row: a still device writes rarely, a moving one at
/// most every `trackInterval`, a room or floor change always.
///
/// Runs on the caller's thread at enqueue, so thinned points never take queue space.
struct Thinner: Sendable {
    var trackInterval: Double
    var stillDistance: Double
    var stillInterval: Double

    private struct Written: Sendable {
        var t: Double, x: Double, y: Double, z: Double
        var floor: String?, room: String?
    }

    /// The last written point of each device.
    private var last: [String: Written] = [:]

    init(trackInterval: Double, stillDistance: Double, stillInterval: Double) {
        self.trackInterval = trackInterval
        self.stillDistance = stillDistance
        self.stillInterval = stillInterval
    }

    /// Whether `point` gets a row; remembers it when it does.
    mutating func admit(_ point: TrackPoint) -> Bool {
        guard let previous = last[point.device] else { return remember(point) }
        let dt = point.t - previous.t
        // Time going back means a replay or a clock step: start afresh rather than go silent.
        if dt < 0 || point.room != previous.room || point.floor != previous.floor { return remember(point) }
        if dt >= stillInterval { return remember(point) }
        guard dt >= trackInterval else { return false }
        let dx = point.x - previous.x, dy = point.y - previous.y, dz = point.z - previous.z
        let moved = (dx * dx + dy * dy + dz * dz) > stillDistance * stillDistance
        return moved ? remember(point) : false
    }

    private mutating func remember(_ point: TrackPoint) -> Bool {
        last[point.device] = Written(t: point.t, x: point.x, y: point.y, z: point.z,
                                     floor: point.floor, room: point.room)
        return true
    }
}
