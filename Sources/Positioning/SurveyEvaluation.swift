import Wire
import SiteModel

/// Feeds readings to an engine on their own event time, `updateInterval` steps at a time, as
/// `whereabouts locate` and `evaluate` do (and the Lab's real-data rows, so that there is one
/// way to score): what the engine says goes to `output`, drained by the caller's `body`.
public struct EventTimeRun {
    public let engine: Engine
    private var tick = -Double.infinity
    private var last = -Double.infinity
    private var output: [EngineOutput] = []

    public init(engine: Engine) { self.engine = engine }

    /// Takes one reading heard by `node`; `body` gets whatever the engine output on the way.
    public mutating func take(_ reading: Reading, node: String, _ body: (EngineOutput) -> Void) {
        if tick == -.infinity { tick = reading.t + engine.options.updateInterval }
        advance(through: reading.t, body)
        engine.ingest(node: node, reading: reading)
        last = max(last, reading.t)
    }

    /// Moves event time in `updateInterval` steps up to `t`.
    private mutating func advance(through t: Double, _ body: (EngineOutput) -> Void) {
        while tick < t {
            engine.advance(to: tick, into: &output)
            tick = nextTick(toward: t)
        }
        flush(body)
    }

    /// The step after `tick` on the way to `t`. Readings' times come from the input: a gap of
    /// years (a node's clock off, a bad line) was stepped through a quarter second at a time,
    /// and at times past 2^53 quarter seconds a step no longer moved `tick` at all — `locate`
    /// never ended. Once the engine holds no device, no step makes output until the next
    /// reading, so the steps between are skipped, landing on the same grid (the engine's
    /// once-a-second away sweep may then fall on another of its steps than it would have: an
    /// away after the gap can move by under a second); a step too small to move `tick` goes
    /// straight to `t`.
    private func nextTick(toward t: Double) -> Double {
        let interval = engine.options.updateInterval
        let steps = ((t - tick) / interval).rounded(.down)
        if engine.deviceCount == 0, steps > 2 {
            // Past 2^53 steps the grid is coarser than a step: then the last double before `t`.
            let skipped = min(tick + (steps - 1) * interval, t.nextDown)
            if skipped > tick { return skipped }
        }
        let next = tick + interval
        return next > tick ? next : t
    }

    /// The end of the input: the last step, then a clean shutdown (every open visit closed).
    public mutating func finish(_ body: (EngineOutput) -> Void) {
        guard last > -.infinity else { return }
        advance(through: last, body)
        engine.advance(to: tick, into: &output)
        flush(body)
        for event in engine.shutdown(at: tick) { body(.event(event)) }
    }

    private mutating func flush(_ body: (EngineOutput) -> Void) {
        for item in output { body(item) }
        output.removeAll(keepingCapacity: true)
    }
}

/// One locator's score on recorded readings against the truth: `whereabouts evaluate`'s figures.
public struct EvaluationScore: Sendable {
    public var locator: LocatorKind
    /// Updates of the device scored against, and each one's 2-D error where the truth has a position.
    public var updates = 0
    public var errors: [Double] = []
    public var roomChecks = 0, roomsRight = 0
    /// Changes of the published room between consecutive scored updates, and of the labelled one.
    public var roomChanges = 0, labelledChanges = 0

    public init(locator: LocatorKind) { self.locator = locator }

    /// The `q` quantile of the errors, linear between order statistics (as the accuracy report's).
    public func quantile(_ q: Double) -> Double? {
        let sorted = errors.sorted()
        guard !sorted.isEmpty else { return nil }
        let position = q * Double(sorted.count - 1)
        let lo = Int(position), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (position - Double(lo))
    }

    public var rooms: Double? { roomChecks > 0 ? Double(roomsRight) / Double(roomChecks) : nil }

    /// Scores `updates` (one device's) against `truth` (2-D error at each update's time) and `rooms`.
    public init(_ updates: [DeviceUpdate], locator: LocatorKind, truth: TruthTrack?, rooms: RoomLabels?) {
        self.init(locator: locator)
        self.updates = updates.count
        var last: (room: String?, label: String)?
        for u in updates {
            if let (p, _) = truth?.position(at: u.t), u.x.isFinite {
                let dx = u.x - p.x, dy = u.y - p.y
                errors.append((dx * dx + dy * dy).squareRoot())
            }
            if let room = rooms?.room(at: u.t) {
                roomChecks += 1
                if u.room == room { roomsRight += 1 }
                if let last, last.room != u.room { roomChanges += 1 }
                if let last, last.label != room { labelledChanges += 1 }
                last = (u.room, room)
            }
        }
    }
}

/// Why `evaluate(...)` could not score.
public enum EvaluationFailure: Error, Equatable {
    /// More than one device was located and none was named.
    case whichDevice(located: [String])
}

/// Runs `readings` (in input order) through a fresh engine on `site` with `locator` on event
/// time and scores `device`'s updates (the only device located when `nil`): what
/// `whereabouts evaluate` prints a row of.
public func evaluate(_ readings: [(node: String, reading: Reading)], site: Site, locator: LocatorKind, truth: TruthTrack?,
                     rooms: RoomLabels? = nil, device: String? = nil, options: EngineOptions = EngineOptions())
    -> Result<EvaluationScore, EvaluationFailure> {
    var updates: [DeviceUpdate] = []
    var run = EventTimeRun(engine: Engine(site: site, locator: locator, options: options))
    func collect(_ o: EngineOutput) { if case .update(let u) = o { updates.append(u) } }
    for (node, reading) in readings { run.take(reading, node: node, collect) }
    run.finish(collect)
    let ids = Set(updates.map(\.id))
    guard let chosen = device ?? (ids.count == 1 ? ids.first : nil) else { return .failure(.whichDevice(located: ids.sorted())) }
    return .success(EvaluationScore(updates.filter { $0.id == chosen }, locator: locator, truth: truth, rooms: rooms))
}
