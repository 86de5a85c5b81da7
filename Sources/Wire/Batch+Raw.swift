/// A batch's header: everything but its readings.
public struct BatchHeader: Sendable, Equatable {
    public var node: String
    public var seq: UInt64
    public var t: Double
    public init(node: String, seq: UInt64, t: Double) { self.node = node; self.seq = seq; self.t = t }
}

/// One reading as it stands in a batch's bytes: the id is a range of the payload, so
/// decoding a reading allocates nothing. The address is checked but not kept (the engine
/// does not use it; `Batch.decode` still returns it).
public struct BatchReading: Sendable, Equatable {
    /// Offset and length of the id's bytes between its quotes.
    public var idStart: Int32
    public var idCount: Int32
    /// The id's bytes are the id: ASCII without escapes. Otherwise `id(in:)` resolves them.
    public var idIsPlain: Bool
    public var rssi: Int16
    /// Measured power at 1 m, or `BatchReading.noTx`.
    public var tx: Int16
    public var t: Double
    public var kind: ReadingKind
    /// Free for the consumer: the aggregator keeps the engine's hash of the id here, made on
    /// the network thread that decoded the batch, so the work queue does not hash it again.
    public var idHash = 0

    public static let noTx = Int16.min

    /// The id's bytes in `payload` (the payload the reading was decoded from).
    @inlinable
    public func idBytes(in payload: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: payload[Int(idStart)..<Int(idStart + idCount)])
    }

    /// The id as a `String`, escapes resolved and invalid UTF-8 repaired as `Batch.decode` does.
    public func id(in payload: UnsafeRawBufferPointer) -> String {
        let raw = idBytes(in: payload)
        guard !idIsPlain else { return String(decoding: raw, as: UTF8.self) }
        var s = JSONScanner(payload, offset: Int(idStart) - 1)
        return (try? s.string()) ?? String(decoding: raw, as: UTF8.self)
    }

    /// The reading as `Batch.decode` makes it, without the address.
    public func reading(in payload: UnsafeRawBufferPointer) -> Reading {
        Reading(id: id(in: payload), rssi: Int(rssi), tx: tx == Self.noTx ? nil : Int(tx), t: t, kind: kind)
    }
}

extension Batch {
    /// Decodes a SPEC §2 batch as `decode` does (the same checks, errors and counts of bad
    /// readings) into `readings`, which is emptied first and reused: no allocation per reading.
    public static func decodeRaw(_ bytes: UnsafeRawBufferPointer, into readings: inout [BatchReading],
                                 badReadings: inout Int) throws(PayloadError) -> BatchHeader {
        readings.removeAll(keepingCapacity: true)
        return try decodeEnvelope(bytes, badReadings: &badReadings) { (s: inout JSONScanner) throws(JSONError) in
            if let r = BatchReading.decodeCanonical(&s) { readings.append(r); return true }
            guard let r = try BatchReading.decode(&s) else { return false }
            readings.append(r)
            return true
        }
    }
}

extension BatchReading {
    /// The reading as edges write it (`Reading.encode`: compact, keys in its order, plain
    /// ASCII id and address, every field valid), read without walking keys; anything else
    /// rewinds and returns nil for `decode`, so both paths give the same answers.
    @inline(__always)
    static func decodeCanonical(_ s: inout JSONScanner) -> BatchReading? {
        let start = s.offset
        guard let r = canonical(&s) else { s.rewind(to: start); return nil }
        return r
    }

    private static func canonical(_ s: inout JSONScanner) -> BatchReading? {
        // Plain ASCII strings and short integers only (`plainString`, `smallInteger`): the
        // id's bytes are then the id, and anything else is left to `decode`.
        guard s.consumeExactly("{\"id\":"), let id = s.plainString(), id.count > 0, id.count <= Reading.maxIdBytes else { return nil }
        if s.consumeExactly(",\"mac\":") {
            guard s.plainString() != nil else { return nil }
        }
        guard s.consumeExactly(",\"rssi\":"), let rssi = s.smallInteger(), Batch.rssiRange.contains(Int64(rssi)) else { return nil }
        var tx = noTx
        if s.consumeExactly(",\"tx\":") {
            guard let v = s.smallInteger(), (-127...20).contains(v) else { return nil }
            tx = Int16(v)
        }
        guard s.consumeExactly(",\"t\":"), let t = try? s.double(), t.isFinite, t > 0,
              s.consumeExactly(",\"kind\":"), let raw = s.plainString(), let kind = ReadingKind(rawBytes: raw),
              s.consumeExactly("}") else { return nil }
        return BatchReading(idStart: Int32(id.baseAddress! - s.bytes.baseAddress!), idCount: Int32(id.count), idIsPlain: true,
                            rssi: Int16(rssi), tx: tx, t: t, kind: kind)
    }

    /// As `Reading.decode`: `nil` for well-formed JSON that is not a valid reading.
    static func decode(_ s: inout JSONScanner) throws(JSONError) -> BatchReading? {
        var idStart = 0, idCount = -1, idIsPlain = true, idValid = true
        var rssi: Int64?, tx: Int64?, t: Double?, kind: ReadingKind?
        var valid = true
        try s.object { (s: inout JSONScanner, key) throws(JSONError) in
            if keyEquals(key, "id") {
                let quote = s.offset
                let raw = try s.rawString()
                idStart = raw.baseAddress! - s.bytes.baseAddress!
                idCount = raw.count
                idIsPlain = true
                for b in raw where b >= 0x80 || b == UInt8(ascii: "\\") { idIsPlain = false; break }
                idValid = true
                if !idIsPlain {
                    // Escapes must be valid (a bad one makes the batch malformed, as `string()`
                    // does) and the resolved id must fit the limits.
                    var again = JSONScanner(s.bytes, offset: quote)
                    let id = try again.string()
                    idValid = !id.isEmpty && id.utf8.count <= Reading.maxIdBytes
                }
            }
            else if keyEquals(key, "rssi") { rssi = try s.integer() }
            else if keyEquals(key, "t") { t = try s.double() }
            else if keyEquals(key, "kind") {
                let raw = try s.rawString()
                kind = ReadingKind(rawBytes: raw)
                if kind == nil { valid = false }
            }
            else if keyEquals(key, "tx") { tx = s.null() ? nil : try s.integer() }
            else if keyEquals(key, "mac") {
                if !s.null() {
                    let quote = s.offset
                    let raw = try s.rawString()
                    if raw.contains(UInt8(ascii: "\\")) {
                        var again = JSONScanner(s.bytes, offset: quote)
                        _ = try again.string()
                    }
                }
            }
            else { try s.skipValue() }
        }
        guard valid, idValid, idCount > 0, let rssi, Batch.rssiRange.contains(rssi),
              let t, t.isFinite, t > 0, let kind else { return nil }
        if idIsPlain && idCount > Reading.maxIdBytes { return nil }
        if let tx, !(-127...20).contains(tx) { return nil }
        return BatchReading(idStart: Int32(idStart), idCount: Int32(idCount), idIsPlain: idIsPlain, rssi: Int16(rssi),
                          tx: tx.map { Int16($0) } ?? noTx, t: t, kind: kind)
    }
}
