import Dispatch
import Foundation
import MQTT
import Wire

/// One system under load: a private broker, the real `whereabouts-aggregator` (SQLite on,
/// /metrics on a free port) on a generated site, optionally a plain `mosquitto_sub` on the
/// same readings, a `mosquitto_sub` counting the aggregator's state messages (as Home
/// Assistant would subscribe), and the load generator publishing through the same broker.
final class BenchRig {
    let directory: String
    let site: BenchSite
    let broker: PrivateBroker
    let aggregator: ChildProcess
    let httpPort: Int
    let subscriber: SubscriberCount?
    let states: SubscriberCount
    let generator: LoadGenerator
    private let client: MQTTClient

    /// The event clock every batch is stamped with: the wall clock, or (`speed` > 1) a
    /// simulated one, with the aggregator run under libfaketime at the same speed so that
    /// its arrival times and the batches' agree (its monotonic clock, timers, stays real).
    let clock: EventClock

    /// - Parameter wrapper: a command to run the aggregator under (valgrind), or empty.
    /// - Parameter storage: false runs the aggregator with `--db none` (no SQLite at all;
    ///   without `--db` it would use the site's `storage.path`).
    init(bin: String, nodes: Int, devices: Int, subscriber withSubscriber: Bool, wrapper: [String] = [], speed: Double = 1,
         storage: Bool = true) throws {
        directory = NSTemporaryDirectory() + "whereabouts-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        site = BenchSite(nodes: nodes)
        let sitePath = try site.write(into: directory)
        broker = try PrivateBroker(directory: directory)
        httpPort = try freePort()
        _ = FileManager.default.createFile(atPath: directory + "/aggregator.log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + "/aggregator.log")
        let arguments = ["--site", sitePath, "--broker", broker.url, "--db", storage ? directory + "/tracks.db" : "none",
                         "--http", "127.0.0.1:\(httpPort)", "--no-discovery", "--client-id", "bench-aggregator"]
        let executable = bin + "/whereabouts-aggregator"
        // libfaketime is preloaded into a child of `timeout` (which passes on SIGTERM): exec'd
        // straight under the preload, the aggregator lost its arguments here.
        let preload = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
        if speed != 1, !FileManager.default.fileExists(atPath: preload) {
            throw BenchError("libfaketime is not installed (apt-get install faketime)")
        }
        let command = (speed == 1 ? wrapper : ["/usr/bin/timeout", "1d"]) + [executable] + arguments
        let start = wallSeconds()
        clock = speed == 1 ? .wall : EventClock(wallOrigin: start, eventOrigin: start, speed: speed)
        aggregator = try ChildProcess(command[0], Array(command.dropFirst()), name: "aggregator", stderr: log,
                                      environment: speed == 1 ? [:] : ["LD_PRELOAD": preload, "FAKETIME": "+0 x\(speed)",
                                                                       "FAKETIME_DONT_FAKE_MONOTONIC": "1"])
        if speed != 1 { aggregator.measureChild() }
        subscriber = withSubscriber ? try SubscriberCount(port: broker.port, topic: Topics().allNodeReadings) : nil
        states = try SubscriberCount(port: broker.port, topic: Topics().prefix + "/devices/+/state")
        client = try Self.connect(broker: broker)
        generator = LoadGenerator(site: site, devices: devices, topics: Topics(), client: client)
        try waitUntilSubscribed(timeout: wrapper.isEmpty ? 20 : 120)
    }

    deinit { stop() }

    /// Stops everything and removes the run's directory.
    func stop() {
        client.disconnect()
        subscriber?.stop()
        states.stop()
        aggregator.stop()
        broker.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The aggregator's /metrics now.
    func metrics() -> AggregatorMetricsSample? {
        for attempt in 0..<3 {
            if let text = httpGet(port: httpPort, path: "/metrics") { return AggregatorMetricsSample(text: text) }
            if attempt < 2 { usleep(200_000) }
        }
        return nil
    }

    /// Offers `rate` readings/s for `seconds` on a thread of its own, calling `sample` every
    /// `every` seconds meanwhile; returns what was offered.
    func offer(rate: Double, seconds: Double, batchInterval: Double? = nil, every: Double = 0.5,
               sample: (Double) -> Void = { _ in }) -> LoadRun {
        let done = DispatchSemaphore(value: 0)
        let generator = self.generator
        let clock = self.clock
        let result = RunBox()
        let thread = Thread {
            result.run = generator.run(rate: rate, seconds: seconds, clock: clock, batchInterval: batchInterval)
            done.signal()
        }
        thread.name = "bench-load"
        let start = wallSeconds()
        thread.start()
        while done.wait(timeout: .now() + every) == .timedOut { sample(wallSeconds() - start) }
        return result.run ?? LoadRun(seconds: seconds, readings: 0, batches: 0, refused: 0)
    }

    /// Every device adverts once (at `rate`), so the ladder measures a site the aggregator
    /// knows: first sight of a device (interning, its database row) is a one-off cost.
    func warmUp(rate: Double) {
        let before = metrics()
        let run = offer(rate: rate, seconds: Double(generator.deviceCount * 4) / rate + 0.5)
        _ = drain(to: (before?.readings ?? 0) + (before?.rejected ?? 0) + Double(run.readings))
    }

    /// Waits until the aggregator has accepted `target` readings or stopped making progress
    /// for `idle` seconds; returns the last sample.
    func drain(to target: Double, idle: Double = 1.5, limit: Double = 30) -> AggregatorMetricsSample? {
        var last = metrics(), lastChange = wallSeconds()
        let deadline = wallSeconds() + limit
        while let m = last, m.readings + m.rejected < target, wallSeconds() < deadline, wallSeconds() - lastChange < idle {
            usleep(100_000)
            guard let next = metrics() else { break }
            if next.readings != m.readings || next.rejected != m.rejected { lastChange = wallSeconds() }
            last = next
        }
        return last
    }

    private static func connect(broker: PrivateBroker) throws -> MQTTClient {
        let connected = DispatchSemaphore(value: 0)
        let options = MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: broker.port, tls: false),
                                  clientID: "bench-load-\(getpid())-\(broker.port)")
        let client = try MQTTClient(options, queue: DispatchQueue(label: "bench.load.mqtt")) { event in
            if case .connected = event { connected.signal() }
        }
        try client.start()
        guard connected.wait(timeout: .now() + 10) == .success else { throw BenchError("load generator could not connect") }
        return client
    }

    /// The aggregator serves /metrics once it runs; a probe batch then tells when its
    /// subscription is live (its readings count moves).
    private func waitUntilSubscribed(timeout: Double) throws {
        let deadline = wallSeconds() + timeout
        while metrics() == nil {
            guard aggregator.isRunning, wallSeconds() < deadline else {
                let log = (try? String(contentsOfFile: directory + "/aggregator.log", encoding: .utf8)) ?? ""
                throw BenchError("aggregator did not start: \(log.suffix(600))")
            }
            usleep(100_000)
        }
        while (metrics()?.readings ?? 0) == 0 {
            guard aggregator.isRunning, wallSeconds() < deadline else { throw BenchError("aggregator never accepted a reading") }
            _ = generator.run(rate: Double(LoadGenerator.batchMax * site.nodeCount) * 5, seconds: 0.2, clock: clock)
            usleep(200_000)
        }
        if let subscriber {
            while subscriber.lines.load(ordering: .relaxed) == 0 {
                guard wallSeconds() < deadline else { throw BenchError("mosquitto_sub never received a batch") }
                _ = generator.run(rate: Double(LoadGenerator.batchMax * site.nodeCount) * 5, seconds: 0.2, clock: clock)
                usleep(100_000)
            }
        }
    }
}

/// Hands the generator thread's result back; the semaphore orders the write before the read.
private final class RunBox: @unchecked Sendable {
    var run: LoadRun?
}
