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
    /// CPU seconds of the decoding (on the network thread) when this message is one of those
    /// `CPUSampling` measures, else nil.
    var cpuSeconds: Double?

    /// Decodes `payload` when `topic` is a node's readings topic (plain or a partition's); nil
    /// for any other message.
    /// `scratch` is the caller's buffer, reused (the network thread is one thread); the
    /// readings kept are copied out at their exact size, since they wait in the queue: edges'
    /// batches every 250 ms carry a few readings each, and a buffer sized for
    /// 200 made the waiting readings five times the size of their payloads (16 MB of the
    /// memory run's peak, heaptrack).
    static func prepare(topic: String, payload raw: UnsafeRawBufferPointer, topics: Topics, scratch: PrepareScratch) -> PreparedBatch? {
        guard topics.parseReadingsTopic(topic) != nil else { return nil }
        let sampled = scratch.cpuSampling.take()
        let start = now(), cpu = sampled ? threadCPUTime() : 0
        var bad = 0
        let decoded = Result { () throws(PayloadError) -> BatchHeader in try Batch.decodeRaw(raw, into: &scratch.readings, badReadings: &bad) }
        let (readings, ids) = keep(scratch.readings, of: raw)
        return PreparedBatch(decoded: decoded, readings: readings, ids: ids, badReadings: bad,
                             seconds: now() - start, cpuSeconds: sampled ? threadCPUTime() - cpu : nil)
    }

    /// The decoded readings at their exact size, each with its quoted id moved from `payload`
    /// into `ids`: one pass over the readings, writing both arrays in place, where a pass
    /// rewrote them in the scratch buffer (each element through the class, with a uniqueness
    /// check) and a copy of the whole buffer followed. Then the engine's id hashes, a tenth of
    /// the work queue's cost per reading when they were made there, in one call for the batch.
    private static func keep(_ decoded: [BatchReading], of payload: UnsafeRawBufferPointer) -> ([BatchReading], [UInt8]) {
        decoded.withUnsafeBufferPointer { decoded in
            let size = decoded.reduce(0) { $0 + Int($1.idCount) + 2 }
            var readings: [BatchReading] = []
            let ids = [UInt8](unsafeUninitializedCapacity: size) { ids, idsCount in
                readings = [BatchReading](unsafeUninitializedCapacity: decoded.count) { kept, keptCount in
                    for r in decoded {
                        kept.initializeElement(at: keptCount, to: moved(r, from: payload, to: ids.baseAddress!, at: idsCount))
                        keptCount += 1
                        idsCount += Int(r.idCount) + 2
                    }
                    Engine.hashIds(of: UnsafeMutableBufferPointer(rebasing: kept[..<keptCount]), in: UnsafeRawBufferPointer(ids))
                }
            }
            return (readings, ids)
        }
    }

    /// `r` with its quoted id copied to `at` of `ids` (one plain copy: `append(contentsOf:)`
    /// of a slice went byte by byte).
    @inline(__always)
    private static func moved(_ r: BatchReading, from payload: UnsafeRawBufferPointer, to ids: UnsafeMutablePointer<UInt8>, at offset: Int) -> BatchReading {
        var r = r
        let id = payload.baseAddress! + Int(r.idStart), count = Int(r.idCount)
        UnsafeMutableRawPointer(ids + offset).copyMemory(from: id - 1, byteCount: count + 2)
        r.idStart = Int32(offset + 1)
        return r
    }

    var needsPayload: Bool { false }
}

/// The network thread's decoding buffer (only that thread uses it).
final class PrepareScratch: @unchecked Sendable {
    var readings: [BatchReading] = []
    var cpuSampling = CPUSampling()
    init() { readings.reserveCapacity(256) }
}

/// Which messages `whereabouts_processing_cpu_seconds` measures: one in 16. A thread's CPU
/// clock is a system call (not in the vDSO, as the wall clock is), and reading it before and
/// after every message on both threads was a quarter of the aggregator's system calls at the
/// ladder's top (docs/benchmarks.md, branch netq); one message in 16 describes the
/// distribution as well at a sixteenth of the cost.
struct CPUSampling {
    static let every = 16
    private var count = 0

    /// Whether the next message is measured.
    mutating func take() -> Bool {
        count = count == Self.every - 1 ? 0 : count + 1
        return count == 0
    }
}
