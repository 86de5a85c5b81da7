import Foundation
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
    static func prepare(topic: String, payload: [UInt8], topics: Topics) -> PreparedBatch? {
        guard let (_, leaf) = topics.parseNodeTopic(topic), leaf == "readings" else { return nil }
        let start = now(), cpu = threadCPUTime()
        var readings: [BatchReading] = []
        readings.reserveCapacity(256)   // edges send at most 200 by default
        var bad = 0
        let decoded = payload.withUnsafeBytes { raw in
            Result { () throws(PayloadError) -> BatchHeader in try Batch.decodeRaw(raw, into: &readings, badReadings: &bad) }
        }
        return PreparedBatch(decoded: decoded, readings: readings, badReadings: bad, seconds: now() - start, cpuSeconds: threadCPUTime() - cpu)
    }
}
