import Dispatch
import Foundation
import MQTT
import Synchronization
import Wire
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the fault tests (Fault*.swift): the reference site's nodes as a traffic source
// that keeps publishing through the fault, the aggregator as a real process, its /metrics.

/// `tools/sites/reference.yaml`: two rooms split by a wall at x = 3, a node in each corner.
enum Reference {
    static let site = packageRoot.appendingPathComponent("tools/sites/reference.yaml")
    static let nodes: [(name: String, x: Double, y: Double, z: Double)] = [
        ("sw", 0.1, 0.1, 1.2), ("se", 5.9, 0.1, 1.2), ("ne", 5.9, 3.9, 2.2), ("nw", 0.1, 3.9, 2.2),
    ]
    static let keys = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
    static let west = (x: 1.2, y: 2.0), east = (x: 4.8, y: 2.0)

    /// The RSSI the site's own model predicts (exponent 2.7, 4 dB through the wall).
    static func rssi(_ node: String, at p: (x: Double, y: Double)) -> Int {
        guard let n = nodes.first(where: { $0.name == node }) else { return -100 }
        let d = max(0.1, ((p.x - n.x) * (p.x - n.x) + (p.y - n.y) * (p.y - n.y) + (1 - n.z) * (1 - n.z)).squareRoot())
        let wall = (p.x < 3) != (n.x < 3) ? 4.0 : 0
        return Int((-59 - 27 * log10(d) - wall).rounded())
    }

    /// - Parameter others: more devices heard in the same batch, each at its own place.
    static func batch(_ node: String, seq: UInt64, t: Double, at p: (x: Double, y: Double), device: String = keys,
                      others: [(id: String, at: (x: Double, y: Double))] = []) -> [UInt8] {
        var w = JSONWriter()
        let heard = [(id: device, at: p)] + others
        Batch(node: node, seq: seq, t: t, readings: heard.map { Reading(id: $0.id, rssi: rssi(node, at: $0.at), tx: -59, t: t, kind: .ibeacon) })
            .encode(into: &w)
        return w.bytes
    }

    static func readingsTopic(_ node: String) -> String { "whereabouts/nodes/\(node)/readings" }
}

/// The four nodes publishing a batch each every 250 ms, from their own MQTT client, until
/// stopped; it keeps going through broker restarts and aggregator kills. The test moves the
/// device, silences nodes or puts their clocks off while it runs.
final class Traffic: Sendable {
    struct Settings: Sendable {
        var position = Reference.west
        var silent: Set<String> = []
        /// Seconds each node's clock is ahead of the true time.
        var clockError: [String: Double] = [:]
        /// More devices in every batch, each where its `at` puts it at the (true) time.
        var walkers: [Walker] = []
    }

    struct Walker: Sendable {
        var id: String
        var at: @Sendable (Double) -> (x: Double, y: Double)
    }

    let client: MQTTClient
    private let state = Mutex((settings: Settings(), seq: UInt64(0), published: 0, failed: 0, running: true))
    private let done = Mutex<Bool>(false)

    init(broker: Broker, settings: Settings = Settings()) throws {
        var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "traffic-\(UInt32.random(in: 0...UInt32.max))",
                                  keepalive: 5, reconnectDelay: 1...1)
        options.cleanSession = true
        client = try MQTTClient(options, queue: DispatchQueue(label: "traffic")) { _ in }
        state.withLock { $0.settings = settings }
        try client.start()
        let thread = Thread { [self] in loop() }
        thread.start()
    }

    func change(_ body: (inout Settings) -> Void) { state.withLock { body(&$0.settings) } }
    var published: Int { state.withLock { $0.published } }
    var failed: Int { state.withLock { $0.failed } }

    func stop() async {
        state.withLock { $0.running = false }
        _ = await poll(timeout: 5) { self.done.withLock { $0 } }
    }

    private func loop() {
        while true {
            let (settings, seq, running) = state.withLock { s in
                s.seq += 1
                return (s.settings, s.seq, s.running)
            }
            guard running else { break }
            let now = Date().timeIntervalSince1970
            let others = settings.walkers.map { (id: $0.id, at: $0.at(now)) }
            for node in Reference.nodes where !settings.silent.contains(node.name) {
                let t = now + (settings.clockError[node.name] ?? 0)
                let payload = Reference.batch(node.name, seq: seq, t: t, at: settings.position, others: others)
                let ok = (try? client.publish(Reference.readingsTopic(node.name), payload, qos: .atMostOnce)) != nil
                state.withLock { if ok { $0.published += 1 } else { $0.failed += 1 } }
            }
            usleep(250_000)
        }
        done.withLock { $0 = true }
    }
}

/// A running `whereabouts-aggregator` on the reference site, its log in a file, its HTTP port
/// free; killed when the object goes away.
final class AggregatorProcess: @unchecked Sendable {
    let process = Process()
    let logFile: URL
    let httpPort: Int

    init(broker: Broker?, db: URL?, directory: URL, name: String = "aggregator", site: URL = Reference.site,
         extra: [String] = [], environment: [String: String] = [:], database: String? = nil,
         brokers: String? = nil) throws {
        httpPort = try freePort()
        logFile = directory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = executable("whereabouts-aggregator")
        process.arguments = ["--site", site.path, "--broker", brokers ?? broker?.url ?? "", "--http", "127.0.0.1:\(httpPort)",
                             "--db", database ?? db?.path ?? "none"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: logFile)
        process.standardError = try FileHandle(forWritingTo: logFile)
        try runUnmasked(process)
    }

    deinit { if process.isRunning { kill9() } }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then the exit status (nil after `timeout` seconds).
    func stop(timeout: Double = 15) async -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        guard await poll(timeout: timeout, { !self.process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// The current /metrics, or nil when nothing answers.
    func metrics() async -> Metrics? {
        guard let (status, body) = await httpGet("http://127.0.0.1:\(httpPort)/metrics"), status == 200 else { return nil }
        return Metrics(String(decoding: body, as: UTF8.self))
    }

    /// Waits until /metrics satisfies `condition`; the last metrics read.
    @discardableResult
    func waitForMetrics(timeout: Double = 15, _ condition: @escaping (Metrics) -> Bool) async -> Metrics? {
        let deadline = Date().addingTimeInterval(timeout)
        var last: Metrics?
        while Date() < deadline {
            last = await metrics()
            if let last, condition(last) { return last }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return last
    }
}

/// A Prometheus text exposition, read by series: `name{label="value"}` as it is written.
struct Metrics: CustomStringConvertible {
    let description: String
    private let values: [String: Double]

    init(_ text: String) {
        description = text
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let v = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = v
        }
        self.values = values
    }

    /// One series, 0 when absent (a counter nobody has touched yet).
    subscript(_ series: String) -> Double { values[series] ?? 0 }
    func rejected(_ reason: String) -> Double { self["whereabouts_rejected_total{reason=\"\(reason)\"}"] }
    func readings(_ node: String) -> Double { self["whereabouts_readings_total{node=\"\(node)\"}"] }
    /// Every series of a family, summed.
    func total(_ name: String) -> Double {
        values.filter { $0.key == name || $0.key.hasPrefix(name + "{") }.values.reduce(0, +)
    }
}

/// `true` when every device's events in every zone go enter, exit, enter, … : never two
/// enters (or two exits) in a row.
func eventsAlternate(_ events: [[String: Any]]) -> Bool {
    var open: [String: Bool] = [:]
    for e in events {
        guard let type = e["type"] as? String, let device = e["device"] as? String, let zone = e["zone"] as? String else { return false }
        let key = device + "\u{0}" + zone
        let entering = type == "enter"
        if open[key, default: false] == entering { return false }
        open[key] = entering
    }
    return true
}

func jsonObject(_ m: MQTTMessage) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(m.payload))) as? [String: Any] ?? [:]
}

func payloadText(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

/// A temporary directory for one fault test; the caller removes it.
func faultDirectory(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("fault-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}
