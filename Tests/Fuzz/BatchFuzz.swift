// libFuzzer target "batch": the payload of `<p>/nodes/<node>/readings` (docs/protocol.md#mqtt-topics-and-payloads), as the
// aggregator's Ingest decodes it. Compiled into module Wire with the Wire sources.
//
// Oracles: an accepted batch holds only readings inside the limits, and what the encoder
// writes for it decodes again to the same node, seq and readings.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatch(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let payload = UnsafeRawBufferPointer(start: data, count: size)
    var bad = 0
    let decoded = Result { () throws(PayloadError) -> Batch in try Batch.decode(payload, badReadings: &bad) }
    // The aggregator's path (`decodeRaw`, with its fast path for readings as edges write
    // them) agrees with `decode`: the same refusal, counts and readings (less the address).
    var rawBad = 0
    var raw: [BatchReading] = []
    switch (decoded, Result { () throws(PayloadError) -> BatchHeader in try Batch.decodeRaw(payload, into: &raw, badReadings: &rawBad) }) {
    case (.failure(let a), .failure(let b)): oracle(a.reason == b.reason, "decodeRaw refused as \(b.reason), decode as \(a.reason)")
    case (.success(let batch), .success(let header)):
        oracle(header == BatchHeader(node: batch.node, seq: batch.seq, t: batch.t) && rawBad == bad, "decodeRaw's header or bad count differs")
        oracle(raw.map { $0.reading(in: payload) } == batch.readings.map { Reading(id: $0.id, rssi: $0.rssi, tx: $0.tx, t: $0.t, kind: $0.kind) },
               "decodeRaw's readings differ")
    default: oracle(false, "decodeRaw and decode disagree on accepting the batch")
    }
    guard case .success(let batch) = decoded else { return 0 }
    oracle(batch.readings.count <= Batch.maxReadings && batch.t.isFinite && batch.t > 0, "batch accepted: \(batch.t)")
    for r in batch.readings {
        oracle(!r.id.isEmpty && r.id.utf8.count <= Reading.maxIdBytes, "id accepted: \(r.id)")
        oracle(Batch.rssiRange.contains(Int64(r.rssi)) && r.t.isFinite && r.t > 0, "reading accepted: \(r)")
    }
    var w = JSONWriter()
    batch.encode(into: &w)
    var again = 0
    let copy: Batch
    do { copy = try Batch.decode(w.bytes, badReadings: &again) } catch {
        fatalError("encoded batch refused: \(error): \(String(decoding: w.bytes, as: UTF8.self))")
    }
    oracle(copy.node == batch.node && copy.seq == batch.seq, "node or seq changed")
    // Times are written to the millisecond: a reading timed inside the first millisecond of
    // 1970 comes back as 0 and is refused; nothing real is timed there.
    if batch.readings.allSatisfy({ $0.t >= 0.001 }) {
        oracle(copy.readings.map(\.id) == batch.readings.map(\.id), "ids changed through encode and decode")
        oracle(copy.readings.map(\.rssi) == batch.readings.map(\.rssi), "rssi changed through encode and decode")
    }
    return 0
}
