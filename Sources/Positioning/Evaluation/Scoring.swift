import Wire
import SiteModel

/// How well one locator did on a simulated site, against the ground truth: position error,
/// rooms, room flips while still, and how long a door crossing takes to become an event.
public struct SiteScore: Sendable {
    /// 2-D error of every update while the device is present.
    public var errors: ErrorSummary
    /// Updates whose true position is in a room, and how many named another room (or none).
    public var roomChecks = 0
    public var roomErrors = 0
    /// Of `roomErrors`, those within `changeSpan` seconds after the device's true room changed
    /// (a door crossing, the stairs, a return from away): the lag of a room change, where the
    /// rest are wrong rooms during a stay.
    public var roomErrorsAtChanges = 0
    /// Truth room → reported room (`"none"` when the engine named no room) → updates.
    public var confusion: [String: [String: Int]] = [:]
    /// Time still (after `settle` seconds into each still period), and room changes then.
    public var stillSeconds = 0.0
    public var stillFlips = 0
    /// Room changes in the truth that last `lasting` seconds, and the delays from the
    /// crossing to the engine's enter into the new room (`missed` had none within `window`).
    public var crossings = 0
    public var delays: [Double] = []
    public var missed = 0

    public var roomErrorRate: Double { roomChecks > 0 ? Double(roomErrors) / Double(roomChecks) : .nan }
    /// The part of `roomErrorRate` within `changeSpan` seconds after a change of the true room.
    public var roomErrorRateAtChanges: Double { roomChecks > 0 ? Double(roomErrorsAtChanges) / Double(roomChecks) : .nan }
    public var flipsPerHour: Double { stillSeconds > 0 ? Double(stillFlips) / (stillSeconds / 3600) : .nan }
    public var delay: ErrorSummary { ErrorSummary(errors: delays) }

    /// A still period counts after this long: the window, the dwell and the tracker settle.
    public static let settle = 10.0
    /// Still periods shorter than this are pauses, not stays.
    public static let minimumStill = 60.0
    /// Room errors this long after a change of the true room count as the change's lag.
    public static let changeSpan = 15.0
    /// A room visit must last this long in the truth to count as a crossing.
    public static let lasting = 10.0
    /// The enter must come within this many seconds after the crossing (or 5 s before it).
    public static let window = 30.0

    /// Scores `output` against `truth` for the devices in `only` (every device when `nil`).
    /// With `site`, a true position on the line two rooms share (within 1 mm) belongs to both:
    /// the truth names one of them, and either counts as right.
    public init(_ output: ReplayOutput, truth: GroundTruth, site: Site? = nil, only: Set<String>? = nil) {
        var outlines: [String: [Point2]] = [:]
        for floor in site?.floors ?? [] {
            for room in floor.rooms where outlines[room.id] == nil { outlines[room.id] = room.points }
        }
        var errors: [Double] = []
        // Per device, when its true room changed (to or from no room as well), in time order.
        var changes: [String: [Double]] = [:]
        for (id, samples) in truth.devices where only?.contains(id) ?? true {
            for (a, b) in zip(samples, samples.dropFirst()) where a.room != b.room { changes[id, default: []].append(b.t) }
        }
        for u in output.updates where only?.contains(u.id) ?? true {
            guard let real = truth.sample(u.id, at: u.t), let p = real.position else { continue }
            let dx = u.x - p.x, dy = u.y - p.y
            errors.append((dx * dx + dy * dy).squareRoot())
            guard var room = real.room else { continue }
            if let reported = u.room, reported != room, let outline = outlines[reported],
               Polygon.distanceToBoundary(outline, p.xy) < 1e-3 {
                room = reported
            }
            roomChecks += 1
            if u.room != room {
                roomErrors += 1
                if Self.isShortlyAfter(u.t, changes[u.id] ?? []) { roomErrorsAtChanges += 1 }
            }
            confusion[room, default: [:]][u.room ?? "none", default: 0] += 1
        }
        self.errors = ErrorSummary(errors: errors)
        var enters: [String: [ZoneEvent]] = [:]
        for e in output.events where e.isRoom && e.type == .enter { enters[e.device, default: []].append(e) }
        for (id, samples) in truth.devices where only?.contains(id) ?? true {
            countStillFlips(samples, enters: enters[id] ?? [])
            measureCrossings(samples, enters: enters[id] ?? [])
        }
    }

    /// Whether `t` lies within `changeSpan` seconds after one of `times` (sorted).
    static func isShortlyAfter(_ t: Double, _ times: [Double]) -> Bool {
        // The last change at or before `t`, by bisection.
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low > 0 && t - times[low - 1] < changeSpan
    }

    /// Room enters during still periods, after they have settled.
    private mutating func countStillFlips(_ samples: [TruthSample], enters: [ZoneEvent]) {
        for (from, to) in Self.stillPeriods(samples) {
            stillSeconds += to - from - Self.settle
            stillFlips += enters.filter { $0.t > from + Self.settle && $0.t <= to }.count
        }
    }

    /// The spans (first and last sample time) a device stayed within 1 cm of one place for
    /// `minimumStill` seconds or more; what counts as still is from `settle` seconds in.
    public static func stillPeriods(_ samples: [TruthSample]) -> [(from: Double, to: Double)] {
        var out: [(from: Double, to: Double)] = []
        var i = 0
        while i < samples.count {
            guard let p = samples[i].position else { i += 1; continue }
            var j = i + 1
            while j < samples.count, let q = samples[j].position, distance(p, q) < 0.01 { j += 1 }
            let from = samples[i].t, to = samples[j - 1].t
            if to - from >= Self.minimumStill { out.append((from, to)) }
            i = j
        }
        return out
    }

    /// Delays from each lasting room change in the truth to the engine's enter into that room.
    private mutating func measureCrossings(_ samples: [TruthSample], enters: [ZoneEvent]) {
        var previous: (room: String, index: Int)?
        for i in samples.indices {
            guard let room = samples[i].room else { previous = nil; continue }
            defer { if previous?.room != room { previous = (room, i) } }
            guard let before = previous, before.room != room else { continue }
            let t = samples[i].t
            // Only a visit that lasts: a hall passed through in two seconds is no stay.
            var end = i
            while end + 1 < samples.count, samples[end + 1].room == room { end += 1 }
            guard samples[end].t - t >= Self.lasting else { continue }
            crossings += 1
            if let enter = enters.first(where: { $0.zone == room && $0.t >= t - 5 && $0.t <= t + Self.window }) {
                delays.append(enter.t - t)
            } else {
                missed += 1
            }
        }
    }
}
