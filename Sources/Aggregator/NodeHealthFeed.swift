import Dispatch
import Synchronization
import SiteModel
import Wire

/// Per-node health for the map (`/api/nodes` and the live stream's `nodes` event), sampled
/// once a second off the work queue: status, when last heard, readings per second over the
/// last few seconds, batches missed (seq gaps), restarts and the clock offset.
/// `@unchecked`: the timer is a dispatch source, safe from any thread; the rest is locked.
final class NodeHealthFeed: @unchecked Sendable {
    /// One node as the work queue saw it at a sample.
    struct Sample: Sendable {
        var name: String, floors: [String], online: Bool
        var lastArrival: Double, readings: UInt64, batches: UInt64, missed: UInt64, restarts: UInt64
        var clockOffset: Double?
    }

    /// Seconds the readings rate is measured over.
    static let window = 5.0
    private let latest = Mutex<[UInt8]>(Array("[]".utf8))
    /// (time, readings per node) of the last samples, oldest first; touched on `queue` only.
    private let history = Mutex<[(t: Double, readings: [String: UInt64])]>([])
    private let queue = DispatchQueue(label: "whereabouts.aggregator.nodes")
    private let timer: DispatchSourceTimer

    /// Samples every second with `take` (which reads the core on the work queue) and hands
    /// each result to `publish`.
    init(take: @escaping @Sendable () -> [Sample]?, publish: @escaping @Sendable ([UInt8]) -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: 1.0)
        timer.setEventHandler { [weak self] in
            guard let self, let samples = take() else { return }
            let json = self.json(samples, at: now())
            self.latest.withLock { $0 = json }
            publish(json)
        }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// The last sample's JSON.
    var current: [UInt8] { latest.withLock { $0 } }

    func stop() { timer.cancel() }

    /// `[{"name","floors","status","last_heard","readings_per_s","readings","batches","missed_batches","restarts","clock_offset"}]`.
    func json(_ samples: [Sample], at t: Double) -> [UInt8] {
        let rates = history.withLock { history -> [String: Double] in
            history.append((t, Dictionary(samples.map { ($0.name, $0.readings) }, uniquingKeysWith: { a, _ in a })))
            while let first = history.first, t - first.t > Self.window + 0.5 { history.removeFirst() }
            var rates: [String: Double] = [:]
            guard let first = history.first, t - first.t > 0.5 else { return rates }
            for s in samples {
                let before = first.readings[s.name] ?? s.readings
                rates[s.name] = s.readings >= before ? Double(s.readings - before) / (t - first.t) : 0
            }
            return rates
        }
        var w = JSONWriter(capacity: 256 * max(samples.count, 1))
        w.arrayStart()
        for s in samples {
            w.objectStart()
            w.field("name", s.name)
            w.key("floors"); w.arrayStart(); for f in s.floors { w.value(f) }; w.arrayEnd()
            w.field("status", s.online ? "online" : "offline")
            w.key("last_heard"); if s.lastArrival > 0 { w.time(s.lastArrival) } else { w.null() }
            w.field("readings_per_s", rates[s.name] ?? 0, decimals: 1)
            w.field("readings", Int(s.readings))
            w.field("batches", Int(s.batches))
            w.field("missed_batches", Int(s.missed))
            w.field("restarts", Int(s.restarts))
            w.key("clock_offset"); if let c = s.clockOffset, c.isFinite { w.value(c, decimals: 3) } else { w.null() }
            w.objectEnd()
        }
        w.arrayEnd()
        return w.bytes
    }

    /// Every site node's sample from the core (on the work queue).
    static func samples(_ core: AggregatorCore) -> [Sample] {
        core.site.nodes.map { node in
            let stream = core.ingest.summary(of: node.name)
            return Sample(name: node.name, floors: node.floors, online: core.nodesOnline.contains(node.name),
                          lastArrival: stream?.lastArrival ?? 0, readings: stream?.readings ?? 0, batches: stream?.batches ?? 0,
                          missed: stream?.missedBatches ?? 0, restarts: stream?.restarts ?? 0, clockOffset: stream?.clockOffset)
        }
    }
}
