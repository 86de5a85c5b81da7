import Positioning
import Wire
import SiteModel

/// Position error of one locator over one walk.
public struct ErrorSummary: Sendable, Equatable {
    public var count: Int
    public var median: Double
    public var p90: Double
    public var p95: Double

    public init(errors: [Double]) {
        let sorted = errors.sorted()
        count = sorted.count
        func quantile(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            let position = q * Double(sorted.count - 1)
            let lo = Int(position), hi = min(lo + 1, sorted.count - 1)
            return sorted[lo] + (sorted[hi] - sorted[lo]) * (position - Double(lo))
        }
        median = quantile(0.5); p90 = quantile(0.9); p95 = quantile(0.95)
    }
}

/// What an engine said over a replay: every update and every event, in order.
public struct ReplayOutput: Sendable {
    public var updates: [DeviceUpdate] = []
    public var events: [ZoneEvent] = []
}

/// Replays readings (in time order) through a fresh engine: `advance` every `step` seconds
/// of event time, and a clean shutdown at the end so every enter has its exit.
public func replay(_ readings: [(node: String, reading: Reading)], site: Site, locator: LocatorKind,
                   step: Double = 0.5, options: EngineOptions = EngineOptions()) -> ReplayOutput {
    var options = options
    options.updateInterval = step
    return replay(readings, through: Engine(site: site, locator: locator, options: options), step: step)
}

/// As `replay(_:site:locator:step:options:)` through `engine` as it is (one made with the
/// same `step` as its update interval, or one restored from what an earlier replay learned).
public func replay(_ readings: [(node: String, reading: Reading)], through engine: Engine, step: Double) -> ReplayOutput {
    var result = ReplayOutput()
    var output: [EngineOutput] = []
    guard let start = readings.first?.reading.t else { return result }
    var tick = start + step
    func collect() {
        for item in output {
            switch item {
            case .update(let u): result.updates.append(u)
            case .event(let e): result.events.append(e)
            }
        }
        output.removeAll(keepingCapacity: true)
    }
    for (node, reading) in readings {
        while reading.t > tick {
            engine.advance(to: tick, into: &output)
            collect()
            tick += step
        }
        engine.ingest(node: node, reading: reading)
    }
    engine.advance(to: tick, into: &output)
    collect()
    result.events += engine.shutdown(at: tick)
    return result
}

/// Replays a walk through an engine; each update's 2-D error against the truth at its time.
public func replay(_ walk: Walk, site: Site, locator: LocatorKind, step: Double = 0.5,
                   options: EngineOptions = EngineOptions()) -> ErrorSummary {
    ErrorSummary(errors: errors(of: replay(walk.readings, site: site, locator: locator, step: step, options: options), on: walk))
}

/// The 2-D error of every update against the walk's truth at the update's time.
public func errors(of output: ReplayOutput, on walk: Walk) -> [Double] {
    output.updates.compactMap { u in
        guard let truth = walk.truth(at: u.t) else { return nil }
        let dx = u.x - truth.x, dy = u.y - truth.y
        return (dx * dx + dy * dy).squareRoot()
    }
}
