import Wire

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

/// Replays a walk through an engine: readings in time order, `advance` every `step`
/// seconds of event time; each update's 2-D error against the truth at its time.
public func replay(_ walk: Walk, site: Site, locator: LocatorKind, step: Double = 0.5,
                   options: EngineOptions = EngineOptions()) -> ErrorSummary {
    var options = options
    options.updateInterval = step
    let engine = Engine(site: site, locator: locator, options: options)
    var output: [EngineOutput] = []
    var errors: [Double] = []
    guard let start = walk.readings.first?.reading.t else { return ErrorSummary(errors: []) }
    var tick = start + step
    func collect() {
        for case .update(let u) in output {
            guard let truth = walk.truth(at: u.t) else { continue }
            let dx = u.x - truth.x, dy = u.y - truth.y
            errors.append((dx * dx + dy * dy).squareRoot())
        }
        output.removeAll(keepingCapacity: true)
    }
    for (node, reading) in walk.readings {
        while reading.t > tick {
            engine.advance(to: tick, into: &output)
            collect()
            tick += step
        }
        engine.ingest(node: node, reading: reading)
    }
    engine.advance(to: tick, into: &output)
    collect()
    return ErrorSummary(errors: errors)
}
