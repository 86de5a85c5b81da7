import Dispatch
import Foundation
import MQTT
import Synchronization
import Wire

/// A burst: a million readings (5,000 batches of 200 from 100 nodes) as fast as four
/// publishers can send them, as when every edge flushes its buffer after an outage. The
/// aggregator and a plain `mosquitto_sub` take the same stream from the same broker, and the
/// row says how long each took to have all of it, and what the aggregator accepted, refused
/// and shed.
struct BurstFigures {
    var readings = 0
    var publishSeconds = 0.0
    var subscriberSeconds: Double?
    var aggregatorSeconds: Double?
    var accepted = 0.0
    var late = 0.0
    var rejected = 0.0
    var shed = 0.0
    var pauses = 0.0
    var pausedSeconds = 0.0
    /// The aggregator's peak resident memory over its run (VmHWM), bytes.
    var peakRSS = 0.0

    var summary: String {
        "burst: \(thousands(Double(readings))) readings published in \(decimal(publishSeconds, 1)) s by 4 publishers; "
            + "mosquitto_sub had them all after \(subscriberSeconds.map { decimal($0, 1) + " s" } ?? "n/a"), the aggregator after "
            + "\(aggregatorSeconds.map { decimal($0, 1) + " s" } ?? "n/a"): \(decimal(accepted, 0)) accepted, \(decimal(rejected, 0)) refused "
            + "(\(decimal(late, 0)) late), \(decimal(shed, 0)) messages shed, reading paused \(decimal(pauses, 0)) times "
            + "(\(decimal(pausedSeconds, 1)) s); peak RSS \(megabytes(peakRSS))"
    }
}

func runBurstBench(_ plan: BenchPlan) {
    do { print(try measureBurst(plan).summary) } catch { print("burst: failed: \(error)") }
}

/// The burst on a fresh rig (its warm-up probe aside, the aggregator has seen nothing).
func measureBurst(_ plan: BenchPlan) throws -> BurstFigures {
    let total = plan.smoke ? 40_000 : 1_000_000, publishers = 4
    let rig = try BenchRig(bin: plan.bin, nodes: 100, devices: 5_000, subscriber: true)
    defer { rig.stop() }
    let clients = try (1..<publishers).map { try burstClient(port: rig.broker.port, index: $0) }
    defer { for c in clients { c.disconnect() } }
    let generators = [rig.generator] + clients.map { LoadGenerator(site: rig.site, devices: 5_000, topics: Topics(), client: $0) }
    let before = BurstSample(port: rig.httpPort), sub0 = rig.subscriber?.lines.load(ordering: .relaxed) ?? 0
    let start = wallSeconds()
    let group = DispatchGroup()
    let batches = Mutex([Int](repeating: 0, count: publishers))
    for (i, g) in generators.enumerated() {
        DispatchQueue.global().async(group: group) {
            let run = g.run(readings: total / publishers)
            batches.withLock { $0[i] = run.batches }
        }
    }
    group.wait()
    var figures = BurstFigures()
    figures.publishSeconds = wallSeconds() - start
    let sent = batches.withLock { $0.reduce(0, +) }
    figures.readings = sent * LoadGenerator.batchMax
    let deadline = wallSeconds() + 300
    var last = before
    while wallSeconds() < deadline, figures.subscriberSeconds == nil || figures.aggregatorSeconds == nil {
        if figures.subscriberSeconds == nil, (rig.subscriber?.lines.load(ordering: .relaxed) ?? 0) - sub0 >= sent {
            figures.subscriberSeconds = wallSeconds() - start
        }
        if figures.aggregatorSeconds == nil, let now = BurstSample(port: rig.httpPort) {
            last = now
            if now.counted - (before?.counted ?? 0) >= Double(figures.readings) { figures.aggregatorSeconds = wallSeconds() - start }
        }
        usleep(20_000)
    }
    figures.accepted = (last?.readings ?? 0) - (before?.readings ?? 0)
    figures.rejected = (last?.rejected ?? 0) - (before?.rejected ?? 0)
    figures.late = (last?.late ?? 0) - (before?.late ?? 0)
    figures.shed = (last?.shed ?? 0) - (before?.shed ?? 0)
    figures.pauses = (last?.pauses ?? 0) - (before?.pauses ?? 0)
    figures.pausedSeconds = (last?.pausedSeconds ?? 0) - (before?.pausedSeconds ?? 0)
    figures.peakRSS = peakResident(pid: rig.aggregator.pid)
    return figures
}

/// The figures of /metrics the burst reads.
private struct BurstSample {
    var readings = 0.0, rejected = 0.0, late = 0.0, shed = 0.0, pauses = 0.0, pausedSeconds = 0.0
    var counted: Double { readings + rejected }

    init?(port: Int) {
        guard let text = httpGet(port: port, path: "/metrics") else { return nil }
        let sample = AggregatorMetricsSample(text: text)
        readings = sample.readings; rejected = sample.rejected; shed = sample.shedMessages
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            switch line[..<space] {
            case #"whereabouts_rejected_total{reason="late"}"#: late = value
            case "whereabouts_mqtt_read_pauses_total": pauses = value
            case "whereabouts_mqtt_read_paused_seconds_total": pausedSeconds = value
            default: break
            }
        }
    }
}

private func burstClient(port: Int, index: Int) throws -> MQTTClient {
    let connected = DispatchSemaphore(value: 0)
    let options = MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: port, tls: false),
                              clientID: "bench-burst-\(getpid())-\(index)")
    let client = try MQTTClient(options, queue: DispatchQueue(label: "bench.burst.\(index)")) { event in
        if case .connected = event { connected.signal() }
    }
    try client.start()
    guard connected.wait(timeout: .now() + 10) == .success else { throw BenchError("burst publisher \(index) could not connect") }
    return client
}

/// VmHWM of `pid`, bytes (0 when unreadable).
private func peakResident(pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kB = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kB * 1024
}

extension SuiteFigures {
    /// The burst's row, beside the paced ladder's.
    var burstRows: [Row] {
        guard let b = burst else { return [Row(item: "4", what: "burst of 1 M readings, four publishers", figure: "n/a", bar: "all accepted, none shed", met: nil)] }
        let figure = "aggregator \(b.aggregatorSeconds.map { decimal($0, 1) + " s" } ?? "not done") vs mosquitto_sub "
            + "\(b.subscriberSeconds.map { decimal($0, 1) + " s" } ?? "not done"); \(decimal(b.accepted, 0)) accepted, "
            + "\(decimal(b.late, 0)) late, \(decimal(b.shed, 0)) shed; peak RSS \(megabytes(b.peakRSS))"
        return [Row(item: "4", what: "burst: \(thousands(Double(b.readings))) readings as fast as four publishers send", figure: figure,
                    bar: "all accepted, none shed", met: b.accepted == Double(b.readings) && b.shed == 0)]
    }
}
