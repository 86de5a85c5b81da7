import Foundation
import MQTT
import Positioning
import Wire

/// A readings batch decoded on libmosquitto's network thread (`MQTTClient.prepare`), so the
/// work queue spends its time on positions: decoding was a fifth of the aggregator's
/// instructions, and the network thread mostly waits on the socket.
///
/// The batch carries its readings' ids itself, so the payload is never copied out of
/// libmosquitto's buffer (`needsPayload`): the ids are about a third of a reading's bytes.
struct PreparedBatch: PreparedMessage {
    var decoded: Result<BatchHeader, PayloadError>
    /// The readings; their id ranges (`BatchReading.idBytes(in:)`) are ranges of `ids`.
    var readings: [BatchReading]
    /// Each reading's id as it stood in the payload, with its quotes (so that an escaped id
    /// is resolved from here as from the payload), back to back.
    var ids: [UInt8]
    var badReadings: Int
    /// Seconds the decoding took, counted in `whereabouts_processing_seconds` with the rest.
    var seconds: Double
    /// CPU seconds of the decoding (on the network thread).
    var cpuSeconds: Double

    /// Decodes `payload` when `topic` is a node's readings topic; nil for any other message.
    /// `scratch` is the caller's buffer, reused (the network thread is one thread); the
    /// readings kept are copied out at their exact size, since they wait in the queue: edges'
    /// batches every 250 ms carry a few readings each, and a buffer sized for
    /// 200 made the waiting readings five times the size of their payloads (16 MB of the
    /// memory run's peak, heaptrack).
    static func prepare(topic: String, payload raw: UnsafeRawBufferPointer, topics: Topics, scratch: PrepareScratch) -> PreparedBatch? {
        guard let (_, leaf) = topics.parseNodeTopic(topic), leaf == "readings" else { return nil }
        let start = now(), cpu = threadCPUTime()
        var bad = 0
        let decoded = Result { () throws(PayloadError) -> BatchHeader in try Batch.decodeRaw(raw, into: &scratch.readings, badReadings: &bad) }
        // One allocation and a plain copy per id (`append(contentsOf:)` of a slice went byte by byte).
        let size = scratch.readings.reduce(0) { $0 + Int($1.idCount) + 2 }
        let ids = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            let out = UnsafeMutableRawBufferPointer(buffer)
            for i in scratch.readings.indices {
                let r = scratch.readings[i]
                let quoted = UnsafeRawBufferPointer(rebasing: raw[Int(r.idStart) - 1..<Int(r.idStart + r.idCount) + 1])
                out.baseAddress!.advanced(by: count).copyMemory(from: quoted.baseAddress!, byteCount: quoted.count)
                scratch.readings[i].idStart = Int32(count + 1)
                count += quoted.count
                // The engine's id hash too: it is a tenth of the work queue's cost per reading.
                if r.idIsPlain { scratch.readings[i].idHash = Engine.idHash(r.idBytes(in: raw)) }
            }
        }
        return PreparedBatch(decoded: decoded, readings: Array(scratch.readings), ids: ids, badReadings: bad,
                             seconds: now() - start, cpuSeconds: threadCPUTime() - cpu)
    }

    var needsPayload: Bool { false }
}

/// The network thread's decoding buffer (only that thread uses it).
final class PrepareScratch: @unchecked Sendable {
    var readings: [BatchReading] = []
    init() { readings.reserveCapacity(256) }
}
