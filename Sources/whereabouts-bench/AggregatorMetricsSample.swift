/// The aggregator's /metrics figures the benches use, summed over their labels.
struct AggregatorMetricsSample {
    /// `whereabouts_readings_total`, all nodes.
    var readings = 0.0
    /// `whereabouts_rejected_total`, all reasons.
    var rejected = 0.0
    /// `whereabouts_processing_seconds` cumulative buckets: (upper bound, count), +Inf last.
    var processing: [(bound: Double, count: Double)] = []
    /// `process_resident_memory_bytes`.
    var resident: Double?
    /// `whereabouts_states_total{result="published"}`: state messages the aggregator handed to
    /// MQTT (its state deadband leaves most updates of a still device unpublished, so solved
    /// positions, `whereabouts_position_confidence_count`, are no longer one message each).
    var statesPublished = 0.0
    /// `whereabouts_states_total{result="suppressed"}`: updates the deadband did not publish.
    var statesSuppressed = 0.0
    /// `whereabouts_solves_total`: position solves made, and solves left out (a still device held).
    var solved = 0.0
    var held = 0.0
    /// `whereabouts_shed_messages_total`: messages dropped on arrival while too many waited.
    var shedMessages = 0.0

    init(text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let name = line[..<space]
            if name.hasPrefix("whereabouts_readings_total") {
                readings += value
            } else if name.hasPrefix("whereabouts_rejected_total") {
                rejected += value
            } else if name.hasPrefix("whereabouts_processing_seconds_bucket"), let le = name.range(of: "le=\"") {
                let bound = name[le.upperBound...].prefix { $0 != "\"" }
                processing.append((bound == "+Inf" ? .infinity : Double(bound) ?? .infinity, value))
            } else if name == "whereabouts_shed_messages_total" {
                shedMessages = value
            } else if name == #"whereabouts_solves_total{result="solved"}"# {
                solved = value
            } else if name == #"whereabouts_solves_total{result="held"}"# {
                held = value
            } else if name == #"whereabouts_states_total{result="published"}"# {
                statesPublished = value
            } else if name == #"whereabouts_states_total{result="suppressed"}"# {
                statesSuppressed = value
            } else if name == "process_resident_memory_bytes" {
                resident = value
            }
        }
    }

    /// Processing time at quantile `q` of the messages handled after `earlier`, interpolated
    /// linearly inside its bucket (the histogram's resolution is its buckets); `.infinity`
    /// when it falls past the last finite bound.
    func processingQuantile(_ q: Double, since earlier: AggregatorMetricsSample?) -> Double? {
        let counts = processing.enumerated().map { i, b in
            b.count - (earlier.flatMap { $0.processing.indices.contains(i) ? $0.processing[i].count : nil } ?? 0)
        }
        guard let total = counts.last, total > 0 else { return nil }
        let target = q * total
        var lower = 0.0, below = 0.0
        for (i, cumulative) in counts.enumerated() {
            let upper = processing[i].bound
            if cumulative >= target {
                guard upper.isFinite else { return .infinity }
                let inBucket = cumulative - below
                return inBucket > 0 ? lower + (upper - lower) * (target - below) / inBucket : upper
            }
            lower = upper
            below = cumulative
        }
        return .infinity
    }

    /// Messages handled since `earlier`.
    func processedMessages(since earlier: AggregatorMetricsSample?) -> Double {
        (processing.last?.count ?? 0) - (earlier?.processing.last?.count ?? 0)
    }
}
