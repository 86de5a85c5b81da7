import Dispatch
import MQTT
import Options
import Synchronization
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// Batches readings (docs/protocol.md#mqtt-topics-and-payloads) and publishes them, never losing one silently.
///
/// Readings wait in a bounded `ReadingQueue` until a batch is due and the broker is there.
/// At most `window` batches are handed to libmosquitto at a time; each stays counted as
/// buffered until libmosquitto confirms it (PUBACK at QoS 1, written at QoS 0). At QoS 1 an
/// unconfirmed batch survives a reconnect inside libmosquitto, which re-sends it with the
/// same `seq`, so a duplicate is always recognisable. At QoS 0 batches that were not
/// confirmed when the connection dropped are counted as dropped.
///
/// With `partitions` P > 1 each partition is a stream of its own (docs/protocol.md, Partitions
/// and shards): its queue (a P-th of `buffer_max`), its topic, made once, and its `seq`. The
/// pipeline gives each reading its partition, computed once per device.
///
/// All state but the incoming queues is confined to `queue`, where MQTT events also arrive.
final class Publisher: @unchecked Sendable {
    struct Incoming {
        /// One queue per partition.
        var readings: [ReadingQueue]
        var drainScheduled = false

        var waiting: Int { readings.reduce(0) { $0 + $1.count } }
        var dropped: UInt64 { readings.reduce(0) { $0 + $1.dropped } }
    }

    let queue = DispatchQueue(label: "whereabouts.edge.publisher")
    private let config: EdgeConfig
    private let telemetry: Telemetry
    /// Each partition's readings topic (the plain one when there is one partition).
    private let readingsTopics: [String]
    private let statusTopic: String
    private let incoming: Mutex<Incoming>
    private var client: MQTTClient!

    // Confined to `queue`.
    private var connected = false
    /// Whether any connection succeeded yet: the next one is a reconnect.
    private var everConnected = false
    /// Each partition's last `seq`.
    private var seq: [UInt64]
    /// The partition the next drain looks at first, so that no partition waits behind others.
    private var nextPartition = 0
    private var inflight: [Int32: Int] = [:]
    private var counts = Telemetry.Counts()
    private var batch: [Reading] = []
    /// Readings in one batch at most, under the broker's packet limit.
    private var batchLimit: BatchLimit
    /// Whether this connection's packet limit, and a reading too large on its own, were
    /// reported (each once a connection: probing larger batches meets the limit again).
    private var limitReported = false
    private var oversizeReported = false
    private var writer = JSONWriter(capacity: 32 * 1024)
    private var timers: [DispatchSourceTimer] = []
    /// Reasons of refused or failed connection attempts already logged since the last success.
    private var refusals: Set<String> = []
    private var flushed: (() -> Void)?
    private var offline: (mid: Int32, done: () -> Void)?

    init(config: EdgeConfig, telemetry: Telemetry) throws(MQTTError) {
        self.config = config
        self.telemetry = telemetry
        let topics = Topics(prefix: config.prefix)
        let p = config.partitions.count
        readingsTopics = p == 1 ? [topics.nodeReadings(config.node)] : (0..<p).map { topics.nodeReadings(config.node, partition: $0) }
        seq = Array(repeating: 0, count: p)
        statusTopic = topics.nodeStatus(config.node)
        let capacity = (config.bufferMax + p - 1) / p
        incoming = Mutex(Incoming(readings: (0..<p).map { _ in ReadingQueue(capacity: capacity) }))
        batch.reserveCapacity(config.batchMax)
        batchLimit = BatchLimit(batchMax: config.batchMax)
        var options = config.mqtt
        options.will = Will(topic: statusTopic, payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
        client = try MQTTClient(options, queue: queue) { [weak self] event in self?.handle(event) }
    }

    /// Connects (in the background) and starts the batch and telemetry clocks.
    func start() throws(MQTTError) {
        try client.start()
        queue.sync {
            timers.append(repeating(every: config.batchInterval) { [weak self] in self?.drain(partial: true) })
            timers.append(repeating(every: config.telemetryInterval) { [weak self] in self?.publishTelemetry() })
        }
    }

    /// Queues a reading of partition `partition`; called on the source's thread. Wakes the
    /// publisher when a full batch is waiting.
    func append(_ reading: Reading, partition: Int) {
        let batchMax = config.batchMax
        let wake = incoming.withLock { s in
            s.readings[partition].append(reading)
            guard s.readings[partition].count >= batchMax, !s.drainScheduled else { return false }
            s.drainScheduled = true
            return true
        }
        if wake { queue.async { [weak self] in self?.drain(partial: false) } }
    }

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            connected = true
            printError("whereabouts-edge: \(everConnected ? "reconnected" : "connected") to \(config.mqtt.broker)")
            everConnected = true
            refusals.removeAll()
            batchLimit.reset()
            limitReported = false
            oversizeReported = false
            _ = try? client.publish(statusTopic, Array("online".utf8), qos: .atLeastOnce, retain: true)
            publishTelemetry()
            drain(partial: true)
        case .disconnected(let code, let reason):
            let wasConnected = connected
            connected = false
            // A failed attempt also ends as a disconnect: "lost" only for a connection that
            // was up; failed attempts are said once per reason until one succeeds.
            if code != 0 && wasConnected {
                printError("whereabouts-edge: broker connection lost (\(reason)); reconnecting")
            } else if code != 0 && refusals.insert(reason).inserted {
                printError("whereabouts-edge: cannot reach the broker at \(config.mqtt.broker) (\(reason)); retrying")
            }
            if config.qos == .atMostOnce { forgetUnconfirmed() }
        case .refused(_, let reason):
            if refusals.insert(reason).inserted { printError("whereabouts-edge: broker refused the connection: \(reason)") }
        case .published(let mid):
            if let n = inflight.removeValue(forKey: mid) {
                counts.inflight -= n
                counts.published += UInt64(n)
            }
            if let offline, offline.mid == mid { offline.done() }
            drain(partial: flushed != nil)
        case .message:
            break
        }
    }

    /// Publishes waiting readings: only full batches unless `partial` (the batch clock, a
    /// reconnect, a shutdown), and no more than `window` batches unconfirmed at once.
    private func drain(partial: Bool) {
        let batchMax = config.batchMax
        incoming.withLock { $0.drainScheduled = false }
        let partitions = seq.count
        while connected && inflight.count < config.window {
            batch.removeAll(keepingCapacity: true)
            let limit = batchLimit.value, start = nextPartition
            let taken: Int? = incoming.withLock { s in
                for offset in 0..<partitions {
                    let p = (start + offset) % partitions
                    guard s.readings[p].count >= batchMax || (partial && !s.readings[p].isEmpty) else { continue }
                    s.readings[p].take(max: limit, into: &batch)
                    return p
                }
                return nil
            }
            guard let p = taken else { break }
            nextPartition = (p + 1) % partitions
            let outcome = send(partition: p)
            if outcome == .sent { batchLimit.sent(); continue }
            if outcome == .tooLarge { shrink(partition: p); continue }
            incoming.withLock { $0.readings[p].restore(batch) }
            break
        }
        if let flushed, inflight.isEmpty, incoming.withLock({ $0.waiting == 0 }) { flushed() }
    }

    /// `batch` was refused as larger than the broker takes: the same batch would be refused
    /// again, forever, so it goes back to wait for smaller ones; a single reading too large
    /// on its own is dropped and counted.
    private func shrink(partition p: Int) {
        switch batchLimit.refused(count: batch.count) {
        case .drop:
            if !oversizeReported {
                oversizeReported = true
                printError("whereabouts-edge: a reading of \(batch[0].id) is larger on its own than the broker takes (its maximum packet size); dropped, and any more are counted as lost in telemetry")
            }
            counts.lost += 1
        case .split:
            if !limitReported {
                limitReported = true
                printError("whereabouts-edge: the broker takes no batch of \(batch.count) readings (its maximum packet size); sending smaller ones")
            }
            incoming.withLock { $0.readings[p].restore(batch) }
        }
    }

    private enum Sent { case sent, tooLarge, failed }

    /// Encodes `batch` with partition `p`'s next `seq` and hands it to libmosquitto.
    private func send(partition p: Int) -> Sent {
        writer.reset()
        Batch(node: config.node, seq: seq[p] + 1, t: unixTime(), readings: batch).encode(into: &writer)
        do {
            let mid = try client.publish(readingsTopics[p], writer.bytes, qos: config.qos)
            seq[p] += 1
            inflight[mid] = batch.count
            counts.inflight += batch.count
            return .sent
        } catch {
            if error.isTooLarge { return .tooLarge }
            if !error.isNotConnected { printError("whereabouts-edge: \(error)") }
            return .failed
        }
    }

    /// QoS 0 batches written to a connection that then dropped may never have arrived.
    private func forgetUnconfirmed() {
        counts.lost += UInt64(counts.inflight)
        counts.inflight = 0
        inflight.removeAll()
    }

    private func publishTelemetry() {
        guard connected else { return }
        let (waiting, dropped) = incoming.withLock { ($0.waiting, $0.dropped) }
        var c = counts
        c.waiting = waiting
        c.dropped = dropped + c.lost
        _ = try? client.publish(telemetry.topic, telemetry.payload(c), qos: .atMostOnce, retain: true)
    }

    private func repeating(every seconds: Double, _ body: @escaping @Sendable () -> Void) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.nanoseconds(Int(seconds * 1e9))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(5))
        timer.setEventHandler(handler: body)
        timer.resume()
        return timer
    }
}

extension Publisher {
    /// How a shutdown went.
    struct Outcome {
        /// Readings that never reached the broker (waiting or unconfirmed at the deadline).
        var undelivered: Int
        /// Whether the broker acknowledged the `offline` status.
        var offlineAcknowledged: Bool
    }

    /// Flushes what is buffered (up to `timeout` seconds), publishes the last telemetry and
    /// `offline`, and disconnects. Blocks the calling thread, which must not be `queue`.
    func shutdown(timeout: Double) -> Outcome {
        let flushedSignal = DispatchSemaphore(value: 0)
        queue.async {
            self.flushed = { flushedSignal.signal() }
            self.drain(partial: true)
        }
        _ = flushedSignal.wait(timeout: .now() + timeout)
        let offlineSignal = DispatchSemaphore(value: 0)
        let undelivered: Int = queue.sync {
            flushed = nil
            timers.forEach { $0.cancel() }
            timers.removeAll()
            publishTelemetry()
            if connected, let mid = try? client.publish(statusTopic, Array("offline".utf8), qos: .atLeastOnce, retain: true) {
                offline = (mid, { offlineSignal.signal() })
            }
            return counts.inflight + incoming.withLock { $0.waiting }
        }
        // Without a connection no `offline` was sent: nothing to wait for (it waited 5 s).
        let sent = queue.sync { offline != nil }
        let acknowledged = sent && offlineSignal.wait(timeout: .now() + min(max(timeout, 1), 5)) == .success
        client.disconnect()
        return Outcome(undelivered: undelivered, offlineAcknowledged: acknowledged)
    }
}

/// Unix time now, in seconds.
func unixTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
