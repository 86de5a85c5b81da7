import Wire
import SiteModel

/// Where one device really was at one time, as `whereabouts simulate` writes it to
/// `truth.jsonl`: `{"t","id","x","y","z","floor","room"}`, position `null` and room
/// `"away"` while the device is away.
public struct TruthSample: Sendable, Equatable {
    public var t: Double
    public var position: Point3?
    public var floor: String?
    /// The room polygon holding the point; `nil` outside every room or while away.
    public var room: String?
    public var isAway: Bool { position == nil }
}

/// Every device's ground truth, time-ordered per device.
public struct GroundTruth: Sendable {
    public private(set) var devices: [String: [TruthSample]] = [:]

    public init() {}

    /// Parses truth lines; a malformed line throws with its number.
    public init(jsonLines bytes: [UInt8]) throws(Philotuxo.FormatError) {
        var line = 1, start = 0
        for i in bytes.indices where bytes[i] == 0x0A {
            if i > start { try add(bytes[start..<i], line: line) }
            start = i + 1
            line += 1
        }
        if start < bytes.count { try add(bytes[start...], line: line) }
        for id in devices.keys { devices[id]?.sort { $0.t < $1.t } }
    }

    private mutating func add(_ text: ArraySlice<UInt8>, line: Int) throws(Philotuxo.FormatError) {
        var id: String?, t: Double?, x: Double?, y: Double?, z: Double?, floor: String?, room: String?
        let parsed = text.withUnsafeBytes { raw -> JSONError? in
            var s = JSONScanner(raw)
            do throws(JSONError) {
                try s.object { (s: inout JSONScanner, key) throws(JSONError) in
                    if s.null() { return }
                    if keyEquals(key, "t") { t = try s.double() }
                    else if keyEquals(key, "id") { id = try s.string() }
                    else if keyEquals(key, "x") { x = try s.double() }
                    else if keyEquals(key, "y") { y = try s.double() }
                    else if keyEquals(key, "z") { z = try s.double() }
                    else if keyEquals(key, "floor") { floor = try s.string() }
                    else if keyEquals(key, "room") { room = try s.string() }
                    else { try s.skipValue() }
                }
                return nil
            } catch { return error }
        }
        if let parsed { throw Philotuxo.FormatError(line: line, message: parsed.description) }
        guard let id, let t else { throw Philotuxo.FormatError(line: line, message: "expected \"t\" and \"id\"") }
        let position = x.flatMap { x in y.flatMap { y in z.map { Point3(x, y, $0) } } }
        let away = room == "away" || position == nil
        devices[id, default: []].append(TruthSample(t: t, position: away ? nil : position, floor: away ? nil : floor,
                                                    room: away ? nil : room))
    }

    /// The sample of `device` nearest to `t` (the truth is dense: 10 Hz); `nil` outside its span.
    public func sample(_ device: String, at t: Double) -> TruthSample? {
        guard let samples = devices[device], let first = samples.first, let last = samples.last,
              t >= first.t - 0.5, t <= last.t + 0.5 else { return nil }
        var lo = 0, hi = samples.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if samples[mid].t <= t { lo = mid } else { hi = mid }
        }
        return abs(samples[hi].t - t) < abs(samples[lo].t - t) ? samples[hi] : samples[lo]
    }
}
