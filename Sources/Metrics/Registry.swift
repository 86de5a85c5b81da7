import Synchronization

/// The metrics of one process, rendered in Prometheus' text exposition format (0.0.4).
///
/// Families are registered once at start; the hot path keeps a handle to its labelled child
/// (`readings.labels("kitchen")`) and updates it with one atomic add.
public final class Registry: Sendable {
    private let families = Mutex<[any Family]>([])
    private let collectors = Mutex<[@Sendable () -> [Sample]]>([])

    public init() {}

    public func counter(_ name: String, _ help: String, labels: [String] = []) -> CounterFamily {
        register(CounterFamily(name: name, help: help, labelNames: labels))
    }

    public func gauge(_ name: String, _ help: String, labels: [String] = []) -> GaugeFamily {
        register(GaugeFamily(name: name, help: help, labelNames: labels))
    }

    public func histogram(_ name: String, _ help: String, buckets: [Double], labels: [String] = []) -> HistogramFamily {
        register(HistogramFamily(name: name, help: help, labelNames: labels, buckets: buckets))
    }

    /// A value computed when scraped (queue depths, process memory). `counter` suits a
    /// count kept elsewhere (process CPU seconds, a writer's totals).
    public func collect(_ name: String, _ help: String, type: MetricType = .gauge, labels: [String] = [],
                        value: @escaping @Sendable () -> [([String], Double)]) {
        let header = "# HELP \(name) \(help)\n# TYPE \(name) \(type.rawValue)\n"
        collectors.withLock { $0.append { [Sample(header: header, lines: value().map { labelled(name, labels, $0.0) + " " + format($0.1) })] } }
    }

    private func register<F: Family>(_ family: F) -> F {
        families.withLock { $0.append(family) }
        return family
    }

    /// The whole exposition, in registration order.
    public func render() -> String {
        var out = ""
        for family in families.withLock({ $0 }) {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for line in family.lines() { out += line + "\n" }
        }
        for collect in collectors.withLock({ $0 }) {
            for sample in collect() {
                out += sample.header
                for line in sample.lines { out += line + "\n" }
            }
        }
        return out
    }
}

public enum MetricType: String, Sendable { case counter, gauge }

/// Lines of a collected metric.
public struct Sample: Sendable {
    let header: String
    let lines: [String]
}

protocol Family: Sendable {
    var name: String { get }
    var help: String { get }
    var type: String { get }
    func lines() -> [String]
}

/// Children of a family by label values, created on first use.
final class Children<Child: AnyObject & Sendable>: Sendable {
    private let byLabels = Mutex<[[String]: Child]>([:])
    private let make: @Sendable () -> Child

    init(_ make: @escaping @Sendable () -> Child) { self.make = make }

    func child(_ labels: [String]) -> Child {
        byLabels.withLock { map in
            if let c = map[labels] { return c }
            let c = make()
            map[labels] = c
            return c
        }
    }

    /// Snapshot sorted by label values, so the output is stable.
    func all() -> [([String], Child)] {
        byLabels.withLock { $0.map { ($0.key, $0.value) } }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
    }
}

func labelled(_ name: String, _ names: [String], _ values: [String], extra: String? = nil) -> String {
    var pairs = zip(names, values).map { "\($0)=\"\(escapeLabel($1))\"" }
    if let extra { pairs.append(extra) }
    return pairs.isEmpty ? name : name + "{" + pairs.joined(separator: ",") + "}"
}

func escapeLabel(_ value: String) -> String {
    var out = ""
    for ch in value {
        switch ch {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        default: out.append(ch)
        }
    }
    return out
}

func format(_ v: Double) -> String {
    if v.isNaN { return "NaN" }
    if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return "\(v)"
}
