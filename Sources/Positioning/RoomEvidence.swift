import Wire
import SiteModel

/// What one solve says of a device's room besides its position: for each room of the site
/// (by the engine's room index: the site's floors in order, each floor's rooms in order), the
/// natural log of the likelihood of what was heard if the device were in that room, up to a
/// constant shared by the rooms of a floor; and the same for `away` (heard this way by no room
/// of the floor). Zero for every room says nothing. The room posterior (`RoomPosterior`) adds
/// it to the position's likelihood; the rooms of floors other than the device's are not read.
///
/// One value is kept per engine and reused for every solve: `reset` clears only what was
/// written, so a solve costs what its sources write, not the site's room count.
public struct RoomEvidence: Sendable {
    /// Per room of the site, the log-likelihood added since `reset`.
    public private(set) var logLikelihood: [Double]
    /// The log-likelihood that the device is on none of the floor's rooms (gone out of range).
    public var away = 0.0
    /// Rooms written since `reset`, each once.
    public private(set) var touched: [Int32] = []

    /// Evidence for a site of `rooms` rooms, saying nothing.
    public init(rooms: Int) {
        logLikelihood = [Double](repeating: 0, count: rooms)
        touched.reserveCapacity(rooms)
    }

    /// Whether a source wrote anything since `reset`.
    public var isInformative: Bool { !touched.isEmpty || away != 0 }

    /// Adds `value` (natural log) to room `room`'s likelihood; an index outside the site is ignored.
    public mutating func add(_ value: Double, room: Int) {
        guard logLikelihood.indices.contains(room), value.isFinite || value == -.infinity else { return }
        if logLikelihood[room] == 0 && !touched.contains(Int32(room)) { touched.append(Int32(room)) }
        logLikelihood[room] += value
    }

    /// Back to saying nothing.
    public mutating func reset() {
        for r in touched { logLikelihood[Int(r)] = 0 }
        touched.removeAll(keepingCapacity: true)
        away = 0
    }
}

/// What turns a solve's observations into room evidence: a floor-plan-free site's node rooms,
/// per-room fingerprints taught by `whereabouts calibrate --rooms`. The engine asks each of its
/// sources (`Engine.roomEvidenceSources`) once per solve, after the fix, before the room posterior.
protocol RoomEvidenceSource: Sendable {
    /// Adds to `evidence` what `observations` (this solve's, one per node that heard the device,
    /// RSSI smoothed and with `rx_adj` applied) say of the rooms of floor `floor` (-1 when no fix
    /// named a floor). Must not allocate once warmed up: it runs for every solve.
    func addEvidence(from observations: [Observation], floor: Int, site: SiteGeometry, into evidence: inout RoomEvidence)
}

/// What a solve says of the device's position, for the room posterior: none on a site without
/// a floor plan (or a solve that placed no position).
struct RoomFix: Sendable {
    var position: Point2
    /// The fix's horizontal spread, one standard deviation (m).
    var spread: Double
    /// 0...1, as `Fix.confidence`.
    var confidence: Double
    /// `Fix.floorContested`.
    var floorContested = false
}
