import Foundation
import Positioning
import Wire

/// A readings batch decoded on libmosquitto's network thread (`MQTTClient.prepare`), so the
/// work queue spends its time on positions: decoding was a fifth of the aggregator's
/// instructions, and the network thread mostly waits on the socket.
struct PreparedBatch: Sendable {
    var decoded: Result<BatchHeader, PayloadError>
    var readings: [BatchReading]
    var badReadings: Int
    /// Seconds the decoding took, counted in `whereabouts_processing_seconds` with the rest.
    var seconds: Double
    /// CPU seconds of the decoding (on the network thread).
    var cpuSeconds: Double

    /// Decodes `payload` when `topic` is a node's readings topic; nil for any other message.
    /// `scratch` is the caller's buffer, reused (the network thread is one thread); the
    /// readings kept are copied out at their exact size, since they wait in the queue with the
    /// payload: edges' batches every 250 ms carry a few readings each, and a buffer sized for
    /// 200 made the waiting readings five times the size of their payloads (16 MB of the
    /// memory run's peak, heaptrack).
    static func prepare(topic: String, payload: [UInt8], topics: Topics, scratch: PrepareScratch) -> PreparedBatch? {
        guard let (_, leaf) = topics.parseNodeTopic(topic), leaf == "readings" else { return nil }
        let start = now(), cpu = threadCPUTime()
        var bad = 0
        let decoded = payload.withUnsafeBytes { raw in
            let result = Result { () throws(PayloadError) -> BatchHeader in try Batch.decodeRaw(raw, into: &scratch.readings, badReadings: &bad) }
            // The engine's id hash too: it is a tenth of the work queue's cost per reading.
            for i in scratch.readings.indices where scratch.readings[i].idIsPlain {
                scratch.readings[i].idHash = Engine.idHash(scratch.readings[i].idBytes(in: raw))
            }
            return result
        }
        return PreparedBatch(decoded: decoded, readings: Array(scratch.readings), badReadings: bad,
                             seconds: now() - start, cpuSeconds: threadCPUTime() - cpu)
    }
}

/// The network thread's decoding buffer (only that thread uses it).
final class PrepareScratch: @unchecked Sendable {
    var readings: [BatchReading] = []
    init() { readings.reserveCapacity(256) }
}
