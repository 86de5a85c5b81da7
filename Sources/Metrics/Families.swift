import Synchronization

/// A monotonically growing count.
public final class Counter: Sendable {
    private let value = Atomic<UInt64>(0)
    public func add(_ n: UInt64 = 1) { value.add(n, ordering: .relaxed) }
    public var current: UInt64 { value.load(ordering: .relaxed) }
}

/// A value that goes up and down.
public final class Gauge: Sendable {
    private let bits = Atomic<UInt64>(Double(0).bitPattern)
    public func set(_ v: Double) { bits.store(v.bitPattern, ordering: .relaxed) }
    public var current: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}

/// Observations counted into cumulative buckets, with their sum.
public final class Histogram: Sendable {
    let bounds: [Double]
    private let state: Mutex<(counts: [UInt64], sum: Double, count: UInt64)>

    init(bounds: [Double]) {
        self.bounds = bounds
        state = Mutex((Array(repeating: 0, count: bounds.count), 0, 0))
    }

    public func observe(_ v: Double) {
        guard v.isFinite else { return }
        state.withLock { s in
            if let i = bounds.firstIndex(where: { v <= $0 }) { s.counts[i] += 1 }
            s.sum += v
            s.count += 1
        }
    }

    var snapshot: (counts: [UInt64], sum: Double, count: UInt64) { state.withLock { $0 } }
}

public final class CounterFamily: Family {
    let name: String, help: String, labelNames: [String]
    var type: String { "counter" }
    private let children = Children { Counter() }

    init(name: String, help: String, labelNames: [String]) { self.name = name; self.help = help; self.labelNames = labelNames }

    /// The child for these label values, in the order the labels were declared.
    public func labels(_ values: String...) -> Counter { children.child(values) }
    public func add(_ n: UInt64 = 1) { children.child([]).add(n) }

    func lines() -> [String] {
        let all = children.all()
        if all.isEmpty && labelNames.isEmpty { return ["\(name) 0"] }
        return all.map { labelled(name, labelNames, $0.0) + " \($0.1.current)" }
    }
}

public final class GaugeFamily: Family {
    let name: String, help: String, labelNames: [String]
    var type: String { "gauge" }
    private let children = Children { Gauge() }

    init(name: String, help: String, labelNames: [String]) { self.name = name; self.help = help; self.labelNames = labelNames }

    public func labels(_ values: String...) -> Gauge { children.child(values) }
    public func set(_ v: Double) { children.child([]).set(v) }

    func lines() -> [String] {
        let all = children.all()
        if all.isEmpty && labelNames.isEmpty { return ["\(name) 0"] }
        return all.map { labelled(name, labelNames, $0.0) + " " + format($0.1.current) }
    }
}

public final class HistogramFamily: Family {
    let name: String, help: String, labelNames: [String]
    var type: String { "histogram" }
    private let children: Children<Histogram>

    init(name: String, help: String, labelNames: [String], buckets: [Double]) {
        self.name = name; self.help = help; self.labelNames = labelNames
        let sorted = buckets.sorted()
        children = Children { Histogram(bounds: sorted) }
    }

    public func labels(_ values: String...) -> Histogram { children.child(values) }
    public func observe(_ v: Double) { children.child([]).observe(v) }

    func lines() -> [String] {
        var out: [String] = []
        var all = children.all()
        if all.isEmpty && labelNames.isEmpty { all = [([], children.child([]))] }
        for (values, h) in all {
            let s = h.snapshot
            var cumulative: UInt64 = 0
            for (bound, c) in zip(h.bounds, s.counts) {
                cumulative += c
                out.append(labelled(name + "_bucket", labelNames, values, extra: "le=\"\(format(bound))\"") + " \(cumulative)")
            }
            out.append(labelled(name + "_bucket", labelNames, values, extra: "le=\"+Inf\"") + " \(s.count)")
            out.append(labelled(name + "_sum", labelNames, values) + " " + format(s.sum))
            out.append(labelled(name + "_count", labelNames, values) + " \(s.count)")
        }
        return out
    }
}
